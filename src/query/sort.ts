import type { SortField } from "../db/sort-fields.ts";
import { InputError } from "../errors.ts";
import type { Direction, SortKey } from "./keyset.ts";

// The sortable fields of each list live with the database layer, which the count index builds from
// (src/db/count-index.ts keeps a typed array per Domain sort key).
export { APP_SORTS, DOMAIN_SORTS, REVIEW_SORTS, type SortField } from "../db/sort-fields.ts";

export interface Order<K extends string> {
  field: K;
  direction?: Direction | null;
}

/**
 * The sort keys of an `orderBy` argument, completed by the `pk` tie-breaker (which follows the
 * direction of the last key, so a one-key sort is a single index scan either way).
 */
export function toSortKeys<K extends string>(
  sorts: Record<K, SortField>,
  orderBy: readonly Order<K>[] | null | undefined,
  fallback: Order<K>[],
  argument = "orderBy",
): SortKey[] {
  const order = orderBy?.length ? orderBy : fallback;
  if (order.length > 5) throw new InputError(argument, "takes at most 5 sort fields");
  const seen = new Set<string>();
  const keys: SortKey[] = order.map((o, i) => {
    if (seen.has(o.field)) throw new InputError(`${argument}[${i}]`, `sorts by ${o.field} twice`);
    seen.add(o.field);
    const s = sorts[o.field];
    return { field: s.field, kind: s.kind, nullable: s.nullable, dir: o.direction ?? "asc" };
  });
  keys.push({ field: "pk", kind: "int", nullable: false, dir: keys[keys.length - 1].dir });
  return keys;
}
