import type { WebhookRow } from "../db/webhooks.ts";

/**
 * What a webhook's deliveries carry (docs/decisions.md, "Webhooks"): Standard Webhooks'
 * `{type, timestamp, data}`, `data` holding the changes as GET /changes writes them.
 */

/** The type of a delivery of feed events, and of a test's. */
export const CHANGES_TYPE = "changes.published";
export const TEST_TYPE = "webhook.test";

/** The change feed's filter of a webhook: its kinds, its segment, and its Domain filter with its list. */
export function changeFilterOf(
  hook: Pick<WebhookRow, "kinds" | "list" | "filter"> & { segment?: string | null },
): Record<string, unknown> {
  const domain = { ...(hook.filter ?? {}), ...(hook.list ? { list: hook.list } : {}) };
  return {
    ...(hook.kinds ? { kinds: hook.kinds } : {}),
    ...(hook.segment ? { segment: hook.segment } : {}),
    ...(Object.keys(domain).length ? { domain } : {}),
  };
}

/** A delivery's body (Standard Webhooks' `{type, timestamp, data}`), from its changes' JSON texts. */
export function changesBody(
  hook: string,
  snapshot: number,
  changes: readonly string[],
  cursor: string,
): string {
  return `{"type":"${CHANGES_TYPE}","timestamp":"${new Date().toISOString()}","data":{"webhook":"${hook}","snapshot":${snapshot},"cursor":"${cursor}","count":${changes.length},"changes":[${changes.join(",")}]}}`;
}

export function testBody(hook: string): string {
  return JSON.stringify({ type: TEST_TYPE, timestamp: new Date().toISOString(), data: { webhook: hook } });
}
