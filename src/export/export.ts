import { isRequest } from "../auth/plugin.ts";
import { crc32Combine } from "../codec/crc32.ts";
import { storedBlocks } from "../codec/deflate.ts";
import { GZIP_HEADER, gzipTrailer } from "../codec/gzip.ts";
import { apiError } from "../errors.ts";
import { whenWritten } from "../ops/access-log.ts";
import { chooseEncoding } from "../ops/compression.ts";
import { requestIdOf } from "../ops/request-id.ts";
import { failMidStream } from "../rest/errors.ts";
import { drawOn, type Whole } from "../rest/handler.ts";
import { readFormat } from "../rest/inputs.ts";
import { domainCsvPlan } from "./csv.ts";
import { cursorAll } from "./cursor-all.ts";
import { dryRun } from "./estimate.ts";
import {
  type Answer,
  type DomainQuery,
  domainPages,
  type ExportDeps,
  keyOf,
  readQuery,
  resultHeaders,
} from "./export-query.ts";
import type { Page } from "./export-reader.ts";
import { releasing } from "./export-slots.ts";

export { handOverJobs } from "./cursor-all.ts";
export type { ExportDeps } from "./export-query.ts";

/*
 * The routes answered whole: Export Domains (JSON Lines streamed at once) and List Domains with
 * `cursor=all` (src/export/cursor-all.ts), both in bounded memory.
 */

/**
 * Export Domains: JSON Lines, streamed as pages are read (backpressure: a page per pull). The first
 * page is read before answering, so that bad options get their 400 rather than a broken stream.
 */
async function exportStream(
  deps: ExportDeps,
  request: Request,
  q: DomainQuery,
  format: "jsonl" | "csv",
): Promise<Answer> {
  // A client that takes gzip gets rendered records as they are kept (src/db/rendered.ts).
  const encoding = chooseEncoding(request.headers.get("accept-encoding"));
  const gzip = format === "jsonl" && encoding === "gzip";
  // Pages the answer writes as they are (not through a compressor) come through a ring of buffers
  // (src/export/page-ring.ts), each slot freed when its page is written (whenWritten).
  // A slot of the gateway's exports (or BUSY, before anything is read), held until the stream ends.
  const release = deps.slots.take();
  const pages = releasing(
    domainPages(deps, request, q, format, "export", 0, undefined, {
      gzip,
      ring: gzip || !encoding,
    }),
    release,
  );
  let pending: IteratorResult<Page> | null = await pages.next();
  // The first page tells whether the pages are compressed: then the answer is one gzip member,
  // its header before the first page, its trailer (CRC-32 and length, combined) after the last.
  let member: { crc: number; len: number } | null =
    !pending.done && pending.value.gzip ? { crc: 0, len: 0 } : null;
  let opening: Uint8Array | null = member ? GZIP_HEADER : null;
  // Drawn once the options proved valid: a typo costs a 400, not the minute's only export.
  const budget = await drawOn(deps.limits, "exportDomains", request).catch(async (e) => {
    await pages.return(undefined);
    throw e;
  });
  await deps.counts?.add(keyOf(request), "exports");
  const encoder = new TextEncoder();
  // A CSV's header record comes first, whatever follows (none, for an export that matches nothing).
  let header: Uint8Array | null = format === "csv" ? encoder.encode(domainCsvPlan(q.fields).header) : null;
  // Set once the client has gone (the response's stream was cancelled): what the export was
  // doing then is dropped quietly, never written to a closed stream (that threw, and was logged
  // as a fault of ours).
  let dropped = false;
  /** The error that ended the stream, its line written: the stream errors once that is taken. */
  let failed: Error | null = null;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (failed) return controller.error(failed);
      try {
        if (opening) {
          controller.enqueue(opening);
          opening = null;
        }
        if (header) {
          controller.enqueue(header);
          header = null;
          return;
        }
        const next = pending ?? (await pages.next());
        pending = null;
        if (dropped) return;
        if (next.done) {
          if (member) controller.enqueue(gzipTrailer(member.crc, member.len));
          return controller.close();
        }
        const { gzip: piece } = next.value;
        if (member) {
          if (!piece) throw new Error("an export's pages came compressed and then not");
          member = { crc: crc32Combine(member.crc, piece.crc, piece.len), len: member.len + piece.len };
        }
        const { bytes, release } = next.value;
        if (!next.value.count) release?.();
        else {
          if (release) whenWritten(bytes, release);
          controller.enqueue(bytes);
        }
      } catch (e) {
        // Within a gzip member, the error line is part of its text (stored blocks), where a client
        // inflating the export reads it: written plainly after the member, it was never read.
        if (!dropped)
          failed = failMidStream(controller, e, request, deps.logger, member ? storedBlocks : undefined);
      }
    },
    async cancel(reason) {
      dropped = true;
      deps.logger.info(
        {
          requestId: requestIdOf(request),
          reason: reason instanceof Error ? reason.message : String(reason),
        },
        "export dropped by the client",
      );
      await pages.return(undefined);
    },
  });
  const response = new Response(body, {
    headers: {
      ...resultHeaders(format),
      "cache-control": "no-store",
      vary: "Accept-Encoding",
      ...(member ? { "content-encoding": "gzip" } : {}),
    },
  });
  return { response, budget };
}

/** The routes answered whole (their `whole` in src/rest/routes.ts): export, and cursor=all. */
export function exportRoutes(deps: ExportDeps): Whole {
  return async (op, options, request) => {
    const kind = op.route.whole?.kind;
    if (kind === "stream") {
      const format = readFormat(options, "stream") as "jsonl" | "csv";
      const q = readQuery(op.route, options);
      if (options.bool("dry_run")) return dryRun(deps, request, q, format, "exportDomains");
      // A stream is an HTTP request's (an MCP tool starts a cursor=all job instead).
      if (!isRequest(request)) return null;
      return exportStream(deps, request, q, format);
    }
    if (kind !== "job" || options.string("cursor") !== "all") return null;
    const format = readFormat(options, "job");
    if (options.has("page_size"))
      throw apiError("BAD_USER_INPUT", "page_size: does not apply with cursor=all");
    const q = readQuery(op.route, options);
    if (options.bool("dry_run")) return dryRun(deps, request, q, format, "listDomainsAll");
    return cursorAll(deps, request, q, format);
  };
}
