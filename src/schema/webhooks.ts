import { astFromValue, valueFromASTUntyped } from "graphql";
import type { ClientContext, WebhookService } from "../context.ts";
import { FEED_KINDS } from "../db/change-sql.ts";
import { noList } from "../db/lists.ts";
import { checkSegmentName } from "../db/segments.ts";
import { WEBHOOK_LIMITS, WebhookError, WebhookNotFoundError, type WebhookRow } from "../db/webhooks.ts";
import { apiError, InputError } from "../errors.ts";
import { changePage, readerOf } from "../query/changes.ts";
import type { DomainFilter as DomainFilterShape } from "../query/domain-filter.ts";
import { dayText, isCalendarDay } from "../query/instant.ts";
import { listsOf } from "../query/lists.ts";
import { unknownSegment } from "../query/named-keys.ts";
import { domainFilterType } from "../query/segment-members.ts";
import { segmentsOf } from "../query/segments.ts";
import { changeFilterOf } from "../webhooks/payload.ts";
import { checkTarget } from "../webhooks/send.ts";
import { builder, legacy, rateLimited } from "./builder.ts";
import { ChangeKind } from "./changes.ts";
import { DomainFilter } from "./domain-parts.ts";

/**
 * An account's webhooks (docs/decisions.md, "Webhooks"; src/webhooks/ keeps and delivers them):
 * the change feed's events of their kinds, list and Domain filter, POSTed after each load in
 * signed batches of at most 100. Every operation draws on the List Domains budget, as the REST
 * /webhooks paths do. Their deliveries are src/schema/webhook-deliveries.ts.
 */

/** The request's account's webhooks. */
export const webhooksOf = (ctx: ClientContext): { service: WebhookService; account: string } => ({
  service: ctx.webhooks,
  account: ctx.apiKey.account,
});

/** Runs a webhook operation; its errors as the API answers them (400 naming the argument, 404). */
export async function hooking<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof WebhookError) throw new InputError(e.argument, e.message);
    if (e instanceof WebhookNotFoundError) throw apiError("NOT_FOUND", e.message);
    throw e;
  }
}

type WebhookShape = WebhookRow & { pending?: number; failed?: number };

export const Webhook = builder.objectRef<WebhookShape>("Webhook").implement({
  description: `A subscription of the account to the change feed: its events that match, POSTed to url after each load in signed batches of at most ${WEBHOOK_LIMITS.events} (at most ${WEBHOOK_LIMITS.webhooks} webhooks an account).`,
  fields: (t) => ({
    id: t.exposeString("id", legacy("id")),
    url: t.exposeString("url", legacy("url")),
    kinds: t.field({
      type: [ChangeKind],
      nullable: true,
      description: "The kinds of change it takes; null: every kind.",
      resolve: (w) => w.kinds as never,
      ...legacy("kinds"),
    }),
    list: t.exposeString("list", {
      nullable: true,
      description: "One of the account's lists: only its Domains' changes.",
      ...legacy("list"),
    }),
    segment: t.exposeString("segment", {
      nullable: true,
      description: "One of the account's segments: only its events (segment_entered, segment_left).",
      ...legacy("segment"),
    }),
    filter: t.field({
      type: "JSON",
      nullable: true,
      description:
        "The Domain filter its changes match, or null: the DomainFilter it was given (as createWebhook takes it); in REST, List Domains' f: options, aq and bq (as POST /webhooks takes them).",
      resolve: (w) => w.filter,
      ...legacy("filter"),
    }),
    cursor: t.string({
      description: "The feed position up to which its changes were made into deliveries.",
      resolve: (w) => w.cursorText,
      ...legacy("cursor"),
    }),
    error: t.exposeString("error", {
      nullable: true,
      description: "Why its changes could not be read at the last load (its list was deleted), or null.",
      ...legacy("error"),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", ...legacy("created_at") }),
    pendingDeliveries: t.int({
      description: "Deliveries not yet received (being attempted or waiting for a retry).",
      resolve: (w) => w.pending ?? 0,
      ...legacy("pending_deliveries"),
    }),
    failedDeliveries: t.int({
      description: "Deliveries that failed their last attempt (retry them: retryWebhookDelivery).",
      resolve: (w) => w.failed ?? 0,
      ...legacy("failed_deliveries"),
    }),
  }),
});

const WebhookCreated = builder
  .objectRef<{ webhook: WebhookRow; secret: string }>("WebhookCreated")
  .implement({
    description: "A webhook made, with its secret: shown this once.",
    fields: (t) => ({
      id: t.string({ resolve: (c) => c.webhook.id, ...legacy("id") }),
      secret: t.exposeString("secret", {
        description:
          "The Standard Webhooks secret (whsec_…) that signs its deliveries: keep it, it is not shown again.",
        ...legacy("secret"),
      }),
      webhook: t.expose("webhook", { type: Webhook, ...legacy("webhook") }),
    }),
  });

/**
 * What a change of webhooks draws and weighs: the List Domains budget, and a few writes (a test or
 * retry waits on one attempt).
 */
export const CHANGE = { ...rateLimited("listDomains"), complexity: { field: 10, multiplier: 1 } };

/** The webhooks with their pending and failed counts. */
async function withCounts(
  ctx: Parameters<typeof webhooksOf>[0],
  rows: WebhookRow[],
): Promise<WebhookShape[]> {
  const { service } = webhooksOf(ctx);
  const counts = await service.webhooks.counts(rows.map((r) => r.id));
  return rows.map((r) => ({ ...r, ...counts.get(r.id) }));
}

builder.queryField("webhooks", (t) =>
  t.withAuth({ client: true }).field({
    type: [Webhook],
    description: "The webhooks of the API key's account, oldest first (GET /webhooks).",
    ...rateLimited("listDomains"),
    complexity: { field: 1, multiplier: WEBHOOK_LIMITS.webhooks },
    resolve: (_root, _args, ctx) =>
      hooking(async () => {
        const { service, account } = webhooksOf(ctx);
        return withCounts(ctx, await service.webhooks.all(account));
      }),
  }),
);

builder.mutationField("createWebhook", (t) =>
  t.withAuth({ client: true }).field({
    type: WebhookCreated,
    description:
      "Makes a webhook: the changes of each later load that match kinds, list and filter are POSTed to url, signed with the secret answered here once.",
    ...CHANGE,
    args: {
      url: t.arg.string({ required: true, description: "https URL the deliveries are POSTed to." }),
      kinds: t.arg({
        type: [ChangeKind],
        description: "The kinds of change it takes (default: every kind).",
      }),
      list: t.arg.string({ description: "One of the account's lists: only its Domains' changes." }),
      segment: t.arg.string({
        description:
          "One of the account's segments: only its events (segment_entered, segment_left; give kinds to narrow them).",
      }),
      filter: t.arg({
        type: DomainFilter,
        description: "Only changes of the Domains it matches (as List Domains').",
      }),
    },
    resolve: (_root, args, ctx) =>
      hooking(async () => {
        const { service, account } = webhooksOf(ctx);
        const url = await checkTarget(args.url, service.policy);
        const kinds = args.kinds?.length ? [...new Set(args.kinds as string[])] : null;
        if (kinds?.some((k) => !(FEED_KINDS as readonly string[]).includes(k)))
          throw new InputError("kinds", "names a kind that is no change kind");
        if (args.list != null && !(await listsOf(ctx).lists.get(account, args.list)))
          throw new InputError("list", noList(args.list));
        if (args.segment != null) {
          try {
            checkSegmentName(args.segment);
          } catch (e) {
            throw new InputError("segment", (e as Error).message);
          }
          const { segments } = segmentsOf(ctx);
          if (!(await segments.get(account, args.segment)))
            throw unknownSegment(
              "segment",
              args.segment,
              (await segments.all(account)).map((s) => s.name),
            );
        }
        const filter = args.filter ? asWritten(args.filter) : null;
        const spec = {
          url: url.href,
          kinds,
          list: args.list ?? null,
          filter,
          segment: args.segment ?? null,
        };
        // Read where the feed stands with its filter: a filter that does not read (an unknown App,
        // a bad range) is refused now, as GET /changes would refuse it, not at the next load. It
        // reads the filter as given (ops as their values, times as instants), not as kept.
        const end = await ctx.live.end(readerOf(ctx));
        const given = { ...spec, filter: args.filter as Record<string, unknown> | null };
        try {
          await changePage(ctx, { filter: changeFilterOf(given) as never, first: 0, after: end.cursor });
        } catch (e) {
          throw renamed(e);
        }
        return service.webhooks.create(account, spec, { order: end.order, text: end.cursor });
      }),
  }),
);

/**
 * A filter input as a client writes it (enum names, times as text), to keep and answer: given back
 * as a variable, it is the same filter. A time given as a calendar day stays one, since as a
 * maximum it covers that whole day (its midnight as an instant would not).
 */
export function asWritten(filter: DomainFilterShape): Record<string, unknown> | null {
  const ast = astFromValue(filter, domainFilterType());
  if (!ast) return null;
  const keepDays = (given: unknown, written: unknown): unknown => {
    if (given instanceof Date) return isCalendarDay(given) ? dayText(given) : written;
    if (Array.isArray(given) && Array.isArray(written)) return written.map((w, i) => keepDays(given[i], w));
    if (given && typeof given === "object" && written && typeof written === "object") {
      const g = given as Record<string, unknown>;
      return Object.fromEntries(Object.entries(written).map(([k, w]) => [k, keepDays(g[k], w)]));
    }
    return written;
  };
  return keepDays(filter, valueFromASTUntyped(ast)) as Record<string, unknown>;
}

/** An error of the feed's filter as createWebhook's arguments name it (filter.domain.x → filter.x). */
function renamed(e: unknown): unknown {
  if (!(e instanceof InputError)) return e;
  if (e.argument === "filter.domain.list") return new InputError("list", e.problem);
  if (e.argument.startsWith("filter.domain."))
    return new InputError(`filter.${e.argument.slice("filter.domain.".length)}`, e.problem);
  return e;
}

builder.mutationField("deleteWebhook", (t) =>
  t.withAuth({ client: true }).field({
    type: Webhook,
    description: "Deletes a webhook and its deliveries (none is attempted after); answers it as it was.",
    ...CHANGE,
    args: { webhook: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) =>
      hooking(async () => {
        const { service, account } = webhooksOf(ctx);
        return service.webhooks.delete(account, args.webhook);
      }),
  }),
);
