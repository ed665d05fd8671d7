import type { ChangeRow } from "../db/change-feed.ts";
import { type NewDelivery, WEBHOOK_LIMITS, type WebhookRow, type Webhooks } from "../db/webhooks.ts";
import type { ChangeFilter } from "../query/changes.ts";
import { type FeedSource, readFeed, WAITED } from "../query/feed.ts";
import { CHANGES_TYPE, changesBody } from "./payload.ts";

/** Deliveries kept in one transaction (with the cursor they move the webhook to). */
const DELIVERIES_A_TRANSACTION = 10;

/**
 * How a gateway reads a webhook's events (src/app.ts gives it): the feed's reader over the
 * snapshot it serves (src/query/feed.ts) with the webhook's account, the webhook's change filter
 * as the feed's readers take it (its kinds, list and Domain filter, coerced by the schema), and a
 * change's text as GET /changes writes it by default.
 */
export interface WebhookFeed {
  source(account: string): FeedSource;
  filterOf(hook: WebhookRow): ChangeFilter;
  write(change: ChangeRow): string;
}

/**
 * Makes the webhook's events after its cursor into deliveries of at most 100, up to the end of the
 * feed this gateway serves: the feed's pages read with the webhook's filter as its account, each
 * change written as GET /changes writes it, kept ten deliveries at a time with the cursor they
 * bring the webhook to (Webhooks.advance). Another gateway doing the same for the same webhook
 * keeps its deliveries first, and this one stops. Resolves with the deliveries kept.
 */
export async function enqueueWebhook(
  feed: WebhookFeed,
  webhooks: Webhooks,
  hook: WebhookRow,
): Promise<number> {
  const pages = readFeed(feed.source(hook.account), {
    filter: feed.filterOf(hook),
    after: hook.cursorText,
    pageSize: () => WEBHOOK_LIMITS.events,
  });
  // Where the webhook stands: the internal order of its last event (compared by the deliverer, and
  // moved only from what this read began at) and that event's cursor (read after, and shown).
  let cursor = { order: hook.cursor, text: hook.cursorText };
  let kept = 0;
  let made: NewDelivery[] = [];
  let changes: string[] = [];
  let last = { order: 0, text: "" };
  let snapshot = 0;
  /** Where the feed was read to: the cursor the deliveries made so far bring the webhook to. */
  let at = cursor;
  const close = () => {
    if (changes.length)
      made.push({
        type: CHANGES_TYPE,
        body: changesBody(hook.id, snapshot, changes, last.text),
        events: changes.length,
        cursor: last,
      });
    changes = [];
  };
  /** Keeps what was made (false: another gateway kept these events first). */
  const keep = async (): Promise<boolean> => {
    close();
    if (at.text === cursor.text) return true;
    if (!(await webhooks.advance(hook.id, cursor.order, at, made))) return false;
    kept += made.length;
    cursor = at;
    made = [];
    return true;
  };
  try {
    for await (const page of pages) {
      if (page === WAITED) continue;
      snapshot = page.version;
      for (const change of page.nodes) {
        changes.push(feed.write(change));
        last = { order: change.order, text: change.id };
        if (changes.length >= WEBHOOK_LIMITS.events) close();
      }
      // A page that moved on without an event of the reader's (the end of the feed after pruning)
      // moves the cursor's text alone.
      at = { order: page.endOrder ?? at.order, text: page.endCursor };
      if (made.length >= DELIVERIES_A_TRANSACTION && !(await keep())) return kept;
    }
    await keep();
    return kept;
  } finally {
    await pages.return(undefined);
  }
}
