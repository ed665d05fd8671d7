import { METHODS, maxHeaderSize, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { createHttpServer, urlHost } from "../../src/http.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { type RawResponse, rawExchange, rawRequest } from "../support/raw-http.ts";
import { freePort, type Server as ServerProcess, startServer } from "../support/server.ts";

// Hostile bytes on a real socket: malformed Host headers, absolute-form and garbage request
// targets, unknown methods, oversized headers, lines that are not HTTP at all. Whatever comes in,
// the server answers with a complete HTTP response, never a server fault, and every error has a
// JSON body {error, code} without a stack trace or an install path.

const RUNS = 150;
/** What a stack trace or an install path looks like in a response. */
const LEAK = /\n\s+at |node_modules|node:internal|\/work\//;
const MALFORMED_HOSTS = ["x:abc", "x:99999", "a b", "[::1", ":80"];

function expectJsonAnswer(res: RawResponse, head = false): Record<string, unknown> | null {
  expect(res.status, res.raw).toBeLessThan(500);
  expect(res.raw).not.toMatch(LEAK);
  if (res.status < 400) return null;
  expect(res.headers["content-type"], res.raw).toMatch(/^application\/json/);
  if (head) return null;
  const body = JSON.parse(res.body);
  // /graphql's own errors keep GraphQL's shape (errors[] with extensions.code).
  const graphql = {
    errors: [
      expect.objectContaining({
        message: expect.any(String),
        extensions: expect.objectContaining({ code: expect.any(String) }),
      }),
    ],
  };
  // Every error names the request it answers, as its X-Request-Id header does.
  const rest = {
    error: expect.any(String),
    code: expect.any(String),
    request_id: res.headers["x-request-id"],
  };
  expect(body, res.raw).toEqual(expect.objectContaining("errors" in body ? graphql : rest));
  return body;
}

function send(port: number, line: string, headers: string[]): Promise<RawResponse> {
  return rawRequest(
    port,
    `${line}\r\n${[...headers, "Connection: close"].map((h) => `${h}\r\n`).join("")}\r\n`,
    {
      head: line.startsWith("HEAD "),
    },
  );
}

// ------------------------------------------------------------------ arbitraries

const port = fc.integer({ min: 0, max: 65535 });
/** Host header values that are valid: a name or an address, and an optional port. */
const validHost = fc
  .tuple(
    fc.oneof(
      fc.domain(),
      fc.ipV4(),
      fc.ipV6().map((a) => `[${a}]`),
      fc.constantFrom("localhost", "LOCALHOST", "api_internal"),
    ),
    fc.option(port),
  )
  .map(([h, p]) => (p === null ? h : `${h}:${p}`));
/** Anything a header value can carry: visible ASCII and spaces, weighted to host-like characters. */
const anyHost = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."ax9.-:[]_ %/?#@\\"), maxLength: 24 }),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 24 }),
  fc
    .tuple(fc.constantFrom("x", "1.2.3.4", "[::1]", "a.b"), fc.string({ maxLength: 6 }))
    .map(([h, s]) => `${h}:${s}`),
);

const PATHS = [
  "/healthz",
  "/readyz",
  "/graphql",
  "/graphql?query=%7B__typename%7D",
  "/json/api/v1/openapi.json",
  "/json/api/v1/all/domain/shop.example.com",
  "/nope",
];
const targetChar = fc.constantFrom(..."abz09/?#%&=.-_~:@!$'()*+,;[]{}|\\^`\"<>");
const target = fc.oneof(
  fc.constantFrom(...PATHS, "*", "/", "//", "/%", "/%zz", "/..", "/../../etc/passwd"),
  fc.string({ unit: targetChar, maxLength: 30 }).map((s) => `/${s}`),
  fc.string({ unit: targetChar, maxLength: 30 }),
  fc
    .tuple(
      fc.constantFrom("http", "https", "HTTP", "ftp", "x"),
      fc.oneof(validHost, anyHost),
      fc.constantFrom(...PATHS),
    )
    .map(([scheme, host, path]) => `${scheme}://${host.replace(/[ ]/g, "")}${path}`),
  fc.tuple(fc.oneof(validHost, fc.constant("evil")), port).map(([h, p]) => `${h}:${p}`),
);
const method = fc.oneof(
  fc.constantFrom(...METHODS),
  fc.constantFrom("get", "G ET", "PRI", "FOO", "BREW", "GET\t"),
  fc.string({ unit: fc.constantFrom(..."ABCDEFGHTPOSUX-_"), minLength: 1, maxLength: 10 }),
);
const version = fc.oneof(
  fc.constant("HTTP/1.1"),
  fc.constantFrom("HTTP/1.0", "HTTP/2.0", "HTTP/0.9", "HTTP/1.1x", "http/1.1", "HTTP/11", ""),
);
/** A request line: method, target and version, or a line of anything printable. */
const requestLine = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(method, target, version).map(([m, t, v]) => (v ? `${m} ${t} ${v}` : `${m} ${t}`)),
  },
  {
    weight: 1,
    arbitrary: fc
      .string({
        unit: fc.integer({ min: 0x01, max: 0x7e }).map((c) => String.fromCharCode(c)),
        maxLength: 40,
      })
      .map((s) => s.replace(/[\r\n]/g, " ")),
  },
);

// ------------------------------------------------------------------ suites

describe.each(databaseKinds())("hostile HTTP on %s", (kind) => {
  const tmp = tempDir("storegraph-http-");
  let api: TestApi;
  let app: App;
  let server: Server;
  let at = 0;
  const host = () => `Host: 127.0.0.1:${at}`;
  const auth = () => `Authorization: Bearer ${api.key}`;

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
    app = createApp(api.db.config, api.snapshots);
    server = createHttpServer(app.listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    at = (server.address() as AddressInfo).port;
  }, 60_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await app?.dispose();
    await api?.close();
    tmp.remove();
  });

  it("answers a malformed Host header with 400 JSON on every path, before authentication", async () => {
    for (const bad of [...MALFORMED_HOSTS, "x.1", "1.2.3.999", "x/y", "x?y", "x#y", "u@x", "[::1]x"]) {
      for (const path of ["/healthz", "/graphql", "/json/api/v1/all/domain/shop.example.com"]) {
        const res = await send(at, `GET ${path} HTTP/1.1`, [`Host: ${bad}`, auth()]);
        expect(res.status, `${bad} ${path}: ${res.raw}`).toBe(400);
        expect(expectJsonAnswer(res)).toEqual({
          error: expect.stringContaining("Host header"),
          code: "INVALID_HOST",
          request_id: expect.stringMatching(/^[\w-]+$/),
        });
      }
    }
  });

  it("needs exactly one Host on HTTP/1.1, and none on HTTP/1.0", async () => {
    const missing = await send(at, "GET /healthz HTTP/1.1", []);
    expect(missing.status).toBe(400);
    expect(expectJsonAnswer(missing)).toMatchObject({
      code: "INVALID_HOST",
      error: expect.stringMatching(/no Host/),
    });
    const twice = await send(at, "GET /healthz HTTP/1.1", [host(), "Host: evil"]);
    expect(twice.status).toBe(400);
    expect(expectJsonAnswer(twice)).toMatchObject({
      code: "INVALID_HOST",
      error: expect.stringMatching(/more than one/),
    });
    const old = await send(at, "GET /healthz HTTP/1.0", []);
    expect([old.status, JSON.parse(old.body)]).toEqual([200, { status: "ok" }]);
    const blank = await send(at, "GET /healthz HTTP/1.1", ["Host:"]);
    expect([blank.status, JSON.parse(blank.body)]).toEqual([200, { status: "ok" }]);
  });

  it("serves an absolute-form target by its path, and refuses other forms with 400 JSON", async () => {
    const health = await send(at, "GET http://evil/healthz HTTP/1.1", [host()]);
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: "ok" }]);
    // The target's authority stands in for Host (which is still checked).
    const domain = await send(
      at,
      "GET http://evil.example:8443/json/api/v1/all/domain/shop.example.com?fields=name HTTP/1.1",
      [host(), auth()],
    );
    expect([domain.status, JSON.parse(domain.body)]).toEqual([200, { domain: { name: "shop.example.com" } }]);
    expect((await send(at, "GET HTTP://EVIL/healthz HTTP/1.1", [host()])).status).toBe(200);
    // HTTP/1.1 needs a Host even then.
    expect((await send(at, "GET http://evil/healthz HTTP/1.1", [])).status).toBe(400);
    expect((await send(at, "GET http://evil/healthz HTTP/1.1", ["Host: x:abc"])).status).toBe(400);

    for (const bad of [
      "http://evil:99999/healthz",
      "http://a b/healthz",
      "ftp://evil/healthz",
      "*",
      "healthz",
      "evil:80",
    ]) {
      const res = await send(at, `GET ${bad} HTTP/1.1`, [host()]);
      expect(res.status, `${bad}: ${res.raw}`).toBe(400);
      expect(expectJsonAnswer(res)).toMatchObject({
        code: expect.stringMatching(/^INVALID_(REQUEST_TARGET|HOST)$|^MALFORMED_REQUEST$/),
      });
    }
  });

  it("answers what Node's own HTTP parser refuses with JSON too", async () => {
    const unknownMethod = await send(at, "FOO /healthz HTTP/1.1", [host()]);
    expect(unknownMethod.status).toBe(400);
    expect(expectJsonAnswer(unknownMethod)).toMatchObject({ code: "MALFORMED_REQUEST" });

    const big = await send(at, "GET /healthz HTTP/1.1", [host(), `X-Big: ${"a".repeat(maxHeaderSize)}`]);
    expect(big.status).toBe(431);
    expect(expectJsonAnswer(big)).toMatchObject({
      code: "HEADERS_TOO_LARGE",
      error: `the request's headers are larger than ${Math.round(maxHeaderSize / 1024)} KB`,
    });

    for (const garbage of [
      "\x16\x03\x01\x02\x00\x01",
      "hello",
      "PRI /healthz",
      "GET /healthz HTTP/1.1 extra",
      "GET  HTTP/1.1",
    ]) {
      const res = await rawRequest(at, `${garbage}\r\n\r\n`);
      expect(res.status, res.raw).toBe(400);
      expect(expectJsonAnswer(res)).toMatchObject({ code: "MALFORMED_REQUEST" });
    }

    const connect = await send(at, "CONNECT evil:443 HTTP/1.1", ["Host: evil:443"]);
    expect(connect.status).toBe(405);
    expect(expectJsonAnswer(connect)).toMatchObject({ code: "METHOD_NOT_ALLOWED" });

    const expectation = await send(at, "GET /healthz HTTP/1.1", [host(), "Expect: the-unexpected"]);
    expect(expectation.status).toBe(417);
    expect(expectJsonAnswer(expectation)).toMatchObject({ code: "EXPECTATION_FAILED" });
  });

  it("answers a body whose chunks are malformed with 400 JSON and closes, rather than wait for the rest", async () => {
    for (const path of ["/json/api/v1/all/domain/bulk", "/graphql"]) {
      const head = `POST ${path} HTTP/1.1\r\n${host()}\r\n${auth()}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`;
      // The connection stays open on the client's side: only the server can end the exchange.
      const raw = await rawExchange(at, `${head}5\r\n{"dom\r\nZZZ\r\n`, 10_000);
      expect(raw, `${path}: ${raw}`).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toMatchObject({ code: "MALFORMED_REQUEST" });
    }
    // The app let go of those requests: the server still answers.
    const res = await send(at, "GET /healthz HTTP/1.1", [host()]);
    expect(res.status).toBe(200);
  });

  it("answers a malformed request after the ones before it on the connection, in order", async () => {
    const ok = `GET /healthz HTTP/1.1\r\n${host()}\r\n\r\n`;
    const raw = await rawExchange(at, `${ok}${ok}FOO /healthz HTTP/1.1\r\n\r\n`);
    const statuses = [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses, raw).toEqual([200, 200, 400]);
    expect(raw.slice(raw.lastIndexOf("\r\n\r\n") + 4)).toMatch(
      /^\{"error":.*"code":"MALFORMED_REQUEST","request_id":"[\w-]+"\}$/,
    );
  });

  it("fuzz: any Host header gets a complete JSON answer; valid ones are served", async () => {
    await fc.assert(
      fc.asyncProperty(validHost, async (h) => {
        const res = await send(at, "GET /healthz HTTP/1.1", [`Host: ${h}`]);
        expect([res.status, res.body], `Host: ${h}`).toEqual([200, '{"status":"ok"}']);
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(anyHost, fc.constantFrom(...PATHS), async (h, path) => {
        const res = await send(at, `GET ${path} HTTP/1.1`, [`Host: ${h}`]);
        expectJsonAnswer(res);
        if (res.status === 400) expect(JSON.parse(res.body).code).toBe("INVALID_HOST");
      }),
      { numRuns: RUNS },
    );
  });

  it("fuzz: any request line gets a complete answer, never a server fault, errors as JSON", async () => {
    await fc.assert(
      fc.asyncProperty(requestLine, async (line) => {
        const res = await send(at, line, [host(), auth()]);
        expectJsonAnswer(res, line.startsWith("HEAD "));
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it("gives /graphql's 415 (a body it cannot read) and 406 (no acceptable type) JSON bodies", async () => {
    const text = await api.app.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{ __typename }",
    });
    expect(text.status).toBe(415);
    expect(text.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await text.json()).toEqual({
      error: expect.stringMatching(/text\/plain.*application\/json/),
      code: "UNSUPPORTED_MEDIA_TYPE",
      request_id: text.headers.get("x-request-id"),
    });

    const html = await api.app.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/html" },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    expect(html.status).toBe(406);
    expect(html.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await html.json()).toEqual({
      error: expect.stringMatching(/text\/html.*application\/json/),
      code: "NOT_ACCEPTABLE",
      request_id: html.headers.get("x-request-id"),
    });
  });
});

// server.ts is wired to the same listener and handlers: checked once through the bundle that
// npm start runs. Database-independent (the HTTP front is the same on both), so SQLite only.
describe("hostile HTTP against dist/server.js (sqlite)", () => {
  let db: TestDatabase;
  let proc: ServerProcess;
  let at = 0;

  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    at = await freePort();
    proc = startServer(db, at);
    await proc.waitFor(/More keys:|Every request needs Authorization/, 150_000);
  }, 180_000);
  afterAll(async () => {
    await proc?.stop();
    await db?.drop();
  });

  it("answers a malformed Host, an absolute-form target and an oversized header", async () => {
    for (const bad of MALFORMED_HOSTS) {
      const res = await send(at, "GET /healthz HTTP/1.1", [`Host: ${bad}`]);
      expect(res.status).toBe(400);
      expect(expectJsonAnswer(res)).toMatchObject({ code: "INVALID_HOST" });
    }
    const absolute = await send(at, "GET http://evil/healthz HTTP/1.1", [`Host: 127.0.0.1:${at}`]);
    expect([absolute.status, JSON.parse(absolute.body)]).toEqual([200, { status: "ok" }]);
    const big = await send(at, "GET /healthz HTTP/1.1", [
      `Host: 127.0.0.1:${at}`,
      `X-Big: ${"a".repeat(20_000)}`,
    ]);
    expect(big.status).toBe(431);
    expect(expectJsonAnswer(big)).toMatchObject({ code: "HEADERS_TOO_LARGE" });
  });

  it("prints its start banner's URLs on the address it listens on (HOST=127.0.0.1)", async () => {
    const urls = [...proc.output().matchAll(/\bhttps?:\/\/[^\s/]+/g)].map((m) => m[0]);
    expect(urls.length).toBeGreaterThanOrEqual(5);
    expect(new Set(urls)).toEqual(new Set([`http://127.0.0.1:${at}`]));
  });
});

describe("urlHost: the host of the banner's URLs", () => {
  it("is the listening address, or localhost for a wildcard one", () => {
    expect(["0.0.0.0", "::", "", "127.0.0.1", "::1", "192.0.2.7", "gw.internal"].map(urlHost)).toEqual([
      "localhost",
      "localhost",
      "localhost",
      "127.0.0.1",
      "[::1]",
      "192.0.2.7",
      "gw.internal",
    ]);
  });
});
