import { existsSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import { loadConfig } from "../config.ts";
import { bulkFloor } from "./load-floor.ts";
import { benchLoader } from "./loader.ts";
import { runMeasured } from "./measure.ts";
import { cpuMs } from "./peer.ts";
import { type ChangesResult, PAGE_ROUNDS } from "./report.ts";

/**
 * The change feed of `npm run bench` (issue 37), on a database of its own per size (the week after
 * the bench's dataset is loaded there, so the other scenarios keep theirs):
 * - **the load**: the week the database does not serve is loaded (the dataset's week after, or the
 *   dataset again: both are a week of about 2% churn), and the seconds its events took are set
 *   beside the rest of the load's;
 * - **the export**: GET /changes/export of the whole feed (default fields), events a second, server
 *   CPU and peak RSS;
 * - **pages**: GraphQL `changes(first: 100, after: …)` from cursors spread over the feed, at 32
 *   connections to one gateway (one thread): pages a second, p50 and p99, CPU per page; the
 *   median of PAGE_ROUNDS runs.
 */
export interface ChangesDeps {
  root: string;
  startServer: (
    env: NodeJS.ProcessEnv,
  ) => Promise<{ url: string; child: { pid?: number }; rssMb(): number; stop(): Promise<void> }>;
  createKey: (env: NodeJS.ProcessEnv) => Promise<string>;
  /** The environment of the database the weeks are loaded into: one per kind and size, kept. */
  databaseEnv: (
    kind: "sqlite" | "postgresql",
    size: { domains: number; apps: number },
  ) => Promise<NodeJS.ProcessEnv>;
  seconds: number;
  connections: number;
}

export async function changesBench(
  deps: ChangesDeps,
  kind: "sqlite" | "postgresql",
  size: { domains: number; apps: number; dataset: string },
): Promise<ChangesResult> {
  const next = `${size.dataset}-week-1`;
  if (!existsSync(join(next, "reviews.jsonl"))) {
    console.log(`changes: writing the week after ${size.dataset}`);
    const g = await runMeasured(
      join(deps.root, "src/cli/generate-data.ts"),
      ["--from", size.dataset, "--out", next],
      process.env,
    );
    if (g.code !== 0) throw new Error(`generate-data --from failed with exit code ${g.code}`);
  }
  const env = await deps.databaseEnv(kind, size);
  // The first run loads the dataset (no events: nothing before it); each run then loads the week
  // the database does not serve.
  let load = await loadWeek(env, [size.dataset, next]);
  // A first load has no events (its change step still runs: it writes the empty tables).
  if (load.events === 0) load = await loadWeek(env, [size.dataset, next]);
  const key = await deps.createKey(env);
  const server = await deps.startServer(env);
  const base = server.url.replace("localhost", "127.0.0.1");
  try {
    const exports = [];
    for (let i = 0; i < 3; i++) exports.push(await exportAll(base, key, server));
    exports.sort((a, b) => a.seconds - b.seconds);
    const exported = exports[1];
    const history = await historyLatencies(base, key, exported.names);
    const cursors = spread(exported.ids, 200);
    let c = 0;
    const body = () =>
      JSON.stringify({
        query:
          "query($after: String) { changes(first: 100, after: $after) { nodes { id version loadedAt kind domainName app { id name } technology before after } pageInfo { hasNextPage endCursor } } }",
        variables: { after: cursors[c++ % cursors.length] ?? null },
      });
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const pid = server.child.pid as number;
    const run = (seconds: number) =>
      autocannon({
        url: `${base}/graphql`,
        connections: deps.connections,
        duration: seconds,
        headers,
        requests: [{ method: "POST", setupRequest: (req) => ({ ...req, body: body() }) }],
      });
    await run(Math.min(2, deps.seconds));
    // The median of PAGE_ROUNDS runs (by pages a second, with that run's CPU): on a shared
    // machine one window of a few seconds varies by ±30% from the next.
    const rounds = [];
    for (let i = 0; i < PAGE_ROUNDS; i++) {
      const before = cpuMs(pid);
      const r = await run(deps.seconds);
      rounds.push({ r, cpu: cpuMs(pid) - before });
    }
    rounds.sort((a, b) => a.r.requests.average - b.r.requests.average);
    const { r: pages, cpu } = rounds[Math.floor(rounds.length / 2)];
    return {
      load: {
        seconds: load.seconds,
        changes: load.changes,
        events: load.events,
        churn: load.churn,
        steps: load.steps,
      },
      export: {
        events: exported.lines,
        seconds: exported.seconds,
        cpuMs: exported.cpuMs,
        rssMb: exported.rssMb,
      },
      history,
      pages: {
        rps: pages.requests.average,
        p50: pages.latency.p50,
        p99: pages.latency.p99,
        errors: pages.errors + pages.timeouts + pages.non2xx,
        cpuMs: pages.requests.total ? cpu / pages.requests.total : 0,
      },
    };
  } finally {
    await server.stop();
  }

  async function exportAll(url: string, apiKey: string, proc: { child: { pid?: number }; rssMb(): number }) {
    const pid = proc.child.pid as number;
    const cpuBefore = cpuMs(pid);
    const started = process.hrtime.bigint();
    let rss = 0;
    const timer = setInterval(() => {
      rss = Math.max(rss, proc.rssMb());
    }, 50);
    const res = await fetch(`${url}/json/api/v1/all/changes/export`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if (res.status !== 200) throw new Error(`changes export answered ${res.status}: ${await res.text()}`);
    const text = await res.text();
    clearInterval(timer);
    rss = Math.max(rss, proc.rssMb());
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const events = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string; domain?: string | null });
    const ids = events.map((e) => e.id);
    const names = [...new Set(events.flatMap((e) => (e.domain ? [e.domain] : [])))];
    return { lines: ids.length, ids, names, seconds, cpuMs: cpuMs(pid) - cpuBefore, rssMb: rss };
  }
}

/** Requests of each history scenario, one at a time (each asked once: nothing is cached). */
export const HISTORY_REQUESTS = 100;

/**
 * History (issue 58) over the loads the database holds, one request at a time, each asked once:
 * - **trends**: GET /trends of a dimension and 3 of its values, the dimension and values varied;
 * - **a Domain's history**: GET /domain/<name>/history of Domains the feed names;
 * - **as of**: GET /domain/<name>?as_of=<the load before the served one> of the same Domains.
 * Latencies in ms (p50, p99) and how many answered 200 (a Domain absent from the older load
 * answers 404, which is its answer, timed too).
 */
export async function historyLatencies(
  base: string,
  key: string,
  names: string[],
): Promise<NonNullable<ChangesResult["history"]>> {
  const headers = { authorization: `Bearer ${key}` };
  const get = async (path: string) => {
    const started = performance.now();
    const res = await fetch(`${base}/json/api/v1/all${path}`, { headers });
    const text = await res.text();
    if (res.status >= 500) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return { ms: performance.now() - started, status: res.status, text };
  };
  const stats = (runs: { ms: number; status: number }[]) => {
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0;
    return { n: runs.length, ok: runs.filter((r) => r.status === 200).length, p50: at(0.5), p99: at(0.99) };
  };
  const dimensions = ["p", "cc", "plan", "ds", "tech", "cat", "an", "lang", "curr"];
  const tops = new Map<string, string[]>();
  let loads: { version: number }[] = [];
  for (const d of dimensions) {
    const r = await get(`/trends?dimension=${d}&top=20`);
    if (r.status !== 200) continue;
    const answer = JSON.parse(r.text) as { values: string[]; loads: { version: number }[] };
    tops.set(d, answer.values);
    loads = answer.loads;
  }
  const trends: { ms: number; status: number }[] = [];
  const usable = [...tops].filter(([, values]) => values.length >= 3);
  for (let i = 0; i < HISTORY_REQUESTS && usable.length; i++) {
    const [d, values] = usable[i % usable.length];
    const k = Math.floor(i / usable.length);
    const chosen = [0, 1, 2].map((j) => values[(k + j * 7) % values.length]);
    trends.push(await get(`/trends?dimension=${d}&values=${chosen.map(encodeURIComponent).join(",")}`));
  }
  const picked = spread(names, HISTORY_REQUESTS).filter((n): n is string => n !== null);
  const history = [];
  for (const name of picked)
    history.push(await get(`/domain/${encodeURIComponent(name)}/history?page_size=100`));
  const before = loads.length >= 2 ? loads[loads.length - 2].version : null;
  const asOf = [];
  if (before !== null)
    for (const name of picked) asOf.push(await get(`/domain/${encodeURIComponent(name)}?as_of=${before}`));
  return { loads: loads.length, trends: stats(trends), history: stats(history), asOf: stats(asOf) };
}

/** `n` values spread evenly over `ids`, the start (null) included. */
function spread(ids: string[], n: number): (string | null)[] {
  const out: (string | null)[] = [null];
  for (let i = 1; i < n && ids.length; i++) out.push(ids[Math.floor((i * ids.length) / n)]);
  return out;
}

/**
 * Loads whichever of the two weeks the database does not serve (in this process: the load's own
 * timings say what its events took); its seconds, and its events.
 */
async function loadWeek(env: NodeJS.ProcessEnv, weeks: string[]) {
  const { loadEventCounts } = await import("../db/change-feed.ts");
  const { store, load } = await benchLoader(env);
  try {
    const source = (await store.current())?.source ?? null;
    const dir = source === weeks[0] ? weeks[1] : weeks[0];
    console.log(`changes: loading ${dir} (${store.kind})`);
    const started = process.hrtime.bigint();
    const r = await load(dir, { keep: 1, changesRetention: 52 });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const feed = await loadEventCounts(store, r.version);
    const served = await store.current();
    if (!served) throw new Error("the week's load serves no snapshot");
    // The database's own bulk load of the same rows, beside it (src/bench/load-floor.ts).
    console.log(`changes: the database's own bulk load of the week's rows (${store.kind})`);
    const floor = await bulkFloor(loadConfig(env), served);
    return {
      seconds,
      changes: r.timings.changes,
      events: feed.events,
      churn: r.domains ? feed.domains / r.domains : 0,
      steps: r.steps,
      floor: { seconds: floor.seconds, rows: floor.rows, bytes: floor.bytes, how: floor.how },
    };
  } finally {
    await store.close();
  }
}
