import type { NonSharedBuffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { ApiKeys } from "../../src/auth/keys.ts";
import { TOOLS } from "../../src/mcp/catalogue.ts";
import { OPENAPI_PATH, REST_BASE } from "../../src/rest/handler.ts";
import { OPERATIONS } from "../../src/rest/routes.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import {
  createTestDatabase,
  type DatabaseKind,
  databaseKinds,
  type TestDatabase,
} from "../support/databases.ts";
import { bomb, encode } from "../support/encodings.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { documentedExamples, MCP_POST_HEADERS, toolCallBody } from "../support/mcp.ts";
import { type Endpoint, prepare, restEndpoint } from "../support/routes.ts";
import { freePort, type Server, startServer } from "../support/server.ts";

/**
 * Bearer authentication (docs/api.md section 5, docs/decisions.md "Authentication and plans" and "Errors"):
 * every request but /healthz, /readyz and the OpenAPI document needs `Authorization: Bearer <key>`;
 * missing, malformed, unknown and revoked keys get a 401 JSON body with code UNAUTHENTICATED and a
 * `WWW-Authenticate: Bearer realm="storegraph"` challenge (RFC 6750).
 *
 * Requests go to an app built with createApp directly, not to api.app: api.app adds the harness key
 * to every request without an Authorization header, which would hide a missing-header case.
 */

const KEY_SHAPE = /^sg_[a-z2-7]{32}$/;
/** A well-formed key that was never created. */
const unknownKey = () =>
  `sg_${Array.from(randomBytes(32), (b) => "abcdefghijklmnopqrstuvwxyz234567"[b & 31]).join("")}`;

const GRAPHQL: Endpoint = {
  name: "POST /graphql",
  method: "POST",
  path: "/graphql",
  headers: { "content-type": "application/json", accept: "application/json" },
  body: JSON.stringify({ query: "{ snapshot { version } }" }),
};
const GRAPHIQL: Endpoint = {
  name: "GET /graphql (the GraphiQL page)",
  method: "GET",
  path: "/graphql",
  headers: { accept: "text/html" },
};
/**
 * Every MCP tool, called at /mcp with its first documented example (docs/mcp.md): a tool call is
 * authenticated as any request is, before the MCP server reads it.
 */
const EXAMPLES = documentedExamples();
const MCP_TOOLS: Endpoint[] = TOOLS.map((tool) => ({
  name: `POST /mcp (tools/call ${tool.name})`,
  method: "POST",
  path: "/mcp",
  headers: MCP_POST_HEADERS,
  body: toolCallBody(tool.name, EXAMPLES.find((e) => e.tool === tool.name)?.arguments ?? {}),
}));
const MCP_INITIALIZE: Endpoint = {
  name: "POST /mcp (initialize)",
  method: "POST",
  path: "/mcp",
  headers: MCP_POST_HEADERS,
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "auth", version: "1" } },
  }),
};
/** The dry runs of the whole answers (dry_run=true): what would be written, started by no one. */
const DRY_RUNS: Endpoint[] = [
  `${REST_BASE}/domain/export?fields=name&dry_run=true`,
  `${REST_BASE}/domain?fields=name&cursor=all&dry_run=true`,
].map((path) => ({ name: `GET ${path}`, method: "GET", path, headers: {} }));
const ENDPOINTS: Endpoint[] = [
  ...OPERATIONS.map(restEndpoint),
  ...DRY_RUNS,
  GRAPHQL,
  GRAPHIQL,
  MCP_INITIALIZE,
  ...MCP_TOOLS,
];

/** Not `Bearer <one token>`, or a token that is not a key; "Bearer " arrives trimmed, as "Bearer". */
const MALFORMED = ["Basic x", "Bearer", "Bearer ", "Bearer a b", "Bearer not-a-key", "Token sg_x"];

/** A 401 as docs/decisions.md wants it: JSON {error, code: UNAUTHENTICATED} and a Bearer challenge. */
async function expectUnauthorized(res: Response, invalidToken: boolean, secret?: string) {
  const text = await res.text();
  expect(res.status, text.slice(0, 200)).toBe(401);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = JSON.parse(text);
  expect(body).toEqual({
    error: expect.any(String),
    code: "UNAUTHENTICATED",
    request_id: expect.any(String),
  });
  expect(body.error.length).toBeGreaterThan(0);
  const challenge = res.headers.get("www-authenticate") ?? "";
  expect(challenge.startsWith('Bearer realm="storegraph"'), challenge).toBe(true);
  if (invalidToken) expect(challenge).toContain('error="invalid_token"');
  // RFC 6750 3.1: a request without any credentials gets no error code.
  else expect(challenge).not.toContain("error=");
  if (secret) {
    expect(text).not.toContain(secret);
    expect(challenge).not.toContain(secret);
  }
}

describe.each(databaseKinds())("Bearer authentication on %s", (kind) => {
  let api: TestApi;
  /** The app without the harness's key: every request says exactly what it sends. */
  let app: App;
  let keys: ApiKeys;
  /** A key revoked before it was ever presented to `app`, so no verification is cached for it. */
  let revokedKey: string;
  const tmp = tempDir("storegraph-auth-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
    app = createApp(api.db.config, api.snapshots);
    keys = new ApiKeys(api.snapshots.store);
    const revoked = await keys.create("revoked before use", "enterprise");
    expect(await keys.revoke(revoked.apiKey.id)).toHaveLength(1);
    revokedKey = revoked.key;
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  const send = async (ep: Endpoint, authorization: string | null, query = ""): Promise<Response> => {
    const fetchAs = (e: Endpoint, q = "") =>
      app.fetch(`http://localhost${e.path}${q}`, {
        method: e.method,
        headers: { ...e.headers, ...(authorization === null ? {} : { authorization }) },
        ...(e.body === undefined ? {} : { body: e.body }),
      });
    return fetchAs(await prepare(ep, async (e) => fetchAs(e)), query);
  };

  describe.each(ENDPOINTS)("$name", (ep) => {
    it("without Authorization: 401 UNAUTHENTICATED with a Bearer challenge", async () => {
      await expectUnauthorized(await send(ep, null), false);
    });

    it("with a malformed Authorization header: 401 with error=invalid_token", async () => {
      for (const header of MALFORMED) {
        const res = await send(ep, header);
        expect(res.status, `Authorization: ${header}`).toBe(401);
        await expectUnauthorized(res, true);
      }
    });

    it("with an unknown well-formed key: 401 with error=invalid_token", async () => {
      const secret = unknownKey();
      await expectUnauthorized(await send(ep, `Bearer ${secret}`), true, secret);
    });

    it("with a revoked key: 401 with error=invalid_token", async () => {
      // revokedKey was revoked before any request presented it, so the 5 s verification cache
      // cannot hold a stale "valid" for it; the cache case has its own test below.
      await expectUnauthorized(await send(ep, `Bearer ${revokedKey}`), true, revokedKey);
    });

    it("with a valid key: answered (not 401)", async () => {
      const res = await send(ep, `Bearer ${api.key}`);
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).not.toBe(401);
      expect(res.status, text.slice(0, 300)).toBeLessThan(300);
      expect(res.headers.get("www-authenticate")).toBeNull();
    });

    it("with a valid key of each plan, and the scheme in any case", async () => {
      for (const plan of ["pro", "elite", "enterprise"] as const) {
        const key = await api.createKey(plan, `plan ${plan}`);
        const res = await send(ep, `Bearer ${key}`);
        await res.body?.cancel();
        expect(res.status, plan).toBeLessThan(300);
      }
      const res = await send(ep, `bearer ${api.key}`);
      await res.body?.cancel();
      expect(res.status).toBeLessThan(300);
    });
  });

  it("every MCP tool is covered, each with a documented example", () => {
    expect(MCP_TOOLS).toHaveLength(TOOLS.length);
    for (const tool of TOOLS)
      expect(
        EXAMPLES.some((e) => e.tool === tool.name),
        tool.name,
      ).toBe(true);
  });

  it("every route of OPERATIONS is covered", () => {
    expect(ENDPOINTS.filter((e) => e.path.startsWith(REST_BASE))).toHaveLength(
      OPERATIONS.length + DRY_RUNS.length,
    );
    expect(new Set(OPERATIONS.map((r) => `${r.method} ${r.path}`)).size).toBe(OPERATIONS.length);
  });

  it("authentication comes before routing: unknown paths and wrong methods are 401 without a key", async () => {
    for (const [method, path] of [
      ["GET", "/nope"],
      ["GET", `${REST_BASE}/nope`],
      ["DELETE", `${REST_BASE}/app`],
      ["GET", "/"],
      ["GET", `${REST_BASE}/domain/missing.example.com`],
    ]) {
      const res = await app.fetch(`http://localhost${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(401);
      await expectUnauthorized(res, false);
    }
  });

  it("a body is not read before the key: a bomb, a coding refused, an oversized body are 401 without one", async () => {
    const gzipBomb = await bomb("gzip", 100_000_000);
    const bodies: [string, string | NonSharedBuffer, Record<string, string>][] = [
      ["bomb", gzipBomb, { "content-encoding": "gzip" }],
      ["zstd", "{}", { "content-encoding": "zstd" }],
      ["oversized", " ".repeat(4_000_000), {}],
      ["gzipped", encode(MCP_INITIALIZE.body ?? "", "gzip"), { "content-encoding": "gzip" }],
    ];
    for (const ep of [MCP_INITIALIZE, MCP_TOOLS[0], GRAPHQL, ENDPOINTS.find((e) => e.method === "POST")]) {
      if (!ep) throw new Error("no POST route");
      for (const [name, body, headers] of bodies) {
        for (const authorization of [null, `Bearer ${unknownKey()}`, `Bearer ${revokedKey}`]) {
          const res = await app.fetch(`http://localhost${ep.path}`, {
            method: "POST",
            headers: { ...ep.headers, ...headers, ...(authorization ? { authorization } : {}) },
            body,
          });
          expect(res.status, `${ep.name} ${name} ${authorization}`).toBe(401);
          await expectUnauthorized(res, authorization !== null);
        }
      }
    }
    // With a key, /mcp reads a compressed body as the other faces do (src/request-body.ts).
    const res = await app.fetch("http://localhost/mcp", {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, "content-encoding": "gzip", authorization: `Bearer ${api.key}` },
      body: encode(MCP_INITIALIZE.body ?? "", "gzip"),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe(
      "storegraph",
    );
  });

  it("/healthz, /readyz and the OpenAPI document answer without a key", async () => {
    for (const path of ["/healthz", "/readyz", OPENAPI_PATH]) {
      const res = await app.fetch(`http://localhost${path}`);
      const text = await res.text();
      expect(res.status, `${path}: ${text.slice(0, 200)}`).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      expect(() => JSON.parse(text)).not.toThrow();
    }
  });

  it("a key verified before its revocation stops working once the 5 s verification cache expires", async () => {
    // This key IS verified first (so the verifier caches it as valid), then revoked: the plugin
    // documents that a revoked key stops working within its 5 s cache, so the test waits past it.
    const key = await api.createKey("pro", "revoked after use");
    const ok = await send(GRAPHQL, `Bearer ${key}`);
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    expect(await keys.revoke(key.slice(0, 7))).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 5_300));
    await expectUnauthorized(await send(GRAPHQL, `Bearer ${key}`), true, key);
    await expectUnauthorized(await send(ENDPOINTS[0], `Bearer ${key}`), true, key);
  }, 30_000);

  describe("the GraphiQL page", () => {
    it("is 401 without a key", async () => {
      await expectUnauthorized(await send(GRAPHIQL, null), false);
    });

    it("is a 200 HTML page with ?key=<valid>, holding the key only in its headers setting", async () => {
      const res = await send(GRAPHIQL, null, `?key=${api.key}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain("Authorization");
      expect(html.split(api.key).length - 1).toBe(1);
      // renderGraphiQL embeds the options as JSON; headers is itself a JSON string.
      const headersSetting = `"headers":${JSON.stringify(JSON.stringify({ Authorization: `Bearer ${api.key}` }))}`;
      expect(html).toContain(headersSetting);
      expect(html.replace(headersSetting, "")).not.toContain(api.key);
    });

    it("is a 200 HTML page with the key in the Authorization header", async () => {
      const res = await send(GRAPHIQL, `Bearer ${api.key}`);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain(JSON.stringify(JSON.stringify({ Authorization: `Bearer ${api.key}` })));
    });

    it("is 401 with ?key=<invalid>", async () => {
      const unknown = unknownKey();
      await expectUnauthorized(await send(GRAPHIQL, null, `?key=${unknown}`), true, unknown);
      await expectUnauthorized(await send(GRAPHIQL, null, `?key=${revokedKey}`), true, revokedKey);
      await expectUnauthorized(await send(GRAPHIQL, null, "?key=not-a-key"), true);
      await expectUnauthorized(await send(GRAPHIQL, null, "?key="), true);
    });

    it("?key= authenticates only the page, not API requests", async () => {
      const q = `?key=${api.key}`;
      await expectUnauthorized(await send(GRAPHQL, null, q), false);
      await expectUnauthorized(
        await send({ ...GRAPHIQL, headers: { accept: "application/json" } }, null, q),
        false,
      );
      await expectUnauthorized(await send(restEndpoint(OPERATIONS[0]), null, q), false);
      await expectUnauthorized(await send({ ...GRAPHIQL, method: "POST" } as Endpoint, null, q), false);
    });
  });

  it("keys never appear in the logs, even at trace level", async () => {
    const logged = createApp({ ...api.db.config, logLevel: "trace" }, api.snapshots);
    const bad = unknownKey();
    const canary = `canary_${randomBytes(6).toString("hex")}`;
    const captured: string[] = [];
    const text = (chunk: unknown) =>
      typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");

    // pino writes to fd 1 through sonic-boom (fs.write / fs.writeSync), not process.stdout.write,
    // so both layers are watched; everything is still passed through.
    const out = process.stdout.write;
    const err = process.stderr.write;
    const fsWrite = fs.write;
    const fsWriteSync = fs.writeSync;
    const isStd = (fd: unknown) =>
      fd === 1 || fd === 2 || fd === process.stdout.fd || fd === process.stderr.fd;
    process.stdout.write = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
      captured.push(text(chunk));
      return (out as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof process.stdout.write;
    process.stderr.write = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
      captured.push(text(chunk));
      return (err as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof process.stderr.write;
    (fs as { write: unknown }).write = (fd: unknown, chunk: unknown, ...rest: unknown[]) => {
      if (isStd(fd)) captured.push(text(chunk));
      return (fsWrite as (...a: unknown[]) => unknown)(fd, chunk, ...rest);
    };
    (fs as { writeSync: unknown }).writeSync = (fd: unknown, chunk: unknown, ...rest: unknown[]) => {
      if (isStd(fd)) captured.push(text(chunk));
      return (fsWriteSync as (...a: unknown[]) => unknown)(fd, chunk, ...rest);
    };
    const statuses: Record<string, number> = {};
    try {
      const call = async (
        label: string,
        path: string,
        authorization: string | null,
        init: RequestInit = {},
      ) => {
        const res = await logged.fetch(`http://localhost${path}`, {
          ...init,
          headers: {
            ...(init.headers as Record<string, string>),
            ...(authorization === null ? {} : { authorization }),
          },
        });
        await res.text();
        statuses[label] = res.status;
      };
      const gql = (query: string) => ({
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
      for (const [who, key] of [
        ["valid", api.key],
        ["invalid", bad],
      ] as const) {
        const auth = `Bearer ${key}`;
        await call(`${who}: rest ok`, `${REST_BASE}/domain/shop.example.com`, auth);
        await call(`${who}: rest list`, `${REST_BASE}/app?sort=-installs&page_size=2`, auth);
        await call(`${who}: bad filter`, `${REST_BASE}/domain?f:nope=1`, auth);
        await call(`${who}: bad value`, `${REST_BASE}/app?page_size=500`, auth);
        await call(`${who}: unknown rest path`, `${REST_BASE}/nope`, auth);
        await call(`${who}: unknown path`, "/nope", auth);
        await call(`${who}: unknown domain`, `${REST_BASE}/domain/missing.example.com`, auth);
        await call(`${who}: graphql ok`, "/graphql", auth, gql("{ snapshot { version } }"));
        // A validation error that names the canary field (statuses of GraphQL errors are not
        // this suite's business, so not asserted).
        await call(`${who}: graphql error`, "/graphql", auth, gql(`{ ${canary} }`));
        await call(`${who}: graphql syntax`, "/graphql", auth, gql("{ snapshot { "));
        await call(`${who}: graphiql ?key`, `/graphql?key=${key}`, null, {
          headers: { accept: "text/html" },
        });
        await call(`${who}: malformed header`, "/healthz", `Bearer ${key} extra`);
        await call(
          `${who}: malformed header on api`,
          "/graphql",
          `Bearer ${key} extra`,
          gql("{ snapshot { version } }"),
        );
        await call(`${who}: basic`, "/graphql", `Basic ${key}`, gql("{ snapshot { version } }"));
      }
      await call("no key", `${REST_BASE}/app`, null);
      // sonic-boom writes asynchronously: wait until the output stops growing.
      let size = -1;
      for (let i = 0; i < 40 && size !== captured.join("").length; i++) {
        size = captured.join("").length;
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
      (fs as { write: unknown }).write = fsWrite;
      (fs as { writeSync: unknown }).writeSync = fsWriteSync;
    }

    // The requests did what they were meant to, so the log saw success, failure and refusal.
    expect(statuses).toMatchObject({
      "valid: rest ok": 200,
      "valid: rest list": 200,
      "valid: bad filter": 400,
      "valid: bad value": 400,
      "valid: unknown rest path": 404,
      "valid: unknown path": 404,
      "valid: unknown domain": 404,
      "valid: graphql ok": 200,
      "valid: graphiql ?key": 200,
      "valid: malformed header on api": 401,
      "invalid: rest ok": 401,
      "invalid: bad filter": 401,
      "invalid: unknown path": 401,
      "invalid: graphql ok": 401,
      "invalid: graphiql ?key": 401,
      "no key": 401,
    });
    const output = captured.join("");
    // Something was logged (trace level), so the checks below can fail.
    expect(output.length).toBeGreaterThan(0);
    expect(output).toMatch(/"level":\s*10|"level":\s*20/);
    expect(output).not.toContain(api.key);
    expect(output).not.toContain(bad);
    expect(output).not.toContain(api.key.slice(7));
    expect(output).not.toContain(bad.slice(7));
  });
});

describe.each(databaseKinds())("the demo key of a fresh database on %s", (kind: DatabaseKind) => {
  let db: TestDatabase;
  const servers: Server[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(kind);
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await db?.drop();
  });

  it("is printed once on the first start, works, and is not printed again", async () => {
    const first = startServer(db, await freePort());
    servers.push(first);
    const out1 = await first.waitFor(/More keys:|Every request needs Authorization/, 150_000);
    expect(out1).toMatch(/A demo API key \(enterprise plan\) was created/);
    const key = /^ {2}(sg_\S+)$/m.exec(out1)?.[1] ?? "";
    expect(key).toMatch(KEY_SHAPE);
    const base = /GraphQL\s+(\S+)\/graphql/.exec(out1)?.[1] ?? "";
    // The address it listens on (test/support/server.ts starts it with HOST=127.0.0.1).
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The printed curl line, run as fetch.
    const curl = /curl -H "Authorization: Bearer (\S+)" "(\S+)"/.exec(out1);
    expect(curl?.[1]).toBe(key);
    expect(curl?.[2].startsWith(`${base}/`)).toBe(true);
    const res = await fetch(curl?.[2] ?? "", { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { domains: unknown[] }).domains).toHaveLength(3);
    const anonymous = await fetch(curl?.[2] ?? "");
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
    const page = await fetch(`${base}/graphql?key=${key}`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    await page.body?.cancel();
    expect(await first.stop()).toBe(0);

    const second = startServer(db, await freePort());
    servers.push(second);
    const out2 = await second.waitFor(/More keys:|Every request needs Authorization/, 150_000);
    expect(out2).toContain("Every request needs Authorization: Bearer <API key>");
    expect(out2).not.toMatch(/sg_[a-z2-7]{32}/);
    expect(out2).not.toContain("demo API key");
    // The demo key of the first start still works.
    const base2 = /GraphQL\s+(\S+)\/graphql/.exec(out2)?.[1] ?? "";
    const again = await fetch(`${base2}/json/api/v1/all/domain?page_size=1`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(again.status).toBe(200);
    await again.body?.cancel();
    expect(await second.stop()).toBe(0);
  }, 300_000);
});
