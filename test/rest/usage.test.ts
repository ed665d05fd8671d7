import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import type { Plan } from "../../src/auth/keys.ts";
import { type Endpoint, RATE_LIMITS } from "../../src/auth/limits.ts";
import { startApi, type TestApi, tempDir, withKey } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * GET /json/api/v1/usage and GraphQL `usage` (docs/api.md section 8, "Usage"): the calling key's
 * plan, each budget as it stands (read without drawing on it), and its Export Domains and
 * cursor=all jobs of the month. Budgets in memory here; shared through Redis in
 * test/auth/usage-redis.test.ts.
 */

const USAGE = "http://localhost/json/api/v1/usage";
const BASE = "http://localhost/json/api/v1/all";

interface EndpointUsage {
  endpoint: Endpoint;
  title: string;
  limit: number;
  window_seconds: number;
  remaining: number;
  reset: number;
  reset_at?: string;
}
interface Usage {
  key_id: string;
  key_name: string;
  plan: Plan;
  limits_enforced: boolean;
  endpoints: EndpointUsage[];
  month: string;
  exports: number;
  cursor_all_jobs: number;
}

const thisMonth = () => new Date().toISOString().slice(0, 7);

describe.each(databaseKinds())("usage on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-usage-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()), {
      rateLimits: { enabled: true, redisUrl: null },
    });
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  const as = (key: string, init: RequestInit = {}) => ({
    ...init,
    headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}` },
  });
  const usageOf = async (key: string): Promise<{ res: Response; usage: Usage }> => {
    const res = await api.app.fetch(USAGE, as(key));
    expect(res.status).toBe(200);
    return { res, usage: ((await res.json()) as { usage: Usage }).usage };
  };
  const budget = (usage: Usage, endpoint: Endpoint) => {
    const b = usage.endpoints.find((e) => e.endpoint === endpoint);
    if (!b) throw new Error(`no budget ${endpoint}`);
    return b;
  };
  const get = async (key: string, path: string) => {
    const res = await api.app.fetch(`${BASE}${path}`, as(key));
    await res.arrayBuffer();
    return res;
  };

  it("a fresh key: its plan, every budget full, nothing counted, and reading it draws on nothing", async () => {
    const key = await api.createKey("pro", "fresh");
    const { res, usage } = await usageOf(key);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(res.headers.get("ratelimit")).toBeNull();
    expect(usage).toEqual({
      key_id: expect.any(String),
      key_name: "fresh",
      plan: "pro",
      limits_enforced: true,
      endpoints: Object.entries(RATE_LIMITS).map(([endpoint, row]) => ({
        endpoint,
        title: row.title,
        limit: row.pro,
        window_seconds: row.duration,
        remaining: row.pro,
        reset: 0,
      })),
      month: thisMonth(),
      exports: 0,
      cursor_all_jobs: 0,
    });
    // Read again, and through GraphQL: still nothing drawn.
    expect((await usageOf(key)).usage).toEqual(usage);
    const gql = await api.app.fetch(
      "http://localhost/graphql",
      as(key, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ usage { plan endpoints { remaining } } }" }),
      }),
    );
    expect(gql.headers.get("x-ratelimit-limit")).toBeNull();
    expect(((await gql.json()) as { data: unknown }).data).toEqual({
      usage: { plan: "pro", endpoints: usage.endpoints.map((e) => ({ remaining: e.remaining })) },
    });
    expect((await usageOf(key)).usage).toEqual(usage);
  });

  it("budgets go down as requests are made, with a reset time within their window", async () => {
    // Three requests and the read within one 1-second window; a slow machine tries again with a
    // fresh key.
    for (let attempt = 0; ; attempt++) {
      const key = await api.createKey("pro", "spender");
      const started = Date.now();
      for (let i = 0; i < 3; i++)
        expect((await get(key, "/domain/shop.example.com?fields=name")).status).toBe(200);
      const { usage } = await usageOf(key);
      const read = Date.now();
      if (read - started > 800 && attempt < 3) continue;
      const b = budget(usage, "retrieveDomain");
      expect(b).toMatchObject({ limit: 5, remaining: 2, reset: 1, window_seconds: 1 });
      const at = Date.parse(b.reset_at ?? "");
      expect(at).toBeGreaterThan(started);
      expect(at).toBeLessThanOrEqual(read + 1000);
      // The others are untouched.
      expect(budget(usage, "listDomains")).toMatchObject({ remaining: 2, reset: 0 });
      expect(budget(usage, "listDomains").reset_at).toBeUndefined();
      // Once the window has passed, the budget is full again.
      await sleep(Math.max(0, at - Date.now()) + 50);
      expect(budget((await usageOf(key)).usage, "retrieveDomain")).toMatchObject({ remaining: 5, reset: 0 });
      break;
    }
  });

  it("counts each export and cursor=all job started this month, with their once-a-minute budgets", async () => {
    const key = await api.createKey("enterprise", "exporter");
    const before = Date.now();
    const exported = await get(key, "/domain/export?fields=name");
    expect(exported.status).toBe(200);
    let { usage } = await usageOf(key);
    expect(usage).toMatchObject({ exports: 1, cursor_all_jobs: 0, month: thisMonth() });
    const exportBudget = budget(usage, "exportDomains");
    expect(exportBudget).toMatchObject({ limit: 1, remaining: 0, window_seconds: 60 });
    expect(exportBudget.reset).toBeGreaterThan(55);
    expect(exportBudget.reset).toBeLessThanOrEqual(60);
    const at = Date.parse(exportBudget.reset_at ?? "");
    expect(at).toBeGreaterThan(before + 55_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 60_000);

    // A refused export (its budget spent) and a bad one (400) are not counted.
    expect((await get(key, "/domain/export?fields=name")).status).toBe(429);
    expect((await get(key, "/domain/export?fields=nope")).status).toBe(400);
    expect((await usageOf(key)).usage).toMatchObject({ exports: 1, cursor_all_jobs: 0 });

    // A cursor=all job counts when it starts, not when it is polled.
    expect((await get(key, "/domain?cursor=all&fields=name")).status).toBe(202);
    ({ usage } = await usageOf(key));
    expect(usage).toMatchObject({ exports: 1, cursor_all_jobs: 1 });
    expect(budget(usage, "listDomainsAll")).toMatchObject({ remaining: 0 });
    await sleep(5100);
    expect((await get(key, "/domain?cursor=all&fields=name")).status).toBeLessThan(300);
    expect((await usageOf(key)).usage).toMatchObject({ exports: 1, cursor_all_jobs: 1 });
  }, 20_000);

  it("each key sees its own numbers", async () => {
    const a = await api.createKey("elite", "a");
    const b = await api.createKey("enterprise", "b");
    expect((await get(a, "/domain/export?fields=name")).status).toBe(200);
    expect((await get(a, "/app?fields=name")).status).toBe(200);
    const ua = (await usageOf(a)).usage;
    const ub = (await usageOf(b)).usage;
    expect(ua).toMatchObject({ plan: "elite", key_name: "a", exports: 1 });
    expect(ub).toMatchObject({ plan: "enterprise", key_name: "b", exports: 0 });
    expect(ua.key_id).not.toBe(ub.key_id);
    expect(budget(ub, "exportDomains")).toMatchObject({ limit: 1, remaining: 1, reset: 0 });
    expect(budget(ub, "listApps")).toMatchObject({ limit: 6, remaining: 6 });
    expect(budget(ua, "listApps").limit).toBe(2);
  });

  it("GraphQL's usage is the same report, camelCase", async () => {
    const key = await api.createKey("pro", "graphql");
    expect((await get(key, "/domain/export?fields=name")).status).toBe(200);
    const res = await api.app.fetch(
      "http://localhost/graphql",
      as(key, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          query:
            "{ usage { keyName plan limitsEnforced month exports cursorAllJobs endpoints { endpoint limit windowSeconds remaining resetSeconds resetAt } } }",
        }),
      }),
    );
    const { data } = (await res.json()) as { data: { usage: Record<string, unknown> } };
    const rest = (await usageOf(key)).usage;
    expect(data.usage).toMatchObject({
      keyName: "graphql",
      plan: "pro",
      limitsEnforced: true,
      month: rest.month,
      exports: 1,
      cursorAllJobs: 0,
    });
    const exportBudget = (data.usage.endpoints as Record<string, unknown>[]).find(
      (e) => e.endpoint === "exportDomains",
    );
    expect(exportBudget).toMatchObject({ limit: 1, windowSeconds: 60, remaining: 0 });
    // The same instant, each read from now plus what is left of the window, each rounded to the
    // millisecond on its own clock reading: a few ms apart on a loaded machine (4 ms seen in a full
    // run), never a window's worth.
    const apart =
      Date.parse(String(exportBudget?.resetAt)) - Date.parse(String(budget(rest, "exportDomains").reset_at));
    expect(Math.abs(apart)).toBeLessThanOrEqual(50);
  });

  it("takes fields, as every route does; other options, methods and paths are refused as elsewhere", async () => {
    const key = await api.createKey("pro", "fields");
    const res = await api.app.fetch(`${USAGE}?fields=plan,exports,endpoints.endpoint`, as(key));
    const body = (await res.json()) as { usage: Usage };
    expect(body.usage.plan).toBe("pro");
    expect(Object.keys(body.usage)).toEqual(["plan", "exports", "endpoints"]);
    expect(body.usage.endpoints[0]).toEqual({ endpoint: "retrieveApp" });

    const unknownField = await api.app.fetch(`${USAGE}?fields=nope`, as(key));
    expect(unknownField.status).toBe(400);
    expect(await unknownField.json()).toMatchObject({
      code: "BAD_USER_INPUT",
      error: expect.stringContaining("nope"),
    });
    const unknownOption = await api.app.fetch(`${USAGE}?page=2`, as(key));
    expect(unknownOption.status).toBe(400);
    expect(await unknownOption.json()).toMatchObject({ error: expect.stringContaining("page") });
    const post = await api.app.fetch(USAGE, as(key, { method: "POST" }));
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    const slash = await api.app.fetch(`${USAGE}/?fields=plan`, as(key));
    expect(slash.status).toBe(308);
    expect(slash.headers.get("location")).toBe("/json/api/v1/usage?fields=plan");
    const head = await api.app.fetch(USAGE, as(key, { method: "HEAD" }));
    expect(head.status).toBe(200);
  });

  it("a missing or bad key gets the usual 401", async () => {
    const missing = await api.app.fetch(USAGE, { headers: { authorization: "" } });
    // withKey adds the test key only when the request carries no Authorization at all.
    expect(missing.status).toBe(401);
    const bad = await api.app.fetch(USAGE, as("sg_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(await bad.json()).toMatchObject({ code: "UNAUTHENTICATED" });
    const gql = await api.app.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sg_nope" },
      body: JSON.stringify({ query: "{ usage { plan } }" }),
    });
    expect(gql.status).toBe(401);
  });

  it("says when the limits are off (--no-rate-limits): every budget stays full", async () => {
    const key = await api.createKey("pro", "unlimited");
    const app = withKey(createApp(api.db.config, api.snapshots), key);
    try {
      await (await app.fetch(`${BASE}/domain/shop.example.com?fields=name`)).arrayBuffer();
      const res = await app.fetch(USAGE);
      const { usage } = (await res.json()) as { usage: Usage };
      expect(usage.limits_enforced).toBe(false);
      expect(budget(usage, "retrieveDomain")).toMatchObject({ limit: 5, remaining: 5, reset: 0 });
    } finally {
      await app.dispose();
    }
  });
});
