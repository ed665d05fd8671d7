import type { Config } from "../config.ts";
import { openSnapshotReader, type ReaderOptions, type SqlReader } from "./reader.ts";
import type { SnapshotRow, SnapshotStore } from "./store.ts";
import { openSnapshotStore } from "./store.ts";

export interface ServedSnapshot {
  snapshot: SnapshotRow;
  /** The snapshot's reads (src/db/reader.ts; page queries: src/db/where-sql.ts). */
  sql: SqlReader;
}

/**
 * The snapshot being served, for request handlers. The registry is re-read at most every
 * `refreshMs`, so a load published by another process is picked up within that time; the reader of
 * a replaced snapshot is closed after `graceMs`, letting in-flight requests finish on it.
 */
export class Snapshots {
  private served: ServedSnapshot | null = null;
  private checkedAt = 0;
  private pending: Promise<ServedSnapshot | null> | null = null;

  private constructor(
    private readonly config: Config,
    readonly store: SnapshotStore,
    private readonly refreshMs: number,
    private readonly graceMs: number,
    private readonly readerOptions: ReaderOptions,
  ) {}

  static async open(
    config: Config,
    options: { refreshMs?: number; graceMs?: number } & ReaderOptions = {},
  ): Promise<Snapshots> {
    return new Snapshots(
      config,
      await openSnapshotStore(config, config.timeouts),
      options.refreshMs ?? 1000,
      options.graceMs ?? 30_000,
      { onQuery: options.onQuery },
    );
  }

  /** The served snapshot, or null while none has been loaded. */
  async current(): Promise<ServedSnapshot | null> {
    if (Date.now() - this.checkedAt < this.refreshMs) return this.served;
    this.pending ??= this.refresh().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async refresh(): Promise<ServedSnapshot | null> {
    const row = await this.store.current();
    this.checkedAt = Date.now();
    if (row?.version !== this.served?.snapshot.version) {
      const old = this.served;
      this.served = row
        ? {
            snapshot: row,
            sql: openSnapshotReader(this.config, row, this.readerOptions),
          }
        : null;
      if (old) setTimeout(() => void closeServed(old), this.graceMs).unref();
    }
    return this.served;
  }

  async close(): Promise<void> {
    if (this.served) await closeServed(this.served);
    this.served = null;
    await this.store.close();
  }
}

async function closeServed(served: ServedSnapshot): Promise<void> {
  await served.sql.close();
}
