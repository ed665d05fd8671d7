import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bulkFloor } from "../../src/bench/load-floor.ts";
import { openSnapshotStore } from "../../src/db/open-store.ts";
import { openSnapshotReader } from "../../src/db/reader.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { TABLES } from "../../src/db/tables.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { tempDir, testLoadSteps } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

const tmp = tempDir("storegraph-floor-");
afterAll(() => tmp.remove());

describe.each(databaseKinds())("the load's floor on %s (the database's own bulk load)", (kind) => {
  let db: TestDatabase;
  let store: SnapshotStore;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
    store = await openSnapshotStore(db.config);
    await loadSnapshot(store, writeSnapshotDir(join(tmp.dir, kind), validFixture()), {
      keep: 1,
      ...testLoadSteps(db.config, store),
    });
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("writes every row of every table the ingest wrote, times it, and leaves nothing behind", async () => {
    const served = await store.current();
    if (!served) throw new Error("nothing served");
    const sql = openSnapshotReader(db.config, served);
    let rows = 0;
    try {
      for (const t of Object.values(TABLES)) {
        const [[n]] = await sql.all(`SELECT count(*) FROM ${sql.table(t.name)}`, []);
        rows += Number(n);
      }
    } finally {
      await sql.close();
    }
    const floor = await bulkFloor(db.config, served);
    expect(rows).toBeGreaterThan(0);
    expect(floor.rows).toBe(rows);
    expect(floor.seconds).toBeGreaterThan(0);
    expect(floor.bytes).toBeGreaterThan(0);
    if (db.config.database.kind === "postgresql") {
      const client = new pg.Client({ connectionString: db.config.database.url });
      await client.connect();
      try {
        const { rows: left } = await client.query(
          "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'storegraph_floor_%'",
        );
        expect(left).toEqual([]);
      } finally {
        await client.end();
      }
    }
    // The served snapshot is as it was: still served, of the same rows.
    expect((await store.current())?.version).toBe(served.version);
  });
});
