import type { TargetPolicy } from "./send.ts";
import type { Webhooks } from "./store.ts";

/** What a request reads and changes webhooks with (GraphQL and REST alike: src/schema/webhooks.ts). */
export interface WebhookService {
  webhooks: Webhooks;
  /**
   * This gateway's deliverer (src/webhooks/deliverer.ts), which attempts a delivery asked for at
   * once; null where WEBHOOK_DELIVERY=off (another gateway delivers it soon).
   */
  deliverer: { attemptNow(webhookId: string, deliveryId: string): Promise<boolean> } | null;
  policy: TargetPolicy;
  /**
   * How long a test or retry asked for waits for a delivering gateway's attempt when this one did
   * not make it (another claimed it first, or WEBHOOK_DELIVERY=off): an attempt's timeout and a poll.
   */
  attemptWaitMs: number;
}
