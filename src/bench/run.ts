import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { cpus, totalmem } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { type GraphQLObjectType, print } from "graphql";
import pg from "pg";
import { ApiKeys } from "../auth/keys.ts";
import { type Config, loadConfig } from "../config.ts";
import { Snapshots } from "../db/snapshots.ts";
import { legacyFields } from "../rest/fields.ts";
import { Options } from "../rest/options.ts";
import { planOf } from "../rest/route.ts";
import { ROUTES } from "../rest/routes.ts";
import { schema } from "../schema/index.ts";
import { changesBench } from "./changes.ts";
import { facetBench } from "./facets.ts";
import { LOAD_FLAGS, MALLOC_ENV, runMeasured } from "./measure.ts";
import { benchPeer, cpuMs } from "./peer.ts";
import { freshPushEnv, pushBench } from "./push.ts";
import {
  benchCommand,
  type DbResult,
  failuresOf,
  MATRIX_CONNECTIONS,
  parseDomainList,
  type Row,
  type RunInfo,
  SCENARIOS,
  writeReport,
} from "./report.ts";

/**
 * `npm run bench -- [--domains 20000,1000000] [--db sqlite|postgresql|both] [--duration 10]`
 *
 * For each size of --domains (smallest first) and each database: builds (once, into bench/out) a
 * dataset of N Domains, loads it into a database kept for later runs, starts storegraph and the
 * raw-SQL baseline (src/bench/baseline.ts) as separate processes, and loads them with autocannon
 * from this one: req/s, p50 and p99 at 32 connections, the server's CPU and peak RSS, export
 * Domains/s beside the database alone, and on PostgreSQL PostGraphile (src/bench/peer.ts). Writes
 * BENCHMARKS.md (or --out) from this run's results alone (src/bench/report.ts), and keeps them in
 * docs/benchmarks/results-<N>.json (committed: a fresh clone has them), from which --report-only
 * writes it again, from parts measured by different runs when a whole run does not fit a sitting.
 */
const { values } = parseArgs({
  options: {
    /** One size or a comma list: every size × database is measured in the one run. */
    domains: { type: "string", default: "20000,1000000" },
    db: { type: "string", default: "both" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    /** The report; its results are kept beside it (in docs/benchmarks for BENCHMARKS.md: KEPT). */
    out: { type: "string", default: "BENCHMARKS.md" },
    /** --no-baseline: storegraph alone (quicker; no ratios). */
    "no-baseline": { type: "boolean", default: false },
    /** --no-peer: without PostGraphile 5 (src/bench/peer.ts), which runs on PostgreSQL only. */
    "no-peer": { type: "boolean", default: false },
    /**
     * --only facets: only the facets (src/bench/facets.ts), on the same datasets and servers;
     * --only changes: only the change feed (src/bench/changes.ts);
     * --only push: only pushed changes, webhooks and live streams (src/bench/push.ts);
     * --only peer: only the comparison with PostGraphile 5 (src/bench/peer.ts; PostgreSQL only, with
     * storegraph on SQLite in the same rounds when --db is both).
     */
    only: { type: "string" },
    /**
     * --cpu-prof <dir>: each storegraph server the run starts writes its CPU profile (node
     * --cpu-prof) into <dir> when it stops, to be read with Chrome's DevTools or speedscope.
     */
    "cpu-prof": { type: "string" },
    /** --report-only: rewrite the report from the kept results (docs/benchmarks/results-*.json), measuring nothing. */
    "report-only": { type: "boolean", default: false },
    "pg-url": {
      type: "string",
      default: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    },
  },
});
const sizes = parseDomainList(values.domains);
if (values.only !== undefined && !["facets", "changes", "push", "peer"].includes(values.only))
  throw new Error(`--only takes facets, changes, push or peer; got "${values.only}"`);
if (values.only === "peer" && values["no-peer"]) throw new Error("--only peer and --no-peer contradict");
const duration = Number(values.duration);
const connections = Number(values.connections);
if (!Number.isFinite(duration) || duration <= 0) throw new Error("--duration must be a number of seconds");
if (!Number.isInteger(connections) || connections < 1)
  throw new Error("--connections must be a positive integer");
if (!["sqlite", "postgresql", "both"].includes(values.db))
  throw new Error("--db must be sqlite, postgresql or both");
const kinds = (values.db === "both" ? ["sqlite", "postgresql"] : [values.db]) as ("sqlite" | "postgresql")[];

const root = resolve(import.meta.dirname, "../..");
const SEED = "1";

/** One size of the run: its Domains, its Apps (one per 50) and the dataset kept for it. */
interface Size {
  domains: number;
  apps: number;
  dataset: string;
}

function sizeOf(domains: number): Size {
  const apps = Math.max(100, Math.round(domains / 50));
  return { domains, apps, dataset: join(root, "bench", "out", `data-${domains}-${apps}-${SEED}`) };
}

async function ensureDataset({ domains, apps, dataset }: Size): Promise<void> {
  if (existsSync(join(dataset, "reviews.jsonl"))) return;
  console.log(`generating ${domains} Domains into ${dataset}`);
  const g = await runMeasured(
    join(root, "src/cli/generate-data.ts"),
    ["--domains", String(domains), "--apps", String(apps), "--seed", SEED, "--out", dataset],
    process.env,
  );
  if (g.code !== 0) throw new Error(`generate-data failed with exit code ${g.code}`);
}

/**
 * The environment of a database kept for benchmark runs of this size; `label` names one of its own
 * (the change feed's, which loads other weeks into it).
 */
async function databaseEnv(
  kind: "sqlite" | "postgresql",
  { domains, apps }: Pick<Size, "domains" | "apps">,
  label?: string,
): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn" };
  delete env.REQUIRE_HTTPS;
  delete env.NODE_ENV;
  env.DATA_DIR = join(
    root,
    "bench",
    "out",
    label ? `${label}-${kind}-${domains}-${apps}` : `${kind}-${domains}-${apps}-${SEED}`,
  );
  mkdirSync(env.DATA_DIR, { recursive: true });
  if (kind === "sqlite") {
    delete env.DATABASE_URL;
    return env;
  }
  const name = `storegraph_bench_${label ? `${label}_` : ""}${domains}_${apps}`;
  const admin = new pg.Client({ connectionString: values["pg-url"] });
  await admin.connect();
  const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
  if (!exists.rowCount) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(values["pg-url"]);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  return env;
}

/** Loads the dataset unless the database already serves it; returns a fresh API key. */
async function prepare(
  env: NodeJS.ProcessEnv,
  { domains, dataset }: Size,
): Promise<{ config: Config; key: string }> {
  const config = loadConfig(env);
  let snapshots = await Snapshots.open(config, { refreshMs: 0, graceMs: 0 });
  let served = await snapshots.current();
  // A database kept from a run of older code: its snapshot upgraded to this code's format.
  if (!served && snapshots.refusal()) {
    await snapshots.close();
    console.log(`upgrading the snapshot of ${config.database.kind}: ${snapshots.refusal()}`);
    const u = await runMeasured(join(root, "src/cli/load.ts"), ["--upgrade"], env, LOAD_FLAGS);
    if (u.code !== 0) throw new Error(`upgrade failed with exit code ${u.code}`);
    snapshots = await Snapshots.open(config, { refreshMs: 0, graceMs: 0 });
    served = await snapshots.current();
  }
  if (served?.snapshot.domains !== domains) {
    await snapshots.close();
    console.log(`loading ${dataset} into ${config.database.kind}`);
    const l = await runMeasured(join(root, "src/cli/load.ts"), [dataset], env, LOAD_FLAGS);
    if (l.code !== 0) throw new Error(`load failed with exit code ${l.code}`);
    snapshots = await Snapshots.open(config, { refreshMs: 0, graceMs: 0 });
  }
  const { key } = await new ApiKeys(snapshots.store).create("bench", "enterprise");
  await snapshots.close();
  return { config, key };
}

interface Proc {
  child: ChildProcess;
  url: string;
  /** VmHWM of the process so far, MB. */
  peakRssMb(): number;
  /** VmRSS now, MB. */
  rssMb(): number;
  stop(): Promise<void>;
}

function procStatus(pid: number | undefined, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

/**
 * The node flags and script of `npm start` (package.json), so that the server measured is the one
 * served: the bundle `npm run build` writes (built once per bench run, as `prestart` does). Its
 * own flags (--demo) are left out: the bench loads its datasets itself.
 */
function startCommand(): { flags: string[]; script: string } {
  const start = (
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { start: string } }
  ).scripts.start;
  const m = /^node((?: --[\w-]+=\S+)*) (\S+\.js)(?: --[\w-]+)*$/.exec(start);
  if (!m) throw new Error(`package.json's start script has an unexpected form: ${start}`);
  return { flags: m[1].split(" ").filter(Boolean), script: m[2] };
}

let built = false;
function buildServer(): void {
  if (built) return;
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["run", "--silent", "build"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) throw new Error(`npm run build failed with exit code ${r.status}`);
  built = true;
}

/**
 * Starts an entry point as its own process with npm start's node flags (a TypeScript one through
 * tsx); resolves once it prints its URL.
 */
function startProcess(
  script: string,
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  args: string[] = [],
): Promise<Proc> {
  const { flags } = startCommand();
  const entry = script.endsWith(".ts") ? ["--import", "tsx", script] : [script];
  // Only storegraph's server is profiled (the baseline and PostGraphile are not).
  const profile =
    values["cpu-prof"] && script === startCommand().script
      ? ["--cpu-prof", `--cpu-prof-dir=${resolve(values["cpu-prof"])}`]
      : [];
  const child = spawn(process.execPath, [...flags, ...profile, ...entry, ...args], {
    cwd: root,
    // As the image runs it (docs/deploy/Dockerfile, test/deploy/deploy.test.ts), unless set.
    env: { ...MALLOC_ENV, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${out}`)), 120_000);
    const onData = (d: Buffer) => {
      out += d;
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({
          child,
          url: m[1],
          peakRssMb: () => procStatus(child.pid, "VmHWM"),
          rssMb: () => procStatus(child.pid, "VmRSS"),
          stop: () =>
            new Promise((r) => {
              if (child.exitCode !== null || child.signalCode !== null) return r();
              child.once("exit", () => r());
              child.kill("SIGTERM");
            }),
        });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}:\n${out}`)));
  });
}

interface Load {
  /** Its own connections, where the scenario measures one client's latency (default: --connections). */
  connections?: number;
  method?: "GET" | "POST";
  /** A path for each request (a function varies it per request). */
  path: string | (() => string);
  body?: string | (() => string);
  headers?: Record<string, string>;
}

/** Every field of a Domain (its defaults and those answered only on request), as `fields` names them. */
const EVERY_FIELD = [...legacyFields(schema.getType("Domain") as GraphQLObjectType).keys()].join(",");

/** A tool call of the MCP server at /mcp, as a client sends it (JSON-RPC, JSON answers). */
function mcpCall(tool: string, args: () => Record<string, unknown>): Load {
  return {
    method: "POST",
    path: "/mcp",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: () =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: tool, arguments: args() },
      }),
  };
}

/**
 * Seconds of unmeasured load before each measured run: the server's JIT and the database's page
 * cache warm up on the scenario's own requests, so the first scenario is not penalized.
 */
const WARMUP_SECONDS = Math.min(2, duration);

async function measure(base: string, key: string, load: Load, pid?: number): Promise<Omit<Row, "scenario">> {
  const pathOf = typeof load.path === "function" ? load.path : () => load.path as string;
  const bodyOf = typeof load.body === "function" ? load.body : () => load.body as string | undefined;
  const run = (seconds: number) =>
    autocannon({
      url: base,
      connections: load.connections ?? connections,
      duration: seconds,
      // A page of 1000 waits for its turn (at most 4 at once per gateway): seconds, not a failure.
      timeout: 60,
      headers: { authorization: `Bearer ${key}`, ...load.headers },
      requests: [
        {
          method: load.method ?? "GET",
          setupRequest: (req) => ({ ...req, path: pathOf(), body: bodyOf() }),
        },
      ],
    });
  // autocannon stops sending when its time is up, but the server still works through what it
  // queued (in PostgreSQL's pool, for the slow scenarios): one more request of the same kind
  // returns once that backlog is done, so the next run does not inherit it.
  const drain = async () => {
    const res = await fetch(`${base}${pathOf()}`, {
      method: load.method ?? "GET",
      headers: { authorization: `Bearer ${key}`, ...load.headers },
      body: bodyOf(),
    });
    await res.arrayBuffer();
  };
  await run(WARMUP_SECONDS);
  await drain();
  const cpuBefore = pid ? cpuMs(pid) : 0;
  const result = await run(duration);
  await drain();
  const cpu = pid ? cpuMs(pid) - cpuBefore : 0;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    // The drain's one request is counted with the run's.
    ...(pid && result.requests.total ? { cpuMs: cpu / (result.requests.total + 1) } : {}),
  };
}

/** Scenario parameters read from the served data: names, the most common filter values, an App. */
async function discover(base: string, key: string) {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const gql = async (query: string) => {
    const res = await fetch(`${base}/graphql`, { method: "POST", headers, body: JSON.stringify({ query }) });
    const body = (await res.json()) as { data: Record<string, unknown>; errors?: unknown };
    if (body.errors) throw new Error(`discovery failed: ${JSON.stringify(body.errors)}`);
    return body.data;
  };
  const sample = (await gql(
    "{ domains(first: 1000) { edges { node { name merchantName countryCode platform state categories features apps { app { platform token } } technologies { name } } } } }",
  )) as {
    domains: {
      edges: {
        node: {
          name: string;
          merchantName: string | null;
          countryCode: string | null;
          platform: string;
          state: string;
          categories: string[] | null;
          features: string[] | null;
          apps: { app: { platform: string; token: string } }[] | null;
          technologies: { name: string }[] | null;
        };
      }[];
    };
  };
  const nodes = sample.domains.edges.map((e) => e.node);
  const commonest = (values: (string | null | undefined)[]) => {
    const counts = new Map<string, number>();
    for (const v of values) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "";
  };
  const country = commonest(nodes.map((n) => n.countryCode));
  const inCountry = nodes.filter((n) => n.countryCode === country);
  const feature = commonest(inCountry.flatMap((n) => n.features ?? []));
  const withFeature = inCountry.filter((n) => n.features?.includes(feature));
  const app = commonest(
    withFeature.flatMap((n) => (n.apps ?? []).map((a) => `${a.app.platform}.${a.app.token}`)),
  );
  const appsPage = (await gql(
    "{ apps(first: 50, orderBy: [{ field: REVIEWS, direction: DESC }]) { edges { node { platform token name } } } }",
  )) as { apps: { edges: { node: { platform: string; token: string; name: string } }[] } };
  const top = appsPage.apps.edges[0].node;
  const word = /[A-Za-z]{3,}/.exec(top.name)?.[0] ?? "app";
  const anyApp = commonest(
    nodes.flatMap((n) => (n.apps ?? []).map((a) => `${a.app.platform}.${a.app.token}`)),
  );
  const q = encodeURIComponent;
  // The filters users combine most (issue 19), each with its commonest value in the sample.
  const matrixFilters: [string, string][] = [
    ["country", `f:cc=${q(country)}`],
    ["platform", `f:p=${q(commonest(nodes.map((n) => n.platform)))}`],
    ["state", `f:ds=${q(commonest(nodes.map((n) => n.state)))}`],
    ["installed App", `f:an=${q(anyApp)}`],
    ["technology", `f:tech=${q(commonest(nodes.flatMap((n) => (n.technologies ?? []).map((t) => t.name))))}`],
    ["category", `f:cat=${q(commonest(nodes.flatMap((n) => n.categories ?? [])))}`],
  ];
  return {
    matrixFilters,
    names: nodes.map((n) => n.name),
    companies: nodes.flatMap((n) => (n.merchantName ? [n.merchantName] : [])),
    filter: `f:cc=${encodeURIComponent(country)}&f:features=${encodeURIComponent(feature)}&f:an=${encodeURIComponent(app)}`,
    app: `${top.platform}.${top.token}`,
    word,
  };
}

/** Every documented sort key (docs/decisions.md), in the direction users sort by it. */
const MATRIX_SORTS = [
  "rank",
  "platform_rank",
  "-created_at",
  "-er",
  "-estimated_visits",
  "-pc",
  "-empc",
  "-mas",
  "-last_plan_change_at",
  "name",
];

/**
 * The sort × filter matrix: p50 of the first page of 50 (fields=name,rank, so that the page
 * query, not the writing, is measured) per pair, at a few connections; each filter's pairs are
 * compared with the same filter sorted by rank (target: within 2×).
 */
async function sortMatrix(base: string, key: string, filters: [string, string][]) {
  const out: NonNullable<DbResult["matrix"]> = [];
  const seconds = Math.min(duration, 2);
  for (const [filter, query] of filters) {
    console.log(`matrix: ${filter}`);
    for (const sort of MATRIX_SORTS) {
      const path = `/json/api/v1/all/domain?${query}&sort=${sort}&page_size=50&fields=name,rank`;
      const run = (secs: number) =>
        autocannon({
          url: `${base}${path}`,
          connections: MATRIX_CONNECTIONS,
          duration: secs,
          headers: { authorization: `Bearer ${key}` },
        });
      // A new sort's first requests plan and warm its index: not measured.
      await run(1);
      const r = await run(seconds);
      out.push({ filter, sort, p50: r.latency.p50, errors: r.errors + r.timeouts + r.non2xx });
    }
  }
  return out;
}

/**
 * The reads of the two exports by the database alone, in seconds: every Domain as a JSON row in
 * rank order, and name and rank in rank order, read to the end by a client that keeps nothing
 * (PostgreSQL: COPY to the client; SQLite: stepping the statement).
 */
async function databaseAlone(env: NodeJS.ProcessEnv): Promise<{ all: number; few: number }> {
  const config = loadConfig(env);
  const snapshots = await Snapshots.open(config, { refreshMs: 0, graceMs: 0 });
  try {
    const served = await snapshots.current();
    if (!served) throw new Error("no snapshot to read");
    const time = async (read: () => Promise<void>) => {
      const started = process.hrtime.bigint();
      await read();
      return Number(process.hrtime.bigint() - started) / 1e9;
    };
    if (config.database.kind === "sqlite") {
      const { default: Database } = await import("better-sqlite3");
      const db = new Database(join(config.database.dataDir, served.snapshot.location), { readonly: true });
      try {
        const step = (text: string) => async () => {
          for (const _row of db.prepare(text).raw(true).iterate()) {
            // read and dropped
          }
        };
        return {
          // Each Domain's row and its kept child rows (domain_child_rows), as JSON: the work of a default answer.
          all: await time(
            step(
              `SELECT json_object(${jsonPairs(db)}), json_array(${childColumns(db)}) FROM domain d LEFT JOIN domain_child_rows k ON k.domain_pk = d.pk ORDER BY d.rank, d.pk`,
            ),
          ),
          // Sorted once, as the export plans it (src/db/sqlite-plan.ts: sqlitePlan's `whole`):
          // SQLite's own choice, the (rank, pk) index, reads a page of the table a row.
          few: await time(step("SELECT name, rank FROM domain ORDER BY +rank, +pk")),
        };
      } finally {
        db.close();
      }
    }
    const table = `"${served.snapshot.location}"."domain"`;
    const client = new pg.Client({ connectionString: config.database.url });
    await client.connect();
    try {
      const copy = (text: string) => async () => {
        const { to } = await import("pg-copy-streams");
        const stream = client.query(to(`COPY (${text}) TO STDOUT`));
        for await (const _chunk of stream) {
          // read and dropped
        }
      };
      return {
        // Each Domain's row and its kept child rows (domain_child_rows), as JSON: the work of a default answer.
        all: await time(
          copy(
            `SELECT row_to_json(d), row_to_json(k) FROM ${table} d LEFT JOIN "${served.snapshot.location}"."domain_child_rows" k ON k.domain_pk = d.pk ORDER BY d.rank, d.pk`,
          ),
        ),
        few: await time(copy(`SELECT name, rank FROM ${table} ORDER BY rank, pk`)),
      };
    } finally {
      await client.end();
    }
  } finally {
    await snapshots.close();
  }
}

/** SQLite's json_array arguments: the kept child rows' columns (each a JSON array already). */
function childColumns(db: import("better-sqlite3").Database): string {
  const columns = db
    .prepare("SELECT name FROM pragma_table_info('domain_child_rows')")
    .pluck()
    .all() as string[];
  return columns.map((c) => `json(k."${c}")`).join(", ");
}

/** SQLite's json_object arguments for every column of the domain table. */
function jsonPairs(db: import("better-sqlite3").Database): string {
  const columns = db.prepare("SELECT name FROM pragma_table_info('domain')").pluck().all() as string[];
  return columns.map((c) => `'${c}', d."${c}"`).join(", ");
}

/** The cursor of page `pages` (of 50) of a list query, walking in pages of 1000; null if shorter. */
async function deepCursor(base: string, key: string, query: string, pages: number) {
  let cursor: string | null = null;
  let skipped = 0;
  const target = (pages - 1) * 50;
  while (skipped < target) {
    const size = Math.min(1000, target - skipped);
    const url = `${base}/json/api/v1/all/domain?${query}&fields=name&page_size=${size}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { domains: unknown[]; has_next_page: boolean; next_cursor?: string };
    skipped += body.domains.length;
    if (!body.has_next_page || !body.next_cursor) return { cursor: null, page: Math.floor(skipped / 50) };
    cursor = body.next_cursor;
  }
  return { cursor, page: pages };
}

async function exportAll(base: string, key: string, server: Proc, query = "") {
  const started = process.hrtime.bigint();
  let rss = 0;
  const timer = setInterval(() => {
    rss = Math.max(rss, server.rssMb());
  }, 100);
  // The export as it is written, not compressed, read by node:http. Node's fetch asked for gzip by
  // itself and inflated the answer in this process, and its web stream read about 50 MB/s: a
  // default-fields export of 20,000 Domains read 5,500–8,000 Domains/s whatever the server did
  // (curl read the same export in 0.5 s).
  const lines = await new Promise<number>((resolve, reject) => {
    const req = get(
      `${base}/json/api/v1/all/domain/export${query}`,
      { headers: { authorization: `Bearer ${key}`, "accept-encoding": "identity" } },
      (res) => {
        if (res.statusCode !== 200 || res.headers["content-encoding"]) {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            body += c;
          });
          res.on("end", () =>
            reject(
              new Error(
                `export answered ${res.statusCode} ${res.headers["content-encoding"] ?? ""}: ${body}`,
              ),
            ),
          );
          return;
        }
        let n = 0;
        res.on("data", (bytes: Buffer) => {
          // A native search: a loop over every byte in JavaScript reads about 80 MB/s here.
          for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) n++;
        });
        res.on("end", () => resolve(n));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
  });
  clearInterval(timer);
  // An export quicker than the sampling (name,rank at 20,000 Domains: 0.1 s) is read at its end.
  rss = Math.max(rss, server.rssMb());
  return { domains: lines, seconds: Number(process.hrtime.bigint() - started) / 1e9, rssMb: rss };
}

/** The change feed's bench (src/bench/changes.ts), on a database of its own. */
const changesOf = (kind: "sqlite" | "postgresql", size: Size) =>
  changesBench(
    {
      root,
      startServer,
      createKey: async (env) => {
        const snapshots = await Snapshots.open(loadConfig(env), { refreshMs: 0, graceMs: 0 });
        try {
          return (await new ApiKeys(snapshots.store).create("bench", "enterprise")).key;
        } finally {
          await snapshots.close();
        }
      },
      databaseEnv: (k, s) => databaseEnv(k, s, "changes"),
      seconds: duration,
      connections,
    },
    kind,
    size,
  );

/** What every result says of how it was measured. */
const measuredOf = (kind: "sqlite" | "postgresql", size: Size, run: RunInfo) => ({
  kind,
  domains: size.domains,
  apps: size.apps,
  date: new Date().toISOString().slice(0, 10),
  run,
  seconds: duration,
  connections,
});

/**
 * PostGraphile against the storegraph server at `base` (src/bench/peer.ts), on its database; where
 * the run measures SQLite too (it ran first, so its database holds the same dataset), storegraph on
 * SQLite in the same rounds, on a server of its own started for them.
 */
async function peerAgainst(size: Size, databaseUrl: string, base: string, pid: number, key: string) {
  let sqlite: Proc | undefined;
  let sqliteKey = "";
  if (kinds.includes("sqlite")) {
    const env = await databaseEnv("sqlite", size);
    sqliteKey = (await prepare(env, size)).key;
    sqlite = await startServer(env);
  }
  try {
    return await benchPeer({
      root,
      databaseUrl,
      storegraph: { base, pid, key },
      ...(sqlite && {
        sqlite: {
          base: sqlite.url.replace("localhost", "127.0.0.1"),
          pid: sqlite.child.pid as number,
          key: sqliteKey,
        },
      }),
      duration,
      connections,
      warmupSeconds: WARMUP_SECONDS,
    });
  } finally {
    await sqlite?.stop();
  }
}

/** Pushed changes (src/bench/push.ts): webhooks and live streams, on a database and dataset of their own. */
const pushOf = (kind: "sqlite" | "postgresql") =>
  pushBench(
    {
      root,
      startServer,
      databaseEnv: (k) => freshPushEnv(root, k, values["pg-url"]),
      pgUrl: values["pg-url"],
    },
    kind,
  );

async function benchDatabase(kind: "sqlite" | "postgresql", size: Size, run: RunInfo): Promise<DbResult> {
  if (values.only === "push")
    return {
      ...measuredOf(kind, size, run),
      rows: [],
      export: null,
      push: await pushOf(kind),
      peakRssMb: 0,
      notes: ["--only push: the other scenarios were not run"],
    };
  if (values.only === "changes")
    return {
      ...measuredOf(kind, size, run),
      rows: [],
      export: null,
      changes: await changesOf(kind, size),
      peakRssMb: 0,
      notes: ["--only changes: the other scenarios were not run"],
    };
  const env = await databaseEnv(kind, size);
  const { key } = await prepare(env, size);
  const server = await startServer(env);
  const baseline = values["no-baseline"]
    ? null
    : await startProcess("src/bench/baseline.ts", { ...env, PORT: "0" }, /baseline listening on (\S+)/);
  const base = server.url.replace("localhost", "127.0.0.1");
  const at = `${kind}, ${size.domains} Domains`;
  const measured = () => measuredOf(kind, size, run);
  const notes: string[] = [];
  const rows: Row[] = [];
  try {
    const d = await discover(base, key);
    if (values.only === "facets") {
      const { rows: facets, extra: facetExtra } = await facetBench(
        base,
        key,
        d.matrixFilters,
        env,
        size.domains,
      );
      return {
        ...measured(),
        rows: [],
        export: null,
        facets,
        facetExtra,
        peakRssMb: server.peakRssMb(),
        notes: ["--only facets: the other scenarios were not run"],
      };
    }
    if (values.only === "peer") {
      if (kind !== "postgresql" || !env.DATABASE_URL)
        return {
          ...measured(),
          rows: [],
          export: null,
          peakRssMb: 0,
          notes: ["--only peer: PostgreSQL only"],
        };
      const peer = await peerAgainst(size, env.DATABASE_URL, base, server.child.pid as number, key);
      return {
        ...measured(),
        rows: [],
        export: null,
        peer,
        peakRssMb: server.peakRssMb(),
        notes: ["--only peer: the other scenarios were not run"],
      };
    }
    let i = 0;
    const nextName = () => d.names[i++ % d.names.length];
    const retrieve = ROUTES.find((r) => r.methods.GET === "retrieveDomain");
    if (!retrieve) throw new Error("no retrieveDomain route");
    const plan = planOf(retrieve, { name: "x" }, Options.fromQuery(new URLSearchParams()));
    const document = print(plan.document());
    const list = `${d.filter}&sort=rank`;
    const deep = await deepCursor(base, key, list, 1000);
    if (!deep.cursor)
      notes.push(
        `the 3-filter query has ${deep.page} pages of 50; the deep scenario reads page ${deep.page}`,
      );
    const deepPage =
      deep.cursor ?? (await deepCursor(base, key, list, Math.max(1, deep.page)).then((x) => x.cursor));
    const scenarios: [string, Load, boolean][] = [
      [SCENARIOS.oneRest, { path: () => `/json/api/v1/all/domain/${nextName()}` }, true],
      [
        SCENARIOS.oneGraphql,
        {
          method: "POST",
          path: "/graphql",
          headers: { "content-type": "application/json" },
          body: () =>
            JSON.stringify({ query: document, variables: { name: nextName(), followRedirects: false } }),
        },
        false,
      ],
      [
        SCENARIOS.bulk,
        {
          method: "POST",
          path: "/json/api/v1/all/domain/bulk",
          headers: { "content-type": "application/json" },
          body: () => JSON.stringify({ domains: Array.from({ length: 100 }, nextName) }),
        },
        false,
      ],
      [SCENARIOS.listFirst, { path: `/json/api/v1/all/domain?${list}&page_size=50` }, true],
      [SCENARIOS.listFew, { path: `/json/api/v1/all/domain?${list}&page_size=50&fields=name,rank` }, true],
      [
        SCENARIOS.listDeep(deep.page),
        {
          path: `/json/api/v1/all/domain?${list}&page_size=50${deepPage ? `&cursor=${encodeURIComponent(deepPage)}` : ""}`,
        },
        false,
      ],
      // The same questions through the MCP server (stateless: each call a POST of its own), with
      // the fields and page size of the REST request each is compared with (report.ts): one
      // Domain's default fields ("*": the API's, not the tool's compact ones), and listFew's page.
      [SCENARIOS.oneMcp, mcpCall("get_domain", () => ({ name: nextName(), fields: "*" })), false],
      [
        SCENARIOS.listMcp,
        mcpCall("search_domains", () => ({
          ...Object.fromEntries(new URLSearchParams(list)),
          page_size: 50,
          fields: "name,rank",
        })),
        false,
      ],
      // Every field of a Domain, and the facets of the 3 filters: REST, then the same by MCP.
      [
        SCENARIOS.oneRestAll,
        { path: () => `/json/api/v1/all/domain/${nextName()}?fields=${EVERY_FIELD}` },
        false,
      ],
      [SCENARIOS.oneMcpAll, mcpCall("get_domain", () => ({ name: nextName(), fields: EVERY_FIELD })), false],
      [SCENARIOS.facetsRest, { path: `/json/api/v1/all/domain/facets?${d.filter}&facets=cc,p,plan` }, false],
      [
        SCENARIOS.facetsMcp,
        mcpCall("facets", () => ({
          ...Object.fromEntries(new URLSearchParams(d.filter)),
          facets: "cc,p,plan",
        })),
        false,
      ],
      [
        SCENARIOS.lookup,
        {
          path: () =>
            `/json/api/v1/all/domain/lookup?company=${encodeURIComponent(d.companies[i++ % d.companies.length] ?? "shop")}`,
        },
        false,
      ],
      [SCENARIOS.related, { path: () => `/json/api/v1/all/domain/${nextName()}/related` }, false],
      // A lookalike's latency is its CPU (16-33 ms at 1M): measured for one client, not 32 queued.
      [
        SCENARIOS.similarOne,
        { connections: 1, path: () => `/json/api/v1/all/domain/${nextName()}/similar` },
        false,
      ],
      [
        SCENARIOS.similarHundred,
        {
          connections: 1,
          method: "POST",
          path: "/json/api/v1/all/domain/similar",
          headers: { "content-type": "application/json" },
          body: () => JSON.stringify({ domains: Array.from({ length: 100 }, nextName) }),
        },
        false,
      ],
      [SCENARIOS.appsSearch, { path: `/json/api/v1/all/app?q=${encodeURIComponent(d.word)}` }, false],
      [SCENARIOS.reviews, { path: `/json/api/v1/all/app/${d.app}/reviews` }, false],
    ];
    for (const [scenario, load, withBaseline] of scenarios) {
      console.log(`${at}: ${scenario}`);
      const r = await measure(base, key, load, server.child.pid);
      const row: Row = { scenario, ...r };
      if (withBaseline && baseline) {
        const b = await measure(baseline.url, key, load);
        if (b.errors) notes.push(`baseline: ${b.errors} failed requests in "${scenario}"`);
        row.baseline = { rps: b.rps, p50: b.p50, p99: b.p99 };
      }
      rows.push(row);
    }
    const matrix = await sortMatrix(base, key, d.matrixFilters);
    const { rows: facets, extra: facetExtra } = await facetBench(
      base,
      key,
      d.matrixFilters,
      env,
      size.domains,
    );
    const peakRssMb = server.peakRssMb();
    // After the peak RSS is read: this load is on GraphQL, and not storegraph's own scenarios.
    const peer =
      kind === "postgresql" && !values["no-peer"] && env.DATABASE_URL
        ? await peerAgainst(size, env.DATABASE_URL, base, server.child.pid as number, key)
        : undefined;
    // Pages of 1000 Domains, 32 at once, on a server started afresh: its peak RSS is theirs.
    await server.stop();
    console.log(`${at}: list, pages of 1000`);
    const pagesServer = await startServer(env);
    const pagesLoad: Load = { path: "/json/api/v1/all/domain?page_size=1000" };
    let pagesRow: Row;
    let largePagesRssMb: number;
    try {
      const r = await measure(
        pagesServer.url.replace("localhost", "127.0.0.1"),
        key,
        pagesLoad,
        pagesServer.child.pid,
      );
      pagesRow = { scenario: SCENARIOS.largePages, ...r };
      largePagesRssMb = pagesServer.peakRssMb();
    } finally {
      await pagesServer.stop();
    }
    // The same pages from the hand-written SQL, once storegraph's server is gone.
    if (baseline) {
      console.log(`${at}: list, pages of 1000, hand-written SQL`);
      const b = await measure(baseline.url, key, pagesLoad);
      if (b.errors) notes.push(`baseline: ${b.errors} failed requests in "${SCENARIOS.largePages}"`);
      pagesRow.baseline = { rps: b.rps, p50: b.p50, p99: b.p99 };
    }
    rows.push(pagesRow);
    // The export runs on a server started afresh, so that its RSS is the export's own rather than
    // the heap the 32-connection scenarios grew.
    console.log(`${at}: export`);
    const fresh = await startServer(env);
    try {
      const freshBase = fresh.url.replace("localhost", "127.0.0.1");
      const exported = await exportAll(freshBase, key, fresh);
      console.log(`${at}: export, fields=name,rank`);
      const exportFew = await exportAll(freshBase, key, fresh, "?fields=name,rank");
      console.log(`${at}: the same reads by the database alone`);
      const alone = await databaseAlone(env);
      return {
        ...measured(),
        rows,
        export: exported,
        exportFew,
        databaseAlone: alone,
        matrix,
        facets,
        facetExtra,
        peakRssMb: Math.max(peakRssMb, fresh.peakRssMb()),
        largePagesRssMb,
        notes,
        peer,
      };
    } finally {
      await fresh.stop();
    }
  } finally {
    await server.stop();
    await baseline?.stop();
  }
}

/** A gateway as npm start runs it, without the per-plan rate limits (a load test), and `args`. */
function startServer(env: NodeJS.ProcessEnv, args: string[] = []): Promise<Proc> {
  buildServer();
  return startProcess(
    startCommand().script,
    { ...env, PORT: "0", HOST: "127.0.0.1" },
    /GraphQL\s+(\S+)\/graphql/,
    ["--no-rate-limits", ...args],
  );
}

/**
 * Where each database's latest results at each size are kept: in the repository (docs/benchmarks)
 * for the report users read, BENCHMARKS.md; beside the report for any other --out (CI's quick run),
 * so that a quick run never replaces a whole run's results.
 */
const KEPT =
  values.out === "BENCHMARKS.md"
    ? join("docs", "benchmarks")
    : relative(root, dirname(resolve(root, values.out)));
const kept = (f: string) => join(root, KEPT, f);

/** Whether a kept result can be reported (older benches kept no seconds or connections). */
const reportable = (r: DbResult) => typeof r.seconds === "number" && typeof r.connections === "number";

/**
 * Every result kept in docs/benchmarks (results-<N>.json: the latest measurement of each database at N
 * Domains, each naming the run that measured it).
 */
function keptResults(): DbResult[] {
  if (!existsSync(kept("."))) return [];
  return readdirSync(kept("."))
    .filter((f) => /^results-\d+\.json$/.test(f))
    .flatMap((f) => {
      const results = JSON.parse(readFileSync(kept(f), "utf8")) as DbResult[];
      if (!results.every(reportable))
        throw new Error(
          `${KEPT}/${f} was written by an older bench (no seconds or connections): measure it again`,
        );
      return results;
    });
}

/**
 * Keeps a result in results-<N>.json, in place of the same database's earlier one at that size, as
 * soon as it is measured: a run that fails later keeps what it measured, for --report-only.
 */
function keep(result: DbResult): void {
  mkdirSync(kept("."), { recursive: true });
  const file = kept(`results-${result.domains}.json`);
  const earlier = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as DbResult[]) : [];
  const others = earlier.filter((r) => reportable(r) && r.kind !== result.kind);
  writeFileSync(file, `${JSON.stringify([...others, result], null, 2)}\n`);
}

const today = () => new Date().toISOString().slice(0, 10);

/**
 * The code a run measures: the commit checked out, and whether src/ or the lockfile differ from it
 * (then the results are of uncommitted code, and the report says so).
 */
function commitOf(): string {
  const git = (...args: string[]) => spawnSync("git", args, { cwd: root, encoding: "utf8" });
  const head = git("rev-parse", "--short=10", "HEAD");
  if (head.status !== 0) return "unknown";
  const dirty = git("status", "--porcelain", "--", "src", "package.json", "package-lock.json").stdout.trim();
  return `${head.stdout.trim()}${dirty ? " with uncommitted changes" : ""}`;
}

/** This machine, as a run records it. */
function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  return `${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

const out = resolve(root, values.out);
const results: DbResult[] = [];
let text: string;
if (values["report-only"]) {
  const all = keptResults();
  if (!all.length) {
    console.error(`no results kept in ${KEPT}/results-*.json: run \`npm run bench\` first`);
    process.exit(1);
  }
  text = writeReport(all, { kind: "kept", date: today(), command: "npm run bench -- --report-only" });
} else {
  const run: RunInfo = {
    started: new Date().toISOString(),
    command: benchCommand({
      domains: sizes,
      db: values.db,
      duration,
      connections,
      noBaseline: values["no-baseline"],
      noPeer: values["no-peer"],
      only: values.only,
    }),
    machine: machine(),
    commit: commitOf(),
  };
  for (const domains of sizes) {
    const size = sizeOf(domains);
    await ensureDataset(size);
    for (const kind of kinds) {
      const result = await benchDatabase(kind, size, run);
      // The change feed, once the other scenarios' servers are gone (--only changes did it).
      if (values.only === undefined) result.changes = await changesOf(kind, size);
      // Pushed changes, on a dataset of their own: once a run, with the first size.
      if (values.only === undefined && size.domains === sizes[0]) result.push = await pushOf(kind);
      keep(result);
      results.push(result);
    }
  }
  text = writeReport(results, { kind: "run", run, finished: new Date().toISOString() });
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, text);
console.log(`\n${text}`);
// Missed targets are reported, not failed; a benchmark whose requests failed measured nothing,
// so it fails (CI runs a quick one so that the benchmark itself cannot rot).
const failures = failuresOf(results);
if (failures.length) {
  console.error(`\nbenchmark failed:\n${failures.join("\n")}`);
  process.exitCode = 1;
}
