import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { ApiKeys, type Plan } from "../../src/auth/keys.ts";
import type { Config } from "../../src/config.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import { isDatabaseUnavailable, isPoolBusy, maskFault } from "../../src/errors.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { tempDir, testLoadSteps } from "../support/api.ts";
import {
  createTestDatabase,
  type DatabaseKind,
  databaseKinds,
  type TestDatabase,
} from "../support/databases.ts";
import { FaultProxy } from "../support/fault-proxy.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * Faults between the gateway and its services, made by a TCP proxy in between (FaultProxy): a
 * stall (the peer stops answering, sockets stay open) and a cut (connections reset, new ones
 * refused). Every answer must come within a bound, as JSON. The timeouts are set short here
 * (TIMEOUTS); BOUND_MS is far above them and far below "never": a stalled request that waits
 * for the peer fails the bound, however slow the machine.
 *
 * Redis faults run on both databases. Database faults run on PostgreSQL only: SQLite is read
 * in-process from local files, with no connection to stall or cut.
 */
const REDIS_URL = process.env.TEST_REDIS_URL;
const BOUND_MS = 10_000;
// Short, but not so short that a busy machine's healthy answer misses them.
const TIMEOUTS: Config["timeouts"] = {
  databaseConnectMs: 1000,
  databaseStatementMs: 1000,
  redisConnectMs: 1000,
  redisCommandMs: 1000,
  readyzMs: 1500,
};
const REST = "http://localhost/json/api/v1/all";

/** `p`, or a failure naming `what` when it has not settled within BOUND_MS. */
async function within<T>(what: string, p: T | Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${BOUND_MS} ms`)), BOUND_MS);
  });
  try {
    return await Promise.race([Promise.resolve(p), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Retries `attempt` until it returns true (the pools reconnecting), failing after BOUND_MS. */
async function eventually(what: string, attempt: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!(await attempt())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${BOUND_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
}

interface Gateway {
  config: Config;
  app: App;
  /** The same gateway reading the registry on every request (no cached snapshot row). */
  uncached: App;
  keys: ApiKeys;
  logs: LogLine[];
  pg: FaultProxy | null;
  redis: FaultProxy | null;
  redisPrefix: string;
  close(): Promise<void>;
}

/**
 * A gateway whose PostgreSQL (when `kind` is postgresql) and Redis (when TEST_REDIS_URL is set)
 * are reached through fault proxies. The fixture is loaded and keys are made without the proxy.
 */
async function startGateway(kind: DatabaseKind, tmp: string): Promise<Gateway> {
  const db: TestDatabase = await createTestDatabase(kind);
  const direct = await Snapshots.open(db.config);
  await loadSnapshot(direct.store, writeSnapshotDir(join(tmp, "s"), validFixture()), {
    ...testLoadSteps(db.config, direct.store),
    keep: 1,
  });
  const database = db.config.database;
  let pg: FaultProxy | null = null;
  let config: Config = { ...db.config, timeouts: TIMEOUTS };
  if (database.kind === "postgresql") {
    const u = new URL(database.url);
    pg = await FaultProxy.start({ host: u.hostname, port: Number(u.port || 5432) });
    config = { ...config, database: { ...database, url: pg.urlFor(database.url) } };
  }
  let redis: FaultProxy | null = null;
  const redisPrefix = `storegraph:faults:${randomBytes(4).toString("hex")}`;
  if (REDIS_URL) {
    const u = new URL(REDIS_URL);
    redis = await FaultProxy.start({ host: u.hostname, port: Number(u.port || 6379) });
    const rateLimits = { enabled: true, redisUrl: redis.urlFor(REDIS_URL), keyPrefix: redisPrefix };
    config = { ...config, rateLimits };
  }
  const logs: LogLine[] = [];
  const logger = pino({ level: "warn", base: undefined }, { write: (s: string) => logs.push(JSON.parse(s)) });
  const cached = await Snapshots.open(config, { refreshMs: 60_000, graceMs: 0 });
  const fresh = await Snapshots.open(config, { refreshMs: 0, graceMs: 0 });
  const app = createApp(config, cached, { logger });
  const uncached = createApp(config, fresh, { logger });
  return {
    config,
    app,
    uncached,
    keys: new ApiKeys(direct.store),
    logs,
    pg,
    redis,
    redisPrefix,
    async close() {
      await pg?.restore();
      await redis?.restore();
      await app.dispose();
      await uncached.dispose();
      await cached.close();
      await fresh.close();
      await direct.close();
      await pg?.close();
      await redis?.close();
      await db.drop();
    },
  };
}

const get = (app: App, path: string, key: string, headers: Record<string, string> = {}) =>
  app.fetch(`${REST}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });

const gql = (app: App, key: string, query: string) =>
  app.fetch("http://localhost/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ query }),
  });

const newKey = async (g: Gateway, plan: Plan = "enterprise") =>
  (await g.keys.create(`faults ${plan}`, plan)).key;

describe.skipIf(!REDIS_URL).each(databaseKinds())("Redis faults on %s", (kind) => {
  let g: Gateway;
  const tmp = tempDir("storegraph-faults-");
  beforeAll(async () => {
    g = await startGateway(kind, tmp.dir);
  });
  afterAll(async () => {
    await g?.close();
    tmp.remove();
  });

  const redisCount = async (key: string, endpoint: string): Promise<string | null> => {
    const [{ id }] = (await g.keys.list()).filter((k) => k.prefix === key.slice(0, 7));
    const direct = new Redis(REDIS_URL as string, { lazyConnect: true });
    try {
      await direct.connect();
      return await direct.get(`${g.redisPrefix}:${endpoint}:${id}`);
    } finally {
      direct.disconnect();
    }
  };

  it("while Redis stalls, requests and a bad option's 400 answer within the bound from the process's own budgets", async () => {
    const key = await newKey(g, "pro");
    const first = await get(g.app, "/domain/export?fields=name", key);
    expect(first.status).toBe(200);
    await first.text();
    expect(await redisCount(key, "exportDomains")).not.toBeNull(); // drawn in Redis

    g.redis?.stall();
    try {
      // Redis holds this minute's export already: a 200 can only come from the in-process budget.
      const second = await within("an export's start", get(g.app, "/domain/export?fields=name", key));
      expect(second.status).toBe(200);
      await second.text();
      const third = await within("a second export's start", get(g.app, "/domain/export?fields=name", key));
      expect(third.status).toBe(429); // the in-process budget is enforced too
      expect(await third.json()).toMatchObject({ code: "RATE_LIMITED" });
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);

      const one = await within("a Domain", get(g.app, "/domain/shop.example.com?fields=name", key));
      expect(one.status).toBe(200);
      expect(one.headers.get("x-ratelimit-limit")).toBe("5");
      expect(await one.json()).toMatchObject({ domain: { name: "shop.example.com" } });

      const bad = await within("a bad option", get(g.app, "/domain/shop.example.com?bogus=1", key));
      expect(bad.status).toBe(400);
      expect(bad.headers.get("x-ratelimit-limit")).toBe("5");
      expect(await bad.json()).toMatchObject({
        code: "BAD_USER_INPUT",
        error: expect.stringMatching(/bogus/),
      });

      const viaGraphql = await within(
        "a GraphQL operation",
        gql(g.app, key, '{ domain(name: "shop.example.com") { name } }'),
      );
      expect(viaGraphql.status).toBe(200);
      expect(await viaGraphql.json()).toEqual({ data: { domain: { name: "shop.example.com" } } });

      // Once the stall is found (a ping a second), requests stop waiting for Redis: each answers
      // well inside the command timeout, which every one of them waited out before.
      await eventually("requests that no longer wait for the stalled Redis", async () => {
        const started = performance.now();
        const res = await get(g.app, "/domain/shop.example.com?fields=name", key);
        await res.text();
        expect(res.status).toBeLessThan(500);
        return performance.now() - started < TIMEOUTS.redisCommandMs / 2;
      });
    } finally {
      await g.redis?.restore();
    }

    // Back on Redis: a new key's draw is counted there again.
    const later = await newKey(g, "pro");
    await eventually("a draw counted in Redis after the stall", async () => {
      const res = await get(g.app, "/domain/shop.example.com?fields=name", later);
      expect(res.status).toBe(200);
      await res.text();
      return (await redisCount(later, "retrieveDomain")) !== null;
    });
  });

  it("while Redis is cut, requests answer from the process's budgets, and Redis counts again once back", async () => {
    const key = await newKey(g, "pro");
    await g.redis?.cut();
    try {
      const res = await within("a Domain", get(g.app, "/domain/shop.example.com?fields=name", key));
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-remaining")).toBe("4");
      await res.text();
    } finally {
      await g.redis?.restore();
    }
    const later = await newKey(g, "pro");
    await eventually("a draw counted in Redis after the cut", async () => {
      const res = await get(g.app, "/domain/shop.example.com?fields=name", later);
      await res.text();
      return res.status === 200 && (await redisCount(later, "retrieveDomain")) !== null;
    });
  });
});

describe.skipIf(!databaseKinds().includes("postgresql"))("PostgreSQL faults", () => {
  let g: Gateway;
  const tmp = tempDir("storegraph-faults-");
  beforeAll(async () => {
    g = await startGateway("postgresql", tmp.dir);
  });
  afterAll(async () => {
    await g?.close();
    tmp.remove();
  });

  /** The JSON error every face gives when the database does not answer. */
  async function expectUnavailable(res: Response): Promise<Record<string, unknown>> {
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    return (await res.json()) as Record<string, unknown>;
  }

  /** The log lines that carry `requestId`: exactly one, at warn level or above. */
  function expectLoggedOnce(requestId: unknown) {
    expect(requestId).toEqual(expect.any(String));
    const lines = g.logs.filter((l) => l.requestId === requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBeGreaterThanOrEqual(40);
  }

  async function expectRecovered(key: string) {
    await eventually("REST after the fault", async () => {
      const res = await get(g.app, "/domain/shop.example.com?fields=name", key);
      await res.text();
      return res.status === 200;
    });
    const rest = await get(g.uncached, "/domain/shop.example.com?fields=name", key);
    expect(await rest.json()).toMatchObject({ domain: { name: "shop.example.com" } });
    const graphql = await gql(g.app, key, '{ domain(name: "shop.example.com") { name } }');
    expect(await graphql.json()).toEqual({ data: { domain: { name: "shop.example.com" } } });
    const ready = await g.app.fetch("http://localhost/readyz");
    expect(ready.status).toBe(200);
    const unseen = await newKey(g);
    expect((await get(g.app, "/domain/shop.example.com?fields=name", unseen)).status).toBe(200);
  }

  it("the serving pools carry a server-side statement_timeout: PostgreSQL cuts a slow statement itself", async () => {
    const pools = await Snapshots.open(g.config, { refreshMs: 0, graceMs: 0 });
    try {
      const served = await pools.current();
      const settings = [
        (await pools.store.metaQuery("SHOW statement_timeout"))[0].statement_timeout,
        (await served?.sql.all("SHOW statement_timeout", []))?.[0][0],
      ];
      expect(settings).toEqual(["1s", "1s"]);
      const slow = await pools.store.metaQuery("SELECT pg_sleep(3)").catch((e: unknown) => e);
      expect(slow).toMatchObject({ code: "57014" }); // query_canceled, by the server
      expect(isDatabaseUnavailable(slow)).toBe(true);
    } finally {
      await pools.close();
    }
  });

  it("while PostgreSQL stalls, REST, GraphQL, the key check and /readyz answer 503 JSON within the bound", async () => {
    const key = await newKey(g);
    const warm = await get(g.app, "/domain/shop.example.com?fields=name", key);
    expect(warm.status).toBe(200); // the key is now verified, and the pools hold connections
    await warm.text();
    expect((await g.app.fetch("http://localhost/readyz")).status).toBe(200);
    const unseen = await newKey(g);

    g.pg?.stall();
    try {
      const rest = await expectUnavailable(
        await within("REST", get(g.app, "/domain/shop.example.com?fields=name", key)),
      );
      expect(rest).toMatchObject({ code: "DATABASE_UNAVAILABLE", request_id: expect.any(String) });
      expectLoggedOnce(rest.request_id);

      const graphql = await expectUnavailable(
        await within("GraphQL", gql(g.app, key, '{ domain(name: "shop.example.com") { name } }')),
      );
      const [error] = graphql.errors as { extensions: Record<string, unknown> }[];
      expect(error.extensions).toMatchObject({ code: "DATABASE_UNAVAILABLE", requestId: expect.any(String) });
      expectLoggedOnce(error.extensions.requestId);

      const registry = await expectUnavailable(
        await within("REST reading the registry", get(g.uncached, "/app/shopify.klaviyo?fields=name", key)),
      );
      expect(registry).toMatchObject({ code: "DATABASE_UNAVAILABLE" });

      const auth = await expectUnavailable(
        await within("the key check", get(g.app, "/domain/shop.example.com", unseen)),
      );
      expect(auth).toMatchObject({ code: "DATABASE_UNAVAILABLE", request_id: expect.any(String) });

      const ready = await expectUnavailable(await within("/readyz", g.app.fetch("http://localhost/readyz")));
      expect(ready).toMatchObject({ status: "not ready" });
    } finally {
      await g.pg?.restore();
    }
    await expectRecovered(key);
  });

  it("while PostgreSQL is cut, the key check answers 503 JSON with a request id that the log has", async () => {
    const key = await newKey(g);
    const warm = await get(g.uncached, "/domain/shop.example.com?fields=name", key);
    expect(warm.status).toBe(200);
    await warm.text();
    const unseen = await newKey(g);

    await g.pg?.cut();
    try {
      const rest = await expectUnavailable(
        await within("the key check of REST", get(g.app, "/domain/shop.example.com", unseen)),
      );
      expect(rest).toMatchObject({ code: "DATABASE_UNAVAILABLE", error: expect.stringMatching(/database/i) });
      expectLoggedOnce(rest.request_id);

      const graphql = await expectUnavailable(
        await within("the key check of GraphQL", gql(g.app, unseen, "{ snapshot { version } }")),
      );
      expect(graphql).toMatchObject({ code: "DATABASE_UNAVAILABLE" });
      expectLoggedOnce(graphql.request_id);

      // A verified key passes, and then the registry read fails the same way.
      const registry = await expectUnavailable(
        await within(
          "REST reading the registry",
          get(g.uncached, "/domain/shop.example.com?fields=name", key),
        ),
      );
      expect(registry).toMatchObject({ code: "DATABASE_UNAVAILABLE" });
      expectLoggedOnce(registry.request_id);
      const viaGraphql = await expectUnavailable(
        await within("GraphQL reading the registry", gql(g.uncached, key, "{ snapshot { version } }")),
      );
      const [error] = viaGraphql.errors as { extensions: Record<string, unknown> }[];
      expect(error.extensions).toMatchObject({ code: "DATABASE_UNAVAILABLE" });
      expectLoggedOnce(error.extensions.requestId);
      const ready = await expectUnavailable(
        await within("/readyz", g.uncached.fetch("http://localhost/readyz")),
      );
      expect(ready).toMatchObject({ status: "not ready" });
    } finally {
      await g.pg?.restore();
    }
    await expectRecovered(key);
  });
});

describe("isDatabaseUnavailable", () => {
  const socket = (code: string) => Object.assign(new Error(code), { code, syscall: "connect", errno: -1 });
  it("knows the drivers' ways of saying that the database did not answer", () => {
    for (const e of [
      socket("ECONNREFUSED"),
      socket("ECONNRESET"),
      new Error("Query read timeout"),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
      Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" }),
      Object.assign(new Error("the database system is starting up"), { code: "57P03" }),
      new Error("wrapped", { cause: new Error("Connection terminated due to connection timeout") }),
    ]) {
      expect(isDatabaseUnavailable(e), String(e)).toBe(true);
    }
  });

  it("leaves a query's own errors and our bugs to be what they are", () => {
    for (const e of [
      new TypeError("cannot read properties of undefined"),
      Object.assign(new Error('syntax error at or near "SELEC"'), { code: "42601" }),
      Object.assign(new Error("Unique constraint failed"), { code: "P2002" }),
      Object.assign(new Error("SQLITE_ERROR"), { code: "SQLITE_ERROR" }),
      null,
      "Connection terminated",
    ]) {
      expect(isDatabaseUnavailable(e), String(e)).toBe(false);
    }
  });

  it("tells a wait for a pooled connection (BUSY) apart from the database not answering", () => {
    const waited = new Error("timeout exceeded when trying to connect");
    for (const e of [waited, new Error("wrapped", { cause: waited })]) {
      expect(isPoolBusy(e), String(e)).toBe(true);
      const masked = maskFault(e, { warn() {}, error() {} }, "id-1");
      expect(masked.extensions).toMatchObject({ code: "BUSY", retryAfter: expect.any(Number) });
    }
    for (const e of [
      new Error("Connection terminated due to connection timeout"),
      new Error("Query read timeout"),
      socket("ECONNREFUSED"),
      Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" }),
    ]) {
      expect(isPoolBusy(e), String(e)).toBe(false);
      expect(maskFault(e, { warn() {}, error() {} }, "id-2").extensions.code).toBe("DATABASE_UNAVAILABLE");
    }
  });
});
