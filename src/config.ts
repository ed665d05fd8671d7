import { isIP } from "node:net";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { z } from "zod";

/**
 * How long the gateway waits on PostgreSQL and Redis, in milliseconds, so that a stalled service
 * answers clients with an error (or, for Redis, the per-process budgets) instead of a hang.
 */
export interface Timeouts {
  /** Connecting to PostgreSQL, or waiting for a free connection of a serving pool. */
  databaseConnectMs: number;
  /**
   * PostgreSQL cancels a statement that runs longer (statement_timeout, set on the serving
   * pools); the gateway itself stops waiting a second later (DATABASE_GRACE_MS), for when the
   * network rather than the query is what is stuck.
   */
  databaseStatementMs: number;
  redisConnectMs: number;
  /** A Redis command unanswered after this falls back to the process's own budgets. */
  redisCommandMs: number;
  readyzMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  databaseConnectMs: 5000,
  databaseStatementMs: 15_000,
  redisConnectMs: 2000,
  redisCommandMs: 500,
  readyzMs: 2000,
};

const ms = (fallback: number) => z.coerce.number().int().min(1).max(600_000).default(fallback);

/**
 * The only place that reads process.env. Everything else receives a Config. Each variable is a
 * setting an operator has a reason to set (docs/configuration.md says which); the demo and the
 * switches of tests are not read here but given (Switches).
 * DATABASE_URL chooses the database: unset or `file:...` → embedded SQLite under DATA_DIR;
 * `postgres://` / `postgresql://` → PostgreSQL.
 */
const Env = z.object({
  DATABASE_URL: z
    .string()
    .trim()
    .optional()
    .refine((v) => !v || /^(file:|postgres(ql)?:\/\/)/.test(v), {
      message: "must start with file: (SQLite) or postgres:// / postgresql:// (PostgreSQL)",
    }),
  /**
   * PostgreSQL streaming replicas (comma-separated URLs) that serve reads; loads, API keys and
   * job state stay on DATABASE_URL, the primary (src/db/replicas.ts).
   */
  DATABASE_REPLICA_URLS: z.string().trim().default(""),
  /** A replica whose replay lags the primary by more than this is not read from. */
  REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).max(600_000).default(60_000),
  /** How often each replica's state and lag are checked. */
  REPLICA_CHECK_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  DATA_DIR: z.string().trim().min(1).default("./data"),
  /**
   * SQLite: threads that run snapshot reads off the server's thread (src/db/sqlite-threads.ts);
   * 0 runs them on it. By default two where the machine has a second core, none on one core.
   */
  SQLITE_READ_THREADS: z.coerce.number().int().min(0).max(64).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().trim().min(1).default("0.0.0.0"),
  /**
   * The Host names /mcp answers (comma-separated, ports ignored): DNS-rebinding protection. Unset:
   * any, unless HOST is a loopback address, when only localhost, 127.0.0.1 and [::1] are.
   */
  MCP_ALLOWED_HOSTS: z.string().default(""),
  /** `npm run mcp` (stdio): the API key its tool calls are made with. */
  STOREGRAPH_API_KEY: z.string().trim().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** How many old snapshots to keep beside the served one (for rollback and in-flight readers). */
  KEEP_SNAPSHOTS: z.coerce.number().int().min(0).max(100).default(1),
  /** How many loads' change events the feed keeps (docs/decisions.md, "Change feed"). */
  CHANGES_RETENTION: z.coerce.number().int().min(1).max(10_000).default(52),
  /** PEM files: when both are set the server speaks TLS itself. */
  TLS_CERT_FILE: z.string().trim().min(1).optional(),
  TLS_KEY_FILE: z.string().trim().min(1).optional(),
  /** Refuse plain HTTP (403). Default: true when NODE_ENV=production. */
  REQUIRE_HTTPS: z.enum(["true", "false"]).optional(),
  NODE_ENV: z.string().optional(),
  /** Proxies (IPs or CIDRs, comma-separated) whose X-Forwarded-Proto is believed. */
  TRUSTED_PROXIES: z.string().trim().default(""),
  /** Redis for state shared between gateway processes (rate-limit budgets). Unset: in memory. */
  REDIS_URL: z
    .string()
    .trim()
    .optional()
    .refine((v) => !v || /^rediss?:\/\//.test(v), { message: "must start with redis:// or rediss://" }),
  /** Connecting to PostgreSQL, or waiting for a free connection of a pool. */
  DATABASE_CONNECT_TIMEOUT_MS: ms(DEFAULT_TIMEOUTS.databaseConnectMs),
  /** PostgreSQL cancels a statement running longer (statement_timeout); see Timeouts. */
  DATABASE_STATEMENT_TIMEOUT_MS: ms(DEFAULT_TIMEOUTS.databaseStatementMs),
  REDIS_CONNECT_TIMEOUT_MS: ms(DEFAULT_TIMEOUTS.redisConnectMs),
  REDIS_COMMAND_TIMEOUT_MS: ms(DEFAULT_TIMEOUTS.redisCommandMs),
  /** /readyz answers 503 when its checks take longer. */
  READYZ_TIMEOUT_MS: ms(DEFAULT_TIMEOUTS.readyzMs),
  /**
   * Origins (scheme://host[:port], comma-separated) whose pages may call the API from a browser.
   * Unset: no CORS headers at all, so browsers keep other sites' pages from reading answers.
   */
  CORS_ORIGINS: z.string().trim().default(""),
  /** Serve /metrics on this port (all interfaces unless METRICS_HOST), apart from the API's. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().trim().min(1).default("0.0.0.0"),
  /** Serve /metrics on the API's port too, to `Authorization: Bearer <METRICS_TOKEN>` only. */
  METRICS_TOKEN: z.string().trim().min(16, "must be at least 16 characters").optional(),
  /** OpenTelemetry: traces go to this OTLP/HTTP endpoint; unset, tracing is off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().trim().url().optional(),
  OTEL_SERVICE_NAME: z.string().trim().min(1).default("storegraph"),
  /** On SIGTERM: how long requests in flight may take to finish before the process exits. */
  SHUTDOWN_TIMEOUT_MS: ms(25_000),
  /** How long a finished cursor=all result is kept for its client's polls. */
  EXPORT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(3600),
  /**
   * Exports (Export Domains and cursor=all jobs) one gateway runs at once; one more is refused
   * with 503 BUSY and Retry-After (src/export/export-slots.ts). Each holds a database cursor and
   * its pages' buffers: docs/deploy.md sizes it.
   */
  EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  /** How long one delivery attempt may take, connection to answer. */
  WEBHOOK_TIMEOUT_MS: ms(10_000),
  /** Delivery attempts one gateway makes at once (at most 4 to one webhook). */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** "off": this gateway delivers nothing (another does); webhooks are still kept and listed. */
  WEBHOOK_DELIVERY: z.enum(["on", "off"]).default("on"),
});

export type Database =
  | {
      kind: "sqlite";
      dataDir: string;
      /** Threads that run snapshot reads off the server's thread (src/db/sqlite-threads.ts); 0 or none: on it. */
      readThreads?: number;
    }
  | {
      kind: "postgresql";
      url: string;
      replicaUrls: string[];
      dataDir: string;
    };

export interface Config {
  database: Database;
  dataDir: string;
  port: number;
  host: string;
  logLevel: z.infer<typeof Env>["LOG_LEVEL"];
  /** The demo an empty database gets on the first start (npm start's --demo); null: none. */
  demo: DemoSize | null;
  keepSnapshots: number;
  changesRetention: number;
  /** The lag bound and check interval of DATABASE_REPLICA_URLS. */
  replicas: { maxLagMs: number; checkMs: number };
  exportTtlMs: number;
  /** Exports and cursor=all jobs run at once (EXPORT_CONCURRENCY); more are refused with 503 BUSY. */
  exportConcurrency: number;
  tls: { certFile: string; keyFile: string } | null;
  requireHttps: boolean;
  trustedProxies: string[];
  rateLimits: { enabled: boolean; redisUrl: string | null };
  timeouts: Timeouts;
  /** Origins allowed by CORS; empty: CORS is off. */
  corsOrigins: string[];
  /** The MCP server (src/mcp/): the Host names /mcp answers (null: any), and stdio's key. */
  mcp: { allowedHosts: string[] | null; apiKey: string | null };
  metrics: { port: number | null; host: string; token: string | null };
  tracing: { endpoint: string | null; serviceName: string };
  shutdownTimeoutMs: number;
  webhooks: WebhookConfig;
}

export interface WebhookConfig {
  /** Private, loopback and link-local targets are allowed (--allow-private-webhook-targets). */
  allowPrivateTargets: boolean;
  timeoutMs: number;
  concurrency: number;
  /** This gateway attempts deliveries and makes them after loads. */
  deliver: boolean;
}

/** An origin as browsers send it: `https://host[:port]`, nothing after. */
function isOrigin(o: string): boolean {
  if (!URL.canParse(o)) return false;
  const url = new URL(o);
  return (url.protocol === "http:" || url.protocol === "https:") && url.origin === o;
}

/** `10.0.0.1` or `10.0.0.0/8` (IPv4 or IPv6) → address, prefix and family; null when invalid. */
export function parseProxy(p: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | null {
  const [address, bits] = p.split("/");
  const family = isIP(address);
  if (family === 0) return null;
  const max = family === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : Number(bits);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) return null;
  return { address, prefix, family: family === 4 ? "ipv4" : "ipv6" };
}

/** A comma-separated setting's items, trimmed, without empty ones. */
const list = (v: string) =>
  v
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * SQLite's read threads unless SQLITE_READ_THREADS says: two wherever there is a second core
 * (docs/decisions.md, "SQLite reads on threads of their own": on 2 cores, two beat one in an
 * interleaved A/B), none on one core, where a thread would only take the server's.
 */
export const defaultReadThreads = (cores: number): number => (cores > 1 ? 2 : 0);

/** The demo dataset's size and seed (src/dataset/generate.ts). */
export type DemoSize = { domains: number; apps: number; seed: number };

/**
 * What is no operator's setting, so not read from the environment: the demo that `npm start`
 * loads into an empty database, and the switches of tests and the bench. The gateway takes them
 * as flags (src/server-args.ts); a test gives them to loadConfig.
 */
export interface Switches {
  /** On an empty database, generate and load this demo dataset and make a demo key. */
  demo?: DemoSize | null;
  /** false: no per-plan rate limits (the bench's load tests; tests of other things). */
  rateLimits?: boolean;
  /** Webhooks may target private, loopback and link-local addresses (a receiver beside the gateway, tests). */
  allowPrivateWebhookTargets?: boolean;
}

/**
 * Variables that were settings once: set, they stop the start with a line that says what took
 * their place, rather than be ignored (DEMO=off ignored would load a demo and make a demo key).
 */
const RETIRED: Record<string, string> = {
  DEMO: "the demo is a flag: npm start gives --demo, and a gateway started without it (node dist/server.js, the image) loads none",
  DEMO_DOMAINS: "a flag now: npm start -- --demo-domains N",
  DEMO_APPS: "a flag now: npm start -- --demo-apps N",
  DEMO_SEED: "a flag now: npm start -- --demo-seed N",
  RATE_LIMITS: "a flag now: --no-rate-limits (local load tests only)",
  WEBHOOK_ALLOW_PRIVATE_TARGETS: "a flag now: --allow-private-webhook-targets",
  RENDERED_TEXTS:
    'a snapshot keeps its rendered records as DEFLATE pieces alone, on either database (docs/decisions.md, "One snapshot format")',
};

export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  switches: Switches = {},
): Config {
  const retired = Object.keys(RETIRED).filter((name) => env[name] !== undefined);
  const lines = retired.map((name) => `${name}: no longer read; ${RETIRED[name]}`);
  if (lines.length) throw new ConfigError(`invalid configuration:\n  ${lines.join("\n  ")}`);
  const parsed = Env.superRefine((e, ctx) => {
    if (Boolean(e.TLS_CERT_FILE) !== Boolean(e.TLS_KEY_FILE)) {
      ctx.addIssue({
        code: "custom",
        path: ["TLS_CERT_FILE"],
        message: "TLS_CERT_FILE and TLS_KEY_FILE go together",
      });
    }
    for (const o of e.CORS_ORIGINS.split(",")
      .map((x) => x.trim())
      .filter(Boolean)) {
      if (!isOrigin(o))
        ctx.addIssue({
          code: "custom",
          path: ["CORS_ORIGINS"],
          message: `"${o}" is not an origin such as https://app.example.com (a scheme, a host and an optional port; no path, no *)`,
        });
    }
    const replicas = list(e.DATABASE_REPLICA_URLS);
    for (const u of replicas) {
      if (!/^postgres(ql)?:\/\//.test(u) || !URL.canParse(u))
        ctx.addIssue({
          code: "custom",
          path: ["DATABASE_REPLICA_URLS"],
          message: `"${u.replace(/\/\/[^@/]*@/, "//…@")}" is not a postgres:// or postgresql:// URL`,
        });
    }
    if (replicas.length && !/^postgres(ql)?:\/\//.test(e.DATABASE_URL ?? "")) {
      ctx.addIssue({
        code: "custom",
        path: ["DATABASE_REPLICA_URLS"],
        message: "replicas need DATABASE_URL to name their PostgreSQL primary",
      });
    }
    for (const p of e.TRUSTED_PROXIES.split(",")
      .map((x) => x.trim())
      .filter(Boolean)) {
      if (!parseProxy(p))
        ctx.addIssue({
          code: "custom",
          path: ["TRUSTED_PROXIES"],
          message: `"${p}" is not an IP address or CIDR`,
        });
    }
  }).safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  }
  const e = parsed.data;
  let dataDir = resolve(e.DATA_DIR);
  const readThreads = e.SQLITE_READ_THREADS ?? defaultReadThreads(availableParallelism());
  let database: Database = { kind: "sqlite", dataDir, readThreads };
  if (e.DATABASE_URL?.startsWith("file:")) {
    // file:<dir> names the data directory holding the state and snapshot files.
    dataDir = resolve(e.DATABASE_URL.slice("file:".length) || e.DATA_DIR);
    database = { kind: "sqlite", dataDir, readThreads };
  } else if (e.DATABASE_URL) {
    database = {
      kind: "postgresql",
      url: e.DATABASE_URL,
      replicaUrls: list(e.DATABASE_REPLICA_URLS),
      dataDir,
    };
  }
  return {
    database,
    dataDir,
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    demo: switches.demo ?? null,
    keepSnapshots: e.KEEP_SNAPSHOTS,
    changesRetention: e.CHANGES_RETENTION,
    replicas: { maxLagMs: e.REPLICA_MAX_LAG_MS, checkMs: e.REPLICA_CHECK_MS },
    exportTtlMs: e.EXPORT_TTL_SECONDS * 1000,
    exportConcurrency: e.EXPORT_CONCURRENCY,
    tls: e.TLS_CERT_FILE && e.TLS_KEY_FILE ? { certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE } : null,
    requireHttps: e.REQUIRE_HTTPS ? e.REQUIRE_HTTPS === "true" : e.NODE_ENV === "production",
    trustedProxies: e.TRUSTED_PROXIES.split(",")
      .map((p) => p.trim())
      .filter(Boolean),
    rateLimits: { enabled: switches.rateLimits ?? true, redisUrl: e.REDIS_URL || null },
    timeouts: {
      databaseConnectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      databaseStatementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      redisConnectMs: e.REDIS_CONNECT_TIMEOUT_MS,
      redisCommandMs: e.REDIS_COMMAND_TIMEOUT_MS,
      readyzMs: e.READYZ_TIMEOUT_MS,
    },
    corsOrigins: e.CORS_ORIGINS.split(",")
      .map((o) => o.trim())
      .filter(Boolean),
    mcp: { allowedHosts: mcpHosts(e.MCP_ALLOWED_HOSTS, e.HOST), apiKey: e.STOREGRAPH_API_KEY || null },
    metrics: { port: e.METRICS_PORT ?? null, host: e.METRICS_HOST, token: e.METRICS_TOKEN ?? null },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    tracing: { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT ?? null, serviceName: e.OTEL_SERVICE_NAME },
    webhooks: {
      allowPrivateTargets: switches.allowPrivateWebhookTargets ?? false,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      deliver: e.WEBHOOK_DELIVERY === "on",
    },
  };
}

/** Loopback names: what a gateway bound to loopback is reached by, and all /mcp answers there. */
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** MCP_ALLOWED_HOSTS, lower-cased; by default loopback names where HOST is loopback, else null (any). */
function mcpHosts(list: string, host: string): string[] | null {
  const given = list
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  if (given.length) return given;
  return ["127.0.0.1", "::1", "localhost"].includes(host) ? LOOPBACK_HOSTS : null;
}
