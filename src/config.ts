import { resolve } from "node:path";
import { z } from "zod";

/**
 * The only place that reads process.env. Everything else receives a Config.
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
  DATA_DIR: z.string().trim().min(1).default("./data"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().trim().min(1).default("0.0.0.0"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  DEMO_DOMAINS: z.coerce.number().int().min(1).max(10_000_000).default(20_000),
  DEMO_APPS: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  DEMO_SEED: z.coerce.number().int().default(42),
  /** How many old snapshots to keep beside the served one (for rollback and in-flight readers). */
  KEEP_SNAPSHOTS: z.coerce.number().int().min(0).max(100).default(1),
  /** How long a cursor=all result is kept (it also expires with the next snapshot). */
  EXPORT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(3600),
});

export type Database =
  | { kind: "sqlite"; dataDir: string }
  | { kind: "postgresql"; url: string; dataDir: string };

export interface Config {
  database: Database;
  dataDir: string;
  port: number;
  host: string;
  logLevel: z.infer<typeof Env>["LOG_LEVEL"];
  demo: { domains: number; apps: number; seed: number };
  keepSnapshots: number;
  exportTtlMs: number;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  }
  const e = parsed.data;
  let dataDir = resolve(e.DATA_DIR);
  let database: Database = { kind: "sqlite", dataDir };
  if (e.DATABASE_URL?.startsWith("file:")) {
    // file:<dir> names the data directory holding the state and snapshot files.
    dataDir = resolve(e.DATABASE_URL.slice("file:".length) || e.DATA_DIR);
    database = { kind: "sqlite", dataDir };
  } else if (e.DATABASE_URL) {
    database = { kind: "postgresql", url: e.DATABASE_URL, dataDir };
  }
  return {
    database,
    dataDir,
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    demo: { domains: e.DEMO_DOMAINS, apps: e.DEMO_APPS, seed: e.DEMO_SEED },
    keepSnapshots: e.KEEP_SNAPSHOTS,
    exportTtlMs: e.EXPORT_TTL_SECONDS * 1000,
  };
}
