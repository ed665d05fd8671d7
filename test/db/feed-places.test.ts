import { mkdirSync } from "node:fs";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  domainEvents,
  type FeedReader,
  feedEnd,
  type MetaStore,
  readFeed,
} from "../../src/db/change-feed.ts";
import { parseFeedCursor } from "../../src/db/feed-cursor.ts";
import { applyPgMigrations, applySqliteMigrations } from "../../src/db/migrate.ts";
import { META_SCHEMA, PgSnapshotStore } from "../../src/db/pg-store.ts";
import { publishSegmentsPg, publishSegmentsSqlite } from "../../src/db/segment-publish.ts";
import { SqliteSnapshotStore, stateDbPath } from "../../src/db/sqlite-store.ts";
import type { SegmentOutcome, SnapshotStore } from "../../src/db/store.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";

/**
 * A feed kept before cursors were places (meta migration 0012, docs/decisions.md, "Change feed",
 * "Cursors"): its ids came from one counter of every account's events. Upgraded, its events keep
 * the cursors they had, a cursor a client holds (a public event's id, or one of its own) goes on
 * meaning what it meant, and the events after it are numbered as places: an account's own at the
 * place of the public event before them, counted 1, 2, … per account, which tells no account of
 * another's.
 */

const BEFORE_PLACES = "0011_segment_spread";

/** The feed as it was: public 1, 2, 3; A's 4; public 5; B's 6; A's 7 (every account's one counter). */
const LEGACY: { id: number; account: string | null; domain: string }[] = [
  { id: 1, account: null, domain: "a.com" },
  { id: 2, account: null, domain: "b.com" },
  { id: 3, account: null, domain: "c.com" },
  { id: 4, account: "A", domain: "a.com" },
  { id: 5, account: null, domain: "d.com" },
  { id: 6, account: "B", domain: "b.com" },
  { id: 7, account: "A", domain: "a.com" },
];

function legacyInserts(prefix: string, marker: (i: number) => string): { sql: string; params: unknown[] }[] {
  const events = LEGACY.map((e) => ({
    sql: `INSERT INTO ${prefix}change_event (id, version, loaded_at, kind, domain, account, segment, after)
          VALUES (${[1, 2, 3, 4, 5, 6, 7, 8].map(marker).join(", ")})`,
    params: [
      e.id,
      1,
      1_700_000_000_000,
      e.account ? "segment_entered" : "domain_added",
      e.domain,
      e.account,
      e.account ? "mine" : null,
      e.account ? JSON.stringify({ segment: "mine", changes: [] }) : null,
    ],
  }));
  return [
    ...events,
    { sql: `INSERT INTO ${prefix}change_feed (id, last_id, pruned_through) VALUES (1, 7, 0)`, params: [] },
  ];
}

/** A load's own events for A (two) and B (one), published after the upgrade. */
const OUTCOME: SegmentOutcome = {
  events: [
    { kind: "segment_entered", domain: "a.com", account: "A", segment: "mine", after: '{"segment":"mine"}' },
    { kind: "segment_entered", domain: "b.com", account: "B", segment: "mine", after: '{"segment":"mine"}' },
    { kind: "segment_left", domain: "a.com", account: "A", segment: "mine", after: '{"segment":"mine"}' },
  ] as SegmentOutcome["events"],
  loads: [],
};

describe.each(databaseKinds())("a feed kept before cursors were places, upgraded, on %s", (kind) => {
  let db: TestDatabase;
  let store: SnapshotStore;
  /** Publishes OUTCOME as version 2 with the feed's numbering as it stands. */
  let publish: () => Promise<void>;
  /** SQLite: the state database as a writer of its own (publish's). */
  let raw: Database.Database | null = null;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    if (kind === "sqlite") {
      const dataDir = db.config.database.dataDir;
      mkdirSync(dataDir, { recursive: true });
      const old = new Database(stateDbPath(dataDir));
      applySqliteMigrations(old, "meta", "all", BEFORE_PLACES);
      for (const s of legacyInserts("", () => "?")) old.prepare(s.sql).run(...s.params);
      old.close();
      store = SqliteSnapshotStore.open(dataDir);
      const writer = new Database(stateDbPath(dataDir));
      raw = writer;
      publish = async () => {
        writer.transaction(() =>
          publishSegmentsSqlite(writer, OUTCOME, 2, 1_700_000_100_000, { last: 7, lastPos: 7 }),
        )();
      };
    } else {
      const url = (db.config.database as { url: string }).url;
      const old = new pg.Client({ connectionString: url });
      await old.connect();
      try {
        await applyPgMigrations(old, META_SCHEMA, "meta", "all", BEFORE_PLACES);
        for (const s of legacyInserts(`"${META_SCHEMA}".`, (i) => `$${i}`)) await old.query(s.sql, s.params);
      } finally {
        await old.end();
      }
      store = await PgSnapshotStore.open(url);
      publish = async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await publishSegmentsPg(client, `"${META_SCHEMA}"`, OUTCOME, 2, 1_700_000_100_000, {
            last: 7,
            lastPos: 7,
          });
        } finally {
          await client.end();
        }
      };
    }
  }, 60_000);
  afterAll(async () => {
    raw?.close();
    await store?.close();
    await db?.drop();
  });

  const meta = () => store as MetaStore;
  const reader = (account: string | null): FeedReader => ({ account });
  const readAfter = async (account: string | null, cursor: string, served = 2) =>
    (
      await readFeed(meta(), { after: parseFeedCursor(cursor) ?? { pos: -1, seq: 0 }, served, account }, 100)
    ).rows.map((r) => r.id);
  const end = async (account: string | null, served = 2) => {
    const e = (await feedEnd(meta(), reader(account), served)).cursor;
    return e.seq ? `${e.pos}.${e.seq}` : String(e.pos);
  };

  it("keeps the feed's counter as where public places go on, and its last id as the cursors read as ids", async () => {
    const [row] = await store.metaQuery(
      "SELECT last_pos, legacy_through FROM {meta}.change_feed WHERE id = 1",
    );
    expect({ lastPos: Number(row?.last_pos), legacyThrough: Number(row?.legacy_through) }).toEqual({
      lastPos: 7,
      legacyThrough: 7,
    });
  });

  it("answers the kept events with the cursors they had, and a cursor held before goes on meaning what it meant", async () => {
    expect(await readAfter("A", "0", 1)).toEqual(["1", "2", "3", "4", "5", "7"]);
    expect(await readAfter("B", "0", 1)).toEqual(["1", "2", "3", "5", "6"]);
    // A's own event 4, and a public one, as cursors: the events after them in the one counter.
    expect(await readAfter("A", "4", 1)).toEqual(["5", "7"]);
    expect(await readAfter("B", "5", 1)).toEqual(["6"]);
    expect(await readAfter(null, "3", 1)).toEqual(["5"]);
    expect(await end("A", 1)).toBe("7");
    expect(await end("B", 1)).toBe("6");
    expect(await end(null, 1)).toBe("5");
  });

  it("numbers a load's own events at the last public place, per account, after the kept ones", async () => {
    await publish();
    expect(await readAfter("A", "7")).toEqual(["7.1", "7.2"]);
    expect(await readAfter("A", "7.1")).toEqual(["7.2"]);
    expect(await readAfter("A", "7.2")).toEqual([]);
    // B's old cursor (its own 6) reads on to its new event; its place counts none of A's.
    expect(await readAfter("B", "6")).toEqual(["7.1"]);
    expect(await readAfter("B", "7.1")).toEqual([]);
    expect(await readAfter(null, "5")).toEqual([]);
    expect(await end("A")).toBe("7.2");
    expect(await end("B")).toBe("7.1");
    expect(await end(null)).toBe("5");
  });

  it("reads a Domain's events newest first before a place, as history pages do", async () => {
    const older = async (account: string, before?: string) =>
      (
        await domainEvents(
          meta(),
          reader(account),
          "a.com",
          2,
          10,
          before === undefined ? undefined : (parseFeedCursor(before) ?? undefined),
        )
      ).map((r) => r.id);
    expect(await older("A")).toEqual(["7.2", "7.1", "7", "4", "1"]);
    expect(await older("A", "7.2")).toEqual(["7.1", "7", "4", "1"]);
    expect(await older("A", "7.1")).toEqual(["7", "4", "1"]);
    expect(await older("A", "7")).toEqual(["4", "1"]);
    expect(await older("B")).toEqual(["1"]);
  });
});
