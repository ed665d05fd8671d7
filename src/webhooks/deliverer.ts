import type { WebhookConfig } from "../config.ts";
import type { FeedWatch } from "../db/feed-watch.ts";
import type { ClaimedDelivery, Webhooks } from "../db/webhooks.ts";
import { isApiError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { enqueueWebhook, type WebhookFeed } from "./enqueue.ts";
import { post, sign } from "./send.ts";

/** How deliveries are retried (docs/decisions.md, "Webhooks"); tests make it fast. */
export interface RetrySchedule {
  /** The wait after the first failed attempt; each next one is 3 times longer, up to `capMs`. */
  baseMs: number;
  capMs: number;
  /** Attempts in all: a delivery whose last attempt fails is failed. */
  attempts: number;
}

/**
 * 10 s, 30 s, 1.5 min, 4.5 min, 13.5 min, 40 min, 2 h, 6 h, then 8 h twice (each ±20%): 11
 * attempts over about 25 hours.
 */
export const RETRY_SCHEDULE: RetrySchedule = { baseMs: 10_000, capMs: 8 * 3_600_000, attempts: 11 };

/** The wait before attempt `attempts + 1`, jittered by ±20% so that receivers back up do not all come back at once. */
export function backoff(schedule: RetrySchedule, attempts: number, random = Math.random()): number {
  const plain = Math.min(schedule.baseMs * 3 ** Math.max(0, attempts - 1), schedule.capMs);
  return Math.round(plain * (0.8 + 0.4 * random));
}

/** Attempts in flight to one webhook from one gateway: a receiver that is slow or down holds only these. */
const PER_WEBHOOK = 4;
/** How often a gateway looks for webhooks whose deliveries were left unmade (one small statement). */
const ENQUEUE_RECHECK_MS = 10_000;
/** The least time between two looks for the webhooks with due deliveries. */
const SCAN_MS = 100;
/** Settled deliveries are kept this long, then pruned. */
const KEEP_MS = 30 * 86_400_000;

export interface DelivererDeps {
  webhooks: Webhooks;
  /** How it reads a webhook's events (src/app.ts gives it: src/webhooks/enqueue.ts). */
  feed: WebhookFeed;
  watch: Pick<FeedWatch, "next">;
  /** The version of the snapshot this gateway serves, and the end of its feed. */
  served: () => Promise<{ version: number; end: number } | null>;
  config: WebhookConfig;
  logger: Logger;
  schedule?: RetrySchedule;
  /** How often due deliveries are looked for (default 1 s; an attempt that ends looks at once). */
  pollMs?: number;
  /** A claim's lease (default: the attempt's timeout and 20 s). */
  leaseMs?: number;
  /** Counts attempts by outcome (src/ops/metrics.ts). */
  counted?: (outcome: "succeeded" | "retried" | "failed") => void;
}

/**
 * One gateway's webhook deliveries (docs/decisions.md, "Webhooks"). After each load it serves, it
 * makes every webhook's new events into deliveries (enqueueWebhook); then, every `pollMs` and
 * whenever an attempt ends, it claims due deliveries, each webhook in turn (at most PER_WEBHOOK in
 * flight to one, `concurrency` in all), and attempts them: a 2xx ends a delivery, anything else
 * makes it due again after backoff(), and the last attempt's failure marks it failed. Several
 * gateways share the work through the table's claims.
 */
export class WebhookDeliverer {
  private readonly inFlight = new Map<string, number>();
  private total = 0;
  private pumping = false;
  /** Webhooks with due deliveries, in turn (pump). */
  private rotation: string[] = [];
  private scanWanted = false;
  private scannedAt = 0;
  private again = false;
  private readonly stopped = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private enqueuing: Promise<void> = Promise.resolve();
  private version = 0;
  private prunedAt = 0;
  private readonly schedule: RetrySchedule;
  private readonly attempts = new Set<Promise<void>>();

  constructor(private readonly deps: DelivererDeps) {
    this.schedule = deps.schedule ?? RETRY_SCHEDULE;
  }

  /** Lease of a claim: an attempt's timeout and a margin. A gateway killed mid-attempt leaves it due after this. */
  get leaseMs(): number {
    return this.deps.leaseMs ?? this.deps.config.timeoutMs + 20_000;
  }

  start(): void {
    if (this.timer || this.stopped.signal.aborted) return;
    this.timer = setInterval(() => this.pump(true), this.deps.pollMs ?? 1000);
    this.timer.unref();
    void this.follow();
    this.pump(true);
  }

  /** Stops claiming; attempts in flight end (their outcomes are written) before it resolves. */
  async stop(): Promise<void> {
    this.stopped.abort();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.enqueuing.catch(() => {});
    await Promise.allSettled([...this.attempts]);
  }

  /** Makes deliveries of every webhook behind the served feed's end (after a load, and at start). */
  enqueue(): Promise<void> {
    const run = async () => {
      const served = await this.deps.served();
      if (!served) return;
      this.version = Math.max(this.version, served.version);
      for (const hook of await this.deps.webhooks.behind(served.end)) {
        if (this.stopped.signal.aborted) return;
        try {
          await enqueueWebhook(this.deps.feed, this.deps.webhooks, hook);
          if (hook.error) await this.deps.webhooks.setError(hook.id, null);
        } catch (e) {
          // Its filter no longer reads (its list was deleted): said on the webhook, and tried again
          // after the next load. Anything else is the database's: tried again at the next load.
          if (isApiError(e)) await this.deps.webhooks.setError(hook.id, (e as Error).message);
          else this.deps.logger.warn({ err: e, webhook: hook.id }, "webhook deliveries could not be made");
        }
      }
      this.pump(true);
    };
    this.enqueuing = this.enqueuing.then(run, run);
    return this.enqueuing;
  }

  /**
   * Waits for each newer snapshot this gateway serves, and makes its deliveries; and every
   * ENQUEUE_RECHECK_MS looks again for webhooks left behind (another gateway that was making a
   * webhook's deliveries died between two of its transactions: this one goes on from its cursor).
   */
  private async follow(): Promise<void> {
    const enqueue = () =>
      this.enqueue().catch((e) => this.deps.logger.warn({ err: e }, "webhook deliveries could not be made"));
    await enqueue();
    while (!this.stopped.signal.aborted) {
      const how = await this.deps.watch.next(this.version, ENQUEUE_RECHECK_MS, this.stopped.signal);
      if (how === "aborted") return;
      await enqueue();
    }
  }

  /**
   * Claims and attempts what is due, as far as there is room: the webhooks with due deliveries
   * take turns (`rotation`), a delivery each turn, so that one webhook's backlog does not keep the
   * others waiting. A turn is one indexed statement (Webhooks.claim); the webhooks with due
   * deliveries are looked for again (Webhooks.dueWebhooks, which reads every due row) only when
   * the rotation ran dry, or every `pollMs` (`scan`), at most every SCAN_MS.
   */
  pump(scan = false): void {
    if (this.stopped.signal.aborted) return;
    if (scan) this.scanWanted = true;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.fill()
      .catch((e) => this.deps.logger.warn({ err: e }, "webhook deliveries could not be claimed"))
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.pump();
        }
      });
  }

  private async fill(): Promise<void> {
    const now = Date.now();
    if (now - this.prunedAt > 3_600_000) {
      this.prunedAt = now;
      await this.deps.webhooks.prune(now - KEEP_MS);
    }
    const room = () => this.deps.config.concurrency - this.total;
    if (room() <= 0) return;
    if ((this.scanWanted || !this.rotation.length) && now - this.scannedAt >= SCAN_MS) {
      this.scanWanted = false;
      this.scannedAt = now;
      const due = await this.deps.webhooks.dueWebhooks(now, 100);
      const known = new Set(this.rotation);
      for (const w of due) if (!known.has(w)) this.rotation.push(w);
    }
    // Turns until there is no room, or every webhook in the rotation is at its own limit.
    let waiting = 0;
    while (room() > 0 && this.rotation.length > waiting) {
      const webhookId = this.rotation.shift() as string;
      if ((this.inFlight.get(webhookId) ?? 0) >= PER_WEBHOOK) {
        this.rotation.push(webhookId);
        waiting++;
        continue;
      }
      const [c] = await this.deps.webhooks.claim(webhookId, Date.now(), this.leaseMs, 1);
      // Nothing due (or another gateway took it): out of the rotation until a scan finds it again.
      if (!c) continue;
      this.rotation.push(webhookId);
      waiting = 0;
      this.track(this.attempt(c), c.webhookId);
    }
  }

  /** Claims one delivery and attempts it now (a test, a retry asked for): false when it is not due or is claimed. */
  async attemptNow(webhookId: string, deliveryId: string): Promise<boolean> {
    const [c] = await this.deps.webhooks.claim(webhookId, Date.now(), this.leaseMs, 1, deliveryId);
    if (!c) return false;
    await this.track(this.attempt(c), webhookId);
    return true;
  }

  private track(attempt: Promise<void>, webhookId: string): Promise<void> {
    this.total++;
    this.inFlight.set(webhookId, (this.inFlight.get(webhookId) ?? 0) + 1);
    const done = attempt.finally(() => {
      this.total--;
      const left = (this.inFlight.get(webhookId) ?? 1) - 1;
      if (left) this.inFlight.set(webhookId, left);
      else this.inFlight.delete(webhookId);
      this.attempts.delete(done);
      this.pump();
    });
    this.attempts.add(done);
    return done;
  }

  /** One attempt of a claimed delivery, and its outcome written under the claim. */
  private async attempt(c: ClaimedDelivery): Promise<void> {
    const timestamp = Math.floor(Date.now() / 1000);
    let responseStatus: number | null = null;
    let error: string | null = null;
    try {
      const answer = await post(
        c.url,
        {
          "content-type": "application/json",
          "user-agent": "storegraph-webhooks/1",
          "webhook-id": c.id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": sign(c.secret, c.id, timestamp, c.body),
        },
        c.body,
        { timeoutMs: this.deps.config.timeoutMs, allowPrivate: this.deps.config.allowPrivateTargets },
      );
      responseStatus = answer.status;
      if (answer.status < 200 || answer.status > 299)
        error =
          answer.status >= 300 && answer.status < 400
            ? `answered ${answer.status}: redirects are not followed`
            : `answered ${answer.status}`;
    } catch (e) {
      error = (e as Error).message;
    }
    const at = Date.now();
    const ok = error === null;
    const last = c.attempts >= this.schedule.attempts;
    const status = ok ? "succeeded" : last ? "failed" : "pending";
    this.deps.counted?.(ok ? "succeeded" : last ? "failed" : "retried");
    try {
      await this.deps.webhooks.settle(c, {
        status,
        next: status === "pending" ? at + backoff(this.schedule, c.attempts) : null,
        at,
        responseStatus,
        error,
      });
    } catch (e) {
      // Unwritten, the claim's lease makes it due again: attempted once more, never lost.
      this.deps.logger.warn({ err: e, delivery: c.id }, "a webhook attempt's outcome could not be written");
    }
  }
}
