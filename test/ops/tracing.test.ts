import type { AddressInfo } from "node:net";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { ApiKeys } from "../../src/auth/keys.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import { createHttpServer } from "../../src/http.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { startTracing, type Tracing } from "../../src/ops/tracing.ts";
import { tempDir, testLoadSteps } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * Traces (src/ops/tracing.ts), kept in memory instead of sent over OTLP: a request's HTTP span,
 * its GraphQL parse, validate and execute spans (or the read of a REST Domain answer), and a span
 * per SQL statement, all in one trace, each under the one before; on both databases, for REST and
 * for GraphQL.
 */
const fixture = tempDir("storegraph-tracing-");
const snapshotDir = writeSnapshotDir(fixture.dir, validFixture());
const exporter = new InMemorySpanExporter();
let tracing: Tracing | null;

beforeAll(async () => {
  tracing = await startTracing(
    { endpoint: null, serviceName: "storegraph-test" },
    pino({ level: "silent" }),
    new SimpleSpanProcessor({ exporter }),
  );
});

afterAll(async () => {
  await tracing?.shutdown();
  fixture.remove();
});

/** Whether `span` has `ancestor` above it, following parents among `spans`. */
function under(span: ReadableSpan, ancestor: ReadableSpan, spans: ReadableSpan[]): boolean {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  let parent = span.parentSpanContext?.spanId;
  while (parent) {
    if (parent === ancestor.spanContext().spanId) return true;
    parent = byId.get(parent)?.parentSpanContext?.spanId;
  }
  return false;
}

describe.each(databaseKinds())("traces (%s)", (kind) => {
  let db: TestDatabase;
  let base: string;
  let key: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    const snapshots = await Snapshots.open(db.config, { refreshMs: 0, graceMs: 0 });
    await loadSnapshot(snapshots.store, snapshotDir, {
      ...testLoadSteps(db.config, snapshots.store),
      keep: 1,
    });
    key = (await new ApiKeys(snapshots.store).create("trace", "enterprise")).key;
    const app = createApp(db.config, snapshots, { plugins: tracing?.plugins });
    const server = createHttpServer(app.listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = async () => {
      await new Promise((r) => server.close(r));
      await app.dispose();
      await snapshots.close();
      await db.drop();
    };
  });

  afterAll(async () => close?.());

  // The spans each kind of request makes between its HTTP span and its statements: a REST Domain
  // answer reads through the query layer (src/rest/records.ts), another REST route runs the
  // GraphQL document it built (validated and executed; never printed, so never parsed), and a
  // GraphQL request parses, validates and executes its text.
  const auth = () => ({ authorization: `Bearer ${key}` });
  for (const [what, request, phases] of [
    [
      "REST Domain",
      () => fetch(`${base}/json/api/v1/all/domain?page_size=2`, { headers: auth() }),
      ["rest.read listDomains"],
    ],
    [
      "REST App",
      () => fetch(`${base}/json/api/v1/all/app?page_size=2`, { headers: auth() }),
      ["graphql.validate", "graphql.execute query.ListApps"],
    ],
    [
      "GraphQL",
      () =>
        fetch(`${base}/graphql`, {
          method: "POST",
          headers: { ...auth(), "content-type": "application/json" },
          body: JSON.stringify({
            query: "query Few { domains(first: 2) { edges { node { name apps { app { name } } } } } }",
          }),
        }),
      ["graphql.parse", "graphql.validate", "graphql.execute query.Few"],
    ],
  ] as const) {
    it(`puts a ${what} request's HTTP, ${phases.join(", ")} and SQL spans in one trace`, async () => {
      exporter.reset();
      const res = await request();
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain('"errors"');
      await new Promise((r) => setTimeout(r, 50));
      const spans = exporter.getFinishedSpans();
      const http = spans.find(
        (s) =>
          s.attributes["http.request.method"] === "GET" ||
          s.attributes["http.request.method"] === "POST" ||
          s.attributes["http.method"] !== undefined,
      );
      expect(http, spans.map((s) => s.name).join(", ")).toBeDefined();
      const trace = http?.spanContext().traceId;
      const inTrace = spans.filter((s) => s.spanContext().traceId === trace);
      const names = inTrace.map((s) => s.name).join(", ");
      const found = phases.map((name) => inTrace.find((s) => s.name === name));
      for (const [i, span] of found.entries()) {
        expect(span, `${phases[i]} in ${names}`).toBeDefined();
        expect(under(span as ReadableSpan, http as ReadableSpan, spans)).toBe(true);
      }
      // No phase but these: a REST document is never parsed, a Domain answer never executed.
      for (const phase of ["graphql.parse", "graphql.validate", "graphql.execute", "rest.read"])
        if (!phases.some((p) => p.startsWith(phase)))
          expect(
            inTrace.filter((s) => s.name.startsWith(phase)),
            names,
          ).toEqual([]);
      const sql = inTrace.filter((s) => s.name.startsWith("db.query "));
      expect(sql.length).toBeGreaterThan(0);
      // Every statement is the request's; those that fill the page are the read's or execution's.
      for (const s of sql) {
        expect(s.attributes["db.system"]).toBe(kind);
        expect(under(s, http as ReadableSpan, spans), s.name).toBe(true);
      }
      const reading = found.at(-1) as ReadableSpan;
      expect(sql.filter((s) => under(s, reading, spans)).length).toBeGreaterThan(0);
    });
  }

  it("makes no span for health probes", async () => {
    exporter.reset();
    await (await fetch(`${base}/healthz`)).text();
    await new Promise((r) => setTimeout(r, 50));
    expect(exporter.getFinishedSpans().filter((s) => s.kind === 1 /* SERVER */)).toEqual([]);
  });
});
