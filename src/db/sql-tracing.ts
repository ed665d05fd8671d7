import type { Tracer } from "@opentelemetry/api";

/**
 * A span per SQL statement, on PostgreSQL and SQLite alike, when tracing is on
 * (src/ops/tracing.ts sets the tracer): `db.query <first words>`, with db.system and the
 * statement's text (its bound values are not recorded). Off, a statement costs one check.
 */
let tracer: Tracer | null = null;

export function setSqlTracer(t: Tracer | null): void {
  tracer = t;
}

export function sqlTracer(): Tracer | null {
  return tracer;
}

/** `db.query SELECT "domain"...`: the statement's kind and a few words, for a span's name. */
export function spanName(sql: string): string {
  return `db.query ${sql.trim().replace(/\s+/g, " ").slice(0, 48)}`;
}
