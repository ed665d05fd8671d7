import type { Redis } from "ioredis";
import type { Logger } from "../logger.ts";
import type { ApiKey } from "./keys.ts";

/**
 * Each API key's Export Domains and `cursor=all` jobs of the calendar month (UTC), for
 * GET /json/api/v1/usage: counted when one starts (draws on its budget), never for a poll.
 *
 * With Redis (the rate limits' connection, REDIS_URL) every gateway adds to one hash per key and
 * month, `<prefix>:month:<key id>:<YYYY-MM>`, which expires a day after the month ends. Without
 * it, the counts are the process's own, as the budgets are. While Redis does not answer, a
 * gateway keeps what it counts meanwhile in memory, adds it to what Redis says when asked, and
 * hands it to Redis with its next count that gets through: a gateway's count is never lost by an
 * outage it survives, and others see it once Redis is back.
 */
export type CountKind = "exports" | "cursorAllJobs";

export interface MonthCounts {
  /** The month counted, `YYYY-MM` (UTC). */
  month: string;
  exports: number;
  cursorAllJobs: number;
}

const KINDS: readonly CountKind[] = ["exports", "cursorAllJobs"];
/** The hash's fields: its names in REST (snake_case). */
const FIELDS: Record<CountKind, string> = { exports: "exports", cursorAllJobs: "cursor_all_jobs" };
const DAY_MS = 86_400_000;

/** The UTC month of an instant, `YYYY-MM`, and when the next one starts. */
export function monthOf(ms: number): { month: string; endsAt: number } {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth();
  return {
    month: `${String(year).padStart(4, "0")}-${String(month + 1).padStart(2, "0")}`,
    endsAt: Date.UTC(year, month + 1, 1),
  };
}

export class MonthlyCounts {
  /** Counts not in Redis (all of them without Redis), by key id and month. */
  private readonly local = new Map<string, Record<CountKind, number>>();
  /** The month `local` holds: an older month's counts are dropped when a new one starts. */
  private localMonth = "";

  constructor(
    private readonly redis: Redis | null,
    private readonly prefix: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Redis when it answers now: while it does not, commands would only fail (no offline queue). */
  private connected(): Redis | null {
    return this.redis?.status === "ready" ? this.redis : null;
  }

  private bucket(keyId: string, month: string): string {
    return `${this.prefix}:month:${keyId}:${month}`;
  }

  private localOf(keyId: string, month: string): Record<CountKind, number> {
    if (month !== this.localMonth) {
      this.local.clear();
      this.localMonth = month;
    }
    let counts = this.local.get(keyId);
    if (!counts) {
      counts = { exports: 0, cursorAllJobs: 0 };
      this.local.set(keyId, counts);
    }
    return counts;
  }

  /** Counts one more `kind` for the key, this month. Never throws: a count is not worth a request. */
  async add(key: ApiKey, kind: CountKind): Promise<void> {
    const { month, endsAt } = monthOf(this.now());
    const local = this.localOf(key.id, month);
    local[kind]++;
    const redis = this.connected();
    if (!redis) return;
    // Everything this gateway holds for the key goes, and comes off `local` once Redis has it
    // (counts added meanwhile stay for the next time).
    const sent = { ...local };
    const bucket = this.bucket(key.id, month);
    try {
      const multi = redis.multi();
      for (const k of KINDS) if (sent[k]) multi.hincrby(bucket, FIELDS[k], sent[k]);
      const results = await multi.pexpireat(bucket, endsAt + DAY_MS).exec();
      const failed = results?.find(([err]) => err)?.[0];
      if (!results || failed) throw failed ?? new Error("the transaction was discarded");
      for (const k of KINDS) local[k] -= sent[k];
    } catch (err) {
      this.logger.warn(
        { err: (err as Error).message },
        "usage counts: Redis did not take a count; this gateway keeps it until it does",
      );
    }
  }

  /** What each key has read of this month (firstOfMonth), kept here (all of it without Redis). */
  private readonly seen = new Map<string, Set<string>>();
  private seenMonth = "";

  /**
   * Whether `what` (a snapshot file) is read by the key for the first time this month, marked
   * read as it answers: every gateway's marks (a Redis set), or this one's alone while Redis does
   * not answer (then a file read on two gateways counts twice). Never throws.
   */
  async firstOfMonth(key: ApiKey, what: string): Promise<boolean> {
    const { month, endsAt } = monthOf(this.now());
    if (month !== this.seenMonth) {
      this.seen.clear();
      this.seenMonth = month;
    }
    const mine = this.seen.get(key.id) ?? new Set<string>();
    this.seen.set(key.id, mine);
    if (mine.has(what)) return false;
    mine.add(what);
    const redis = this.connected();
    if (!redis) return true;
    const set = `${this.bucket(key.id, month)}:read`;
    try {
      const results = await redis
        .multi()
        .sadd(set, what)
        .pexpireat(set, endsAt + DAY_MS)
        .exec();
      const [err, added] = results?.[0] ?? [new Error("the transaction was discarded"), 0];
      if (err) throw err;
      return Number(added) === 1;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, "usage counts: Redis did not mark a file read");
      return true;
    }
  }

  /** The key's counts this month: Redis's (every gateway's), and what this one holds besides. */
  async read(key: ApiKey): Promise<MonthCounts> {
    const { month } = monthOf(this.now());
    const local = this.localOf(key.id, month);
    const counts: MonthCounts = { month, exports: local.exports, cursorAllJobs: local.cursorAllJobs };
    const redis = this.connected();
    if (!redis) return counts;
    try {
      const values = await redis.hmget(this.bucket(key.id, month), ...KINDS.map((k) => FIELDS[k]));
      KINDS.forEach((k, i) => {
        counts[k] += Number(values[i] ?? 0) || 0;
      });
    } catch {
      // Redis did not answer: this gateway's own counts, rather than none.
    }
    return counts;
  }
}
