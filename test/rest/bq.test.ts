import fc from "fast-check";
import type { GraphQLError } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { PLATFORM_IDS } from "../../src/dataset/platforms.ts";
import type { DomainRecord } from "../../src/dataset/record.ts";
import { DOMAIN_LIST_FILTERS, DOMAIN_RANGE_FILTERS } from "../../src/query/domain-filter.ts";
import { parseBq } from "../../src/rest/bq.ts";
import { writeBq } from "../../src/rest/bq-writer.ts";
import { optionOfArgument } from "../../src/rest/filter-options.ts";
import { DOMAIN_QUERY, DOMAIN_TABLES } from "../../src/rest/inputs.ts";
import { Options } from "../../src/rest/options.ts";
import { type DomainFilterInput, epochMs, type ListInput, type Oracle, oracleOf } from "../graphql/oracle.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

// bq, the dashboard's boolean query (docs/decisions.md "List Domains"): the parser's refusals
// name the part they could not read, and through List Domains (paged with cursor), Export Domains
// and the facets, a random bq selects exactly the Domains that its meaning selects over the
// records (must: all, should: at least one, must_not: none; a condition's values as its f: filter
// matches them, its bounds as written, exclusive or not), and the same as its equivalent f:/aq
// options, on both databases.

const BASE = "http://localhost/json/api/v1/all/domain";

/** The 400 that parseBq answers for `bq`, as its message. */
function refusal(bq: unknown): string {
  try {
    parseBq(bq, DOMAIN_TABLES);
  } catch (e) {
    expect((e as GraphQLError).extensions.code).toBe("BAD_USER_INPUT");
    return (e as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(bq)}`);
}
const must = (...conjuncts: unknown[]) => ({ must: { conjuncts } });

describe("parseBq", () => {
  it("reads the decisions' example into DomainFilter terms", () => {
    const bq = must(
      { field: "p", operator: "or", analyzer: "advanced", match: "1" },
      { field: "er", min: 5000000, max: 10000000, inclusive_min: true, inclusive_max: true },
      { field: "cc", operator: "or", analyzer: "advanced", match: "US GB" },
      { field: "cat", operator: "or", analyzer: "advanced", match: "/Apparel /Beauty...&...Fitness" },
    );
    expect(parseBq(bq, DOMAIN_TABLES)).toEqual({
      and: [
        { platform: { values: ["shopify"], op: "OR" } },
        { estimatedSales: { min: 5000000, max: 10000000 } },
        { countryCode: { values: ["US", "GB"], op: "OR" } },
        { categories: { values: ["/Apparel", "/Beauty & Fitness"], op: "OR" } },
      ],
      or: [],
      not: [],
      q: [],
    });
  });

  it("reads a list or segment of the account by its one name in must_not: the Domains not in it", () => {
    const bq = {
      must_not: {
        disjuncts: [
          { field: "list", term: " customers " },
          { field: "segment", match: "us-plus" },
        ],
      },
    };
    expect(parseBq(bq, DOMAIN_TABLES)).toEqual({
      and: [],
      or: [],
      not: [{ list: "customers" }, { segment: "us-plus" }],
      q: [],
    });
  });

  it("puts should's conditions in or, must_not's in not, q in the search; term is one value", () => {
    const bq = {
      must: { conjuncts: [{ field: "q", match: "blue shoes" }] },
      should: {
        disjuncts: [
          { field: "tags", term: "Trending on TikTok" },
          { field: "rank", max: 10 },
        ],
        min: 1,
      },
      must_not: {
        disjuncts: [{ field: "ds", match: "Inactive Password...Protected", operator: "OR" }],
        min: 0,
      },
    };
    expect(parseBq(bq, DOMAIN_TABLES)).toEqual({
      and: [],
      or: [{ tags: { values: ["Trending on TikTok"], op: "OR" } }, { rank: { min: null, max: 9 } }],
      not: [{ state: { values: ["Inactive", "Password Protected"], op: "OR" } }],
      q: ["blue shoes"],
    });
  });

  it("names a platform by its id, 1 being shopify, or by its name", () => {
    expect(PLATFORM_IDS.get("1")).toBe("shopify");
    const [id, name] = [...PLATFORM_IDS].find(([, p]) => p !== "shopify") as [string, string];
    expect(parseBq(must({ field: "p", match: `1 ${id} Wix` }), DOMAIN_TABLES).and).toEqual([
      { platform: { values: ["shopify", name, "Wix"], op: "OR" } },
    ]);
    expect(refusal(must({ field: "p", match: "shopify 9999" }))).toMatch(
      /^bq\.must\.conjuncts\[0\]\.match: unknown platform id "9999"; ids: 1 \(shopify\), /,
    );
  });

  it("makes exclusive bounds inclusive: the next integer, day or millisecond; min in and max out by default", () => {
    const range = (field: string, c: Record<string, unknown>) =>
      Object.values(parseBq(must({ field, ...c }), DOMAIN_TABLES).and[0])[0];
    expect(range("er", { min: 5, max: 10 })).toEqual({ min: 5, max: 9 });
    expect(range("er", { min: 5, max: 10, inclusive_min: false, inclusive_max: true })).toEqual({
      min: 6,
      max: 10,
    });
    expect(range("pc", { min: 4.5, max: 7.5, inclusive_max: true })).toEqual({ min: 5, max: 7 });
    expect(range("pc", { min: 4.5, max: 7.5, inclusive_min: false })).toEqual({ min: 5, max: 7 });
    expect(range("rank", { min: -0.5 })).toEqual({ min: 0, max: null });
    expect(range("crat", { min: "2024-02-28", max: "2024-03-01" })).toEqual({
      min: "2024-02-28",
      max: "2024-02-29",
    });
    expect(range("crat", { min: "2024-02-28", inclusive_min: false })).toEqual({
      min: "2024-02-29",
      max: null,
    });
    expect(range("crat", { max: "2024-03-01", inclusive_max: true })).toEqual({
      min: null,
      max: "2024-03-01",
    });
    expect(
      range("last_plan_change_at", {
        min: "2024-03-01T10:00:00Z",
        max: "2024-03-01T12:00:00+01:00",
        inclusive_min: false,
      }),
    ).toEqual({ min: "2024-03-01T10:00:00.001Z", max: "2024-03-01T10:59:59.999Z" });
  });

  it("joins the f: options, q and aq: must's terms after aq's, should's as or, must_not's as not", () => {
    const read = (body: Record<string, unknown>) => DOMAIN_QUERY.read(Options.fromBody(body), {});
    expect(
      read({
        "f:cc": "US",
        q: "blue",
        aq: [{ field: "tags", value: "Dropshipper" }],
        bq: {
          must: {
            conjuncts: [
              { field: "q", match: "shoes" },
              { field: "rank", min: 10 },
            ],
          },
          should: { disjuncts: [{ field: "ds", term: "Active" }] },
          must_not: { disjuncts: [{ field: "it", match: "email" }] },
        },
      }),
    ).toEqual({
      filter: {
        countryCode: { values: ["US"], op: "AND" },
        and: [{ tags: { values: ["Dropshipper"], op: "AND" } }, { rank: { min: 10, max: null } }],
        or: [{ state: { values: ["Active"], op: "OR" } }],
        not: [{ contactTypes: { values: ["email"], op: "OR" } }],
      },
      search: "blue shoes",
      orderBy: undefined,
    });
    const aq = Array.from({ length: 30 }, () => ({ field: "cc", value: "US" }));
    const conjuncts = Array.from({ length: 21 }, () => ({ field: "cc", match: "US" }));
    expect(() => read({ aq, bq: { must: { conjuncts } } })).toThrow(
      "bq.must.conjuncts: takes at most 50 conditions together with aq's; got 21 and 30",
    );
  });

  it("names an or or not term that GraphQL refuses after bq's", () => {
    expect(optionOfArgument(DOMAIN_TABLES, "filter.or[1].countryCode.values")).toBe(
      "f:cc (bq.should.disjuncts[1])",
    );
    expect(optionOfArgument(DOMAIN_TABLES, "filter.not[0].estimatedSales.max")).toBe(
      "f:ermax (bq.must_not.disjuncts[0])",
    );
    expect(optionOfArgument(DOMAIN_TABLES, "filter.and[2].platform")).toBe("f:p (aq[2])");
  });

  it.each([
    ["not an object", [], /^bq: must be an object \{must, should, must_not\}; got \[\]$/],
    ["nothing", {}, /^bq: needs must, should or must_not$/],
    ["an unknown clause", { mustNot: {} }, /^bq: unknown key "mustNot" \(did you mean "must_not"/],
    ["conjuncts missing", { must: { disjuncts: [] } }, /^bq\.must: unknown key "disjuncts"/],
    [
      "no condition",
      { should: { disjuncts: [] } },
      /^bq\.should\.disjuncts: must be a list of at least one condition$/,
    ],
    [
      "a min of 2",
      { should: { disjuncts: [{ field: "cc", match: "US" }], min: 2 } },
      /^bq\.should\.min: only 0 or 1/,
    ],
    [
      "too many",
      must(...Array.from({ length: 51 }, () => ({ field: "cc", match: "US" }))),
      /^bq\.must\.conjuncts: takes at most 50 conditions$/,
    ],
    [
      "an unknown field",
      {
        must: {
          conjuncts: [
            { field: "cc", match: "US" },
            { field: "p", match: "1" },
            { field: "country", match: "US" },
          ],
        },
      },
      /^bq\.must\.conjuncts\[2\]\.field: unknown field "country" \(did you mean "cc"\?\); filters: q, an, /,
    ],
    [
      "a range by its words",
      must({ field: "sales", min: 1 }),
      /^bq\.must\.conjuncts\[0\]\.field: unknown field "sales" \(did you mean .*"er"/,
    ],
    [
      "a field that is no string",
      must({ field: 7, match: "US" }),
      /^bq\.must\.conjuncts\[0\]\.field: must name a filter/,
    ],
    [
      "an unknown key",
      must({ field: "cc", match: "US", fuzziness: 1 }),
      /^bq\.must\.conjuncts\[0\]: unknown key "fuzziness"; keys: field, match, /,
    ],
    [
      "a nested query",
      must({ disjuncts: [{ field: "cc", match: "US" }] }),
      /^bq\.must\.conjuncts\[0\]: a nested query is not read/,
    ],
    ["neither values nor range", must({ field: "cc" }), /^bq\.must\.conjuncts\[0\]: needs match or term/],
    [
      "both",
      must({ field: "er", match: "1", min: 1 }),
      /^bq\.must\.conjuncts\[0\]: is a range \(min, max\) or a match/,
    ],
    [
      "match and term",
      must({ field: "cc", match: "US", term: "GB" }),
      /^bq\.must\.conjuncts\[0\]: takes match or term, not both$/,
    ],
    [
      "a range given values",
      must({ field: "er", match: "5" }),
      /^bq\.must\.conjuncts\[0\]\.field: "er" is a range: give min, max or both/,
    ],
    [
      "a list given bounds",
      must({ field: "cratyyyymm", min: "2020-01" }),
      /^bq\.must\.conjuncts\[0\]\.field: "cratyyyymm" is no range: it takes match or term \(did you mean "crat"\?\)/,
    ],
    [
      "an unknown operator",
      must({ field: "cc", match: "US", operator: "xor" }),
      /^bq\.must\.conjuncts\[0\]\.operator: must be or or and; got "xor"$/,
    ],
    [
      "a value the filter refuses",
      must({ field: "p", match: "shopfy" }),
      /^bq\.must\.conjuncts\[0\]\.match: unknown platform "shopfy" \(did you mean "shopify"/,
    ],
    [
      "and of two countries",
      must({ field: "cc", match: "US GB", operator: "and" }),
      /^bq\.must\.conjuncts\[0\]\.match: a record has only one country code/,
    ],
    ["no value", must({ field: "cc", match: "   " }), /^bq\.must\.conjuncts\[0\]\.match: names no value$/],
    [
      "a match that is no string",
      must({ field: "cc", match: ["US"] }),
      /^bq\.must\.conjuncts\[0\]\.match: must be a string of space-separated values/,
    ],
    [
      "a text bound of a number",
      must({ field: "er", min: "5" }),
      /^bq\.must\.conjuncts\[0\]\.min: must be a number; got "5"$/,
    ],
    [
      "a bound that is no time",
      must({ field: "crat", max: "March" }),
      /^bq\.must\.conjuncts\[0\]\.max: must be a date YYYY-MM-DD or an RFC 3339 timestamp; got "March"$/,
    ],
    [
      "an inclusive that is no boolean",
      must({ field: "er", min: 1, inclusive_min: "yes" }),
      /^bq\.must\.conjuncts\[0\]\.inclusive_min: must be true or false/,
    ],
    [
      "no bound",
      must({ field: "er", inclusive_min: true }),
      /^bq\.must\.conjuncts\[0\]: needs min, max or both$/,
    ],
    [
      "an empty range",
      must({ field: "er", min: 5, max: 6, inclusive_min: false }),
      /^bq\.must\.conjuncts\[0\]: no value is within it \(min 5 exclusive, max 6 exclusive\)$/,
    ],
    [
      "min over max",
      must({ field: "crat", min: "2024-03-02", max: "2024-03-01", inclusive_max: true }),
      /^bq\.must\.conjuncts\[0\]: no value is within it/,
    ],
    [
      "an unsafe integer",
      must({ field: "er", min: 2 ** 60 }),
      /^bq\.must\.conjuncts\[0\]\.min: must be within/,
    ],
    [
      "q outside must",
      { must_not: { disjuncts: [{ field: "q", match: "shop" }] } },
      /^bq\.must_not\.disjuncts\[0\]\.field: q is a search, read only in must$/,
    ],
    [
      "q with or",
      must({ field: "q", match: "a b", operator: "or" }),
      /^bq\.must\.conjuncts\[0\]\.operator: q takes only and/,
    ],
    [
      "an event filter",
      must({ field: "app_installed_at", term: "shopify.klaviyo", min: "2024-01-01" }),
      /^bq\.must\.conjuncts\[0\]\.field: "app_installed_at" is an option of its own \(f:app_installed_at\), which bq does not hold; filters: q, an, /,
    ],
    [
      "a list of the account in should",
      { should: { disjuncts: [{ field: "list", term: "mine" }] } },
      /^bq\.should\.disjuncts\[0\]\.field: "list" is read only in must_not \(the Domains not in it\); to keep only its Domains give f:list$/,
    ],
    [
      "a segment of the account in must",
      must({ field: "segment", term: "us-plus" }),
      /^bq\.must\.conjuncts\[0\]\.field: "segment" is read only in must_not .*give f:segment$/,
    ],
    [
      "a list of the account by two names",
      { must_not: { disjuncts: [{ field: "list", match: "mine yours" }] } },
      /^bq\.must_not\.disjuncts\[0\]\.match: "list" takes one name; got 2$/,
    ],
    [
      "a list of the account with an operator",
      { must_not: { disjuncts: [{ field: "list", term: "mine", operator: "and" }] } },
      /^bq\.must_not\.disjuncts\[0\]\.operator: "list" takes one name: no operator$/,
    ],
    [
      "a segment as a range",
      { must_not: { disjuncts: [{ field: "segment", min: 1 }] } },
      /^bq\.must_not\.disjuncts\[0\]: "segment" takes a name \(term\), not min or max$/,
    ],
  ])("refuses %s, naming the part", (_label, bq, message) => {
    expect(refusal(bq)).toMatch(message);
  });
});

// ---------------------------------------------------------------------------------------------
// Through the API

const scratch = tempDir("storegraph-rest-bq-");
let oracle: Oracle;
let domains: DomainRecord[];

beforeAll(async () => {
  await generateDataset({ domains: 2000, apps: 60, seed: 5252, outDir: scratch.dir });
  oracle = oracleOf(scratch.dir);
  domains = [...oracle.domains];
});

afterAll(() => scratch.remove());

/** The list filters a random bq draws, by option: the values a record has. */
const LIST_VALUES: Record<string, (d: DomainRecord) => readonly (string | undefined)[]> = {
  p: (d) => [d.platform],
  cc: (d) => [d.country_code],
  cat: (d) => d.categories ?? [],
  features: (d) => d.features ?? [],
  tags: (d) => d.tags ?? [],
  ds: (d) => [d.state],
  lang: (d) => [d.language_code],
  tech: (d) => (d.technologies ?? []).map((t) => t.name),
  it: (d) => (d.contact_info ?? []).map((c) => c.type),
  cratyyyymm: (d) => [d.created_at.slice(0, 7)],
};
/** The range filters it draws, by option: the record's value. */
const INT_VALUES: Record<string, (d: DomainRecord) => number | undefined> = {
  er: (d) => d.estimated_sales,
  pc: (d) => d.product_count,
  rank: (d) => d.rank,
  empc: (d) => d.employee_count,
  avgpp: (d) => d.avg_price,
  mas: (d) => d.monthly_app_spend,
  ev: (d) => d.estimated_visits,
};
const TIME_VALUES: Record<string, (d: DomainRecord) => string | undefined> = {
  crat: (d) => d.created_at,
  last_plan_change_at: (d) => d.last_plan_change_at,
  last_platform_change_at: (d) => d.last_platform_change_at,
};

/** The catalogue's name of a filter option (the oracle's filter of the same name). */
function filterName(option: string): string {
  const all = { ...DOMAIN_LIST_FILTERS, ...DOMAIN_RANGE_FILTERS };
  const found = Object.entries(all).find(([, s]) => s.legacy === `f:${option}`);
  if (!found) throw new Error(`no filter f:${option}`);
  return found[0];
}

type Condition = Record<string, unknown> & { field: string };
interface RandomBq {
  must: Condition[];
  should: Condition[];
  mustNot: Condition[];
}

const bqOf = (r: RandomBq) => ({
  ...(r.must.length ? { must: { conjuncts: r.must } } : {}),
  ...(r.should.length ? { should: { disjuncts: r.should } } : {}),
  ...(r.mustNot.length ? { must_not: { disjuncts: r.mustNot } } : {}),
});

/** Distinct values, most frequent first. */
function ranked(values: (d: DomainRecord) => readonly (string | undefined)[]): string[] {
  const counts = new Map<string, number>();
  for (const d of domains) for (const v of new Set(values(d))) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([v]) => v);
}

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * What a condition means for one record, read from the record: a list condition as its f: filter
 * (the oracle's), a range by comparing the record's value with the bounds as written (a date
 * standing for its whole day).
 */
function holds(d: DomainRecord, c: Condition): boolean {
  if (c.field in INT_VALUES || c.field in TIME_VALUES) {
    const time = c.field in TIME_VALUES;
    const raw = time ? TIME_VALUES[c.field](d) : INT_VALUES[c.field](d);
    if (raw === undefined) return false;
    const v = typeof raw === "string" ? epochMs(raw) : raw;
    // A date's first and last instant; a number or timestamp is both.
    const ends = (b: unknown): [number, number] =>
      typeof b === "string"
        ? DATE_ONLY.test(b)
          ? [epochMs(b), epochMs(b) + DAY_MS - 1]
          : [epochMs(b), epochMs(b)]
        : [b as number, b as number];
    if (c.min !== undefined) {
      const [first, last] = ends(c.min);
      if (c.inclusive_min === false ? v <= last : v < first) return false;
    }
    if (c.max !== undefined) {
      const [first, last] = ends(c.max);
      if (c.inclusive_max === true ? v > last : v >= first) return false;
    }
    return true;
  }
  return oracle.domainMatches(d, { [filterName(c.field)]: listInput(c) } as DomainFilterInput);
}

/** A list condition as the oracle's list filter: its values (platform ids as names) and op. */
function listInput(c: Condition): ListInput {
  const values =
    c.term !== undefined
      ? [String(c.term)]
      : String(c.match)
          .split(" ")
          .filter((v) => v !== "")
          .map((v) => v.split("...").join(" "));
  const named = c.field === "p" ? values.map((v) => PLATFORM_IDS.get(v) ?? v) : values;
  return { values: named, op: c.operator === "and" ? "AND" : "OR" };
}

/** The Domains a bq selects, in List Domains' default order; or null when the API must refuse it. */
function expectedOf(r: RandomBq): string[] | null {
  for (const c of [...r.must, ...r.should, ...r.mustNot]) {
    if (c.field in INT_VALUES || c.field in TIME_VALUES) continue;
    if (oracle.domainProblem({ filter: { [filterName(c.field)]: listInput(c) } as DomainFilterInput }))
      return null;
  }
  const byName = new Map(domains.map((d) => [d.name, d]));
  return oracle.domainNames().filter((name) => {
    const d = byName.get(name) as DomainRecord;
    return (
      r.must.every((c) => holds(d, c)) &&
      (r.should.length === 0 || r.should.some((c) => holds(d, c))) &&
      !r.mustNot.some((c) => holds(d, c))
    );
  });
}

/** A random condition: a list filter's values (match or term), or a range with any bounds. */
function conditionArbitrary(): fc.Arbitrary<Condition> {
  const list = fc.constantFrom(...Object.keys(LIST_VALUES)).chain((field) => {
    const present = ranked(LIST_VALUES[field]).slice(0, 6);
    // A platform by its id where it has one; now and then a value no record has, or one refused.
    const value = fc
      .oneof(
        { weight: 40, arbitrary: fc.constantFrom(...present) },
        { weight: 1, arbitrary: fc.constant(field === "p" ? "shopify" : "No such value") },
        { weight: 1, arbitrary: fc.constant(field === "cc" ? "USA" : "zz") },
      )
      .map((v) => {
        const id = field === "p" ? [...PLATFORM_IDS].find(([, p]) => p === v)?.[0] : undefined;
        return id ?? v;
      });
    return fc
      .tuple(
        fc.array(value, { minLength: 1, maxLength: 3 }),
        fc.constantFrom("or", "or", "and", undefined),
        fc.boolean(),
      )
      .map(([values, operator, asTerm]): Condition => {
        if (asTerm && values.length === 1) return { field, term: values[0] };
        const match = values.map((v) => v.split(" ").join("...")).join(" ");
        return {
          field,
          match,
          ...(operator ? { operator } : {}),
          ...(operator ? {} : { analyzer: "advanced" }),
        };
      });
  });
  const inclusive = fc.constantFrom(true, false, undefined);
  const withFlags = (c: Condition, lo: boolean | undefined, hi: boolean | undefined): Condition => ({
    ...c,
    ...(lo === undefined ? {} : { inclusive_min: lo }),
    ...(hi === undefined ? {} : { inclusive_max: hi }),
  });
  const int = fc.constantFrom(...Object.keys(INT_VALUES)).chain((field) => {
    const values = domains.map(INT_VALUES[field]).filter((v): v is number => v !== undefined);
    // Bounds on a record's value, or half-way between two integers.
    const bound = fc
      .tuple(fc.constantFrom(...values), fc.constantFrom(0, 0, 0.5, -0.5))
      .map(([v, d]) => v + d);
    return fc
      .tuple(bound, bound, fc.integer({ min: 0, max: 2 }), inclusive, inclusive)
      .map(([a, b, ends, lo, hi]) => {
        const [min, max] = a <= b ? [a, b] : [b, a];
        // An integer strictly within, however the ends are read (an empty range is refused, below).
        const roomy = Math.floor(max) - Math.ceil(min) >= 2;
        const c = { field, ...(ends !== 1 ? { min } : {}), ...(ends !== 0 ? { max } : {}) };
        return ends === 2 && !roomy ? { field, min } : withFlags(c, lo, hi);
      });
  });
  const time = fc.constantFrom(...Object.keys(TIME_VALUES)).chain((field) => {
    const values = domains.map(TIME_VALUES[field]).filter((v): v is string => v !== undefined);
    const bound = fc
      .tuple(fc.constantFrom(...values), fc.boolean())
      .map(([v, day]) => (day ? v.slice(0, 10) : v));
    return fc
      .tuple(bound, bound, fc.integer({ min: 0, max: 2 }), inclusive, inclusive)
      .map(([a, b, ends, lo, hi]) => {
        const [min, max] = epochMs(a) <= epochMs(b) ? [a, b] : [b, a];
        const roomy = epochMs(max) - epochMs(min) > 3 * DAY_MS;
        const c = { field, ...(ends !== 1 ? { min } : {}), ...(ends !== 0 ? { max } : {}) };
        return ends === 2 && !roomy ? { field, max } : withFlags(c, lo, hi);
      });
  });
  return fc.oneof(
    { weight: 3, arbitrary: list },
    { weight: 1, arbitrary: int },
    { weight: 1, arbitrary: time },
  );
}

function bqArbitrary(): fc.Arbitrary<RandomBq> {
  const conditions = (max: number) => fc.array(conditionArbitrary(), { maxLength: max });
  return fc
    .record({ must: conditions(3), should: conditions(3), mustNot: conditions(2) })
    .filter((r) => r.must.length + r.should.length + r.mustNot.length > 0);
}

describe("writeBq", () => {
  it("is parseBq's inverse: a random bq's should and must_not, read, written and read again, are the same terms", () => {
    let read = 0;
    fc.assert(
      fc.property(bqArbitrary(), (r) => {
        if (r.should.length + r.mustNot.length === 0) return;
        const given = {
          ...(r.should.length ? { should: { disjuncts: r.should } } : {}),
          ...(r.mustNot.length ? { must_not: { disjuncts: r.mustNot } } : {}),
        };
        let terms: ReturnType<typeof parseBq>;
        try {
          terms = parseBq(given, DOMAIN_TABLES);
        } catch {
          return; // a value the filter refuses
        }
        read++;
        const written = writeBq(terms, DOMAIN_TABLES);
        expect(written.and).toEqual([]);
        expect(parseBq(written.bq, DOMAIN_TABLES)).toEqual({ ...terms, and: [] });
        // Written once, it is written the same again.
        expect(writeBq(parseBq(written.bq, DOMAIN_TABLES), DOMAIN_TABLES)).toEqual(written);
      }),
      { numRuns: 300 },
    );
    expect(read).toBeGreaterThan(100);
  });

  it("writes a value match cannot spell as term when it is alone, and leaves several such as a list parseBq refuses", () => {
    const alone = { or: [{ categories: { values: ["St. Louis\tcafe"], op: "OR" } }] };
    const { bq } = writeBq(alone, DOMAIN_TABLES);
    expect(bq).toEqual({ should: { disjuncts: [{ field: "cat", term: "St. Louis\tcafe" }] } });
    expect(parseBq(bq, DOMAIN_TABLES).or).toEqual(alone.or);
    const values = ["St. Louis", "Home Garden"];
    const several = writeBq({ not: [{ categories: { values, op: "AND" } }] }, DOMAIN_TABLES).bq;
    expect(several).toEqual({
      must_not: { disjuncts: [{ field: "cat", match: values, operator: "and" }] },
    });
    expect(refusal(several)).toMatch(/^bq\.must_not\.disjuncts\[0\]\.match: must be a string/);
    // Spelled with ..., the same values read otherwise: a value beside dots loses its space.
    const spelled = { must_not: { disjuncts: [{ field: "cat", match: "St....Louis Home...Garden" }] } };
    expect(parseBq(spelled, DOMAIN_TABLES).not).toEqual([
      { categories: { values: ["St .Louis", "Home Garden"], op: "OR" } },
    ]);
  });
});

interface Page {
  domains: { name: string }[];
  has_next_page: boolean;
  next_cursor?: string;
}

describe("the random bq", () => {
  it("draws a mix worth paging: most bq accepted, many selecting some Domains and not all, some refused", () => {
    const draws = fc.sample(bqArbitrary(), 1000).map(expectedOf);
    const accepted = draws.filter((e) => e !== null);
    const selective = accepted.filter((e) => e.length > 0 && e.length < domains.length);
    // Of 1000 draws about 700 are accepted, 600 of them selective, and 300 refused (standard
    // deviation about 15): bounds far below those fail only when the arbitrary changes.
    expect(accepted.length).toBeGreaterThan(500);
    expect(selective.length).toBeGreaterThan(300);
    expect(1000 - accepted.length).toBeGreaterThan(10);
  });
});

describe.each(databaseKinds())("bq through the API (%s)", (kind) => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi(kind, scratch.dir);
  });

  afterAll(async () => {
    await api?.close();
  });

  const get = (path: string, params: Record<string, string>) =>
    api.app.fetch(`${BASE}${path}?${new URLSearchParams(params)}`);

  /** Every page of List Domains for `params`, followed by next_cursor: the names, in order. */
  async function pageThrough(params: Record<string, string>, pageSize: number): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; ; pages++) {
      const res = await get("", {
        ...params,
        fields: "name",
        page_size: String(pageSize),
        ...(cursor ? { cursor } : {}),
      });
      const body = (await res.json()) as Page;
      expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(200);
      names.push(...body.domains.map((d) => d.name));
      if (!body.has_next_page) return names;
      expect(body.domains).toHaveLength(pageSize);
      cursor = body.next_cursor;
      if (pages > 500) throw new Error("the cursor does not advance");
    }
  }

  it("a random bq selects what it means over the records, paged with cursor", async () => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(bqArbitrary(), fc.constantFrom(150, 400, 1000), async (r, pageSize) => {
        const bq = JSON.stringify(bqOf(r));
        const expected = expectedOf(r);
        if (expected === null) {
          const res = await get("", { bq });
          const body = (await res.json()) as { error: string; code: string };
          expect(res.status, bq).toBe(400);
          expect(body.code).toBe("BAD_USER_INPUT");
          expect(body.error).toMatch(
            /^bq\.(must\.conjuncts|should\.disjuncts|must_not\.disjuncts)\[\d+\]\.(match|term): /,
          );
          refused++;
          return;
        }
        expect(await pageThrough({ bq }, pageSize), bq).toEqual(expected);
        accepted++;
      }),
      { numRuns: 30 },
    );
    // Thirty draws are too few to count on a mix (a run once drew 12 accepted); the mix is the
    // arbitrary's, checked over many draws above, and every draw here is checked whichever it is.
    expect(accepted + refused).toBe(30);
    expect(accepted).toBeGreaterThan(0);
  });

  it("means the same as the equivalent f: and aq options, and pages alike", async () => {
    const countries = ranked(LIST_VALUES.cc).slice(0, 3);
    const [a, b] = ranked(LIST_VALUES.cat);
    const sales = domains
      .map((d) => d.estimated_sales)
      .filter((v): v is number => v !== undefined)
      .sort((x, y) => x - y);
    const [lo, hi] = [sales[Math.floor(sales.length / 4)], sales[Math.floor((sales.length * 3) / 4)]];
    const bq = JSON.stringify(
      must(
        { field: "p", operator: "or", analyzer: "advanced", match: "1" },
        { field: "er", min: lo, max: hi, inclusive_min: true, inclusive_max: true },
        { field: "cc", operator: "or", analyzer: "advanced", match: countries.join(" ") },
        { field: "cat", operator: "or", match: [a, b].map((c) => c.split(" ").join("...")).join(" ") },
      ),
    );
    const options = {
      "f:p": "shopify",
      "f:ermin": String(lo),
      "f:ermax": String(hi),
      "f:cc": countries.join(","),
      "f:cc:op": "or",
      aq: JSON.stringify([{ field: "cat", value: [a, b].join(","), operator: "or" }]),
    };
    const viaOptions = await pageThrough(options, 1000);
    expect(viaOptions.length).toBeGreaterThan(10);
    expect(await pageThrough({ bq }, 25)).toEqual(viaOptions);

    // must_not of a list is aq's nor; of several lists, each one's.
    const not = JSON.stringify({
      must: { conjuncts: [{ field: "p", term: "shopify" }] },
      must_not: {
        disjuncts: [
          { field: "cc", match: countries.join(" ") },
          { field: "ds", term: "Inactive" },
        ],
      },
    });
    const aq = JSON.stringify([
      { field: "p", value: "shopify" },
      { field: "cc", value: countries.join(","), operator: "nor" },
      { field: "ds", value: "Inactive", operator: "nor" },
    ]);
    expect(await pageThrough({ bq: not }, 1000)).toEqual(await pageThrough({ aq }, 1000));

    // bq joins the f: options and aq with AND.
    const both = await pageThrough(
      { bq: not, "f:cc": countries[0], aq: JSON.stringify([{ field: "q", value: "shop" }]) },
      1000,
    );
    expect(both).toEqual([]);
    const withOthers = await pageThrough({ bq, q: "the", "f:ds": "Active" }, 1000);
    expect(withOthers).toEqual(await pageThrough({ ...options, q: "the", "f:ds": "Active" }, 1000));
  });

  it("a cursor goes on with the same bq only", async () => {
    const bq = JSON.stringify({
      should: {
        disjuncts: [
          { field: "p", match: "1" },
          { field: "rank", max: 400 },
        ],
      },
    });
    const first = (await (await get("", { bq, page_size: "20", fields: "name" })).json()) as Page;
    expect(first.has_next_page).toBe(true);
    const cursor = first.next_cursor as string;
    expect((await get("", { bq, page_size: "20", cursor })).status).toBe(200);
    const other = JSON.stringify({
      should: {
        disjuncts: [
          { field: "p", match: "1" },
          { field: "rank", max: 401 },
        ],
      },
    });
    const res = await get("", { bq: other, page_size: "20", cursor });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/cursor/);
  });

  it("Export Domains, cursor=all and POST take it too", async () => {
    const r: RandomBq = {
      must: [{ field: "crat", min: domains[0].created_at.slice(0, 10), inclusive_min: false }],
      should: [
        { field: "p", match: "1" },
        { field: "tags", term: ranked(LIST_VALUES.tags)[0] },
      ],
      mustNot: [{ field: "er", max: 1000, inclusive_max: true }],
    };
    const expected = expectedOf(r) as string[];
    expect(expected.length).toBeGreaterThan(5);
    const res = await get("/export", { bq: JSON.stringify(bqOf(r)), fields: "name" });
    expect(res.status).toBe(200);
    const lines = (await res.text()).split("\n").filter((l) => l !== "");
    expect(lines.map((l) => (JSON.parse(l) as { name: string }).name)).toEqual(expected);

    const post = await api.app.fetch(BASE, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ bq: bqOf(r), fields: "name", page_size: 1000 }),
    });
    expect(((await post.json()) as Page).domains.map((d) => d.name)).toEqual(expected);

    // cursor=all: 202 with the total, polled to 200 with every Domain.
    const job = () => get("", { bq: JSON.stringify(bqOf(r)), fields: "name", cursor: "all" });
    let answer = await job();
    expect(answer.status).toBe(202);
    expect(((await answer.json()) as { total: number }).total).toBe(expected.length);
    for (let polls = 0; answer.status === 202 && polls < 300; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await job();
    }
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as Page).domains.map((d) => d.name)).toEqual(expected);
  });

  it("the facets of a bq count its Domains, as those of the equivalent options", async () => {
    const country = ranked(LIST_VALUES.cc)[0];
    const r: RandomBq = {
      must: [{ field: "p", match: "1 2", operator: "or" }],
      should: [
        { field: "cc", term: country },
        { field: "empc", min: 10 },
      ],
      mustNot: [{ field: "ev", min: 1000 }],
    };
    const expected = expectedOf(r) as string[];
    const res = await get("/facets", { bq: JSON.stringify(bqOf(r)), facets: "cc,p" });
    const body = (await res.json()) as {
      total: number;
      facets: Record<string, { value: string; count: number }[]>;
    };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.total).toBe(expected.length);
    const chosen = new Set(expected);
    for (const { value, count } of body.facets.cc) {
      expect(count, value).toBe(domains.filter((d) => chosen.has(d.name) && d.country_code === value).length);
    }

    const bq = JSON.stringify(must({ field: "p", match: "1" }, { field: "cc", match: country }));
    const viaBq = await (await get("/facets", { bq, facets: "cat,tags", histogram: "er:3" })).json();
    const viaOptions = await (
      await get("/facets", { "f:p": "shopify", "f:cc": country, facets: "cat,tags", histogram: "er:3" })
    ).json();
    expect(viaBq).toEqual(viaOptions);
  });

  it("refuses what it cannot read with a 400 naming the part, in a query string or a body", async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { bq: '{"must":{"conjuncts":[{"field":"country","match":"US"}]}}' },
        /^bq\.must\.conjuncts\[0\]\.field: unknown field "country" \(did you mean "cc"\?\)/,
      ],
      [{ bq: '{"must":{"conjuncts":[' }, /^bq: must be JSON \(URL-encoded in a query string\); /],
      [
        { bq: '{"must_not":{"disjuncts":[{"field":"er","min":"x"}]}}' },
        /^bq\.must_not\.disjuncts\[0\]\.min: must be a number/,
      ],
      [
        { bq: JSON.stringify(must({ field: "p", match: "0" })) },
        /^bq\.must\.conjuncts\[0\]\.match: unknown platform id "0"/,
      ],
    ];
    for (const [params, message] of cases) {
      for (const path of ["", "/export", "/facets"]) {
        const res = await get(path, params);
        const body = (await res.json()) as { error: string; code: string };
        expect(res.status, `${path} ${JSON.stringify(params)}`).toBe(400);
        expect(body.code).toBe("BAD_USER_INPUT");
        expect(body.error).toMatch(message);
      }
    }
    const all = await get("", {
      bq: JSON.stringify({ must_not: { disjuncts: [{ field: "tags", term: "Hot" }] } }),
      cursor: "all",
    });
    expect(all.status).toBe(400);
    expect(((await all.json()) as { error: string }).error).toMatch(
      /^bq\.must_not\.disjuncts\[0\]\.term: unknown tag "Hot"/,
    );
    const post = await api.app.fetch(BASE, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        bq: { should: { disjuncts: [{ field: "cc", match: "US", operator: "nor" }] } },
      }),
    });
    expect(post.status).toBe(400);
    expect(((await post.json()) as { error: string }).error).toBe(
      'bq.should.disjuncts[0].operator: must be or or and; got "nor"',
    );
  });
});
