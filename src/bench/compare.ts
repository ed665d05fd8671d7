import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { get } from "node:http";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { ApiKeys } from "../auth/keys.ts";
import { loadConfig } from "../config.ts";
import { Snapshots } from "../db/snapshots.ts";
import { FACET_DIMENSIONS } from "./facets.ts";
import { MALLOC_ENV } from "./measure.ts";
import { cpuMs } from "./peer.ts";

/**
 * `npm run bench:compare -- --base <checkout> [--domains 1000000] [--db postgresql] [--rounds 5] [--only <text>]`
 *
 * The hot paths of this checkout beside another's (`--base`: a worktree of the code before a
 * change, built and installed), on the database `npm run bench` keeps for that size (it must have
 * loaded it): each side's server started as `npm start` runs it, then each scenario measured in
 * interleaved rounds (base, head; head, base; …) at the same connections, and the medians of the
 * rounds given side by side with their ratio: requests a second, p50, p99 and the server's CPU per
 * request (from /proc). What issue 71 asked of a change to a hot path: within 5%, or faster.
 */
const { values } = parseArgs({
  options: {
    base: { type: "string" },
    domains: { type: "string", default: "1000000" },
    db: { type: "string", default: "postgresql" },
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    /** Only the scenarios whose name holds this text (a rerun of one). */
    only: { type: "string" },
    "pg-url": {
      type: "string",
      default: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    },
  },
});
if (!values.base) throw new Error("--base <checkout> names the code to compare with");
const root = resolve(import.meta.dirname, "../..");
const domains = Number(values.domains);
const apps = Math.max(100, Math.round(domains / 50));
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);
const kind = values.db as "sqlite" | "postgresql";
if (!["sqlite", "postgresql"].includes(kind)) throw new Error("--db is sqlite or postgresql");

/** The environment of the database npm run bench keeps for this size (src/bench/run.ts, databaseEnv). */
function databaseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn" };
  delete env.REQUIRE_HTTPS;
  delete env.NODE_ENV;
  env.DATA_DIR = join(root, "bench", "out", `${kind}-${domains}-${apps}-1`);
  if (!existsSync(env.DATA_DIR))
    throw new Error(`${env.DATA_DIR} is missing: run npm run bench at this size first`);
  if (kind === "sqlite") delete env.DATABASE_URL;
  else {
    const url = new URL(values["pg-url"]);
    url.pathname = `/storegraph_bench_${domains}_${apps}`;
    env.DATABASE_URL = url.toString();
  }
  return env;
}

interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A checkout's server as `npm start` runs it (its built bundle), without rate limits. */
async function start(checkout: string, env: NodeJS.ProcessEnv): Promise<Server> {
  const r = spawnSync("npm", ["run", "--silent", "build"], { cwd: checkout, stdio: "inherit" });
  if (r.status !== 0) throw new Error(`npm run build failed in ${checkout}`);
  const script = (
    JSON.parse(readFileSync(join(checkout, "package.json"), "utf8")) as { scripts: { start: string } }
  ).scripts.start;
  const m = /^node((?: --[\w-]+=\S+)*) (\S+\.js)/.exec(script);
  if (!m) throw new Error(`unexpected start script in ${checkout}: ${script}`);
  const child = spawn(process.execPath, [...m[1].split(" ").filter(Boolean), m[2], "--no-rate-limits"], {
    cwd: checkout,
    env: { ...MALLOC_ENV, ...env, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${checkout} did not start:\n${out}`)), 120_000);
    const onData = (d: Buffer) => {
      out += d;
      const found = /GraphQL\s+(\S+)\/graphql/.exec(out);
      if (found) {
        clearTimeout(timer);
        ok(found[1].replace("localhost", "127.0.0.1"));
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => fail(new Error(`${checkout} exited with ${code}:\n${out}`)));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  cpuMs: number;
}

type Scenario = {
  name: string;
  /** A request of the scenario (i: its number in the run). */
  request: (i: number) => { method?: "GET" | "POST"; path: string; body?: string };
  /** Measured one request at a time, each once (an export), rather than by autocannon. */
  whole?: boolean;
};

async function measure(server: Server, key: string, s: Scenario): Promise<Sample> {
  const pid = server.child.pid as number;
  if (s.whole) {
    const before = cpuMs(pid);
    const started = performance.now();
    await drain(`${server.url}${s.request(0).path}`, key);
    const ms = performance.now() - started;
    return { rps: 1000 / ms, p50: ms, p99: ms, cpuMs: cpuMs(pid) - before };
  }
  let i = 0;
  const run = (seconds: number) =>
    autocannon({
      url: server.url,
      connections,
      duration: seconds,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      requests: [
        {
          setupRequest: (req) => {
            const r = s.request(i++);
            return { ...req, method: r.method ?? "GET", path: r.path, ...(r.body ? { body: r.body } : {}) };
          },
        },
      ],
    });
  await run(Math.min(2, duration));
  const before = cpuMs(pid);
  const r = await run(duration);
  const cpu = cpuMs(pid) - before;
  if (r.errors || r.non2xx) {
    // What one such request answers, so that a scenario the API refuses says why.
    const one = s.request(0);
    const res = await fetch(`${server.url}${one.path}`, {
      method: one.method ?? "GET",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(one.body ? { body: one.body } : {}),
    });
    throw new Error(
      `${s.name}: ${r.errors} errors, ${r.non2xx} non-2xx answers; one answered ${res.status} ${(await res.text()).slice(0, 300)}`,
    );
  }
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuMs: cpu / r.requests.total };
}

/** Reads a whole answer (uncompressed, as the bench reads an export), throwing on anything but 200. */
function drain(url: string, key: string): Promise<void> {
  return new Promise((ok, fail) => {
    get(url, { headers: { authorization: `Bearer ${key}`, "accept-encoding": "identity" } }, (res) => {
      if (res.statusCode !== 200) fail(new Error(`${url} answered ${res.statusCode}`));
      res.on("data", () => {});
      res.on("end", () => ok());
      res.on("error", fail);
    }).on("error", fail);
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const env = databaseEnv();
const snapshots = await Snapshots.open(loadConfig(env), { refreshMs: 0, graceMs: 0 });
const served = await snapshots.current();
if (served?.snapshot.domains !== domains)
  throw new Error(`the bench database does not serve ${domains} Domains`);
const names = (
  await served.sql.all(`SELECT "name" FROM ${served.sql.table("domain")} ORDER BY "pk" LIMIT 20000`, [])
).map((r) => String(r[0]));
// Company to domain (issue 74): the merchant names of the sample, as a sales list names them.
const companies = (
  await served.sql.all(
    `SELECT "merchant_name" FROM ${served.sql.table("domain")} WHERE "merchant_name" IS NOT NULL ORDER BY "pk" LIMIT 2000`,
    [],
  )
).map((r) => String(r[0]));
if (!companies.length) throw new Error("the bench database's Domains have no merchant names");
const { key } = await new ApiKeys(snapshots.store).create("bench-compare", "enterprise");
await snapshots.close();
const pick = (i: number) => names[(i * 7919) % names.length];

const SCENARIOS: Scenario[] = [
  {
    name: "one Domain (REST, default fields)",
    request: (i) => ({ path: `/json/api/v1/all/domain/${pick(i)}` }),
  },
  {
    name: "a bulk of 100 (POST /domain/bulk)",
    request: (i) => ({
      method: "POST",
      path: "/json/api/v1/all/domain/bulk",
      body: JSON.stringify({ domains: Array.from({ length: 100 }, (_, j) => pick(i * 100 + j)) }),
    }),
  },
  {
    name: "a sorted page (f:p=shopify, sort=-er, 50)",
    request: () => ({
      path: "/json/api/v1/all/domain?f:p=shopify&sort=-er&page_size=50&fields=name,estimated_sales",
    }),
  },
  {
    // Afresh: each request another facet_size, so that no facet is answered from the cache.
    name: `fresh facets (f:cc=US&f:p=shopify, facets=${FACET_DIMENSIONS})`,
    request: (i) => ({
      path: `/json/api/v1/all/domain/facets?f:cc=US&f:p=shopify&facets=${FACET_DIMENSIONS}&facet_size=${20 + (i % 80)}`,
    }),
  },
  {
    name: "company to domain (GET /domain/lookup)",
    request: (i) => ({
      path: `/json/api/v1/all/domain/lookup?company=${encodeURIComponent(companies[(i * 7919) % companies.length])}`,
    }),
  },
  {
    name: "related stores (GET /domain/{name}/related)",
    request: (i) => ({ path: `/json/api/v1/all/domain/${pick(i)}/related` }),
  },
  {
    name: "the default-fields export (every Domain)",
    request: () => ({ path: "/json/api/v1/all/domain/export" }),
    whole: true,
  },
];

const sides = { base: resolve(values.base), head: root };
const servers = { base: await start(sides.base, env), head: await start(sides.head, env) };
const samples = new Map<string, { base: Sample[]; head: Sample[] }>();
try {
  for (const s of SCENARIOS.filter((x) => !values.only || x.name.includes(values.only))) {
    const got = { base: [] as Sample[], head: [] as Sample[] };
    samples.set(s.name, got);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? (["head", "base"] as const) : (["base", "head"] as const);
      for (const side of order) {
        const sample = await measure(servers[side], key, s);
        got[side].push(sample);
        console.log(
          `${s.name} · round ${round + 1} · ${side}: ${sample.rps.toFixed(1)}/s p50 ${sample.p50.toFixed(1)} ms, ${sample.cpuMs.toFixed(2)} ms CPU`,
        );
      }
    }
  }
} finally {
  await Promise.all([servers.base.stop(), servers.head.stop()]);
}

const commitOf = (dir: string) =>
  spawnSync("git", ["rev-parse", "--short=10", "HEAD"], { cwd: dir, encoding: "utf8" }).stdout.trim();
console.log(
  `\n${kind}, ${domains.toLocaleString("en-US")} Domains; base ${commitOf(sides.base)}, head ${commitOf(sides.head)}; medians of ${rounds} interleaved rounds (${connections} connections, ${duration} s each; the export one request a round)\n`,
);
console.log(
  "| scenario | base /s | head /s | head ÷ base | base p50 ms | head p50 ms | base CPU ms/req | head CPU ms/req | CPU head ÷ base |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const [name, { base, head }] of samples) {
  const m = (xs: Sample[], k: keyof Sample) => median(xs.map((x) => x[k]));
  const f = (x: number, d = 1) => x.toFixed(d);
  console.log(
    `| ${name} | ${f(m(base, "rps"))} | ${f(m(head, "rps"))} | ${f(m(head, "rps") / m(base, "rps"), 3)} | ${f(m(base, "p50"))} | ${f(m(head, "p50"))} | ${f(m(base, "cpuMs"), 2)} | ${f(m(head, "cpuMs"), 2)} | ${f(m(head, "cpuMs") / m(base, "cpuMs"), 3)} |`,
  );
}
