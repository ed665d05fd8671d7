import type { ApiKey } from "../auth/keys.ts";
import { requestAs } from "../auth/plugin.ts";
import { type NewDelivery, WEBHOOK_LIMITS, type WebhookRow, type Webhooks } from "../db/webhooks.ts";
import { POSITION, readChanges, withPosition } from "../rest/change-pages.ts";
import { cachedDocument } from "../rest/document.ts";
import { legacyWriter, toSelectionSet } from "../rest/fields.ts";
import type { ExecuteGraphQL } from "../rest/handler.ts";
import { Options } from "../rest/options.ts";
import { documentOf, selectionOf } from "../rest/route.ts";
import { listChanges } from "../rest/routes.ts";
import { CHANGES_TYPE, changeFilterOf, changesBody } from "./payload.ts";

/** Deliveries kept in one transaction (with the cursor they move the webhook to). */
const DELIVERIES_A_TRANSACTION = 10;

/** A change as GET /changes writes it by default, with its feed position. */
const SELECTION = selectionOf(listChanges, Options.fromQuery(new URLSearchParams()));
const write = legacyWriter(SELECTION);
const query = () =>
  cachedDocument("webhook:changes", () =>
    documentOf(listChanges, SELECTION, withPosition(toSelectionSet(SELECTION))),
  );

/** The key a webhook reads the feed with: its account's, drawing on no budget. */
const keyOf = (hook: WebhookRow): ApiKey => ({
  id: `webhook:${hook.id}`,
  name: `webhook ${hook.id}`,
  plan: "enterprise",
  prefix: "",
  createdAt: hook.createdAt,
  lastUsedAt: null,
  revokedAt: null,
  account: hook.account,
});

/**
 * Makes the webhook's events after its cursor into deliveries of at most 100, up to the end of the
 * feed this gateway serves: pages of `changes` read with its filter as its account (GET /changes'
 * own query, the changes written as it writes them), kept ten deliveries at a time with the cursor
 * they bring the webhook to (Webhooks.advance). Another gateway doing the same for the same
 * webhook keeps its deliveries first, and this one stops. Resolves with the deliveries kept.
 */
export async function enqueueWebhook(
  execute: ExecuteGraphQL,
  webhooks: Webhooks,
  hook: WebhookRow,
): Promise<number> {
  const request = requestAs(keyOf(hook));
  const filter = changeFilterOf(hook);
  let cursor = hook.cursor;
  let kept = 0;
  for (;;) {
    const made: NewDelivery[] = [];
    let changes: string[] = [];
    let last = "";
    let at = cursor;
    let more = true;
    let snapshot = 0;
    const close = () => {
      if (changes.length) {
        made.push({
          type: CHANGES_TYPE,
          body: changesBody(hook.id, snapshot, changes, last),
          events: changes.length,
          cursor: Number(last),
        });
      }
      changes = [];
    };
    while (more && made.length < DELIVERIES_A_TRANSACTION) {
      const read = await readChanges(
        { execute },
        request,
        query(),
        { filter, first: WEBHOOK_LIMITS.events - changes.length, after: String(at) },
        (node, shared) => `${write(node, shared)}\n${node[POSITION]}\n`,
      );
      snapshot = read.version;
      const lines = read.text.split("\n");
      for (let i = 0; i + 1 < lines.length; i += 2) {
        changes.push(lines[i] as string);
        last = lines[i + 1] as string;
      }
      at = Number(read.page.pageInfo.endCursor);
      more = read.page.pageInfo.hasNextPage;
      if (changes.length >= WEBHOOK_LIMITS.events) close();
    }
    close();
    if (at === cursor) return kept;
    if (!(await webhooks.advance(hook.id, cursor, at, made))) return kept;
    kept += made.length;
    cursor = at;
    if (!more) return kept;
  }
}
