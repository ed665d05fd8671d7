import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSnapshotStore } from "../../src/db/open-store.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { testLoadSteps } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

// A load killed while it computes its change events (src/db/change-sql.ts) leaves the served
// snapshot and the feed as they were, and the next load publishes the events it would have.
// On PostgreSQL the load is killed once its connection is running an event statement. SQLite
// offers no view of another process's statement (the copy is locked while written), so its load
// is killed at two points before its publish: the events, like everything else a load writes
// before then, are in its own copy, which the next load drops.

/** The valid fixture plus `n` plain Domains, from `from` on, so that a load takes a few seconds. */
function bigFixture(n: number, from = 0) {
  const f = validFixture();
  for (let i = from; i < from + n; i++) {
    f.domains.push({
      name: `store${i}.example.com`,
      tld1: "example.com",
      state: i % 7 === 0 ? "Inactive" : "Active",
      cluster_domains: [`store${i}.example.com`],
      cluster_best_ranked: `store${i}.example.com`,
      platform: "woocommerce",
      created_at: "2020-01-01",
      title: `Store number ${i}`,
      rank: 100 + i,
      rank_percentile: 50,
      platform_rank: 2 + i,
      platform_rank_percentile: 50,
    });
  }
  return f;
}

describe.each(databaseKinds())("a load killed while computing its changes on %s", (kind) => {
  let db: TestDatabase;
  let store: SnapshotStore;
  const scratch = mkdtempSync(join(tmpdir(), "storegraph-kill-changes-"));

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    store = await openSnapshotStore(db.config);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
    rmSync(scratch, { recursive: true, force: true });
  });

  const feed = async () =>
    JSON.stringify([
      await store.metaQuery("SELECT id, version, kind, domain FROM {meta}.change_event ORDER BY id"),
      await store.metaQuery("SELECT last_id, pruned_through FROM {meta}.change_feed"),
    ]);

  /** Starts loading `dir` in another process; kills it when `when` says so. */
  async function killedLoad(dir: string, when: () => Promise<boolean>): Promise<void> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: db.config.dataDir, LOG_LEVEL: "silent" };
    if (db.config.database.kind === "postgresql") env.DATABASE_URL = db.config.database.url;
    else delete env.DATABASE_URL;
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/load.ts", dir], {
      env,
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    const deadline = Date.now() + 60_000;
    while (!(await when())) {
      if (Date.now() > deadline) throw new Error("the moment to kill never came");
      if (child.exitCode !== null) throw new Error("the load ended before it could be killed");
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill("SIGKILL");
    await exited;
  }

  it("leaves the served snapshot and the feed as they were", async () => {
    await loadSnapshot(store, writeSnapshotDir(join(scratch, "a"), bigFixture(40_000)), {
      ...testLoadSteps(db.config, store),
      keep: 1,
    });
    await loadSnapshot(store, writeSnapshotDir(join(scratch, "b"), bigFixture(40_000, 500)), {
      ...testLoadSteps(db.config, store),
      keep: 1,
    });
    const served = (await store.current())?.version;
    const before = await feed();
    expect(JSON.parse(before)[0].length).toBeGreaterThan(900);
    const next = writeSnapshotDir(join(scratch, "c"), bigFixture(40_000, 1000));

    const points: (() => Promise<boolean>)[] = [];
    if (db.config.database.kind === "postgresql") {
      const watcher = new pg.Client({ connectionString: db.config.database.url });
      await watcher.connect();
      try {
        await killedLoad(next, async () => {
          const { rows } = await watcher.query(
            "SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND (query LIKE '%change_pair%' OR query LIKE '%change_staged%' OR query LIKE '%gone_domain%') AND pid <> pg_backend_pid()",
          );
          return rows.length > 0;
        });
      } finally {
        await watcher.end();
      }
    } else {
      // At two points of the load (about 3 s here), each killed load's copy the newest row.
      let killed = served ?? 0;
      for (const ms of [500, 1200])
        points.push(async () => {
          const loading = (await store.list()).find((r) => r.status === "loading" && r.version > killed);
          if (!loading || Date.now() - loading.startedAt.getTime() < ms) return false;
          killed = loading.version;
          return true;
        });
      for (const point of points) await killedLoad(next, point);
    }
    expect((await store.current())?.version).toBe(served);
    expect(await feed()).toBe(before);

    // The next load cleans up and publishes what the killed one would have.
    const r = await loadSnapshot(store, next, { ...testLoadSteps(db.config, store), keep: 1 });
    const events = (await store.metaQuery("SELECT kind FROM {meta}.change_event WHERE version = ?", [
      r.version,
    ])) as { kind: string }[];
    const count = (k: string) => events.filter((e) => e.kind === k).length;
    expect([count("domain_added"), count("domain_removed")]).toEqual([500, 500]);
  }, 300_000);
});
