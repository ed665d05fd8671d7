import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { ApiKeys, type Plan } from "../../src/auth/keys.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import {
  createTestDatabase,
  type DatabaseKind,
  databaseKinds,
  type TestDatabase,
} from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { freePort, type Server, startServer } from "../support/server.ts";

/**
 * With REDIS_URL, gateway processes share one budget per key and endpoint. Runs when
 * TEST_REDIS_URL names a Redis server (CI: the one on 127.0.0.1:6379). Budgets are keyed by API key
 * id, and every test makes its own keys, so runs never see each other's counts.
 */
const REDIS_URL = process.env.TEST_REDIS_URL;

const get = (base: string, path: string, key: string) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });

describe.skipIf(!REDIS_URL).each(databaseKinds())("rate limits in Redis on %s", (kind: DatabaseKind) => {
  describe("two apps of one process", () => {
    let api: TestApi;
    const tmp = tempDir("storegraph-redis-");
    beforeAll(async () => {
      api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()), {
        rateLimits: { enabled: true, redisUrl: REDIS_URL ?? null },
      });
    });
    afterAll(async () => {
      await api?.close();
      tmp.remove();
    });

    it("share one budget: what one answered, the other counts", async () => {
      const other = createApp(
        { ...api.db.config, rateLimits: { enabled: true, redisUrl: REDIS_URL ?? null } },
        api.snapshots,
      );
      try {
        for (let attempt = 0; ; attempt++) {
          const key = await api.createKey("pro" as Plan, "two apps");
          const started = Date.now();
          const statuses: number[] = [];
          const remaining: (string | null)[] = [];
          for (let i = 0; i < 6; i++) {
            const app = i % 2 === 0 ? api.app : other;
            const res = await app.fetch(
              "http://localhost/json/api/v1/all/domain/shop.example.com?fields=name",
              {
                headers: { authorization: `Bearer ${key}` },
              },
            );
            statuses.push(res.status);
            remaining.push(res.headers.get("x-ratelimit-remaining"));
            await res.body?.cancel();
          }
          if (Date.now() - started > 800 && attempt < 3) continue;
          expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
          expect(remaining).toEqual(["4", "3", "2", "1", "0", "0"]);
          break;
        }
      } finally {
        await other.dispose();
      }
    });
  });

  describe("two server processes", () => {
    let db: TestDatabase;
    let keys: ApiKeys;
    let snapshots: Snapshots;
    const servers: Server[] = [];
    const bases: string[] = [];

    beforeAll(async () => {
      db = await createTestDatabase(kind);
      const env = { REDIS_URL: REDIS_URL ?? "" };
      // The first start makes the demo dataset; the second then finds it.
      for (let i = 0; i < 2; i++) {
        const server = startServer(db, await freePort(), env);
        servers.push(server);
        const out = await server.waitFor(/More keys:|Every request needs Authorization/, 150_000);
        bases.push(/GraphQL\s+(\S+)\/graphql/.exec(out)?.[1] ?? "");
      }
      snapshots = await Snapshots.open(db.config, { refreshMs: 0, graceMs: 0 });
      keys = new ApiKeys(snapshots.store);
    }, 300_000);
    afterAll(async () => {
      for (const s of servers) await s.stop();
      await snapshots?.close();
      await db?.drop();
    });

    it("enforce one budget per key: requests alternating between them stop at the plan's limit", async () => {
      const [a, b] = bases;
      const path = "/json/api/v1/all/domain?fields=name&page_size=1";
      for (let attempt = 0; ; attempt++) {
        const { key } = await keys.create("two processes", "enterprise");
        const started = Date.now();
        const replies: { status: number; remaining: string | null; retry: string | null }[] = [];
        // Enterprise: 6 List Domains a second, 3 through each process, then a 7th.
        for (let i = 0; i < 7; i++) {
          const res = await get(i % 2 === 0 ? a : b, path, key);
          replies.push({
            status: res.status,
            remaining: res.headers.get("x-ratelimit-remaining"),
            retry: res.headers.get("retry-after"),
          });
          await res.body?.cancel();
        }
        if (Date.now() - started > 800 && attempt < 3) continue;
        expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 429]);
        expect(replies.map((r) => r.remaining)).toEqual(["5", "4", "3", "2", "1", "0", "0"]);
        expect(replies[6].retry).toBe("1");
        break;
      }
    });

    it("share the once-a-minute export budget, and cursor=all's, which are two budgets", async () => {
      const [a, b] = bases;
      const { key } = await keys.create("export twice", "pro");
      const first = await get(a, "/json/api/v1/all/domain/export?fields=name", key);
      expect(first.status).toBe(200);
      await first.text();
      // cursor=all draws on a budget of its own: an export does not refuse it, on either process.
      const job = await get(b, "/json/api/v1/all/domain?fields=name&cursor=all", key);
      expect(job.status).toBe(202);
      await job.text();
      for (const [base, path, endpoint] of [
        [b, "/json/api/v1/all/domain/export?fields=name", "exportDomains"],
        [a, "/json/api/v1/all/domain?fields=rank&cursor=all", "listDomainsAll"],
      ]) {
        const second = await get(base, path, key);
        expect(second.status, path).toBe(429);
        expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(50);
        expect(((await second.json()) as { endpoint: string }).endpoint).toBe(endpoint);
      }
    });
  });
});
