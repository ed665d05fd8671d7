// Node's socket errors, as node-postgres passes them on.
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
// SQLSTATEs: class 08 (connection exception), a statement cancelled (statement_timeout), a
// server shutting down or starting up, too many connections.
const SQLSTATES = /^(08[0-9A-Z]{3}|57014|57P0[123]|53300)$/;
// node-postgres raises its own timeouts and closed connections as plain Errors, without a code.
const PG_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

/**
 * Whether an error means that the database did not answer (a timeout, a refused or broken
 * connection, a cancelled statement), rather than a fault of the query or of ours: the error
 * itself, or any error it wraps (a cause, a GraphQL error's original). The server reads through
 * node-postgres and better-sqlite3 only (no Prisma client serves requests).
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (err === null || typeof err !== "object" || depth > 5) return false;
  const e = err as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    originalError?: unknown;
  };
  if (typeof e.code === "string" && (SOCKET_CODES.has(e.code) || SQLSTATES.test(e.code))) return true;
  if (typeof e.message === "string" && PG_MESSAGES.test(e.message)) return true;
  return [e.cause, e.originalError].some((c) => isDatabaseUnavailable(c, depth + 1));
}

/** pg-pool's own words when a pool had no free connection within its connection timeout. */
const POOL_WAIT = /^timeout exceeded when trying to connect/;

/**
 * Whether an error is a wait for a pooled connection that timed out: every connection of the pool
 * was in use (a busy gateway), which says nothing of the database itself, so it is answered BUSY,
 * not DATABASE_UNAVAILABLE (src/errors.ts). The error itself, or any error it wraps. (A new
 * connection that the database did not accept in time is pg-pool's "Connection terminated due to
 * connection timeout": the database's.)
 */
export function isPoolBusy(err: unknown, depth = 0): boolean {
  if (err === null || typeof err !== "object" || depth > 5) return false;
  const e = err as { message?: unknown; cause?: unknown; originalError?: unknown };
  if (typeof e.message === "string" && POOL_WAIT.test(e.message)) return true;
  return [e.cause, e.originalError].some((c) => isPoolBusy(c, depth + 1));
}

/**
 * Whether a read that failed on a replica is made again on the primary: the replica did not
 * answer (as above, but for a statement that ran out of time, 57014, which would only load the
 * primary with the same slow query), or it cancelled the read to replay the primary's changes
 * (40001, a recovery conflict: with hot_standby_feedback off, the cleanup of rows the read could
 * still see). Only the first kind means the replica is down.
 */
export function isReplicaFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "57014") return false;
  return isRecoveryConflict(err) || isDatabaseUnavailable(err);
}

export const isRecoveryConflict = (err: unknown) => (err as { code?: unknown } | null)?.code === "40001";
