import { zstdDecompressSync } from "node:zlib";
import { toEpochMs } from "../../src/dataset/record-fields.ts";

/** hyparquet's ZSTD decompressor: Node's own. */
export const compressors = { ZSTD: (bytes: Uint8Array) => new Uint8Array(zstdDecompressSync(bytes)) };

const TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * A record's value and a Parquet row's read back by hyparquet in one form, to compare them: no
 * nulls (an absent field), integers as numbers (hyparquet reads INT64 as bigint), times as epoch
 * milliseconds (a record's text in any of its forms, a row's Date).
 */
export function plain(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof Date) return v.getTime();
  if (typeof v === "string" && TIME.test(v)) return toEpochMs(v);
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = plain(x);
      if (p !== undefined) out[k] = p;
    }
    return out;
  }
  return v;
}

/** A Domain's row as its record: `keywords` from the column that is set (a list, or the text). */
export function domainOf(row: Record<string, unknown>): Record<string, unknown> {
  const { keywords, keywords_text, ...rest } = row;
  return plain({ ...rest, keywords: keywords ?? keywords_text }) as Record<string, unknown>;
}
