import { type ReadContext, servedOf } from "../context.ts";
import {
  type ChangeRow,
  type FeedBounds,
  type FeedReader,
  type FeedWhere,
  feedBounds,
  feedEnd,
  type MetaStore,
  readFeed,
} from "../db/change-feed.ts";
import { GONE_TABLES } from "../db/change-sql.ts";
import {
  compareCursors,
  cursorText,
  FEED_START,
  type FeedCursor,
  parseFeedCursor,
} from "../db/feed-cursor.ts";
import type { SqlReader } from "../db/reader.ts";
import { checkSegmentName } from "../db/segments.ts";
import { statementOver } from "../db/where-sql.ts";
import { apiError, InputError } from "../errors.ts";
import type { DomainFilter } from "./domain-filter.ts";
import { domainSetOf, segmentNamesOf } from "./domain-list.ts";
import type { DomainSet } from "./domain-set.ts";
import { parseInstant } from "./instant.ts";
import { unknownSegment } from "./named-keys.ts";
import { pageSize } from "./page.ts";

/**
 * Pages of the change feed (docs/decisions.md, "Change feed"): the events of the loads up to the
 * served snapshot, in feed order, after a cursor that is an event's place among those the reader
 * sees (FeedCursor: it counts no other account's events). The feed
 * only grows, so a cursor stays good across loads, until the events after it are pruned
 * (CHANGES_RETENTION): then it is 410 CURSOR_EXPIRED.
 *
 * A Domain filter is matched against the Domains of the served snapshot, and a Domain removed
 * since is matched as it was when removed (the snapshot keeps it in its gone tables while its
 * events are in the feed). A filter that matches
 * few Domains (at most NAMED_DOMAINS, and at most NAMED_SHARE of them) reads the events of those
 * Domains by the feed's index on the Domain; any other reads the feed in order, a batch at a time, and keeps the events of
 * Domains that match, reading at most SCAN_EVENTS events per page: a page may then come back
 * short (even empty) with hasNextPage, and the next page goes on from where this one stopped.
 */
export interface ChangeFilter {
  kinds?: readonly string[] | null;
  since?: string | null;
  until?: string | null;
  domain?: DomainFilter | null;
  app?: string | null;
  technology?: string | null;
  /** The events of this segment of the reader's account (segment_entered, segment_left). */
  segment?: string | null;
}

export interface ChangeArgs {
  filter?: ChangeFilter | null;
  first?: number | null;
  after?: string | null;
}

export interface ChangePage {
  nodes: ChangeRow[];
  hasNextPage: boolean;
  /**
   * The position the next page goes on from: the page's last event; where a scan stopped, when it
   * stopped short; the end of the feed, when the page is empty and nothing follows.
   */
  endCursor: string;
  /** The internal order of the event endCursor names (never shown), null when the page did not move. */
  endOrder: number | null;
}

export const DEFAULT_CHANGES = 100;
export const MAX_CHANGES = 1000;
const NAMED_DOMAINS = 2000;
const NAMED_SHARE = 0.05;
const SCAN_BATCH = 1000;
const SCAN_EVENTS = 20_000;

/** An event's cursor: its place among the events its readers see (FeedCursor). */
export const changeCursor = (row: ChangeRow) => row.id;

/** Whose events a read of `ctx` sees: its account's and everyone's (docs/decisions.md, "Segments"). */
export const readerOf = (ctx: ReadContext): FeedReader => ({ account: ctx.account?.account ?? null });

function metaOf(ctx: ReadContext): MetaStore {
  if (!ctx.meta) throw new Error("the change feed is read without its store");
  return ctx.meta;
}

/** A point of `since` / `until`: a snapshot version (digits) or an RFC 3339 instant or date. */
export function point(value: string, argument: string): { version: number } | { ms: number } {
  if (/^\d{1,9}$/.test(value)) return { version: Number(value) };
  try {
    return { ms: parseInstant(value, "a snapshot version or a date").getTime() };
  } catch (e) {
    throw new InputError(
      argument,
      (e as Error).message.replace(
        /^a snapshot version or a date must be/,
        "must be a snapshot version (an integer) or",
      ),
    );
  }
}

/** Reads a page of the feed. `base`: the events of one Domain or one App (Domain.changes, App.changes). */
export async function changePage(
  ctx: ReadContext,
  args: ChangeArgs,
  base: { domain?: string; app?: string } = {},
): Promise<ChangePage> {
  const page = await pageAfter(ctx, args, base);
  if (page.nodes.length || page.hasNextPage) return page;
  // Nothing matched up to the end of the feed: the next page goes on from that end, the last event
  // of the served loads or where pruning has reached (never back from a cursor given by a gateway
  // that serves a newer load). A client polling with it is given the later loads' events only,
  // and it is no cursor into pruned events: it expires only once loads after it go unread past
  // the retention.
  const end = await feedEnd(metaOf(ctx), readerOf(ctx), servedOf(ctx).snapshot.version);
  const at = parseFeedCursor(page.endCursor) ?? FEED_START;
  return compareCursors(at, end.cursor) >= 0
    ? page
    : { ...page, endCursor: cursorText(end.cursor), endOrder: end.order || null };
}

/** The page `args` asks for, its endCursor where it began when it is empty (changePage moves it). */
async function pageAfter(
  ctx: ReadContext,
  args: ChangeArgs,
  base: { domain?: string; app?: string },
): Promise<ChangePage> {
  const meta = metaOf(ctx);
  const served = servedOf(ctx);
  // Checked as every connection's `first` is (0: no page, only where it stands).
  const first = args.first == null ? DEFAULT_CHANGES : pageSize(args.first, MAX_CHANGES);
  const filter = args.filter ?? {};
  // A segment's events are its account's alone (docs/decisions.md, "Segments").
  let after: FeedCursor = FEED_START;
  if (args.after != null) {
    const given = parseFeedCursor(args.after);
    if (!given) throw new InputError("after", "is not a cursor of the change feed");
    after = given;
  }
  const where: FeedWhere & { after: FeedCursor } = {
    after,
    served: served.snapshot.version,
    ...readerOf(ctx),
  };
  const domainFilter = filter.domain && Object.keys(filter.domain).length ? filter.domain : null;
  let match: Matches | null = null;
  try {
    if (filter.kinds?.length) where.kinds = filter.kinds;
    if (filter.segment != null) {
      try {
        where.segment = checkSegmentName(filter.segment);
      } catch (e) {
        throw new InputError("filter.segment", (e as Error).message);
      }
      await checkSegment(ctx, meta, where, where.segment);
    }
    for (const [key, value] of [
      ["since", filter.since],
      ["until", filter.until],
    ] as const) {
      if (value == null) continue;
      const p = point(value, `filter.${key}`);
      if ("version" in p) where[key === "since" ? "sinceVersion" : "untilVersion"] = p.version;
      else where[key === "since" ? "sinceMs" : "untilMs"] = p.ms;
    }
    if (domainFilter) match = await matchesOf(ctx, domainFilter);
  } catch (e) {
    // A client's cursor is answered for first (410, or past the end), before its filter's errors.
    if (args.after != null) await checkCursor(meta, where, await feedBounds(meta), where.after, false);
    throw e;
  }
  const app = base.app ?? filter.app ?? undefined;
  if (app != null) where.app = app;
  if (filter.technology != null) where.technology = filter.technology;
  if (base.domain !== undefined) where.domains = [base.domain];
  if (!match) return pageOf(await read(meta, where, first + 1, args.after != null), first, where.after);

  // A filtered read does work before it reads the feed: its cursor is checked before that.
  if (args.after != null) await checkCursor(meta, where, await feedBounds(meta), where.after, false);
  const named = Math.min(NAMED_DOMAINS, NAMED_SHARE * served.snapshot.domains);
  const { served: here, gone } = match;
  const count = async () => (await here.count()) + (await gone.count());
  if (where.domains === undefined && (await count()) <= named) {
    const names = await matchingNames(match, null);
    return pageOf(
      await read(meta, { ...where, domains: names }, first + 1, args.after != null),
      first,
      where.after,
    );
  }
  // Read the feed in order, keeping the events of Domains the filter matches.
  const kept: ChangeRow[] = [];
  let scanned = 0;
  let cursor: FeedWhere["after"] = where.after;
  for (;;) {
    const batch = await read(
      meta,
      { ...where, after: cursor, domainEvents: true },
      SCAN_BATCH,
      cursor === where.after && args.after != null,
    );
    const names = [...new Set(batch.map((r) => r.domainName as string))];
    const matched = new Set(names.length ? await matchingNames(match, names) : []);
    for (const row of batch) {
      if (!matched.has(row.domainName as string)) continue;
      kept.push(row);
      if (kept.length > first) return pageOf(kept, first, where.after);
    }
    if (batch.length < SCAN_BATCH) return pageOf(kept, first, where.after);
    const last = batch[batch.length - 1];
    cursor = { order: last.order };
    scanned += batch.length;
    if (scanned >= SCAN_EVENTS)
      return { nodes: kept, hasNextPage: true, endCursor: changeCursor(last), endOrder: last.order };
  }
}

/**
 * A segment whose events are asked for: one the account has, or had while the feed still holds
 * its events (a deleted segment's events stay readable by its name until they are pruned); any
 * other name is 404, with the account's segments near it (as `f:segment` and a webhook's
 * `segment` answer: docs/decisions.md, "Segments").
 */
async function checkSegment(
  ctx: ReadContext,
  meta: MetaStore,
  where: FeedWhere,
  name: string,
): Promise<void> {
  const names = await segmentNamesOf(ctx);
  if (names.includes(name)) return;
  if (where.account != null) {
    const { rows } = await readFeed(
      meta,
      { after: FEED_START, served: where.served, account: where.account, segment: name },
      1,
    );
    if (rows.length) return;
  }
  throw unknownSegment("filter.segment", name, names);
}

/**
 * Events after the cursor, read with where pruning had reached (one statement): a client's cursor
 * (`cursor`) into pruned events is 410, one past the reader's last event is 400 (checkCursor).
 */
async function read(meta: MetaStore, where: FeedWhere, limit: number, cursor: boolean): Promise<ChangeRow[]> {
  const { rows, ...bounds } = await readFeed(meta, where, limit);
  if (cursor && !("order" in where.after))
    await checkCursor(meta, where, bounds, where.after, rows.length > 0);
  return rows;
}

/**
 * A client's cursor into pruned events is 410; one past the last event `reader` sees (of every
 * published load: another gateway may serve a newer one) is 400. Another account's events are not
 * counted: were the end the feed's last id, a cursor accepted or refused would tell the reader how
 * many events the accounts had (docs/decisions.md, "Segments"). `seenAfter`: the reader was found
 * an event after the cursor, so it is not past its end (no statement needed).
 */
async function checkCursor(
  meta: MetaStore,
  reader: FeedReader,
  { prunedThrough }: FeedBounds,
  after: FeedCursor,
  seenAfter: boolean,
): Promise<void> {
  if (after.pos < prunedThrough)
    throw apiError(
      "CURSOR_EXPIRED",
      `after: the events after this cursor were pruned (the feed keeps the events of the last loads, CHANGES_RETENTION; it has pruned up to ${prunedThrough}); start again without a cursor, or with since`,
      // REST names its own option (cursor) in the message, as it does the 400s of `after`.
      { argument: "after" },
    );
  if (!seenAfter && compareCursors(after, (await feedEnd(meta, reader, null)).cursor) > 0)
    throw new InputError("after", "is past the end of the change feed");
}

/** The page of the first `first` rows; with none, where it began (`after`). */
function pageOf(rows: ChangeRow[], first: number, after: FeedCursor): ChangePage {
  const nodes = rows.slice(0, first);
  const last = nodes.at(-1);
  return {
    nodes,
    hasNextPage: rows.length > first,
    endCursor: last ? changeCursor(last) : cursorText(after),
    endOrder: last ? last.order : null,
  };
}

/**
 * A Domain filter's condition on each set of rows it is matched against: the served snapshot's
 * Domains, and those gone from it. Each is resolved on its own rows, so
 * that what the filter holds by key (a segment's members: f:segment) is of those rows: keys are a
 * table's own, and the gone Domains number theirs apart from the snapshot's.
 */
interface Matches {
  served: DomainSet;
  gone: DomainSet;
}

async function matchesOf(ctx: ReadContext, filter: DomainFilter): Promise<Matches> {
  const argument = "filter.domain";
  const served = await domainSetOf(ctx, { filter }, null, { argument });
  const gone = await domainSetOf(ctx, { filter }, null, { rows: goneOf(servedOf(ctx).sql), argument });
  return { served, gone };
}

/**
 * The names of the Domains that `match` matches (of `among`, when given): those of the served
 * snapshot as they are, and those gone from it as they were when removed (its gone tables).
 */
async function matchingNames(match: Matches, among: string[] | null): Promise<string[]> {
  const names: string[] = [];
  for (const { sql, where: matched } of [match.served, match.gone]) {
    const where = among ? { AND: [matched, { name: { in: among } }] } : matched;
    const { text, params } = statementOver(
      sql,
      "domain",
      where,
      (cond) => `SELECT r."name" FROM ${sql.table("domain")} r WHERE ${cond}`,
    );
    for (const r of await sql.all(text, params)) names.push(r[0] as string);
  }
  return names;
}

/**
 * The snapshot's Domains gone from it, as a reader whose Domain tables are the gone ones
 * (src/db/change-sql.ts, GONE_TABLES; every load writes them, empty at the first): a filter
 * compiled for the domain table reads the same on them.
 */
function goneOf(sql: SqlReader): SqlReader {
  let gone = goneReaders.get(sql);
  if (!gone) {
    gone = { ...sql, table: (name: string) => sql.table(GONE_TABLES[name] ?? name), gone: true };
    goneReaders.set(sql, gone);
  }
  return gone;
}
const goneReaders = new WeakMap<SqlReader, SqlReader>();
