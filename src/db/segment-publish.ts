import type SqliteDatabase from "better-sqlite3";
import type pg from "pg";
import { EVENT_DOC } from "./change-feed.ts";
import type { SegmentOutcome } from "./store.ts";

/**
 * A load's segment outcome (src/segments.ts) published in the transaction that serves the load
 * (the stores' publish): its events numbered after the load's own, in the order given, and each
 * segment's row of the load (segment_load). Returns the feed's last id after them.
 *
 * Each event's place is its account's alone (docs/decisions.md, "Change feed", "Cursors"): the
 * public place of the load's last public event, and 1, 2, … for the account's events there (going
 * on from those a load without public events left at the same place). The ids go on from the
 * feed's, never shown.
 */

/** Where the feed's numbering stands: its last internal id, and its last public place. */
export interface FeedNumbering {
  last: number;
  lastPos: number;
}

const EVENT_COLUMNS = "id, pos, seq, version, loaded_at, kind, domain, account, segment, after";

/** The statement finding each account's last `seq` at a place (kept by a load before). */
const SEQ_AT =
  "SELECT account, max(seq) AS seq FROM {meta}change_event WHERE pos = ? AND seq > 0 GROUP BY account";

/** Numbers the events' `seq`, each account's after `start` (its last at that place). */
function seqs(accounts: readonly string[], start: Map<string, number>): number[] {
  const next = new Map(start);
  return accounts.map((a) => {
    const n = (next.get(a) ?? 0) + 1;
    next.set(a, n);
    return n;
  });
}
const LOAD_COLUMNS = 'segment_id, version, loaded_at, size, entered, "left", counts, other, error';

export function publishSegmentsSqlite(
  db: SqliteDatabase.Database,
  outcome: SegmentOutcome,
  version: number,
  loadedAt: number,
  { last, lastPos }: FeedNumbering,
): number {
  const event = db.prepare(
    `INSERT INTO change_event (${EVENT_COLUMNS}, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
  );
  const start = new Map(
    (db.prepare(SEQ_AT.replace("{meta}", "")).all(lastPos) as { account: string; seq: number }[]).map((r) => [
      r.account,
      Number(r.seq),
    ]),
  );
  const seq = seqs(
    outcome.events.map((e) => e.account),
    start,
  );
  let id = last;
  outcome.events.forEach((e, i) => {
    event.run(++id, lastPos, seq[i], version, loadedAt, e.kind, e.domain, e.account, e.segment, e.after);
  });
  if (id > last)
    db.prepare(`UPDATE change_event SET doc = ${EVENT_DOC.sqlite} WHERE id > ? AND id <= ?`).run(last, id);
  const load = db.prepare(
    `INSERT INTO segment_load (${LOAD_COLUMNS}) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM segment WHERE id = ?)`,
  );
  for (const l of outcome.loads) {
    load.run(
      l.segmentId,
      version,
      loadedAt,
      l.size,
      l.entered,
      l.left,
      l.counts,
      l.other,
      l.error,
      l.segmentId,
    );
  }
  return id;
}

/** Rows a statement takes at a time (as arrays: one parameter per column). */
const BATCH = 10_000;

export async function publishSegmentsPg(
  client: pg.PoolClient | pg.Client,
  meta: string,
  outcome: SegmentOutcome,
  version: number,
  loadedAt: number,
  { last, lastPos }: FeedNumbering,
): Promise<number> {
  const start = new Map(
    (
      await client.query<{ account: string; seq: number }>(
        SEQ_AT.replace("{meta}", `${meta}.`).replace("?", "$1"),
        [lastPos],
      )
    ).rows.map((r) => [r.account, Number(r.seq)]),
  );
  const seq = seqs(
    outcome.events.map((e) => e.account),
    start,
  );
  let id = last;
  for (let i = 0; i < outcome.events.length; i += BATCH) {
    const batch = outcome.events.slice(i, i + BATCH);
    await client.query(
      `INSERT INTO ${meta}.change_event (${EVENT_COLUMNS}, doc)
       SELECT ${EVENT_COLUMNS}, ${EVENT_DOC.postgresql} FROM (
         SELECT $1::bigint + n AS id, $9::bigint AS pos, e.seq, $2::integer AS version, $3::bigint AS loaded_at, kind, domain,
           NULL::text AS app, NULL::text AS app_id, NULL::text AS app_name, NULL::text AS technology,
           NULL::text AS before, account, segment, after
         FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $10::integer[]) WITH ORDINALITY
           AS e(kind, domain, account, segment, after, seq, n)) e`,
      [
        id,
        version,
        loadedAt,
        batch.map((e) => e.kind),
        batch.map((e) => e.domain),
        batch.map((e) => e.account),
        batch.map((e) => e.segment),
        batch.map((e) => e.after),
        lastPos,
        seq.slice(i, i + BATCH),
      ],
    );
    id += batch.length;
  }
  if (outcome.loads.length) {
    const l = outcome.loads;
    await client.query(
      `INSERT INTO ${meta}.segment_load (${LOAD_COLUMNS})
       SELECT u.segment_id, $1::integer, $2::bigint, u.size, u.entered, u."left", u.counts, u.other, u.error
       FROM unnest($3::text[], $4::integer[], $5::integer[], $6::integer[], $7::text[], $8::text[], $9::text[])
         AS u(segment_id, size, entered, "left", counts, other, error)
       WHERE EXISTS (SELECT 1 FROM ${meta}.segment s WHERE s.id = u.segment_id)`,
      [
        version,
        loadedAt,
        l.map((x) => x.segmentId),
        l.map((x) => x.size),
        l.map((x) => x.entered),
        l.map((x) => x.left),
        l.map((x) => x.counts),
        l.map((x) => x.other),
        l.map((x) => x.error),
      ],
    );
  }
  return id;
}
