import { COMMON_PLATFORMS, PLATFORMS } from "../dataset/platforms.ts";
import { APP_STATES } from "../dataset/vocabulary.ts";
import {
  allOf,
  columnList,
  int32Range,
  inValues,
  type ListFilter,
  type ListSpec,
  listWhere,
  pattern,
  type Range,
  type RangeSpec,
  rangeWhere,
  relationList,
  vocabulary,
} from "./filter.ts";
import type { Where } from "./keyset.ts";

/** Every App filter of docs/api.md 4.3 and docs/decisions.md, keyed by its GraphQL input field name. */
export const APP_LIST_FILTERS = {
  categories: relationList("f:categories", "App store category", "categories", inValues("category")),
  platform: columnList("f:p", "Platform", "platform", {
    nullable: false,
    normalize: vocabulary(PLATFORMS, "platform", COMMON_PLATFORMS),
  }),
  vendorName: columnList("f:vendor", "Vendor name", "vendorName", { nullable: false }),
  vendorCountryCode: columnList("f:vcc", "Vendor country code", "vendorCountryCode", {
    nullable: true,
    normalize: pattern(/^[A-Z]{2}$/, "a 2-letter ISO country code such as DE", (v) => v.toUpperCase()),
  }),
  state: columnList("f:as", "App state: Active or Inactive", "state", {
    nullable: false,
    normalize: vocabulary(APP_STATES, "App state"),
  }),
} satisfies Record<string, ListSpec>;

export const APP_RANGE_FILTERS = {
  installs: int32Range("f:ic", "Install count", "installs"),
  reviewCount: int32Range("f:rc", "Review count", "reviewCount"),
} satisfies Record<string, RangeSpec>;

export type AppFilter = { [K in keyof typeof APP_LIST_FILTERS]?: ListFilter | null } & {
  [K in keyof typeof APP_RANGE_FILTERS]?: Range<number> | null;
};

/** Translates an AppFilter to a Prisma `where` on App; throws InputError naming the argument. */
export function toAppWhere(filter: AppFilter | null | undefined, argument = "filter"): Where {
  if (!filter) return {};
  const parts: Where[] = [];
  for (const [name, spec] of Object.entries(APP_LIST_FILTERS)) {
    const f = filter[name as keyof typeof APP_LIST_FILTERS];
    if (f) parts.push(listWhere(spec, f, `${argument}.${name}`));
  }
  for (const [name, spec] of Object.entries(APP_RANGE_FILTERS)) {
    const r = filter[name as keyof typeof APP_RANGE_FILTERS];
    if (r) parts.push({ [spec.column]: rangeWhere(r, `${argument}.${name}`, spec.int32) });
  }
  return allOf(parts);
}
