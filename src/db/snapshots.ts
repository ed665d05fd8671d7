import type { Config } from "../config.ts";
import { createLogger, type Logger } from "../logger.ts";
import { appCountIndexOf } from "./app-count-index.ts";
import { countIndexOf } from "./count-index.ts";
import { openSnapshotStore } from "./open-store.ts";
import {
  type CopyOf,
  openSnapshotReader,
  type QueryOptions,
  type ReaderOptions,
  type SqlReader,
} from "./reader.ts";
import { type ReadSource, Replicas } from "./replicas.ts";
import { featuresOf } from "./similar-features.ts";
import { checkFormat, isCurrent, refusalLine } from "./snapshot-format.ts";
import type { SnapshotRow, SnapshotStore } from "./store.ts";
import { isRecoveryConflict, isReplicaFailure } from "./unavailable.ts";

/** How often a snapshot refused for its format is checked again (an upgrade is served within it). */
const REFUSED_RECHECK_MS = 5_000;

export interface ServedSnapshot {
  snapshot: SnapshotRow;
  /** The snapshot's reads (src/db/reader.ts; page queries: src/db/where-sql.ts). */
  sql: SqlReader;
  /** Where they go: the primary, or the replica this gateway reads from. */
  source: ReadSource;
}

/** A served snapshot's row and where it is read, for the export thread (src/export/export-reader.ts). */
export const readAt = (served: ServedSnapshot) => ({
  ...served.snapshot,
  url: served.source.url || undefined,
  readFrom: served.source,
});

const PRIMARY = (config: Pick<Config, "database">): ReadSource => ({
  name: "primary",
  role: "primary",
  url: config.database.kind === "postgresql" ? config.database.url : "",
});

/**
 * A copy as a gateway serves it, read on the primary: what a load reads of the copy it builds and
 * the one served before it (src/load-pipeline.ts: the segments step). The caller closes its reader.
 */
export function servedOnPrimary(
  config: Pick<Config, "database" | "timeouts">,
  snapshot: SnapshotRow,
): ServedSnapshot {
  return { snapshot, sql: openSnapshotReader(config, snapshot), source: PRIMARY(config) };
}

/**
 * The snapshot being served, for request handlers. Each request takes one ServedSnapshot (its
 * snapshot, and a reader bound to one server), so it never mixes two versions.
 *
 * Without replicas, the primary's registry is re-read at most every `refreshMs`, so a load
 * published by another process is picked up within that time.
 *
 * With replicas (DATABASE_REPLICA_URLS), the gateway reads from the first replica of its own
 * order that answers and lags no more than the bound (src/db/replicas.ts), and serves the newest
 * snapshot that replica's own registry shows as ready. A replica's registry row is replayed after
 * all the snapshot's data (the publish is the load's last commit), so a version is served there
 * only once the replica holds all of it. The served version never goes back: a replica still on
 * an older one than this gateway served is passed over. With no replica usable, reads go to the
 * primary; a replica found well again is used again at the next refresh. A read that fails on a
 * replica because it did not answer, or that it cancelled for a recovery conflict, is made again
 * on the primary, on the same snapshot.
 *
 * The reader of a replaced snapshot (or source) is closed after `graceMs`, letting in-flight
 * requests finish on it.
 *
 * Before a snapshot is served, its reader asks once for the version of each of its parts
 * (src/db/snapshot-format.ts): a snapshot of another format than the code's is not served. The
 * gateway goes on serving the snapshot it served, if any (a newer load of newer code, during a
 * rolling upgrade; or one of older code, until `npm run load -- --upgrade`), and says why in one
 * line, logged once per snapshot and answered by /readyz (refusal). A refused snapshot is checked
 * again every REFUSED_RECHECK_MS, so an upgrade is served without a restart. A check that fails
 * (the database not answering) serves nothing new, and the next request checks again.
 */
export class Snapshots {
  private served: ServedSnapshot | null = null;
  private checkedAt = 0;
  private pending: Promise<ServedSnapshot | null> | null = null;
  private readonly primary: ReadSource;
  /** Reads failed on a replica so far (a refresh under way when one fails does not count as fresh). */
  private failures = 0;
  /** The newest snapshot not served for its format: why, and when it was last checked. */
  private refused: { version: number; source: string; line: string; at: number } | null = null;

  private constructor(
    private readonly config: Config,
    readonly store: SnapshotStore,
    readonly replicas: Replicas | null,
    private readonly refreshMs: number,
    private readonly graceMs: number,
    private readonly readerOptions: ReaderOptions,
    private logger: Logger | null,
    private readonly warm = false,
  ) {
    this.primary = PRIMARY(config);
  }

  static async open(
    config: Config,
    options: {
      refreshMs?: number;
      graceMs?: number;
      onReplicaChange?: Replicas["onChange"];
      /** Where a snapshot of another format is told of: the config's logger when not given. */
      logger?: Logger;
      /**
       * Load each new snapshot's count index as soon as it is served (a gateway's), so that the
       * first count does not wait for it (src/db/count-index.ts).
       */
      warm?: boolean;
    } & ReaderOptions = {},
  ): Promise<Snapshots> {
    const store = await openSnapshotStore(config, config.timeouts);
    let replicas: Replicas | null = null;
    if (config.database.kind === "postgresql" && config.database.replicaUrls.length) {
      replicas = new Replicas(config.database.url, config.database.replicaUrls, {
        ...config.replicas,
        timeouts: config.timeouts,
      });
      replicas.onChange = options.onReplicaChange ?? null;
      await replicas.start();
    }
    return new Snapshots(
      config,
      store,
      replicas,
      options.refreshMs ?? 1000,
      options.graceMs ?? 30_000,
      { onQuery: options.onQuery, indexed: options.indexed },
      options.logger ?? null,
      options.warm ?? false,
    );
  }

  /** The next current() reads the registry again, whenever it last did (a stream waiting for a load). */
  recheck(): void {
    this.checkedAt = 0;
  }

  /**
   * Why the newest ready snapshot is not served (src/db/snapshot-format.ts: refusalLine), or null
   * when it is.
   */
  refusal(): string | null {
    const r = this.refused;
    return r && r.version > (this.served?.snapshot.version ?? 0) ? r.line : null;
  }

  /** The served snapshot, or null while none has been loaded (or none of this code's format). */
  async current(): Promise<ServedSnapshot | null> {
    if (Date.now() - this.checkedAt < this.refreshMs) return this.served;
    this.pending ??= this.refresh().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async refresh(): Promise<ServedSnapshot | null> {
    const failures = this.failures;
    const floor = this.served?.snapshot.version ?? 0;
    const pick = this.replicas?.candidates().find((c) => c.snapshot.version >= floor);
    const source = pick?.source ?? this.primary;
    const row = pick ? pick.snapshot : await this.store.current();
    // A read that failed meanwhile makes the next request choose again.
    this.checkedAt = failures === this.failures ? Date.now() : 0;
    const old = this.served;
    if (row?.version === old?.snapshot.version && source.name === old?.source.name) return old;
    if (!row) {
      this.served = null;
    } else {
      const r = this.refused;
      const recheck = !r || r.version !== row.version || r.source !== source.name;
      if (!recheck && Date.now() - r.at < REFUSED_RECHECK_MS) return old;
      let sql: SqlReader | null;
      try {
        sql = await this.checked(row, source);
      } catch (e) {
        this.checkedAt = 0; // the next request checks again
        throw e;
      }
      // Not of this code's format: what was served goes on being served.
      if (!sql) return old;
      this.refused = null;
      this.served = { snapshot: row, source, sql };
      // A failed load is tried again by the first count that needs the index.
      if (this.warm) {
        // The index, and the lookalikes' features made of it (its size bands: 0.1 s at a million).
        countIndexOf(sql)
          .then((index) => index && featuresOf(index))
          .catch(() => {});
        appCountIndexOf(sql).catch(() => {});
      }
    }
    if (old) setTimeout(() => void closeServed(old), this.graceMs).unref();
    return this.served;
  }

  /**
   * A reader of `row` on `source` once its parts are found of this code's format (src/db/
   * snapshot-format.ts); null (closed, the refusal logged once per snapshot) when they are not.
   */
  private async checked(row: SnapshotRow, source: ReadSource): Promise<SqlReader | null> {
    const reader = this.open(row, source);
    const check = await checkFormat(reader).catch(async (e: unknown) => {
      await reader.close().catch(() => {});
      throw e;
    });
    if (isCurrent(check)) return reader;
    await reader.close().catch(() => {});
    const line = refusalLine(row.version, check);
    if (this.refused?.version !== row.version) {
      this.logger ??= createLogger(this.config);
      this.logger.warn({ snapshot: row.version, older: check.older, newer: check.newer }, line);
    }
    this.refused = { version: row.version, source: source.name, line, at: Date.now() };
    return null;
  }

  private open(row: SnapshotRow, source: ReadSource): SqlReader {
    const reader = openSnapshotReader(
      this.config,
      { location: row.location, url: source.url },
      this.readerOptions,
    );
    if (source.role === "primary") return reader;
    return withFallback(
      reader,
      () => openSnapshotReader(this.config, row, this.readerOptions),
      (e) => {
        this.replicas?.failed(source.name, e);
        this.failures++;
        this.checkedAt = 0; // the next request chooses again
      },
    );
  }

  async close(): Promise<void> {
    if (this.served) await closeServed(this.served);
    this.served = null;
    await this.replicas?.close();
    await this.store.close();
  }
}

async function closeServed(served: ServedSnapshot): Promise<void> {
  await served.sql.close();
}

/**
 * A replica's reader whose reads, once the replica fails to answer one, go to the primary's
 * reader of the same snapshot (opened then): the same data, since a replica is a copy of the
 * primary. A read cancelled by a recovery conflict is made again there, and the next goes to the
 * replica again. A stream fails over only before its first rows; after, it fails as it would.
 */
function withFallback(
  reader: SqlReader,
  openFallback: () => SqlReader,
  onFailure: (e: Error) => void,
): SqlReader {
  /** The primary's reader of the same snapshot, once a read needed it. */
  let fallback: SqlReader | null = null;
  /** The replica failed: every read goes to the primary (a recovery conflict alone does not). */
  let down = false;
  let closed = false;
  const failOver = (e: unknown): SqlReader => {
    if (!isReplicaFailure(e) || closed) throw e;
    if (!isRecoveryConflict(e) && !down) {
      down = true;
      onFailure(e as Error);
    }
    fallback ??= openFallback();
    return fallback;
  };
  return {
    ...reader,
    async all(sql: string, params: readonly unknown[], options?: QueryOptions) {
      if (down && fallback) return fallback.all(sql, params, options);
      try {
        return await reader.all(sql, params, options);
      } catch (e) {
        return failOver(e).all(sql, params, options);
      }
    },
    async copy(statement: string) {
      if (down && fallback) return fallback.copy(statement);
      try {
        return await reader.copy(statement);
      } catch (e) {
        return failOver(e).copy(statement);
      }
    },
    async *stream(sql: string, params: readonly unknown[], batch: number, copy?: CopyOf) {
      if (down && fallback) return yield* fallback.stream(sql, params, batch, copy);
      const rows = reader.stream(sql, params, batch, copy);
      let first: IteratorResult<unknown[][]>;
      try {
        first = await rows.next();
      } catch (e) {
        return yield* failOver(e).stream(sql, params, batch, copy);
      }
      if (first.done) return;
      yield first.value;
      yield* rows;
    },
    connections() {
      const a = reader.connections();
      const b = fallback?.connections() ?? { total: 0, idle: 0, waiting: 0 };
      return { total: a.total + b.total, idle: a.idle + b.idle, waiting: a.waiting + b.waiting };
    },
    async close() {
      closed = true;
      await Promise.all([reader.close(), fallback?.close()]);
    },
  };
}
