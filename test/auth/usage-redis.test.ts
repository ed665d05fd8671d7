import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { startApi, type TestApi, tempDir, withKey } from "../support/api.ts";
import { type DatabaseKind, databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * GET /json/api/v1/usage behind several gateways sharing Redis (REDIS_URL): each reports the
 * budgets every gateway drew on, and the exports and cursor=all jobs every gateway started. Runs
 * when TEST_REDIS_URL names a Redis server; every test makes its own keys.
 */
const REDIS_URL = process.env.TEST_REDIS_URL;

interface Usage {
  exports: number;
  cursor_all_jobs: number;
  endpoints: { endpoint: string; remaining: number; reset: number }[];
}

describe.skipIf(!REDIS_URL).each(databaseKinds())("usage across gateways on %s", (kind: DatabaseKind) => {
  let api: TestApi;
  let other: App;
  const tmp = tempDir("storegraph-usage-redis-");
  beforeAll(async () => {
    const rateLimits = { enabled: true, redisUrl: REDIS_URL ?? null };
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()), { rateLimits });
    other = createApp({ ...api.db.config, rateLimits }, api.snapshots);
  });
  afterAll(async () => {
    await other?.dispose();
    await api?.close();
    tmp.remove();
  });

  it("each gateway reports what the key did on every gateway", async () => {
    const key = await api.createKey("pro", "two gateways");
    const [a, b] = [withKey(api.app, key), withKey(other, key)];
    const exported = await a.fetch("http://localhost/json/api/v1/all/domain/export?fields=name");
    expect(exported.status).toBe(200);
    await exported.text();
    const job = await b.fetch("http://localhost/json/api/v1/all/domain?fields=name&cursor=all");
    expect(job.status).toBe(202);
    await job.text();
    for (const app of [a, b]) {
      const { usage } = (await (await app.fetch("http://localhost/json/api/v1/usage")).json()) as {
        usage: Usage;
      };
      expect(usage).toMatchObject({ exports: 1, cursor_all_jobs: 1 });
      for (const endpoint of ["exportDomains", "listDomainsAll"]) {
        const budget = usage.endpoints.find((e) => e.endpoint === endpoint);
        expect(budget?.remaining, endpoint).toBe(0);
        expect(budget?.reset, endpoint).toBeGreaterThan(50);
      }
    }
  });
});
