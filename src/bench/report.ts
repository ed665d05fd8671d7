import { PEER_QUERIES, type PeerResult } from "./peer.ts";

/**
 * What `npm run bench` (src/bench/run.ts) keeps of a run and the report it writes from it,
 * BENCHMARKS.md: a pure function of the results, so that test/bench/report.test.ts holds its layout
 * and its verdicts on fixed results (the bench itself takes minutes and a quiet machine).
 */

/** The bench's scenarios, by the names its rows carry (the report finds each row by its name). */
export const SCENARIOS = {
  oneRest: "one Domain (REST, default fields)",
  oneGraphql: "one Domain (GraphQL, same fields)",
  bulk: "bulk of 100 (default fields)",
  listFirst: "list, 3 filters, page 1 (default fields)",
  listFew: "list, 3 filters, page 1 (fields=name,rank)",
  listDeep: (page: number) => `list, 3 filters, page ${page} (default fields)`,
  appsSearch: "list Apps with q",
  reviews: "an App's reviews",
  largePages: "list, pages of 1000, 32 at once (default fields)",
  /**
   * The same questions as oneRest and listFew, as MCP tool calls (POST /mcp, issue 56): the same
   * fields and page size as the REST request each is compared with. Not listFirst's: a page of 50
   * Domains with the default fields is 700 KB, and a tool's answer is cut to 64 KB (4 Domains).
   */
  oneMcp: "one Domain (MCP get_domain, default fields)",
  listMcp: "list, 3 filters, page 1 (MCP search_domains, fields=name,rank)",
  /** One Domain with every field, and the facets of the 3 filters, by REST and by MCP (issue 75). */
  oneRestAll: "one Domain (REST, every field)",
  oneMcpAll: "one Domain (MCP get_domain, every field)",
  facetsRest: "facets of 3 filters (REST, cc,p,plan)",
  facetsMcp: "facets of 3 filters (MCP facets, cc,p,plan)",
  /** Company to domain (issue 74): a merchant name of the sample, as asked. */
  lookup: "company to domain (GET /domain/lookup, merchant names)",
  /** Related stores (issue 74): a Domain of the sample's related Domains. */
  related: "related stores (GET /domain/{name}/related)",
  /** Lookalikes (issue 74): of a Domain of the sample, and of 100 of them at once. */
  similarOne: "lookalikes of 1 seed (GET /domain/{name}/similar, 1 connection)",
  similarHundred: "lookalikes of 100 seeds (POST /domain/similar, 1 connection)",
} as const;

/** Each MCP scenario, and the REST one it is measured against. */
const MCP_TWINS: Record<string, string> = {
  [SCENARIOS.oneMcp]: SCENARIOS.oneRest,
  [SCENARIOS.listMcp]: SCENARIOS.listFew,
  [SCENARIOS.oneMcpAll]: SCENARIOS.oneRestAll,
  [SCENARIOS.facetsMcp]: SCENARIOS.facetsRest,
};

export const TARGETS = {
  /** The load (issue 72), at loadDomains: the whole load, s; ingest over the floor; peak RSS, MB. */
  loadDomains: 1_000_000,
  loadSeconds: 300,
  loadFloorRatio: 3,
  loadRssMb: 1024,
  oneDomainRatio: 0.5,
  oneDomainP99: 25,
  /** Company to domain's p50, ms (issue 74). */
  lookupP50: 20,
  /** Related stores' p50, ms (issue 74; the p99 is every scenario's tail target). */
  relatedP50: 20,
  /** Lookalikes' p50, ms, of 1 seed and of 100 (issue 74). */
  similarOneP50: 50,
  similarHundredP50: 200,
  listRatio: 0.4,
  deepVsFirst: 1.5,
  /** Default fields: Domains/s, and the share of the database alone's rate. */
  exportRate: 20_000,
  exportVsAlone: 0.4,
  exportFewRate: 200_000,
  exportRssMb: 300,
  /** A fresh server's peak RSS while it answers 32 concurrent pages of 1000 Domains. */
  largePagesRssMb: 600,
  sortVsRank: 2,
  /** storegraph's req/s over PostGraphile's, each GraphQL query; its CPU a request over PostGraphile's (issue 39). */
  peerRatio: 1.5,
  peerCpuRatio: 2 / 3,
  /**
   * An MCP tool call's server CPU against the same REST request's: at most this many times it, plus
   * mcpCpuMs (issue 75: the SDK's fixed work on each message is paid once a call, whatever its size).
   */
  mcpCpuRatio: 1.2,
  mcpCpuMs: 0.25,
  /** Every request scenario of the bench: its p99 over its p50 (issue 39). */
  tail: 3,
  /** storegraph on SQLite over storegraph on PostgreSQL, req/s, each query of the peer comparison (issue 39). */
  sqliteVsPostgres: 1,
  /** p50 from the smallest to the largest size. */
  scale: 2,
  /** Facets of five dimensions (issue 36), ms: of every Domain; afresh ≤ the larger of 2× the page and the floor; cached. */
  facetsUnfiltered: 5,
  /** Five dimensions afresh, set membership (issue 54): p50. */
  facetsMembership: 20,
  /** Any filter: p50 and p99. */
  facetsAnyP50: 50,
  facetsAnyP99: 150,
  facetsAllDimensions: 60,
  facetsHistogram: 50,
  facetsTotal: 20,
  /** MB reading the count index adds to a gateway's RSS at 1,000,000 Domains (issue 54). */
  indexRssMb: 200,
  facetsCached: 2,
  /** The change feed (issue 37): a load's events ÷ the rest of the load; export events/s; pages of 100/s. */
  changesLoadShare: 0.25,
  changesExportRate: 20_000,
  changesPages: 1000,
  /** History (issue 58): a trend, a Domain's history and an as-of lookup, p50 ms. */
  historyMs: 20,
  /** Pushed changes (issue 38): events/s to a receiver; streams' RSS (MB) and first change (ms). */
  pushEventsPerSecond: 1000,
  pushStreamsRssMb: 500,
  pushStreamsMs: 1000,
};

/** The connections of the sort × filter matrix (a few: it times the page query, not a queue). */
export const MATRIX_CONNECTIONS = 4;

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /**
   * The server's CPU (user + system, all its threads) per request of the measured run, ms: a
   * gateway core answers about 1000 / cpuMs requests a second (docs/deploy.md). Absent in
   * results kept from before it was measured.
   */
  cpuMs?: number;
}

export interface Row extends Measurement {
  scenario: string;
  /** The same requests answered by the hand-written SQL server (src/bench/baseline.ts). */
  baseline?: { rps: number; p50: number; p99: number };
}

/** One invocation of `npm run bench`: every result it keeps names it. */
export interface RunInfo {
  /** When the run started (ISO 8601, UTC): results with the same one come from the same run. */
  started: string;
  /** The command, every option spelled out. */
  command: string;
  /** The CPUs, memory and Node version of the machine that measured. */
  machine: string;
  /** The code it measured: a commit (src/bench/run.ts, commitOf); absent in runs before 2026-12-06. */
  commit?: string;
}

/** Facets of five dimensions of one filter (src/bench/facets.ts): p50 ms, one request at a time. */
export interface FacetRow {
  /** "none" for every Domain, else a filter of the sort × filter matrix. */
  filter: string;
  /** Counted afresh. */
  facets: number;
  /** The same request again (from the cache). */
  cached: number;
  /** The filter's first page of 50, fields=name,rank. */
  page: number;
  /** The same counts by the database alone (a GROUP BY per dimension, written by hand). */
  alone: number;
  errors: number;
}

/** Facets beyond the matrix (src/bench/facets.ts): random combinations, every dimension, a histogram, a total. */
export interface FacetExtra {
  /** ms afresh of five dimensions, 20 random combinations of 1–4 set-membership options. */
  membership: { p50: number; p99: number; n: number };
  /** The same with any option (ranges, `not`, a search) in the pool. */
  any: { p50: number; p99: number; n: number };
  /** p50 ms afresh: all 20 Domain dimensions; a histogram; a list page of 1 with its total. */
  allDimensions: number;
  histogram: number;
  totalCount: number;
  /**
   * The snapshot's count index: bytes stored, the ms its build took at load, its Domains, and the
   * MB reading it added to a process's RSS (absent in results taken before; null: none).
   */
  index: { bytes: number; buildMs: number; domains?: number; rssMb?: number } | null;
}

/** The change feed (src/bench/changes.ts). */
/** Runs of the change feed's pages scenario, of which the median is reported. */
export const PAGE_ROUNDS = 3;

export interface ChangesResult {
  /**
   * The load of a week: its seconds, those its events took, its events, the share of Domains
   * changed, and each step of the load (src/load-pipeline.ts; absent from results before 2026-12-06).
   */
  load: {
    seconds: number;
    changes: number;
    events: number;
    churn: number;
    steps?: { step: string; seconds: number; peakRssMb: number }[];
    /** The database's own bulk load of the same rows (src/bench/load-floor.ts; absent before 2026-12-06). */
    floor?: { seconds: number; rows: number; bytes: number; how: string };
  };
  /** GET /changes/export of the whole feed. */
  export: { events: number; seconds: number; cpuMs: number; rssMb: number };
  /** GraphQL pages of 100 at 32 connections to one gateway. */
  pages: { rps: number; p50: number; p99: number; errors: number; cpuMs: number };
  /**
   * History (issue 58), one request at a time, each asked once: trends of a dimension's values,
   * a Domain's history, a Domain as of the load before (absent from older kept results).
   */
  history?: {
    loads: number;
    trends: HistoryLatency;
    history: HistoryLatency;
    asOf: HistoryLatency;
  };
}

/** Latencies of one history scenario (ms), of `n` requests, `ok` of them answered 200. */
export interface HistoryLatency {
  n: number;
  ok: number;
  p50: number;
  p99: number;
}

/** Pushed changes (src/bench/push.ts), on a dataset of their own. */
export interface PushResult {
  kind: string;
  domains: number;
  delivery: {
    webhooks: number;
    events: number;
    expected: number;
    deliveries: number;
    largest: number;
    seconds: number;
    eventsPerSecond: number;
    cpuMsPerDelivery: number;
    complete: boolean;
  };
  kill: {
    webhooks: number;
    deliveries: number;
    events: number;
    expected: number;
    killedAfter: number;
    lost: number;
    duplicates: number;
    inFlightBound: number;
    carriedSeconds: number;
    complete: boolean;
  };
  streams: {
    streams: number;
    events: number;
    reached: number;
    complete: number;
    openRssMb: number;
    peakRssMb: number;
    firstP50Ms: number;
    firstMaxMs: number;
    allP50Ms: number;
    allMaxMs: number;
    /** The gateway's CPU from the load to the report (reading the load's changes and writing them to every stream); absent in results of before 2026-11-26. */
    gatewayCpuMs?: number;
  };
}

export interface Export {
  domains: number;
  seconds: number;
  rssMb: number;
}

export interface DbResult {
  kind: string;
  /** The dataset's size, and when it was measured. */
  domains: number;
  apps: number;
  date: string;
  /** The run that measured it; absent in results kept by benches older than the record. */
  run?: RunInfo;
  /** How it was measured: seconds per scenario (after the warm-up) and connections. */
  seconds: number;
  connections: number;
  rows: Row[];
  export: Export | null;
  /** Export Domains with fields=name,rank, on the same fresh server. */
  exportFew?: Export;
  /** The same reads by the database alone (every Domain as JSON; name and rank), seconds. */
  databaseAlone?: { all: number; few: number };
  /** p50 ms of List Domains per filter and sort (page of 50, fields=name,rank). */
  matrix?: { filter: string; sort: string; p50: number; errors: number }[];
  /** Facets of five dimensions, unfiltered and per filter of the matrix. */
  facets?: FacetRow[];
  facetExtra?: FacetExtra;
  /** The change feed: a week's load, the export, and pages. */
  changes?: ChangesResult;
  /** Pushed changes: webhooks' deliveries, a gateway killed mid-delivery, live streams. */
  push?: PushResult;
  peakRssMb: number;
  /** The peak RSS of a server answering only 32 concurrent pages of 1000 Domains. */
  largePagesRssMb?: number;
  notes: string[];
  /** storegraph and PostGraphile over GraphQL (PostgreSQL only). */
  peer?: PeerResult;
}

/**
 * How the report was come by: written by the run that measured every result in it, or rewritten
 * (`--report-only`) from kept results, which may come from several runs.
 */
export type ReportSource =
  | { kind: "run"; run: RunInfo; finished: string }
  | { kind: "kept"; date: string; command: string };

/** `--domains`: one size or a comma list of them, each an integer ≥ 100; smallest first, once each. */
export function parseDomainList(text: string): number[] {
  const sizes = text.split(",").map((s) => s.trim().replaceAll("_", ""));
  if (!sizes.length || sizes.some((s) => !/^\d+$/.test(s) || Number(s) < 100))
    throw new Error(`--domains must be integers ≥ 100, separated by commas (got "${text}")`);
  return [...new Set(sizes.map(Number))].sort((a, b) => a - b);
}

/** The command of a run with every option spelled out, as the report's header names it. */
export function benchCommand(o: {
  domains: readonly number[];
  db: string;
  duration: number;
  connections: number;
  noBaseline: boolean;
  noPeer: boolean;
  only?: string;
}): string {
  const flags = [
    `--domains ${o.domains.join(",")}`,
    `--db ${o.db}`,
    `--duration ${o.duration}`,
    `--connections ${o.connections}`,
    ...(o.noBaseline ? ["--no-baseline"] : []),
    ...(o.noPeer ? ["--no-peer"] : []),
    ...(o.only ? [`--only ${o.only}`] : []),
  ];
  return `npm run bench -- ${flags.join(" ")}`;
}

// ---------------------------------------------------------------------------- formatting

const DATABASES: Record<string, string> = { postgresql: "PostgreSQL", sqlite: "SQLite" };
const databaseName = (kind: string) => DATABASES[kind] ?? kind;
const count = (n: number) => Math.round(n).toLocaleString("en-US");
const listed = (xs: string[]) =>
  xs.length < 2 ? (xs[0] ?? "") : `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`;
const percent = (x: number) => `${(100 * x).toFixed(0)}%`;
/** a / b, or null when either side completed nothing (a rate of 0). */
const ratioOf = (a: number, b: number): number | null => (a > 0 && b > 0 ? a / b : null);
const verdict = (ok: boolean, text: string) => `${ok ? "met" : "MISSED"}: ${text}`;
const rateOf = (e: Export) => e.domains / e.seconds;
/** The tail target of a request scenario: p99 within TARGETS.tail × p50, with the ratio where missed. */
const tailTarget = (p50: number, p99: number) =>
  p50 > 0 && p99 <= TARGETS.tail * p50
    ? verdict(true, `p99 ≤ ${TARGETS.tail}× p50`)
    : verdict(
        false,
        `p99 ≤ ${TARGETS.tail}× p50${p50 > 0 ? ` (${(p99 / p50).toFixed(1)}×)` : " (no p50: nothing completed)"}`,
      );
/** A run's start, to the minute (UTC). */
/** The code a run measured, where it recorded it. */
const codeOf = (run: RunInfo) => (run.commit ? `, of commit ${run.commit}` : "");
const startOf = (run: RunInfo) => `${run.started.slice(0, 16).replace("T", " ")} UTC`;

/** The sizes and databases of some results: "20,000 Domains on PostgreSQL and SQLite and 1,000,000 …". */
function coverage(results: DbResult[]): string {
  const sizes = [...new Set(results.map((r) => r.domains))].sort((a, b) => a - b);
  const parts = sizes.map((n) => {
    const kinds = results.filter((r) => r.domains === n).map((r) => databaseName(r.kind));
    return `${count(n)} Domains on ${listed(kinds)}`;
  });
  return listed(parts);
}

/** The order of the report: the largest size first, then the databases by name. */
const order = (a: DbResult, b: DbResult) => b.domains - a.domains || a.kind.localeCompare(b.kind);

/** Each pair's p50 over its filter's p50 sorted by rank. */
export function matrixRatios(matrix: NonNullable<DbResult["matrix"]>) {
  return matrix.map((m) => {
    const byRank = matrix.find((x) => x.filter === m.filter && x.sort === "rank");
    return { ...m, ratio: m.p50 / Math.max(byRank?.p50 ?? m.p50, 1) };
  });
}

// ---------------------------------------------------------------------------- the header

function header(results: DbResult[], source: ReportSource): string[] {
  const lines = ["# Benchmarks", ""];
  if (source.kind === "run") {
    const run = source.run;
    const strangers = results.filter((r) => r.run?.started !== run.started);
    if (strangers.length)
      throw new Error(
        `a report of one run was given results of others: ${strangers.map((r) => `${r.kind} ${r.domains}`).join(", ")}`,
      );
    lines.push(
      `Every number in this file comes from one run: \`${run.command}\`, started ${startOf(run)} and finished ${source.finished.slice(0, 16).replace("T", " ")} UTC, on ${run.machine}${codeOf(run)}. It measured ${coverage(results)}, one after another on that machine. The next \`npm run bench\` rewrites the whole file.`,
    );
  } else {
    const runs = [
      ...new Map(results.flatMap((r) => (r.run ? [[r.run.started, r.run] as const] : []))).values(),
    ];
    const unrecorded = results.filter((r) => !r.run);
    const from =
      runs.length === 1 && !unrecorded.length
        ? "Every number in it comes from one run, below"
        : runs.length
          ? "Its numbers come from more than one run, below, on different days or hours: they are not one measurement"
          : "Its numbers come from a bench that did not record its runs: they may not be one measurement";
    lines.push(
      `Rewritten by \`${source.command}\` on ${source.date} from the results kept in docs/benchmarks/results-*.json, measuring nothing. ${from}; each section says which run measured it and when.`,
      "",
      ...runs
        .sort((a, b) => a.started.localeCompare(b.started))
        .map(
          (run) =>
            `- The run started ${startOf(run)}: \`${run.command}\` on ${run.machine}${codeOf(run)}; it measured ${coverage(results.filter((r) => r.run?.started === run.started))} of this report.`,
        ),
      ...(unrecorded.length
        ? [
            `- Kept by a bench that did not record its runs (no command or machine): ${coverage(unrecorded)}, measured ${listed([...new Set(unrecorded.map((r) => r.date))].sort())}.`,
          ]
        : []),
    );
  }
  lines.push(
    "",
    "Load: autocannon from another process than the server, each scenario after up to 2 s of unmeasured warm-up; each section gives its connections and seconds per scenario. Missed targets are reported, not failed.",
    "",
    "Beside storegraph's figures, each table gives the comparison the bench measured for that scenario, labelled for what it is:",
    "",
    "- **hand-written SQL**: the raw-SQL baseline server (src/bench/baseline.ts), the same REST requests answered with hand-written statements and JSON.stringify, on the same database;",
    "- **PostGraphile**: PostGraphile 5 on the same PostgreSQL database and snapshot schema (src/bench/peer.ts), the GraphQL queries listed at the end, in interleaved rounds; it runs on PostgreSQL only;",
    "- **storegraph on PostgreSQL**: beside storegraph on SQLite, the same four GraphQL queries in the same rounds (in the PostgreSQL section, where a run measured both databases);",
    "- **the database alone**: the export's read by the database itself to a client that keeps nothing (PostgreSQL's COPY; SQLite stepping the statement), in Domains/s.",
    "",
    "Hand measurements behind past decisions (before/after tables and profiles) are in docs/performance-history.md, not here.",
    "",
  );
  return lines;
}

/** The run and date of one result, as its section says them. */
function measuredBy(r: DbResult, source: ReportSource): string {
  if (source.kind === "run") return `measured ${r.date} in this run`;
  return r.run
    ? `measured ${r.date} by the run started ${startOf(r.run)}`
    : `measured ${r.date} by a bench that did not record its run`;
}

// ---------------------------------------------------------------------------- scale

/** Latency from the smallest to the largest size, per database: the target is within 2×. */
function scale(results: DbResult[], source: ReportSource): string[] {
  const sizes = [...new Set(results.map((r) => r.domains))].sort((a, b) => a - b);
  if (sizes.length < 2)
    return [
      "## Scale",
      "",
      `Not measured: the scale target (p50 within ${TARGETS.scale}× from the smallest to the largest size) needs two sizes, and this report has ${sizes.length ? `only ${count(sizes[0])} Domains` : "none"}.`,
      "",
    ];
  const [small, large] = [sizes[0], sizes[sizes.length - 1]];
  const runsOf = (kind: string) =>
    new Set(
      results
        .filter((r) => r.kind === kind && (r.domains === small || r.domains === large))
        .map((r) => r.run?.started ?? r.date),
    );
  const apart = ["sqlite", "postgresql"].some((kind) => runsOf(kind).size > 1);
  const lines = [
    `## Scale: ${count(small)} → ${count(large)} Domains`,
    "",
    `p50 latency (ms) at each section's connections; target: within ${TARGETS.scale}× (lookup and list). Apps grow with Domains (one per 50): the larger size searches 50× more Apps.`,
    source.kind === "run"
      ? "Both sizes were measured in this run, one after the other; a shared machine's speed can still change between them."
      : apart
        ? "Some of these sizes were measured in different runs (see each section), and a shared machine's speed changes between runs: read the × with that in mind."
        : "Both sizes come from the same run, measured one after the other.",
    "Where the hand-written SQL answers the scenario, its own × is given, measured on the same data: ÷ hand-written SQL is storegraph's × divided by it, above 1 where storegraph's latency grew more (or fell less) than the hand-written SQL's. It is not the target, which is on storegraph's own ×.",
    "",
    "| database | scenario | p50 small | p50 large | × | hand-written SQL × | ÷ hand-written SQL | target |",
    "|---|---|---|---|---|---|---|---|",
  ];
  const scaled = new Set<string>([
    SCENARIOS.oneRest,
    SCENARIOS.listFirst,
    SCENARIOS.listFew,
    SCENARIOS.appsSearch,
    SCENARIOS.reviews,
  ]);
  for (const kind of ["postgresql", "sqlite"]) {
    const a = results.find((r) => r.kind === kind && r.domains === small);
    const b = results.find((r) => r.kind === kind && r.domains === large);
    if (!a || !b) continue;
    for (const row of a.rows.filter((x) => scaled.has(x.scenario))) {
      const other = b.rows.find((x) => x.scenario === row.scenario);
      if (!other) continue;
      const times = other.p50 / Math.max(row.p50, 0.01);
      const base =
        row.baseline && other.baseline ? other.baseline.p50 / Math.max(row.baseline.p50, 0.01) : null;
      const own = base === null ? "" : (times / Math.max(base, 0.01)).toFixed(2);
      lines.push(
        `| ${databaseName(kind)} | ${row.scenario} | ${row.p50} | ${other.p50} | ${times.toFixed(2)} | ${base === null ? "" : base.toFixed(2)} | ${own} | ${times <= TARGETS.scale ? "met" : "MISSED"} |`,
      );
    }
  }
  lines.push("");
  return lines;
}

// ---------------------------------------------------------------------------- a section

/** One line of a section's table. */
interface Line {
  scenario: string;
  rate: string;
  p50?: number;
  p99?: number;
  cpuMs?: number;
  rssMb?: number;
  failed: string;
  beside: string;
  theirs?: { rate: string; p99?: number; cpuMs?: number };
  ratio?: number | null;
  targets: string[];
}

const cells = (l: Line) => {
  const perCore = l.cpuMs ? count(1000 / l.cpuMs) : "";
  const ratio = l.ratio === undefined ? "" : l.ratio === null ? "n/a" : l.ratio.toFixed(2);
  return [
    l.scenario,
    l.rate,
    l.p50 ?? "",
    l.p99 ?? "",
    l.cpuMs ? l.cpuMs.toFixed(2) : "",
    perCore,
    l.rssMb ?? "",
    l.failed,
    l.beside,
    l.theirs?.rate ?? "",
    l.theirs?.p99 ?? "",
    l.theirs?.cpuMs ? l.theirs.cpuMs.toFixed(2) : "",
    ratio,
    l.targets.join("; "),
  ];
};
const TABLE_HEAD = [
  "| scenario | req/s (exports: Domains/s) | p50 ms | p99 ms | server CPU ms/req | req/s per gateway core | server peak RSS MB | failed | beside it | its req/s (Domains/s) | its p99 ms | its CPU ms/req | ours ÷ its | targets |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
];

/** A ratio against a target: met, MISSED, or not measured when a side completed nothing. */
function ratioTarget(x: number | null, min: number, what: string, seconds: number): string {
  if (x === null)
    return verdict(false, `${what} (not measured: a side completed no request within ${seconds} s)`);
  return verdict(x >= min, `${what} (${percent(x)})`);
}

/** The scenario rows of one database at one size, each beside what the bench compared it with. */
function sectionLines(r: DbResult): { lines: Line[]; notes: string[] } {
  const lines: Line[] = [];
  const notes: string[] = [];
  const postgres = r.kind === "postgresql";
  const first = r.rows.find((x) => x.scenario === SCENARIOS.listFirst);
  const deepPattern = /^list, 3 filters, page \d+ \(default fields\)$/;
  const deep = r.rows.find((x) => deepPattern.test(x.scenario) && x !== first);
  const sql = "hand-written SQL";
  for (const row of r.rows) {
    const line: Line = {
      scenario: row.scenario,
      rate: count(row.rps),
      p50: row.p50,
      p99: row.p99,
      cpuMs: row.cpuMs,
      failed: String(row.errors),
      beside: "",
      targets: [],
    };
    if (row.baseline) {
      line.beside = sql;
      line.theirs = { rate: count(row.baseline.rps), p99: row.baseline.p99 };
      line.ratio = ratioOf(row.rps, row.baseline.rps);
    }
    switch (row.scenario) {
      case SCENARIOS.lookup:
        line.targets.push(verdict(row.p50 <= TARGETS.lookupP50, `p50 ≤ ${TARGETS.lookupP50} ms`));
        break;
      // Their p99 ≤ 3× p50 is every scenario's tail target (TARGETS.tail), told once.
      case SCENARIOS.related:
        line.targets.push(verdict(row.p50 <= TARGETS.relatedP50, `p50 ≤ ${TARGETS.relatedP50} ms`));
        break;
      case SCENARIOS.similarOne:
      case SCENARIOS.similarHundred: {
        const p50 = row.scenario === SCENARIOS.similarOne ? TARGETS.similarOneP50 : TARGETS.similarHundredP50;
        line.targets.push(verdict(row.p50 <= p50, `p50 ≤ ${p50} ms`));
        break;
      }
      case SCENARIOS.oneRest: {
        if (!row.baseline) line.beside = `${sql}: not measured in this run`;
        else
          line.targets.push(
            ratioTarget(
              line.ratio ?? null,
              TARGETS.oneDomainRatio,
              `≥ ${percent(TARGETS.oneDomainRatio)} of it`,
              r.seconds,
            ),
          );
        line.targets.push(verdict(row.p99 < TARGETS.oneDomainP99, `p99 < ${TARGETS.oneDomainP99} ms`));
        // With `connections` requests always in flight, the mean latency is connections / throughput
        // (Little's law): the p99 cannot be under it, whatever the code does.
        if (row.rps > 0)
          notes.push(
            `${row.scenario}: with ${r.connections} requests in flight the mean latency is ${r.connections} / ${count(row.rps)} req/s = ${((1000 * r.connections) / row.rps).toFixed(1)} ms, which the p99 cannot be under${row.baseline ? `; the hand-written SQL's p99 is ${row.baseline.p99} ms` : ""}.`,
          );
        break;
      }
      case SCENARIOS.oneGraphql:
        line.beside = !postgres
          ? "PostGraphile runs on PostgreSQL only"
          : r.peer
            ? "PostGraphile: on the GraphQL queries below"
            : "PostGraphile: not measured in this run";
        break;
      case SCENARIOS.bulk:
        line.beside = `${sql}: not measured (the baseline has no bulk route)`;
        break;
      case SCENARIOS.listFirst:
        if (!row.baseline) line.beside = `${sql}: not measured in this run`;
        else
          line.targets.push(
            ratioTarget(
              line.ratio ?? null,
              TARGETS.listRatio,
              `≥ ${percent(TARGETS.listRatio)} of it`,
              r.seconds,
            ),
          );
        break;
      case SCENARIOS.listFew:
        if (!row.baseline) line.beside = `${sql}: not measured in this run`;
        break;
      case SCENARIOS.oneMcp:
      case SCENARIOS.listMcp:
      case SCENARIOS.oneMcpAll:
      case SCENARIOS.facetsMcp: {
        const rest = r.rows.find((x) => x.scenario === MCP_TWINS[row.scenario]);
        line.beside = rest ? `REST: ${rest.scenario}` : "REST: not measured in this run";
        if (rest?.cpuMs && row.cpuMs) {
          const x = row.cpuMs / rest.cpuMs;
          const bound = TARGETS.mcpCpuRatio * rest.cpuMs + TARGETS.mcpCpuMs;
          line.targets.push(
            verdict(
              row.cpuMs <= bound,
              `CPU ≤ ${TARGETS.mcpCpuRatio}× REST's + ${TARGETS.mcpCpuMs} ms (${row.cpuMs.toFixed(2)} ms against ${bound.toFixed(2)}; ${x.toFixed(2)}×)`,
            ),
          );
        }
        break;
      }
      case SCENARIOS.largePages:
        if (!row.baseline) line.beside = `${sql}: not measured in this run`;
        if (r.largePagesRssMb !== undefined) {
          line.rssMb = r.largePagesRssMb;
          line.targets.push(
            verdict(r.largePagesRssMb < TARGETS.largePagesRssMb, `peak RSS < ${TARGETS.largePagesRssMb} MB`),
          );
        }
        break;
      default:
        if (row === deep) {
          line.beside = `${sql}: not measured (the baseline serves first pages only)`;
          if (first) {
            const x = ratioOf(first.rps, deep.rps);
            line.targets.push(
              verdict(
                x !== null && x <= TARGETS.deepVsFirst,
                `within ${TARGETS.deepVsFirst}× of page 1's req/s (${x === null ? `not measured: a side completed no request within ${r.seconds} s` : `${x.toFixed(2)}×`})`,
              ),
            );
          }
        }
    }
    line.targets.push(tailTarget(row.p50, row.p99));
    lines.push(line);
    // The GraphQL queries measured against PostGraphile follow storegraph's own GraphQL row.
    if (row.scenario === SCENARIOS.oneGraphql && r.peer)
      lines.push(...peerLines(r.peer), ...sqliteLines(r.peer));
  }
  // Measured alone (--only peer): the queries without storegraph's own rows.
  if (r.peer && !r.rows.some((row) => row.scenario === SCENARIOS.oneGraphql))
    lines.push(...peerLines(r.peer), ...sqliteLines(r.peer));
  // The exports, each beside the same read by the database alone.
  const exports: [string, Export | null | undefined, number | undefined, string][] = [
    [
      "every Domain, default fields",
      r.export,
      r.databaseAlone?.all,
      "every column and the kept child rows as JSON",
    ],
    ["every Domain, fields=name,rank", r.exportFew, r.databaseAlone?.few, "name and rank"],
  ];
  for (const [what, e, alone, read] of exports) {
    if (!e) continue;
    const rate = rateOf(e);
    const aloneRate = alone ? r.domains / alone : undefined;
    const line: Line = {
      scenario: `export: ${what} (${count(e.domains)} in ${e.seconds.toFixed(1)} s)`,
      rate: count(rate),
      rssMb: e.rssMb,
      failed: e.domains === r.domains ? "0" : `wrote ${count(e.domains)} of ${count(r.domains)} Domains`,
      beside: aloneRate ? `the database alone (${read})` : "the database alone: not measured in this run",
      theirs: aloneRate ? { rate: count(aloneRate) } : undefined,
      ratio: aloneRate ? ratioOf(rate, aloneRate) : undefined,
      targets: [],
    };
    const few = e === r.exportFew;
    const minRate = few ? TARGETS.exportFewRate : TARGETS.exportRate;
    line.targets.push(verdict(rate >= minRate, `≥ ${count(minRate)} Domains/s`));
    if (!few && aloneRate)
      line.targets.push(
        verdict(
          rate / aloneRate >= TARGETS.exportVsAlone,
          `≥ ${percent(TARGETS.exportVsAlone)} of the database alone (${percent(rate / aloneRate)})`,
        ),
      );
    line.targets.push(verdict(e.rssMb < TARGETS.exportRssMb, `RSS < ${TARGETS.exportRssMb} MB`));
    lines.push(line);
  }
  return { lines, notes };
}

/** storegraph's and PostGraphile's side of each GraphQL query of src/bench/peer.ts. */
function peerLines(p: PeerResult): Line[] {
  return p.rows.map((x) => {
    const s = x.storegraph;
    const o = x.peer;
    const ratio = ratioOf(s.rps, o.rps);
    return {
      scenario: `GraphQL: ${x.scenario} (rounds interleaved with PostGraphile)`,
      rate: count(s.rps),
      p50: s.p50,
      p99: s.p99,
      cpuMs: s.cpuMs,
      failed: o.errors ? `${s.errors} (PostGraphile: ${o.errors})` : String(s.errors),
      beside: `PostGraphile ${p.version}`,
      theirs: { rate: count(o.rps), p99: o.p99, cpuMs: o.cpuMs },
      ratio,
      targets: [
        ratio === null
          ? verdict(false, `≥ ${TARGETS.peerRatio}× its req/s (not measured: a side completed no request)`)
          : verdict(ratio >= TARGETS.peerRatio, `≥ ${TARGETS.peerRatio}× its req/s`),
        verdict(
          s.cpuMs > 0 && o.cpuMs > 0 && s.cpuMs <= TARGETS.peerCpuRatio * o.cpuMs,
          `CPU a request ≤ 2/3 of its (${o.cpuMs > 0 ? (s.cpuMs / o.cpuMs).toFixed(2) : "not measured"})`,
        ),
        tailTarget(s.p50, s.p99),
      ],
    };
  });
}

/** storegraph on SQLite beside storegraph on PostgreSQL, in the peer comparison's rounds. */
function sqliteLines(p: PeerResult): Line[] {
  return p.rows.flatMap((x) => {
    const q = x.sqlite;
    if (!q) return [];
    const s = x.storegraph;
    const ratio = ratioOf(q.rps, s.rps);
    return [
      {
        scenario: `GraphQL on SQLite: ${x.scenario} (the same rounds)`,
        rate: count(q.rps),
        p50: q.p50,
        p99: q.p99,
        cpuMs: q.cpuMs,
        failed: String(q.errors),
        beside: "storegraph on PostgreSQL",
        theirs: { rate: count(s.rps), p99: s.p99, cpuMs: s.cpuMs },
        ratio,
        targets: [
          ratio === null
            ? verdict(false, "≥ PostgreSQL's req/s (not measured: a side completed no request)")
            : verdict(ratio >= TARGETS.sqliteVsPostgres, "≥ PostgreSQL's req/s"),
          tailTarget(q.p50, q.p99),
        ],
      },
    ];
  });
}

/** The sort × filter matrix: p50 ms, and × the same filter sorted by rank. */
function matrixSection(r: DbResult): string[] {
  if (!r.matrix?.length) return [];
  const ratios = matrixRatios(r.matrix);
  const filters = [...new Set(ratios.map((m) => m.filter))];
  const sorts = [...new Set(ratios.map((m) => m.sort))];
  const slow = ratios.filter((m) => m.ratio > TARGETS.sortVsRank);
  return [
    "",
    `Sort × filter: p50 ms of the first page of 50 (REST, fields=name,rank, ${MATRIX_CONNECTIONS} connections), and × the same filter sorted by rank.`,
    "",
    `| filter | ${sorts.join(" | ")} |`,
    `|---|${sorts.map(() => "---").join("|")}|`,
    ...filters.map(
      (f) =>
        `| ${f} | ${sorts
          .map((s) => {
            const m = ratios.find((x) => x.filter === f && x.sort === s);
            return m ? `${m.p50} (${m.ratio.toFixed(1)}×)${m.errors ? ` ${m.errors} failed` : ""}` : "";
          })
          .join(" | ")} |`,
    ),
    "",
    `Target: ${verdict(
      !slow.length,
      `every sort × filter pair within ${TARGETS.sortVsRank}× of the filter sorted by rank (${slow.length ? slow.map((m) => `${m.filter} by ${m.sort}: ${m.ratio.toFixed(1)}×`).join(", ") : "all"})`,
    )}`,
  ];
}

/** The bound a filter's facets afresh are held to: 2× its first page, or the floor if larger. */
export const facetBound = (f: FacetRow) =>
  f.filter === "none" ? TARGETS.facetsUnfiltered : TARGETS.facetsMembership;

/**
 * What reading the index adds to a process's RSS; held to the target at a million Domains or more
 * (below, the runtime's own fixed costs are most of it).
 */
function indexMemory(index: NonNullable<FacetExtra["index"]>): string {
  const { rssMb, domains } = index;
  if (rssMb === undefined || !Number.isFinite(rssMb)) return "";
  const judged =
    domains !== undefined && domains >= 1_000_000
      ? ` (${verdict(rssMb <= TARGETS.indexRssMb, `≤ ${TARGETS.indexRssMb} MB at 1M`)})`
      : ` (the target, ≤ ${TARGETS.indexRssMb} MB, is for 1,000,000 Domains)`;
  return `; reading it adds ${rssMb.toFixed(0)} MB to a process's RSS${judged}`;
}

/** Random combinations, every dimension, a histogram and a total, and the count index's build. */
function facetExtraSection(x: FacetExtra | undefined, ms: (n: number) => string): string[] {
  if (!x) return [];
  const t = TARGETS;
  return [
    "",
    `Counted afresh (each combination asked once, so nothing of it is cached): five dimensions over ${x.membership.n} random combinations of 1–4 set-membership options, p50 ${ms(x.membership.p50)} ms, p99 ${ms(x.membership.p99)} ms (${verdict(x.membership.p50 <= t.facetsMembership, `p50 ≤ ${t.facetsMembership} ms`)}); over ${x.any.n} of any options (ranges, \`not\`, a search), p50 ${ms(x.any.p50)} ms, p99 ${ms(x.any.p99)} ms (${verdict(x.any.p50 <= t.facetsAnyP50 && x.any.p99 <= t.facetsAnyP99, `p50 ≤ ${t.facetsAnyP50}, p99 ≤ ${t.facetsAnyP99} ms`)}); all 20 Domain dimensions p50 ${ms(x.allDimensions)} ms (${verdict(x.allDimensions <= t.facetsAllDimensions, `≤ ${t.facetsAllDimensions} ms`)}); a histogram p50 ${ms(x.histogram)} ms (${verdict(x.histogram <= t.facetsHistogram, `≤ ${t.facetsHistogram} ms`)}); a page of 1 with its total p50 ${ms(x.totalCount)} ms (${verdict(x.totalCount <= t.facetsTotal, `≤ ${t.facetsTotal} ms`)}).`,
    "",
    x.index
      ? `The count index (src/db/count-index.ts): ${(x.index.bytes / 1e6).toFixed(1)} MB stored in the snapshot, built in ${(x.index.buildMs / 1000).toFixed(1)} s at load${indexMemory(x.index)}.`
      : "The snapshot has no count index: every count is made by SQL.",
  ];
}

/** Facets of five dimensions: p50 ms afresh, cached, the page and the database alone. */
function facetsSection(r: DbResult): string[] {
  if (!r.facets?.length) return [];
  const ms = (n: number) => (n < 10 ? n.toFixed(1) : Math.round(n).toString());
  const slow = r.facets.filter((f) => f.facets > facetBound(f));
  const slowCached = r.facets.filter((f) => f.cached > TARGETS.facetsCached);
  return [
    "",
    "Facets of five dimensions (GET /domain/facets?facets=cc,p,plan,cat,tech, one request at a time): p50 ms counted afresh, the same request again (cached), the filter's first page (fields=name,rank), and the same counts by the database alone (one GROUP BY per dimension, written by hand), with afresh ÷ alone.",
    "",
    "| filter | facets | bound | cached | page | database alone | ÷ alone |",
    "|---|---|---|---|---|---|---|",
    ...r.facets.map(
      (f) =>
        `| ${f.filter} | ${ms(f.facets)} | ${ms(facetBound(f))} | ${ms(f.cached)} | ${ms(f.page)} | ${ms(f.alone)} | ${(f.facets / Math.max(f.alone, 0.001)).toFixed(2)}×${f.errors ? ` (${f.errors} failed)` : ""} |`,
    ),
    "",
    `Targets: ${verdict(!slow.length, `unfiltered ≤ ${TARGETS.facetsUnfiltered} ms, each filter (set membership) ≤ ${TARGETS.facetsMembership} ms (${slow.length ? slow.map((f) => `${f.filter}: ${ms(f.facets)} ms`).join(", ") : "all"})`)}; ${verdict(!slowCached.length, `cached ≤ ${TARGETS.facetsCached} ms (${slowCached.length ? slowCached.map((f) => `${f.filter}: ${ms(f.cached)} ms`).join(", ") : "all"})`)}`,
    ...facetExtraSection(r.facetExtra, ms),
  ];
}

/** The change feed: a week's load, the export of the feed, and GraphQL pages of 100. */
function changesSection(r: DbResult): string[] {
  const c = r.changes;
  if (!c) return [];
  const rest = c.load.seconds - c.load.changes;
  const share = rest > 0 ? c.load.changes / rest : 0;
  const rate = c.export.seconds ? c.export.events / c.export.seconds : 0;
  return [
    "",
    `Change feed: the load of a week (${count(c.load.events)} events; ${(100 * c.load.churn).toFixed(1)}% of the Domains changed) took ${c.load.seconds.toFixed(1)} s, of which its events ${c.load.changes.toFixed(1)} s (${(100 * share).toFixed(1)}% of the rest). GET /changes/export of the whole feed (${count(c.export.events)} events): ${Math.round(rate).toLocaleString("en-US")} events/s, ${((c.export.cpuMs / Math.max(1, c.export.events)) * 1000).toFixed(1)} µs of server CPU an event, peak RSS ${c.export.rssMb} MB. GraphQL changes(first: 100) from cursors spread over the feed, one gateway (the median of ${PAGE_ROUNDS} runs): ${Math.round(c.pages.rps)} pages/s, p50 ${c.pages.p50} ms, p99 ${c.pages.p99} ms, ${c.pages.cpuMs.toFixed(2)} ms of server CPU a page.`,
    "",
    `Targets: ${verdict(share <= TARGETS.changesLoadShare, `events ≤ ${100 * TARGETS.changesLoadShare}% of the load`)}; ${verdict(rate >= TARGETS.changesExportRate, `export ≥ ${count(TARGETS.changesExportRate)} events/s`)}; ${verdict(c.pages.rps >= TARGETS.changesPages, `≥ ${count(TARGETS.changesPages)} pages of 100 a second`)}`,
    ...loadSteps(c.load, r.domains),
    ...historySection(c.history),
  ];
}

/**
 * The load (issue 72): the week's load step by step (src/load-pipeline.ts), seconds, share and
 * peak RSS of each, its ingest beside the database's own bulk load of the same rows, and the
 * targets (at 1M: the whole load ≤ 5 minutes, ingest ≤ 3× the floor, peak RSS ≤ 1 GiB).
 */
export function loadSteps(
  load: ChangesResult["load"],
  domains: number,
  which = "the week's",
  loader = "the bench's own process, which loads in-process",
): string[] {
  if (!load.steps?.length) return [];
  const total = load.steps.reduce((s, x) => s + x.seconds, 0);
  const steps = load.steps.map(
    (x) =>
      `${x.step} ${x.seconds.toFixed(1)} s (${((100 * x.seconds) / Math.max(total, 1e-9)).toFixed(0)}%, ${count(x.peakRssMb)} MB)`,
  );
  const peak = Math.max(...load.steps.map((x) => x.peakRssMb));
  const ingest = load.steps.find((x) => x.step === "ingest")?.seconds ?? 0;
  const f = load.floor;
  const floor = f
    ? ` Its ingest took ${ingest.toFixed(1)} s; the database's own bulk load of the same ${count(f.rows)} rows (${(f.bytes / 1e6).toFixed(0)} MB; ${f.how}) took ${f.seconds.toFixed(1)} s: ${(ingest / Math.max(f.seconds, 1e-9)).toFixed(1)}× the floor.`
    : "";
  const scaled =
    domains === TARGETS.loadDomains ? "" : ` (the targets are for ${count(TARGETS.loadDomains)} Domains)`;
  return [
    "",
    `Load: ${which}, step by step (seconds, share, the loading process's peak RSS meanwhile): ${steps.join(", ")}; ${total.toFixed(1)} s in all, peak RSS ${count(peak)} MB (${loader}).${floor}`,
    "",
    `Targets${scaled}: ${verdict(total <= TARGETS.loadSeconds, `the whole load ≤ ${TARGETS.loadSeconds / 60} minutes`)}; ${f ? verdict(ingest <= TARGETS.loadFloorRatio * f.seconds, `ingest ≤ ${TARGETS.loadFloorRatio}× the database's own bulk load`) : "ingest against the floor: not measured in this run"}; ${verdict(peak <= TARGETS.loadRssMb, `peak RSS ≤ ${count(TARGETS.loadRssMb)} MB`)}`,
  ];
}

/** History over the change feed's database (its two loads): trends, a Domain's history, as of. */
function historySection(h: ChangesResult["history"]): string[] {
  if (!h) return [];
  const line = (name: string, l: HistoryLatency) =>
    `${name}: p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms (${l.n} requests, ${l.ok} answered 200)`;
  const slow = (
    [
      ["trends", h.trends],
      ["history", h.history],
      ["as of", h.asOf],
    ] as const
  ).filter(([, l]) => !l.n || l.p50 > TARGETS.historyMs);
  return [
    "",
    `History over the ${h.loads} loads the feed's database keeps, one request at a time, each asked once: ${line("GET /trends of 3 values", h.trends)}; ${line("GET /domain/<name>/history", h.history)}; ${line("GET /domain/<name>?as_of=<the load before>", h.asOf)}.`,
    "",
    `Targets: ${verdict(!slow.length, `each ≤ ${TARGETS.historyMs} ms (p50)${slow.length ? ` (missed: ${slow.map(([n]) => n).join(", ")})` : ""}`)}`,
  ];
}

/** Pushed changes: webhooks delivering a load, a gateway killed mid-delivery, 1,000 live streams. */
function pushSection(r: DbResult): string[] {
  const p = r.push;
  if (!p) return [];
  const { delivery: d, kill: k, streams: s } = p;
  return [
    "",
    `Pushed changes (on a dataset of ${count(p.domains)} Domains of its own, weeks of ten times the usual churn): ${d.webhooks} webhooks of the whole feed, one gateway: ${count(d.events)} of ${count(d.expected)} events in ${count(d.deliveries)} deliveries (at most ${d.largest} events a request) reached the receiver ${d.seconds.toFixed(1)} s after the load's publication (making the deliveries included): ${count(d.eventsPerSecond)} events/s, ${d.cpuMsPerDelivery.toFixed(2)} ms of gateway CPU a delivery. Killed mid-delivery: ${k.webhooks} webhooks, ${count(k.deliveries)} deliveries; the gateway was killed (SIGKILL) after ${count(k.killedAfter)}, and ${r.kind === "postgresql" ? "the second gateway beside it" : "a gateway started after it"} carried on for ${k.carriedSeconds.toFixed(1)} s: ${count(k.lost)} events lost, ${k.duplicates} deliveries came twice (in flight at the kill: at most ${k.inFlightBound}). ${count(s.streams)} live streams (GET /changes/stream) on one gateway, a load of ${count(s.events)} changes: the first change reached ${count(s.reached)} streams, p50 ${s.firstP50Ms} ms and at most ${s.firstMaxMs} ms after publication; all its changes reached ${count(s.complete)}, p50 ${s.allP50Ms} ms, at most ${s.allMaxMs} ms; gateway RSS ${s.openRssMb} MB with the streams open, ${s.peakRssMb} MB at most${s.gatewayCpuMs === undefined ? "" : `, ${count(s.gatewayCpuMs)} ms of gateway CPU for the load's changes on every stream`}.`,
    "",
    `Targets: ${verdict(d.complete && d.eventsPerSecond >= TARGETS.pushEventsPerSecond && d.largest <= 100, `≥ ${count(TARGETS.pushEventsPerSecond)} events/s delivered, ≤ 100 a request`)}; ${verdict(k.complete && k.lost === 0 && k.duplicates <= k.inFlightBound, "a gateway killed mid-delivery: 0 events lost, duplicates only of those in flight")}; ${verdict(s.peakRssMb < TARGETS.pushStreamsRssMb && s.complete === s.streams && s.allMaxMs <= TARGETS.pushStreamsMs, `${count(s.streams)} streams: RSS < ${TARGETS.pushStreamsRssMb} MB, each change on every stream within ${count(TARGETS.pushStreamsMs)} ms of publication`)}`,
  ];
}

function section(r: DbResult, source: ReportSource): string[] {
  const { lines, notes } = sectionLines(r);
  const out = [
    `## ${databaseName(r.kind)}, ${count(r.domains)} Domains`,
    "",
    `${count(r.apps)} Apps, seed 1; ${measuredBy(r, source)}; ${r.connections} connections, ${r.seconds} s per scenario${r.peer ? ` (PostGraphile and storegraph's GraphQL rows beside it: ${r.peer.seconds} s per query and side in ${r.peer.rounds} interleaved round${r.peer.rounds > 1 ? "s" : ""}, medians of the rounds' p50 and p99)` : ""}. ${r.largePagesRssMb === undefined ? "The exports run" : "The exports and the 32 pages of 1000 each run"} on a server started afresh, so that their RSS is their own; server peak RSS over the other scenarios and the exports: ${r.peakRssMb} MB.`,
    "",
    ...TABLE_HEAD,
    ...lines.map((l) => `| ${cells(l).join(" | ")} |`),
    ...matrixSection(r),
    ...facetsSection(r),
    ...changesSection(r),
    ...pushSection(r),
  ];
  const all = [...notes, ...r.notes, ...(r.peer?.notes.map((n) => `PostGraphile: ${n}`) ?? [])];
  if (all.length) out.push("", ...all.map((n) => `- note: ${n}`));
  out.push("");
  return out;
}

/** How PostGraphile was run and the queries both sides answered, once for the report. */
function peerSetup(results: DbResult[]): string[] {
  const versions = [...new Set(results.flatMap((r) => (r.peer ? [r.peer.version] : [])))];
  if (!versions.length) return [];
  const lines = [
    "## How PostGraphile is compared",
    "",
    `PostGraphile ${listed(versions)} and storegraph, both over GraphQL (POST /graphql), a random Domain out of 1,000 per request, on the same PostgreSQL database and snapshot schema, in rounds that rotate which side goes first; in the same rounds, storegraph on SQLite, where the run measured both databases (the same dataset, loaded into each), each query beside storegraph on PostgreSQL (target: at least its req/s). CPU is the server process's user + system time per request over the measured windows (the database's own CPU is not in it). ours ÷ its is storegraph's req/s over PostGraphile's (target ≥ ${TARGETS.peerRatio}).`,
    "",
    "Queries (variables: `$name`; `$first` 20 and `$after` the cursor of the page):",
    "",
  ];
  for (const [what, q] of Object.entries(PEER_QUERIES))
    lines.push(`- ${what}, storegraph: \`${q.storegraph}\``, `- ${what}, PostGraphile: \`${q.peer}\``);
  lines.push(
    "",
    "PostGraphile runs the amber preset with one smart tag (src/bench/peer/graphile.config.mjs: `@unique name` on domain, whose uniqueness is an index PostGraphile does not read), installed on first use into src/bench/peer from its own lockfile, with GRAPHILE_ENV=production; its pg pool is node-postgres' default of 10, as storegraph's. Before measuring, the bench checks that both return the same Domain, the same Apps and the same first and deep pages.",
    "",
  );
  return lines;
}

/**
 * BENCHMARKS.md from results: the header (the run, or the runs, it comes from), the scale from the
 * smallest to the largest size, then per size (largest first) and database one table of
 * scenarios, each beside what the bench compared it with and marked against its targets.
 */
export function writeReport(results: DbResult[], source: ReportSource): string {
  if (!results.length) throw new Error("no results to report");
  const sorted = [...results].sort(order);
  return [
    ...header(sorted, source),
    ...scale(sorted, source),
    ...sorted.flatMap((r) => section(r, source)),
    ...peerSetup(sorted),
  ].join("\n");
}

/**
 * What makes a run a failure (its requests failed, or an export missed Domains): a benchmark whose
 * requests failed measured nothing. Missed targets are reported, not failed.
 */
export function failuresOf(results: DbResult[]): string[] {
  return results.flatMap((r) => {
    const at = `${r.kind}, ${count(r.domains)} Domains`;
    return [
      ...r.rows
        .filter((x) => x.errors > 0)
        .map((x) => `${at}: ${x.errors} failed requests in "${x.scenario}"`),
      ...(r.peer?.rows ?? [])
        .filter((x) => (x.sqlite?.errors ?? 0) > 0)
        .map((x) => `${at}: ${x.sqlite?.errors} failed requests of storegraph on SQLite in "${x.scenario}"`),
      ...(r.peer?.rows ?? [])
        .filter((x) => x.storegraph.errors + x.peer.errors > 0)
        .map(
          (x) =>
            `${at}: ${x.storegraph.errors} (storegraph) and ${x.peer.errors} (PostGraphile) failed requests in "${x.scenario}"`,
        ),
      ...(r.export && r.export.domains !== r.domains
        ? [`${at}: the export wrote ${r.export.domains} of ${r.domains} Domains`]
        : []),
      ...(r.exportFew && r.exportFew.domains !== r.domains
        ? [`${at}: the export of name,rank wrote ${r.exportFew.domains} of ${r.domains} Domains`]
        : []),
      ...(r.matrix ?? [])
        .filter((m) => m.errors > 0)
        .map((m) => `${at}: ${m.errors} failed requests in the matrix's ${m.filter} by ${m.sort}`),
      ...(r.facets ?? [])
        .filter((f) => f.errors > 0)
        .map((f) => `${at}: ${f.errors} failed requests in the facets of ${f.filter}`),
      ...(r.changes?.pages.errors
        ? [`${at}: ${r.changes.pages.errors} failed requests in the change feed's pages`]
        : []),
      ...(r.changes?.history && r.changes.history.trends.ok < r.changes.history.trends.n
        ? [
            `${at}: ${r.changes.history.trends.n - r.changes.history.trends.ok} of ${r.changes.history.trends.n} trends were not answered 200`,
          ]
        : []),
      ...(r.changes && r.changes.export.events === 0
        ? [`${at}: the change feed's export wrote nothing`]
        : []),
      ...(r.push && !r.push.delivery.complete
        ? [`${at}: the webhooks delivered ${r.push.delivery.events} of ${r.push.delivery.expected} events`]
        : []),
    ];
  });
}
