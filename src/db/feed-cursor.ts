import type { SnapshotStore } from "./store.ts";

/*
 * The change feed's cursors (docs/decisions.md, "Change feed", "Cursors"): what a cursor names,
 * its text, and how the feed's statements (src/db/change-feed.ts) make it of an event's columns.
 */

type MetaStore = Pick<SnapshotStore, "metaQuery" | "kind">;

/**
 * A place in the feed as a reader's cursor names it (docs/decisions.md, "Change feed", "Cursors"):
 * after the public event at `pos` (the events every account sees, counted 1, 2, …) and, with `seq`
 * above 0, after the reader's own event `seq` at that place (`<pos>.<seq>`). It counts no other
 * account's events, so it tells a reader nothing of theirs. The feed's internal order (`id`,
 * every account's events counted) is never shown; a bare cursor up to the feed's legacy_through
 * is such an id, given before places were kept, and goes on meaning what it meant.
 */
export interface FeedCursor {
  pos: number;
  seq: number;
}

/** The start of the feed: before its first event. */
export const FEED_START: FeedCursor = Object.freeze({ pos: 0, seq: 0 });

/** A cursor's text read (null: not a cursor of the feed). */
export function parseFeedCursor(text: string): FeedCursor | null {
  const m = /^(\d{1,15})(?:\.([1-9]\d{0,8}))?$/.exec(text);
  return m ? { pos: Number(m[1]), seq: m[2] === undefined ? 0 : Number(m[2]) } : null;
}

export const cursorText = (c: FeedCursor): string => (c.seq === 0 ? String(c.pos) : `${c.pos}.${c.seq}`);

/** Feed order of two places: below 0 when `a` comes first. */
export const compareCursors = (a: FeedCursor, b: FeedCursor): number => a.pos - b.pos || a.seq - b.seq;

/** An event's cursor text, made by each database from its pos and seq. */
export const CURSOR_TEXT: Record<SnapshotStore["kind"], string> = {
  sqlite: "CASE WHEN seq = 0 THEN CAST(pos AS TEXT) ELSE pos || '.' || seq END",
  postgresql: "CASE WHEN seq = 0 THEN pos::text ELSE pos || '.' || seq END",
};

/**
 * The last id given before places were kept (0 for a feed begun with them): fixed by the
 * migration that began them (0012), so read once a store.
 */
export async function legacyThrough(meta: MetaStore): Promise<number> {
  let known = legacy.get(meta);
  if (known === undefined) {
    const [row] = await meta.metaQuery("SELECT legacy_through FROM {meta}.change_feed WHERE id = 1");
    known = Number(row?.legacy_through ?? 0);
    // A feed with no row yet is one begun with places: its row is made with 0.
    legacy.set(meta, known);
  }
  return known;
}
const legacy = new WeakMap<MetaStore, number>();
