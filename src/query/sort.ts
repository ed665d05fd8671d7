import { InputError } from "../errors.ts";
import type { Direction, KeyKind, SortKey } from "./keyset.ts";

/**
 * The sortable fields of each list: GraphQL enum value → column, with the legacy `sort` names
 * (docs/decisions.md; aliases after the first). Every sort ends with the unique `pk` as tie-breaker.
 */
export interface SortField {
  field: string;
  nullable: boolean;
  kind: KeyKind;
  legacy: readonly string[];
  description: string;
}

const f = (
  field: string,
  kind: KeyKind,
  nullable: boolean,
  legacy: string[],
  description: string,
): SortField => ({
  field,
  kind,
  nullable,
  legacy,
  description,
});

export const DOMAIN_SORTS = {
  RANK: f("rank", "int", false, ["rank"], "World-wide rank"),
  PLATFORM_RANK: f("platformRank", "int", false, ["platform_rank"], "Rank within the platform"),
  CREATED_AT: f("createdAt", "time", false, ["created_at"], "Creation date"),
  ESTIMATED_SALES: f("estimatedSales", "bigint", true, ["estimated_sales", "er"], "Estimated monthly sales"),
  ESTIMATED_VISITS: f("estimatedVisits", "bigint", true, ["estimated_visits"], "Estimated monthly visits"),
  PRODUCT_COUNT: f("productCount", "int", true, ["product_count", "pc"], "Product count"),
  EMPLOYEE_COUNT: f("employeeCount", "int", true, ["employee_count", "empc"], "Employee count"),
  MONTHLY_APP_SPEND: f("monthlyAppSpend", "int", true, ["monthly_app_spend", "mas"], "Monthly app spend"),
  LAST_PLAN_CHANGE_AT: f("lastPlanChangeAt", "time", true, ["last_plan_change_at"], "Last plan change"),
  NAME: f("name", "string", false, ["name"], "Domain name"),
} as const;

export const APP_SORTS = {
  INSTALLS: f("installs", "int", true, ["installs"], "Active installs"),
  AVERAGE_RATING: f("averageRatingSort", "float", false, ["average_rating"], "Average rating"),
  CREATED_AT: f("createdAt", "time", false, ["created_at"], "Creation time"),
  REMOVED_AT: f("removedAt", "time", true, ["removed_at"], "Removal time"),
  REVIEWS: f("reviewCount", "int", false, ["reviews"], "Review count"),
} as const;

export const REVIEW_SORTS = {
  UPDATED_AT: f("updatedAt", "time", false, ["updated_at"], "Last update"),
} as const;

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
