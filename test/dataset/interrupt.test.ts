import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSnapshotStore } from "../../src/db/open-store.ts";
import { snapshotFilePath } from "../../src/db/sqlite-store.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { tempDir, testLoadSteps } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/** The valid fixture plus `n` plain woocommerce Domains, so that a load takes a few seconds. */
function bigFixture(n: number) {
  const f = validFixture();
  for (let i = 0; i < n; i++) {
    f.domains.push({
      name: `store${i}.example.com`,
      tld1: "example.com",
      state: "Active",
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

describe.each(databaseKinds())("a load process killed midway on %s", (kind) => {
  let db: TestDatabase;
  let store: SnapshotStore;
  const tmp = tempDir("storegraph-kill-");
  const scratch = tmp.dir;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    store = await openSnapshotStore(db.config);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
    tmp.remove();
  });

  it("leaves the served snapshot intact, and the next load cleans up after it", async () => {
    await loadSnapshot(store, writeSnapshotDir(join(scratch, "small"), validFixture()), {
      ...testLoadSteps(db.config, store),
      keep: 1,
    });
    const big = writeSnapshotDir(join(scratch, "big"), bigFixture(60_000));

    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: db.config.dataDir, LOG_LEVEL: "silent" };
    if (db.config.database.kind === "postgresql") env.DATABASE_URL = db.config.database.url;
    else delete env.DATABASE_URL;
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/load.ts", big], {
      env,
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));

    // Kill it once it has registered its snapshot and is writing the copy.
    const deadline = Date.now() + 30_000;
    while (!(await store.list()).some((r) => r.status === "loading")) {
      if (Date.now() > deadline) throw new Error("the load never started");
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGKILL");
    await exited;

    expect((await store.current())?.version).toBe(1);
    const killed = (await store.list()).find((r) => r.version === 2);
    expect(killed?.status).toBe("loading"); // nobody could mark it: the process died
    // SQLite: a render stopped with it leaves its side file (src/db/rendered.ts), which goes with
    // the snapshot's own files.
    const file = kind === "sqlite" && killed ? snapshotFilePath(db.config.dataDir, killed.location) : null;
    if (file) writeFileSync(`${file}.rendering`, "the pieces of a render that stopped");

    const next = await loadSnapshot(store, writeSnapshotDir(join(scratch, "again"), validFixture()), {
      ...testLoadSteps(db.config, store),
      keep: 1,
    });
    expect(next.version).toBe(3);
    const rows = await store.list();
    expect(rows.find((r) => r.version === 2)).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/interrupted/),
    });
    expect(rows.filter((r) => r.status === "ready").map((r) => r.version)).toEqual([1, 3]);
    if (file) {
      expect(existsSync(file)).toBe(false);
      expect(existsSync(`${file}.rendering`)).toBe(false);
    }
  });
});
