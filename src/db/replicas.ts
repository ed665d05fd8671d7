import type pg from "pg";
import type { Timeouts } from "../config.ts";
import { pgModule, poolTimeouts } from "./pg-pool.ts";
import { utc } from "./reader.ts";
import { type RawSnapshotRow, type SnapshotRow, toSnapshotRow } from "./store.ts";

/**
 * Where the served snapshot is read from: the primary (DATABASE_URL) or one of its streaming
 * replicas (DATABASE_REPLICA_URLS). Loads, API keys and job state always go to the primary.
 */
export interface ReadSource {
  /** `primary`, or a replica's `host:port` (never its credentials): what /readyz and /metrics show. */
  name: string;
  role: "primary" | "replica";
  url: string;
}

/** What the last check found on one replica (/readyz shows it). */
export interface ReplicaState {
  source: ReadSource;
  /** It answered the last check and no read has failed on it since. */
  up: boolean;
  /**
   * How far its replay is behind the primary, in time: since the primary was first seen past the
   * replica's replay position (0 when it has replayed all the primary had written when checked),
   * so up to one check interval short. Null while the primary's position is unknown (it has not
   * answered lately) or the replica is behind all this gateway has seen of it.
   */
  lagMs: number | null;
  /** The same in bytes of WAL. */
  lagBytes: number | null;
  /** The newest snapshot its own registry shows as ready: all of its data is replayed there. */
  snapshot: SnapshotRow | null;
  /** Why it is not used, when it is not. */
  reason: string | null;
  checkedAt: number;
}

export interface ReplicaOptions {
  /** A replica further behind than this is not read from until it catches up. */
  maxLagMs: number;
  /** How often each replica and the primary's WAL position are checked. */
  checkMs: number;
  timeouts: Timeouts;
}

/** `0/16B3748` → its position as a number. */
export function parseLsn(text: string): bigint {
  const [hi, lo] = text.split("/");
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

/** `postgres://user:secret@db-2:5433/x` → `db-2:5433`, unique in the list (a suffix if repeated). */
export function sourceNames(urls: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return urls.map((u) => {
    const url = new URL(u);
    const name = `${url.hostname || "localhost"}:${url.port || "5432"}`;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}#${n}`;
  });
}

/**
 * The replicas of one gateway, checked every `checkMs` on one connection each: whether each
 * answers and is a standby, how far its replay lags the primary, and which snapshot its registry
 * shows as ready. The lag is measured against positions of the primary's WAL seen by this
 * gateway (kept while the primary writes, one per check), so a replica of an idle primary is not
 * taken for late, as `now() - pg_last_xact_replay_timestamp()` would take it.
 *
 * Each gateway prefers the replicas in an order of its own (a rotation started at random), so
 * that N gateways spread over them, and stays on the first usable one.
 */
export class Replicas {
  readonly sources: ReadSource[];
  private readonly order: number[];
  private readonly primary: pg.Pool;
  private readonly pools: pg.Pool[];
  private readonly states: ReplicaState[];
  /** The primary's WAL positions, each with when it was first seen, oldest first. */
  private samples: { at: number; lsn: bigint }[] = [];
  /** When the primary's position was last read, and when first. */
  private primaryAt = 0;
  private firstPrimaryAt = 0;
  /** Per replica, when a read last failed on it (a check begun before does not undo that). */
  private readonly failedAt: number[];
  private readonly maxSamples: number;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  /** Called when a replica becomes usable or stops being so (the gateway logs it). */
  onChange: ((state: ReplicaState) => void) | null = null;

  constructor(
    primaryUrl: string,
    urls: readonly string[],
    private readonly options: ReplicaOptions,
    start = Math.floor(Math.random() * Math.max(1, urls.length)),
  ) {
    const names = sourceNames(urls);
    this.sources = urls.map((url, i) => ({ name: names[i], role: "replica", url }));
    this.order = urls.map((_, i) => (start + i) % urls.length);
    const pool = (url: string) => {
      const pg = pgModule();
      const p = new pg.Pool({
        connectionString: url,
        max: 1,
        ...poolTimeouts({
          databaseConnectMs: Math.min(
            options.timeouts.databaseConnectMs,
            Math.max(2000, options.checkMs * 2),
          ),
          databaseStatementMs: Math.min(
            options.timeouts.databaseStatementMs,
            Math.max(2000, options.checkMs * 2),
          ),
        }),
        types: {
          getTypeParser: ((oid: number, format?: "text" | "binary") =>
            oid === 1114 ? utc : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
        },
      });
      p.on("error", () => {});
      return p;
    };
    this.failedAt = urls.map(() => 0);
    this.primary = pool(primaryUrl);
    this.pools = urls.map(pool);
    this.states = this.sources.map((source) => ({
      source,
      up: false,
      lagMs: null,
      lagBytes: null,
      snapshot: null,
      reason: "not checked yet",
      checkedAt: 0,
    }));
    // Enough positions to tell any lag up to the bound, at one per check.
    this.maxSamples = Math.ceil(options.maxLagMs / options.checkMs) * 2 + 10;
  }

  /** Checks now, then every checkMs (the timer keeps no process alive). */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), this.options.checkMs);
    this.timer.unref();
  }

  /** One round of checks (concurrent calls share it). */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async checkAll(): Promise<void> {
    try {
      const { rows } = await this.primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
      const lsn = parseLsn(rows[0].lsn);
      this.primaryAt = Date.now();
      this.firstPrimaryAt ||= this.primaryAt;
      const last = this.samples.at(-1);
      if (!last || lsn > last.lsn) {
        this.samples.push({ at: Date.now(), lsn });
        if (this.samples.length > this.maxSamples) this.samples.shift();
      }
    } catch {
      // The primary did not answer: lags are measured against the positions already seen.
    }
    await Promise.all(this.pools.map((pool, i) => this.checkOne(pool, i)));
  }

  private async checkOne(pool: pg.Pool, i: number): Promise<void> {
    const before = this.usable(i);
    const state = this.states[i];
    const started = Date.now();
    try {
      const { rows } = await pool.query<{ standby: boolean; replayed: string | null }>(
        "SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed",
      );
      const [{ standby, replayed }] = rows;
      let snapshot: SnapshotRow | null = null;
      try {
        const [r] = (
          await pool.query<RawSnapshotRow>(
            `SELECT * FROM "storegraph".snapshot WHERE status = 'ready' ORDER BY version DESC LIMIT 1`,
          )
        ).rows;
        snapshot = r ? toSnapshotRow(r) : null;
      } catch (e) {
        // 42P01/3F000: the registry has not reached this replica yet (the primary's first start).
        if (!["42P01", "3F000"].includes((e as { code?: string }).code ?? "")) throw e;
      }
      const now = Date.now();
      // A read that failed while this check ran wins: the replica is checked again next time.
      if (this.failedAt[i] >= started) return;
      Object.assign(state, { up: true, snapshot, checkedAt: now, reason: null });
      if (!standby || replayed === null) {
        Object.assign(state, {
          lagMs: null,
          lagBytes: null,
          reason: "not a standby (pg_is_in_recovery() is false)",
        });
      } else {
        const lag = this.lagOf(parseLsn(replayed), now);
        state.lagMs = lag === "unknown" ? null : (lag?.ms ?? null);
        state.lagBytes = lag === "unknown" ? null : (lag?.bytes ?? null);
        if (lag === "unknown") {
          state.reason =
            "its replay is behind the first primary position this gateway read, by an unknown time";
        } else if (state.lagMs !== null && state.lagMs > this.options.maxLagMs) {
          state.reason = `its replay lags the primary by ${state.lagMs} ms, more than REPLICA_MAX_LAG_MS (${this.options.maxLagMs})`;
        } else if (!snapshot) {
          state.reason = "no snapshot is ready on it yet";
        }
      }
    } catch (e) {
      Object.assign(state, {
        up: false,
        checkedAt: Date.now(),
        reason: `it does not answer: ${(e as Error).message}`,
      });
    }
    if (before !== this.usable(i)) this.onChange?.(state);
  }

  /**
   * Null: not known, and no reason to distrust the replica (the primary has not answered for a
   * while: its positions are stale, and a replica cannot replay what the primary never sent).
   * "unknown": behind the oldest position kept, since before this gateway could tell.
   */
  private lagOf(replayed: bigint, now: number): { ms: number; bytes: number } | "unknown" | null {
    const last = this.samples.at(-1);
    if (!last || now - this.primaryAt > 3 * this.options.checkMs) return null;
    if (replayed >= last.lsn) return { ms: 0, bytes: 0 };
    const since = this.samples.find((s) => s.lsn > replayed) ?? this.samples[0];
    // Behind the first position read: lagging for longer than we have watched. Past the bound
    // once we have watched for longer than it; unknown until then.
    if (since === this.samples[0] && now - this.firstPrimaryAt <= this.options.maxLagMs) return "unknown";
    return { ms: now - since.at, bytes: Number(last.lsn - replayed) };
  }

  private usable(i: number): boolean {
    return this.states[i].up && this.states[i].reason === null;
  }

  /** The replicas reads may go to now, with the snapshot each has replayed, in this gateway's order. */
  candidates(): { source: ReadSource; snapshot: SnapshotRow }[] {
    return this.order
      .filter((i) => this.usable(i))
      .map((i) => ({ source: this.sources[i], snapshot: this.states[i].snapshot as SnapshotRow }));
  }

  /** A read failed on this replica: it is not used until a check finds it answering again. */
  failed(name: string, error: Error): void {
    const i = this.sources.findIndex((s) => s.name === name);
    if (i < 0) return;
    this.failedAt[i] = Date.now();
    if (!this.states[i].up) return;
    Object.assign(this.states[i], { up: false, reason: `a read failed on it: ${error.message}` });
    this.onChange?.(this.states[i]);
  }

  /** Each replica's last check, in the order given in DATABASE_REPLICA_URLS. */
  report(): ReplicaState[] {
    return this.states.map((s) => ({ ...s }));
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.checking?.catch(() => {});
    await Promise.all([this.primary, ...this.pools].map((p) => p.end()));
  }
}
