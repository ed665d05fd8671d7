import { randomBytes } from "node:crypto";

/*
 * What src/db/webhooks.ts keeps and answers: a webhook's and a delivery's rows, read from the
 * meta database's columns, the limits, and the errors a request is answered with.
 */

/** Which delivery targets are allowed (src/webhooks/send.ts checks them). */
export interface TargetPolicy {
  /** Private, loopback and link-local addresses are allowed (--allow-private-webhook-targets). */
  allowPrivate: boolean;
  /** Only https (the gateway requires HTTPS: REQUIRE_HTTPS, or NODE_ENV=production). */
  requireHttps: boolean;
}

export const WEBHOOK_LIMITS = {
  /** Webhooks an account holds. */
  webhooks: 25,
  /** Events in one delivery. */
  events: 100,
  /** The longest url. */
  url: 2048,
} as const;

export interface WebhookRow {
  id: string;
  account: string;
  url: string;
  /** The change kinds it takes; null: every kind. */
  kinds: string[] | null;
  /** One of the account's lists: only its Domains' events. */
  list: string | null;
  /** GraphQL's DomainFilter, as given. */
  filter: Record<string, unknown> | null;
  /** One of the account's segments: only its events (segment_entered, segment_left). */
  segment: string | null;
  /** The feed's internal order of the last event made into deliveries (never shown). */
  cursor: number;
  /** That event's cursor as the account reads the feed (src/db/change-feed.ts, FeedCursor). */
  cursorText: string;
  /** Why its events could not be read at the last load (its list was deleted), or null. */
  error: string | null;
  createdAt: Date;
}

export type DeliveryStatus = "pending" | "succeeded" | "failed";

export interface DeliveryRow {
  id: string;
  webhookId: string;
  /** `changes.published`, or `webhook.test`. */
  type: string;
  events: number;
  /** Its last event's cursor as the account reads the feed (null for a test). */
  cursorText: string | null;
  status: DeliveryStatus;
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  /** The HTTP status of the last attempt's answer, if one came. */
  responseStatus: number | null;
  /** What went wrong at the last attempt. */
  error: string | null;
}

/** A delivery claimed for an attempt: what to send, where, and the claim its outcome is written under. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  body: string;
  attempts: number;
  claim: string;
  url: string;
  secret: string;
}

/** What a made delivery holds. */
export interface NewDelivery {
  type: string;
  body: string;
  events: number;
  /** Its last event: its internal order, and its cursor text (null for a test). */
  cursor: { order: number; text: string } | null;
}

/** A request a webhook cannot take: `argument` names what was wrong. */
export class WebhookError extends Error {
  override name = "WebhookError";
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(message);
  }
}

export class WebhookNotFoundError extends Error {
  override name = "WebhookNotFoundError";
  constructor(
    readonly what: "webhook" | "delivery",
    id: string,
  ) {
    super(
      what === "webhook"
        ? `no webhook "${id}" (GET /webhooks shows this key's account's webhooks)`
        : `no delivery "${id}" of this webhook (GET /webhooks/{id}/deliveries shows them)`,
    );
  }
}

export const id = (prefix: string) => `${prefix}_${randomBytes(15).toString("base64url")}`;
/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

export const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const time = (v: unknown) => (v === null || v === undefined ? null : new Date(Number(v)));
const json = <T>(v: unknown): T | null =>
  v === null || v === undefined ? null : (JSON.parse(String(v)) as T);

export const webhookOf = (r: Record<string, unknown>): WebhookRow => ({
  id: String(r.id),
  account: String(r.account),
  url: String(r.url),
  kinds: json<string[]>(r.kinds),
  list: r.list === null ? null : String(r.list),
  filter: json<Record<string, unknown>>(r.filter),
  segment: r.segment == null ? null : String(r.segment),
  cursor: Number(r.cursor),
  // Kept before cursors were places: the id was the cursor.
  cursorText: r.cursor_text == null ? String(r.cursor) : String(r.cursor_text),
  error: r.error === null ? null : String(r.error),
  createdAt: new Date(Number(r.created_at)),
});

export const DELIVERY_COLUMNS = `id, webhook_id, type, events, cursor, cursor_text, status, attempts, created_at, next_attempt_at,
  last_attempt_at, response_status, error`;

export const deliveryOf = (r: Record<string, unknown>): DeliveryRow => ({
  id: String(r.id),
  webhookId: String(r.webhook_id),
  type: String(r.type),
  events: Number(r.events),
  cursorText: r.cursor_text != null ? String(r.cursor_text) : r.cursor == null ? null : String(r.cursor),
  status: String(r.status) as DeliveryStatus,
  attempts: Number(r.attempts),
  createdAt: new Date(Number(r.created_at)),
  nextAttemptAt: time(r.next_attempt_at),
  lastAttemptAt: time(r.last_attempt_at),
  responseStatus: num(r.response_status),
  error: r.error === null ? null : String(r.error),
});

export const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");
