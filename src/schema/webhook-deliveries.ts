import type { DeliveryRow, DeliveryStatus } from "../db/webhooks.ts";
import { pageSize } from "../query/page.ts";
import { CHANGES_TYPE, TEST_TYPE, testBody } from "../webhooks/payload.ts";
import { builder, legacy, rateLimited } from "./builder.ts";
import { CHANGE, hooking, webhooksOf } from "./webhooks.ts";

/**
 * A webhook's deliveries (src/schema/webhooks.ts is the webhooks themselves): the WebhookDelivery
 * type and its status, a page of them (webhookDeliveries), and the mutations that attempt one now
 * (testWebhook, retryWebhookDelivery) and answer it after that attempt.
 */

const WebhookDeliveryStatus = builder.enumType("WebhookDeliveryStatus", {
  description:
    "pending: not received yet (due, or waiting for a retry); succeeded: answered 2xx; failed: its last attempt failed.",
  values: {
    pending: { value: "pending" },
    succeeded: { value: "succeeded" },
    failed: { value: "failed" },
  } as const,
});

export const WebhookDelivery = builder.objectRef<DeliveryRow>("WebhookDelivery").implement({
  description:
    "A signed POST of a webhook's changes (or a test). Its id is the webhook-id header, the same at every attempt, so a receiver can drop one it has taken.",
  fields: (t) => ({
    id: t.exposeString("id", legacy("id")),
    webhook: t.exposeString("webhookId", legacy("webhook")),
    type: t.exposeString("type", {
      description: `${CHANGES_TYPE} or ${TEST_TYPE}.`,
      ...legacy("type"),
    }),
    status: t.field({ type: WebhookDeliveryStatus, resolve: (d) => d.status, ...legacy("status") }),
    events: t.exposeInt("events", { description: "The changes it carries.", ...legacy("events") }),
    cursor: t.string({
      nullable: true,
      description: "The feed cursor of its last change (null for a test).",
      resolve: (d) => d.cursorText,
      ...legacy("cursor"),
    }),
    attempts: t.exposeInt("attempts", legacy("attempts")),
    createdAt: t.expose("createdAt", { type: "DateTime", ...legacy("created_at") }),
    lastAttemptAt: t.expose("lastAttemptAt", {
      type: "DateTime",
      nullable: true,
      ...legacy("last_attempt_at"),
    }),
    nextAttemptAt: t.expose("nextAttemptAt", {
      type: "DateTime",
      nullable: true,
      description: "When it is attempted next (null once it succeeded or failed).",
      ...legacy("next_attempt_at"),
    }),
    responseStatus: t.exposeInt("responseStatus", {
      nullable: true,
      description: "The HTTP status the receiver answered at the last attempt.",
      ...legacy("response_status"),
    }),
    error: t.exposeString("error", {
      nullable: true,
      description: "What went wrong at the last attempt.",
      ...legacy("error"),
    }),
  }),
});

const WebhookDeliveryConnection = builder
  .objectRef<{ nodes: DeliveryRow[]; hasNextPage: boolean }>("WebhookDeliveryConnection")
  .implement({
    description: "A page of a webhook's deliveries, newest first.",
    fields: (t) => ({
      nodes: t.field({ type: [WebhookDelivery], resolve: (c) => c.nodes }),
      pageInfo: t.field({
        type: builder
          .objectRef<{ nodes: DeliveryRow[]; hasNextPage: boolean }>("WebhookDeliveryPageInfo")
          .implement({
            fields: (p) => ({
              hasNextPage: p.exposeBoolean("hasNextPage"),
              endCursor: p.string({ nullable: true, resolve: (c) => c.nodes.at(-1)?.id ?? null }),
            }),
          }),
        resolve: (c) => c,
      }),
    }),
  });

builder.queryField("webhookDeliveries", (t) =>
  t.withAuth({ client: true }).field({
    type: WebhookDeliveryConnection,
    description: "A webhook's deliveries, newest first (GET /webhooks/{id}/deliveries).",
    ...rateLimited("listDomains"),
    complexity: { field: 1, multiplier: 10 },
    args: {
      webhook: t.arg.string({ required: true }),
      status: t.arg({ type: WebhookDeliveryStatus }),
      first: t.arg.int({ description: "Page size, 1 to 100 (default 20)." }),
      after: t.arg.string({ description: "The endCursor of the page before." }),
    },
    resolve: (_root, args, ctx) =>
      hooking(async () => {
        const { service, account } = webhooksOf(ctx);
        await service.webhooks.get(account, args.webhook);
        return service.webhooks.deliveries(args.webhook, {
          status: (args.status as DeliveryStatus | null) ?? null,
          first: args.first == null ? 20 : Math.max(1, pageSize(args.first, 100)),
          after: args.after,
        });
      }),
  }),
);

/** Attempts a delivery now where this gateway delivers (else the one that does, soon); the delivery after. */
async function attemptNow(ctx: Parameters<typeof webhooksOf>[0], webhookId: string, deliveryId: string) {
  const { service } = webhooksOf(ctx);
  const since = Date.now();
  const attempted = (await service.deliverer?.attemptNow(webhookId, deliveryId)) ?? false;
  let delivery = await service.webhooks.delivery(webhookId, deliveryId);
  // Another gateway took it first (or this one does not deliver): answered after that attempt.
  const until = since + service.attemptWaitMs;
  while (!attempted && (delivery.lastAttemptAt?.getTime() ?? 0) < since && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    delivery = await service.webhooks.delivery(webhookId, deliveryId);
  }
  return delivery;
}

builder.mutationField("testWebhook", (t) =>
  t.withAuth({ client: true }).field({
    type: WebhookDelivery,
    description: `Sends the webhook a signed ${TEST_TYPE} delivery now and answers it after its first attempt (retried as any other when it fails).`,
    ...CHANGE,
    args: { webhook: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) =>
      hooking(async () => {
        const { service, account } = webhooksOf(ctx);
        const hook = await service.webhooks.get(account, args.webhook);
        const made = await service.webhooks.add(hook.id, {
          type: TEST_TYPE,
          body: testBody(hook.id),
          events: 0,
          cursor: null,
        });
        return attemptNow(ctx, hook.id, made);
      }),
  }),
);

builder.mutationField("retryWebhookDelivery", (t) =>
  t.withAuth({ client: true }).field({
    type: WebhookDelivery,
    description:
      "Attempts a delivery again now, its retries started over: a failed one is replayed, a received one sent again (same id). Answers it after that attempt.",
    ...CHANGE,
    args: { webhook: t.arg.string({ required: true }), delivery: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) =>
      hooking(async () => {
        const { service, account } = webhooksOf(ctx);
        await service.webhooks.get(account, args.webhook);
        await service.webhooks.retry(args.webhook, args.delivery);
        return attemptNow(ctx, args.webhook, args.delivery);
      }),
  }),
);
