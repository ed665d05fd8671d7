import { COMMON_PLATFORMS, PLATFORM_LIST, PLATFORMS } from "../dataset/platforms.ts";
import { CONTACT_TYPES, FEATURES, TAGS } from "../dataset/vocabulary.ts";
import { InputError } from "../errors.ts";
import {
  allOf,
  columnList,
  int32Range,
  inValues,
  type ListFilter,
  type ListSpec,
  listWhere,
  OPPOSITE_OP,
  pattern,
  type Range,
  type RangeSpec,
  rangeSpec,
  rangeWhere,
  relationList,
  vocabulary,
} from "./filter.ts";
import type { Where } from "./keyset.ts";
import { AppKey, ListKey, SegmentKey, TechnologyKey } from "./named-keys.ts";
import { meant, nearValues } from "./suggest.ts";

/**
 * Every Domain filter of docs/api.md 4.7 and docs/decisions.md, keyed by its GraphQL input field name. The
 * GraphQL input type `DomainFilter` and the REST options are both derived from this table.
 */
const upper = (v: string) => v.toUpperCase();
const country = pattern(/^[A-Z]{2}$/, "a 2-letter ISO country code such as DE", upper);
const platform = vocabulary(PLATFORMS, "platform", COMMON_PLATFORMS);
const DOMAIN_FILTER_STATES = ["Active", "Inactive", "Password Protected"];

/** `<platform>.<token>` of an App, as in GET /app/<platform>.<token>. */
export function parseAppIdentifier(v: string): { platform: string; token: string } | { problem: string } {
  const dot = v.indexOf(".");
  const p = dot > 0 ? platform(v.slice(0, dot)) : null;
  if (dot <= 0 || dot === v.length - 1 || p === null || typeof p !== "string") {
    // A platform that is not one: the App of the platforms near it (shopfy.klaviyo: shopify.klaviyo).
    const token = v.slice(dot + 1);
    const near =
      dot > 0 && token !== "" ? nearValues(v.slice(0, dot), PLATFORM_LIST).map((n) => `${n}.${token}`) : [];
    return {
      problem: `"${v}" is not an App identifier <platform>.<token> with a known platform, e.g. shopify.klaviyo${meant(near)}`,
    };
  }
  return { platform: p, token: v.slice(dot + 1) };
}

const appIdentifier = (v: string) => {
  const id = parseAppIdentifier(v);
  return "problem" in id ? id : `${id.platform}.${id.token}`;
};
const appMatch = (v: string) => ({ appPk: new AppKey(v) });

function monthRange(v: string): Where {
  const start = new Date(`${v}-01T00:00:00Z`);
  const end = new Date(start);
  end.setUTCMonth(end.getUTCMonth() + 1);
  return { createdAt: { gte: start, lt: end } };
}

const midnight = (day: string) => new Date(`${day}T00:00:00Z`);

/** The Friday on or before a date (weeks are grouped on Fridays). */
export function fridayOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 2) % 7));
  return d.toISOString().slice(0, 10);
}

const validDay = (v: string) => {
  const d = new Date(`${v}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(d.getTime()) || !d.toISOString().startsWith(v)) {
    return { problem: `"${v}" is not a date YYYY-MM-DD` };
  }
  return fridayOf(v);
};
const validMonth = (v: string) => {
  const m = /^(\d{4})-(\d{2})$/.exec(v);
  return m && Number(m[2]) >= 1 && Number(m[2]) <= 12 ? v : { problem: `"${v}" is not a month YYYY-MM` };
};

export const DOMAIN_LIST_FILTERS = {
  apps: relationList(
    "f:an",
    "Installed App (<platform>.<token>), not since uninstalled",
    "apps",
    (vs) => ({ removedAt: null, ...(vs.length === 1 ? appMatch(vs[0]) : { OR: vs.map(appMatch) }) }),
    appIdentifier,
  ),
  administrativeAreaLevel1: columnList(
    "f:administrative_area_level_1",
    "Administrative area (state or province); needs countryCode",
    "administrativeAreaLevel1",
    { nullable: true },
  ),
  categories: relationList("f:cat", "Category", "categories", inValues("category")),
  countryCode: columnList("f:cc", "Country code", "countryCode", { nullable: true, normalize: country }),
  city: columnList("f:city", "City; needs countryCode and administrativeAreaLevel1", "city", {
    nullable: true,
  }),
  createdMonth: {
    kind: "list",
    legacy: "f:cratyyyymm",
    description: "Month of creation, YYYY-MM",
    exclusive: true,
    normalize: validMonth,
    one: monthRange,
    any: (vs) => (vs.length === 1 ? monthRange(vs[0]) : { OR: vs.map(monthRange) }),
    none: (vs) => ({ NOT: vs.length === 1 ? monthRange(vs[0]) : { OR: vs.map(monthRange) } }),
  } satisfies ListSpec,
  createdWeek: {
    kind: "list",
    legacy: "f:cratyyyymmdd",
    description: "Week of creation, YYYY-MM-DD; weeks start on Fridays, other days map to the Friday before",
    exclusive: true,
    normalize: validDay,
    one: (v) => ({ createdWeek: midnight(v) }),
    any: (vs) => ({ createdWeek: vs.length === 1 ? midnight(vs[0]) : { in: vs.map(midnight) } }),
    none: (vs) => ({ createdWeek: { notIn: vs.map(midnight) } }),
  } satisfies ListSpec,
  currencyCode: columnList("f:curr", "Currency code", "currencyCode", {
    nullable: true,
    normalize: pattern(/^[A-Z]{3}$/, "a 3-letter ISO currency code such as EUR", upper),
  }),
  state: columnList("f:ds", "State: Active, Inactive or Password Protected", "state", {
    nullable: false,
    normalize: vocabulary(DOMAIN_FILTER_STATES, "Domain state"),
  }),
  features: relationList(
    "f:features",
    "Feature",
    "features",
    inValues("feature"),
    vocabulary(FEATURES, "feature"),
  ),
  region: columnList("f:reg", "Region", "region", { nullable: true }),
  subregion: columnList("f:sreg", "Subregion", "subregion", { nullable: true }),
  languageCode: columnList("f:lang", "Language code", "languageCode", {
    nullable: true,
    normalize: pattern(/^[a-z]{2}$/, "a 2-letter ISO 639-1 language code such as de", (v) => v.toLowerCase()),
  }),
  platform: columnList("f:p", "Platform", "platform", { nullable: false, normalize: platform }),
  plan: columnList("f:plan", "Platform plan", "plan", { nullable: true }),
  technologies: relationList("f:tech", "Technology name", "technologies", (vs) => ({
    technologyPk: vs.length === 1 ? new TechnologyKey(vs[0]) : { in: vs.map((v) => new TechnologyKey(v)) },
  })),
  themeName: columnList("f:tn", "Theme name", "themeName", { nullable: true }),
  tags: relationList("f:tags", "Tag", "tags", inValues("tag"), vocabulary(TAGS, "tag")),
  contactTypes: relationList(
    "f:it",
    "Contact info type present",
    "contacts",
    inValues("type"),
    vocabulary(CONTACT_TYPES, "contact type"),
  ),
  shipsTo: relationList("f:stc", "Ships-to country", "shipsTo", inValues("countryCode"), country),
  salesChannels: relationList("f:sc", "Sales channel", "salesChannels", inValues("channel")),
} satisfies Record<string, ListSpec>;

export const DOMAIN_RANGE_FILTERS = {
  avgPrice: rangeSpec(
    "intRange",
    "f:avgpp",
    "Average product price, minor unit of the store currency",
    "avgPrice",
  ),
  employeeCount: int32Range("f:empc", "Employee count", "employeeCount"),
  estimatedSales: rangeSpec("intRange", "f:er", "Estimated monthly sales, cents of USD", "estimatedSales"),
  productCount: int32Range("f:pc", "Product count", "productCount"),
  rank: int32Range("f:rank", "World-wide rank", "rank"),
  monthlyAppSpend: int32Range("f:mas", "Monthly app spend, cents of USD", "monthlyAppSpend"),
  estimatedVisits: rangeSpec("intRange", "f:ev", "Estimated monthly visits", "estimatedVisits"),
  createdAt: rangeSpec("timeRange", "f:crat", "Created on/after min and on/before max", "createdAt"),
  lastPlanChangeAt: rangeSpec("timeRange", "f:last_plan_change_at", "Last plan change", "lastPlanChangeAt", [
    "f:last_plan_change_at:min",
    "f:last_plan_change_at:max",
  ]),
  lastPlatformChangeAt: rangeSpec(
    "timeRange",
    "f:last_platform_change_at",
    "Last platform change",
    "lastPlatformChangeAt",
    ["f:last_platform_change_at:min", "f:last_platform_change_at:max"],
  ),
} satisfies Record<string, RangeSpec>;

/**
 * Filters by one name of something the key's account keeps: `list`, one of its lists (the
 * Domains it holds), and `segment`, one of its segments (its members). Resolved by resolveKeys
 * (its `list` and `segment` lookups) as the account's, where the request is: a read that runs
 * without the account (an export's thread) receives the set of Domains resolved
 * (src/query/domain-set.ts), never a filter to resolve again.
 */
export const DOMAIN_NAMED_FILTERS = {
  list: { legacy: "f:list", description: "In this list of the API key's account (GET /list)" },
  segment: {
    legacy: "f:segment",
    description:
      "In this segment of the API key's account (GET /segment): its members in the served snapshot",
  },
} as const;

/** Filters on when one App or technology was installed or uninstalled. */
export const DOMAIN_EVENT_FILTERS = {
  appInstalledAt: {
    legacy: "f:app_installed_at",
    subject: "app",
    description: "Installed the App in the range",
  },
  appUninstalledAt: {
    legacy: "f:app_uninstalled_at",
    subject: "app",
    description: "Uninstalled the App in the range",
  },
  technologyInstalledAt: {
    legacy: "f:tech_installed_at",
    subject: "technology",
    description: "Technology first detected in the range",
  },
} as const;

export interface EventFilter extends Range<Date> {
  app?: string | null;
  technology?: string | null;
}

export type DomainFilter = { [K in keyof typeof DOMAIN_LIST_FILTERS]?: ListFilter | null } & {
  [K in keyof typeof DOMAIN_RANGE_FILTERS]?: Range<number | Date> | null;
} & { [K in keyof typeof DOMAIN_EVENT_FILTERS]?: EventFilter | null } & {
  /** One of the account's lists, by name (DOMAIN_NAMED_FILTERS). */
  list?: string | null;
  /** One of the account's segments, by name (DOMAIN_NAMED_FILTERS). */
  segment?: string | null;
  /** Terms that must all match too (the same filter twice: aq). */
  and?: readonly DomainFilter[] | null;
  /** Terms of which at least one must match (bq's should). */
  or?: readonly DomainFilter[] | null;
  /** Terms none of which may match (bq's must_not). */
  not?: readonly DomainFilter[] | null;
};

/** The groups of terms a DomainFilter may hold, each of DomainConditions that hold none. */
export const TERM_GROUPS = ["and", "or", "not"] as const;

/** Most terms of one group. */
const MAX_TERMS = 50;

/** Filters that only make sense together with another (docs/api.md 4.7). */
const REQUIRES: [keyof DomainFilter, (keyof DomainFilter)[]][] = [
  ["administrativeAreaLevel1", ["countryCode"]],
  ["city", ["countryCode", "administrativeAreaLevel1"]],
];

/**
 * Translates a DomainFilter to a Prisma `where` on Domain; throws InputError naming the argument.
 * Apps and technologies in it are AppKey and TechnologyKey placeholders: pass it through resolveKeys before querying.
 */
export function toDomainWhere(filter: DomainFilter | null | undefined, argument = "filter"): Where {
  if (!filter) return {};
  checkRequirements(filter, argument);
  return translate(filter, argument);
}

function translate(filter: DomainFilter, argument: string): Where {
  const parts = partsOf(filter, argument).map((p) => p.where);
  for (const group of TERM_GROUPS) {
    const terms = filter[group];
    if (!terms) continue;
    if (terms.length > MAX_TERMS)
      throw new InputError(`${argument}.${group}`, `takes at most ${MAX_TERMS} conditions`);
    if (group === "or" && terms.length === 0)
      throw new InputError(`${argument}.or`, "must name at least one condition");
    const each = terms.map((term, i) => {
      const at = `${argument}.${group}[${i}]`;
      for (const inner of TERM_GROUPS) {
        if (term[inner]) {
          const outer = inner === group ? "another" : group === "not" ? "a" : "an";
          throw new InputError(`${at}.${inner}`, `cannot be nested inside ${outer} ${group}`);
        }
      }
      return partsOf(term, at);
    });
    const matched = each.map((own) => allOf(own.map((p) => p.where)));
    if (group === "and") parts.push(...matched);
    else if (group === "or") parts.push({ OR: matched });
    // A term does not match when one of its parts does not; an empty term matches every record,
    // so its negation none (OR of nothing).
    else
      parts.push(...each.map((own) => (own.length === 1 ? own[0].not() : { OR: own.map((p) => p.not()) })));
  }
  return allOf(parts);
}

/** One filter given in a DomainFilter: its condition, and (made when asked) its negation. */
interface Part {
  where: Where;
  /** The records `where` does not match, those whose value is unknown included. */
  not: () => Where;
}

/** The conditions of a filter's own fields (not of its terms), in catalogue order. */
function partsOf(filter: DomainFilter, argument: string): Part[] {
  const parts: Part[] = [];
  for (const [name, spec] of Object.entries(DOMAIN_LIST_FILTERS)) {
    const f = filter[name as keyof typeof DOMAIN_LIST_FILTERS];
    if (!f) continue;
    const at = `${argument}.${name}`;
    parts.push({
      where: listWhere(spec, f, at),
      not: () => listWhere(spec, { values: f.values, op: OPPOSITE_OP[f.op ?? "and"] }, at),
    });
  }
  for (const [name, spec] of Object.entries(DOMAIN_RANGE_FILTERS)) {
    const r = filter[name as keyof typeof DOMAIN_RANGE_FILTERS];
    if (!r) continue;
    const where = { [spec.column]: rangeWhere(r, `${argument}.${name}`, spec.int32) };
    // NOT alone would leave out the unknown values, as a comparison with NULL does.
    parts.push({ where, not: () => ({ OR: [{ NOT: where }, { [spec.column]: null }] }) });
  }
  const negated = (where: Where): Part => ({ where, not: () => ({ NOT: where }) });
  for (const name of Object.keys(DOMAIN_EVENT_FILTERS) as (keyof typeof DOMAIN_EVENT_FILTERS)[]) {
    const e = filter[name];
    if (e) parts.push(negated(eventWhere(name, e, `${argument}.${name}`)));
  }
  // A name is never NULL, nor is an EXISTS: NOT alone is exact.
  if (filter.list != null)
    parts.push(negated({ name: { in: new ListKey(filter.list, `${argument}.list`) } }));
  // A segment's members by key in the snapshot read: NOT is exact (a key is never NULL).
  if (filter.segment != null)
    parts.push(negated({ pk: { in: new SegmentKey(filter.segment, `${argument}.segment`) } }));
  return parts;
}

function eventWhere(name: keyof typeof DOMAIN_EVENT_FILTERS, e: EventFilter, argument: string): Where {
  const range = rangeWhere(e, argument);
  if (name === "technologyInstalledAt") {
    const tech = e.technology?.trim();
    if (!tech) throw new InputError(`${argument}.technology`, "names the technology (exactly one)");
    return { technologies: { some: { technologyPk: new TechnologyKey(tech), installedAt: range } } };
  }
  const raw = e.app?.trim();
  if (!raw) throw new InputError(`${argument}.app`, "names the App, <platform>.<token> (exactly one)");
  if (raw.includes(","))
    throw new InputError(`${argument}.app`, "takes exactly one App identifier, not a list");
  const id = parseAppIdentifier(raw);
  if ("problem" in id) throw new InputError(`${argument}.app`, id.problem);
  const column = name === "appInstalledAt" ? "installedAt" : "removedAt";
  return { apps: { some: { appPk: new AppKey(`${id.platform}.${id.token}`), [column]: range } } };
}

/** A filter's own terms and those of its `and`, `or` and `not` (which hold no groups of their own). */
export const filterTerms = (filter: DomainFilter): DomainFilter[] => [
  filter,
  ...TERM_GROUPS.flatMap((g) => filter[g] ?? []),
];

function checkRequirements(filter: DomainFilter, argument: string): void {
  const present = new Set<string>();
  for (const f of filterTerms(filter)) {
    for (const [k, v] of Object.entries(f)) if (v != null) present.add(k);
  }
  for (const [name, needs] of REQUIRES) {
    if (!present.has(name)) continue;
    const missing = needs.filter((n) => !present.has(n));
    if (missing.length) {
      const named = missing.map(
        (n) => `${n} (${DOMAIN_LIST_FILTERS[n as keyof typeof DOMAIN_LIST_FILTERS].legacy})`,
      );
      throw new InputError(`${argument}.${name}`, `needs ${named.join(" and ")} in the same filter`);
    }
  }
}
