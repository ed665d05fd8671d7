import { apiError } from "../errors.ts";

/** Seconds a client refused for a busy gateway is asked to wait (Retry-After). */
export const EXPORT_RETRY_AFTER_S = 10;

/**
 * The exports a gateway runs at once: Export Domains' streams and cursor=all jobs, each from its
 * start to its end (EXPORT_CONCURRENCY, docs/configuration.md). Each holds a database cursor on
 * the export thread's pool (PostgreSQL: a connection for its whole run) and a ring of page
 * buffers (src/export/page-ring.ts), and fifty at once took 3.5 GB on SQLite and waited out the
 * pool's connection timeout on PostgreSQL. One past the limit is refused at once with 503 BUSY
 * and Retry-After (before it reads or draws on any budget), not queued: an export's client holds
 * its connection for as long as it reads, and a job's client polls anyway.
 */
export class ExportSlots {
  private taken = 0;

  constructor(readonly max: number) {}

  /** Exports running now. */
  get running(): number {
    return this.taken;
  }

  /** A slot for an export, or BUSY: the function that frees it (once, whatever calls it again). */
  take(): () => void {
    const release = this.tryTake();
    if (release) return release;
    throw apiError(
      "BUSY",
      `the gateway runs its maximum of ${this.max} exports and cursor=all jobs at once; retry in ${EXPORT_RETRY_AFTER_S} s`,
      { retryAfter: EXPORT_RETRY_AFTER_S },
    );
  }

  /** A slot for an export, or null when all are taken. */
  tryTake(): (() => void) | null {
    if (this.taken >= this.max) return null;
    this.taken++;
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.taken--;
    };
  }
}

/** `pages`, with `release` called once they end, however (done, failed or returned early). */
export async function* releasing<T>(pages: AsyncGenerator<T>, release: () => void): AsyncGenerator<T> {
  try {
    yield* pages;
  } finally {
    release();
  }
}
