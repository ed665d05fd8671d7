import type { Config } from "../config.ts";
import type { FormatCheck } from "./snapshot-format.ts";
import type { Row, Table } from "./tables.ts";

/**
 * Where snapshots live and which one is served. A snapshot is an immutable copy of the dataset
 * (a SQLite file, or a PostgreSQL schema) registered in the `snapshot` table of the state store.
 * The served snapshot is the newest one with status `ready`; publishing a new one is a single
 * UPDATE of its row, so readers see either the old copy or the new one, never a half-loaded one.
 */
export interface SnapshotRow {
  version: number;
  status: "loading" | "ready" | "failed" | "retired";
  startedAt: Date;
  finishedAt: Date | null;
  location: string;
  source: string;
  apps: number;
  domains: number;
  reviews: number;
  error: string | null;
}

/** A `snapshot` registry row as either driver returns it: its times as epoch ms (SQLite) or Dates (pg). */
export type RawSnapshotRow = Omit<SnapshotRow, "startedAt" | "finishedAt"> & {
  started_at: number | Date;
  finished_at: number | Date | null;
};

export const toSnapshotRow = ({ started_at, finished_at, ...row }: RawSnapshotRow): SnapshotRow => ({
  ...row,
  startedAt: new Date(started_at),
  finishedAt: finished_at === null ? null : new Date(finished_at),
});

export interface SnapshotCounts {
  apps: number;
  domains: number;
  reviews: number;
}

/**
 * Writes one new copy of a snapshot, step by step as the load pipeline calls it
 * (src/load-pipeline.ts): its rows, then each part built from them. The copy is not served until
 * the store publishes it, so no step needs to be undone but by abort().
 */
export interface SnapshotWriter {
  /** Queues rows; resolves when the writer can take more (backpressure). */
  write(table: Table, rows: Row[]): Promise<void>;
  /** Every row queued is written (PostgreSQL: the COPYs ended; SQLite: the last batch inserted). */
  endRows(): Promise<void>;
  /** The indexes and constraints of the tables (the migrations' after-load part). */
  buildIndexes(): Promise<void>;
  /** Each Domain's child rows (src/db/domain-children.ts) and the facet tables (src/db/facet-sql.ts). */
  buildDerived(): Promise<void>;
  /** The count index (src/db/count-index.ts), from the facet columns and child tables; its bytes. */
  buildCountIndex(): Promise<number>;
  /**
   * The load's change events against the snapshot served when it began (src/db/change-sql.ts),
   * and the Domains gone from it (empty tables at a first load).
   */
  buildChanges(): Promise<void>;
  /** The values related stores share (src/db/related-sql.ts). */
  buildRelated(): Promise<void>;
  /** The copy made ready to be read (PostgreSQL: VACUUM; SQLite: ANALYZE, its journal, synced). */
  seal(): Promise<void>;
  /** Stops writing; the copy is discarded by the store. */
  abort(): Promise<void>;
}

export interface SnapshotStore {
  readonly kind: Config["database"]["kind"];
  /** The served snapshot, or null before the first successful load. */
  current(): Promise<SnapshotRow | null>;
  list(): Promise<SnapshotRow[]>;
  /** What the copy at `location` holds of this code's format (src/db/snapshot-format.ts). */
  format(location: string): Promise<FormatCheck>;
  /**
   * Takes the store's load lock (one load at a time, across processes) and cleans up after loads
   * that died without releasing it. Throws LoadInProgressError when another load holds it.
   */
  lockForLoad(): Promise<() => Promise<void>>;
  /**
   * Registers a new snapshot in state `loading` and opens a writer on its fresh copy, which
   * computes its change events against the served snapshot (keeping the Domains gone within the
   * newest `changesRetention` loads: src/db/change-sql.ts). The served snapshot must be of this
   * code's format but for its rendered records, which a load does not read (loadable): else
   * SnapshotFormatError, before anything is registered.
   */
  begin(source: string, changesRetention?: number): Promise<{ version: number; writer: SnapshotWriter }>;
  /**
   * Makes the snapshot the served one and appends its change events to the feed, numbered, in one
   * transaction, pruning the events of loads beyond the newest `changesRetention`; then retires
   * copies beyond `keep` older ones.
   */
  publish(version: number, counts: SnapshotCounts, options: PublishOptions): Promise<void>;
  /**
   * Raw SQL on the meta database, for small shared state (cursor=all jobs): `?` placeholders, and
   * `{meta}.` before each table name (the meta schema on PostgreSQL, nothing on SQLite). Returns
   * the rows of a query, or [] for a statement.
   */
  metaQuery(sql: string, params?: unknown[], options?: MetaQueryOptions): Promise<Record<string, unknown>[]>;
  /**
   * Runs `work` in one transaction of the meta database, its statements given to `query` (as
   * metaQuery's): all of them are kept, or, when `work` throws, none. Transactions run one at a
   * time on a gateway. Its `query` is for `work` alone, and `work` awaits nothing else. `lock`:
   * transactions of the same lock run one at a time on every gateway (PostgreSQL: an advisory lock
   * held until the transaction ends; SQLite's are one at a time anyway).
   */
  metaTransaction<T>(work: (query: MetaQuery) => Promise<T>, options?: { lock?: string }): Promise<T>;
  /**
   * Tells of a publish by any process as it happens (PostgreSQL: LISTEN/NOTIFY; SQLite: a watched
   * file that each publish writes after its commit): `onPublish` is called for each. Absent where
   * a store cannot; the registry is polled then.
   */
  listen?(onPublish: () => void): { listening(): boolean; close(): Promise<void> };
  /** Marks a load failed and drops its copy; the served snapshot is untouched. */
  fail(version: number, error: string): Promise<void>;
  close(): Promise<void>;
}

/** What a writer computes its change events from (src/db/change-sql.ts). */
export interface ChangesFrom {
  /** The served snapshot's copy: a SQLite file, or a PostgreSQL schema. */
  previous: string;
  /** The new snapshot's version. */
  version: number;
  /** The oldest version whose gone Domains the new copy keeps. */
  keepFrom: number;
}

/**
 * The oldest version the feed keeps once `version` is published with `changesRetention`: the
 * (changesRetention − 1)th newest of the published `versions` (newest first), or `version` itself.
 */
export function keptFrom(version: number, versions: readonly number[], changesRetention: number): number {
  if (changesRetention <= 1) return version;
  return versions[changesRetention - 2] ?? 0;
}

/** Where the change feed ends: its last event's internal order and its last public place. */
export interface FeedTail {
  lastId: number;
  lastPos: number;
}

export interface PublishOptions {
  /** Older ready copies kept beside the new one. */
  keep: number;
  /** Loads whose change events the feed keeps (the new one included). */
  changesRetention: number;
  /**
   * The segments' outcome of the load (src/segments.ts), published with it: their events join
   * the feed after the load's own, and each segment's row of this load is kept (segment_load).
   */
  segments?: SegmentOutcome;
  /**
   * Where the feed ended when the load numbered its events for its files (src/db/staged-changes.ts):
   * the publish refuses, publishing nothing, if the feed has moved since.
   */
  feedTail?: FeedTail;
}

/** A segment's event, as the load found it (docs/decisions.md, "Segments"). */
export interface SegmentEvent {
  kind: "segment_entered" | "segment_left";
  domain: string;
  /** The account that alone sees it, and the segment's name. */
  account: string;
  segment: string;
  /** JSON text: {"segment", "changes": the Domain's events of the load that moved it}. */
  after: string;
}

/** A segment at the load: its row of segment_load (loaded_at is the publish's). */
export interface SegmentLoadOutcome {
  segmentId: string;
  size: number | null;
  entered: number;
  left: number;
  /** JSON text of its counts over its spread's dimensions, or null (no count index). */
  counts: string | null;
  /** JSON text of the members outside the counted values of each cut dimension, or null (none). */
  other: string | null;
  error: string | null;
}

export interface SegmentOutcome {
  /** In feed order. */
  events: SegmentEvent[];
  loads: SegmentLoadOutcome[];
}

export class LoadInProgressError extends Error {
  override name = "LoadInProgressError";
}

/** A statement of a meta transaction: `?` placeholders and `{meta}.` as metaQuery's. */
export type MetaQuery = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

export interface MetaQueryOptions {
  /**
   * A statement run often, of a text among few (the change feed's pages): PostgreSQL keeps it
   * prepared on each connection, planned once, instead of parsing and planning it at each run.
   * SQLite keeps every statement prepared.
   */
  prepare?: boolean;
}
