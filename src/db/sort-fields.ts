/** How a sort key compares, and how a cursor encodes it (src/query/keyset.ts, src/query/cursor.ts). */
export type KeyKind = "int" | "float" | "string" | "time" | "bigint";

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
