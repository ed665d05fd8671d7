import { join } from "node:path";
import { PLATFORM_LIST } from "../../src/dataset/platforms.ts";
import type { AppRecord, DomainRecord } from "../../src/dataset/record.ts";
import { CONTACT_TYPES, FEATURES, TAGS } from "../../src/dataset/vocabulary.ts";
import { readJsonl } from "../support/jsonl.ts";

/**
 * A plain-JS reference implementation of the Domain and App lists (filters, search, sort) over
 * the JSONL records of a snapshot, written from schema.graphql, docs/dataset.md and the semantics
 * of src/query/*: tests compare what the API answers with what this computes.
 *
 * Records are identified by their position in the file: `pk` is the 1-based line number among the
 * records (the loader numbers them so), the sort's final tie-breaker.
 */

export type Op = "AND" | "OR" | "NOT" | "NAND";
export interface ListInput {
  values: string[];
  op?: Op | null;
}
export interface IntRangeInput {
  min?: number | null;
  max?: number | null;
}
export interface TimeRangeInput {
  min?: string | null;
  max?: string | null;
}
export interface AppEventInput extends TimeRangeInput {
  app: string;
}
export interface TechnologyEventInput extends TimeRangeInput {
  technology: string;
}

export const DOMAIN_LIST_FIELDS = [
  "countryCode",
  "administrativeAreaLevel1",
  "city",
  "region",
  "subregion",
  "languageCode",
  "currencyCode",
  "platform",
  "plan",
  "themeName",
  "state",
  "createdMonth",
  "createdWeek",
  "categories",
  "features",
  "tags",
  "contactTypes",
  "shipsTo",
  "salesChannels",
  "technologies",
  "apps",
] as const;
export type DomainListField = (typeof DOMAIN_LIST_FIELDS)[number];

export const DOMAIN_INT_RANGES = [
  "avgPrice",
  "employeeCount",
  "estimatedSales",
  "productCount",
  "rank",
  "monthlyAppSpend",
  "estimatedVisits",
] as const;
export const DOMAIN_TIME_RANGES = ["createdAt", "lastPlanChangeAt", "lastPlatformChangeAt"] as const;
export type DomainIntRange = (typeof DOMAIN_INT_RANGES)[number];
export type DomainTimeRange = (typeof DOMAIN_TIME_RANGES)[number];

export type DomainFilterInput = { [K in DomainListField]?: ListInput } & {
  [K in DomainIntRange]?: IntRangeInput;
} & { [K in DomainTimeRange]?: TimeRangeInput } & {
  appInstalledAt?: AppEventInput;
  appUninstalledAt?: AppEventInput;
  technologyInstalledAt?: TechnologyEventInput;
  and?: DomainFilterInput[];
  /** At least one term matches. */
  or?: DomainFilterInput[];
  /** No term matches (a term whose value is unknown does not match). */
  not?: DomainFilterInput[];
};

const TERM_GROUPS = ["and", "or", "not"] as const;

export const APP_LIST_FIELDS = [
  "categories",
  "platform",
  "vendorName",
  "vendorCountryCode",
  "state",
] as const;
export type AppListField = (typeof APP_LIST_FIELDS)[number];
export const APP_INT_RANGES = ["installs", "reviewCount"] as const;
export type AppIntRange = (typeof APP_INT_RANGES)[number];
export type AppFilterInput = { [K in AppListField]?: ListInput } & { [K in AppIntRange]?: IntRangeInput };

export const DOMAIN_SORT_FIELDS = [
  "RANK",
  "PLATFORM_RANK",
  "CREATED_AT",
  "ESTIMATED_SALES",
  "ESTIMATED_VISITS",
  "PRODUCT_COUNT",
  "EMPLOYEE_COUNT",
  "MONTHLY_APP_SPEND",
  "LAST_PLAN_CHANGE_AT",
  "NAME",
] as const;
export type DomainSortField = (typeof DOMAIN_SORT_FIELDS)[number];
export const APP_SORT_FIELDS = ["INSTALLS", "AVERAGE_RATING", "CREATED_AT", "REMOVED_AT", "REVIEWS"] as const;
export type AppSortField = (typeof APP_SORT_FIELDS)[number];
export type Direction = "ASC" | "DESC";
export interface Order<F extends string> {
  field: F;
  direction?: Direction;
}

// ---------------------------------------------------------------------------------------------
// Times

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** Epoch ms of a record's date (midnight UTC), local time (as UTC) or timestamp. */
export function epochMs(value: string): number {
  if (DATE_ONLY.test(value)) return Date.parse(`${value}T00:00:00Z`);
  if (LOCAL_TIME.test(value)) return Date.parse(`${value}Z`);
  return Date.parse(value);
}

export function isValidDay(v: string): boolean {
  if (!DATE_ONLY.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v);
}

/** The Friday on or before a date YYYY-MM-DD, as YYYY-MM-DD. */
export function fridayOnOrBefore(day: string): string {
  const ms = Date.parse(`${day}T00:00:00Z`);
  const dow = new Date(ms).getUTCDay(); // 0 Sunday … 5 Friday
  const back = (dow - 5 + 7) % 7;
  return new Date(ms - back * DAY_MS).toISOString().slice(0, 10);
}

/** Inclusive time bounds; a date-only maximum covers its whole day. Input validity is checked elsewhere. */
function timeBounds(r: TimeRangeInput): { lo: number; hi: number } {
  const lo = r.min != null ? epochMs(r.min) : Number.NEGATIVE_INFINITY;
  let hi = Number.POSITIVE_INFINITY;
  if (r.max != null) hi = DATE_ONLY.test(r.max) ? epochMs(r.max) + DAY_MS - 1 : epochMs(r.max);
  return { lo, hi };
}

function inTime(value: string | undefined, r: TimeRangeInput): boolean {
  if (value === undefined) return false;
  const t = epochMs(value);
  const { lo, hi } = timeBounds(r);
  return t >= lo && t <= hi;
}

function inInt(value: number | undefined, r: IntRangeInput): boolean {
  if (value === undefined || value === null) return false;
  if (r.min != null && value < r.min) return false;
  if (r.max != null && value > r.max) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Value normalization (what a filter value means, or null when the API must refuse it)

type Normalize = (v: string) => string | null;
const identity: Normalize = (v) => v;
const vocabulary =
  (values: Iterable<string>): Normalize =>
  (v) => {
    for (const c of values) if (c.toLowerCase() === v.toLowerCase()) return c;
    return null;
  };
const upperPattern =
  (re: RegExp): Normalize =>
  (v) =>
    re.test(v.toUpperCase()) ? v.toUpperCase() : null;
const country = upperPattern(/^[A-Z]{2}$/);
const currency = upperPattern(/^[A-Z]{3}$/);
const language: Normalize = (v) => (/^[a-z]{2}$/.test(v.toLowerCase()) ? v.toLowerCase() : null);
const month: Normalize = (v) => {
  const m = /^(\d{4})-(\d{2})$/.exec(v);
  return m && Number(m[2]) >= 1 && Number(m[2]) <= 12 ? v : null;
};
const week: Normalize = (v) => (isValidDay(v) ? fridayOnOrBefore(v) : null);

/** The platforms of src/dataset/platforms.txt. */
export function platformNormalizer(platforms: Iterable<string>): Normalize {
  return vocabulary(platforms);
}

// ---------------------------------------------------------------------------------------------
// List filters

interface ListSpec<R> {
  /** At most one value per record: and/nand with several values are refused. */
  exclusive: boolean;
  normalize: Normalize;
  /** Does the record have this (normalized) value? */
  has: (r: R, value: string) => boolean;
}

const column = <R>(get: (r: R) => string | undefined, normalize: Normalize = identity): ListSpec<R> => ({
  exclusive: true,
  normalize,
  has: (r, v) => get(r) === v,
});
const set = <R>(
  get: (r: R) => readonly string[] | undefined,
  normalize: Normalize = identity,
): ListSpec<R> => ({
  exclusive: false,
  normalize,
  has: (r, v) => (get(r) ?? []).includes(v),
});

function domainListSpecs(platforms: Iterable<string>): Record<DomainListField, ListSpec<DomainRecord>> {
  const platform = platformNormalizer(platforms);
  const appId: Normalize = (v) => {
    const dot = v.indexOf(".");
    if (dot <= 0 || dot === v.length - 1) return null;
    const p = platform(v.slice(0, dot));
    return p === null ? null : `${p}.${v.slice(dot + 1)}`;
  };
  return {
    countryCode: column((d) => d.country_code, country),
    administrativeAreaLevel1: column((d) => d.administrative_area_level_1),
    city: column((d) => d.city),
    region: column((d) => d.region),
    subregion: column((d) => d.subregion),
    languageCode: column((d) => d.language_code, language),
    currencyCode: column((d) => d.currency_code, currency),
    platform: column((d) => d.platform, platform),
    plan: column((d) => d.plan),
    themeName: column((d) => d.theme?.name),
    state: column((d) => d.state, vocabulary(["Active", "Inactive", "Password Protected"])),
    createdMonth: column((d) => d.created_at.slice(0, 7), month),
    createdWeek: column((d) => fridayOnOrBefore(d.created_at), week),
    categories: set((d) => d.categories),
    features: set((d) => d.features, vocabulary(FEATURES)),
    tags: set((d) => d.tags, vocabulary(TAGS)),
    contactTypes: set((d) => d.contact_info?.map((c) => c.type), vocabulary(CONTACT_TYPES)),
    shipsTo: set((d) => d.ships_to_countries, country),
    salesChannels: set((d) => d.sales_channels),
    technologies: set((d) => d.technologies?.map((t) => t.name)),
    apps: set(
      (d) => d.apps?.filter((a) => a.removed_at === undefined).map((a) => `${a.platform}.${a.token}`),
      appId,
    ),
  };
}

function appListSpecs(platforms: Iterable<string>): Record<AppListField, ListSpec<AppRecord>> {
  return {
    categories: set((a) => a.categories),
    platform: column((a) => a.platform, platformNormalizer(platforms)),
    vendorName: column((a) => a.vendor_name),
    vendorCountryCode: column((a) => a.vendor_country_code, country),
    state: column((a) => a.state, vocabulary(["Active", "Inactive"])),
  };
}

/** Why the API must refuse a list filter, or null; `values` receives the normalized values. */
function listProblem<R>(spec: ListSpec<R>, f: ListInput, out: string[]): string | null {
  if (f.values.length === 0) return "no values";
  if (f.values.length > 1000) return "more than 1000 values";
  for (const raw of f.values) {
    const t = raw.trim();
    if (t === "") return "blank value";
    const v = spec.normalize(t);
    if (v === null) return `invalid value ${JSON.stringify(raw)}`;
    if (!out.includes(v)) out.push(v);
  }
  const op = f.op ?? "AND";
  if (spec.exclusive && out.length > 1 && (op === "AND" || op === "NAND")) return `${op} with several values`;
  return null;
}

function listMatches<R>(spec: ListSpec<R>, values: string[], op: Op, r: R): boolean {
  switch (op) {
    case "AND":
      return values.every((v) => spec.has(r, v));
    case "OR":
      return values.some((v) => spec.has(r, v));
    case "NOT":
      return !values.some((v) => spec.has(r, v));
    case "NAND":
      return !values.every((v) => spec.has(r, v));
  }
}

// ---------------------------------------------------------------------------------------------
// Ranges

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
function validTime(v: string): boolean {
  return (isValidDay(v) || RFC3339.test(v)) && !Number.isNaN(epochMs(v));
}

function intRangeProblem(r: IntRangeInput): string | null {
  if (r.min == null && r.max == null) return "range without bounds";
  if (r.min != null && r.max != null && r.min > r.max) return "min > max";
  return null;
}

function timeRangeProblem(r: TimeRangeInput): string | null {
  if (r.min == null && r.max == null) return "range without bounds";
  for (const b of [r.min, r.max]) if (b != null && !validTime(b)) return `invalid time ${b}`;
  // A date as max reaches the end of that day, so a min later on the same day is fine.
  if (r.min != null && r.max != null && timeBounds(r).lo > timeBounds(r).hi) return "min > max";
  return null;
}

const DOMAIN_INT_GETTERS: Record<DomainIntRange, (d: DomainRecord) => number | undefined> = {
  avgPrice: (d) => d.avg_price,
  employeeCount: (d) => d.employee_count,
  estimatedSales: (d) => d.estimated_sales,
  productCount: (d) => d.product_count,
  rank: (d) => d.rank,
  monthlyAppSpend: (d) => d.monthly_app_spend,
  estimatedVisits: (d) => d.estimated_visits,
};
const DOMAIN_TIME_GETTERS: Record<DomainTimeRange, (d: DomainRecord) => string | undefined> = {
  createdAt: (d) => d.created_at,
  lastPlanChangeAt: (d) => d.last_plan_change_at,
  lastPlatformChangeAt: (d) => d.last_platform_change_at,
};
const APP_INT_GETTERS: Record<AppIntRange, (a: AppRecord) => number | undefined> = {
  installs: (a) => a.installs,
  reviewCount: (a) => a.review_count,
};

// ---------------------------------------------------------------------------------------------
// Sorting

type Key = number | string | null;

const DOMAIN_SORT_GETTERS: Record<DomainSortField, (d: DomainRecord) => Key> = {
  RANK: (d) => d.rank,
  PLATFORM_RANK: (d) => d.platform_rank,
  CREATED_AT: (d) => epochMs(d.created_at),
  ESTIMATED_SALES: (d) => d.estimated_sales ?? null,
  ESTIMATED_VISITS: (d) => d.estimated_visits ?? null,
  PRODUCT_COUNT: (d) => d.product_count ?? null,
  EMPLOYEE_COUNT: (d) => d.employee_count ?? null,
  MONTHLY_APP_SPEND: (d) => d.monthly_app_spend ?? null,
  LAST_PLAN_CHANGE_AT: (d) => (d.last_plan_change_at === undefined ? null : epochMs(d.last_plan_change_at)),
  NAME: (d) => d.name,
};
const APP_SORT_GETTERS: Record<AppSortField, (a: AppRecord) => Key> = {
  INSTALLS: (a) => a.installs ?? null,
  AVERAGE_RATING: (a) => Number(a.average_rating),
  CREATED_AT: (a) => epochMs(a.created_at),
  REMOVED_AT: (a) => (a.removed_at === undefined ? null : epochMs(a.removed_at)),
  REVIEWS: (a) => a.review_count,
};

/** Sorts by the keys, unknown values last in either direction, then by pk in the last key's direction. */
function sortBy<R, F extends string>(
  rows: { pk: number; r: R }[],
  getters: Record<F, (r: R) => Key>,
  order: readonly Order<F>[],
): { pk: number; r: R }[] {
  const keys = order.map((o) => ({ get: getters[o.field], sign: o.direction === "DESC" ? -1 : 1 }));
  const pkSign = keys[keys.length - 1].sign;
  const cmp = (a: Key, b: Key) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  return [...rows].sort((x, y) => {
    for (const k of keys) {
      const a = k.get(x.r);
      const b = k.get(y.r);
      const c = cmp(a, b);
      if (c !== 0) return a === null || b === null ? c : c * k.sign;
    }
    return (x.pk - y.pk) * pkSign;
  });
}

function orderProblem(order: readonly Order<string>[] | undefined): string | null {
  if (!order) return null;
  if (order.length > 5) return "more than 5 sort fields";
  if (new Set(order.map((o) => o.field)).size !== order.length) return "a sort field twice";
  return null;
}

// ---------------------------------------------------------------------------------------------
// Search

/** The lower-cased text `search` looks in, as src/dataset/load/rows.ts builds it. */
export function searchText(parts: (string | undefined)[]): string {
  return parts
    .filter((p): p is string => !!p)
    .join(" \u001f ")
    .toLowerCase();
}

function searchWords(search: string | null | undefined): string[] {
  if (search == null) return [];
  return search.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function searchProblem(search: string | null | undefined): string | null {
  if (search == null) return null;
  if (search.trim() === "") return null;
  if (search.length > 200) return "search longer than 200 characters";
  if (searchWords(search).length === 0) return "search without a word of letters or digits";
  if (searchWords(search).length > 10) return "more than 10 search words";
  return null;
}

// ---------------------------------------------------------------------------------------------
// The oracle

export interface ListArgs<Filter, F extends string> {
  filter?: Filter | null;
  search?: string | null;
  orderBy?: Order<F>[] | null;
}

export const DEFAULT_DOMAIN_ORDER: Order<DomainSortField>[] = [{ field: "RANK", direction: "ASC" }];
export const DEFAULT_APP_ORDER: Order<AppSortField>[] = [{ field: "INSTALLS", direction: "DESC" }];

export class Oracle {
  readonly domainRows: { pk: number; r: DomainRecord }[];
  readonly appRows: { pk: number; r: AppRecord }[];
  private readonly domainLists: Record<DomainListField, ListSpec<DomainRecord>>;
  private readonly appLists: Record<AppListField, ListSpec<AppRecord>>;
  private readonly domainSearch: Map<number, string>;
  private readonly appSearch: Map<number, string>;
  private readonly normalizePlatform: Normalize;
  /** The plans the records have, as spelled: a filter naming another is refused (docs/decisions.md). */
  private readonly plans: Set<string>;

  constructor(
    readonly domains: readonly DomainRecord[],
    readonly apps: readonly AppRecord[],
    platforms: Iterable<string>,
  ) {
    const platformList = [...platforms];
    this.domainRows = domains.map((r, i) => ({ pk: i + 1, r }));
    this.appRows = apps.map((r, i) => ({ pk: i + 1, r }));
    this.domainLists = domainListSpecs(platformList);
    this.appLists = appListSpecs(platformList);
    this.normalizePlatform = platformNormalizer(platformList);
    this.plans = new Set(domains.flatMap((d) => (d.plan === undefined || d.plan === null ? [] : [d.plan])));
    this.domainSearch = new Map(
      this.domainRows.map(({ pk, r }) => [pk, searchText([r.name, r.title, r.description, r.merchant_name])]),
    );
    this.appSearch = new Map(this.appRows.map(({ pk, r }) => [pk, searchText([r.name, r.description])]));
  }

  /** Whether a list filter field refuses and/nand with several values. */
  isExclusive(field: DomainListField): boolean {
    return this.domainLists[field].exclusive;
  }

  // --- Domains ---

  /** Why the API must refuse these Domain list arguments (BAD_USER_INPUT), or null. */
  domainProblem(args: ListArgs<DomainFilterInput, DomainSortField>): string | null {
    return (
      (args.filter ? this.domainFilterProblem(args.filter, 0) : null) ??
      (args.filter ? requirementsProblem(args.filter) : null) ??
      searchProblem(args.search) ??
      orderProblem(args.orderBy ?? undefined)
    );
  }

  private domainFilterProblem(f: DomainFilterInput, depth: number): string | null {
    for (const field of DOMAIN_LIST_FIELDS) {
      const l = f[field];
      if (l) {
        const p = listProblem(this.domainLists[field], l, []);
        if (p) return `${field}: ${p}`;
      }
    }
    const unknownPlan = f.plan?.values.find((v) => !this.plans.has(v.trim()));
    if (unknownPlan !== undefined) return `plan: unknown plan ${JSON.stringify(unknownPlan)}`;
    for (const field of DOMAIN_INT_RANGES) {
      const r = f[field];
      if (r) {
        const p = intRangeProblem(r);
        if (p) return `${field}: ${p}`;
      }
    }
    for (const field of DOMAIN_TIME_RANGES) {
      const r = f[field];
      if (r) {
        const p = timeRangeProblem(r);
        if (p) return `${field}: ${p}`;
      }
    }
    for (const field of ["appInstalledAt", "appUninstalledAt"] as const) {
      const e = f[field];
      if (e) {
        const p = timeRangeProblem(e) ?? this.appIdProblem(e.app);
        if (p) return `${field}: ${p}`;
      }
    }
    if (f.technologyInstalledAt) {
      const e = f.technologyInstalledAt;
      const p = timeRangeProblem(e) ?? (e.technology.trim() === "" ? "no technology" : null);
      if (p) return `technologyInstalledAt: ${p}`;
    }
    for (const group of TERM_GROUPS) {
      const terms = f[group];
      if (!terms) continue;
      if (depth > 0) return `nested ${group}`;
      if (terms.length > 50) return `more than 50 ${group} conditions`;
      if (group === "or" && terms.length === 0) return "empty or";
      for (const g of terms) {
        const p = this.domainFilterProblem(g, depth + 1);
        if (p) return `${group}: ${p}`;
      }
    }
    return null;
  }

  private appIdProblem(app: string): string | null {
    const raw = app.trim();
    if (raw === "") return "no App";
    if (raw.includes(",")) return "several Apps";
    const dot = raw.indexOf(".");
    if (dot <= 0 || dot === raw.length - 1 || this.normalizePlatform(raw.slice(0, dot)) === null) {
      return "not an App identifier";
    }
    return null;
  }

  private parseAppId(app: string): { platform: string; token: string } {
    const raw = app.trim();
    const dot = raw.indexOf(".");
    return { platform: this.normalizePlatform(raw.slice(0, dot)) ?? "", token: raw.slice(dot + 1) };
  }

  /** Does the Domain match the filter? The filter must be one the API accepts. */
  domainMatches(d: DomainRecord, f: DomainFilterInput): boolean {
    for (const field of DOMAIN_LIST_FIELDS) {
      const l = f[field];
      if (!l) continue;
      const values: string[] = [];
      listProblem(this.domainLists[field], l, values);
      if (!listMatches(this.domainLists[field], values, l.op ?? "AND", d)) return false;
    }
    for (const field of DOMAIN_INT_RANGES) {
      const r = f[field];
      if (r && !inInt(DOMAIN_INT_GETTERS[field](d), r)) return false;
    }
    for (const field of DOMAIN_TIME_RANGES) {
      const r = f[field];
      if (r && !inTime(DOMAIN_TIME_GETTERS[field](d), r)) return false;
    }
    if (f.appInstalledAt) {
      const e = f.appInstalledAt;
      const id = this.parseAppId(e.app);
      const ok = (d.apps ?? []).some(
        (a) => a.platform === id.platform && a.token === id.token && inTime(a.installed_at, e),
      );
      if (!ok) return false;
    }
    if (f.appUninstalledAt) {
      const e = f.appUninstalledAt;
      const id = this.parseAppId(e.app);
      const ok = (d.apps ?? []).some(
        (a) => a.platform === id.platform && a.token === id.token && inTime(a.removed_at, e),
      );
      if (!ok) return false;
    }
    if (f.technologyInstalledAt) {
      const e = f.technologyInstalledAt;
      const name = e.technology.trim();
      if (!(d.technologies ?? []).some((t) => t.name === name && inTime(t.installed_at, e))) return false;
    }
    for (const g of f.and ?? []) if (!this.domainMatches(d, g)) return false;
    if (f.or && !f.or.some((g) => this.domainMatches(d, g))) return false;
    for (const g of f.not ?? []) if (this.domainMatches(d, g)) return false;
    return true;
  }

  /** The names of the matching Domains, in the API's order. The arguments must be ones the API accepts. */
  domainNames(args: ListArgs<DomainFilterInput, DomainSortField> = {}): string[] {
    const words = searchWords(args.search);
    const rows = this.domainRows.filter(
      ({ pk, r }) =>
        (!args.filter || this.domainMatches(r, args.filter)) &&
        words.every((w) => this.domainSearch.get(pk)?.includes(w)),
    );
    const order = args.orderBy?.length ? args.orderBy : DEFAULT_DOMAIN_ORDER;
    return sortBy(rows, DOMAIN_SORT_GETTERS, order).map(({ r }) => r.name);
  }

  // --- Apps ---

  appProblem(args: ListArgs<AppFilterInput, AppSortField>): string | null {
    const f = args.filter;
    if (f) {
      for (const field of APP_LIST_FIELDS) {
        const l = f[field];
        if (l) {
          const p = listProblem(this.appLists[field], l, []);
          if (p) return `${field}: ${p}`;
        }
      }
      for (const field of APP_INT_RANGES) {
        const r = f[field];
        if (r) {
          const p = intRangeProblem(r);
          if (p) return `${field}: ${p}`;
        }
      }
    }
    return searchProblem(args.search) ?? orderProblem(args.orderBy ?? undefined);
  }

  appMatches(a: AppRecord, f: AppFilterInput): boolean {
    for (const field of APP_LIST_FIELDS) {
      const l = f[field];
      if (!l) continue;
      const values: string[] = [];
      listProblem(this.appLists[field], l, values);
      if (!listMatches(this.appLists[field], values, l.op ?? "AND", a)) return false;
    }
    for (const field of APP_INT_RANGES) {
      const r = f[field];
      if (r && !inInt(APP_INT_GETTERS[field](a), r)) return false;
    }
    return true;
  }

  /** `<platform>.<token>` of the matching Apps, in the API's order. */
  appIds(args: ListArgs<AppFilterInput, AppSortField> = {}): string[] {
    const words = searchWords(args.search);
    const rows = this.appRows.filter(
      ({ pk, r }) =>
        (!args.filter || this.appMatches(r, args.filter)) &&
        words.every((w) => this.appSearch.get(pk)?.includes(w)),
    );
    const order = args.orderBy?.length ? args.orderBy : DEFAULT_APP_ORDER;
    return sortBy(rows, APP_SORT_GETTERS, order).map(({ r }) => `${r.platform}.${r.token}`);
  }
}

/** administrativeAreaLevel1 needs countryCode, city needs both, anywhere in the filter or its terms. */
function requirementsProblem(f: DomainFilterInput): string | null {
  const present = new Set<string>();
  for (const g of [f, ...TERM_GROUPS.flatMap((group) => f[group] ?? [])]) {
    for (const [k, v] of Object.entries(g)) if (v != null) present.add(k);
  }
  if (present.has("administrativeAreaLevel1") && !present.has("countryCode")) {
    return "administrativeAreaLevel1 without countryCode";
  }
  if (present.has("city") && !(present.has("countryCode") && present.has("administrativeAreaLevel1"))) {
    return "city without countryCode and administrativeAreaLevel1";
  }
  return null;
}

/** The reference implementation over a generated dataset's directory (domains.jsonl, apps.jsonl). */
export function oracleOf(dir: string): Oracle {
  return new Oracle(
    readJsonl<DomainRecord>(join(dir, "domains.jsonl")),
    readJsonl<AppRecord>(join(dir, "apps.jsonl")),
    PLATFORM_LIST,
  );
}
