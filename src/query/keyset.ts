import type { KeyKind } from "../db/sort-fields.ts";
import type { FindArgs, Where } from "../db/where-sql.ts";

/**
 * Keyset ("seek") pagination over Prisma. Every sort is made total by a unique tie-breaker (`pk`)
 * and a page is read as `WHERE <filter> AND <after the cursor> ORDER BY <keys> LIMIT n+1`, so
 * that a deep page costs what the first does and `hasNextPage` comes from the extra row.
 *
 * Unknown (NULL) values sort last in both directions. A nullable first key is read in two phases
 * — its non-null rows, then its null rows — so that each phase is a plain index range scan in
 * SQLite (which stores NULLs first) and in PostgreSQL alike.
 */

export type { KeyKind };
export type Direction = "asc" | "desc";
export type KeyValue = number | string | bigint | Date | null;

export interface SortKey {
  /** Prisma field name. */
  field: string;
  dir: Direction;
  nullable: boolean;
  kind: KeyKind;
}

// A condition in Prisma's `where` language, and a page's arguments: compiled by src/db/where-sql.ts.
export type { FindArgs, Where } from "../db/where-sql.ts";

/** Reads up to `take` rows that follow `after` (or from the start) in the order of `keys`. */
export async function readPage<R>(
  keys: readonly SortKey[],
  where: Where,
  after: readonly KeyValue[] | null,
  take: number,
  find: (args: FindArgs) => Promise<R[]>,
): Promise<R[]> {
  const [first, ...rest] = keys;
  const [known, unknown] = keyPhases(keys);
  // `first >= v` is implied by `follow`, but spelled out it lets both databases start an index
  // range scan at the cursor instead of filtering every row before it.
  const seek = after &&
    after[0] !== null && { [first.field]: { [first.dir === "asc" ? "gte" : "lte"]: after[0] } };
  let rows: R[] = [];
  if (after === null || after[0] !== null) {
    // The rows whose first key is known (every row, if it cannot be unknown).
    rows = await find({
      where: and(where, known.condition, seek || null, after && follow(keys, after)),
      orderBy: known.orderBy,
      take,
    });
    if (!unknown || rows.length >= take) return rows;
  }
  // Then the rows whose first key is unknown, ordered by the remaining keys.
  const restAfter = after && after[0] === null ? follow(rest, after.slice(1)) : null;
  const more = await find({
    where: and(where, unknown.condition, restAfter),
    orderBy: unknown.orderBy,
    take: take - rows.length,
  });
  return rows.concat(more);
}

/**
 * The phases in which rows come in the order of `keys`, each an order that one index range scan
 * gives: one, or for a nullable first key two (the rows whose key is known, then those whose key
 * is unknown, ordered by the other keys), with the condition on the first key of each.
 */
function keyPhases(keys: readonly SortKey[]): { condition: Where | null; orderBy: Where[] }[] {
  const [first, ...rest] = keys;
  if (!first.nullable) return [{ condition: null, orderBy: orderBy(keys) }];
  return [
    {
      condition: { [first.field]: { not: null } },
      orderBy: [{ [first.field]: first.dir }, ...orderBy(rest)],
    },
    { condition: { [first.field]: null }, orderBy: orderBy(rest) },
  ];
}

/** The reads that give every row matching `where` in the order of `keys` (an export's), in turn. */
export const orderedReads = (keys: readonly SortKey[], where: Where): Omit<FindArgs, "take">[] =>
  keyPhases(keys).map((p) => ({ where: and(where, p.condition), orderBy: p.orderBy }));

function and(...parts: (Where | null | undefined)[]): Where {
  const present = parts.filter((p): p is Where => p != null && Object.keys(p).length > 0);
  return present.length === 1 ? present[0] : { AND: present };
}

/** ORDER BY of the keys, NULLs last on every nullable key. */
export function orderBy(keys: readonly SortKey[]): Where[] {
  return keys.map((k) => ({ [k.field]: k.nullable ? { sort: k.dir, nulls: "last" } : k.dir }));
}

/** Rows strictly after `values` in the lexicographic order of `keys`, NULLs last. */
export function follow(keys: readonly SortKey[], values: readonly KeyValue[]): Where {
  const alternatives: Where[] = [];
  keys.forEach((k, i) => {
    const v = values[i];
    if (v === null) return; // nothing follows an unknown value on this key: NULLs are last
    const op = k.dir === "asc" ? "gt" : "lt";
    const beyond: Where = { [k.field]: { [op]: v } };
    const later = k.nullable ? { OR: [beyond, { [k.field]: null }] } : beyond;
    const equalBefore = keys.slice(0, i).map((kj, j) => ({ [kj.field]: values[j] }));
    alternatives.push(equalBefore.length ? { AND: [...equalBefore, later] } : later);
  });
  return alternatives.length === 1 ? alternatives[0] : { OR: alternatives };
}

/** The values of the sort keys of a row, as a cursor records them. */
export function positionOf(keys: readonly SortKey[], row: Record<string, unknown>): KeyValue[] {
  return keys.map((k) => (row[k.field] ?? null) as KeyValue);
}
