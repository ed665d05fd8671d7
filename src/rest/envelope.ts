import { gzipAround } from "../codec/gzip.ts";
import { whenWritten } from "../ops/access-log.ts";
import { renderedPiece } from "../query/domain-read/rendered-rows.ts";
import { TextBytes } from "./text-bytes.ts";

/**
 * A REST answer's envelope (src/rest/route.ts: a route's `envelope`, its members worked out once
 * per route) written as JSON bytes around its records: each record written by the route's writer,
 * or copied from its rendered record, or (to a client that takes gzip) its rendered piece passed on.
 */

/** An envelope key, with its paths split once. */
export interface Member {
  /** `"key":` */
  prefix: string;
  kind: "records" | "connection" | "record" | "value";
  path: string[];
  when: string[] | null;
}

export function at(data: unknown, path: readonly string[]): unknown {
  let value = data;
  for (const name of path) value = (value as Record<string, unknown> | null)?.[name];
  return value;
}

/**
 * A record's JSON text, or its UTF-8 bytes (a rendered record's, as inflated); undefined: it cannot
 * be written so (the envelope is then not written).
 */
type RecordWrite = (record: Record<string, unknown>) => string | Uint8Array | undefined;

const COMMA = 0x2c;

/** Writes the records as a JSON array; false where one cannot be written. */
function list(out: TextBytes, records: readonly Record<string, unknown>[], write: RecordWrite): boolean {
  out.write("[");
  for (let i = 0; i < records.length; i++) {
    const text = write(records[i]);
    if (text === undefined) return false;
    out.write(text, i ? COMMA : null);
  }
  out.write("]");
  return true;
}

/**
 * The envelope of rendered records as one gzip member (src/db/rendered.ts, gzipAround): written
 * with a NUL in each record's place, then the records' pieces put there as they are kept.
 */
export function gzippedEnvelope(
  members: readonly Member[],
  data: unknown,
): Uint8Array<ArrayBuffer> | undefined {
  const pieces: { body: Uint8Array; crc: number; len: number }[] = [];
  const text = writeEnvelope(
    members,
    (record) => {
      const piece = renderedPiece(record);
      if (!piece) return undefined;
      pieces.push(piece);
      return "\u0000";
    },
    data,
    // The envelope alone (a NUL per record), gone once gzipAround has copied it: not pooled.
    TextBytes.fresh(16 * 1024),
  );
  return text && (gzipAround(text, pieces) as Uint8Array<ArrayBuffer>);
}

/**
 * The envelope as JSON, in UTF-8 bytes (written piece by piece: src/rest/text-bytes.ts): the
 * records written by `write`, the rest as they are; undefined where a record cannot be written.
 * Written into `out`, by default a buffer of the answers' pool, back in it once a response's socket
 * has taken the answer (src/ops/access-log.ts, whenWritten), or at once when it is not written. An
 * answer never written to a socket (compressed on the way, or read by the MCP server) leaves its
 * buffer to the garbage collector.
 */
export function writeEnvelope(
  members: readonly Member[],
  write: RecordWrite,
  data: unknown,
  out = TextBytes.pooled(),
): Uint8Array<ArrayBuffer> | undefined {
  out.write("{");
  let first = true;
  for (const m of members) {
    if (m.when && !at(data, m.when)) continue;
    const value = at(data, m.path);
    out.write(m.prefix, first ? null : COMMA);
    first = false;
    let written = true;
    if (m.kind === "connection") {
      const edges = (value as { edges?: { node: Record<string, unknown> }[] } | null)?.edges ?? [];
      written = list(
        out,
        edges.map((e) => e.node),
        write,
      );
    } else if (m.kind === "records")
      written = list(out, (value as Record<string, unknown>[] | null) ?? [], write);
    else if (m.kind === "record") {
      const text = write(value as Record<string, unknown>);
      if (text === undefined) written = false;
      else out.write(text);
    } else out.write(JSON.stringify(value ?? null));
    if (!written) {
      out.release();
      return undefined;
    }
  }
  out.write("}");
  const bytes = out.done();
  whenWritten(bytes, () => out.release());
  return bytes;
}
