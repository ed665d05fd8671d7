import { execFile } from "node:child_process";
import { Agent, get } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { loadConfig } from "../config.ts";
import { Snapshots } from "../db/snapshots.ts";
import { DOMAIN_DIMENSIONS } from "../query/facets.ts";
import { MALLOC_ENV } from "./measure.ts";
import type { FacetExtra, FacetRow } from "./report.ts";

const run = promisify(execFile);

/**
 * The facets of `npm run bench` (issue 36): for the whole table and for each filter of the sort ×
 * filter matrix, the p50 of GET /domain/facets of five dimensions counted afresh and again from
 * the cache, beside the p50 of the same filter's first page (fields=name,rank) and of the same
 * counts by the database alone (a GROUP BY per dimension, written by hand below).
 *
 * Requests go one at a time (a facet is a scan: its latency, not a queue, is the question). A
 * count afresh is made so by a new `facet_size` per request (20, 21, …): the statements are the
 * same but for their LIMIT, so each is counted anew rather than found in the cache.
 */
export const FACET_DIMENSIONS = "cc,p,plan,cat,tech";
/** Every Domain dimension (20), by its REST option. */
const EVERY_DIMENSION = Object.values(DOMAIN_DIMENSIONS)
  .map((d) => d.option)
  .join(",");
/** Requests per measure: fewer at a million Domains, where one counted afresh takes seconds. */
const samplesFor = (domains: number) => (domains >= 500_000 ? 7 : 15);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : Number.NaN;
};

/** ms of each of `n` runs of `run`, after one unmeasured run. */
async function timed(n: number, run: (i: number) => Promise<void>): Promise<number[]> {
  await run(-1);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = process.hrtime.bigint();
    await run(i);
    out.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return out;
}

/** The conditions of the matrix's filters (one `f:` option each), as one writes them by hand. */
function handWritten(query: string): { cond: string; value: string | null } {
  if (query === "") return { cond: "1=1", value: null };
  const [option, raw] = query.split("=");
  const value = decodeURIComponent(raw);
  const exists = (text: string) => ({ cond: `EXISTS (${text})`, value });
  switch (option) {
    case "f:cc":
      return { cond: "d.country_code = $1", value };
    case "f:p":
      return { cond: "d.platform = $1", value };
    case "f:ds":
      return { cond: "d.state = $1", value };
    case "f:cat":
      return exists("SELECT 1 FROM domain_category c WHERE c.domain_pk = d.pk AND c.category = $1");
    case "f:tech":
      return exists(
        "SELECT 1 FROM domain_technology t JOIN technology x ON x.pk = t.technology_pk WHERE t.domain_pk = d.pk AND x.name = $1",
      );
    case "f:an":
      return exists(
        "SELECT 1 FROM domain_app a JOIN app x ON x.pk = a.app_pk WHERE a.domain_pk = d.pk AND a.removed_at IS NULL AND x.platform || '.' || x.token = $1",
      );
    default:
      throw new Error(`no hand-written condition for ${query}`);
  }
}

/** The five GROUP BYs of FACET_DIMENSIONS over the Domains matching `cond`. */
const handStatements = (cond: string) => [
  `SELECT d.country_code, count(*) FROM domain d WHERE ${cond} GROUP BY 1`,
  `SELECT d.platform, count(*) FROM domain d WHERE ${cond} GROUP BY 1`,
  `SELECT d.plan, count(*) FROM domain d WHERE ${cond} GROUP BY 1`,
  `SELECT c.category, count(*) FROM domain d JOIN domain_category c ON c.domain_pk = d.pk WHERE ${cond} GROUP BY 1`,
  `SELECT x.name, count(*) FROM domain d JOIN domain_technology t ON t.domain_pk = d.pk JOIN technology x ON x.pk = t.technology_pk WHERE ${cond} GROUP BY 1`,
];

/** Runs the hand-written statements of a filter on the served snapshot: `run(query)` times them once. */
async function databaseAlone(env: NodeJS.ProcessEnv) {
  const config = loadConfig(env);
  const snapshots = await Snapshots.open(config, { refreshMs: 0, graceMs: 0 });
  const served = await snapshots.current();
  if (!served) throw new Error("no snapshot to read");
  if (config.database.kind === "sqlite") {
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(join(config.database.dataDir, served.snapshot.location), { readonly: true });
    return {
      run: async (query: string) => {
        const { cond, value } = handWritten(query);
        for (const s of handStatements(cond.replaceAll("$1", "?")))
          db.prepare(s)
            .raw(true)
            .all(...(value === null ? [] : [value]));
      },
      close: async () => {
        db.close();
        await snapshots.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: config.database.url });
  await client.connect();
  await client.query(`SET search_path TO "${served.snapshot.location}"`);
  return {
    run: async (query: string) => {
      const { cond, value } = handWritten(query);
      for (const s of handStatements(cond)) await client.query(s, value === null ? [] : [value]);
    },
    close: async () => {
      await client.end();
      await snapshots.close();
    },
  };
}

/**
 * One GET through a kept-alive node:http agent, its body read and dropped: its status. (fetch
 * costs about 2 ms more per request on this machine, which the targets of 2 and 5 ms cannot
 * afford to carry; autocannon with one connection agrees with this one, but counts whole ms.)
 */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
function request(url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

/** A seeded generator (mulberry32), so that every run draws the same combinations. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] : Number.NaN;
};

/**
 * `n` combinations of 1–4 distinct options drawn from `pool` (each an option and its query part),
 * AND-ed; each combination is asked once, so it is counted afresh (nothing of it is cached).
 */
function combinations(pool: readonly (readonly [string, string])[], n: number, seed: number): string[] {
  const next = random(seed);
  const out: string[] = [];
  while (out.length < n) {
    const k = 1 + Math.floor(next() * 4);
    const picked = new Map<string, string>();
    for (let tries = 0; picked.size < k && tries < 50; tries++) {
      const [option, part] = pool[Math.floor(next() * pool.length)];
      if (!picked.has(option)) picked.set(option, part);
    }
    const query = [...picked.values()].join("&");
    if (!out.includes(query)) out.push(query);
  }
  return out;
}

/** What reading the index adds to RSS, measured in a process of its own (src/bench/index-memory.ts). */
async function indexMemory(env: NodeJS.ProcessEnv): Promise<number | null> {
  const { stdout } = await run(
    process.execPath,
    ["--expose-gc", "--import", "tsx", join(import.meta.dirname, "index-memory.ts")],
    { env: { ...MALLOC_ENV, ...env }, maxBuffer: 1 << 20 },
  );
  const line = stdout.trim().split("\n").pop() ?? "";
  return (JSON.parse(line) as { rssMb: number | null }).rssMb;
}

/**
 * The count index's size and build time, as the snapshot keeps them, and what reading it adds to a
 * process's RSS (one of its own, as the gateway's image runs: indexMemory; null: it has none).
 */
async function indexOf(env: NodeJS.ProcessEnv): Promise<FacetExtra["index"]> {
  const config = loadConfig(env);
  const snapshots = await Snapshots.open(config, { refreshMs: 0, graceMs: 0 });
  try {
    const served = await snapshots.current();
    if (!served) return null;
    const rows = await served.sql
      .all(
        `SELECT x."name", length(x."body"), CASE WHEN x."name" = 'meta' THEN x."body" END FROM ${served.sql.table("count_index")} x`,
        [],
      )
      .catch(() => null);
    if (!rows) return null;
    const meta = rows.find((r) => r[0] === "meta")?.[2] as Uint8Array | undefined;
    const stored = meta ? JSON.parse(Buffer.from(meta).toString("utf8")) : {};
    const measured = await indexMemory(env);
    return {
      bytes: rows.reduce((s, r) => s + Number(r[1]), 0),
      buildMs: Number(stored.buildMs ?? Number.NaN),
      domains: Number(stored.n ?? Number.NaN),
      rssMb: measured ?? Number.NaN,
    };
  } finally {
    await snapshots.close();
  }
}

export async function facetBench(
  base: string,
  key: string,
  filters: readonly (readonly [string, string])[],
  env: NodeJS.ProcessEnv,
  domains: number,
): Promise<{ rows: FacetRow[]; extra: FacetExtra }> {
  const SAMPLES = samplesFor(domains);
  const alone = await databaseAlone(env);
  const rows: FacetRow[] = [];
  const extra: FacetExtra = {
    membership: { p50: 0, p99: 0, n: 0 },
    any: { p50: 0, p99: 0, n: 0 },
    allDimensions: 0,
    histogram: 0,
    totalCount: 0,
    index: await indexOf(env),
  };
  const failed: string[] = [];
  const fetchOnce = async (path: string) => {
    const started = process.hrtime.bigint();
    // A kept-alive connection the server closed while the database alone was timed: once more.
    const url = `${base}/json/api/v1/all${path}`;
    const status = await request(url, key).catch(() => request(url, key));
    if (status !== 200) failed.push(`${status} ${path}`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  try {
    // A gateway loads the snapshot's count index when it serves it: wait for that, unmeasured.
    await fetchOnce(`/domain/facets?${filters[0]?.[1] ?? ""}&facets=cc`);
    for (const [filter, query] of [["none", ""] as const, ...filters]) {
      console.log(`facets: ${filter}`);
      let errors = 0;
      const get = async (path: string, retried = false): Promise<void> => {
        try {
          if ((await request(`${base}/json/api/v1/all${path}`, key)) !== 200) errors++;
        } catch (e) {
          // A kept-alive connection the server closed while the database alone was timed: once more.
          if (retried) throw e;
          await get(path, true);
        }
      };
      const and = query ? `${query}&` : "";
      const facets = `/domain/facets?${and}facets=${FACET_DIMENSIONS}`;
      const page = await timed(SAMPLES, () => get(`/domain?${and}page_size=50&fields=name,rank`));
      const fresh = await timed(SAMPLES, (i) => get(`${facets}&facet_size=${i + 21}`));
      const cached = await timed(SAMPLES, () => get(`${facets}&facet_size=21`));
      const db = await timed(SAMPLES, () => alone.run(query));
      rows.push({
        filter,
        facets: median(fresh),
        cached: median(cached),
        page: median(page),
        alone: median(db),
        errors,
      });
    }
    // Random combinations, each asked once (afresh): of set membership only (the matrix's
    // options, and a second country and `not` of a platform), and of any option (ranges, `not`,
    // a search) mixed in.
    // Keyed by the option they set: a combination names an option once.
    const option = (query: string) => query.split("=")[0];
    const membershipPool: (readonly [string, string])[] = [
      ...filters.map(([, query]) => [option(query), query] as const),
      ["f:cc", "f:cc=GB,DE&f:cc:op=or"],
      ["f:p", "f:p=wix&f:p:op=not"],
      ["f:plan", "f:plan=Shopify%20Plus"],
    ];
    const category = filters.find(([n]) => n === "category")?.[1];
    const anyPool: (readonly [string, string])[] = [
      ...membershipPool,
      ["f:ermin", "f:ermin=1000000"],
      ["f:rankmax", "f:rankmax=200000"],
      ["f:pcmin", "f:pcmin=50"],
      ["q", "q=shop"],
      ...(category ? [["f:cat", `${category}&f:cat:op=not`] as const] : []),
    ];
    const five = (query: string, i: number) =>
      `/domain/facets?${query}&facets=${FACET_DIMENSIONS}&facet_size=${30 + i}`;
    const membership = combinations(membershipPool, 20, 1);
    const any = combinations(anyPool, 20, 2);
    console.log("facets: random combinations");
    const m = [];
    for (const [i, query] of membership.entries()) m.push(await fetchOnce(five(query, i)));
    const a = [];
    for (const [i, query] of any.entries()) a.push(await fetchOnce(five(query, i)));
    extra.membership = { p50: median(m), p99: percentile(m, 0.99), n: m.length };
    extra.any = { p50: median(a), p99: percentile(a, 0.99), n: a.length };
    // Every Domain dimension at once, a histogram, and a total, each of a combination not asked yet.
    const more = combinations(membershipPool, 3 * SAMPLES, 3);
    const all: number[] = [];
    const histogram: number[] = [];
    const total: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      all.push(await fetchOnce(`/domain/facets?${more[i]}&facets=${EVERY_DIMENSION}&facet_size=10`));
      histogram.push(await fetchOnce(`/domain/facets?${more[SAMPLES + i]}&histogram=er:10`));
      total.push(await fetchOnce(`/domain?${more[2 * SAMPLES + i]}&page_size=1&fields=name`));
    }
    extra.allDimensions = median(all);
    extra.histogram = median(histogram);
    extra.totalCount = median(total);
    if (failed.length) throw new Error(`${failed.length} facet requests failed:\n${failed.join("\n")}`);
  } finally {
    await alone.close();
  }
  return { rows, extra };
}
