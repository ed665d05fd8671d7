import type { ChangeKind } from "./change-sql.ts";
import {
  CURSOR_TEXT,
  compareCursors,
  type FeedCursor,
  legacyThrough,
  parseFeedCursor,
} from "./feed-cursor.ts";
import type { SnapshotStore } from "./store.ts";

/**
 * Reads of the change feed (`change_event` in the meta database; written by the loads:
 * src/db/change-sql.ts, and the stores' publish). Statements are the same on both databases
 * (`?` markers, `{meta}.` before each table: SnapshotStore.metaQuery).
 *
 * Every statement that reads events for a reader is written here, and each is built through
 * `seenBy` with the reader's account given (docs/decisions.md, "Segments"): an account's own
 * events (segment_entered, segment_left) are read by that account alone. test/db/feed-readers.test.ts
 * fails on a statement reading `change_event` anywhere else in src/.
 */
export type MetaStore = Pick<SnapshotStore, "metaQuery" | "kind">;

/** Whose events a read is for: an account (its own and everyone's), or null (everyone's only). */
export type FeedReader = { account: string | null };

/**
 * The term, and its parameters, that keeps the events `reader` may see: the one rule. No index
 * serves it (it matches nearly every event; a read goes along the primary key from its place): as
 * `account IS NULL`, SQLite chose the index on account, every event after the place then sorted,
 * 28 ms a page at 72,566 events (test/db/feed-plan.test.ts).
 */
export function seenBy(reader: FeedReader): { sql: string; params: unknown[] } {
  return reader.account === null
    ? { sql: "COALESCE(account, '') = ''", params: [] }
    : { sql: "COALESCE(account, '') IN ('', ?)", params: [reader.account] };
}

/**
 * The events after `c` (before it: newest-first reads) by the internal id: those at or after the
 * place's `pos` begin at the first id there (the index on (pos, id)), less those up to its `seq`.
 */
async function placeTerm(
  meta: MetaStore,
  c: FeedCursor,
  side: "after" | "before",
): Promise<{ sql: string; params: unknown[] }> {
  if (c.seq === 0 && c.pos <= (await legacyThrough(meta)))
    return { sql: side === "after" ? "id > ?" : "id < ?", params: [c.pos] };
  const first = (op: string) =>
    `COALESCE((SELECT f.id FROM {meta}.change_event f WHERE f.pos ${op} ? ORDER BY f.pos, f.id LIMIT 1), ${Number.MAX_SAFE_INTEGER})`;
  return side === "after"
    ? { sql: `id >= ${first(">=")} AND (pos > ? OR seq > ?)`, params: [c.pos, c.pos, c.seq] }
    : { sql: `id < ${first(">")} AND (pos < ? OR seq < ?)`, params: [c.pos, c.pos, c.seq] };
}

/**
 * An event as the feed's GraphQL types show it (src/schema/changes.ts): the fields a property of
 * the same name exposes are read by graphql-jit inline, without a resolver call each.
 */
export interface ChangeRow {
  /** The event's place in the feed's internal order (change_event.id): never shown. */
  order: number;
  /** Its cursor as its readers see it (FeedCursor's text). */
  id: string;
  version: number;
  loadedAt: Date;
  kind: ChangeKind;
  domainName: string | null;
  app: ChangeAppRow | null;
  technology: string | null;
  /** The value before, where the kind has one: a JSON value (null for none). */
  before: unknown;
  after: unknown;
  /** The segment a segment_entered or segment_left is about (its account alone sees it), or null. */
  segment: string | null;
}

/** The App an event is about, as it was named when the event was found. */
export interface ChangeAppRow {
  /** `platform.token`. */
  identifier: string;
  id: string;
  platform: string;
  token: string;
  name: string;
}

/** Which events: all of them conditions, ANDed; feed order (by id) after `after`. */
export interface FeedWhere {
  /** After this place: a reader's cursor, or an event's internal order (a read going on). */
  after: FeedCursor | { order: number };
  /** Events of snapshots up to this version (the served one: a gateway never shows a newer). */
  served: number;
  kinds?: readonly string[];
  sinceVersion?: number;
  untilVersion?: number;
  sinceMs?: number;
  untilMs?: number;
  app?: string;
  technology?: string;
  /** Events of these Domains only. */
  domains?: readonly string[];
  /** Events of Domains only (an App's own events have none). */
  domainEvents?: boolean;
  /**
   * Whose events besides everyone's: a segment's events are seen by its account alone
   * (docs/decisions.md, "Segments"); null, everyone's only. Required: see seenBy.
   */
  account: string | null;
  /** The events of this segment of `account` only. */
  segment?: string;
}

/** Where pruning has reached: the place of the last event of no account pruned (0 for none). */
export interface FeedBounds {
  prunedThrough: number;
}

/** Where pruning has reached, as a column of a statement (read alone, or with a page). */
const BOUNDS = "(SELECT pruned_through FROM {meta}.change_feed WHERE id = 1) AS pruned_through";

export async function feedBounds(meta: MetaStore): Promise<FeedBounds> {
  const [row] = await meta.metaQuery(`SELECT ${BOUNDS}`);
  return { prunedThrough: Number(row?.pruned_through ?? 0) };
}

/**
 * Where the feed stands for `reader` on a gateway serving `served` (null: of every published
 * load): the last event of the snapshots up to it that the reader sees (the pruned end when none
 * is left), the cursor a live stream starts after, and the last a client of the reader can be
 * given (a cursor past it is past the end); with its internal order (0 when none is left). Another
 * account's events are not counted: their places are not the reader's.
 */
export async function feedEnd(
  meta: MetaStore,
  reader: FeedReader,
  served: number | null,
): Promise<{ cursor: FeedCursor; order: number }> {
  const seen = seenBy(reader);
  const upTo = served === null ? "" : "version + 0 <= ? AND "; // + 0: readFeed says why
  const last = `FROM {meta}.change_event WHERE ${upTo}${seen.sql} ORDER BY id DESC LIMIT 1`;
  const [row] = await meta.metaQuery(
    `SELECT (SELECT ${CURSOR_TEXT[meta.kind]} ${last}) AS last_place, (SELECT id ${last}) AS last_id,
      (SELECT pruned_through FROM {meta}.change_feed WHERE id = 1) AS pruned_through`,
    served === null ? [...seen.params, ...seen.params] : [served, ...seen.params, served, ...seen.params],
  );
  const pruned: FeedCursor = { pos: Number(row?.pruned_through ?? 0), seq: 0 };
  const place = row?.last_place == null ? null : parseFeedCursor(String(row.last_place));
  return place && compareCursors(place, pruned) >= 0
    ? { cursor: place, order: Number(row?.last_id) }
    : { cursor: pruned, order: 0 };
}

/**
 * The last event of every account's of the snapshots up to `served`: what a gateway's webhook
 * deliverer compares each webhook's cursor with, to find those with events to read (a load may
 * bring an account's own events and no one's). Never answered to a reader: feedEnd is theirs.
 */
export async function lastEventOfAll(meta: MetaStore, served: number): Promise<number> {
  // In the internal order webhooks keep their cursor in (none left: nothing to read).
  const [row] = await meta.metaQuery(
    "SELECT max(id) AS last_id FROM {meta}.change_event WHERE version + 0 <= ?",
    [served],
  );
  return Number(row?.last_id ?? 0);
}

/** A page of events and where pruning has reached, read together. */
export interface FeedRead extends FeedBounds {
  rows: ChangeRow[];
}

/** The columns of an event, in the order its doc holds them (then before and after, as JSON). */
const COLUMNS = "id, version, loaded_at, kind, domain, app, app_id, app_name, technology";

/** Its cursor text, after the segment (absent from docs kept before places were: the id is). */
const DOC_TAIL: Record<MetaStore["kind"], string> = {
  sqlite: `segment, ${CURSOR_TEXT.sqlite}`,
  postgresql: `segment, ${CURSOR_TEXT.postgresql}`,
};

/**
 * An event as the feed reads it, a JSON array text of its columns (`before` and `after` as JSON
 * values), made by each database from the event's columns: written into `doc` when the load is
 * published (the stores' publish), and made at read time for an event published without one.
 */
export const EVENT_DOC: Record<MetaStore["kind"], string> = {
  sqlite: `json_array(${COLUMNS}, json(before), json(after), ${DOC_TAIL.sqlite})`,
  postgresql: `json_build_array(${COLUMNS}, before::json, after::json, ${DOC_TAIL.postgresql})::text`,
};

/**
 * A page of the feed is its events' docs joined into one JSON array text: one value for the
 * driver to hand over and one JSON.parse, where reading the columns made 11 values a row into
 * objects in the driver and parsed each JSON value on its own (a page of 100 on SQLite, measured
 * in a loop with the parse: 0.32 ms for the columns, 0.21 for JSON made by the statement, 0.10
 * for the docs joined). The aggregate takes the rows in the order the page's subquery gives them
 * (feed order, by the primary key); the parsed page is checked to be in that order (inOrder).
 */
const PAGE_TEXT: Record<MetaStore["kind"], (page: string) => string> = {
  sqlite: (page) =>
    `SELECT '[' || group_concat(COALESCE(doc, ${EVENT_DOC.sqlite}), ',') || ']' FROM (${page})`,
  postgresql: (page) =>
    `SELECT '[' || string_agg(COALESCE(doc, ${EVENT_DOC.postgresql}), ',') || ']' FROM (${page}) e`,
};

export type RowArray = [
  number,
  number,
  number,
  ChangeKind,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  unknown,
  unknown,
  // Absent from the docs of events published before segments.
  (string | null)?,
  // The cursor text: absent from the docs of events published before places (their id is).
  string?,
];

/**
 * Up to `limit` events matching `where`, in feed order, with where pruning had reached when the
 * page was read (one statement: a cursor found unpruned is one whose page is whole).
 */
export async function readFeed(meta: MetaStore, where: FeedWhere, limit: number): Promise<FeedRead> {
  const place =
    "order" in where.after
      ? { sql: "id > ?", params: [where.after.order] }
      : await placeTerm(meta, where.after, "after");
  // `+ 0`: no index serves it. A prepared page's generic plan took the index on version, read every
  // served event and sorted them (34 ms a page, not 0.27): pages read the primary key from the place.
  const terms = [place.sql, "version + 0 <= ?"];
  const params: unknown[] = [...place.params, where.served];
  const term = (sql: string, ...values: unknown[]) => {
    terms.push(sql);
    params.push(...values);
  };
  if (where.kinds?.length) term(`kind IN (${where.kinds.map(() => "?").join(", ")})`, ...where.kinds);
  if (where.sinceVersion !== undefined) term("version > ?", where.sinceVersion);
  if (where.untilVersion !== undefined) term("version <= ?", where.untilVersion);
  if (where.sinceMs !== undefined) term("loaded_at >= ?", where.sinceMs);
  if (where.untilMs !== undefined) term("loaded_at < ?", where.untilMs);
  const seen = seenBy(where);
  term(seen.sql, ...seen.params);
  // A segment's events: its account's (by the index on account, segment), so none for no account.
  if (where.segment !== undefined) term("account = ? AND segment = ?", where.account, where.segment);
  if (where.app !== undefined) term("app = ?", where.app);
  if (where.technology !== undefined) term("technology = ?", where.technology);
  const none = where.domains?.length === 0;
  if (where.domains?.length) term(`domain IN (${where.domains.map(() => "?").join(", ")})`, ...where.domains);
  else if (where.domainEvents) terms.push("domain IS NOT NULL");
  // The limit is in the text (a page size + 1, or a scan's batch): PostgreSQL plans a `LIMIT $n` as
  // if it kept a tenth of the table, and planned a prepared page again at every run.
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`readFeed: limit ${limit} is not a count`);
  const page = `SELECT ${COLUMNS}, before, after, segment, pos, seq, doc FROM {meta}.change_event WHERE ${terms.join(" AND ")} ORDER BY id LIMIT ${none ? 0 : limit}`;
  const [r] = await meta.metaQuery(
    `SELECT ${BOUNDS}, (${PAGE_TEXT[meta.kind](page)}) AS page`,
    params,
    // Prepared for the whole feed's pages (its terms: the place, the version, the reader's), planned
    // once a connection; filtered pages (a text for each combination) are planned at each run.
    { prepare: terms.length === 3 },
  );
  const text = r?.page as string | null | undefined;
  // The events of a load share its time: one Date for them all.
  const dates = new Map<number, Date>();
  const rows = text ? inOrder(JSON.parse(text) as RowArray[]).map((a) => rowOf(a, dates)) : [];
  return { rows, prunedThrough: Number(r?.pruned_through ?? 0) };
}

/** The page in feed order: as the database gave it, or sorted by id when it did not keep the order. */
function inOrder(page: RowArray[]): RowArray[] {
  for (let i = 1; i < page.length; i++) {
    if (page[i - 1][0] > page[i][0]) return page.sort((a, b) => a[0] - b[0]);
  }
  return page;
}

export function rowOf(a: RowArray, dates: Map<number, Date>): ChangeRow {
  let loadedAt = dates.get(a[2]);
  if (!loadedAt) {
    loadedAt = new Date(a[2]);
    dates.set(a[2], loadedAt);
  }
  const identifier = a[5];
  const dot = identifier === null ? -1 : identifier.indexOf(".");
  return {
    order: a[0],
    id: a[12] ?? String(a[0]),
    version: a[1],
    loadedAt,
    kind: a[3],
    domainName: a[4],
    app:
      identifier === null
        ? null
        : {
            identifier,
            id: a[6] as string,
            platform: identifier.slice(0, dot),
            token: identifier.slice(dot + 1),
            name: a[7] as string,
          },
    technology: a[8],
    before: a[9],
    after: a[10],
    segment: a[11] ?? null,
  };
}

/**
 * Up to `limit` events of the Domain `name` that `reader` sees, newest first, of the loads up to
 * `served`, before the event `before` (none: from the newest), and of loads after `afterVersion`
 * when given: read by the feed's index on (domain, id).
 */
export async function domainEvents(
  meta: MetaStore,
  reader: FeedReader,
  name: string,
  served: number,
  limit: number,
  before?: FeedCursor,
  afterVersion?: number,
): Promise<ChangeRow[]> {
  if (!Number.isSafeInteger(limit) || limit < 0)
    throw new Error(`domainEvents: limit ${limit} is not a count`);
  const seen = seenBy(reader);
  const terms = ["domain = ?", "version <= ?", seen.sql];
  const params: unknown[] = [name, served, ...seen.params];
  if (before !== undefined) {
    const place = await placeTerm(meta, before, "before");
    terms.push(place.sql);
    params.push(...place.params);
  }
  if (afterVersion !== undefined) {
    terms.push("version > ?");
    params.push(afterVersion);
  }
  const rows = await meta.metaQuery(
    `SELECT COALESCE(doc, ${EVENT_DOC[meta.kind]}) AS doc FROM {meta}.change_event WHERE ${terms.join(" AND ")} ORDER BY id DESC LIMIT ${limit}`,
    params,
  );
  const dates = new Map<number, Date>();
  return rows.map((r) => rowOf(JSON.parse(r.doc as string) as RowArray, dates));
}

/**
 * The oldest event the feed still has, with its version, and where pruning has reached (0: never
 * pruned): the loads whose events are all kept are those after the published load before it.
 * It tells of no event (a version, which every reader sees in the trends), so it is for no reader.
 */
export async function feedStart(meta: MetaStore): Promise<{ version: number | null; prunedThrough: number }> {
  const [row] = await meta.metaQuery(
    `SELECT (SELECT version FROM {meta}.change_event ORDER BY id LIMIT 1) AS version,
      (SELECT pruned_through FROM {meta}.change_feed WHERE id = 1) AS pruned_through`,
  );
  return {
    version: row?.version == null ? null : Number(row.version),
    prunedThrough: Number(row?.pruned_through ?? 0),
  };
}

/**
 * A load's events counted, every account's (their number, Domains, first and last ids): for the
 * maintainers' benchmarks (src/bench/), which read the database they loaded; never a client's answer.
 */
export async function loadEventCounts(
  meta: MetaStore,
  version: number,
): Promise<{ events: number; domains: number; firstId: number; lastId: number }> {
  const [r] = await meta.metaQuery(
    "SELECT count(*) AS n, count(DISTINCT domain) AS d, min(id) AS first, max(id) AS last FROM {meta}.change_event WHERE version = ?",
    [version],
  );
  return {
    events: Number(r?.n ?? 0),
    domains: Number(r?.d ?? 0),
    firstId: Number(r?.first ?? 0),
    lastId: Number(r?.last ?? 0),
  };
}

/**
 * What the stores' publish prunes the events of loads older than version ($1) with: the place of
 * the last event of no account pruned (`top`, kept as change_feed.pruned_through: a feed's end,
 * answered to every reader), then the delete. `meta`: the meta tables' prefix.
 */
export function pruneEventsStatements(
  meta: string,
  dialect: MetaStore["kind"],
): { top: string; prune: string } {
  const marker = dialect === "postgresql" ? "$1" : "?";
  return {
    top: `SELECT max(pos) AS top FROM ${meta}change_event WHERE version < ${marker} AND ${seenBy({ account: null }).sql}`,
    prune: `DELETE FROM ${meta}change_event WHERE version < ${marker}`,
  };
}
