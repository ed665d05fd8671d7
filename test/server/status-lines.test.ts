import { request as httpRequest, type Server, STATUS_CODES } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { RATE_LIMITS } from "../../src/auth/limits.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import { createHttpServer } from "../../src/http.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { rawRequest } from "../support/raw-http.ts";

// Every response on the wire carries its status's standard reason phrase (Node's
// http.STATUS_CODES): `HTTP/1.1 404 Not Found`, never `HTTP/1.1 404 ` (issue 35). Clients show
// it: Python's urllib prints "HTTP Error 400: <reason>", and some take their error text from it.
// The responses the app builds as fetch Responses carried an empty statusText onto the wire.

interface Answer {
  status: number;
  statusMessage: string;
  body: string;
}

function send(
  port: number,
  path: string,
  {
    method = "GET",
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? "",
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

function expectReason(answer: Answer, status: number, what: string): void {
  expect(answer.status, `${what}: ${answer.body.slice(0, 200)}`).toBe(status);
  expect(answer.statusMessage, what).toBe(STATUS_CODES[status]);
}

describe.each(databaseKinds())("status lines on %s", (kind) => {
  const tmp = tempDir("storegraph-status-");
  let api: TestApi;
  let app: App;
  let server: Server;
  let at = 0;
  let proKey = "";
  // A database with no snapshot loaded: its /readyz is a 503.
  let empty: TestDatabase;
  let emptySnapshots: Snapshots;
  let emptyApp: App;
  let emptyServer: Server;
  let emptyAt = 0;

  const listen = async (s: Server) => {
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
    return (s.address() as AddressInfo).port;
  };

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
    app = createApp({ ...api.db.config, rateLimits: { enabled: true, redisUrl: null } }, api.snapshots);
    server = createHttpServer(app.listener) as Server;
    at = await listen(server);
    proKey = await api.createKey("pro");
    empty = await createTestDatabase(kind);
    emptySnapshots = await Snapshots.open(empty.config, { refreshMs: 0, graceMs: 0 });
    emptyApp = createApp(empty.config, emptySnapshots);
    emptyServer = createHttpServer(emptyApp.listener) as Server;
    emptyAt = await listen(emptyServer);
  }, 60_000);

  afterAll(async () => {
    for (const s of [server, emptyServer]) {
      s?.closeAllConnections();
      await new Promise((resolve) => s?.close(resolve));
    }
    await app?.dispose();
    await emptyApp?.dispose();
    await emptySnapshots?.close();
    await empty?.drop();
    await api?.close();
    tmp.remove();
  });

  const auth = (key = api.key) => ({ authorization: `Bearer ${key}` });
  const REST = "/json/api/v1/all";

  it("REST answers carry the reason phrase: 200, 304, 308, 400, 401, 404, 405, 413", async () => {
    const ok = await send(at, `${REST}/domain/shop.example.com?fields=name`, { headers: auth() });
    expectReason(ok, 200, "a Domain");
    const etag = await new Promise<string>((resolve, reject) => {
      httpRequest(
        { host: "127.0.0.1", port: at, path: `${REST}/domain/shop.example.com`, headers: auth() },
        (res) => {
          res.resume();
          resolve(String(res.headers.etag));
        },
      )
        .on("error", reject)
        .end();
    });
    expectReason(
      await send(at, `${REST}/domain/shop.example.com`, { headers: { ...auth(), "if-none-match": etag } }),
      304,
      "a revalidation",
    );
    expectReason(await send(at, `${REST}/domain/`, { headers: auth() }), 308, "a trailing slash");
    expectReason(await send(at, `${REST}/domain?nope=1`, { headers: auth() }), 400, "an unknown option");
    expectReason(await send(at, `${REST}/domain`), 401, "no key");
    expectReason(await send(at, `${REST}/domain/nothing.example.org`, { headers: auth() }), 404, "no Domain");
    expectReason(await send(at, "/nowhere", { headers: auth() }), 404, "no path");
    expectReason(await send(at, `${REST}/domain/bulk`, { headers: auth() }), 405, "GET on a POST path");
    expectReason(
      await send(at, `${REST}/app`, {
        method: "POST",
        headers: { ...auth(), "content-type": "application/json" },
        body: JSON.stringify({ q: "x".repeat(1_000_001) }),
      }),
      413,
      "a large body",
    );
  });

  it("a 429 carries it, on REST and GraphQL", async () => {
    const limit = RATE_LIMITS.listDomains.pro;
    const answers: Answer[] = [];
    for (let i = 0; i <= limit; i++)
      answers.push(await send(at, `${REST}/domain?page_size=1`, { headers: auth(proKey) }));
    const over = answers.find((a) => a.status === 429);
    expect(over, answers.map((a) => a.status).join(",")).toBeDefined();
    expectReason(over as Answer, 429, "REST over its budget");
    const gql = await send(at, "/graphql", {
      method: "POST",
      headers: { ...auth(proKey), "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query: "{ domains(first: 1) { edges { node { name } } } }" }),
    });
    expectReason(gql, 429, "GraphQL over its budget");
  });

  it("GraphQL answers carry the reason phrase: 200, 400, 401, 406, 413, 415", async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      send(at, "/graphql", {
        method: "POST",
        headers: { ...auth(), "content-type": "application/json", accept: "application/json", ...headers },
        body,
      });
    expectReason(await post(JSON.stringify({ query: "{ __typename }" })), 200, "a query");
    expectReason(
      await post(JSON.stringify({ query: "{ nope }" }), { accept: "application/graphql-response+json" }),
      400,
      "an invalid query",
    );
    expectReason(await post("{"), 400, "a body that is not JSON");
    expectReason(
      await send(at, "/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ __typename }" }),
      }),
      401,
      "no key",
    );
    expectReason(
      await post(JSON.stringify({ query: "{ __typename }" }), { accept: "image/png" }),
      406,
      "an unacceptable type",
    );
    expectReason(await post(JSON.stringify({ query: `{ ${"a".repeat(1_000_001)} }` })), 413, "a large body");
    expectReason(
      await post("query=x", { "content-type": "application/x-unknown" }),
      415,
      "a body of an unknown type",
    );
    // The body is framed by one Content-Length, or refused before the app sees it (yoga's own
    // check of it is off: src/app.ts, maxRequestBodySize): a length that is not one number, or two
    // lengths, is 400 from Node's HTTP parser; a body longer than its length is not read past it.
    const body = JSON.stringify({ query: "{ __typename }" });
    for (const length of ["12, 40", "abc", "-1"]) {
      const res = await rawRequest(
        at,
        `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${api.key}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(res.status, `Content-Length: ${length}`).toBe(400);
    }
    const twice = await rawRequest(
      at,
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${api.key}\r\nContent-Length: ${body.length}\r\nContent-Length: 5\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(twice.status, "two lengths").toBe(400);
    const framed = await rawRequest(
      at,
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${api.key}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}{"more": true}`,
    );
    expect(framed.status, framed.raw).toBe(200);
    expect(JSON.parse(framed.body)).toEqual({ data: { __typename: "Query" } });
  });

  it("the answers beside the APIs carry it: OpenAPI, health, and 503 before a first load", async () => {
    expectReason(await send(at, "/json/api/v1/openapi.json"), 200, "the OpenAPI document");
    expectReason(await send(at, "/healthz"), 200, "/healthz");
    expectReason(await send(at, "/readyz"), 200, "/readyz");
    expectReason(await send(emptyAt, "/readyz"), 503, "/readyz with nothing loaded");
  });

  it("the status line itself reads `HTTP/1.1 404 Not Found`", async () => {
    const res = await rawRequest(
      at,
      `GET ${REST}/domain/nothing.example.org HTTP/1.1\r\nHost: 127.0.0.1:${at}\r\nAuthorization: Bearer ${api.key}\r\nConnection: close\r\n\r\n`,
    );
    expect(res.raw.slice(0, res.raw.indexOf("\r\n"))).toBe("HTTP/1.1 404 Not Found");
  });
});
