import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import type { DomainRecord } from "../../src/dataset/record.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

/**
 * Lookalikes (issue 74, item 1): every ranking, paged by its cursors to the end, equals a brute force
 * of the documented formula (docs/decisions.md, "Lookalikes") over every Domain of the dataset,
 * written here from the records apart from src/query/similar.ts and its features, for random seeds
 * and candidate filters, on both databases; with the tie rule (rank, unranked last, then name), the
 * seeds left out, the explanation of each result, and the seeds not found.
 */

const scratch = tempDir("storegraph-similar-");
let domains: DomainRecord[];

beforeAll(async () => {
  await generateDataset({ domains: 1200, apps: 80, seed: 31, outDir: scratch.dir });
  domains = readFileSync(join(scratch.dir, "domains.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as DomainRecord);
}, 60_000);
afterAll(() => scratch.remove());

// The formula, from its documentation.
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
function band(v: number): string {
  if (v < 1) return "0";
  let lo = 1;
  while (lo * 10 <= v) lo *= 10;
  return `${lo}-${lo * 10 - 1}`;
}

function featuresOf(d: DomainRecord): Set<string> {
  const f = new Set<string>();
  const add = (type: string, value: unknown) => {
    if (value !== undefined && value !== null) f.add(`${type}\u0000${value}`);
  };
  // Installed Apps: not those the record says were removed.
  for (const a of d.apps ?? []) if (a.removed_at === undefined) add("app", `${a.platform}.${a.token}`);
  for (const t of d.technologies ?? []) add("technology", t.name);
  for (const c of d.categories ?? []) add("category", c);
  add("platform", d.platform);
  add("plan", d.plan);
  add("country", d.country_code);
  for (const field of ["estimated_sales", "estimated_visits", "product_count", "employee_count"] as const) {
    const v = d[field];
    if (typeof v === "number") add(field, band(v));
  }
  return f;
}

interface Row {
  score: number;
  shared: number;
  why: { type: string; value: string; seeds: number; weight: number }[];
  domain: { name: string };
}

function bruteForce(
  seedNames: string[],
  candidate: (d: DomainRecord) => boolean,
): { total: number; rows: Row[] } {
  const N = domains.length;
  const holders = new Map<string, number>();
  const features = new Map<string, Set<string>>();
  for (const d of domains) {
    const f = featuresOf(d);
    features.set(d.name, f);
    for (const x of f) holders.set(x, (holders.get(x) ?? 0) + 1);
  }
  const weight = (x: string) => Math.round(1000 * Math.log(N / (holders.get(x) as number)));
  const seeds = new Set(seedNames.filter((n) => features.has(n)));
  const S = seeds.size;
  const k = new Map<string, number>();
  for (const s of seeds)
    for (const x of features.get(s) as Set<string>) if (weight(x) > 0) k.set(x, (k.get(x) ?? 0) + 1);
  const rows: (Row & { raw: number; rank: number })[] = [];
  for (const d of domains) {
    if (seeds.has(d.name) || !candidate(d)) continue;
    const shared = [...(features.get(d.name) as Set<string>)].filter((x) => k.has(x));
    const raw = shared.reduce((sum, x) => sum + (k.get(x) as number) * weight(x), 0);
    if (raw <= 0) continue;
    const why = shared
      .map((x) => {
        const [type, value] = x.split("\u0000");
        return { type, value, seeds: k.get(x) as number, contribution: (k.get(x) as number) * weight(x) };
      })
      .sort(
        (a, b) =>
          b.contribution - a.contribution ||
          (a.type < b.type ? -1 : a.type > b.type ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
      )
      .slice(0, 5)
      .map(({ contribution, ...w }) => ({ ...w, weight: round4(contribution / (1000 * S)) }));
    rows.push({
      raw,
      rank: d.rank ?? Number.POSITIVE_INFINITY,
      score: round4(raw / (1000 * S)),
      shared: shared.length,
      why,
      domain: { name: d.name },
    });
  }
  rows.sort(
    (a, b) =>
      b.raw - a.raw ||
      a.rank - b.rank ||
      (a.domain.name < b.domain.name ? -1 : a.domain.name > b.domain.name ? 1 : 0),
  );
  return { total: rows.length, rows: rows.map(({ raw, rank, ...r }) => r) };
}

describe.each(databaseKinds())("lookalikes on %s", (kind) => {
  let api: TestApi;
  const post = async (path: string, body: unknown, method = "POST") => {
    const res = await api.app.fetch(`http://localhost/json/api/v1/all${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: JSON.parse(await res.text()) };
  };
  const get = async (path: string) => {
    const res = await api.app.fetch(`http://localhost/json/api/v1/all${path}`);
    return { status: res.status, body: JSON.parse(await res.text()) };
  };
  const FIELDS = "score,shared,why,domain.name";

  /** Every page of a ranking, by its cursors. */
  async function whole(body: Record<string, unknown>, pageSize: number) {
    const rows: Row[] = [];
    let cursor: string | undefined;
    let total = -1;
    for (let pages = 0; pages < 100; pages++) {
      const r = await post("/domain/similar", { ...body, fields: FIELDS, page_size: pageSize, cursor });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      total = r.body.total;
      rows.push(...r.body.similar);
      if (!r.body.has_next_page) return { total, rows, notFound: r.body.not_found };
      cursor = r.body.next_cursor;
    }
    throw new Error("more than 100 pages");
  }

  beforeAll(async () => {
    api = await startApi(kind, scratch.dir);
  }, 120_000);
  afterAll(() => api?.close());

  it("ranks every candidate as the formula does, by brute force, for random seeds and filters", async () => {
    const countries = [...new Set(domains.map((d) => d.country_code).filter(Boolean))] as string[];
    const filters: [Record<string, string>, (d: DomainRecord) => boolean][] = [
      [{}, () => true],
      [{ "f:p": "shopify" }, (d) => d.platform === "shopify"],
      ...countries
        .slice(0, 3)
        .map(
          (cc) =>
            [{ "f:cc": cc }, (d: DomainRecord) => d.country_code === cc] as [
              Record<string, string>,
              (d: DomainRecord) => boolean,
            ],
        ),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: domains.length - 1 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: filters.length - 1 }),
        fc.constantFrom(37, 400, 1000),
        async (seedIdx, f, pageSize) => {
          const names = seedIdx.map((i) => domains[i].name);
          const [options, candidate] = filters[f];
          const want = bruteForce(names, candidate);
          const got = await whole({ domains: names, ...options }, pageSize);
          expect(got.total).toBe(want.total);
          expect(got.rows.length).toBe(want.total);
          expect(got.rows).toEqual(want.rows);
          expect(got.notFound).toEqual([]);
        },
      ),
      { numRuns: 12 },
    );
  }, 300_000);

  it("holds ties to rank then name, names seeds not found, and leaves the seeds out", async () => {
    // Unranked Domains with the same features tie: the brute force orders them by name.
    const seed = domains.find((d) => d.rank === undefined) ?? domains[0];
    const names = [seed.name, "no-such-shop.example", "Another-Missing.example"];
    const want = bruteForce([seed.name], () => true);
    const got = await whole({ domains: names }, 1000);
    expect(got.rows).toEqual(want.rows);
    expect(got.notFound).toEqual(["no-such-shop.example", "Another-Missing.example"]);
    expect(got.rows.some((r) => r.domain.name === seed.name)).toBe(false);
    const ties = want.rows.filter((r, i) => i > 0 && r.score === want.rows[i - 1].score).length;
    expect(ties).toBeGreaterThan(0);
    // Only seeds not found: nothing is like nothing.
    const none = await post("/domain/similar", { domains: ["no-such-shop.example"] });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({
      total: 0,
      similar: [],
      has_next_page: false,
      not_found: ["no-such-shop.example"],
    });
  });

  it("leaves out the Domains of a list (stores not yet on my list): GraphQL's not, REST's bq must_not", async () => {
    const seed = domains[42].name;
    const top = await post("/domain/similar", { domains: [seed], page_size: 10, fields: FIELDS });
    const mine = (top.body.similar as Row[]).slice(0, 5).map((r) => r.domain.name);
    const added = await post("/list/customers/add-domains", { domains: mine }, "PUT");
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const onList = new Set(mine);
    const want = bruteForce([seed], (d) => !onList.has(d.name));
    const got = await api.gql<{ similarDomains: { total: number; domains: Row[] } }>(
      `query($n: [String!]!) { similarDomains(names: $n, filter: { not: [{ list: "customers" }] }, first: 1000) {
        total domains { score shared why { type value seeds weight } domain { name } } } }`,
      { n: [seed] },
    );
    expect(got.errors).toBeUndefined();
    expect(got.data?.similarDomains.total).toBe(want.total);
    expect(got.data?.similarDomains.domains).toEqual(want.rows.slice(0, 1000));
    expect(got.data?.similarDomains.domains.slice(0, 5).map((r) => r.domain.name)).toEqual(
      (top.body.similar as Row[]).slice(5, 10).map((r) => r.domain.name),
    );
    // The same by REST: bq's must_not names the list.
    const byRest = await whole(
      { domains: [seed], bq: { must_not: { disjuncts: [{ field: "list", term: "customers" }] } } },
      400,
    );
    expect(byRest.rows).toEqual(want.rows);
    // And only the list's, by REST's f:list.
    const only = await whole({ domains: [seed], "f:list": "customers" }, 50);
    expect(only.rows).toEqual(bruteForce([seed], (d) => onList.has(d.name)).rows);
  });

  it("answers one seed by GET and by GraphQL as POST does", async () => {
    const name = domains[17].name;
    const byPost = await post("/domain/similar", {
      domains: [name],
      "f:p": "shopify",
      page_size: 20,
      fields: FIELDS,
    });
    const byGet = await get(`/domain/${name}/similar?f:p=shopify&page_size=20&fields=${FIELDS}`);
    expect(byGet.status).toBe(200);
    expect(byGet.body.similar).toEqual(byPost.body.similar);
    expect(byGet.body.total).toBe(byPost.body.total);
    expect(byGet.body.not_found).toBeUndefined();
    // Default fields: the Domain's few, the score and why.
    const plain = await get(`/domain/${name}/similar?page_size=1`);
    expect(Object.keys(plain.body.similar[0]).sort()).toEqual(["domain", "score", "shared", "why"]);
    expect(Object.keys(plain.body.similar[0].domain)).toEqual(
      expect.arrayContaining(["name", "platform", "rank"]),
    );
    const gql = await api.gql<{
      similarDomains: { total: number; domains: { score: number; domain: { name: string } }[] };
      domain: { similar: { total: number; domains: { score: number; domain: { name: string } }[] } };
    }>(
      `query($n: [String!]!, $one: String!) {
        similarDomains(names: $n, filter: { platform: { values: ["shopify"] } }, first: 20) { total domains { score domain { name } } }
        domain(name: $one) { similar(filter: { platform: { values: ["shopify"] } }, first: 20) { total domains { score domain { name } } } }
      }`,
      { n: [name], one: name },
    );
    expect(gql.errors).toBeUndefined();
    const pairs = byPost.body.similar.map((r: Row) => [r.score, r.domain.name]);
    expect(gql.data?.similarDomains.domains.map((r) => [r.score, r.domain.name])).toEqual(pairs);
    expect(gql.data?.domain.similar.domains.map((r) => [r.score, r.domain.name])).toEqual(pairs);
  });

  it("names bad input", async () => {
    const name = domains[3].name;
    const cases: [unknown, RegExp][] = [
      [{}, /domains: must be a list of 1 to 1000/],
      [{ domains: [] }, /domains: must be a list of 1 to 1000/],
      [
        { domains: Array.from({ length: 1001 }, (_, i) => `s${i}.example`) },
        /domains: must be a list of 1 to 1000/,
      ],
      [{ domains: [name], page_size: 0 }, /page_size/],
      [{ domains: [name], "f:nope": "x" }, /f:nope/],
      [{ domains: [name], cursor: "garbage" }, /cursor: is not a cursor/],
      [{ domains: ["not a name"] }, /domains\[0\]/],
    ];
    for (const [body, message] of cases) {
      const r = await post("/domain/similar", body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(JSON.stringify(r.body)).toMatch(message);
    }
    // A cursor of another query (other seeds) is refused, naming it.
    const first = await post("/domain/similar", { domains: [name], page_size: 1 });
    const other = await post("/domain/similar", {
      domains: [domains[4].name],
      cursor: first.body.next_cursor,
    });
    expect(other.status).toBe(400);
    expect(JSON.stringify(other.body)).toMatch(/cursor: belongs to a different/);
    expect((await get("/domain/no-such-shop.example/similar")).status).toBe(404);
  });
});
