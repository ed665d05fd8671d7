import { LRUCache } from "lru-cache";
import { type AccountScope, type ReadContext, readContext } from "../context.ts";
import type { MetaStore } from "../db/change-feed.ts";
import type { FeedWatch } from "../db/feed-watch.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import { type ChangeArgs, type ChangeFilter, type ChangePage, changePage } from "./changes.ts";
import { fingerprint } from "./cursor.ts";

/**
 * The change feed read by the gateway's own consumers (docs/structure.md, "Reading the feed"):
 * the change export (GET /changes/export), the live faces (GET /changes/stream, the `changes`
 * subscription) and the webhooks' deliveries. They read it here, as a library's caller would,
 * through changePage (./changes.ts, the one reader of the feed's pages): no API key, no request,
 * no REST document. Each page is read on the snapshot the gateway serves when it is read, so a
 * reader that runs for weeks follows the loads.
 */

/** Where the feed is read: the snapshot served now, the meta store, and whose lists `f:list` names. */
export interface FeedSource {
  current(): Promise<ServedSnapshot | null>;
  meta: MetaStore;
  account?: AccountScope;
}

/** A page of the feed, with the snapshot it was read on (and its version). */
export interface FeedPage extends ChangePage {
  version: number;
  served: ServedSnapshot | null;
}

/** A live reader waited for the next load and none came: a heartbeat's moment. */
export const WAITED = Symbol("waited for a load");

export interface FeedReading {
  /** Its filter (ChangeFilter, as the resolvers receive it). */
  filter?: ChangeFilter | null;
  /** The position to read after (a change's id); null: from the feed's first event. */
  after: string | null;
  /** The size of the next page: `waited` after a wait for a load (a small first page goes out sooner). */
  pageSize?: (waited: boolean) => number;
  /**
   * Read on after the end: wait for the gateway to serve a newer snapshot (`watch`), at most
   * `waitMs` at a time (each wait that ends without one yields WAITED), until `signal` aborts.
   * Without it, the reading ends at the end of the feed.
   */
  live?: { watch: Pick<FeedWatch, "next">; signal: AbortSignal; waitMs: number | (() => number) };
  /**
   * Pages read by readers of the same filter and position on the same snapshot within a few
   * seconds are read once (the same page object for all: `shared`), as the live readers one load
   * wakes read their pages together.
   */
  shared?: boolean;
}

/**
 * The feed's pages after `reading.after`, in feed order, each read on the snapshot served when it
 * is read (and WAITED, for a live reading, after each wait for a load that came to nothing).
 */
export async function* readFeed(
  source: FeedSource,
  reading: FeedReading,
): AsyncGenerator<FeedPage | typeof WAITED> {
  let after = reading.after;
  let waited = false;
  for (;;) {
    const first = reading.pageSize?.(waited) ?? 1000;
    waited = false;
    const page = await pageOf(source, reading, after, first);
    if (reading.live?.signal.aborted) return;
    yield page;
    after = page.endCursor;
    if (page.hasNextPage) continue;
    if (!reading.live) return;
    const { watch, signal, waitMs } = reading.live;
    const how = await watch.next(page.version, typeof waitMs === "number" ? waitMs : waitMs(), signal);
    if (how === "aborted" || signal.aborted) return;
    if (how === "timeout") {
      yield WAITED;
      if (signal.aborted) return;
    } else waited = true;
  }
}

/** The context of a page of the feed: the snapshot served now, and the reader's account. */
async function contextOf(source: FeedSource): Promise<ReadContext> {
  return readContext(await source.current(), { meta: source.meta, account: source.account });
}

async function pageOf(
  source: FeedSource,
  reading: FeedReading,
  after: string | null,
  first: number,
): Promise<FeedPage> {
  const ctx = await contextOf(source);
  const version = ctx.served?.snapshot.version ?? 0;
  const args: ChangeArgs = { filter: reading.filter, first, after };
  const read = async () => ({ ...(await changePage(ctx, args)), version, served: ctx.served });
  if (!reading.shared) return read();
  // Shared by the readers of one account: a page can differ by account (byAccount), and the end of
  // the feed an empty page answers is its reader's own (src/db/change-feed.ts, feedEnd).
  const account = source.account?.account ?? "";
  const key = `${version}\u0000${account}\u0000${fingerprint([reading.filter ?? null, after, first])}`;
  const pages = sharedPages(source.meta);
  const kept = pages.get(key);
  if (kept) return kept;
  const reading_ = read();
  pages.set(key, reading_);
  reading_.catch(() => pages.delete(key));
  return reading_;
}

/**
 * The pages live readers read, by snapshot, filter and position (pageOf): kept for a few seconds,
 * long enough for the readers one load wakes to go through its pages together. Kept per meta store
 * (a feed), since a snapshot's version names it only within its own database: two apps in one
 * process (the tests' SQLite and PostgreSQL) each have a version 2.
 */
const kept = new WeakMap<object, LRUCache<string, Promise<FeedPage>>>();
function sharedPages(feed: object): LRUCache<string, Promise<FeedPage>> {
  let pages = kept.get(feed);
  if (!pages) {
    pages = new LRUCache({ max: 512, ttl: 10_000 });
    kept.set(feed, pages);
  }
  return pages;
}
