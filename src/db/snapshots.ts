import type { Config } from "../config.ts";
import type { ClientOptions, Prisma } from "./client.ts";
import { openSnapshotClient } from "./client.ts";
import type { SnapshotRow, SnapshotStore } from "./store.ts";
import { openSnapshotStore } from "./store.ts";

export interface ServedSnapshot {
  snapshot: SnapshotRow;
  prisma: Prisma;
}

/**
 * The snapshot being served, for request handlers. The registry is re-read at most every
 * `refreshMs`, so a load published by another process is picked up within that time; a client of
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
    private readonly clientOptions: ClientOptions,
  ) {}

  static async open(
    config: Config,
    options: { refreshMs?: number; graceMs?: number } & ClientOptions = {},
  ): Promise<Snapshots> {
    return new Snapshots(
      config,
      await openSnapshotStore(config),
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
        ? { snapshot: row, prisma: openSnapshotClient(this.config, row, this.clientOptions) }
        : null;
      if (old) setTimeout(() => void old.prisma.$disconnect(), this.graceMs).unref();
    }
    return this.served;
  }

  async close(): Promise<void> {
    await this.served?.prisma.$disconnect();
    this.served = null;
    await this.store.close();
  }
}
