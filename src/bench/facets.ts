import { Agent, get } from "node:http";
import { join } from "node:path";
import pg from "pg";
import { loadConfig } from "../config.ts";
import { Snapshots } from "../db/snapshots.ts";
import type { FacetRow } from "./report.ts";

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

export async function facetBench(
  base: string,
  key: string,
  filters: readonly (readonly [string, string])[],
  env: NodeJS.ProcessEnv,
  domains: number,
): Promise<FacetRow[]> {
  const SAMPLES = samplesFor(domains);
  const alone = await databaseAlone(env);
  const rows: FacetRow[] = [];
  try {
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
  } finally {
    await alone.close();
  }
  return rows;
}
