import { createRequire } from "node:module";
import type pg from "pg";
import type { Timeouts } from "../config.ts";

let pgLoaded: typeof pg | undefined;

/**
 * The pg module, loaded when first asked for: a gateway on SQLite never loads it (pg was 6% of the
 * CPU of a restart's module loading). Required, not imported: pools are made in constructors.
 */
export function pgModule(): typeof pg {
  pgLoaded ??= createRequire(import.meta.url)("pg") as typeof pg;
  return pgLoaded;
}

/**
 * The gateway stops waiting for an answer this long after PostgreSQL's own statement_timeout
 * should have cancelled the statement: a cancel of the server's keeps the connection, while
 * giving up on the client's side costs it, so the server is given the first chance.
 */
export const DATABASE_GRACE_MS = 1000;

/**
 * The timeouts of a serving pool: connecting (and waiting for a free connection), a statement
 * cut by the server, and a client-side bound on waiting, for when the network is what is stuck
 * (pg then drops that connection, so the pool heals by opening new ones). Null: no bounds, for
 * the loader and the CLIs, whose long statements (a COPY, a DROP SCHEMA) are expected.
 */
export function poolTimeouts(
  t: Pick<Timeouts, "databaseConnectMs" | "databaseStatementMs"> | null,
): Pick<pg.PoolConfig, "connectionTimeoutMillis" | "statement_timeout" | "query_timeout"> {
  if (!t) return {};
  return {
    connectionTimeoutMillis: t.databaseConnectMs,
    statement_timeout: t.databaseStatementMs,
    query_timeout: t.databaseStatementMs + DATABASE_GRACE_MS,
  };
}
