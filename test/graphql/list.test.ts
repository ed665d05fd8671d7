import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { PLATFORM_LIST } from "../../src/dataset/platforms.ts";
import type { AppRecord, DomainRecord } from "../../src/dataset/record.ts";
import { CONTACT_TYPES, FEATURES, TAGS } from "../../src/dataset/vocabulary.ts";
import { type GqlResult, startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import {
  APP_INT_RANGES,
  APP_LIST_FIELDS,
  APP_SORT_FIELDS,
  type AppFilterInput,
  type AppListField,
  type AppSortField,
  type Direction,
  DOMAIN_INT_RANGES,
  DOMAIN_LIST_FIELDS,
  DOMAIN_SORT_FIELDS,
  DOMAIN_TIME_RANGES,
  type DomainFilterInput,
  type DomainListField,
  type DomainSortField,
  epochMs,
  fridayOnOrBefore,
  type ListArgs,
  type ListInput,
  type Op,
  type Oracle,
  type Order,
  oracleOf,
} from "./oracle.ts";

// The Domain and App lists against a reference implementation (oracle.ts) over the generated
// records: every filter and op, every sort in both directions paged with cursors, and random
// combinations. Test values are derived from the data, never hard-coded expectations.

const OPS: Op[] = ["AND", "OR", "NOT", "NAND"];
const DIRECTIONS: Direction[] = ["ASC", "DESC"];

const DOMAINS = /* GraphQL */ `
  query Domains(
    $filter: DomainFilter
    $orderBy: [DomainOrder!]
    $search: String
    $first: Int
    $after: String
    $count: Boolean!
  ) {
    list: domains(filter: $filter, orderBy: $orderBy, search: $search, first: $first, after: $after) {
      totalCount @include(if: $count)
      edges {
        node {
          id: name
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

const APPS = /* GraphQL */ `
  query Apps(
    $filter: AppFilter
    $orderBy: [AppOrder!]
    $search: String
    $first: Int
    $after: String
    $count: Boolean!
  ) {
    list: apps(filter: $filter, orderBy: $orderBy, search: $search, first: $first, after: $after) {
      totalCount @include(if: $count)
      edges {
        node {
          platform
          token
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

interface ListData {
  list: {
    totalCount?: number;
    edges: { node: { id?: string; platform?: string; token?: string } }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  } | null;
}

type Kind = "domains" | "apps";
type AnyArgs = ListArgs<DomainFilterInput, DomainSortField> | ListArgs<AppFilterInput, AppSortField>;

// ---------------------------------------------------------------------------------------------
// Data, shared by every database

const scratch = tempDir("storegraph-list-");
let oracle: Oracle;
let domains: readonly DomainRecord[];
let apps: readonly AppRecord[];

beforeAll(async () => {
  await generateDataset({ domains: 400, apps: 60, seed: 7, outDir: scratch.dir });
  oracle = oracleOf(scratch.dir);
  ({ domains, apps } = oracle);
});

afterAll(() => scratch.remove());

// ---------------------------------------------------------------------------------------------
// Values that occur in the data

const opt = (v: string | undefined): string[] => (v === undefined ? [] : [v]);
const installed = (d: DomainRecord) =>
  (d.apps ?? []).filter((a) => a.removed_at === undefined).map((a) => `${a.platform}.${a.token}`);

/** The raw values each Domain has for a list filter (for createdWeek: its creation day). */
const DOMAIN_VALUES: Record<DomainListField, (d: DomainRecord) => string[]> = {
  countryCode: (d) => opt(d.country_code),
  administrativeAreaLevel1: (d) => opt(d.administrative_area_level_1),
  city: (d) => opt(d.city),
  region: (d) => opt(d.region),
  subregion: (d) => opt(d.subregion),
  // "" (unknown) cannot be asked for: the filter takes 2-letter codes only.
  languageCode: (d) => opt(d.language_code || undefined),
  currencyCode: (d) => opt(d.currency_code),
  platform: (d) => [d.platform],
  plan: (d) => opt(d.plan),
  themeName: (d) => opt(d.theme?.name),
  state: (d) => (d.state === "Redirect" ? [] : [d.state]),
  createdMonth: (d) => [d.created_at.slice(0, 7)],
  createdWeek: (d) => [d.created_at],
  categories: (d) => d.categories ?? [],
  features: (d) => d.features ?? [],
  tags: (d) => d.tags ?? [],
  contactTypes: (d) => [...new Set((d.contact_info ?? []).map((c) => c.type))],
  shipsTo: (d) => d.ships_to_countries ?? [],
  salesChannels: (d) => d.sales_channels ?? [],
  technologies: (d) => (d.technologies ?? []).map((t) => t.name),
  apps: installed,
};

const TIME_COLUMNS = {
  createdAt: "created_at",
  lastPlanChangeAt: "last_plan_change_at",
  lastPlatformChangeAt: "last_platform_change_at",
} as const;

const APP_VALUES: Record<AppListField, (a: AppRecord) => string[]> = {
  categories: (a) => a.categories,
  platform: (a) => [a.platform],
  vendorName: (a) => [a.vendor_name],
  vendorCountryCode: (a) => opt(a.vendor_country_code),
  state: (a) => [a.state],
};

/** Distinct values, most frequent first (ties by value). */
function ranked<R>(records: readonly R[], values: (r: R) => string[]): string[] {
  const counts = new Map<string, number>();
  for (const r of records) for (const v of values(r)) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([v]) => v);
}

/** The two values that most often occur together on one record. */
function topPair<R>(records: readonly R[], values: (r: R) => string[]): [string, string] | null {
  const counts = new Map<string, number>();
  for (const r of records) {
    const vs = [...new Set(values(r))].sort();
    for (let i = 0; i < vs.length; i++) {
      for (let j = i + 1; j < vs.length; j++) {
        const k = JSON.stringify([vs[i], vs[j]]);
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
    }
  }
  const best = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return best ? (JSON.parse(best[0]) as [string, string]) : null;
}

/** A valid value that no Domain has, where the filter has one. */
function absentDomainValue(field: DomainListField): string | null {
  const present = new Set(domains.flatMap(DOMAIN_VALUES[field]));
  const candidates: Partial<Record<DomainListField, readonly string[]>> = {
    countryCode: ["ZZ"],
    shipsTo: ["ZZ"],
    languageCode: ["zz"],
    currencyCode: ["ZZZ"],
    platform: PLATFORM_LIST,
    state: ["Active", "Inactive", "Password Protected"],
    createdMonth: ["1999-01"],
    createdWeek: ["1999-01-01"],
    features: FEATURES,
    tags: TAGS,
    contactTypes: CONTACT_TYPES,
    apps: ["shopify.no-such-app"],
  };
  const list = candidates[field] ?? ["No such value"];
  return list.find((v) => !present.has(v)) ?? null;
}

/** Values the API must refuse for a filter. */
const INVALID: Partial<Record<DomainListField, string>> = {
  countryCode: "USA",
  shipsTo: "U1",
  languageCode: "eng",
  currencyCode: "EURO",
  platform: "no-such-platform",
  state: "Redirect",
  createdMonth: "2024-13",
  createdWeek: "2024-02-30",
  features: "No such feature",
  tags: "Trending on MySpace",
  contactTypes: "fax",
  apps: "klaviyo",
};

/** The same value as another client might spell it, where the filter normalizes spelling. */
function respell(field: DomainListField | AppListField, v: string): string | null {
  switch (field) {
    case "countryCode":
    case "currencyCode":
    case "shipsTo":
    case "vendorCountryCode":
    case "platform":
    case "state":
    case "features":
    case "tags":
      return v === v.toLowerCase() ? v.toUpperCase() : v.toLowerCase();
    case "languageCode":
    case "contactTypes":
      return v.toUpperCase();
    case "apps":
      return `${v.slice(0, v.indexOf(".")).toUpperCase()}${v.slice(v.indexOf("."))}`;
    default:
      return null;
  }
}

/** The other filters a filter needs (docs/api.md 4.7), with values that occur together with `values`. */
function domainContext(field: DomainListField): {
  filter: DomainFilterInput;
  records: readonly DomainRecord[];
} {
  if (field !== "administrativeAreaLevel1" && field !== "city") return { filter: {}, records: domains };
  const withArea = domains.filter((d) => d.administrative_area_level_1 !== undefined);
  const country = ranked(withArea, (d) => opt(d.country_code))[0];
  const inCountry = domains.filter((d) => d.country_code === country);
  if (field === "administrativeAreaLevel1") {
    return { filter: { countryCode: { values: [country] } }, records: inCountry };
  }
  const areas = ranked(
    inCountry.filter((d) => d.city !== undefined),
    (d) => opt(d.administrative_area_level_1),
  ).slice(0, 2);
  return {
    filter: { countryCode: { values: [country] }, administrativeAreaLevel1: { values: areas, op: "OR" } },
    records: inCountry.filter((d) => areas.includes(d.administrative_area_level_1 ?? "")),
  };
}

interface Case<F> {
  label: string;
  filter: F;
}

/** Every op of one list filter, with values from the data (and a few that are absent or respelled). */
function listCases<F extends object, R>(
  field: string,
  exclusive: boolean,
  records: readonly R[],
  values: (r: R) => string[],
  context: object,
  absent: string | null,
): Case<F>[] {
  const top = ranked(records, values);
  expect(top.length, `values of ${field} in the data`).toBeGreaterThanOrEqual(2);
  const pair = (exclusive ? null : topPair(records, values)) ?? [top[0], top[1]];
  const rare = top[Math.min(top.length - 1, 4)];
  const cases: [string, ListInput][] = [
    ["AND one value", { values: [top[0]], op: "AND" }],
    ["default op (AND)", { values: [rare] }],
    ["AND two values", { values: pair, op: "AND" }],
    ["OR two values", { values: [top[0], rare], op: "OR" }],
    ["OR one value", { values: [top[1]], op: "OR" }],
    ["NOT one value", { values: [top[0]], op: "NOT" }],
    ["NOT two values", { values: [top[0], top[1]], op: "NOT" }],
    ["NAND one value", { values: [top[1]], op: "NAND" }],
    ["NAND two values", { values: pair, op: "NAND" }],
    ["AND padded value", { values: [`  ${top[1]} `], op: "AND" }],
    ["AND a value twice", { values: [top[0], top[0]], op: "AND" }],
  ];
  if (absent !== null) {
    cases.push(["OR with an absent value", { values: [rare, absent], op: "OR" }]);
    cases.push(["AND an absent value", { values: [absent], op: "AND" }]);
    cases.push(["NOT an absent value", { values: [absent], op: "NOT" }]);
  }
  const other = respell(field as DomainListField, top[0]);
  if (other !== null) {
    cases.push(["AND respelled value", { values: [other], op: "AND" }]);
    cases.push(["NOT value in two spellings", { values: [top[0], other], op: "NOT" }]);
    cases.push(["AND value in two spellings", { values: [top[0], other], op: "AND" }]);
  }
  return cases.map(([label, input]) => ({
    label: `${field} ${label} ${JSON.stringify(input.values)}`,
    filter: { ...context, [field]: input } as F,
  }));
}

/** A value of a sorted list at a quantile. */
const quantile = <T>(sorted: T[], q: number): T =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

// ---------------------------------------------------------------------------------------------
// Talking to the API

function variables(args: AnyArgs, first: number, after: string | null, count: boolean) {
  return {
    filter: args.filter ?? null,
    orderBy: args.orderBy ?? null,
    search: args.search ?? null,
    first,
    after,
    count,
  };
}

const idOf = (kind: Kind, node: { id?: string; platform?: string; token?: string }) =>
  kind === "domains" ? (node.id as string) : `${node.platform}.${node.token}`;

interface Collected {
  ids: string[];
  totalCount: number;
  pages: number;
}

/**
 * Pages through a list with `first: pageSize` and `after` until hasNextPage is false; after
 * `maxPages` pages, reads the rest with larger pages (the cursor does not depend on the size).
 */
async function collect(
  api: TestApi,
  kind: Kind,
  args: AnyArgs,
  pageSize: number,
  options: { maxPages?: number; restSize?: number; first?: GqlResult<ListData> } = {},
): Promise<Collected> {
  const query = kind === "domains" ? DOMAINS : APPS;
  const ids: string[] = [];
  let totalCount = -1;
  let after: string | null = null;
  for (let page = 0; ; page++) {
    if (page > 1000) throw new Error("more than 1000 pages: the cursor does not advance");
    const size =
      page < (options.maxPages ?? Number.POSITIVE_INFINITY) ? pageSize : (options.restSize ?? pageSize);
    const res: GqlResult<ListData> =
      page === 0 && options.first
        ? options.first
        : await api.gql<ListData>(query, variables(args, size, after, page === 0));
    if (res.errors?.length || !res.data?.list) {
      throw new Error(`page ${page + 1} of ${JSON.stringify(args)} failed: ${JSON.stringify(res.errors)}`);
    }
    const list = res.data.list;
    if (page === 0) totalCount = list.totalCount ?? -1;
    ids.push(...list.edges.map((e) => idOf(kind, e.node)));
    expect(list.edges.length, "page size").toBeLessThanOrEqual(size);
    if (!list.pageInfo.hasNextPage) return { ids, totalCount, pages: page + 1 };
    // Keyset pages are full until the last one.
    expect(list.edges.length, `page ${page + 1} is full while more follow`).toBe(size);
    after = list.pageInfo.endCursor;
    expect(after).toBeTruthy();
  }
}

function expectRejected(res: GqlResult<ListData>, why: string) {
  expect(res.status, `rejected (${why}) with a client error, not ${res.status}`).toBeLessThan(500);
  expect(res.errors?.[0]?.extensions?.code, `rejected (${why}): ${JSON.stringify(res.errors)}`).toBe(
    "BAD_USER_INPUT",
  );
  expect(res.data?.list ?? null).toBeNull();
}

/** Differences between two lists taken as sets, and duplicates in the actual list. */
function setDiff(actual: string[], expected: string[]) {
  const a = new Set(actual);
  const e = new Set(expected);
  return {
    missing: expected.filter((x) => !a.has(x)),
    extra: actual.filter((x) => !e.has(x)),
    duplicates: actual.filter((x, i) => actual.indexOf(x) !== i),
  };
}

const NO_DIFF = { missing: [], extra: [], duplicates: [] };

/**
 * Runs one list request as the oracle expects it: refused as BAD_USER_INPUT when the rules refuse
 * it, otherwise the same records (ordered when `ordered`) and totalCount as the oracle's.
 */
async function check(
  api: TestApi,
  kind: Kind,
  args: AnyArgs,
  label: string,
  options: { pageSize?: number; ordered?: boolean; maxPages?: number } = {},
): Promise<string[] | null> {
  const problem =
    kind === "domains"
      ? oracle.domainProblem(args as ListArgs<DomainFilterInput, DomainSortField>)
      : oracle.appProblem(args as ListArgs<AppFilterInput, AppSortField>);
  const pageSize = options.pageSize ?? (kind === "domains" ? 1000 : 50);
  const first = await api.gql<ListData>(
    kind === "domains" ? DOMAINS : APPS,
    variables(args, pageSize, null, true),
  );
  if (problem !== null) {
    expectRejected(first, `${label}: ${problem}`);
    return null;
  }
  expect(first.errors, `${label}: accepted`).toBeUndefined();
  const expected =
    kind === "domains"
      ? oracle.domainNames(args as ListArgs<DomainFilterInput, DomainSortField>)
      : oracle.appIds(args as ListArgs<AppFilterInput, AppSortField>);
  const got = await collect(api, kind, args, pageSize, { first, maxPages: options.maxPages, restSize: 1000 });
  if (options.ordered) expect(got.ids, `${label}: order`).toEqual(expected);
  else expect(setDiff(got.ids, expected), `${label}: matching records`).toEqual(NO_DIFF);
  expect(got.totalCount, `${label}: totalCount`).toBe(expected.length);
  return expected;
}

/**
 * Words with punctuation from the data match as written, and `%` / `_` are characters like any
 * other (the search text of this data has neither, so they match nothing). Reports every search
 * that disagrees with the oracle at once.
 */
async function expectLiteralSearch<R>(api: TestApi, kind: Kind, texts: (r: R) => (string | undefined)[]) {
  const records = (kind === "domains" ? domains : apps) as unknown as R[];
  const punctuated = [
    ...new Set(records.flatMap((r) => texts(r).flatMap((t) => (t ?? "").split(/\s+/)))),
  ].filter((w) => /[a-z0-9]/i.test(w) && /[^a-z0-9]/i.test(w));
  const byMark = new Map<string, string>();
  for (const w of punctuated) {
    const mark = w.replace(/[a-z0-9]/gi, "")[0];
    if (!byMark.has(mark)) byMark.set(mark, w);
  }
  const searches = [...byMark.values(), "a%e", "s_o", "100%", "_x_"];
  const failures: string[] = [];
  for (const search of searches) {
    const expected = kind === "domains" ? oracle.domainNames({ search }) : oracle.appIds({ search });
    const got = await collect(api, kind, { search }, kind === "domains" ? 1000 : 50);
    const diff = setDiff(got.ids, expected);
    if (diff.missing.length || diff.extra.length || got.totalCount !== expected.length) {
      failures.push(
        `search ${JSON.stringify(search)}: expected ${expected.length} ${kind}, got ${got.ids.length} (totalCount ${got.totalCount}), e.g. ${JSON.stringify([...diff.extra, ...diff.missing].slice(0, 2))}`,
      );
    }
  }
  expect(byMark.size, "words with punctuation in the data").toBeGreaterThan(0);
  expect(failures).toEqual([]);
  for (const search of ["%", "_", " %_ "]) {
    const res = await api.gql(`query($s: String) { ${kind}(search: $s) { totalCount } }`, { s: search });
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", argument: "search" });
  }
}

// ---------------------------------------------------------------------------------------------
// The data exercises the filters

describe("the generated dataset", () => {
  it("has several values, unknown values and records without values for the filters and sorts", () => {
    for (const field of DOMAIN_LIST_FIELDS) {
      expect(new Set(domains.flatMap(DOMAIN_VALUES[field])).size, field).toBeGreaterThanOrEqual(3);
    }
    // Unknown values (which `not` must include) for the nullable column filters.
    for (const field of [
      "countryCode",
      "region",
      "subregion",
      "currencyCode",
      "plan",
      "themeName",
    ] as const) {
      expect(domains.filter((d) => DOMAIN_VALUES[field](d).length === 0).length, field).toBeGreaterThan(0);
    }
    // Nulls and values in every nullable sort column.
    for (const f of [
      "estimated_sales",
      "estimated_visits",
      "product_count",
      "employee_count",
      "monthly_app_spend",
      "last_plan_change_at",
    ] as const) {
      const nulls = domains.filter((d) => d[f] === undefined).length;
      expect(nulls, f).toBeGreaterThan(0);
      expect(nulls, f).toBeLessThan(domains.length - 10);
    }
    expect(apps.filter((a) => a.installs === undefined).length).toBeGreaterThan(0);
    expect(apps.filter((a) => a.removed_at !== undefined).length).toBeGreaterThan(1);
    expect(
      domains.flatMap((d) => d.apps ?? []).filter((a) => a.removed_at !== undefined).length,
    ).toBeGreaterThan(10);
    for (const field of APP_LIST_FIELDS) {
      expect(new Set(apps.flatMap(APP_VALUES[field])).size, field).toBeGreaterThanOrEqual(2);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe.each(databaseKinds())("Domain and App lists on %s", (kind) => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi(kind, scratch.dir);
  });
  afterAll(async () => {
    await api?.close();
  });

  describe("Domain filters", () => {
    it.each(DOMAIN_LIST_FIELDS)("list filter %s with every op", async (field) => {
      const { filter: context, records } = domainContext(field);
      const cases = listCases<DomainFilterInput, DomainRecord>(
        field,
        oracle.isExclusive(field),
        records,
        DOMAIN_VALUES[field],
        context,
        absentDomainValue(field),
      );
      const sizes = new Set<number>();
      for (const c of cases) {
        const expected = await check(api, "domains", { filter: c.filter }, c.label);
        if (expected) sizes.add(expected.length);
      }
      // The cases tell matching from non-matching records.
      expect(
        [...sizes].some((n) => n > 0 && n < domains.length),
        `${field}: a proper subset`,
      ).toBe(true);
    });

    it("refuses values a filter does not take", async () => {
      for (const [field, value] of Object.entries(INVALID) as [DomainListField, string][]) {
        await check(
          api,
          "domains",
          { filter: { [field]: { values: [value], op: "OR" } } },
          `${field} ${value}`,
        );
      }
      for (const bad of [[], ["  "]]) {
        await check(api, "domains", { filter: { plan: { values: bad } } }, `plan ${JSON.stringify(bad)}`);
      }
      await check(
        api,
        "domains",
        { filter: { administrativeAreaLevel1: { values: ["Texas"] } } },
        "no country",
      );
      await check(
        api,
        "domains",
        { filter: { countryCode: { values: ["US"] }, city: { values: ["Austin"] } } },
        "city without area",
      );
    });

    it.each([...DOMAIN_INT_RANGES])("range filter %s", async (field) => {
      const values = domains
        .map((d) => oracleInt(field, d))
        .filter((v): v is number => v !== undefined)
        .sort((a, b) => a - b);
      const lo = quantile(values, 0.3);
      const hi = quantile(values, 0.7);
      for (const range of [
        { min: lo },
        { max: hi },
        { min: lo, max: hi },
        { min: lo, max: lo },
        { min: hi, max: lo },
      ]) {
        await check(api, "domains", { filter: { [field]: range } }, `${field} ${JSON.stringify(range)}`);
      }
      await check(api, "domains", { filter: { [field]: {} } }, `${field} without bounds`);
    });

    it.each([...DOMAIN_TIME_RANGES])("time range filter %s", async (field) => {
      const column = TIME_COLUMNS[field];
      const days = domains
        .map((d) => d[column])
        .filter((v): v is string => v !== undefined)
        .sort();
      const lo = quantile(days, 0.3);
      const hi = quantile(days, 0.7);
      const ranges = [
        { min: lo },
        { max: hi },
        { min: lo, max: hi },
        { min: lo, max: lo },
        { min: `${lo}T00:00:00Z`, max: `${hi}T00:00:00Z` },
        { min: `${lo}T00:00:01Z` },
        { max: `${hi}T23:59:59.999Z` },
        { max: `${hi}T01:00:00+02:00` },
        { min: `${lo}T12:00:00Z`, max: lo },
        { min: `${lo}T00:00:00Z`, max: `${lo}T00:00:00Z` },
        { min: hi, max: lo },
      ];
      for (const range of ranges) {
        await check(api, "domains", { filter: { [field]: range } }, `${field} ${JSON.stringify(range)}`);
      }
    });

    it("appInstalledAt and appUninstalledAt", async () => {
      const entries = domains.flatMap((d) => d.apps ?? []);
      for (const field of ["appInstalledAt", "appUninstalledAt"] as const) {
        const relevant =
          field === "appInstalledAt" ? entries : entries.filter((a) => a.removed_at !== undefined);
        const app = ranked(relevant, (a) => [`${a.platform}.${a.token}`])[0];
        const times = relevant
          .filter((a) => `${a.platform}.${a.token}` === app)
          .map((a) => (field === "appInstalledAt" ? a.installed_at : (a.removed_at as string)))
          .sort();
        const lo = quantile(times, 0.25);
        const hi = quantile(times, 0.75);
        const hiDay = hi.slice(0, 10);
        const ranges = [
          { min: lo },
          { max: hi },
          { min: lo, max: hi },
          { min: lo.slice(0, 10), max: hiDay },
          { max: hiDay },
          { max: `${hiDay}T00:00:00Z` },
          { min: hi, max: hiDay },
          { min: hi, max: lo },
          {},
        ];
        for (const range of ranges) {
          await check(
            api,
            "domains",
            { filter: { [field]: { app, ...range } } },
            `${field} ${app} ${JSON.stringify(range)}`,
          );
        }
        // A date as max covers the whole day: the entry at `hi` (later than midnight) is included.
        const wholeDay = oracle.domainNames({ filter: { [field]: { app, max: hiDay } } }).length;
        const toMidnight = oracle.domainNames({
          filter: { [field]: { app, max: `${hiDay}T00:00:00Z` } },
        }).length;
        expect(wholeDay).toBeGreaterThan(toMidnight);
        const respelled = `${app.slice(0, app.indexOf(".")).toUpperCase()}${app.slice(app.indexOf("."))}`;
        await check(
          api,
          "domains",
          { filter: { [field]: { app: respelled, min: lo } } },
          `${field} ${respelled}`,
        );
        for (const bad of [`${app},${app}`, "klaviyo", "no-such-platform.x", " ", "shopify."]) {
          await check(api, "domains", { filter: { [field]: { app: bad, min: lo } } }, `${field} app ${bad}`);
        }
      }
    });

    it("technologyInstalledAt", async () => {
      const entries = domains.flatMap((d) => d.technologies ?? []);
      const tech = ranked(entries, (t) => [t.name])[3];
      const times = entries
        .filter((t) => t.name === tech)
        .map((t) => t.installed_at)
        .sort();
      const lo = quantile(times, 0.25);
      const hi = quantile(times, 0.75);
      for (const range of [
        { min: lo },
        { max: hi },
        { min: lo, max: hi },
        { max: hi.slice(0, 10) },
        { min: lo.slice(0, 10), max: `${hi.slice(0, 10)}T00:00:00Z` },
        { min: hi, max: lo },
        {},
      ]) {
        await check(
          api,
          "domains",
          { filter: { technologyInstalledAt: { technology: tech, ...range } } },
          `technologyInstalledAt ${tech} ${JSON.stringify(range)}`,
        );
      }
      await check(
        api,
        "domains",
        { filter: { technologyInstalledAt: { technology: ` ${tech} `, min: lo } } },
        "padded technology",
      );
      await check(
        api,
        "domains",
        { filter: { technologyInstalledAt: { technology: " ", min: lo } } },
        "blank",
      );
    });

    it("and: conditions that must all match, one level deep", async () => {
      const [a, b] = ranked(domains, DOMAIN_VALUES.features);
      const country = ranked(domains, DOMAIN_VALUES.countryCode)[0];
      const area = ranked(
        domains.filter((d) => d.country_code === country),
        DOMAIN_VALUES.administrativeAreaLevel1,
      )[0];
      const days = domains.map((d) => d.created_at).sort();
      const filters: [string, DomainFilterInput][] = [
        [
          "features a and not b",
          { and: [{ features: { values: [a] } }, { features: { values: [b], op: "NOT" } }] },
        ],
        [
          "countryCode inside and satisfies the area's requirement",
          { administrativeAreaLevel1: { values: [area] }, and: [{ countryCode: { values: [country] } }] },
        ],
        [
          "the same range twice",
          {
            and: [{ createdAt: { min: quantile(days, 0.2) } }, { createdAt: { max: quantile(days, 0.6) } }],
          },
        ],
        [
          "top-level and and-list combined",
          { platform: { values: ["shopify"] }, and: [{ features: { values: [a, b], op: "OR" } }] },
        ],
        ["empty and", { and: [] }],
        ["nested and", { and: [{ and: [{ features: { values: [a] } }] }] }],
        ["too many conditions", { and: Array.from({ length: 51 }, () => ({ features: { values: [a] } })) }],
        ["an invalid condition inside and", { and: [{ countryCode: { values: ["US", "CA"] } }] }],
      ];
      for (const [label, filter] of filters) await check(api, "domains", { filter }, label);
    });

    it("or and not: any term of or, no term of not, unknown values outside every term", async () => {
      const [a, b] = ranked(domains, DOMAIN_VALUES.features);
      const country = ranked(domains, DOMAIN_VALUES.countryCode)[0];
      const area = ranked(
        domains.filter((d) => d.country_code === country),
        DOMAIN_VALUES.administrativeAreaLevel1,
      )[0];
      const sales = domains.map((d) => d.estimated_sales).filter((v): v is number => v !== undefined);
      const median = [...sales].sort((x, y) => x - y)[Math.floor(sales.length / 2)];
      expect(sales.length, "some Domains without estimated sales").toBeLessThan(domains.length);
      const filters: [string, DomainFilterInput][] = [
        [
          "or across filters",
          { or: [{ countryCode: { values: [country] } }, { features: { values: [a, b] } }] },
        ],
        [
          "a term of or with two filters",
          {
            platform: { values: ["shopify"] },
            or: [{ estimatedSales: { min: median }, features: { values: [a] } }, { rank: { max: 50 } }],
          },
        ],
        ["not a range keeps the unknown values", { not: [{ estimatedSales: { min: median } }] }],
        ["not a country keeps the unknown ones", { not: [{ countryCode: { values: [country], op: "OR" } }] }],
        [
          "not each op",
          { not: [{ features: { values: [a, b] } }, { tags: { values: ["Dropshipper"], op: "NAND" } }] },
        ],
        [
          "not a term of two filters",
          { not: [{ features: { values: [a], op: "NOT" }, estimatedSales: { max: median } }] },
        ],
        [
          "requirements met across groups",
          { countryCode: { values: [country] }, or: [{ administrativeAreaLevel1: { values: [area] } }] },
        ],
        ["an empty term", { not: [{}], or: [{}] }],
        ["empty or", { or: [] }],
        ["empty not", { not: [] }],
        ["nested", { or: [{ not: [{ features: { values: [a] } }] }] }],
        ["too many", { not: Array.from({ length: 51 }, () => ({ features: { values: [a] } })) }],
        ["an invalid condition inside not", { not: [{ countryCode: { values: ["US", "CA"] } }] }],
      ];
      for (const [label, filter] of filters) await check(api, "domains", { filter }, label);
      const negated = oracle.domainNames({ filter: { not: [{ estimatedSales: { min: median } }] } });
      expect(negated.length).toBeGreaterThan(domains.length - sales.length);
    });

    it("search: every word in the name, title, description or merchant name", async () => {
      const d = domains.find((x) => x.title && x.description && x.merchant_name) as DomainRecord;
      const words = (s: string | undefined) => (s ?? "").split(/\s+/).filter((w) => /^[A-Za-z]{4,}$/.test(w));
      const descriptionWord = words(d.description)[0];
      const titleWord = words(d.title).at(-1) as string;
      const merchantWord = words(d.merchant_name)[0] ?? (d.merchant_name as string);
      const searches = [
        descriptionWord,
        descriptionWord.toUpperCase(),
        `${titleWord} ${descriptionWord}`,
        `  ${merchantWord}\t${descriptionWord.slice(1, 4)} `,
        d.name.slice(0, 5),
        d.name,
        "qqqzzx",
        `${descriptionWord} qqqzzx`,
        "   ",
        "a b c d e f g h i j",
        "a b c d e f g h i j k",
        "x".repeat(201),
      ];
      for (const search of searches)
        await check(api, "domains", { search }, `search ${JSON.stringify(search)}`);
      await check(
        api,
        "domains",
        { search: descriptionWord, filter: { platform: { values: ["shopify"], op: "NOT" } } },
        "search with a filter",
      );
      expect(oracle.domainNames({ search: `${titleWord} ${descriptionWord}` })).toContain(d.name);
    });

    it("search: punctuation separates words, and % and _ are never wildcards", async () => {
      await expectLiteralSearch(api, "domains", (d: DomainRecord) => [
        d.title,
        d.description,
        d.merchant_name,
      ]);
    });
  });

  describe("Domain sorts", () => {
    it.each(DOMAIN_SORT_FIELDS.flatMap((f) => DIRECTIONS.map((d) => [f, d] as const)))(
      "orderBy %s %s, pages of 37",
      async (field, direction) => {
        const expected = await check(
          api,
          "domains",
          { orderBy: [{ field, direction }] },
          `${field} ${direction}`,
          {
            pageSize: 37,
            ordered: true,
          },
        );
        expect(expected).toHaveLength(domains.length);
      },
    );

    it("default order: rank ascending", async () => {
      await check(api, "domains", {}, "default", { pageSize: 37, ordered: true });
      await check(api, "domains", { orderBy: [] }, "empty orderBy", { pageSize: 37, ordered: true });
    });

    it("two and three keys with a filter", async () => {
      const sorts: Order<DomainSortField>[][] = [
        [
          { field: "PRODUCT_COUNT", direction: "DESC" },
          { field: "CREATED_AT", direction: "ASC" },
        ],
        [
          { field: "MONTHLY_APP_SPEND", direction: "ASC" },
          { field: "EMPLOYEE_COUNT", direction: "DESC" },
          { field: "NAME", direction: "DESC" },
        ],
        [
          { field: "CREATED_AT", direction: "DESC" },
          { field: "LAST_PLAN_CHANGE_AT", direction: "ASC" },
        ],
        [{ field: "PLATFORM_RANK" }, { field: "ESTIMATED_SALES", direction: "DESC" }],
      ];
      for (const orderBy of sorts) {
        const filter: DomainFilterInput = { platform: { values: ["shopify", "woocommerce"], op: "OR" } };
        await check(api, "domains", { orderBy, filter }, JSON.stringify(orderBy), {
          pageSize: 13,
          ordered: true,
        });
      }
      await check(
        api,
        "domains",
        { orderBy: [{ field: "NAME" }, { field: "NAME", direction: "DESC" }] },
        "twice",
      );
      await check(
        api,
        "domains",
        { orderBy: DOMAIN_SORT_FIELDS.slice(0, 6).map((field) => ({ field })) },
        "six sort fields",
      );
    });
  });

  describe("Domain property", () => {
    it("random filters, sorts and page sizes page through exactly the oracle's list", async () => {
      const arb = domainArgsArbitrary();
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(arb, fc.integer({ min: 1, max: 60 }), async (args, pageSize) => {
          const expected = await check(api, "domains", args, JSON.stringify(args), {
            pageSize,
            ordered: true,
            maxPages: 12,
          });
          if (expected) accepted++;
        }),
        { numRuns: 25 },
      );
      expect(accepted).toBeGreaterThan(5);
    });
  });

  describe("App lists", () => {
    it.each(APP_LIST_FIELDS)("list filter %s with every op", async (field) => {
      const absent: Record<AppListField, string | null> = {
        categories: "No such value",
        platform: PLATFORM_LIST.find((p) => !apps.some((a) => a.platform === p)) ?? null,
        vendorName: "No such value",
        vendorCountryCode: "ZZ",
        state: null,
      };
      const cases = listCases<AppFilterInput, AppRecord>(
        field,
        field !== "categories",
        apps,
        APP_VALUES[field],
        {},
        absent[field],
      );
      for (const c of cases) await check(api, "apps", { filter: c.filter }, c.label);
    });

    it.each([...APP_INT_RANGES])("range filter %s", async (field) => {
      const values = apps
        .map((a) => (field === "installs" ? a.installs : a.review_count))
        .filter((v): v is number => v !== undefined)
        .sort((a, b) => a - b);
      const lo = quantile(values, 0.3);
      const hi = quantile(values, 0.7);
      for (const range of [
        { min: lo },
        { max: hi },
        { min: lo, max: hi },
        { min: hi, max: hi },
        { min: hi, max: lo },
        {},
      ]) {
        await check(api, "apps", { filter: { [field]: range } }, `${field} ${JSON.stringify(range)}`);
      }
    });

    it("search in the name and description", async () => {
      const a = apps[0];
      const word = a.description.split(/\s+/).find((w) => /^[A-Za-z]{4,}$/.test(w)) as string;
      const nameWord = a.name.split(/[\s:]+/)[0];
      for (const search of [
        word,
        word.toUpperCase(),
        nameWord,
        `${nameWord} ${word}`,
        word.slice(1, 4),
        "qqqzzx",
        " ",
        "x".repeat(201),
      ]) {
        await check(api, "apps", { search }, `search ${JSON.stringify(search)}`);
      }
      await check(
        api,
        "apps",
        {
          search: word,
          filter: { state: { values: ["Inactive"], op: "NOT" } },
          orderBy: [{ field: "CREATED_AT" }],
        },
        "search with a filter",
        { ordered: true },
      );
    });

    it("search: punctuation separates words, and % and _ are never wildcards", async () => {
      await expectLiteralSearch(api, "apps", (a: AppRecord) => [a.name, a.description]);
    });

    it.each(APP_SORT_FIELDS.flatMap((f) => DIRECTIONS.map((d) => [f, d] as const)))(
      "orderBy %s %s, pages of 7",
      async (field, direction) => {
        const expected = await check(
          api,
          "apps",
          { orderBy: [{ field, direction }] },
          `${field} ${direction}`,
          {
            pageSize: 7,
            ordered: true,
          },
        );
        expect(expected).toHaveLength(apps.length);
      },
    );

    it("default order: installs descending; two keys", async () => {
      await check(api, "apps", {}, "default", { pageSize: 7, ordered: true });
      await check(
        api,
        "apps",
        {
          orderBy: [
            { field: "REMOVED_AT", direction: "DESC" },
            { field: "INSTALLS", direction: "ASC" },
          ],
          filter: { platform: { values: ["shopify"], op: "NOT" } },
        },
        "two keys",
        { pageSize: 3, ordered: true },
      );
    });

    it("random App filters, sorts and page sizes", async () => {
      const arb = appArgsArbitrary();
      await fc.assert(
        fc.asyncProperty(arb, fc.integer({ min: 1, max: 20 }), async (args, pageSize) => {
          await check(api, "apps", args, JSON.stringify(args), { pageSize, ordered: true });
        }),
        { numRuns: 15 },
      );
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Arbitraries (built after the data is read)

function oracleInt(field: (typeof DOMAIN_INT_RANGES)[number], d: DomainRecord): number | undefined {
  return {
    avgPrice: d.avg_price,
    employeeCount: d.employee_count,
    estimatedSales: d.estimated_sales,
    productCount: d.product_count,
    rank: d.rank,
    monthlyAppSpend: d.monthly_app_spend,
    estimatedVisits: d.estimated_visits,
  }[field];
}

function opArbitrary(): fc.Arbitrary<Op | undefined> {
  return fc.constantFrom<Op | undefined>(...OPS, undefined);
}

/**
 * A list filter of 1–3 values: mostly present in the data, some absent, a few the API refuses.
 * and/nand on an exclusive filter mostly get one value (several are refused).
 */
function listArbitrary(
  present: string[],
  absent: string[],
  invalid: string[],
  exclusive: boolean,
): fc.Arbitrary<ListInput> {
  const value = fc.oneof(
    { weight: 16, arbitrary: fc.constantFrom(...present) },
    { weight: 2, arbitrary: fc.constantFrom(...absent) },
    { weight: 1, arbitrary: fc.constantFrom(...invalid) },
  );
  const one = fc.array(value, { minLength: 1, maxLength: 1 });
  const many = fc.array(value, { minLength: 1, maxLength: 3 });
  return opArbitrary().chain((op) => {
    const narrow = exclusive && op !== "OR" && op !== "NOT";
    const values = narrow ? fc.oneof({ weight: 6, arbitrary: one }, many) : many;
    return values.map((vs): ListInput => (op === undefined ? { values: vs } : { values: vs, op }));
  });
}

/** min only, max only or both; now and then reversed or without bounds (refused). */
function rangeArbitrary<T>(bound: fc.Arbitrary<T>, order: (a: T, b: T) => number) {
  return fc.tuple(bound, bound, fc.integer({ min: 0, max: 19 })).map(([a, b, mode]) => {
    const [lo, hi] = order(a, b) <= 0 ? [a, b] : [b, a];
    if (mode < 6) return { min: lo };
    if (mode < 12) return { max: hi };
    if (mode < 18) return { min: lo, max: hi };
    return mode === 18 ? { min: hi, max: lo } : {};
  });
}

type Entry = [string, unknown][];

function domainArgsArbitrary(): fc.Arbitrary<ListArgs<DomainFilterInput, DomainSortField>> {
  const listEntry = (field: DomainListField): fc.Arbitrary<Entry> => {
    const present = ranked(domains, DOMAIN_VALUES[field]).slice(0, 8);
    const absent = absentDomainValue(field) ?? "No such value";
    const invalid = INVALID[field] ?? "  ";
    const list = listArbitrary(present, [absent], [invalid], oracle.isExclusive(field));
    const entry = list.map((l): Entry => [[field, l]]);
    if (field !== "administrativeAreaLevel1" && field !== "city") return entry;
    // Mostly with the filters they need, and values of that country.
    return fc.tuple(entry, fc.integer({ min: 0, max: 9 })).map(([e, n]) => {
      if (n < 2) return e;
      const place = domains.find((d) => DOMAIN_VALUES[field](d).includes((e[0][1] as ListInput).values[0]));
      const needs: Entry = [["countryCode", { values: [place?.country_code ?? "US"] }]];
      if (field === "city") {
        needs.push(["administrativeAreaLevel1", { values: [place?.administrative_area_level_1 ?? "Texas"] }]);
      }
      return [...e, ...needs];
    });
  };
  const intEntry = (field: (typeof DOMAIN_INT_RANGES)[number]): fc.Arbitrary<Entry> => {
    const values = domains.map((d) => oracleInt(field, d)).filter((v): v is number => v !== undefined);
    return rangeArbitrary(fc.constantFrom(...values), (a, b) => a - b).map((r): Entry => [[field, r]]);
  };
  const timeEntry = (field: (typeof DOMAIN_TIME_RANGES)[number]): fc.Arbitrary<Entry> => {
    const days = domains.map((d) => d[TIME_COLUMNS[field]]).filter((v): v is string => v !== undefined);
    const bound = fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...days) },
      fc.constantFrom(...days).map((d) => `${d}T12:00:00Z`),
    );
    return rangeArbitrary(bound, (a, b) => epochMs(a) - epochMs(b)).map((r): Entry => [[field, r]]);
  };
  const appEntries = domains.flatMap((d) => d.apps ?? []);
  const appEvent = fc
    .tuple(
      fc.constantFrom("appInstalledAt", "appUninstalledAt"),
      fc.constantFrom(...appEntries),
      fc.constantFrom(...appEntries),
      fc.boolean(),
    )
    .map(([field, a, b, dateOnly]): Entry => {
      const [lo, hi] = [a.installed_at, b.installed_at].sort();
      const cut = (t: string) => (dateOnly ? t.slice(0, 10) : t);
      return [[field, { app: `${a.platform}.${a.token}`, min: cut(lo), max: cut(hi) }]];
    });
  const techs = domains.flatMap((d) => d.technologies ?? []);
  const techEvent = fc
    .tuple(fc.constantFrom(...techs), fc.constantFrom(...techs), fc.boolean())
    .map(([a, b, dateOnly]): Entry => {
      const [lo, hi] = [a.installed_at, b.installed_at].sort();
      return [
        ["technologyInstalledAt", { technology: a.name, max: dateOnly ? hi.slice(0, 10) : hi, min: lo }],
      ];
    });
  const entry = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...DOMAIN_LIST_FIELDS).chain(listEntry) },
    { weight: 3, arbitrary: fc.constantFrom(...DOMAIN_INT_RANGES).chain(intEntry) },
    { weight: 2, arbitrary: fc.constantFrom(...DOMAIN_TIME_RANGES).chain(timeEntry) },
    { weight: 2, arbitrary: fc.oneof(appEvent, techEvent) },
  );
  const filter = fc
    .array(fc.tuple(entry, fc.integer({ min: 0, max: 5 })), { minLength: 1, maxLength: 3 })
    .map((entries) => {
      const f: Record<string, unknown> = {};
      const groups: Record<"and" | "or" | "not", Record<string, unknown>[]> = { and: [], or: [], not: [] };
      for (const [parts, where] of entries) {
        // An entry as one term of `or` or `not` (its parts together), or its parts at the top or
        // in `and` (needed for the same filter twice).
        if (where === 4 || where === 5) {
          groups[where === 4 ? "or" : "not"].push(Object.fromEntries(parts));
          continue;
        }
        for (const [field, input] of parts) {
          if (where === 0 || field in f) groups.and.push({ [field]: input });
          else f[field] = input;
        }
      }
      for (const [group, terms] of Object.entries(groups)) if (terms.length) f[group] = terms;
      return f as DomainFilterInput;
    });
  const order = fc.uniqueArray(
    fc.record({ field: fc.constantFrom(...DOMAIN_SORT_FIELDS), direction: fc.constantFrom(...DIRECTIONS) }),
    { maxLength: 3, selector: (o) => o.field },
  );
  // Words that occur in several Domains' search text, and one that occurs nowhere.
  const words = ranked(domains, (d) => [
    ...new Set(
      `${d.title ?? ""} ${d.description ?? ""} ${d.merchant_name ?? ""}`
        .toLowerCase()
        .split(/\s+/)
        .filter((w) => /^[a-z]{3,}$/.test(w)),
    ),
  ]).slice(0, 60);
  const search = fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constantFrom(...words) },
    fc.constantFrom(...words).map((w) => `${w.toUpperCase()} ${w.slice(1, 3)}`),
    fc.constant("qqqzzx"),
  );
  return fc.record({ filter, orderBy: order, search }).map((r) => ({
    filter: r.filter,
    orderBy: r.orderBy.length ? r.orderBy : undefined,
    search: r.search,
  }));
}

function appArgsArbitrary(): fc.Arbitrary<ListArgs<AppFilterInput, AppSortField>> {
  const listEntry = (field: AppListField) =>
    fc
      .constant(field)
      .chain((f) =>
        listArbitrary(ranked(apps, APP_VALUES[f]).slice(0, 6), ["No such value"], ["  "], f !== "categories"),
      )
      .map((l) => ({ [field]: l }) as AppFilterInput);
  const rangeEntry = (field: (typeof APP_INT_RANGES)[number]) => {
    const values = apps
      .map((a) => (field === "installs" ? a.installs : a.review_count))
      .filter((v): v is number => v !== undefined);
    return rangeArbitrary(fc.constantFrom(...values), (a, b) => a - b).map(
      (r) => ({ [field]: r }) as AppFilterInput,
    );
  };
  const entry = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...APP_LIST_FIELDS).chain(listEntry) },
    { weight: 1, arbitrary: fc.constantFrom(...APP_INT_RANGES).chain(rangeEntry) },
  );
  const filter = fc
    .array(entry, { minLength: 0, maxLength: 2 })
    .map((es) => Object.assign({}, ...es) as AppFilterInput);
  const order = fc.uniqueArray(
    fc.record({ field: fc.constantFrom(...APP_SORT_FIELDS), direction: fc.constantFrom(...DIRECTIONS) }),
    { maxLength: 2, selector: (o) => o.field },
  );
  const words = [
    ...new Set(apps.flatMap((a) => a.description.split(/\s+/).filter((w) => /^[a-z]{4,}$/.test(w)))),
  ];
  const search = fc.option(fc.constantFrom(...words), { freq: 3, nil: undefined });
  return fc.record({ filter, orderBy: order, search }).map((r) => ({
    filter: r.filter,
    orderBy: r.orderBy.length ? r.orderBy : undefined,
    search: r.search,
  }));
}

// fridayOnOrBefore is the oracle's reading of createdWeek; keep it honest against a known week.
describe("oracle", () => {
  it("maps days to the Friday on or before them", () => {
    expect(fridayOnOrBefore("2024-03-01")).toBe("2024-03-01"); // a Friday
    expect(fridayOnOrBefore("2024-03-07")).toBe("2024-03-01"); // the Thursday after
    expect(fridayOnOrBefore("2024-03-02")).toBe("2024-03-01");
    expect(fridayOnOrBefore("2024-03-08")).toBe("2024-03-08");
  });
});
