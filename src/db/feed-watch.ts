import type { Snapshots } from "./snapshots.ts";

/**
 * Tells the change feed's live streams (GET /changes/stream, the `changes` subscription) and the
 * webhooks' deliverer when the gateway serves a newer snapshot, whose load's changes they then
 * read. One watcher a gateway, however many wait: while any waits, it asks the registry which
 * snapshot is served, and wakes those that wait on an older one. It is told of each publish by any
 * process at once (`listen`: LISTEN/NOTIFY on PostgreSQL, a watched file on SQLite) and asks then,
 * and every `slowMs` besides in case a notification was lost; without a listener (or while it is
 * down) it asks every `intervalMs` (one small statement).
 */
export class FeedWatch {
  private readonly waiters = new Set<{ version: number; wake: () => void; end: () => void }>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  /** A publish was told of while the registry was being asked: ask again once that answers. */
  private askAgain = false;
  private closed = false;
  private lastTick = 0;
  private listener: { listening(): boolean; close(): Promise<void> } | null = null;

  constructor(
    private readonly snapshots: Pick<Snapshots, "current" | "recheck">,
    private readonly intervalMs = 250,
    private readonly listen?: (onPublish: () => void) => { listening(): boolean; close(): Promise<void> },
    private readonly slowMs = 5000,
  ) {}

  /**
   * Resolves "moved" once the served snapshot is newer than `version`, "timeout" after `ms`,
   * "aborted" when `signal` aborts, whichever comes first.
   */
  next(version: number, ms: number, signal: AbortSignal): Promise<"moved" | "timeout" | "aborted"> {
    if (signal.aborted || this.closed) return Promise.resolve("aborted");
    return new Promise((resolve) => {
      const done = (how: "moved" | "timeout" | "aborted") => {
        clearTimeout(timeout);
        signal.removeEventListener("abort", onAbort);
        this.waiters.delete(waiter);
        if (!this.waiters.size) this.stop();
        resolve(how);
      };
      const waiter = { version, wake: () => done("moved"), end: () => done("aborted") };
      const onAbort = () => done("aborted");
      const timeout = setTimeout(() => done("timeout"), ms);
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.add(waiter);
      this.start();
    });
  }

  /** Stops asking (app.dispose): the streams waiting end, and any that asks again. */
  close(): void {
    this.closed = true;
    this.stop();
    void this.listener?.close();
    this.listener = null;
    for (const w of [...this.waiters]) w.end();
  }

  private start(): void {
    if (this.timer) return;
    if (this.listen && !this.listener && !this.closed)
      this.listener = this.listen(() => {
        if (this.waiters.size) void this.tick(true);
      });
    // Every intervalMs it asks, unless a listener listens: then only every slowMs.
    this.timer = setInterval(() => {
      const listening = this.listener?.listening() ?? false;
      if (!listening || Date.now() - this.lastTick >= this.slowMs) void this.tick();
    }, this.intervalMs);
    this.timer.unref();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Asks the registry; `told`: a listener told of a publish. */
  private async tick(told = false): Promise<void> {
    if (this.ticking) {
      // The answer on its way may predate the publish just told of.
      if (told) this.askAgain = true;
      return;
    }
    this.ticking = true;
    this.askAgain = false;
    this.lastTick = Date.now();
    try {
      this.snapshots.recheck();
      const served = (await this.snapshots.current())?.snapshot.version ?? 0;
      for (const w of [...this.waiters]) if (served > w.version) w.wake();
    } catch {
      // The registry did not answer: the next tick asks again, and the streams wait meanwhile.
    } finally {
      this.ticking = false;
      if (this.askAgain && this.waiters.size) void this.tick();
    }
  }
}
