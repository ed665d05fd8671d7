import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { ensureTools } from "../cli/tools.ts";

/**
 * The peer of the benchmark: PostGraphile 5 (src/bench/peer/graphile.config.mjs) on the same PostgreSQL
 * database and served snapshot schema as storegraph, both loaded over GraphQL with equivalent
 * selections in interleaved rounds, a random Domain per request. Run by src/bench/run.ts; its results
 * are reported by src/bench/report.ts.
 */

/** Scalar fields read the same way on both sides (text, integer and double columns). */
const FIELDS = [
  "name",
  "platformDomain",
  "tld1",
  "state",
  "platform",
  "plan",
  "lastPlatform",
  "lastPlan",
  "merchantName",
  "title",
  "description",
  "icon",
  "ogImage",
  "countryCode",
  "currencyCode",
  "languageCode",
  "administrativeAreaLevel1",
  "city",
  "region",
  "subregion",
  "postalCode",
  "streetAddress",
  "latitude",
  "longitude",
  "employeeCount",
  "rank",
  "rankPercentile",
  "platformRank",
  "platformRankPercentile",
  "productCount",
].join(" ");
const APP_FIELDS = "platform token name reviewCount averageRating installs";
const COUNTRY = "US";
const PAGE = 20;
const DEEP_PAGE = 1000;

/** Each scenario's query on each side; `after` only in the deep page. */
export const PEER_QUERIES = {
  one: {
    storegraph: `query ($name: String!) { domain(name: $name) { ${FIELDS} } }`,
    peer: `query ($name: String!) { domainByName(name: $name) { ${FIELDS} } }`,
  },
  apps: {
    storegraph: `query ($name: String!) { domain(name: $name) { name apps { app { ${APP_FIELDS} } } } }`,
    peer: `query ($name: String!) { domainByName(name: $name) { name domainAppsByDomainPk { nodes { appByAppPk { ${APP_FIELDS} } } } } }`,
  },
  list: {
    storegraph: `query ($first: Int!, $after: String) { domains(filter: { countryCode: { values: ["${COUNTRY}"] } }, orderBy: [{ field: RANK }], first: $first, after: $after) { edges { node { ${FIELDS} } } pageInfo { endCursor hasNextPage } } }`,
    peer: `query ($first: Int!, $after: Cursor) { allDomains(condition: { countryCode: "${COUNTRY}" }, orderBy: [RANK_ASC], first: $first, after: $after) { edges { node { ${FIELDS} } } pageInfo { endCursor hasNextPage } } }`,
  },
};

export interface PeerSide {
  rps: number;
  /** Medians over the rounds. */
  p50: number;
  p99: number;
  /** The server process's user + system CPU per completed request, ms. */
  cpuMs: number;
  requests: number;
  errors: number;
}

export interface PeerRow {
  scenario: string;
  storegraph: PeerSide;
  peer: PeerSide;
  /** storegraph on SQLite, on the same dataset, in the same rounds: where the run measured both databases. */
  sqlite?: PeerSide;
}

export interface PeerResult {
  version: string;
  rounds: number;
  /** Measured seconds per scenario and side, over all rounds. */
  seconds: number;
  connections: number;
  rows: PeerRow[];
  notes: string[];
}

export interface PeerOptions {
  root: string;
  /** The database storegraph serves, and storegraph's GraphQL endpoint, process and API key. */
  databaseUrl: string;
  storegraph: { base: string; pid: number; key: string };
  /** storegraph on SQLite serving the same dataset, measured in the same rounds (issue 39: at least PostgreSQL's req/s). */
  sqlite?: { base: string; pid: number; key: string };
  duration: number;
  connections: number;
  warmupSeconds: number;
}

/**
 * PostGraphile is installed into src/bench/peer on first use (src/cli/tools.ts), from its own
 * lockfile: it is the benchmark's alone, and not part of the project's npm install.
 */
const peerDir = (root: string) => join(root, "src/bench/peer");

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      s.close(() => (typeof address === "object" && address ? resolvePort(address.port) : reject()));
    });
  });
}

async function startPeer(root: string, url: string, schema: string) {
  const port = await freePort();
  ensureTools(peerDir(root));
  const cli = join(peerDir(root), "node_modules", "postgraphile", "dist", "cli-run.js");
  const args = [cli, "-C", join(peerDir(root), "graphile.config.mjs")];
  args.push("-c", url, "-s", schema, "-p", String(port), "-n", "127.0.0.1");
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, GRAPHILE_ENV: "production", NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  await new Promise<void>((ready, reject) => {
    const timer = setTimeout(() => reject(new Error(`PostGraphile did not start:\n${out}`)), 120_000);
    const onData = (d: Buffer) => {
      out += d;
      if (/Server listening on port/.test(out)) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`PostGraphile exited with ${code}:\n${out}`)));
  }).catch((e) => {
    // A peer that did not come up is not left running (it holds a port and connections).
    child.kill("SIGKILL");
    throw e;
  });
  child.stdout?.removeAllListeners("data");
  child.stderr?.removeAllListeners("data");
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    stop: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null || child.signalCode !== null) return r();
        child.once("exit", () => r());
        child.kill("SIGTERM");
      }),
  };
}

const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

/** utime + stime of a process so far, ms (fields 14 and 15 of /proc/<pid>/stat). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

interface Target {
  base: string;
  pid: number;
  headers: Record<string, string>;
}

async function gql(t: Target, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${t.base}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...t.headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: Record<string, unknown>; errors?: unknown };
  if (res.status !== 200 || body.errors || !body.data)
    throw new Error(`${t.base} answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
  return body.data;
}

interface Connection {
  edges: { node: Record<string, unknown> }[];
  pageInfo: { endCursor: string | null; hasNextPage: boolean };
}

/** The cursor after `skip` Domains of the list, walking it in pages of up to 1000. */
async function cursorAfter(t: Target, query: string, field: string, skip: number): Promise<string | null> {
  let after: string | null = null;
  for (let skipped = 0; skipped < skip; ) {
    const first = Math.min(1000, skip - skipped);
    const page = (await gql(t, query, { first, after }))[field] as Connection;
    skipped += page.edges.length;
    after = page.pageInfo.endCursor;
    if (!page.pageInfo.hasNextPage) break;
  }
  return after;
}

/** Fails unless the two answers are equal: the comparison is only honest on the same data. */
function same(what: string, a: unknown, b: unknown, sides = "storegraph and PostGraphile"): void {
  if (!isDeepStrictEqual(a, b))
    throw new Error(
      `${sides} disagree on ${what}:\n${JSON.stringify(a).slice(0, 800)}\n${JSON.stringify(b).slice(0, 800)}`,
    );
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function benchPeer(o: PeerOptions): Promise<PeerResult> {
  const notes: string[] = [];
  const db = new pg.Client({ connectionString: o.databaseUrl });
  await db.connect();
  let schema: string;
  let anyNames: string[];
  let appNames: string[];
  try {
    const served = await db.query<{ location: string }>(
      "SELECT location FROM storegraph.snapshot WHERE status = 'ready' ORDER BY version DESC LIMIT 1",
    );
    schema = served.rows[0]?.location;
    if (!schema) throw new Error("no ready snapshot to serve PostGraphile");
    const sample = async (where: string) =>
      (
        await db.query<{ name: string }>(
          `SELECT name FROM ${pg.escapeIdentifier(schema)}.domain d ${where} ORDER BY random() LIMIT 1000`,
        )
      ).rows.map((r) => r.name);
    anyNames = await sample("");
    // Domains with at least one App, so that the Apps scenario reads Apps.
    appNames = await sample(
      `WHERE EXISTS (SELECT 1 FROM ${pg.escapeIdentifier(schema)}.domain_app a WHERE a.domain_pk = d.pk)`,
    );
  } finally {
    await db.end();
  }
  if (!anyNames.length || !appNames.length) throw new Error("the snapshot has no Domains with Apps");
  const pick = (names: string[]) => names[Math.floor(Math.random() * names.length)];

  const peer = await startPeer(o.root, o.databaseUrl, schema);
  try {
    const version = (
      JSON.parse(readFileSync(join(peerDir(o.root), "node_modules/postgraphile/package.json"), "utf8")) as {
        version: string;
      }
    ).version;
    const sg: Target = {
      base: o.storegraph.base,
      pid: o.storegraph.pid,
      headers: { authorization: `Bearer ${o.storegraph.key}` },
    };
    const pe: Target = { base: peer.base, pid: peer.pid, headers: {} };
    const sq: Target | undefined = o.sqlite && {
      base: o.sqlite.base,
      pid: o.sqlite.pid,
      headers: { authorization: `Bearer ${o.sqlite.key}` },
    };

    // The same Domain, the same Apps, the same first page: or the bench measures nothing.
    const name = appNames[0];
    const a1 = (await gql(sg, PEER_QUERIES.one.storegraph, { name })).domain;
    same(`the Domain ${name}`, a1, (await gql(pe, PEER_QUERIES.one.peer, { name })).domainByName);
    const a2 = (await gql(sg, PEER_QUERIES.apps.storegraph, { name })).domain as {
      apps: { app: Record<string, unknown> }[];
    };
    const b2 = (await gql(pe, PEER_QUERIES.apps.peer, { name })).domainByName as {
      domainAppsByDomainPk: { nodes: { appByAppPk: Record<string, unknown> }[] };
    };
    const key = (x: Record<string, unknown>) => `${x.platform}.${x.token}`;
    const byKey = (xs: Record<string, unknown>[]) => [...xs].sort((x, y) => key(x).localeCompare(key(y)));
    same(
      `the Apps of ${name}`,
      byKey(a2.apps.map((x) => x.app)),
      byKey(b2.domainAppsByDomainPk.nodes.map((x) => x.appByAppPk)),
    );
    const nodes = (c: unknown) => (c as Connection).edges.map((e) => e.node);
    const first = { first: PAGE };
    const sgFirst = nodes((await gql(sg, PEER_QUERIES.list.storegraph, first)).domains);
    same(
      `the first page of ${COUNTRY} by rank`,
      sgFirst,
      nodes((await gql(pe, PEER_QUERIES.list.peer, first)).allDomains),
    );

    // Page 1000, or the last full page where the country has fewer Domains (development sizes).
    const db2 = new pg.Client({ connectionString: o.databaseUrl });
    await db2.connect();
    const count = Number(
      (
        await db2
          .query(`SELECT count(*) AS n FROM ${pg.escapeIdentifier(schema)}.domain WHERE country_code = $1`, [
            COUNTRY,
          ])
          .finally(() => db2.end())
      ).rows[0].n,
    );
    const deepPage = Math.min(DEEP_PAGE, Math.max(1, Math.floor(count / PAGE)));
    if (deepPage < DEEP_PAGE)
      notes.push(
        `${COUNTRY} has ${count} Domains here: the deep scenario reads page ${deepPage}, not ${DEEP_PAGE}`,
      );
    const skip = (deepPage - 1) * PAGE;
    const sgAfter = await cursorAfter(sg, PEER_QUERIES.list.storegraph, "domains", skip);
    const peAfter = await cursorAfter(pe, PEER_QUERIES.list.peer, "allDomains", skip);
    const sgDeep = nodes(
      (await gql(sg, PEER_QUERIES.list.storegraph, { first: PAGE, after: sgAfter })).domains,
    );
    same(
      `page ${deepPage} of ${COUNTRY} by rank`,
      sgDeep,
      nodes((await gql(pe, PEER_QUERIES.list.peer, { first: PAGE, after: peAfter })).allDomains),
    );
    // storegraph on SQLite answers the same as on PostgreSQL, or it is not the same work.
    const sqAfter = sq ? await cursorAfter(sq, PEER_QUERIES.list.storegraph, "domains", skip) : null;
    if (sq) {
      const onBoth = "storegraph on PostgreSQL and on SQLite";
      same(`the Domain ${name}`, a1, (await gql(sq, PEER_QUERIES.one.storegraph, { name })).domain, onBoth);
      const q2 = (await gql(sq, PEER_QUERIES.apps.storegraph, { name })).domain as typeof a2;
      same(`the Apps of ${name}`, byKey(a2.apps.map((x) => x.app)), byKey(q2.apps.map((x) => x.app)), onBoth);
      same(
        `the first page of ${COUNTRY} by rank`,
        sgFirst,
        nodes((await gql(sq, PEER_QUERIES.list.storegraph, first)).domains),
        onBoth,
      );
      same(
        `page ${deepPage} of ${COUNTRY} by rank`,
        sgDeep,
        nodes((await gql(sq, PEER_QUERIES.list.storegraph, { first: PAGE, after: sqAfter })).domains),
        onBoth,
      );
    }

    type Side = "storegraph" | "peer" | "sqlite";
    type Body = (side: Side) => () => string;
    // storegraph on SQLite sends storegraph's queries.
    const body =
      (q: keyof typeof PEER_QUERIES, vars: () => Record<string, unknown>): Body =>
      (side) =>
      () =>
        JSON.stringify({
          query: PEER_QUERIES[q][side === "peer" ? "peer" : "storegraph"],
          variables: vars(),
        });
    const scenarios: [string, Body][] = [
      ["one Domain by name, 30 fields", body("one", () => ({ name: pick(anyNames) }))],
      ["one Domain with its Apps (6 fields each)", body("apps", () => ({ name: pick(appNames) }))],
      [`${COUNTRY} by rank, first ${PAGE}, 30 fields`, body("list", () => first)],
      [
        `${COUNTRY} by rank, page ${deepPage} by cursor`,
        (side) =>
          body("list", () => ({
            first: PAGE,
            after: { storegraph: sgAfter, peer: peAfter, sqlite: sqAfter }[side],
          }))(side),
      ],
    ];

    const load = async (t: Target, bodyOf: () => string, seconds: number) => {
      const headers = { "content-type": "application/json", ...t.headers };
      const before = cpuMs(t.pid);
      const r = await autocannon({
        url: `${t.base}/graphql`,
        connections: o.connections,
        duration: seconds,
        headers,
        requests: [{ method: "POST", setupRequest: (req) => ({ ...req, body: bodyOf() }) }],
      });
      const cpu = cpuMs(t.pid) - before;
      // What the server still queued when autocannon stopped is done before the next window.
      await (await fetch(`${t.base}/graphql`, { method: "POST", headers, body: bodyOf() })).arrayBuffer();
      return { r, cpu };
    };

    // Rounds of at least 2 s: each scenario's measured seconds are split into rounds that rotate
    // which side goes first, so that no side always meets a machine another has just warmed.
    const rounds = Math.max(1, Math.min(5, Math.floor(o.duration / 2)));
    const window = o.duration / rounds;
    const sides: [Side, Target][] = [
      ["storegraph", sg],
      ["peer", pe],
      ...(sq ? [["sqlite", sq] as [Side, Target]] : []),
    ];
    const rotated = (round: number) => sides.map((_, i) => sides[(i + round) % sides.length]);
    const windows = scenarios.map(() => ({
      storegraph: [] as Window[],
      peer: [] as Window[],
      sqlite: [] as Window[],
    }));
    type Window = Awaited<ReturnType<typeof load>>;
    for (const [scenario, bodyOf] of scenarios)
      for (const [side, t] of sides) {
        console.log(`peer: warm-up ${side}, ${scenario}`);
        await load(t, bodyOf(side), o.warmupSeconds);
      }
    for (let round = 0; round < rounds; round++)
      for (const [i, [scenario, bodyOf]] of scenarios.entries())
        for (const [side, t] of rotated(round)) {
          console.log(`peer: round ${round + 1}/${rounds}, ${side}, ${scenario}`);
          windows[i][side].push(await load(t, bodyOf(side), window));
        }

    const summarize = (ws: Window[]): PeerSide => {
      const requests = ws.reduce((s, w) => s + w.r.requests.total, 0);
      const cpu = ws.reduce((s, w) => s + w.cpu, 0);
      return {
        rps: requests / o.duration,
        p50: median(ws.map((w) => w.r.latency.p50)),
        p99: median(ws.map((w) => w.r.latency.p99)),
        cpuMs: requests ? cpu / requests : 0,
        requests,
        errors: ws.reduce((s, w) => s + w.r.errors + w.r.timeouts + w.r.non2xx, 0),
      };
    };
    return {
      version,
      rounds,
      seconds: o.duration,
      connections: o.connections,
      rows: scenarios.map(([scenario], i) => ({
        scenario,
        storegraph: summarize(windows[i].storegraph),
        peer: summarize(windows[i].peer),
        ...(sq ? { sqlite: summarize(windows[i].sqlite) } : {}),
      })),
      notes,
    };
  } finally {
    await peer.stop();
  }
}
