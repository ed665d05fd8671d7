import type { AddressInfo } from "node:net";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { ApiKeys } from "../../src/auth/keys.ts";
import { loadSnapshot } from "../../src/dataset/load/load.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import { createHttpServer } from "../../src/http.ts";
import { startTracing, type Tracing } from "../../src/ops/tracing.ts";
import { tempDir } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * Traces (src/ops/tracing.ts), kept in memory instead of sent over OTLP: a request's HTTP span,
 * its GraphQL parse, validate and execute spans, and a span per SQL statement, all in one trace,
 * each under the one before; on both databases, for REST and for GraphQL.
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
    await loadSnapshot(snapshots.store, snapshotDir, { keep: 1 });
    key = (await new ApiKeys(snapshots.store).create("trace", "enterprise")).key;
    const app = createApp(db.config, snapshots, { plugins: tracing?.plugins });
    const server = createHttpServer(app);
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

  for (const [what, request] of [
    [
      "REST",
      () =>
        fetch(`${base}/json/api/v1/all/domain?page_size=2`, { headers: { authorization: `Bearer ${key}` } }),
    ],
    [
      "GraphQL",
      () =>
        fetch(`${base}/graphql`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({
            query: "query Few { domains(first: 2) { edges { node { name apps { app { name } } } } } }",
          }),
        }),
    ],
  ] as const) {
    it(`puts a ${what} request's HTTP, GraphQL and SQL spans in one trace`, async () => {
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
      const parse = inTrace.find((s) => s.name === "graphql.parse");
      const validate = inTrace.find((s) => s.name === "graphql.validate");
      const execute = inTrace.find((s) => s.name.startsWith("graphql.execute "));
      const sql = inTrace.filter((s) => s.name.startsWith("db.query "));
      expect(parse, inTrace.map((s) => s.name).join(", ")).toBeDefined();
      expect(validate, inTrace.map((s) => s.name).join(", ")).toBeDefined();
      expect(execute, inTrace.map((s) => s.name).join(", ")).toBeDefined();
      expect(sql.length).toBeGreaterThan(0);
      for (const s of [parse, validate, execute])
        expect(under(s as ReadableSpan, http as ReadableSpan, spans)).toBe(true);
      // Every statement is the request's; those that fill the page are the execution's.
      for (const s of sql) {
        expect(s.attributes["db.system"]).toBe(kind);
        expect(under(s, http as ReadableSpan, spans), s.name).toBe(true);
      }
      expect(sql.filter((s) => under(s, execute as ReadableSpan, spans)).length).toBeGreaterThan(0);
    });
  }

  it("makes no span for health probes", async () => {
    exporter.reset();
    await (await fetch(`${base}/healthz`)).text();
    await new Promise((r) => setTimeout(r, 50));
    expect(exporter.getFinishedSpans().filter((s) => s.kind === 1 /* SERVER */)).toEqual([]);
  });
});
