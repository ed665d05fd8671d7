import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { ApiKeys } from "../../src/auth/keys.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { tempDir, testLoadSteps } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

describe.each(databaseKinds())("health endpoints on %s", (kind) => {
  let db: TestDatabase;
  let snapshots: Snapshots;
  let app: App;
  const tmp = tempDir("storegraph-health-");

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    snapshots = await Snapshots.open(db.config, { refreshMs: 0, graceMs: 0 });
    app = createApp(db.config, snapshots);
  });
  afterAll(async () => {
    await snapshots?.close();
    await db?.drop();
    tmp.remove();
  });

  it("/healthz answers while nothing is loaded", async () => {
    const res = await app.fetch("http://localhost/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("/readyz is 503 with a reason until a snapshot is loaded", async () => {
    const res = await app.fetch("http://localhost/readyz");
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(await res.json()).toMatchObject({
      status: "not ready",
      reason: expect.stringMatching(/no snapshot/),
    });
  });

  it("/readyz reports the served snapshot's version, and follows a new load", async () => {
    const dir = tmp.dir;
    await loadSnapshot(snapshots.store, writeSnapshotDir(join(dir, "a"), validFixture()), {
      ...testLoadSteps(db.config, snapshots.store),
      keep: 1,
    });
    let res = await app.fetch("http://localhost/readyz");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: "ready",
      database: kind,
      snapshot: { version: 1, domains: 4, apps: 3, reviews: 2 },
    });

    await loadSnapshot(snapshots.store, writeSnapshotDir(join(dir, "b"), validFixture()), {
      ...testLoadSteps(db.config, snapshots.store),
      keep: 1,
    });
    res = await app.fetch("http://localhost/readyz");
    expect(await res.json()).toMatchObject({ status: "ready", snapshot: { version: 2 } });

    const { key } = await new ApiKeys(snapshots.store).create("health test", "pro");
    const gql = await app.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: "{ snapshot { version domains } }" }),
    });
    expect(await gql.json()).toEqual({ data: { snapshot: { version: 2, domains: 4 } } });
  });
});
