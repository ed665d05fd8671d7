import { createHash } from "node:crypto";
import { apiError, InputError } from "../errors.ts";
import { textProblem } from "../text.ts";
import type { KeyValue, SortKey } from "./keyset.ts";

/**
 * Cursors are opaque to clients: base64url of a small JSON document holding the dataset snapshot
 * version, a fingerprint of the query (sort, filter, search, parent) and the sort-key values of the
 * last row.
 *
 * @example
 * const scope = fingerprint({ orderBy, filter, search });
 * const c = encodeCursor(7, scope, keys, [120, 5531]);
 * decodeCursor(c, "after", 7, scope, keys); // → [120, 5531]
 * decodeCursor(c, "after", 8, scope, keys); // throws CURSOR_EXPIRED: data was refreshed
 */
interface Payload {
  v: number;
  q: string;
  k: unknown[];
}

/** A short, stable fingerprint of what a cursor belongs to. */
export function fingerprint(scope: unknown): string {
  return createHash("sha256").update(stableJson(scope)).digest("base64url").slice(0, 12);
}

function stableJson(v: unknown): string {
  if (v === undefined || v === null) return "null";
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (typeof v === "bigint") return JSON.stringify(v.toString());
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined && x !== null)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableJson(x)}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

export function encodeCursor(version: number, scope: string, values: readonly KeyValue[]): string {
  const k = values.map((v) =>
    v instanceof Date ? { t: v.getTime() } : typeof v === "bigint" ? { b: v.toString() } : v,
  );
  return Buffer.from(JSON.stringify({ v: version, q: scope, k } satisfies Payload)).toString("base64url");
}

/** Seconds a client is asked to wait with a cursor of a snapshot its gateway does not serve yet. */
export const CURSOR_RETRY_AFTER_S = 1;

/**
 * The sort-key values a cursor carries, checked against the query it is used with. A cursor of an
 * older snapshot is CURSOR_EXPIRED; one of a newer snapshot than this gateway serves yet (its
 * replica lags) is NOT_READY, with a Retry-After; one of another query, or not a cursor at all, is
 * bad input naming `argument`.
 */
export function decodeCursor(
  cursor: string,
  argument: string,
  version: number,
  scope: string,
  keys: readonly SortKey[],
): KeyValue[] {
  const malformed = () => new InputError(argument, "is not a cursor returned by this query");
  let payload: Payload;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw malformed();
    payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw malformed();
  }
  if (typeof payload !== "object" || payload === null || !Number.isInteger(payload.v)) throw malformed();
  if (payload.v > version) {
    // Behind a load balancer, a gateway whose replica has not replayed the newer snapshot yet
    // (src/db/replicas.ts): this is not an expired cursor, and a retry soon is answered.
    throw apiError(
      "NOT_READY",
      `${argument}: the cursor is of snapshot ${payload.v}, which this gateway does not serve yet (it serves ${version}); retry in ${CURSOR_RETRY_AFTER_S} s`,
      {
        argument,
        retryAfter: CURSOR_RETRY_AFTER_S,
      },
    );
  }
  if (payload.v !== version) {
    throw apiError(
      "CURSOR_EXPIRED",
      `${argument}: the cursor expired because the data was refreshed (cursor of snapshot ${payload.v}, now serving ${version}); start again without a cursor`,
      { argument },
    );
  }
  if (payload.q !== scope) {
    throw new InputError(
      argument,
      "belongs to a different sort, filter or search; start again without a cursor",
    );
  }
  if (!Array.isArray(payload.k) || payload.k.length !== keys.length) throw malformed();
  return keys.map((key, i) => {
    const value = decodeValue(key, payload.k[i]);
    if (value === undefined) throw malformed();
    return value;
  });
}

function decodeValue(key: SortKey, raw: unknown): KeyValue | undefined {
  if (raw === null) return key.nullable ? null : undefined;
  switch (key.kind) {
    case "int":
      // Integer sort columns are 32-bit.
      return Number.isInteger(raw) && Math.abs(raw as number) <= 2 ** 31 - 1 ? (raw as number) : undefined;
    case "float":
      return typeof raw === "number" && Number.isFinite(raw) ? raw : undefined;
    case "string":
      // Our cursors carry stored values, which never hold NUL or an unpaired surrogate.
      return typeof raw === "string" && !textProblem(raw) ? raw : undefined;
    case "time": {
      const t = (raw as { t?: unknown }).t;
      // ±8.64e15 ms is the range of a JavaScript Date.
      return typeof raw === "object" && Number.isSafeInteger(t) && Math.abs(t as number) <= 8.64e15
        ? new Date(t as number)
        : undefined;
    }
    case "bigint": {
      const b = (raw as { b?: unknown }).b;
      if (typeof raw !== "object" || typeof b !== "string" || !/^-?\d{1,19}$/.test(b)) return undefined;
      const n = BigInt(b);
      return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
    }
  }
}
