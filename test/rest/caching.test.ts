import { join } from "node:path";
import type { DocumentNode } from "graphql";
import { createYoga } from "graphql-yoga";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiKey, Plan } from "../../src/auth/keys.ts";
import { RATE_LIMITS } from "../../src/auth/limits.ts";
import { useAuth } from "../../src/auth/plugin.ts";
import { RateLimits } from "../../src/auth/rate-limit.ts";
import { createLogger } from "../../src/logger.ts";
import { cacheable, matchesEtag, parseIfNoneMatch, restEtag } from "../../src/rest/etag.ts";
import { type ExecuteGraphQL, REST_BASE, useRest } from "../../src/rest/handler.ts";
import { buildOpenApi } from "../../src/rest/openapi.ts";
import { OPERATIONS } from "../../src/rest/routes.ts";
import { schema } from "../../src/schema/index.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { restEndpoint } from "../support/routes.ts";

// HTTP caching of the REST API keyed by the snapshot version: a 200 of a GET route carries a weak
// ETag (the snapshot version and a digest of the route, path and options) and
// `Cache-Control: private, no-cache`; If-None-Match naming the current tag gets 304 without a body
// and without reading the database, still drawing on the route's rate limit; a new snapshot
// changes every tag. POST routes, cursor=all, export and errors carry none.

const ORIGIN = "http://localhost";
const ETAG = /^W\/"(\d+)-([0-9a-f]{20})"$/;
const CACHEABLE = OPERATIONS.filter(cacheable);

describe("ETags", () => {
  const q = (s: string) => new URLSearchParams(s);

  it("are weak, the snapshot version then a digest; a new version changes only the version", () => {
    const a = restEtag(3, "listApps", {}, q("fields=name&page_size=2"));
    const b = restEtag(4, "listApps", {}, q("fields=name&page_size=2"));
    expect(a).toMatch(ETAG);
    expect(b).toMatch(ETAG);
    expect(a).not.toBe(b);
    expect(ETAG.exec(a)?.[1]).toBe("3");
    expect(ETAG.exec(b)?.[1]).toBe("4");
    expect(ETAG.exec(a)?.[2]).toBe(ETAG.exec(b)?.[2]);
  });

  it("name the options in a canonical order, keeping a repeated option's values in theirs", () => {
    const tag = (s: string) => restEtag(1, "listApps", {}, q(s));
    expect(tag("a=1&b=2")).toBe(tag("b=2&a=1"));
    expect(tag("b=1&a=1&a=2")).toBe(tag("a=1&b=1&a=2"));
    expect(tag("a=1&a=2")).not.toBe(tag("a=2&a=1"));
    expect(tag("a=1")).not.toBe(tag("a=2"));
    expect(tag("a=1")).not.toBe(tag("a=1&b="));
    expect(tag("q=a+b")).toBe(tag("q=a%20b"));
    // The route and its path parameters count; an option cannot pass for a parameter.
    expect(restEtag(1, "retrieveApp", { app: "shopify.a" }, q(""))).not.toBe(
      restEtag(1, "retrieveApp", { app: "shopify.b" }, q("")),
    );
    expect(restEtag(1, "retrieveDomain", { name: "x" }, q(""))).not.toBe(
      restEtag(1, "listDomainAppReviews", { name: "x" }, q("")),
    );
    expect(restEtag(1, "retrieveDomain", { name: "x" }, q(""))).not.toBe(
      restEtag(1, "retrieveDomain", {}, q("name=x")),
    );
  });

  it("If-None-Match: *, a list (quoted tags may hold commas), weak comparison", () => {
    expect(parseIfNoneMatch(null)).toBeNull();
    expect(parseIfNoneMatch("*")).toBe("*");
    expect(parseIfNoneMatch(' W/"1-a" ,"2,b",W/"3"')).toEqual(['"1-a"', '"2,b"', '"3"']);
    expect(parseIfNoneMatch("1-a, W/2-b")).toEqual(['"1-a"', '"2-b"']);
    expect(parseIfNoneMatch("")).toEqual([]);
    expect(matchesEtag(['"1-a"'], 'W/"1-a"')).toBe(true);
    expect(matchesEtag(['W/"1-a"'], 'W/"1-a"')).toBe(true);
    expect(matchesEtag(['"2,b"', '"1-a"'], 'W/"1-a"')).toBe(true);
    expect(matchesEtag(['"1-ab"', '"1-"'], 'W/"1-a"')).toBe(false);
    expect(matchesEtag([], 'W/"1-a"')).toBe(false);
  });
});

describe("the OpenAPI document", () => {
  type Operation = { parameters: { name?: string; $ref?: string }[]; responses: Record<string, Json> };
  type Json = { headers?: Record<string, unknown> };
  const doc = buildOpenApi() as {
    paths: Record<string, Record<string, Operation>>;
    components: { headers: Record<string, unknown>; parameters: Record<string, { in: string }> };
  };

  it("documents ETag and Cache-Control on the 200s of GET routes, their 304, and If-None-Match", () => {
    expect(doc.components.headers).toHaveProperty("ETag");
    expect(doc.components.headers).toHaveProperty("Cache-Control");
    expect(doc.components.parameters["If-None-Match"].in).toBe("header");
    for (const route of OPERATIONS) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      if (route.route.file) {
        // A file's own tag (its SHA-256) and 304, not the snapshot's (src/files/routes.ts).
        expect("304" in op.responses, route.id).toBe(true);
        expect(
          op.parameters.some((p) => p.name === "If-None-Match"),
          route.id,
        ).toBe(true);
        continue;
      }
      const cached = cacheable(route);
      expect(Object.keys(op.responses["200"].headers ?? {}).includes("ETag"), route.id).toBe(cached);
      expect(Object.keys(op.responses["200"].headers ?? {}).includes("Cache-Control"), route.id).toBe(cached);
      expect("304" in op.responses, route.id).toBe(cached);
      expect(op.parameters.some((p) => p.$ref === "#/components/parameters/If-None-Match")).toBe(cached);
      if (cached) expect(Object.keys(op.responses["304"].headers ?? {})).toContain("X-RateLimit-Remaining");
    }
  });
});

describe("the REST handler's caching, with a stand-in for GraphQL", () => {
  // The handler alone, over an execute() that counts its calls: a 304 must not call it at all.
  function standIn(version: number | null) {
    const logger = createLogger({ logLevel: "silent" });
    const calls: DocumentNode[] = [];
    const execute: ExecuteGraphQL = async (_request, document) => {
      calls.push(document);
      return version === null
        ? { errors: [{ message: "no dataset has been loaded yet", extensions: { code: "NOT_READY" } }] }
        : { data: { app: { name: "Klaviyo" } } };
    };
    const limits = new RateLimits({ enabled: false, redisUrl: null }, logger);
    const key: ApiKey = {
      id: "1",
      name: "stand-in",
      plan: "pro",
      prefix: "sg_test",
      account: "1",
      createdAt: new Date(),
      lastUsedAt: null,
      revokedAt: null,
    };
    const yoga = createYoga({
      schema,
      plugins: [
        useAuth(async (secret) => (secret === "sg_test" ? key : null), []),
        useRest({
          execute,
          // An App route reads nothing through the query layer.
          readContext: async () => {
            throw new Error("not read here");
          },
          logger,
          limits,
          version: async () => version,
        }),
      ],
    });
    const get = (headers: Record<string, string> = {}) =>
      yoga.fetch(`${ORIGIN}${REST_BASE}/app/shopify.klaviyo?fields=name`, {
        headers: { authorization: "Bearer sg_test", ...headers },
      });
    return { calls, get };
  }

  it("a matching If-None-Match is answered without executing the operation", async () => {
    const { calls, get } = standIn(7);
    const ok = await get();
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ app: { name: "Klaviyo" } });
    const etag = ok.headers.get("etag") as string;
    expect(ETAG.exec(etag)?.[1]).toBe("7");
    expect(calls).toHaveLength(1);
    const res = await get({ "if-none-match": etag });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe("");
    expect(res.headers.get("etag")).toBe(etag);
    expect(calls).toHaveLength(1);
  });

  it("without a served snapshot there is no ETag: the request executes and errors as before", async () => {
    const { calls, get } = standIn(null);
    const requests: Record<string, string>[] = [
      {},
      { "if-none-match": "*" },
      { "if-none-match": 'W/"1-0123456789abcdef0123"' },
    ];
    for (const headers of requests) {
      const res = await get(headers);
      expect(res.status).toBe(503);
      expect(res.headers.get("etag")).toBeNull();
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(((await res.json()) as { code: string }).code).toBe("NOT_READY");
    }
    expect(calls).toHaveLength(3);
  });
});

describe.each(databaseKinds())("REST caching on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-rest-caching-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()), {
      rateLimits: { enabled: true, redisUrl: null },
    });
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  type Send = (path: string, init?: RequestInit) => Promise<Response>;
  /** Requests with a fresh key of `plan` (a budget of its own), to a path under REST_BASE or absolute. */
  async function client(plan: Plan = "enterprise"): Promise<Send> {
    const key = await api.createKey(plan, "caching");
    return async (path, init = {}) =>
      api.app.fetch(path.startsWith("/json") ? `${ORIGIN}${path}` : `${ORIGIN}${REST_BASE}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
      });
  }
  const version = async () => (await api.snapshots.current())?.snapshot.version;
  const etagOf = (res: Response) => res.headers.get("etag") as string;

  /** A 200 with its ETag; the body is read. */
  async function ok(send: Send, path: string, init?: RequestInit): Promise<{ res: Response; etag: string }> {
    const res = await send(path, init);
    const text = await res.text();
    expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
    expect(text.length).toBeGreaterThan(0);
    return { res, etag: etagOf(res) };
  }

  it("a 200 of every GET route carries a weak ETag of the snapshot version, and private, no-cache", async () => {
    const v = await version();
    expect(CACHEABLE.map((r) => r.id).sort()).toEqual(
      [
        "appFacets",
        "appTrends",
        "domainFacets",
        "domainHistory",
        "domainTrends",
        "listAppReviews",
        "listChanges",
        "listApps",
        "listDomainAppReviews",
        "listDomains",
        "listSnapshots",
        "lookupDomains",
        "relatedDomains",
        "domainSimilar",
        "retrieveApp",
        "retrieveDomain",
      ].sort(),
    );
    const tags = new Set<string>();
    for (const route of CACHEABLE) {
      // A key per route: four routes draw on List Domains' budget (6 a second), by GET and HEAD.
      const send = await client();
      const { path } = restEndpoint(route);
      const { res, etag } = await ok(send, path);
      expect(etag, route.id).toMatch(ETAG);
      expect(ETAG.exec(etag)?.[1]).toBe(String(v));
      expect(res.headers.get("cache-control")).toBe("private, no-cache");
      expect(res.headers.get("content-type")).toMatch(/^application\/json\b/);
      expect(res.headers.get("x-ratelimit-limit")).toBe(String(RATE_LIMITS[route.route.endpoint].enterprise));
      // HEAD is GET without the body: the same tag.
      const head = await send(path, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(etagOf(head)).toBe(etag);
      await head.body?.cancel();
      tags.add(etag);
    }
    expect(tags.size).toBe(CACHEABLE.length);
  });

  it("If-None-Match with the ETag: 304, no body, the same ETag, and no database query", async () => {
    for (const route of CACHEABLE) {
      // A key per route: four routes draw on List Domains' budget (6 a second).
      const send = await client();
      // Facets are kept per snapshot once counted: a size no other request asked for is counted.
      // The feed reads the meta database: a Domain filter makes it read the snapshot too.
      const path = `${restEndpoint(route).path}${route.route.facets ? "?facet_size=37" : route.id === "listChanges" ? "?f:ds=Active" : ""}`;
      api.resetQueries();
      const { etag } = await ok(send, path);
      // The counter sees this route's reads, so its silence below means something.
      // (A trend reads the meta database alone, which it does not see.)
      // (The snapshots' list reads the registry and each copy's manifest through readers of its own.)
      if (!route.id.endsWith("Trends") && route.id !== "listSnapshots")
        expect(api.queries.length, route.id).toBeGreaterThan(0);
      for (const method of ["GET", "HEAD"]) {
        api.resetQueries();
        const res = await send(path, { method, headers: { "if-none-match": etag } });
        expect(res.status, `${method} ${route.id}`).toBe(304);
        expect(await res.text()).toBe("");
        expect(etagOf(res)).toBe(etag);
        expect(res.headers.get("cache-control")).toBe("private, no-cache");
        expect(res.headers.get("x-ratelimit-limit")).toBe(
          String(RATE_LIMITS[route.route.endpoint].enterprise),
        );
        expect(res.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
        expect(res.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
        expect(api.queries, `${method} ${route.id}`).toEqual([]);
      }
    }
  });

  it("the same options in another order, or the path spelled otherwise, have the same ETag", async () => {
    const send = await client();
    const a = await ok(send, "/app?fields=name,installs&page_size=2&sort=-installs&f:p=shopify");
    const b = await ok(send, "/app?f:p=shopify&sort=-installs&page_size=2&fields=name,installs");
    expect(b.etag).toBe(a.etag);
    const c = await ok(send, "/domain?f:cc=US,CA&f:cc:op=or&fields=name");
    const d = await ok(send, "/domain?fields=name&f:cc:op=or&f:cc=US%2CCA");
    expect(d.etag).toBe(c.etag);
    // A 304 for the reordered URL.
    const res = await send("/app?sort=-installs&fields=name,installs&f:p=shopify&page_size=2", {
      headers: { "if-none-match": a.etag },
    });
    expect(res.status).toBe(304);
    const e = await ok(send, "/domain/shop.example.com?fields=name");
    const f = await ok(send, "/domain/shop%2Eexample.com?fields=name");
    expect(f.etag).toBe(e.etag);
  });

  it("other fields, options or resources have another ETag, which does not match", async () => {
    const send = await client();
    const tags = [
      (await ok(send, "/app/shopify.klaviyo?fields=name")).etag,
      (await ok(send, "/app/shopify.klaviyo?fields=name,plans.name")).etag,
      (await ok(send, "/app/shopify.klaviyo")).etag,
      (await ok(send, "/app/shopify.old-reviews?fields=name")).etag,
      (await ok(send, "/app?fields=name&page_size=1")).etag,
      (await ok(send, "/app?fields=name&page_size=2")).etag,
      (await ok(send, "/domain/shop.example.com?fields=name")).etag,
      (await ok(send, "/domain/shop.example.com?fields=name&follow_redirects=true")).etag,
    ];
    expect(new Set(tags).size).toBe(tags.length);
    const res = await send("/app/shopify.klaviyo?fields=name,plans.name", {
      headers: { "if-none-match": tags[0] },
    });
    expect(res.status).toBe(200);
    expect(etagOf(res)).toBe(tags[1]);
    expect(await res.json()).toEqual({
      app: { name: "Klaviyo", plans: [{ name: "Free" }, { name: "Pro" }] },
    });
  });

  it("a tag that does not match gets 200 with the body and the current ETag", async () => {
    const send = await client();
    const path = "/domain/shop.example.com?fields=name";
    const { etag } = await ok(send, path);
    const [, v, digest] = ETAG.exec(etag) ?? [];
    for (const other of [
      `W/"${Number(v) + 1}-${digest}"`,
      `W/"${v}-${"0".repeat(20)}"`,
      `"${v}-${digest}x"`,
      'W/""',
      "garbage",
    ]) {
      api.resetQueries();
      const res = await send(path, { headers: { "if-none-match": other } });
      expect(res.status, other).toBe(200);
      expect(etagOf(res)).toBe(etag);
      expect(await res.json()).toEqual({ domain: { name: "shop.example.com" } });
      expect(api.queries.length).toBeGreaterThan(0);
    }
    // Weak comparison: the strong spelling of the same tag matches.
    const strong = await send(path, { headers: { "if-none-match": etag.slice(2) } });
    expect(strong.status).toBe(304);
  });

  it("a list of tags matches when one of them does", async () => {
    const send = await client();
    const path = "/app/shopify.klaviyo/reviews?fields=rating&page_size=1";
    const { etag } = await ok(send, path);
    for (const list of [
      `"1-aaaaaaaaaaaaaaaaaaaa", ${etag}`,
      `${etag},W/"2-bbbbbbbbbbbbbbbbbbbb"`,
      `"x,y", W/"zz" , ${etag.slice(2)}`,
    ]) {
      api.resetQueries();
      const res = await send(path, { headers: { "if-none-match": list } });
      expect(res.status, list).toBe(304);
      expect(etagOf(res)).toBe(etag);
      expect(api.queries).toEqual([]);
    }
    // Several If-None-Match headers are one list.
    const headers = new Headers();
    headers.append("if-none-match", '"nope"');
    headers.append("if-none-match", etag);
    const res = await send(path, { headers: Object.fromEntries(headers) });
    expect(res.status).toBe(304);
    const none = await send(path, { headers: { "if-none-match": '"1-a", W/"2-b"' } });
    expect(none.status).toBe(200);
  });

  it("* gets 304 when the App, Domain or list exists, and the error when not", async () => {
    const send = await client();
    for (const path of ["/app/shopify.klaviyo?fields=name", "/domain/shop.example.com", "/app?page_size=1"]) {
      const { etag } = await ok(send, path);
      const res = await send(path, { headers: { "if-none-match": "*" } });
      expect(res.status, path).toBe(304);
      expect(await res.text()).toBe("");
      expect(etagOf(res)).toBe(etag);
      expect(res.headers.get("cache-control")).toBe("private, no-cache");
    }
    // Whether it exists is known only once read: * does not hide a 404.
    for (const path of [
      "/app/shopify.nope",
      "/domain/nowhere.example.net",
      "/domain/nowhere.example.net/app_reviews",
    ]) {
      const res = await send(path, { headers: { "if-none-match": "*" } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get("etag")).toBeNull();
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(((await res.json()) as { code: string }).code).toBe("NOT_FOUND");
    }
  });

  it("a bad option is still a 400 with If-None-Match, without an ETag", async () => {
    const send = await client();
    const { etag } = await ok(send, "/app?fields=name&page_size=2");
    for (const path of [
      "/app?fields=name&page_size=2&f:nope=1",
      "/app?fields=name&page_size=0",
      "/app?fields=nope&page_size=2",
      "/app?fields=name&page_size=2&page_size=3",
      "/domain?fields=name&for=jsonl",
      "/domain?f:cc:op=or",
    ]) {
      for (const inm of [etag, "*"]) {
        const res = await send(path, { headers: { "if-none-match": inm } });
        expect(res.status, `${path} (${inm})`).toBe(400);
        expect(res.headers.get("etag")).toBeNull();
        expect(res.headers.get("cache-control")).toBe("no-store");
        expect(((await res.json()) as { code: string }).code).toBe("BAD_USER_INPUT");
      }
    }
  });

  it("a 304 draws on the route's budget once; when it is spent, the usual 429", async () => {
    const path = "/app/shopify.klaviyo?fields=name";
    const limit = RATE_LIMITS.retrieveApp.pro;
    for (let attempt = 0; ; attempt++) {
      // A fresh key per attempt: its window starts with the first request.
      const send = await client("pro");
      const started = Date.now();
      const first = await send(path);
      const etag = etagOf(first);
      await first.body?.cancel();
      const answers = [first];
      for (let i = 1; i <= limit; i++) answers.push(await send(path, { headers: { "if-none-match": etag } }));
      if (Date.now() - started > 800 && attempt < 3) continue; // the window passed: measure again
      expect(first.status).toBe(200);
      expect(first.headers.get("x-ratelimit-remaining")).toBe(String(limit - 1));
      answers.slice(1, limit).forEach((res, i) => {
        expect(res.status, `304 number ${i + 1}`).toBe(304);
        expect(res.headers.get("x-ratelimit-limit")).toBe(String(limit));
        expect(res.headers.get("x-ratelimit-remaining")).toBe(String(limit - i - 2));
        expect(res.headers.get("x-ratelimit-reset")).toBe("1");
      });
      const over = answers[limit];
      expect(over.status).toBe(429);
      expect(over.headers.get("etag")).toBeNull();
      expect(over.headers.get("cache-control")).toBe("no-store");
      expect(over.headers.get("retry-after")).toBe("1");
      expect(over.headers.get("x-ratelimit-limit")).toBe(String(limit));
      expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
      const body = (await over.json()) as Record<string, unknown>;
      expect(body).toEqual({
        error: expect.any(String),
        code: "RATE_LIMITED",
        retry_after: 1,
        endpoint: "retrieveApp",
        request_id: over.headers.get("x-request-id"),
      });
      expect(body.error).toContain(RATE_LIMITS.retrieveApp.title);
      return;
    }
  });

  it("POST routes, cursor=all, export and errors carry no ETag, and If-None-Match does not apply to them", async () => {
    const send = await client();
    const noEtag = async (res: Response, status: number, what: string) => {
      expect(res.status, what).toBe(status);
      expect(res.headers.get("etag"), what).toBeNull();
      expect(res.headers.get("cache-control"), what).toBe("no-store");
      await res.body?.cancel();
    };
    const post = (body: unknown, inm = "*"): RequestInit => ({
      method: "POST",
      headers: { "content-type": "application/json", "if-none-match": inm },
      body: JSON.stringify(body),
    });
    await noEtag(
      await send("/domain/bulk", post({ domains: ["shop.example.com"], fields: "name" })),
      200,
      "POST /domain/bulk",
    );
    await noEtag(await send("/app", post({ fields: "name", page_size: 1 })), 200, "POST /app");
    await noEtag(await send("/domain", post({ fields: "name", page_size: 1 })), 200, "POST /domain");
    // The GET of the same list has a tag; sent on the POST, it changes nothing.
    const { etag } = await ok(send, "/domain?fields=name&page_size=1");
    await noEtag(
      await send("/domain", post({ fields: "name", page_size: 1 }, etag)),
      200,
      "POST /domain (tag)",
    );
    // Errors.
    await noEtag(await send("/app/shopify.nope", { headers: { "if-none-match": etag } }), 404, "404");
    await noEtag(await send("/nowhere"), 404, "unknown path");
    await noEtag(await send("/domain/bulk"), 405, "405");
    await noEtag(await send("/domain?cursor=zzz"), 400, "bad cursor");
    await noEtag(
      await send("/app/shopify.klaviyo", { headers: { authorization: "Bearer sg_nope" } }),
      401,
      "401",
    );
    // The whole-result routes answer themselves.
    await noEtag(
      await send("/domain/export?fields=name", { headers: { "if-none-match": "*" } }),
      200,
      "export",
    );
    // (cursor=all shares the export's budget of one a minute: another key.)
    const other = await client();
    await noEtag(
      await other("/domain?fields=name&cursor=all", { headers: { "if-none-match": "*" } }),
      202,
      "cursor=all",
    );
  });

  // Keep last: it loads another snapshot.
  it("a new snapshot changes every ETag: the old ones get 200", async () => {
    // A key per route: four routes draw on List Domains' budget (6 a second).
    const sends = new Map<string, Send>();
    for (const r of CACHEABLE) sends.set(restEndpoint(r).path, await client());
    const paths = [...sends.keys()];
    const before = new Map<string, string>();
    for (const path of paths) before.set(path, (await ok(sends.get(path) as Send, path)).etag);
    const v = await version();
    const other = validFixture();
    other.domains[0].title = "Reloaded";
    await api.load(writeSnapshotDir(join(tmp.dir, "b"), other));
    expect(await version()).toBeGreaterThan(Number(v));
    for (const path of paths) {
      const send = sends.get(path) as Send;
      const old = before.get(path) as string;
      const res = await send(path, { headers: { "if-none-match": old } });
      expect(res.status, path).toBe(200);
      const etag = etagOf(res);
      expect(etag).not.toBe(old);
      expect(ETAG.exec(etag)?.[1]).toBe(String(await version()));
      // The digest is of the URL alone: only the version changed.
      expect(ETAG.exec(etag)?.[2]).toBe(ETAG.exec(old)?.[2]);
      await res.body?.cancel();
      const again = await send(path, { headers: { "if-none-match": `${old}, ${etag}` } });
      expect(again.status).toBe(304);
    }
  });
});
