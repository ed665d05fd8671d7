import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import type { AppRecord, DomainRecord } from "../../src/dataset/record.ts";
import { FACET_COLUMNS } from "../../src/db/facet-sql.ts";
import { TABLES } from "../../src/db/tables.ts";
import { RELATIONS } from "../../src/db/where-sql.ts";
import { DOMAIN_LIST_FILTERS, DOMAIN_RANGE_FILTERS } from "../../src/query/domain-filter.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { readJsonl } from "../support/jsonl.ts";

// Facets and histograms (src/query/facets.ts) against a brute-force count: for random filters
// (every op, ranges, q and aq), the counts of GET /domain/facets equal those counted here over
// GET /domain/export of the same filter options, and /app/facets over the pages of List Apps.
// Values are drawn from the generated data; nothing is hard-coded.

const scratch = tempDir("storegraph-facets-");
const second = tempDir("storegraph-facets-2-");
let domains: DomainRecord[];
let apps: AppRecord[];

beforeAll(async () => {
  await generateDataset({ domains: 300, apps: 40, seed: 11, outDir: scratch.dir });
  await generateDataset({ domains: 120, apps: 20, seed: 12, outDir: second.dir });
  domains = readJsonl<DomainRecord>(join(scratch.dir, "domains.jsonl"));
  apps = readJsonl<AppRecord>(join(scratch.dir, "apps.jsonl"));
}, 60_000);

afterAll(() => {
  scratch.remove();
  second.remove();
});

// ------------------------------------------------------------------ the brute force

type Exported = Record<string, unknown>;
const text = (v: unknown) => (typeof v === "string" && v !== "" ? [v] : []);
const list = (v: unknown) => [...new Set(((v as string[] | undefined) ?? []).filter((x) => x !== ""))];

/** Each Domain dimension's values of an exported Domain, by its REST option. */
const DOMAIN_VALUES: Record<string, (d: Exported) => string[]> = {
  cc: (d) => text(d.country_code),
  reg: (d) => text(d.region),
  sreg: (d) => text(d.subregion),
  administrative_area_level_1: (d) => text(d.administrative_area_level_1),
  city: (d) => text(d.city),
  curr: (d) => text(d.currency_code),
  lang: (d) => text(d.language_code),
  p: (d) => text(d.platform),
  plan: (d) => text(d.plan),
  ds: (d) => text(d.state),
  tn: (d) => text((d.theme as { name?: string } | undefined)?.name),
  cratyyyymm: (d) => [String(d.created_at).slice(0, 7)],
  cat: (d) => list(d.categories),
  features: (d) => list(d.features),
  tags: (d) => list(d.tags),
  sc: (d) => list(d.sales_channels),
  stc: (d) => list(d.ships_to_countries),
  it: (d) => list(((d.contact_info as { type: string }[] | undefined) ?? []).map((c) => c.type)),
  tech: (d) => list(((d.technologies as { name: string }[] | undefined) ?? []).map((t) => t.name)),
  an: (d) =>
    list(
      ((d.apps as { platform: string; token: string; removed_at?: string }[] | undefined) ?? [])
        .filter((a) => a.removed_at === undefined || a.removed_at === null)
        .map((a) => `${a.platform}.${a.token}`),
    ),
};
const DOMAIN_FIELDS =
  "name,country_code,region,subregion,administrative_area_level_1,city,currency_code,language_code,platform,plan,state,theme,created_at,categories,features,tags,sales_channels,ships_to_countries,contact_info,technologies,apps,estimated_sales,rank,product_count";

const APP_VALUES: Record<string, (a: Exported) => string[]> = {
  p: (a) => text(a.platform),
  categories: (a) => list(a.categories),
  as: (a) => text(a.state),
  vcc: (a) => text(a.vendor_country_code),
  pricing: (a) => {
    const plans = (a.plans as { monthly_cost_cents?: number }[] | undefined) ?? [];
    return list([
      ...plans.map((p) => ((p.monthly_cost_cents ?? 0) > 0 ? "paid" : "free")),
      ...(plans.length ? [] : ["free"]),
      ...(a.free_trial_duration ? ["trial"] : []),
    ]);
  },
};

const byCountThenValue = (a: [string, number], b: [string, number]) =>
  b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** The facet of `values` over `records`, as the API defines it. */
function expectedFacet(records: Exported[], values: (r: Exported) => string[], size: number) {
  const counts = new Map<string, number>();
  const of = records.map(values);
  for (const vs of of) for (const v of vs) counts.set(v, (counts.get(v) ?? 0) + 1);
  const top = [...counts].sort(byCountThenValue).slice(0, size);
  const listed = new Set(top.map(([v]) => v));
  const valued = of.filter((vs) => vs.length > 0);
  const covered = valued.filter((vs) => vs.some((v) => listed.has(v))).length;
  return {
    values: top.map(([value, count]) => ({ value, count })),
    other: valued.length - covered,
    missing: records.length - valued.length,
  };
}

/** Every dimension of `table` in `answer` as counted here over `records`. */
function expectFacets(
  answer: FacetAnswer,
  records: Exported[],
  table: Record<string, (r: Exported) => string[]>,
  size: number,
) {
  for (const [option, values] of Object.entries(table)) {
    const want = expectedFacet(records, values, size);
    expect({ option, values: answer.facets[option] }).toEqual({ option, values: want.values });
    expect([option, answer.other[option], answer.missing[option]]).toEqual([
      option,
      want.other,
      want.missing,
    ]);
  }
}

interface FacetAnswer {
  total: number;
  facets: Record<string, { value: string; count: number }[]>;
  other: Record<string, number>;
  missing: Record<string, number>;
  histograms: Record<string, { from: number; to: number; count: number }[]>;
}

/** Checks a histogram's buckets against the values: contiguous, and each count right. */
function checkHistogram(
  answer: FacetAnswer,
  option: string,
  numbers: (number | null)[],
  given: number[] | null,
) {
  const buckets = answer.histograms[option];
  const known = numbers.filter((n): n is number => n !== null);
  expect(answer.missing[option]).toBe(numbers.length - known.length);
  for (let i = 1; i < buckets.length; i++) expect(buckets[i].from).toBe(buckets[i - 1].to);
  for (const b of buckets) expect(b.count).toBe(known.filter((n) => n >= b.from && n < b.to).length);
  if (given) {
    expect([buckets[0]?.from, ...buckets.map((b) => b.to)]).toEqual(given);
    expect(answer.other[option]).toBe(
      known.filter((n) => n < given[0] || n >= given[given.length - 1]).length,
    );
  } else if (known.length) {
    // Chosen bounds cover every value.
    expect(buckets[0].from).toBe(Math.min(...known));
    expect(buckets[buckets.length - 1].to).toBe(Math.max(...known) + 1);
    expect(answer.other[option]).toBe(0);
  } else expect(buckets).toEqual([]);
}

// ------------------------------------------------------------------ random filters

const q = encodeURIComponent;
const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const valuesOf = (f: (d: DomainRecord) => (string | undefined)[]) => () =>
  [...new Set(domains.flatMap((d) => f(d).filter((v): v is string => !!v)))].sort();

/** One random filter option (or two, for a range), as query-string parts. */
function domainFilter(): fc.Arbitrary<string> {
  const countries = valuesOf((d) => [d.country_code])();
  const platforms = valuesOf((d) => [d.platform])();
  const categories = valuesOf((d) => d.categories ?? [])();
  const techs = valuesOf((d) => (d.technologies ?? []).map((t) => t.name))();
  const installed = valuesOf((d) =>
    (d.apps ?? []).filter((a) => a.removed_at === undefined).map((a) => `${a.platform}.${a.token}`),
  )();
  const words = valuesOf((d) => [/^[a-z]{3,}/.exec(d.name)?.[0]])();
  const sales = domains
    .map((d) => d.estimated_sales)
    .filter((n): n is number => n != null)
    .sort((a, b) => a - b);
  const listOption = (option: string, values: string[], exclusive: boolean) =>
    fc
      .tuple(fc.uniqueArray(pick(values), { minLength: 1, maxLength: 3 }), pick(["and", "or", "not"]))
      .map(([vs, op]) => {
        const o = exclusive && op === "and" ? "or" : op;
        return `${option}=${q(vs.map((v) => v.replaceAll(",", "\\,")).join(","))}&${option}:op=${o}`;
      });
  return fc.oneof(
    listOption("f:cc", countries, true),
    listOption("f:p", platforms, true),
    listOption("f:cat", categories, false),
    listOption("f:tech", techs, false),
    listOption("f:an", installed, false),
    pick(["Active", "Inactive", "Password Protected"]).map((s) => `f:ds=${q(s)}`),
    fc.tuple(pick(sales), pick(sales)).map(([a, b]) => `f:ermin=${Math.min(a, b)}&f:ermax=${Math.max(a, b)}`),
    fc.integer({ min: 1, max: domains.length }).map((n) => `f:rankmax=${n}`),
    pick(words).map((w) => `q=${q(w)}`),
    // bq: a should of a country and a category (any of them), and a must_not of a range or a
    // technology (three-valued: a Domain without sales is neither in nor out of the range).
    fc.tuple(pick(countries), pick(categories), pick(sales), pick(techs)).map(
      ([cc, cat, er, tech]) =>
        `bq=${q(
          JSON.stringify({
            should: {
              disjuncts: [
                { field: "cc", match: cc, operator: "or" },
                { field: "cat", term: cat },
              ],
            },
            must_not: {
              disjuncts: [
                { field: "er", min: er, inclusive_min: true },
                { field: "tech", term: tech },
              ],
            },
          }),
        )}`,
    ),
    fc
      .tuple(pick(categories), pick(["nand", "nor", "or"]))
      .map(
        ([c, op]) =>
          `aq=${q(JSON.stringify([{ field: "cat", value: c.replaceAll(",", "\\,"), operator: op }]))}`,
      ),
  );
}

/** Distinct options only: a query string names each option once. */
const filters = () =>
  fc
    .uniqueArray(domainFilter(), {
      maxLength: 3,
      selector: (s) =>
        s
          .split("&")
          .map((p) => p.split("=")[0])
          .sort()
          .join(),
    })
    .filter((parts) => {
      const names = parts.flatMap((p) => p.split("&").map((x) => x.split("=")[0]));
      return new Set(names).size === names.length;
    })
    .map((parts) => parts.join("&"));

const techs = valuesOf((d) => (d.technologies ?? []).map((t) => t.name));
const installedApps = valuesOf((d) =>
  (d.apps ?? []).filter((a) => a.removed_at === undefined).map((a) => `${a.platform}.${a.token}`),
);

// ------------------------------------------------------------------ the suites

it("keeps every column a Domain filter tests in the narrow facet columns", () => {
  const narrow = new Set(FACET_COLUMNS.map((c) => TABLES.domain.fields[TABLES.domain.columns.indexOf(c)]));
  const tested = new Set<string>();
  const keys = (w: Record<string, unknown>): void => {
    for (const [k, v] of Object.entries(w)) {
      if (k === "AND" || k === "OR" || k === "NOT")
        for (const x of [v].flat()) keys(x as Record<string, unknown>);
      else if (!(k in (RELATIONS.domain ?? {}))) tested.add(k);
    }
  };
  const sample: Record<string, string> = { createdMonth: "2024-01", createdWeek: "2024-01-05" };
  for (const [name, spec] of Object.entries(DOMAIN_LIST_FILTERS)) keys(spec.any([sample[name] ?? "x"]));
  for (const spec of Object.values(DOMAIN_RANGE_FILTERS)) tested.add(spec.column);
  expect([...tested].filter((f) => !narrow.has(f))).toEqual([]);
  expect(tested.size).toBeGreaterThan(15);
});

describe.each(databaseKinds())("facets on %s", (kind) => {
  let api: TestApi;
  const get = async (path: string) => {
    const res = await api.app.fetch(`http://localhost/json/api/v1/all${path}`);
    return { status: res.status, text: await res.text() };
  };
  const facets = async (query: string) => {
    const r = await get(`/domain/facets?${query}`);
    expect(r.status, r.text).toBe(200);
    return JSON.parse(r.text) as FacetAnswer;
  };
  const exported = async (filter: string): Promise<Exported[]> => {
    const r = await get(`/domain/export?${filter}${filter ? "&" : ""}fields=${DOMAIN_FIELDS}`);
    expect(r.status, r.text).toBe(200);
    return r.text
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l));
  };
  const ALL = Object.keys(DOMAIN_VALUES).join(",");

  beforeAll(async () => {
    api = await startApi(kind, scratch.dir);
  }, 120_000);
  afterAll(() => api?.close());

  it("counts every dimension of random filters as a brute force over the export does", async () => {
    await fc.assert(
      fc.asyncProperty(filters(), fc.integer({ min: 1, max: 12 }), async (filter, size) => {
        const bounds = [0, 1_000_000, 10_000_000, 100_000_000];
        const answer = await facets(
          `${filter}${filter ? "&" : ""}facets=${ALL}&facet_size=${size}&histogram=er:${bounds.join("|")},rank,pc:4`,
        );
        const records = await exported(filter);
        expect(answer.total).toBe(records.length);
        expectFacets(answer, records, DOMAIN_VALUES, size);
        const number = (key: string) => records.map((r) => (r[key] == null ? null : Number(r[key])));
        checkHistogram(answer, "er", number("estimated_sales"), bounds);
        checkHistogram(answer, "rank", number("rank"), null);
        checkHistogram(answer, "pc", number("product_count"), null);
      }),
      {
        numRuns: 25,
        // A large segment whose condition is a disjunction (`not` keeps the unknown values: x OR
        // y), which the statements of child facets must keep apart from their own terms.
        examples: [
          [
            `f:cc=${[...new Set(domains.map((d) => d.country_code).filter(Boolean))].sort()[0]}&f:cc:op=not`,
            3,
          ],
        ],
      },
    );
  }, 300_000);

  it("answers the unfiltered facets from the snapshot's summary, with the same counts", async () => {
    const records = await exported("");
    for (const size of [1, 10, 100]) {
      const answer = await facets(`facets=${ALL}&facet_size=${size}`);
      expect(answer.total).toBe(domains.length);
      expectFacets(answer, records, DOMAIN_VALUES, size);
    }
    // The summary is a table of the snapshot, read for the unfiltered question.
    api.resetQueries();
    await facets("facets=cc&facet_size=57"); // a size no other test asks for: not cached
    expect(
      api.queries.some((s) => s.includes("facet_summary")),
      JSON.stringify(api.queries),
    ).toBe(true);
  });

  it("counts the Apps of random filters as a brute force over List Apps does", async () => {
    const all = async (filter: string): Promise<Exported[]> => {
      const out: Exported[] = [];
      for (let page = 0; ; page++) {
        const r = await get(
          `/app?${filter}&page=${page}&page_size=50&fields=platform,categories,state,vendor_country_code,plans,free_trial_duration,installs`,
        );
        expect(r.status, r.text).toBe(200);
        const got = JSON.parse(r.text).apps as Exported[];
        out.push(...got);
        if (got.length < 50) return out;
      }
    };
    const platforms = [...new Set(apps.map((a) => a.platform))];
    const categories = [...new Set(apps.flatMap((a) => a.categories ?? []))];
    const countries = [...new Set(apps.map((a) => a.vendor_country_code).filter((c): c is string => !!c))];
    const words = [...new Set(apps.flatMap((a) => a.name.toLowerCase().match(/[a-z]{3,}/g) ?? []))];
    const term = fc.oneof(
      pick(platforms).map((p) => `f:p=${q(p)}`),
      pick(categories).map((c) => `f:categories=${q(c.replaceAll(",", "\\,"))}&f:categories:op=not`),
      fc.integer({ min: 0, max: 100 }).map((n) => `f:icmin=${n}`),
      fc.constantFrom("Active", "Inactive").map((st) => `f:as=${st}`),
      fc
        .uniqueArray(pick(countries), { minLength: 1, maxLength: 3 })
        .map((cs) => `f:vcc=${cs.map(q).join(",")}&f:vcc:op=or`),
      pick(words).map((w) => `q=${q(w)}`),
    );
    // Terms of different options (one option given twice would be refused).
    const appFilter = fc.oneof(
      fc.constant(""),
      term,
      fc
        .uniqueArray(term, { minLength: 2, maxLength: 3, selector: (t) => t.split("=")[0] })
        .map((ts) => ts.join("&")),
    );
    await fc.assert(
      fc.asyncProperty(appFilter, fc.integer({ min: 1, max: 5 }), async (filter, size) => {
        const r = await get(
          `/app/facets?${filter}${filter ? "&" : ""}facets=${Object.keys(APP_VALUES).join(",")}&facet_size=${size}&histogram=ic:3`,
        );
        expect(r.status, r.text).toBe(200);
        const answer = JSON.parse(r.text) as FacetAnswer;
        const records = await all(filter);
        expect(answer.total).toBe(records.length);
        expectFacets(answer, records, APP_VALUES, size);
        checkHistogram(
          answer,
          "ic",
          records.map((a) => (a.installs == null ? null : Number(a.installs))),
          null,
        );
      }),
      { numRuns: 12 },
    );
  }, 120_000);

  it("counts the Apps of a filter from the App index: its keys read once for every dimension and histogram", async () => {
    const platform = apps[0].platform;
    const path = (filter: string) =>
      `/app/facets?${filter}&facets=${Object.keys(APP_VALUES).join(",")}&facet_size=3&histogram=ic:3,rc:2`;
    await get(path("f:as=Active")); // the index is built once per snapshot and gateway
    api.resetQueries();
    const r = await get(path(`f:p=${q(platform)}&f:icmin=1`));
    expect(r.status, r.text).toBe(200);
    // The filter's keys, and (asked beside them, before they are read) its count; no statement
    // per dimension or histogram.
    expect(
      api.queries.filter((s) => /^SELECT r\."pk" FROM/.test(s)),
      "the filter's keys",
    ).toHaveLength(1);
    expect(
      api.queries.filter((s) => !/^SELECT (r\."pk"|count\(\*\)) FROM (\S+\.)?"app" r WHERE/.test(s)),
    ).toEqual([]);
    expect(api.queries.length).toBeLessThanOrEqual(2);
    // The same filter asked again with other dimensions reuses its keys: no statement.
    api.resetQueries();
    expect((await get(`/app/facets?f:p=${q(platform)}&f:icmin=1&facets=as&facet_size=1`)).status).toBe(200);
    expect(api.queries).toEqual([]);
  });

  it("answers GraphQL's facets on domains and App.installedOn with the REST counts", async () => {
    const r = await api.gql<{
      domains: {
        totalCount: number;
        facets: { dimension: string; values: unknown[]; otherCount: number; missingCount: number }[];
      };
    }>(`{ domains(filter: { countryCode: { values: ["US"] } }, first: 0) {
      totalCount facets(by: [PLATFORM, CATEGORIES], size: 5) { dimension values { value count } otherCount missingCount } } }`);
    expect(r.errors).toBeUndefined();
    const rest = await facets("f:cc=US&facets=p,cat&facet_size=5");
    expect(r.data?.domains.totalCount).toBe(rest.total);
    expect(r.data?.domains.facets.map((f) => f.dimension)).toEqual(["PLATFORM", "CATEGORIES"]);
    expect(r.data?.domains.facets[0].values).toEqual(rest.facets.p);
    expect(r.data?.domains.facets[1].otherCount).toBe(rest.other.cat);
    const app = domains.flatMap((d) => d.apps ?? []).find((a) => a.removed_at === undefined);
    if (!app) throw new Error("no installed App in the data");
    const nested = await api.gql<{
      app: { installedOn: { totalCount: number; facets: { values: { value: string; count: number }[] }[] } };
    }>(
      `query($p: String!, $t: String!) { app(platform: $p, token: $t) { installedOn(first: 0) { totalCount facets(by: [COUNTRY_CODE]) { values { value count } } } } }`,
      { p: app.platform, t: app.token },
    );
    expect(nested.errors).toBeUndefined();
    const same = await facets(`f:an=${q(`${app.platform}.${app.token}`)}&facets=cc`);
    expect(nested.data?.app.installedOn.totalCount).toBe(same.total);
    expect(nested.data?.app.installedOn.facets[0].values).toEqual(same.facets.cc);
  });

  it("refuses a bad request with a 400 that names what was wrong", async () => {
    const cases: [string, RegExp][] = [
      ["facets=country", /facets: unknown dimension "country" \(did you mean "cc"\?\); valid: cc, reg/],
      ["facets=cc,cc", /facets: names cc twice/],
      ["facets=cc&facet_size=0", /facet_size: must be at least 1/],
      ["facets=cc&facet_size=101", /facet_size: must be at most 100/],
      [
        "histogram=err",
        /histogram: unknown field "err" \(did you mean "er"( or "ev")?\?\); valid: er, ev, rank/,
      ],
      ["histogram=er:0", /histogram: er: buckets must be from 1 to 50/],
      ["histogram=er:10|5", /histogram: er: bounds must increase strictly; 5 follows 10/],
      ["histogram=er:ten", /histogram: er: after the colon/],
      ["facets=cc&sort=rank", /unknown option "sort"/],
      ["facets=cc&fields=name", /unknown option "fields"/],
      ["facets=cc&f:cc=USA", /f:cc: "USA" is not a 2-letter ISO country code/],
    ];
    for (const [query, message] of cases) {
      const r = await get(`/domain/facets?${query}`);
      expect([query, r.status]).toEqual([query, 400]);
      expect(JSON.parse(r.text).error, query).toMatch(message);
    }
    const app = await get("/app/facets?facets=cc");
    expect(app.status).toBe(400);
    expect(JSON.parse(app.text).error).toMatch(/valid: p, categories, as, vcc, pricing/);
  });

  it("reads no page for a selection of counts alone, and the page when it is selected", async () => {
    api.resetQueries();
    await facets("f:p=shopify&facets=cc&facet_size=61"); // a size no other test asks for
    expect(api.queries.filter((q) => q.includes('ORDER BY r."rank"'))).toEqual([]);
    const r = await api.gql<{ domains: { pageInfo: { hasNextPage: boolean }; facets: unknown[] } }>(
      '{ domains(filter: { platform: { values: ["shopify"] } }, first: 0) { pageInfo { hasNextPage } facets(by: [PLAN]) { otherCount } } }',
    );
    expect(r.errors).toBeUndefined();
    expect(r.data?.domains.pageInfo.hasNextPage).toBe(true);
    expect(r.data?.domains.facets).toHaveLength(1);
  });

  it("counts the commonest dimensions when a request names none", async () => {
    const answer = await facets("f:p=shopify");
    expect(Object.keys(answer.facets)).toEqual(["cc", "p", "plan", "cat", "tech"]);
    expect(answer.histograms).toEqual({});
  });

  it("refuses bad GraphQL arguments, naming them", async () => {
    const cases: [string, RegExp][] = [
      ["facets(by: []) { otherCount }", /by: must name at least one dimension/],
      ["facets(by: [CITY], size: 0) { otherCount }", /size: must be an integer from 1 to 100/],
      ["histogram(field: RANK, bounds: [5, 5]) { outsideCount }", /bounds: must increase strictly/],
      [
        "histogram(field: RANK, buckets: 3, bounds: [1, 5]) { outsideCount }",
        /bounds: cannot be given with buckets/,
      ],
      ["histogram(field: RANK, scale: GIVEN) { outsideCount }", /scale: GIVEN is what bounds do/],
      ["histogram(field: RANK, buckets: 51) { outsideCount }", /buckets: must be an integer from 1 to 50/],
    ];
    for (const [selection, message] of cases) {
      const r = await api.gql(`{ domains(first: 0) { ${selection} } }`);
      expect(r.errors?.[0]?.message, selection).toMatch(message);
      expect(r.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    }
  });

  it("counts a filtered list from the count index: no Domain read for set membership, the same answers by SQL without it", async () => {
    const path = (filter: string) => `${filter}&facets=${ALL}&facet_size=5&histogram=er:4,rank:3`;
    const membership = [
      "f:cc=US&f:p=shopify",
      "f:cat=%2FApparel&f:cat:op=not&f:ds=Active",
      `f:tech=${q(techs()[0])},${q(techs()[1])}&f:tech:op=or`,
      `f:an=${q(installedApps()[0])}`,
      `f:cc=US,GB&f:cc:op=not&f:ermin=100000`,
    ];
    await facets(path("f:cc=CA")); // the index is loaded once per snapshot
    for (const filter of membership) {
      api.resetQueries();
      const answer = await facets(path(filter));
      // Named keys are looked up (a technology's, an App's); no statement reads a Domain table.
      expect(
        api.queries.filter((text) => /domain/i.test(text)),
        filter,
      ).toEqual([]);
      expect(answer.total).toBe((await exported(filter)).length);
    }
    // The same snapshot read without its index is counted by SQL (src/db/reader.ts, `unindexed`),
    // with the same answers.
    const older = await startApi(kind, scratch.dir, {}, {}, { indexed: false });
    try {
      for (const filter of [...membership, "q=blue&f:ds=Active"]) {
        const res = await older.app.fetch(`http://localhost/json/api/v1/all/domain/facets?${path(filter)}`);
        expect(res.status).toBe(200);
        expect(await res.json(), filter).toEqual(await facets(path(filter)));
        const list = await older.app.fetch(`http://localhost/json/api/v1/all/domain?${filter}&page_size=1`);
        const mine = await get(`/domain?${filter}&page_size=1`);
        expect((await list.json()).total, filter).toBe(JSON.parse(mine.text).total);
      }
    } finally {
      await older.close();
    }
  }, 180_000);

  it("never serves a new snapshot's facets from an old snapshot's counts", async () => {
    const before = await facets("facets=cc,cat&f:p=shopify");
    const unfilteredBefore = await facets("facets=cc,cat");
    await api.load(second.dir);
    try {
      for (const filter of ["f:p=shopify", ""]) {
        const answer = await facets(`${filter}${filter ? "&" : ""}facets=cc,cat`);
        const records = await exported(filter);
        expect(answer.total).toBe(records.length);
        expect(answer.facets.cc).toEqual(expectedFacet(records, DOMAIN_VALUES.cc, 10).values);
        expect(answer.facets.cat).toEqual(expectedFacet(records, DOMAIN_VALUES.cat, 10).values);
      }
      expect((await facets("facets=cc,cat&f:p=shopify")).total).not.toBe(before.total);
      expect((await facets("facets=cc,cat")).total).not.toBe(unfilteredBefore.total);
    } finally {
      await api.load(scratch.dir);
    }
  }, 60_000);
});
