import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSnapshot } from "../../src/dataset/load/load.ts";
import { FeedWatch } from "../../src/db/feed-watch.ts";
import { openSnapshotStore } from "../../src/db/open-store.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { tempDir } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * How a gateway learns of a load another process published (src/db/feed-watch.ts): on PostgreSQL
 * it is told (LISTEN/NOTIFY in the publish's transaction), so a waiter wakes long before the
 * watcher would have asked the registry; without a listener it asks every interval.
 */
describe.each(databaseKinds().filter((k) => k === "postgresql"))("FeedWatch on %s", (kind) => {
  let db: TestDatabase;
  let snapshots: Snapshots;
  let loader: SnapshotStore;
  const tmp = tempDir("storegraph-feed-watch-");

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    loader = await openSnapshotStore(db.config);
    await loadSnapshot(loader, writeSnapshotDir(join(tmp.dir, "w0"), validFixture()), { keep: 1 });
    snapshots = await Snapshots.open(db.config, { refreshMs: 60_000, graceMs: 0 });
  }, 60_000);
  afterAll(async () => {
    await snapshots?.close();
    await loader?.close();
    await db?.drop();
    tmp.remove();
  });

  it("wakes a waiter when another process publishes, without polling (NOTIFY)", async () => {
    // Asking the registry only every minute: only the notification can wake it in time.
    const watch = new FeedWatch(snapshots, 60_000, snapshots.store.listen?.bind(snapshots.store), 60_000);
    expect(snapshots.store.listen).toBeDefined();
    try {
      const version = (await snapshots.current())?.snapshot.version ?? 0;
      const abort = new AbortController();
      const woken = watch.next(version, 30_000, abort.signal);
      // The listener connects before the load publishes.
      await new Promise((r) => setTimeout(r, 500));
      const started = Date.now();
      const next = validFixture();
      next.domains = next.domains.filter((d) => d.name !== "old-shop.example.com");
      await loadSnapshot(loader, writeSnapshotDir(join(tmp.dir, "w1"), next), { keep: 1 });
      expect(await woken).toBe("moved");
      expect(Date.now() - started).toBeLessThan(20_000);
      expect((await snapshots.current())?.snapshot.version).toBe(version + 1);
    } finally {
      watch.close();
    }
  });
});
