import { apiKeyOf, isRequest } from "../auth/plugin.ts";
import type { Budget } from "../auth/rate-headers.ts";
import type { RateLimits } from "../auth/rate-limit.ts";
import type { MonthlyCounts } from "../auth/usage-counts.ts";
import type { SnapshotFile, SnapshotFiles } from "../db/snapshot-manifest.ts";
import { apiError } from "../errors.ts";
import { drawOn, type Whole } from "../rest/answer.ts";

/**
 * GET (and HEAD) /json/api/v1/all/snapshots/{version}/{file}: a kept snapshot's file, whole or by
 * one byte range (RFC 9110 section 14), as readers of remote Parquet (DuckDB, hyparquet, Arrow)
 * ask for it: the footer first, then the column chunks a query needs.
 *
 * - `ETag` is the file's SHA-256 (strong): `If-None-Match` answers 304, `If-Range` another ETag
 *   the whole file.
 * - Each GET draws on the snapshot files' budget (docs/api.md section 8; many a second, since a
 *   remote query is many range reads); HEAD and 304 draw nothing.
 * - The month's exports (GET /usage): a whole download counts one each time; a file read by ranges
 *   counts once in the month, at its first range, however many follow.
 */
export const FILE_ROUTE = "downloadSnapshotFile";
const PARQUET = "application/vnd.apache.parquet";

export interface FileDeps {
  files: SnapshotFiles;
  limits: RateLimits;
  counts: MonthlyCounts;
}

/** The file route answered whole; null for any other route, and for a caller without a request. */
export function fileRoutes(deps: FileDeps): Whole {
  return async (op, _options, request, params) => {
    if (op.id !== FILE_ROUTE || !isRequest(request)) return null;
    return answerFile(deps, request, params ?? {});
  };
}

/** `version` as the path gives it: a positive integer. */
function versionOf(text: string): number {
  if (!/^[1-9]\d{0,15}$/.test(text))
    throw apiError(
      "BAD_USER_INPUT",
      `version: must be a snapshot's version, a positive integer, not ${JSON.stringify(text)}`,
      {
        argument: "version",
      },
    );
  return Number(text);
}

/** `file` as the path gives it: a file's name (what is kept is told by the lookup). */
function fileNameOf(text: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(text))
    throw apiError(
      "BAD_USER_INPUT",
      `file: must be a file's name such as domains.parquet (letters, digits, ".", "_" and "-"), not ${JSON.stringify(text.slice(0, 100))}`,
      { argument: "file" },
    );
  return text;
}

async function answerFile(deps: FileDeps, request: Request, params: Record<string, string>) {
  const version = versionOf(params.version ?? "");
  const name = fileNameOf(params.file ?? "");
  const lookup = await deps.files.file(version, name);
  if ("missing" in lookup) {
    if (lookup.missing === "version")
      throw apiError(
        "NOT_FOUND",
        `snapshot ${version} is not kept: ${
          lookup.versions.length
            ? `the kept snapshots are ${lookup.versions.join(", ")}`
            : "no snapshot is kept yet"
        } (a snapshot's files go when it is pruned; GET /json/api/v1/all/snapshots lists them)`,
      );
    throw apiError(
      "NOT_FOUND",
      lookup.files.length
        ? `snapshot ${version} has no file ${JSON.stringify(name)}: its files are ${lookup.files.join(", ")}`
        : `snapshot ${version} has no files: it was loaded before files were written`,
    );
  }
  const file = lookup.found;
  const etag = `"${file.sha256}"`;
  const common = {
    etag,
    "accept-ranges": "bytes",
    // A version's file never changes; it is the key's to read, so no shared cache keeps it.
    "cache-control": "private, max-age=604800, immutable",
  };
  if (matches(request.headers.get("if-none-match"), etag))
    return { response: new Response(null, { status: 304, headers: common }) };
  const head = request.method === "HEAD";
  // Range applies to GET alone (RFC 9110 14.2), and only while If-Range names this file.
  const ifRange = request.headers.get("if-range");
  const rangeHeader = head || (ifRange !== null && ifRange !== etag) ? null : request.headers.get("range");
  const range = rangeHeader === null ? null : rangeOf(rangeHeader, file.bytes);
  const [start, end] = range ?? [0, file.bytes];
  const headers: Record<string, string> = {
    ...common,
    "content-type": file.contentType,
    "content-length": String(end - start),
    ...(range ? { "content-range": `bytes ${start}-${end - 1}/${file.bytes}` } : {}),
    ...(range ? {} : { "content-disposition": `attachment; filename="${file.version}-${file.name}"` }),
  };
  const status = range ? 206 : 200;
  if (head) return { response: new Response(null, { status, headers }) };
  const key = apiKeyOf(request);
  const budget: Budget | null = await drawOn(deps.limits, "snapshotFiles", request);
  // The month's exports: a Parquet file sent whole (a range of all of it too) each time, one read
  // by ranges once a month; the manifest never.
  const whole = start === 0 && end === file.bytes;
  if (
    key &&
    file.contentType === PARQUET &&
    (whole || (await deps.counts.firstOfMonth(key, `${file.version}/${file.name}`)))
  )
    await deps.counts.add(key, "exports");
  return { response: new Response(bodyOf(file, start, end), { status, headers }), budget };
}

/** Whether an If-None-Match names `etag` (or is `*`). */
function matches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .some((t) => t === "*" || t === etag);
}

/**
 * The one byte range of a Range header, as [start, end) within a file of `size` bytes: `a-b`,
 * `a-` and `-n` (the last n bytes); null for a unit other than bytes (the whole file). A bytes
 * range that is not one such range is refused naming it (a list of ranges too: one a request); a
 * range that starts past the file's end is answered 416 with the file's size.
 */
export function rangeOf(header: string, size: number): [number, number] | null {
  const bad = (why: string) =>
    apiError("BAD_USER_INPUT", `Range: ${why}, not ${JSON.stringify(header.slice(0, 100))}`, {
      argument: "Range",
    });
  const text = header.trim();
  // A unit other than bytes is not ours to read: the whole file (RFC 9110 14.2).
  if (!/^bytes=/i.test(text)) return null;
  const m = /^bytes=(\d*)-(\d*)$/i.exec(text);
  if (!m) {
    if (text.includes(",")) throw bad("one range per request (bytes=start-end)");
    throw bad("must be bytes=start-end, bytes=start- or bytes=-length");
  }
  const [, a, b] = m;
  if (a === "" && b === "") throw bad("must give a start, an end or a length");
  const outside = () =>
    apiError(
      "RANGE_NOT_SATISFIABLE",
      `Range: ${header.trim()} is outside the file, which has ${size} bytes`,
      { argument: "Range", headers: { "content-range": `bytes */${size}` } },
    );
  if (a === "") {
    const length = Number(b);
    if (length === 0 || size === 0) throw outside();
    return [Math.max(0, size - length), size];
  }
  const start = Number(a);
  const last = b === "" ? size - 1 : Number(b);
  if (b !== "" && last < start) throw bad("the end is before the start");
  if (start >= size) throw outside();
  return [start, Math.min(last, size - 1) + 1];
}

function bodyOf(file: SnapshotFile, start: number, end: number): ReadableStream<Uint8Array> {
  const chunks = file.read(start, end)[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return?.(undefined);
    },
  });
}
