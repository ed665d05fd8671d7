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

/**
 * `work` in a span of its own named `name` when tracing is on, the active span while it runs (its
 * statements' spans are its children), failed with its error; off, `work` as it is.
 */
export function inSpan<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!tracer) return work();
  return tracer.startActiveSpan(name, async (span) => {
    try {
      return await work();
    } catch (e) {
      // SpanStatusCode.ERROR: the API's enum, without importing its module here.
      span.setStatus({ code: 2, message: e instanceof Error ? e.message : String(e) });
      throw e;
    } finally {
      span.end();
    }
  });
}
