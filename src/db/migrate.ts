/**
 * Applies the hand-written SQL migrations under prisma/migrations/<provider>/<set>/ (the Prisma CLI
 * cannot migrate here: no schema engine). Files apply in name order. Each database (SQLite file or
 * PostgreSQL schema) records what it has in a table `_migration`, so applying twice is a no-op.
 *
 * Sets: "meta" (the snapshot registry, state store) and "snapshot" (one copy of the dataset).
 * Phases: a snapshot migration may contain a line `-- @after-load`. What precedes it creates the
 * tables the loader fills; what follows (secondary indexes, PostgreSQL foreign keys, ANALYZE) runs
 * once the bulk load is done, because building an index once is far cheaper than maintaining it
 * row by row. A new copy runs "before-load", loads, then runs "after-load". "all" runs both parts
 * of whatever is pending: meta (which has no marker), and upgrading an existing copy.
 * Bookkeeping: `_migration.state` is "half-applied" once the part before the marker ran and
 * "applied" once the whole file did. Each step of a migration commits in one transaction with its
 * record, so a crash never leaves a migration half-recorded.
 * A new migration's before-load part must not depend on the after-load part of an earlier one: on a
 * fresh copy all before-load parts run first.
 */
import { readdirSync, readFileSync } from "node:fs";
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import { fromRoot } from "../root.ts";

export type MigrationSet = "meta" | "snapshot";
export type MigrationPhase = "before-load" | "after-load" | "all";
type Provider = "sqlite" | "postgresql";
type State = "half-applied" | "applied";

interface Migration {
  name: string;
  beforeLoad: string[];
  afterLoad: string[];
}

/** In the project's directory, so it does not depend on the working directory. */
const MIGRATIONS_DIR = fromRoot("prisma/migrations/");
const AFTER_LOAD_MARKER = /^--[ \t]*@after-load[ \t]*$/m;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Applies the pending migrations of `set` to a better-sqlite3 database. Synchronous, like the
 * driver. Returns the names of the migrations it ran something of, in order.
 */
export function applySqliteMigrations(
  db: BetterSqlite3.Database,
  set: MigrationSet,
  phase: MigrationPhase = "all",
  through?: string,
): string[] {
  const migrations = readMigrations("sqlite", set, through);
  // applied_at follows the app's DateTime convention for SQLite: unix milliseconds.
  db.exec(`CREATE TABLE IF NOT EXISTS "_migration" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "state" TEXT NOT NULL,
    "applied_at" DATETIME NOT NULL
  )`);
  const readState = db.prepare<[string], { state: State }>(
    `SELECT "state" FROM "_migration" WHERE "name" = ?`,
  );
  const record = db.prepare<[string, State, number]>(
    `INSERT INTO "_migration" ("name", "state", "applied_at") VALUES (?, ?, ?)
     ON CONFLICT ("name") DO UPDATE SET "state" = excluded."state", "applied_at" = excluded."applied_at"`,
  );
  const ran: string[] = [];
  for (const m of migrations) {
    const step = db.transaction(() => {
      const next = plan(m, readState.get(m.name)?.state, phase);
      if (!next) return false;
      for (const sql of next.statements) {
        try {
          db.exec(sql);
        } catch (e) {
          throw migrationError("sqlite", set, m.name, sql, e);
        }
      }
      record.run(m.name, next.state, Date.now());
      return true;
    });
    // IMMEDIATE takes the write lock before reading the state, so two migrators cannot both run a step.
    if (step.immediate()) ran.push(m.name);
  }
  return ran;
}

/**
 * Applies the pending migrations of `set` to PostgreSQL schema `schema` (created if missing). The
 * SQL files name no schema: each transaction sets `search_path` to `schema`. Do not call it on a
 * client that is inside a transaction. Returns the names of the migrations it ran something of.
 */
export async function applyPgMigrations(
  client: pg.ClientBase,
  schema: string,
  set: MigrationSet,
  phase: MigrationPhase = "all",
  through?: string,
): Promise<string[]> {
  // Interpolated into SQL below (identifiers cannot be bound as parameters).
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name: ${JSON.stringify(schema)}`);
  const migrations = readMigrations("postgresql", set, through);
  const inTransaction = async <T>(fn: () => Promise<T>): Promise<T> => {
    await client.query("BEGIN");
    try {
      // Serialises migrators of this schema, so the state read inside stays true until COMMIT.
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`storegraph.migrate:${schema}`]);
      await client.query(`SET LOCAL search_path TO "${schema}"`);
      const result = await fn();
      await client.query("COMMIT");
      return result;
    } catch (e) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw e;
    }
  };
  await inTransaction(async () => {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS "${schema}"."_migration" (
      "name" TEXT NOT NULL PRIMARY KEY,
      "state" TEXT NOT NULL,
      "applied_at" TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
  });
  const ran: string[] = [];
  for (const m of migrations) {
    const didRun = await inTransaction(async () => {
      const { rows } = await client.query<{ state: State }>(
        `SELECT "state" FROM "_migration" WHERE "name" = $1`,
        [m.name],
      );
      const next = plan(m, rows[0]?.state, phase);
      if (!next) return false;
      for (const sql of next.statements) {
        try {
          await client.query(sql);
        } catch (e) {
          throw migrationError("postgresql", set, m.name, sql, e);
        }
      }
      await client.query(
        `INSERT INTO "_migration" ("name", "state") VALUES ($1, $2)
         ON CONFLICT ("name") DO UPDATE SET "state" = excluded."state", "applied_at" = now()`,
        [m.name, next.state],
      );
      return true;
    });
    if (didRun) ran.push(m.name);
  }
  return ran;
}

/**
 * The names of the snapshot migrations this code has, in order: a copy with all of them applied
 * has this code's tables (src/db/snapshot-format.ts). Read once.
 */
export function snapshotMigrations(provider: Provider): readonly string[] {
  let names = snapshotNames.get(provider);
  if (!names) {
    names = readMigrations(provider, "snapshot").map((m) => m.name);
    snapshotNames.set(provider, names);
  }
  return names;
}
const snapshotNames = new Map<Provider, string[]>();

/** What `phase` still has to run of migration `m` given its recorded state; null when nothing. */
function plan(
  m: Migration,
  state: State | undefined,
  phase: MigrationPhase,
): { statements: string[]; state: State } | null {
  if (state === "applied") return null;
  switch (phase) {
    case "before-load":
      return state ? null : { statements: m.beforeLoad, state: "half-applied" };
    case "after-load":
      if (!state)
        throw new Error(`migration ${m.name}: "after-load" before its "before-load" part was applied`);
      return { statements: m.afterLoad, state: "applied" };
    case "all":
      return { statements: state ? m.afterLoad : [...m.beforeLoad, ...m.afterLoad], state: "applied" };
  }
}

/** The migrations of a set in order; up to the one named `through` (a database as it was then: tests of upgrades). */
function readMigrations(provider: Provider, set: MigrationSet, through?: string): Migration[] {
  const dir = new URL(`${provider}/${set}/`, MIGRATIONS_DIR);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".sql") && (through === undefined || name <= through))
    .sort()
    .map((name) => {
      const parts = readFileSync(new URL(name, dir), "utf8").split(AFTER_LOAD_MARKER);
      if (parts.length > 2)
        throw new Error(`migration ${provider}/${set}/${name}: more than one -- @after-load`);
      return { name, beforeLoad: splitStatements(parts[0]), afterLoad: splitStatements(parts[1] ?? "") };
    });
}

/**
 * Splits a script at every ';' that ends a line. Deliberately simple: migration files must end
 * each statement so and must not end a line inside a string or comment with ';'. Pieces holding
 * only comments and blank lines are dropped. Running statements one by one lets an error name
 * the statement that failed.
 */
function splitStatements(script: string): string[] {
  return script
    .split(/;[ \t]*\r?$/m)
    .map((s) => s.trim())
    .filter((s) => s.split("\n").some((line) => line.trim() !== "" && !line.trim().startsWith("--")));
}

function migrationError(
  provider: Provider,
  set: MigrationSet,
  name: string,
  sql: string,
  cause: unknown,
): Error {
  const statement = sql
    .split("\n")
    .find((line) => line.trim() !== "" && !line.trim().startsWith("--"))
    ?.trim();
  const message = cause instanceof Error ? cause.message : String(cause);
  return new Error(`migration ${provider}/${set}/${name} failed at "${statement} …": ${message}`, { cause });
}
