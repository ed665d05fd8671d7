import { readFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gunzipSync, inflateSync } from "node:zlib";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { ApiKeys } from "../../src/auth/keys.ts";
import { loadConfig } from "../../src/config.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import { createHttpServer } from "../../src/http.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { redactPath } from "../../src/ops/access-log.ts";
import { chooseEncoding } from "../../src/ops/compression.ts";
import { Metrics } from "../../src/ops/metrics.ts";
import { serveMetrics } from "../../src/ops/metrics-server.ts";
import { shutDown } from "../../src/ops/shutdown.ts";
import { OPERATIONS } from "../../src/rest/routes.ts";
import { tempDir, testLoadSteps } from "../support/api.ts";
import { createTestDatabase, databaseKinds, TEST_SWITCHES, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { type Endpoint, prepare, restEndpoint } from "../support/routes.ts";

/**
 * Operations (a real HTTP server on a free port, as server.ts builds it): one access-log line per
 * request with no key in it, X-Request-Id on every response and in every error body, /metrics
 * counting what was sent, compression on every route, CORS allowed and refused, and a shutdown
 * that lets a request in flight finish.
 */
const fixture = tempDir("storegraph-ops-");
const snapshotDir = writeSnapshotDir(fixture.dir, validFixture());
afterAll(() => fixture.remove());

interface Gateway {
  base: string;
  metricsBase: string;
  key: string;
  lines: Record<string, unknown>[];
  app: App;
  server: ReturnType<typeof createHttpServer>;
  close(): Promise<void>;
}

async function startGateway(
  db: TestDatabase,
  env: Record<string, string> = {},
  options: { beforeExportPage?: () => Promise<void> } = {},
): Promise<Gateway> {
  const c = db.config;
  const config = loadConfig(
    {
      DATA_DIR: c.dataDir,
      ...(c.database.kind === "postgresql" ? { DATABASE_URL: c.database.url } : {}),
      LOG_LEVEL: "info",
      ...env,
    },
    TEST_SWITCHES,
  );
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: "info", base: undefined }, { write: (s: string) => lines.push(JSON.parse(s)) });
  const snapshots = await Snapshots.open(config, { refreshMs: 0, graceMs: 0 });
  const key = (await new ApiKeys(snapshots.store).create("ops", "enterprise")).key;
  const metrics = new Metrics(snapshots);
  const app = createApp(config, snapshots, { logger: log, metrics, ...options });
  const server = createHttpServer(app.listener, undefined, { log, observe: (line) => metrics.request(line) });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const metricsServer = await serveMetrics(metrics, 0, "127.0.0.1");
  const port = (server.address() as AddressInfo).port;
  const metricsPort = (metricsServer.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    metricsBase: `http://127.0.0.1:${metricsPort}`,
    key,
    lines,
    app,
    server,
    async close() {
      metricsServer.close();
      if (server.listening) await shutDown(server as never, app, log, { timeoutMs: 1000, signal: "test" });
      await snapshots.close();
    },
  };
}

const requestLines = (g: Gateway) => g.lines.filter((l) => l.msg === "request");

/** The sample of a Prometheus text line `name{labels} value`, or 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const inside = /\{(.*)\}/.exec(line)?.[1] ?? "";
    if (want.every((w) => inside.split(",").includes(w))) return Number(line.split(" ").at(-1));
  }
  return 0;
}

describe("helpers", () => {
  it("redacts secret-bearing query parameters, and nothing else", () => {
    expect(redactPath("/graphql?key=sg_abc&x=1")).toBe("/graphql?key=REDACTED&x=1");
    expect(redactPath("/a?API_KEY=1&token=2&q=key")).toBe("/a?API_KEY=REDACTED&token=REDACTED&q=key");
    expect(redactPath("/a?k%65y=sg_x")).toBe("/a?k%65y=REDACTED");
    expect(redactPath("/json/api/v1/all/domain?page_size=3")).toBe("/json/api/v1/all/domain?page_size=3");
  });

  it("chooses an encoding by the client's q-values", () => {
    expect(chooseEncoding(null)).toBeNull();
    expect(chooseEncoding("br, gzip")).toBe("gzip");
    expect(chooseEncoding("deflate, gzip;q=0.5")).toBe("deflate");
    expect(chooseEncoding("gzip;q=0, deflate;q=0")).toBeNull();
    expect(chooseEncoding("identity")).toBeNull();
    expect(chooseEncoding("*")).toBe("gzip");
    expect(chooseEncoding("*;q=0.1, gzip;q=0")).toBe("deflate");
  });
});

/** A promise and the function that resolves it. */
function signalPair(): [Promise<void>, () => void] {
  let resolve: () => void = () => {};
  const p = new Promise<void>((r) => {
    resolve = r;
  });
  return [p, resolve];
}

describe("shutdown", () => {
  it("keeps its deadline when an export job does not stop, and says so", async () => {
    const server = createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: "info", base: undefined }, { write: (s: string) => lines.push(JSON.parse(s)) });
    let disposed = false;
    const started = Date.now();
    const outcome = await shutDown(
      server,
      {
        handOverJobs: () => new Promise(() => {}),
        dispose: () => {
          disposed = true;
        },
      },
      log,
      { timeoutMs: 300, signal: "test" },
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(outcome).toEqual({ handedOver: 0, cut: 0 });
    expect(disposed).toBe(true);
    expect(lines.map((l) => l.msg)).toContainEqual(expect.stringMatching(/did not stop within the deadline/));
  });
});

describe.each(databaseKinds())("operations (%s)", (kind) => {
  let db: TestDatabase;
  let g: Gateway;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    const snapshots = await Snapshots.open(db.config, { refreshMs: 0, graceMs: 0 });
    await loadSnapshot(snapshots.store, snapshotDir, {
      ...testLoadSteps(db.config, snapshots.store),
      keep: 1,
    });
    await snapshots.close();
    g = await startGateway(db, { CORS_ORIGINS: "https://app.example.com,https://b.example.com" });
  });

  afterAll(async () => {
    await g?.close();
    await db?.drop();
  });

  // fetch asks for gzip itself unless told otherwise, and inflates what it gets.
  const get = (path: string, headers: Record<string, string> = {}, method = "GET", body?: string) =>
    fetch(`${g.base}${path}`, {
      method,
      body,
      headers: { authorization: `Bearer ${g.key}`, "accept-encoding": "identity", ...headers },
    });

  /** The response's bytes as sent (node:http inflates nothing). */
  const raw = (path: string, headers: Record<string, string>, method = "GET", body?: string) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(
        `${g.base}${path}`,
        { method, headers: { authorization: `Bearer ${g.key}`, ...headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });

  it("logs one line per request, with its id, status, bytes and key id, and never the key", async () => {
    const before = requestLines(g).length;
    const ok = await get("/json/api/v1/all/domain?page_size=2");
    const okBody = await ok.text();
    const bad = await get("/json/api/v1/all/domain?page_size=abc");
    const badBody = (await bad.json()) as Record<string, unknown>;
    const page = await fetch(`${g.base}/graphql?key=${g.key}`, {
      headers: { accept: "text/html", "accept-encoding": "identity" },
    });
    await page.text();
    const unknown = await fetch(`${g.base}/nowhere`, { headers: { "x-request-id": "lb-1234" } });
    await unknown.text();
    await new Promise((r) => setTimeout(r, 50));
    const lines = requestLines(g).slice(before);
    expect(lines).toHaveLength(4);
    const [l1, l2, l3, l4] = lines;
    expect(l1).toMatchObject({
      method: "GET",
      status: 200,
      route: "listDomains",
      bytes: Buffer.byteLength(okBody),
    });
    expect(l1.requestId).toBe(ok.headers.get("x-request-id"));
    expect(typeof l1.ms).toBe("number");
    expect(typeof l1.keyId).toBe("string");
    expect(l2).toMatchObject({ status: 400, route: "listDomains" });
    expect(badBody.request_id).toBe(bad.headers.get("x-request-id"));
    expect(l2.requestId).toBe(badBody.request_id);
    expect(l3.path).toBe("/graphql?key=REDACTED");
    // A proxy's id is kept, and the error body (401: no key) carries it too.
    expect(l4).toMatchObject({ requestId: "lb-1234", status: 401 });
    expect(unknown.headers.get("x-request-id")).toBe("lb-1234");
    expect(
      (
        (await fetch(`${g.base}/nowhere`, { headers: { "x-request-id": "lb-5678" } }).then((r) =>
          r.json(),
        )) as Record<string, unknown>
      ).request_id,
    ).toBe("lb-5678");
    for (const line of g.lines) expect(JSON.stringify(line)).not.toContain(g.key);
  });

  it("gives each GraphQL error its own request's id, even an error yoga keeps for the next same document", async () => {
    // A document's validation errors are cached: the same invalid document twice shares them.
    const ask = () =>
      get("/graphql", { "content-type": "application/json" }, "POST", JSON.stringify({ query: "{ nope }" }));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await ask();
      const body = (await res.json()) as { errors: { extensions: { requestId: string; code: string } }[] };
      expect(body.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
      expect(body.errors[0].extensions.requestId).toBe(res.headers.get("x-request-id"));
      ids.push(body.errors[0].extensions.requestId);
    }
    expect(new Set(ids).size).toBe(3);
  });

  it("counts requests by route and status in /metrics, served apart from the API", async () => {
    const text0 = await (await fetch(`${g.metricsBase}/metrics`)).text();
    const count = (t: string, route: string, status: string) =>
      sample(t, "storegraph_http_request_duration_seconds_count", { route, method: "GET", status });
    for (let i = 0; i < 3; i++) await (await get("/json/api/v1/all/domain?page_size=1")).text();
    // GraphQL's phases are counted by envelop for GraphQL requests, by their operation's name.
    const query = JSON.stringify({ query: "query Phases { snapshot { version } }" });
    await (await get("/graphql", { "content-type": "application/json" }, "POST", query)).text();
    await (await get("/json/api/v1/all/domain?page_size=-1")).text();
    await (await fetch(`${g.base}/healthz`)).text();
    const res = await fetch(`${g.metricsBase}/metrics`);
    expect(res.headers.get("content-type")).toMatch(/text\/plain/);
    const text = await res.text();
    expect(count(text, "listDomains", "200") - count(text0, "listDomains", "200")).toBe(3);
    expect(count(text, "listDomains", "400") - count(text0, "listDomains", "400")).toBe(1);
    expect(count(text, "healthz", "200") - count(text0, "healthz", "200")).toBe(1);
    expect(sample(text, "graphql_envelop_phase_execute_count", { operationName: "Phases" })).toBeGreaterThan(
      0,
    );
    expect(sample(text, "storegraph_snapshot_version", {})).toBe(1);
    expect(text).toMatch(/storegraph_db_connections\{state="total"\} [1-9]/);
    // The row writer's fallbacks to the resolver path, counted from the export's thread: neither
    // the default fields nor a field read on request (the newest product, which the planned read
    // brings in the row) take it.
    const fallbacks = (t: string) => sample(t, "storegraph_writer_fallbacks_total", { path: "export" });
    await (await get("/json/api/v1/all/domain/export")).text();
    const afterDefaults = await (await fetch(`${g.metricsBase}/metrics`)).text();
    expect(fallbacks(afterDefaults)).toBe(fallbacks(text));
    await (await get("/json/api/v1/all/domain/export?fields=name,most_recently_published_product")).text();
    const afterProduct = await (await fetch(`${g.metricsBase}/metrics`)).text();
    expect(fallbacks(afterProduct)).toBe(fallbacks(text));
    // Every metric the Grafana dashboard (docs/) queries is one the gateway exports.
    const dashboard = readFileSync(join(import.meta.dirname, "../../docs/grafana-dashboard.json"), "utf8");
    const queried = new Set(
      [...dashboard.matchAll(/\b(storegraph_\w+|graphql_envelop_\w+)/g)].map((m) =>
        m[1].replace(/_(bucket|count|sum)$/, ""),
      ),
    );
    expect(queried.size).toBeGreaterThan(10);
    const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    for (const name of queried) expect(exported, name).toContain(name);
    // Not on the API's port without METRICS_TOKEN.
    const open = await get("/metrics");
    expect(open.status).toBe(404);
    expect(await open.text()).not.toContain("storegraph_http");
  });

  it("compresses every route when asked, the export and a cursor=all result streamed, and answers plainly otherwise", async () => {
    // Every REST route (with a body where it takes one), the OpenAPI document, an error, the
    // export, and a finished cursor=all job's result (a file streamed from disk).
    const requests: {
      path: string;
      method?: string;
      body?: string;
      headers?: Record<string, string>;
      setup?: Endpoint;
    }[] = [
      ...OPERATIONS.map((route) => {
        const e = restEndpoint(route);
        return {
          path: e.path,
          method: e.method,
          body: e.body,
          headers: e.headers,
          setup: e.setup ? e : undefined,
        };
      }),
      { path: "/json/api/v1/all/domain/export?fields=name,rank" },
      { path: "/json/api/v1/openapi.json" },
      { path: "/json/api/v1/all/domain?page_size=oops" },
    ];
    const job = "/json/api/v1/all/domain?fields=name&cursor=all";
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      const res = await get(job);
      status = res.status;
      await res.text();
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status, "the cursor=all job finished").toBe(200);
    requests.push({ path: job });
    /** A route's request once its setup answered (a webhook made for the paths that name one). */
    const prepared = async (setup: Endpoint | undefined, path: string) =>
      setup ? (await prepare(setup, (e) => get(e.path, e.headers, e.method, e.body))).path : path;
    for (const { path: template, method = "GET", body, headers = {}, setup } of requests) {
      const path = await prepared(setup, template);
      const plain = await get(path, headers, method, body);
      const plainBody = await plain.text();
      expect(plain.status, `${method} ${path}: ${plainBody.slice(0, 200)}`).toBeLessThan(500);
      expect(plain.headers.get("content-encoding")).toBeNull();
      for (const [encoding, inflate] of [
        ["gzip", gunzipSync],
        ["deflate", inflateSync],
      ] as const) {
        const again = await prepared(setup, template);
        const res = await raw(
          again,
          { ...headers, "accept-encoding": `br;q=1, ${encoding};q=0.9` },
          method,
          body,
        );
        expect(res.status, path).toBe(plain.status);
        // A live stream's events are sent as they come, never held by a compressor; a file sent by
        // byte ranges (a snapshot's Parquet) as it is, its ranges and ETag being of its own bytes.
        if (
          plain.headers.get("content-type")?.startsWith("text/event-stream") ||
          plain.headers.has("accept-ranges")
        ) {
          expect(res.headers["content-encoding"], path).toBeUndefined();
          continue;
        }
        expect(res.headers["content-encoding"], path).toBe(encoding);
        const text = inflate(res.body).toString();
        // Error bodies carry their own request id; a change (a list's) answers what it did again
        // (nothing more to add); everything else is the same text.
        if (plain.status >= 400) expect(JSON.parse(text).code).toBe(JSON.parse(plainBody).code);
        else if (method !== "GET")
          expect(Object.keys(JSON.parse(text))).toEqual(Object.keys(JSON.parse(plainBody)));
        else expect(text, path).toBe(plainBody);
      }
    }
    const query = encodeURIComponent("{ domains(first: 1) { totalCount } }");
    const graphql = await raw(`/graphql?query=${query}`, {
      "accept-encoding": "gzip",
      accept: "application/json",
    });
    expect(graphql.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(graphql.body).toString()).data.domains.totalCount).toBeGreaterThan(0);
  });

  it("answers CORS preflights of listed origins only, and never with credentials", async () => {
    const preflight = (origin: string) =>
      fetch(`${g.base}/graphql`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type",
        },
      });
    const allowed = await preflight("https://b.example.com");
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://b.example.com");
    expect(allowed.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
    expect(allowed.headers.get("access-control-allow-credentials")).toBeNull();
    expect(allowed.headers.get("vary")).toMatch(/Origin/);
    const refused = await preflight("https://evil.example");
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    expect(refused.headers.get("access-control-allow-credentials")).toBeNull();
    const simple = await get("/json/api/v1/all/domain?page_size=1", { origin: "https://evil.example" });
    expect(simple.headers.get("access-control-allow-origin")).toBeNull();
    const listed = await get("/json/api/v1/all/domain?page_size=1", { origin: "https://app.example.com" });
    expect(listed.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(listed.headers.get("access-control-expose-headers")).toMatch(/X-Request-Id/);
    expect(listed.headers.get("access-control-expose-headers")).toMatch(/RateLimit-Policy, RateLimit\b/);
  });

  it("serves /metrics on the API's port to METRICS_TOKEN's bearer only", async () => {
    const token = `${"t".repeat(12)}-metrics-token`;
    const other = await startGateway(db, { METRICS_TOKEN: token });
    try {
      const none = await fetch(`${other.base}/metrics`);
      expect(none.status).toBe(401);
      // An error body like every other: its code, and the request's id as in the header.
      expect(await none.json()).toEqual({
        error: expect.stringContaining("METRICS_TOKEN"),
        code: "UNAUTHENTICATED",
        request_id: none.headers.get("x-request-id"),
      });
      const apiKey = await fetch(`${other.base}/metrics`, {
        headers: { authorization: `Bearer ${other.key}` },
      });
      expect(apiKey.status).toBe(401);
      const ok = await fetch(`${other.base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toMatch(/^# HELP /m);
    } finally {
      await other.close();
    }
  });

  it("without CORS_ORIGINS, reflects no origin at all", async () => {
    const other = await startGateway(db);
    try {
      const res = await fetch(`${other.base}/graphql`, {
        method: "OPTIONS",
        headers: { origin: "https://anything.example", "access-control-request-method": "POST" },
      });
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    } finally {
      await other.close();
    }
  });

  /** A gateway whose export is held before its first page until released. */
  async function heldExport() {
    const [atPage, reached] = signalPair();
    const [released, release] = signalPair();
    const other = await startGateway(
      db,
      {},
      {
        beforeExportPage: async () => {
          reached();
          await released;
        },
      },
    );
    // The export reads its first page before answering: its request is in flight, held.
    const response = fetch(`${other.base}/json/api/v1/all/domain/export?fields=name`, {
      headers: { authorization: `Bearer ${other.key}`, "accept-encoding": "identity" },
    });
    // Handled now: a cut request rejects before the test awaits it.
    response.catch(() => {});
    await atPage;
    return { other, response, release };
  }

  it("on shutdown, refuses new connections and lets a request in flight finish", async () => {
    const { other, response, release } = await heldExport();
    const closing = shutDown(other.server as never, other.app, pino({ level: "silent" }), {
      timeoutMs: 20_000,
      signal: "test",
    });
    // Not accepting any more, while the held request is still in flight.
    await expect(fetch(`${other.base}/healthz`)).rejects.toThrow();
    release();
    const res = await response;
    expect(res.status).toBe(200);
    const lines = (await res.text()).trim().split("\n");
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(JSON.parse(line).name).toEqual(expect.any(String));
    expect(await closing).toEqual({ handedOver: 0, cut: 0 });
    await other.close();
  });

  it("on shutdown, cuts a request still running at the deadline", async () => {
    const { other, response, release } = await heldExport();
    const outcome = await shutDown(other.server as never, other.app, pino({ level: "silent" }), {
      timeoutMs: 300,
      signal: "test",
    });
    expect(outcome.cut).toBe(1);
    await expect(response).rejects.toThrow();
    release();
    await other.close();
  });
});
