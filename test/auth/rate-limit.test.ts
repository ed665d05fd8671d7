import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Plan } from "../../src/auth/keys.ts";
import { type Endpoint, RATE_LIMITS } from "../../src/auth/limits.ts";
import { REST_BASE } from "../../src/rest/handler.ts";
import { OPERATIONS } from "../../src/rest/routes.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { restEndpoint, sendPrepared } from "../support/routes.ts";

/**
 * Per-plan, per-key, per-endpoint rate limits (docs/api.md section 8, docs/decisions.md): every REST route
 * and the GraphQL fields they map to draw on one budget; over it, 429 with Retry-After and a JSON
 * body; every response carries X-RateLimit-Limit/-Remaining/-Reset; the window resets.
 *
 * Limits hold per window of 1 s from the first request, so each burst uses a fresh key (a fresh
 * budget) and is retried when the machine was too slow to send it within the window.
 */

interface Call {
  path: string;
  init?: RequestInit;
}

/** One request of each REST endpoint (by the limit it draws on) over the fixture. */
const REST_CALLS: Record<Exclude<Endpoint, "listDomainsAll" | "exportDomains" | "node">, Call> = {
  retrieveApp: { path: "/app/shopify.klaviyo?fields=name" },
  listAppReviews: { path: "/app/shopify.klaviyo/reviews?fields=rating" },
  listApps: { path: "/app?fields=name&page_size=2" },
  retrieveDomain: { path: "/domain/shop.example.com?fields=name" },
  bulkRetrieveDomains: {
    path: "/domain/bulk",
    init: {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ domains: ["shop.example.com"], fields: "name" }),
    },
  },
  listDomainAppReviews: { path: "/domain/shop.example.com/app_reviews?fields=rating" },
  listDomains: { path: "/domain?fields=name&page_size=2" },
  snapshotFiles: { path: "/snapshots?fields=version" },
};

const PLANS: Plan[] = ["pro", "elite", "enterprise"];

const header = (res: Response, name: string) => res.headers.get(name);

/**
 * The IETF fields (draft-ietf-httpapi-ratelimit-headers) of `endpoint`'s budget, as the response's
 * X-RateLimit-* say it: RateLimit-Policy's quota and window, RateLimit's remaining and reset.
 */
function expectStandardFields(res: Response, endpoint: Endpoint, what = endpoint as string) {
  const limit = header(res, "x-ratelimit-limit");
  expect(header(res, "ratelimit-policy"), what).toBe(
    `"${endpoint}";q=${limit};w=${RATE_LIMITS[endpoint].duration}`,
  );
  expect(header(res, "ratelimit"), what).toBe(
    `"${endpoint}";r=${header(res, "x-ratelimit-remaining")};t=${header(res, "x-ratelimit-reset")}`,
  );
}

describe.each(databaseKinds())("rate limits on %s (in memory)", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-rate-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()), {
      rateLimits: { enabled: true, redisUrl: null },
    });
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  const rest = async (key: string, call: Call): Promise<Response> =>
    api.app.fetch(`http://localhost${REST_BASE}${call.path}`, {
      ...call.init,
      headers: { ...(call.init?.headers as Record<string, string>), authorization: `Bearer ${key}` },
    });
  const gql = async (key: string, query: string): Promise<Response> =>
    api.app.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ query }),
    });

  /**
   * Sends `limit` requests then one more with a fresh key of `plan`, within one window; returns the
   * responses and the key. Retries with another fresh key when the burst outlasted the window.
   */
  async function burst(plan: Plan, limit: number, send: (key: string) => Promise<Response>) {
    for (let attempt = 0; ; attempt++) {
      const key = await api.createKey(plan, `burst ${plan}`);
      const started = Date.now();
      const within: Response[] = [];
      for (let i = 0; i < limit; i++) within.push(await send(key));
      const over = await send(key);
      if (Date.now() - started < 800 || attempt === 3) return { key, within, over };
    }
  }

  describe.each(PLANS)("%s plan", (plan) => {
    it.concurrent.each(Object.entries(REST_CALLS))(
      "%s: the limit of docs/api.md section 8, then 429 with Retry-After, then a new window",
      async (endpoint, call) => {
        const limit = RATE_LIMITS[endpoint as Endpoint][plan];
        const { key, within, over } = await burst(plan, limit, (k) => rest(k, call));
        within.forEach((res, i) => {
          expect(res.status, `request ${i + 1} of ${limit}`).toBe(200);
          expect(header(res, "x-ratelimit-limit")).toBe(String(limit));
          expect(header(res, "x-ratelimit-remaining")).toBe(String(limit - i - 1));
          expect(Number(header(res, "x-ratelimit-reset"))).toBe(1);
          expect(header(res, "ratelimit-policy")).toBe(`"${endpoint}";q=${limit};w=1`);
          expect(header(res, "ratelimit")).toBe(`"${endpoint}";r=${limit - i - 1};t=1`);
        });
        expect(over.status).toBe(429);
        expect(header(over, "retry-after")).toBe("1");
        expect(header(over, "x-ratelimit-limit")).toBe(String(limit));
        expect(header(over, "x-ratelimit-remaining")).toBe("0");
        expect(header(over, "ratelimit")).toMatch(new RegExp(`^"${endpoint}";r=0;t=1$`));
        const body = (await over.json()) as Record<string, unknown>;
        expect(body).toEqual({
          error: expect.any(String),
          code: "RATE_LIMITED",
          retry_after: 1,
          endpoint,
          request_id: expect.any(String),
        });
        expect(body.error).toContain(RATE_LIMITS[endpoint as Endpoint].title);
        expect(body.error).toContain(`${limit} per second`);
        // Retry-After is right: once it has passed, the window is new.
        await sleep(Number(header(over, "retry-after")) * 1000);
        const again = await rest(key, call);
        expect(again.status).toBe(200);
        expect(header(again, "x-ratelimit-remaining")).toBe(String(limit - 1));
      },
    );
  });

  it("budgets are per key and per endpoint: another key, or another endpoint, is not affected", async () => {
    const { key } = await burst("pro", 5, (k) => rest(k, REST_CALLS.retrieveDomain));
    expect((await rest(key, REST_CALLS.retrieveDomain)).status).toBe(429);
    const other = await api.createKey("pro", "other");
    expect((await rest(other, REST_CALLS.retrieveDomain)).status).toBe(200);
    const app = await rest(key, REST_CALLS.retrieveApp);
    expect(app.status).toBe(200);
    expect(header(app, "x-ratelimit-remaining")).toBe("4");
  });

  it("REST and GraphQL draw on the same budget", async () => {
    const key = await api.createKey("pro", "both faces");
    for (let i = 0; i < 3; i++) expect((await rest(key, REST_CALLS.retrieveDomain)).status).toBe(200);
    const g = await gql(key, '{ domain(name: "shop.example.com") { name } }');
    expect(g.status).toBe(200);
    expect(header(g, "x-ratelimit-remaining")).toBe("1");
    expect(header(g, "ratelimit-policy")).toBe('"retrieveDomain";q=5;w=1');
    expect(header(g, "ratelimit")).toMatch(/^"retrieveDomain";r=1;t=1$/);
    const g2 = await gql(key, '{ domain(name: "shop.example.com") { name } }');
    expect(header(g2, "x-ratelimit-remaining")).toBe("0");
    const over = await rest(key, REST_CALLS.retrieveDomain);
    expect(over.status).toBe(429);
    const overGql = await gql(key, '{ domain(name: "shop.example.com") { name } }');
    expect(overGql.status).toBe(429);
    expect(Number(header(overGql, "retry-after"))).toBeGreaterThanOrEqual(1);
    const body = (await overGql.json()) as {
      data: unknown;
      errors: { message: string; extensions: Record<string, unknown> }[];
    };
    expect(body.data).toEqual({ domain: null });
    expect(body.errors[0].message).toContain("Retrieve a Domain");
    expect(body.errors[0].extensions).toEqual({
      code: "RATE_LIMITED",
      endpoint: "retrieveDomain",
      retryAfter: 1,
      requestId: expect.any(String),
    });
  });

  it("a GraphQL 429 names the endpoint refused, beside the fields of other endpoints that were served", async () => {
    const { key } = await burst("pro", 5, (k) => rest(k, REST_CALLS.retrieveDomain));
    const res = await gql(key, '{ domain(name: "shop.example.com") { name } apps(first: 1) { totalCount } }');
    expect(res.status).toBe(429);
    const body = (await res.json()) as {
      data: Record<string, unknown> | null;
      errors: { message: string; path: string[]; extensions: Record<string, unknown> }[];
    };
    expect(body.data).toEqual({ domain: null, apps: { totalCount: expect.any(Number) } });
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].path).toEqual(["domain"]);
    expect(body.errors[0].message).toMatch(/^rate limit of Retrieve a Domain exceeded \(5 per second/);
    expect(body.errors[0].extensions).toMatchObject({ code: "RATE_LIMITED", endpoint: "retrieveDomain" });
  });

  it("a REST request draws only on its own endpoint, even when its operation nests fields of others", async () => {
    const key = await api.createKey("pro", "nested rest");
    // GET /app/<id>/reviews is app { reviews }: List App reviews, not Retrieve an App too.
    const reviews = await rest(key, REST_CALLS.listAppReviews);
    expect(header(reviews, "x-ratelimit-remaining")).toBe("4");
    const app = await rest(key, REST_CALLS.retrieveApp);
    expect(header(app, "x-ratelimit-remaining")).toBe("4");
    // An unknown Domain's reviews cost like a known one's.
    const missing = await rest(key, { path: "/domain/nowhere.example.net/app_reviews" });
    expect(missing.status).toBe(404);
    expect(header(missing, "x-ratelimit-remaining")).toBe("4");
  });

  it("a GraphQL operation draws once per endpoint field it selects, not once per list item", async () => {
    const key = await api.createKey("pro", "nested gql");
    const res = await gql(
      key,
      "{ domains(first: 5) { edges { node { name appReviews(first: 1) { edges { node { rating } } } } } } }",
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { domains: { edges: unknown[] } } };
    expect(body.data.domains.edges.length).toBeGreaterThan(1);
    // Each budget drew once: List Domains 2 → 1 left, List App reviews for a Domain 5 → 4 left.
    expect(header(res, "x-ratelimit-limit")).toBe("2");
    expect(header(res, "x-ratelimit-remaining")).toBe("1");
    // The IETF fields list every budget drawn on, the one with the least left first.
    expect(header(res, "ratelimit-policy")).toBe('"listDomains";q=2;w=1, "listDomainAppReviews";q=5;w=1');
    expect(header(res, "ratelimit")).toBe('"listDomains";r=1;t=1, "listDomainAppReviews";r=4;t=1');
    const reviews = await rest(key, { path: "/domain/shop.example.com/app_reviews" });
    expect(header(reviews, "x-ratelimit-remaining")).toBe("3");
    // Two aliases are two requests.
    const two = await gql(
      key,
      '{ a: app(platform: "shopify", token: "klaviyo") { name } b: app(platform: "shopify", token: "klaviyo") { name } }',
    );
    expect(header(two, "x-ratelimit-remaining")).toBe("3");
  });

  it("when a nested endpoint is exhausted, the operation is 429 and no item of the list is read", async () => {
    const key = await api.createKey("enterprise", "nested verdict");
    // Spend List App reviews for a Domain (20 a second) through REST.
    for (let i = 0; i < 20; i++) await rest(key, { path: "/domain/shop.example.com/app_reviews" });
    const res = await gql(
      key,
      "{ domains(first: 5) { edges { node { name appReviews(first: 1) { edges { node { rating } } } } } } }",
    );
    expect(res.status).toBe(429);
    const body = (await res.json()) as {
      data: unknown;
      errors: { path: unknown[]; extensions: { code: string } }[];
    };
    expect(body.errors.length).toBeGreaterThan(0);
    expect(body.errors.every((e) => e.extensions.code === "RATE_LIMITED")).toBe(true);
    expect(JSON.stringify(body.data ?? null)).not.toContain("rating");
  });

  it("a request refused before it reads anything (a bad option) reports its budget without drawing on it", async () => {
    const key = await api.createKey("pro", "bad option");
    const bad = await rest(key, { path: "/domain?fields=name&f:nope=1" });
    expect(bad.status).toBe(400);
    expect(header(bad, "x-ratelimit-limit")).toBe("2");
    expect(header(bad, "x-ratelimit-remaining")).toBe("2");
    expect(header(bad, "x-ratelimit-reset")).toBe("1");
    expectStandardFields(bad, "listDomains");
    expect(header(bad, "ratelimit")).toBe('"listDomains";r=2;t=1');
    const ok = await rest(key, REST_CALLS.listDomains);
    expect(header(ok, "x-ratelimit-remaining")).toBe("1");
  });

  it("an operation over the cost limit is refused before it draws on any budget", async () => {
    const key = await api.createKey("pro", "costly");
    const res = await gql(
      key,
      "{ domains(first: 1000) { edges { node { appReviews(first: 50) { edges { node { domains { domain { apps { app { name } } } } } } } } } } }",
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(body.errors[0].extensions.code).toBe("QUERY_TOO_COMPLEX");
    expect(body.errors[0].message).toMatch(/costs [\d,]+, more than the limit of [\d,]+/);
    const after = await rest(key, REST_CALLS.listDomains);
    expect(header(after, "x-ratelimit-remaining")).toBe("1");
  });

  it("every REST route answers with X-RateLimit headers", async () => {
    for (const route of OPERATIONS) {
      if (route.id === "exportDomains") continue; // its own test below
      // A key of its own each: the routes of one budget would spend it within the second.
      const key = await api.createKey("enterprise", `every route: ${route.id}`);
      const ep = restEndpoint(route);
      const res = await sendPrepared(ep, async (e) => {
        const answer = await api.app.fetch(`http://localhost${e.path}`, {
          method: e.method,
          headers: { ...e.headers, authorization: `Bearer ${key}` },
          body: e.body,
        });
        if (e !== ep) expect(answer.status, e.name).toBe(200);
        return answer;
      });
      expect(res.status, ep.name).toBe(200);
      expect(header(res, "x-ratelimit-limit"), `${route.method} ${route.path}`).toBe(
        String(RATE_LIMITS[route.route.endpoint].enterprise),
      );
      expectStandardFields(res, route.route.endpoint, `${route.method} ${route.path}`);
      await res.body?.cancel();
    }
  });

  it("cursor=all: one job start a minute, polls at most every 5 s", async () => {
    const key = await api.createKey("pro", "cursor all");
    const start = await rest(key, { path: "/domain?fields=name&cursor=all" });
    expect(start.status).toBe(202);
    expect(header(start, "x-ratelimit-limit")).toBe("1");
    expect(header(start, "x-ratelimit-remaining")).toBe("0");
    expect(Number(header(start, "x-ratelimit-reset"))).toBeGreaterThan(55);
    expectStandardFields(start, "listDomainsAll");
    expect(header(start, "ratelimit-policy")).toBe('"listDomainsAll";q=1;w=60');
    // Polling at once is too fast.
    const early = await rest(key, { path: "/domain?fields=name&cursor=all" });
    expect(early.status).toBe(429);
    const wait = Number(header(early, "retry-after"));
    expect(wait).toBeGreaterThanOrEqual(4);
    expect(wait).toBeLessThanOrEqual(5);
    expect(await early.json()).toEqual({
      error: expect.stringMatching(/^List Domains with cursor=all: .*5 seconds/),
      code: "RATE_LIMITED",
      retry_after: wait,
      endpoint: "listDomainsAll",
      request_id: early.headers.get("x-request-id"),
    });
    // Another job within the minute: 429 for about a minute, naming cursor=all.
    const other = await rest(key, { path: "/domain?fields=rank&cursor=all" });
    expect(other.status).toBe(429);
    const retry = Number(header(other, "retry-after"));
    expect(retry).toBeGreaterThan(50);
    expect(retry).toBeLessThanOrEqual(60);
    expect(await other.json()).toEqual({
      error: expect.stringContaining("List Domains with cursor=all"),
      code: "RATE_LIMITED",
      retry_after: retry,
      endpoint: "listDomainsAll",
      request_id: other.headers.get("x-request-id"),
    });
    // After Retry-After, the poll is answered (the job is small: done by now).
    await sleep(wait * 1000);
    const done = await rest(key, { path: "/domain?fields=name&cursor=all" });
    expect([200, 202]).toContain(done.status);
    expect(header(done, "x-ratelimit-limit")).toBe("1");
    await done.body?.cancel();
  }, 20_000);

  it("cursor=all and Export Domains have a budget each: one never refuses the other", async () => {
    /** The 429 of a second request of the same kind within the minute. */
    const refused = async (key: string, path: string, endpoint: Endpoint) => {
      const res = await rest(key, { path });
      expect(res.status, path).toBe(429);
      expect(Number(header(res, "retry-after"))).toBeGreaterThan(50);
      expect(header(res, "x-ratelimit-limit")).toBe("1");
      expect(header(res, "x-ratelimit-remaining")).toBe("0");
      expectStandardFields(res, endpoint);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toEqual({
        error: expect.stringContaining(`rate limit of ${RATE_LIMITS[endpoint].title} exceeded`),
        code: "RATE_LIMITED",
        retry_after: Number(header(res, "retry-after")),
        endpoint,
        request_id: header(res, "x-request-id"),
      });
      return body.error as string;
    };
    const exportOnce = async (key: string) => {
      const res = await rest(key, { path: "/domain/export?fields=name" });
      expect(res.status).toBe(200);
      expect(header(res, "x-ratelimit-limit")).toBe("1");
      expect(header(res, "x-ratelimit-remaining")).toBe("0");
      expectStandardFields(res, "exportDomains");
      await res.text();
    };
    const startJob = async (key: string) => {
      const res = await rest(key, { path: "/domain?fields=name&cursor=all" });
      expect(res.status).toBe(202);
      expect(header(res, "x-ratelimit-remaining")).toBe("0");
      await res.text();
    };
    // A job, then an export at once.
    const a = await api.createKey("pro", "job then export");
    await startJob(a);
    await exportOnce(a);
    expect(await refused(a, "/domain/export?fields=rank", "exportDomains")).not.toContain("cursor=all");
    await refused(a, "/domain?fields=rank&cursor=all", "listDomainsAll");
    // An export, then a job at once.
    const b = await api.createKey("enterprise", "export then job");
    await exportOnce(b);
    await startJob(b);
    await refused(b, "/domain?fields=rank&cursor=all", "listDomainsAll");
    await refused(b, "/domain/export?fields=rank", "exportDomains");
  });

  it("a cursor=all or export request with a bad option is a 400 that draws on no budget", async () => {
    const key = await api.createKey("pro", "export typo");
    for (const path of ["/domain?f:cc=ZZZ&cursor=all", "/domain/export?f:cc=ZZZ"]) {
      const bad = await rest(key, { path });
      expect(bad.status, path).toBe(400);
      expect(header(bad, "x-ratelimit-remaining"), path).toBe("1");
    }
    const ok = await rest(key, { path: "/domain/export?fields=name" });
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it("Export Domains: once a minute", async () => {
    const key = await api.createKey("enterprise", "export");
    const first = await rest(key, { path: "/domain/export?fields=name" });
    expect(first.status).toBe(200);
    expect(header(first, "x-ratelimit-remaining")).toBe("0");
    await first.text();
    const second = await rest(key, { path: "/domain/export?fields=name" });
    expect(second.status).toBe(429);
    expect(Number(header(second, "retry-after"))).toBeGreaterThan(50);
  });
});

describe("rate limits with Redis unreachable", () => {
  let api: TestApi;
  const tmp = tempDir("storegraph-rate-down-");
  beforeAll(async () => {
    api = await startApi("sqlite", writeSnapshotDir(join(tmp.dir, "s"), validFixture()), {
      // Nothing listens on port 1: the limiters fall back to memory, per process.
      rateLimits: { enabled: true, redisUrl: "redis://127.0.0.1:1" },
    });
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("still answers, and still limits (in memory)", async () => {
    const key = await api.createKey("pro", "redis down");
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await api.app.fetch("http://localhost/json/api/v1/all/app/shopify.klaviyo?fields=name", {
        headers: { authorization: `Bearer ${key}` },
      });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[5]).toBe(429);
  }, 20_000);
});
