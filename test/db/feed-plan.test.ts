import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MetaStore, readFeed } from "../../src/db/change-feed.ts";
import { openSnapshotStore } from "../../src/db/open-store.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { startApi, tempDir } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * A page of the change feed is read along the feed's own order, by its primary key from the
 * cursor's place, and stops after the page: never by the index on (account, segment, id) with
 * every event sorted after. The reader's term (`account IS NULL`, or its own events too) matches
 * nearly every event, and SQLite, which keeps no statistics of it, chose that index for it: at
 * 72,566 events (1M Domains) a page took 28 ms of the gateway's CPU where it had taken 0.45 ms,
 * and the whole feed's export 40 µs an event where it had taken 6 µs (PostgreSQL without its
 * statistics chose the same).
 */
const EVENTS = 20_000;
const scratch = tempDir("storegraph-feed-plan-");
afterAll(() => scratch.remove());

describe.each(databaseKinds())("the change feed's page plan on %s", (kind) => {
  let db: TestDatabase;
  let store: SnapshotStore;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    store = await openSnapshotStore(db.config);
    // EVENTS events of everyone's, and one of account A's after every hundredth (at its place).
    const insert =
      kind === "sqlite"
        ? `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${EVENTS})
           INSERT INTO {meta}.change_event (id, version, loaded_at, kind, domain, pos, seq, account, segment)
           SELECT i, 1, 1700000000000, 'domain_added', 'd' || i || '.com', i, 0, NULL, NULL FROM n`
        : `INSERT INTO {meta}.change_event (id, version, loaded_at, kind, domain, pos, seq, account, segment)
           SELECT i, 1, 1700000000000, 'domain_added', 'd' || i || '.com', i, 0, NULL, NULL
           FROM generate_series(1, ${EVENTS}) i`;
    await store.metaQuery(insert);
    const own =
      kind === "sqlite"
        ? `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${EVENTS / 100})
           INSERT INTO {meta}.change_event (id, version, loaded_at, kind, domain, pos, seq, account, segment)
           SELECT ${EVENTS} + i, 1, 1700000000000, 'segment_entered', 'd' || (i * 100) || '.com', i * 100, 1, 'A', 'mine' FROM n`
        : `INSERT INTO {meta}.change_event (id, version, loaded_at, kind, domain, pos, seq, account, segment)
           SELECT ${EVENTS} + i, 1, 1700000000000, 'segment_entered', 'd' || (i * 100) || '.com', i * 100, 1, 'A', 'mine'
           FROM generate_series(1, ${EVENTS / 100}) i`;
    await store.metaQuery(own);
    // Statistics as each server keeps them: PostgreSQL's publish analyzes the events a load adds
    // (below); SQLite keeps none (nothing runs its ANALYZE on the meta database).
    if (kind === "postgresql") await store.metaQuery("ANALYZE {meta}.change_event");
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  /**
   * The page statement readFeed runs for `account` from the place `pos`, and its plan; `generic`:
   * PostgreSQL's generic plan of it, as a prepared statement runs it after its fifth run when that
   * plan looks no costlier (readFeed keeps the whole feed's page prepared).
   */
  async function planOf(account: string | null, pos: number, generic = false): Promise<string> {
    const seen: { sql: string; params: unknown[] }[] = [];
    const meta: MetaStore = {
      kind: store.kind,
      metaQuery: (sql, params = [], options) => {
        seen.push({ sql, params });
        return store.metaQuery(sql, params, options);
      },
    };
    const read = await readFeed(meta, { after: { pos, seq: 0 }, served: 1, account }, 101);
    expect(read.rows.length).toBe(101);
    const page = seen.find((s) => s.sql.includes("ORDER BY id LIMIT"));
    if (!page) throw new Error("no page statement");
    if (generic) {
      let n = 0;
      const prepared = page.sql.replace(/\?/g, () => `$${++n}`);
      const literal = (v: unknown) => (typeof v === "string" ? `'${v.replaceAll("'", "''")}'` : String(v));
      return store.metaTransaction(async (query) => {
        await query("SET LOCAL plan_cache_mode = force_generic_plan");
        await query(`PREPARE feed_page AS ${prepared}`);
        try {
          const rows = await query(
            `EXPLAIN (COSTS OFF) EXECUTE feed_page(${page.params.map(literal).join(", ")})`,
          );
          return rows.map((r) => String(r["QUERY PLAN"])).join("\n");
        } finally {
          await query("DEALLOCATE feed_page");
        }
      });
    }
    const rows = await store.metaQuery(
      kind === "sqlite" ? `EXPLAIN QUERY PLAN ${page.sql}` : `EXPLAIN (COSTS OFF) ${page.sql}`,
      page.params,
    );
    return rows.map((r) => String(r.detail ?? r["QUERY PLAN"])).join("\n");
  }

  it.each([
    ["everyone's events", null],
    ["an account's events and everyone's", "A"],
  ])("reads %s by the primary key from the place, with nothing sorted", async (_what, account) => {
    for (const pos of [1, EVENTS / 2, EVENTS - 200]) {
      const plan = await planOf(account, pos);
      if (kind === "sqlite") {
        expect(plan, `${pos}`).toMatch(/SEARCH change_event USING INTEGER PRIMARY KEY \(rowid>\?\)/);
        expect(plan, `${pos}`).not.toMatch(/TEMP B-TREE/);
      } else {
        expect(plan, `${pos}`).toMatch(/Index Scan using change_event_pkey/);
        expect(plan, `${pos}`).not.toMatch(/Sort/);
      }
    }
  });

  it.runIf(kind === "postgresql").each([
    ["everyone's events", null],
    ["an account's events and everyone's", "A"],
  ])("reads %s by the primary key in the generic plan a prepared page runs, too", async (_what, account) => {
    // The generic plan knows no served version: with the term `version <= $n` it took the index on
    // version for it, read every event a gateway serves and sorted them (the bench's webhooks: a
    // page 34 ms instead of 0.27, 15 times fewer events delivered a second).
    for (const pos of [1, EVENTS / 2]) {
      const plan = await planOf(account, pos, true);
      expect(plan, `${pos}`).toMatch(/Index Scan using change_event_pkey/);
      expect(plan, `${pos}`).not.toMatch(/Sort|change_event_version_idx/);
    }
  });
});

describe.runIf(databaseKinds().includes("postgresql"))("PostgreSQL's publish", () => {
  it("analyzes the feed's events it adds, so that a page is planned with them (without, it is sorted)", async () => {
    const api = await startApi("postgresql", writeSnapshotDir(join(scratch.dir, "a"), validFixture()));
    try {
      const [row] = await api.snapshots.store.metaQuery(
        "SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE schemaname = 'storegraph' AND relname = 'change_event'",
      );
      expect(row?.analyzed).toBe(true);
    } finally {
      await api.close();
    }
  }, 60_000);
});
