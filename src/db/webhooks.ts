import { randomBytes } from "node:crypto";
import type { MetaQuery, SnapshotStore } from "./store.ts";
import {
  type ClaimedDelivery,
  DELIVERY_COLUMNS,
  type DeliveryRow,
  type DeliveryStatus,
  deliveryOf,
  id,
  marks,
  type NewDelivery,
  newSecret,
  WEBHOOK_LIMITS,
  WebhookError,
  WebhookNotFoundError,
  type WebhookRow,
  webhookOf,
} from "./webhook-rows.ts";

/**
 * An account's webhooks and their deliveries, in the meta database (docs/decisions.md,
 * "Webhooks"; migration 0008). A webhook subscribes to the change feed's events of its kinds, list
 * and Domain filter; after each load its new events are made into deliveries (src/webhooks/enqueue.ts),
 * each a signed POST of at most 100 events, kept here before its first attempt and attempted until
 * a 2xx or its last attempt (src/webhooks/deliverer.ts).
 *
 * The queue is this table, not a job queue beside it: a delivery is due while `next_attempt_at` is
 * set, and is claimed by moving that on by a lease and marking it with a claim token, in one
 * statement (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so that gateways claim different rows without
 * waiting on each other). A gateway killed mid-attempt leaves its claims due again when their lease
 * ends; an attempt's outcome is written only under its own claim, so a claim that outlived its lease
 * and was taken again cannot overwrite the newer one.
 */
export {
  type ClaimedDelivery,
  type DeliveryRow,
  type DeliveryStatus,
  type NewDelivery,
  type TargetPolicy,
  WEBHOOK_LIMITS,
  WebhookError,
  WebhookNotFoundError,
  type WebhookRow,
} from "./webhook-rows.ts";

export type WebhookStore = Pick<SnapshotStore, "kind" | "metaQuery" | "metaTransaction">;

export class Webhooks {
  /** The url and secret of webhooks whose deliveries this gateway claimed. */
  private readonly targets = new Map<string, { url: string; secret: string }>();

  constructor(private readonly store: WebhookStore) {}

  /**
   * Makes a webhook that takes the events after `cursor` (its text, and the internal order of its
   * event); its secret is answered here only.
   */
  async create(
    account: string,
    spec: {
      url: string;
      kinds: string[] | null;
      list: string | null;
      filter: Record<string, unknown> | null;
      segment?: string | null;
    },
    cursor: { order: number; text: string },
  ): Promise<{ webhook: WebhookRow; secret: string }> {
    return this.store.metaTransaction(
      async (q) => {
        const [held] = await q("SELECT count(*) AS n FROM {meta}.webhook WHERE account = ?", [account]);
        if (Number(held?.n ?? 0) >= WEBHOOK_LIMITS.webhooks) {
          throw new WebhookError(
            "url",
            `the account holds ${WEBHOOK_LIMITS.webhooks} webhooks, the most it may: delete one (DELETE /webhooks/{id}) first`,
          );
        }
        const row = { id: id("wh"), secret: newSecret(), now: Date.now() };
        await q(
          `INSERT INTO {meta}.webhook (id, account, url, kinds, list, filter, segment, secret, cursor, cursor_text, error, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
          [
            row.id,
            account,
            spec.url,
            spec.kinds ? JSON.stringify(spec.kinds) : null,
            spec.list,
            spec.filter ? JSON.stringify(spec.filter) : null,
            spec.segment ?? null,
            row.secret,
            cursor.order,
            cursor.text,
            row.now,
          ],
        );
        const [made] = await q("SELECT * FROM {meta}.webhook WHERE id = ?", [row.id]);
        return { webhook: webhookOf(made as Record<string, unknown>), secret: row.secret };
      },
      { lock: `webhooks:${account}` },
    );
  }

  /** The account's webhooks, oldest first. */
  async all(account: string): Promise<WebhookRow[]> {
    const rows = await this.store.metaQuery(
      "SELECT * FROM {meta}.webhook WHERE account = ? ORDER BY created_at, id",
      [account],
    );
    return rows.map(webhookOf);
  }

  /** The account's webhook of this id; throws WebhookNotFoundError when it has none. */
  async get(account: string, webhookId: string): Promise<WebhookRow> {
    const [row] = await this.store.metaQuery("SELECT * FROM {meta}.webhook WHERE id = ? AND account = ?", [
      webhookId,
      account,
    ]);
    if (!row) throw new WebhookNotFoundError("webhook", webhookId);
    return webhookOf(row);
  }

  /** Deletes the webhook and its deliveries (none is attempted after); the webhook as it was. */
  async delete(account: string, webhookId: string): Promise<WebhookRow> {
    return this.store.metaTransaction(
      async (q) => {
        const [row] = await q("SELECT * FROM {meta}.webhook WHERE id = ? AND account = ?", [
          webhookId,
          account,
        ]);
        if (!row) throw new WebhookNotFoundError("webhook", webhookId);
        await q("DELETE FROM {meta}.webhook_delivery WHERE webhook_id = ?", [webhookId]);
        await q("DELETE FROM {meta}.webhook WHERE id = ?", [webhookId]);
        return webhookOf(row);
      },
      { lock: `webhooks:${account}` },
    );
  }

  /** Every account's webhooks whose events end before `end` (a load's), to make their deliveries. */
  async behind(end: number): Promise<WebhookRow[]> {
    const rows = await this.store.metaQuery("SELECT * FROM {meta}.webhook WHERE cursor < ? ORDER BY id", [
      end,
    ]);
    return rows.map(webhookOf);
  }

  /**
   * Moves the webhook's cursor from `from` to `to` and keeps `deliveries`, in one transaction, if
   * its cursor is still `from`: false when another gateway moved it first (its deliveries are
   * theirs, and these are not kept) or the webhook was deleted.
   */
  async advance(
    webhookId: string,
    from: number,
    to: { order: number; text: string },
    deliveries: readonly NewDelivery[],
  ): Promise<boolean> {
    return this.store.metaTransaction(
      async (q) => {
        const moved = await q(
          "UPDATE {meta}.webhook SET cursor = ?, cursor_text = ?, error = NULL WHERE id = ? AND cursor = ? RETURNING id",
          [to.order, to.text, webhookId, from],
        );
        if (!moved.length) return false;
        await insertDeliveries(q, webhookId, deliveries);
        return true;
      },
      { lock: `webhook:${webhookId}` },
    );
  }

  /** Says why the webhook's events could not be read (null: they were). */
  async setError(webhookId: string, error: string | null): Promise<void> {
    await this.store.metaQuery("UPDATE {meta}.webhook SET error = ? WHERE id = ?", [error, webhookId]);
  }

  /** Keeps one delivery outside the feed (a test), due now; its id. */
  async add(webhookId: string, delivery: NewDelivery): Promise<string> {
    return this.store.metaTransaction((q) =>
      insertDeliveries(q, webhookId, [delivery]).then(([made]) => made),
    );
  }

  /** A page of the webhook's deliveries, newest first; `after` is the last one of the page before. */
  async deliveries(
    webhookId: string,
    options: { status?: DeliveryStatus | null; first: number; after?: string | null },
  ): Promise<{ nodes: DeliveryRow[]; hasNextPage: boolean }> {
    const where = ["webhook_id = ?"];
    const params: unknown[] = [webhookId];
    if (options.status) {
      where.push("status = ?");
      params.push(options.status);
    }
    if (options.after) {
      const [last] = await this.store.metaQuery(
        "SELECT created_at FROM {meta}.webhook_delivery WHERE id = ? AND webhook_id = ?",
        [options.after, webhookId],
      );
      if (!last) throw new WebhookNotFoundError("delivery", options.after);
      where.push("(created_at < ? OR (created_at = ? AND id < ?))");
      params.push(last.created_at, last.created_at, options.after);
    }
    const rows = await this.store.metaQuery(
      `SELECT ${DELIVERY_COLUMNS} FROM {meta}.webhook_delivery WHERE ${where.join(" AND ")}
       ORDER BY created_at DESC, id DESC LIMIT ?`,
      [...params, options.first + 1],
    );
    return { nodes: rows.slice(0, options.first).map(deliveryOf), hasNextPage: rows.length > options.first };
  }

  async delivery(webhookId: string, deliveryId: string): Promise<DeliveryRow> {
    const [row] = await this.store.metaQuery(
      `SELECT ${DELIVERY_COLUMNS} FROM {meta}.webhook_delivery WHERE id = ? AND webhook_id = ?`,
      [deliveryId, webhookId],
    );
    if (!row) throw new WebhookNotFoundError("delivery", deliveryId);
    return deliveryOf(row);
  }

  /** Makes a delivery due now with its attempts started over (a failed one replayed, or any sent again). */
  async retry(webhookId: string, deliveryId: string): Promise<void> {
    const done = await this.store.metaQuery(
      `UPDATE {meta}.webhook_delivery SET status = 'pending', attempts = 0, next_attempt_at = ?, claim = NULL
       WHERE id = ? AND webhook_id = ? RETURNING id`,
      [Date.now(), deliveryId, webhookId],
    );
    if (!done.length) throw new WebhookNotFoundError("delivery", deliveryId);
  }

  /**
   * The webhooks with deliveries due at `now`, most overdue first (at most `limit`), and how many
   * are due: the deliverer claims from each in turn, so that one webhook's backlog does not keep
   * the others waiting.
   */
  async dueWebhooks(now: number, limit: number): Promise<string[]> {
    const rows = await this.store.metaQuery(
      `SELECT webhook_id, min(next_attempt_at) AS due FROM {meta}.webhook_delivery
       WHERE next_attempt_at <= ? GROUP BY webhook_id ORDER BY due LIMIT ?`,
      [now, limit],
    );
    return rows.map((r) => String(r.webhook_id));
  }

  /**
   * Claims up to `limit` due deliveries of one webhook (or the one delivery `only`) for an attempt:
   * counts the attempt, and moves each on by `leaseMs` under a new claim token. Rows another
   * gateway holds locked are skipped, not waited for.
   */
  async claim(
    webhookId: string,
    now: number,
    leaseMs: number,
    limit: number,
    only?: string,
  ): Promise<ClaimedDelivery[]> {
    const claim = randomBytes(9).toString("base64url");
    const skip = this.store.kind === "postgresql" ? "FOR UPDATE SKIP LOCKED" : "";
    const rows = await this.store.metaQuery(
      `UPDATE {meta}.webhook_delivery SET next_attempt_at = ?, attempts = attempts + 1, claim = ?
       WHERE id IN (SELECT id FROM {meta}.webhook_delivery
         WHERE webhook_id = ? AND next_attempt_at <= ?${only ? " AND id = ?" : ""}
         ORDER BY next_attempt_at, created_at, id LIMIT ? ${skip})
       RETURNING id, webhook_id, body, attempts, claim`,
      [now + leaseMs, claim, webhookId, now, ...(only ? [only] : []), limit],
    );
    if (!rows.length) return [];
    // A webhook's url and secret never change (a deleted one takes its deliveries with it).
    let hook = this.targets.get(webhookId);
    if (!hook) {
      const [row] = await this.store.metaQuery("SELECT url, secret FROM {meta}.webhook WHERE id = ?", [
        webhookId,
      ]);
      if (!row) return [];
      hook = { url: String(row.url), secret: String(row.secret) };
      if (this.targets.size >= 10_000) this.targets.clear();
      this.targets.set(webhookId, hook);
    }
    return rows.map((r) => ({
      id: String(r.id),
      webhookId: String(r.webhook_id),
      body: String(r.body),
      attempts: Number(r.attempts),
      claim: String(r.claim),
      url: hook.url,
      secret: hook.secret,
    }));
  }

  /**
   * Writes an attempt's outcome under its claim: `next` null ends the delivery (succeeded, or failed
   * at its last attempt), else it is due again then. False when the claim was lost (its lease ended
   * and another gateway took it).
   */
  async settle(
    claimed: Pick<ClaimedDelivery, "id" | "claim">,
    outcome: {
      status: DeliveryStatus;
      next: number | null;
      at: number;
      responseStatus: number | null;
      error: string | null;
    },
  ): Promise<boolean> {
    const rows = await this.store.metaQuery(
      `UPDATE {meta}.webhook_delivery SET status = ?, next_attempt_at = ?, last_attempt_at = ?,
         response_status = ?, error = ?, claim = NULL
       WHERE id = ? AND claim = ? RETURNING id`,
      [
        outcome.status,
        outcome.next,
        outcome.at,
        outcome.responseStatus,
        outcome.error,
        claimed.id,
        claimed.claim,
      ],
    );
    return rows.length > 0;
  }

  /** Pending and failed deliveries of each of the webhooks, by webhook id. */
  async counts(webhookIds: readonly string[]): Promise<Map<string, { pending: number; failed: number }>> {
    const out = new Map(webhookIds.map((w) => [w, { pending: 0, failed: 0 }]));
    if (!webhookIds.length) return out;
    const rows = await this.store.metaQuery(
      `SELECT webhook_id, status, count(*) AS n FROM {meta}.webhook_delivery
       WHERE webhook_id IN (${marks(webhookIds.length)}) AND status IN ('pending', 'failed')
       GROUP BY webhook_id, status`,
      [...webhookIds],
    );
    for (const r of rows) {
      const c = out.get(String(r.webhook_id));
      if (c) c[String(r.status) as "pending" | "failed"] = Number(r.n);
    }
    return out;
  }

  /** Deletes settled deliveries made before `before` (kept 30 days: src/webhooks/deliverer.ts). */
  async prune(before: number): Promise<void> {
    await this.store.metaQuery(
      "DELETE FROM {meta}.webhook_delivery WHERE created_at < ? AND next_attempt_at IS NULL",
      [before],
    );
  }
}

async function insertDeliveries(q: MetaQuery, webhookId: string, deliveries: readonly NewDelivery[]) {
  const now = Date.now();
  const ids: string[] = [];
  // Made in feed order: a later one is made a millisecond later at least, so that the deliveries'
  // order by time is the feed's.
  for (let i = 0; i < deliveries.length; i += 50) {
    const batch = deliveries.slice(i, i + 50);
    const values: unknown[] = [];
    for (const [j, d] of batch.entries()) {
      const made = id("msg");
      ids.push(made);
      values.push(
        made,
        webhookId,
        d.type,
        d.body,
        d.events,
        d.cursor?.order ?? null,
        d.cursor?.text ?? null,
        "pending",
        0,
        now + i + j,
        now,
      );
    }
    await q(
      `INSERT INTO {meta}.webhook_delivery (id, webhook_id, type, body, events, cursor, cursor_text, status, attempts,
         created_at, next_attempt_at) VALUES ${batch.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
      values,
    );
  }
  return ids;
}
