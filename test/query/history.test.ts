import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evolveDataset } from "../../src/dataset/evolve.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { RANK_SHARE, rankMove } from "../../src/db/change-sql.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { readJsonl } from "../support/jsonl.ts";

// History (src/query/history.ts) against a brute force: three generated weeks loaded one after
// another; every count of every load's trend equals a count of that week's files, and a Domain
// as of any week equals that week's record for every field the feed covers.

const scratch = tempDir("storegraph-history-");
const weeks = [0, 1, 2].map((i) => join(scratch.dir, `w${i}`));

beforeAll(async () => {
  await generateDataset({ domains: 300, apps: 40, seed: 5, outDir: weeks[0] });
  await evolveDataset({ from: weeks[0], outDir: weeks[1], seed: 6 });
  await evolveDataset({ from: weeks[1], outDir: weeks[2], seed: 7 });
}, 120_000);
afterAll(() => scratch.remove());

type Rec = Record<string, unknown>;
/** countryCode → COUNTRY_CODE, administrativeAreaLevel1 → ADMINISTRATIVE_AREA_LEVEL_1. */
const enumName = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([a-zA-Z])([0-9])/g, "$1_$2")
    .toUpperCase();
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const texts = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v == null ? [] : [v]).filter((x): x is string => typeof x === "string" && x !== "");

/** Each Domain dimension's values of a record, as the facets count them (each value once). */
const DOMAIN_VALUES: Record<string, (d: Rec) => string[]> = {
  countryCode: (d) => texts(d.country_code),
  region: (d) => texts(d.region),
  subregion: (d) => texts(d.subregion),
  administrativeAreaLevel1: (d) => texts(d.administrative_area_level_1),
  city: (d) => texts(d.city),
  currencyCode: (d) => texts(d.currency_code),
  languageCode: (d) => texts(d.language_code),
  platform: (d) => texts(d.platform),
  plan: (d) => texts(d.plan),
  state: (d) => texts(d.state),
  themeName: (d) => texts((d.theme as Rec | undefined)?.name),
  createdMonth: (d) => texts(typeof d.created_at === "string" ? d.created_at.slice(0, 7) : null),
  categories: (d) => texts(d.categories),
  features: (d) => texts(d.features),
  tags: (d) => texts(d.tags),
  salesChannels: (d) => texts(d.sales_channels),
  shipsTo: (d) => texts(d.ships_to_countries),
  contactTypes: (d) => texts(((d.contact_info ?? []) as Rec[]).map((c) => c.type)),
  technologies: (d) => texts(((d.technologies ?? []) as Rec[]).map((t) => t.name)),
  apps: (d) =>
    ((d.apps ?? []) as Rec[])
      .filter((a) => a.removed_at === undefined)
      .map((a) => `${a.platform}.${a.token}`),
};

const APP_VALUES: Record<string, (a: Rec) => string[]> = {
  platform: (a) => texts(a.platform),
  state: (a) => texts(a.state),
  categories: (a) => texts(a.categories),
  vendorCountryCode: (a) => texts(a.vendor_country_code),
};

function countsOf(records: Rec[], values: (r: Rec) => string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of records) for (const v of new Set(values(r))) out.set(v, (out.get(v) ?? 0) + 1);
  return out;
}

/** The part of a Domain the feed covers, as an as-of answer gives it. */
function covered(d: Rec) {
  return {
    state: d.state,
    platform: d.platform,
    plan: d.plan ?? null,
    countryCode: d.country_code ?? null,
    theme: (d.theme as Rec | undefined)?.name ?? null,
    apps: DOMAIN_VALUES.apps(d).sort(cmp),
    technologies: DOMAIN_VALUES.technologies(d).sort(cmp),
  };
}

describe.each(databaseKinds())("history on %s", (kind) => {
  let api: TestApi;
  const versions: number[] = [];
  let domains: Rec[][] = [];
  let apps: Rec[][] = [];

  beforeAll(async () => {
    domains = weeks.map((w) => readJsonl<Rec>(join(w, "domains.jsonl")));
    apps = weeks.map((w) => readJsonl<Rec>(join(w, "apps.jsonl")));
    for (const [i, week] of weeks.entries()) {
      if (i === 0) api = await startApi(kind, week);
      else await api.load(week);
      versions.push((await api.snapshots.current())?.snapshot.version as number);
    }
  }, 300_000);
  afterAll(() => api?.close());

  const trend = async (field: string, dimension: string, values: string[] | null, extra = "") => {
    const r = await api.gql<{ t: { dimension: string; values: string[]; loads: Rec[] } }>(
      `query ($values: [String!]) { t: ${field}(dimension: ${enumName(dimension)}, values: $values${extra}) { dimension values loads { version publishedAt counts total } } }`,
      { values },
    );
    expect(r.errors).toBeUndefined();
    return r.data?.t as { dimension: string; values: string[]; loads: Rec[] };
  };

  for (const [field, table, dims] of [
    ["trends", "domain", DOMAIN_VALUES],
    ["appTrends", "app", APP_VALUES],
  ] as const) {
    it(`${field}: every count of every load equals a count of that week's files`, async () => {
      const records = table === "domain" ? domains : apps;
      for (const [dimension, of] of Object.entries(dims)) {
        const counts = records.map((week) => countsOf(week, of));
        // Every value any week has (up to 100, the commonest), and one no week has.
        const all = [...new Set(counts.flatMap((c) => [...c.keys()]))].sort(cmp).slice(0, 99);
        const got = await trend(field, dimension, [...all, "no such value"]);
        expect(got.dimension).toBe(`${table}.${dimension}`);
        expect(got.loads.map((l) => l.version)).toEqual(versions);
        for (const [i, load] of got.loads.entries()) {
          expect(load.total, `${dimension} total of week ${i}`).toBe(records[i].length);
          const want = Object.fromEntries([...all, "no such value"].map((v) => [v, counts[i].get(v) ?? 0]));
          expect(load.counts, `${dimension} in week ${i}`).toEqual(want);
        }
        // Without values: the newest load's commonest values, in facet order.
        const top = await trend(field, dimension, null, ", top: 3");
        const newest = [...counts[2].entries()].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0])).slice(0, 3);
        expect(top.values, dimension).toEqual(newest.map(([v]) => v));
      }
    }, 120_000);
  }

  it("trends: since and until bound the loads, by version or time", async () => {
    const t = await trend("trends", "platform", null, `, since: "${versions[1]}"`);
    expect(t.loads.map((l) => l.version)).toEqual(versions.slice(1));
    const u = await trend("trends", "platform", null, `, until: "${versions[1]}"`);
    expect(u.loads.map((l) => l.version)).toEqual(versions.slice(0, 2));
    const at = (await trend("trends", "platform", null)).loads[2].publishedAt as string;
    const s = await trend("trends", "platform", null, `, since: "${at}"`);
    expect(s.loads.map((l) => l.version)).toEqual([versions[2]]);
  });

  it("trends: bad arguments are refused, naming them", async () => {
    for (const [args, named] of [
      [`dimension: PLATFORM, since: "last week"`, "since"],
      [`dimension: PLATFORM, values: []`, "values"],
      [`dimension: PLATFORM, top: 0`, "top"],
    ] as const) {
      const r = await api.gql(`{ trends(${args}) { dimension } }`);
      expect(r.errors?.[0]?.message, args).toMatch(new RegExp(`^${named}: `));
    }
  });

  it("a Domain as of each week equals that week's record, or is 404 naming when it came or went", async () => {
    const names = [...new Set(domains.flatMap((w) => w.map((d) => d.name as string)))];
    const byName = domains.map((w) => new Map(w.map((d) => [d.name as string, d])));
    let absent = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: names.length - 1 }),
        fc.integer({ min: 0, max: 2 }),
        async (n, i) => {
          const name = names[n];
          const r = await api.gql<{ d: Rec }>(
            `query ($name: String!, $asOf: String!) { d: domainAsOf(name: $name, asOf: $asOf) { name version state platform plan countryCode theme rank rankVersion apps technologies covers } }`,
            { name, asOf: String(versions[i]) },
          );
          const want = byName[i].get(name);
          if (!want) {
            absent++;
            expect(r.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
            const appeared = byName.findIndex((w, j) => j > i && w.has(name));
            const left = byName.findLastIndex((w, j) => j <= i && w.has(name));
            if (appeared > 0 && (left < 0 || byName.slice(i + 1, appeared).every((w) => !w.has(name))))
              expect(r.errors?.[0]?.message).toContain(`appeared in version ${versions[appeared]}`);
            if (left >= 0) expect(r.errors?.[0]?.message).toContain(`left in version ${versions[left + 1]}`);
            return;
          }
          expect(r.errors).toBeUndefined();
          const got = r.data?.d as Rec;
          const { rank, rankVersion, ...rest } = got;
          expect(rest).toEqual({ name, version: versions[i], ...covered(want), covers: expect.any(Array) });
          // The rank is exactly the rank of the load it names (the asked one or later), and from the
          // asked load to that one the rank never moved past the feed's threshold in one load.
          const named = versions.indexOf(rankVersion as number);
          expect(named).toBeGreaterThanOrEqual(i);
          expect(rank).toBe((byName[named].get(name) as Rec).rank);
          for (let j = i; j < named; j++) {
            const [a, b] = [byName[j].get(name) as Rec, byName[j + 1].get(name) as Rec];
            const move = Math.abs((b.rank as number) - (a.rank as number));
            expect(move < rankMove(domains[j + 1].length) || move < RANK_SHARE * (a.rank as number)).toBe(
              true,
            );
          }
        },
      ),
      { numRuns: 60, seed: 11 },
    );
    // Both answers were met: a Domain in the week, and one absent from it.
    expect(absent).toBeGreaterThan(0);
  }, 120_000);

  it("a Domain as of a time is as of the load served then; bad asOf is refused naming it", async () => {
    const name = domains[0][0].name as string;
    const t = (await trend("trends", "platform", null)).loads[1].publishedAt as string;
    const r = await api.gql<{ d: Rec }>(`{ d: domainAsOf(name: "${name}", asOf: "${t}") { version } }`);
    expect(r.data?.d?.version).toBe(versions[1]);
    for (const asOf of ["soon", "999999", "1999-01-01"]) {
      const bad = await api.gql(`{ domainAsOf(name: "${name}", asOf: "${asOf}") { version } }`);
      expect(bad.errors?.[0]?.message, asOf).toMatch(/^asOf: /);
    }
  });

  const rest = async (path: string) => {
    const res = await api.app.fetch(`http://localhost/json/api/v1/all${path}`);
    return { status: res.status, body: (await res.json()) as Rec };
  };

  it("REST: trends, a Domain's history and a Domain as of a load answer as GraphQL does", async () => {
    const t = await rest("/trends?dimension=tech&top=2");
    expect(t.status).toBe(200);
    const g = await trend("trends", "technologies", null, ", top: 2");
    expect(t.body.dimension).toBe(g.dimension);
    expect(t.body.values).toEqual(g.values);
    expect((t.body.loads as Rec[]).map((l) => [l.version, l.counts, l.total])).toEqual(
      g.loads.map((l) => [l.version, l.counts, l.total]),
    );
    const v = await rest(`/trends?dimension=cc&values=US,DE&since=${versions[1]}`);
    expect(v.body.values).toEqual(["US", "DE"]);
    expect((v.body.loads as Rec[]).map((l) => l.version)).toEqual(versions.slice(1));
    const a = await rest("/app/trends?dimension=p");
    expect(a.status, JSON.stringify(a.body)).toBe(200);

    const name = domains[2][0].name as string;
    const h = await rest(`/domain/${name}/history?page_size=1`);
    expect(h.status).toBe(200);
    const all = await api.gql<{ domain: { history: { nodes: Rec[] } } }>(
      `query ($n: String!) { domain(name: $n) { history { nodes { id } } } }`,
      { n: name },
    );
    expect((h.body.changes as Rec[]).map((c) => c.id)).toEqual(
      all.data?.domain.history.nodes.slice(0, 1).map((c) => c.id),
    );

    const o = await rest(`/domain/${name}?as_of=${versions[2]}`);
    expect(o.status).toBe(200);
    const d = o.body.domain as Rec;
    expect(d).toMatchObject({ name, as_of_version: versions[2], ...{ platform: domains[2][0].platform } });
    expect(d.covers).toEqual([
      "state",
      "platform",
      "plan",
      "country_code",
      "theme",
      "rank",
      "apps",
      "technologies",
    ]);
  });

  it("REST: bad options are refused with JSON errors naming them", async () => {
    const name = domains[2][0].name as string;
    for (const [path, status, named] of [
      ["/trends", 400, "dimension"],
      ["/trends?dimension=tehc", 400, "dimension"],
      ["/trends?dimension=tech&since=yesterday", 400, "since"],
      ["/trends?dimension=tech&until=2026-13-40", 400, "until"],
      ["/trends?dimension=tech&values=,", 400, "values"],
      ["/trends?dimension=tech&top=0", 400, "top"],
      [`/domain/${name}?as_of=soon`, 400, "as_of"],
      [`/domain/${name}?as_of=999999`, 400, "as_of"],
      [`/domain/${name}?as_of=1&follow_redirects=true`, 400, "follow_redirects"],
      [`/domain/${name}/history?cursor=x`, 400, "cursor"],
      ["/domain/no-such-domain.example/history", 404, ""],
    ] as const) {
      const r = await rest(path);
      expect(r.status, path).toBe(status);
      expect(r.body.error, path).toMatch(new RegExp(`^${named}`));
    }
  });

  it("a Domain removed at the last load: its 404s name the load it left in and the as_of that reads it", async () => {
    const now = new Set(domains[2].map((d) => d.name as string));
    const gone = domains[1].find((d) => !now.has(d.name as string))?.name as string;
    expect(gone).toBeDefined();
    const hint = `: it left in version ${versions[2]}; as it was in the load before, version ${versions[1]}: as_of=${versions[1]} (GraphQL: domainAsOf)`;
    for (const path of [`/domain/${gone}/history`, `/domain/${gone}`, `/domain/${gone}/app_reviews`]) {
      const r = await rest(path);
      expect([r.status, r.body.code, r.body.error], path).toEqual([
        404,
        "NOT_FOUND",
        `Domain ${gone} not found${hint}`,
      ]);
    }
    const g = await api.gql(`query ($n: String!) { domain(name: $n) { history { nodes { id } } } }`, {
      n: gone,
    });
    expect(g.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(g.errors?.[0]?.message).toBe(`Domain ${gone} not found${hint}`);
    // What it names answers.
    const was = await rest(`/domain/${gone}?as_of=${versions[1]}`);
    expect(was.status).toBe(200);
    // A name the feed never had: no hint.
    expect((await rest("/domain/no-such-domain.example/history")).body.error).toBe(
      "Domain no-such-domain.example not found",
    );
  });

  it("Domain.history: its events, newest first, paged by cursor", async () => {
    let checked = 0;
    for (const d of domains[2]) {
      if (checked >= 10) break;
      const name = d.name as string;
      const feed = await api.gql<{ domain: { changes: { nodes: Rec[] } } }>(
        `query ($n: String!) { domain(name: $n) { changes(first: 1000) { nodes { id kind } } } }`,
        { n: name },
      );
      const want = [...(feed.data?.domain.changes.nodes ?? [])].reverse();
      if (want.length < 2) continue;
      checked++;
      const got: Rec[] = [];
      let after: string | null = null;
      for (;;) {
        const r = await api.gql<{ domain: { history: Rec } }>(
          `query ($n: String!, $after: String) { domain(name: $n) { history(first: 2, after: $after) { nodes { id kind } pageInfo { hasNextPage endCursor } } } }`,
          { n: name, after },
        );
        expect(r.errors).toBeUndefined();
        const h = r.data?.domain.history as {
          nodes: Rec[];
          pageInfo: { hasNextPage: boolean; endCursor: string };
        };
        got.push(...h.nodes);
        if (!h.pageInfo.hasNextPage) break;
        after = h.pageInfo.endCursor;
      }
      expect(got, name).toEqual(want);
    }
    expect(checked).toBeGreaterThan(0);
  });
});
