import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedWatch } from "../../src/db/feed-watch.ts";
import { openSnapshotStore } from "../../src/db/open-store.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { tempDir, testLoadSteps } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * How a gateway learns of a load another process published (src/db/feed-watch.ts): it is told
 * (PostgreSQL: LISTEN/NOTIFY in the publish's transaction; SQLite: the `published` file each
 * publish writes after its commit, watched), so a waiter wakes long before the watcher would have
 * asked the registry; without a listener it asks every interval.
 */
describe.each(databaseKinds())("FeedWatch on %s", (kind) => {
  let db: TestDatabase;
  let snapshots: Snapshots;
  let loader: SnapshotStore;
  const tmp = tempDir("storegraph-feed-watch-");

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    loader = await openSnapshotStore(db.config);
    await loadSnapshot(loader, writeSnapshotDir(join(tmp.dir, "w0"), validFixture()), {
      ...testLoadSteps(db.config, loader),
      keep: 1,
    });
    snapshots = await Snapshots.open(db.config, { refreshMs: 60_000, graceMs: 0 });
  }, 60_000);
  afterAll(async () => {
    await snapshots?.close();
    await loader?.close();
    await db?.drop();
    tmp.remove();
  });

  it("wakes a waiter when another process publishes, without polling", async () => {
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
      await loadSnapshot(loader, writeSnapshotDir(join(tmp.dir, "w1"), next), {
        ...testLoadSteps(db.config, loader),
        keep: 1,
      });
      expect(await woken).toBe("moved");
      expect(Date.now() - started).toBeLessThan(20_000);
      expect((await snapshots.current())?.snapshot.version).toBe(version + 1);
    } finally {
      watch.close();
    }
  });
});

describe("FeedWatch told of a publish while it asks the registry", () => {
  it("asks again, so an answer from before the publish does not leave the waiter asleep", async () => {
    let served = 1;
    let release: () => void = () => {};
    let asked = 0;
    const snapshots = {
      recheck() {},
      // The first answer is held until the test lets it go, and says the version of when it was asked.
      async current() {
        const version = served;
        if (asked++ === 0) await new Promise<void>((r) => (release = r));
        return { snapshot: { version } } as Awaited<ReturnType<Snapshots["current"]>>;
      },
    };
    let told: () => void = () => {};
    const listen = (onPublish: () => void) => {
      told = onPublish;
      return { listening: () => true, close: async () => {} };
    };
    // Asking only when told: the interval and the slow ask are a minute.
    const watch = new FeedWatch(snapshots, 60_000, listen, 60_000);
    try {
      const woken = watch.next(1, 5_000, new AbortController().signal);
      told(); // a publish of something else: the registry is asked, its answer held
      served = 2;
      told(); // version 2 published while that answer is on its way
      release();
      expect(await woken).toBe("moved");
      expect(asked).toBe(2);
    } finally {
      watch.close();
    }
  });
});
