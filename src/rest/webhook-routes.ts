import { FEED_KINDS } from "../db/change-sql.ts";
import { apiError, isApiError } from "../errors.ts";
import { joinBq, parseBq } from "./bq.ts";
import { writeBq } from "./bq-writer.ts";
import { changeKind } from "./change-inputs.ts";
import { optionOfArgument, optionSuggester, readFilter, writeFilter } from "./filter-options.ts";
import { DOMAIN_TABLES, filterOptions, type Input } from "./inputs.ts";
import { parseAq, writeAq } from "./list-options.ts";
import { Options } from "./options.ts";
import type { Route } from "./route.ts";

/**
 * Beyond the legacy paths (docs/decisions.md, "Webhooks"): the webhooks of the key's account, each
 * path mapped onto its GraphQL operation (src/schema/webhooks.ts, webhook-deliveries.ts) as every
 * route is. POST /webhooks takes `{url, kinds, list, filter}`, `filter` being List Domains' `f:`
 * options (and aq and bq) as a JSON object, and answers `{id, secret, webhook}`: the secret is shown
 * that once. A webhook's filter is answered in the same options (filterOptionsOf), so what REST
 * answers can be POSTed back.
 */

/** The options a webhook's filter takes: List Domains' `f:` options but f:list (its own `list`), aq and bq. */
const FILTER_OPTIONS = [
  ...filterOptions(DOMAIN_TABLES)
    .map((o) => o.name)
    .filter((n) => n !== "f:list"),
  "aq",
  "bq",
];
const suggestFilter = optionSuggester(FILTER_OPTIONS, DOMAIN_TABLES);

/** A webhook's filter: a JSON object of List Domains' `f:` options, `aq` and `bq` → DomainFilter. */
function readWebhookFilter(value: unknown): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || Array.isArray(value))
    throw apiError(
      "BAD_USER_INPUT",
      'filter: must be a JSON object of List Domains\' f: options, e.g. {"f:cc": "US"}',
    );
  const o = Options.fromBody(value);
  if (o.has("f:list"))
    throw apiError("BAD_USER_INPUT", "filter: f:list is the webhook's own `list`; give it there");
  try {
    o.refuseUnknown(FILTER_OPTIONS, suggestFilter);
    const filter = readFilter(o, DOMAIN_TABLES);
    const aq = o.json("aq");
    if (aq !== undefined && aq !== null) {
      const { and, q } = parseAq(aq, DOMAIN_TABLES);
      if (q.length)
        throw apiError("BAD_USER_INPUT", "aq: q searches Domains; a webhook's filter takes filters only");
      if (and.length) filter.and = and;
    }
    const bq = o.json("bq");
    if (bq !== undefined && bq !== null && joinBq(filter, parseBq(bq, DOMAIN_TABLES)).length)
      throw apiError("BAD_USER_INPUT", "bq: q searches Domains; a webhook's filter takes filters only");
    return Object.keys(filter).length ? filter : null;
  } catch (e) {
    if (isApiError(e)) throw apiError("BAD_USER_INPUT", `filter: ${(e as Error).message}`);
    throw e;
  }
}

/**
 * A webhook's filter as REST writes it, in the options POST /webhooks takes (and List Domains):
 * its `f:` options, as aq what they cannot say (a filter given twice, op nand), and its `or` and
 * `not` terms as bq (writeBq: aq says those of them it says exactly). GraphQL keeps and answers
 * it as DomainFilter; POSTed back, what REST answers makes the same filter.
 */
export function filterOptionsOf(filter: unknown): Record<string, unknown> | null {
  if (!filter || typeof filter !== "object") return null;
  type Terms = Record<string, unknown>[] | null;
  const { and, or, not, ...top } = filter as { and?: Terms; or?: Terms; not?: Terms };
  const { options, nand } = writeFilter(top, DOMAIN_TABLES);
  const { bq, and: negated } = writeBq({ or, not }, DOMAIN_TABLES);
  const terms = [...Object.entries(nand).map(([name, f]) => ({ [name]: f })), ...(and ?? []), ...negated];
  const aq = writeAq(terms, DOMAIN_TABLES);
  return { ...options, ...(aq.length ? { aq } : {}), ...(bq ? { bq } : {}) };
}

/** A webhook as REST writes it: its filter in REST's options. */
const restWebhook = (w: Record<string, unknown>) =>
  "filter" in w ? { ...w, filter: filterOptionsOf(w.filter) } : w;

/** `kinds`: a JSON array of change kinds, or their comma-separated text. */
function readKinds(o: Options): string[] | null {
  const raw = o.raw("kinds");
  if (raw === undefined || raw === null || raw === "") return null;
  const kinds = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : null;
  if (!kinds || kinds.some((k) => typeof k !== "string"))
    throw apiError(
      "BAD_USER_INPUT",
      "kinds: must be an array of change kinds (or their comma-separated text)",
    );
  return kinds.map(changeKind);
}

const WEBHOOK_SPEC: Input = {
  options: [
    { name: "url", type: "string", description: "The https URL deliveries are POSTed to." },
    {
      name: "kinds",
      type: "array",
      items: { type: "string", enum: [...FEED_KINDS] },
      description: "The kinds of change it takes (default: every kind).",
    },
    {
      name: "list",
      type: "string",
      description: "One of the account's lists (GET /list): only its Domains' changes.",
    },
    {
      name: "segment",
      type: "string",
      description:
        "One of the account's segments (GET /segment): only its events, segment_entered and segment_left (kinds narrows them).",
    },
    {
      name: "filter",
      type: "object",
      description:
        'Only changes of the Domains these List Domains options match, as a JSON object of f: options, aq and bq: {"f:cc": "US", "f:p": "shopify"}. Answered in the same options.',
    },
  ],
  variables: {
    url: "String!",
    kinds: "[ChangeKind!]",
    list: "String",
    segment: "String",
    filter: "DomainFilter",
  },
  read(o) {
    const url = o.string("url");
    if (!url?.trim())
      throw apiError("BAD_USER_INPUT", "url: is required: the https URL deliveries are POSTed to");
    return {
      url: url.trim(),
      kinds: readKinds(o),
      list: o.string("list") ?? null,
      segment: o.string("segment") ?? null,
      filter: readWebhookFilter(o.raw("filter")),
    };
  },
};

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const clip = (text = "") => (text.length > 80 ? `${text.slice(0, 80)}…` : text);

/** The webhook the path names (and its delivery), as the path gives them. */
const WEBHOOK_PATH: Input = {
  fromPath: true,
  options: [],
  variables: { webhook: "String!" },
  read(_o, params) {
    if (!ID.test(params.webhook ?? ""))
      throw apiError(
        "BAD_USER_INPUT",
        `webhook: "${clip(params.webhook)}" is not a webhook id (GET /webhooks shows them)`,
      );
    return { webhook: params.webhook };
  },
};

const DELIVERY_PATH: Input = {
  fromPath: true,
  options: [],
  variables: { delivery: "String!" },
  read(_o, params) {
    if (!ID.test(params.delivery ?? ""))
      throw apiError("BAD_USER_INPUT", `delivery: "${clip(params.delivery)}" is not a delivery id`);
    return { delivery: params.delivery };
  },
};

const DELIVERY_PAGE: Input = {
  options: [
    {
      name: "status",
      type: "string",
      enum: ["pending", "succeeded", "failed"],
      description: "Only deliveries in this state.",
    },
    { name: "page_size", type: "integer", description: "Page size, 1 to 100 (default 20)." },
    { name: "cursor", type: "string", description: "next_cursor of the previous page." },
  ],
  variables: { status: "WebhookDeliveryStatus", first: "Int", after: "String" },
  read(o) {
    const status = o.string("status");
    if (status !== undefined && !["pending", "succeeded", "failed"].includes(status))
      throw apiError("BAD_USER_INPUT", `status: must be pending, succeeded or failed; got "${status}"`);
    const after = o.string("cursor") || null;
    if (after !== null && !ID.test(after))
      throw apiError(
        "BAD_USER_INPUT",
        `cursor: "${clip(after)}" is not a cursor of this webhook's deliveries`,
      );
    return { status: status ?? null, first: o.int("page_size", { min: 1, max: 100 }) ?? 20, after };
  },
};

/** The body's `filter` options name themselves inside it; `webhook` is the path's. */
const webhookOption = (argument: string) => {
  if (argument.startsWith("filter")) return `filter.${optionOfArgument(DOMAIN_TABLES, argument)}`;
  if (argument === "first") return "page_size";
  if (argument === "after") return "cursor";
  return undefined;
};

const createWebhook: Route = {
  methods: { POST: "createWebhook" },
  path: "/webhooks",
  summary: "Make a webhook: each later load's matching changes, POSTed signed in batches of at most 100",
  endpoint: "listDomains",
  type: "Webhook",
  recordOf: restWebhook,
  single: true,
  mutation: true,
  inputs: [WEBHOOK_SPEC],
  option: webhookOption,
  query: [["createWebhook", ["url", "kinds", "list", "segment", "filter"]]],
  envelope: {
    id: { value: "id", type: "string" },
    secret: { value: "secret", type: "string" },
    webhook: { record: "webhook" },
  },
};

const listWebhooks: Route = {
  methods: { GET: "listWebhooks" },
  path: "/webhooks",
  summary: "The webhooks of the API key's account, with their pending and failed deliveries",
  endpoint: "listDomains",
  type: "Webhook",
  recordOf: restWebhook,
  uncached: true,
  inputs: [],
  query: [["webhooks", []]],
  envelope: { webhooks: { records: "" } },
};

const deleteWebhook: Route = {
  methods: { DELETE: "deleteWebhook" },
  path: "/webhooks/{webhook}",
  summary: "Delete a webhook and its deliveries; answers it as it was",
  endpoint: "listDomains",
  type: "Webhook",
  recordOf: restWebhook,
  single: true,
  mutation: true,
  inputs: [WEBHOOK_PATH],
  query: [["deleteWebhook", ["webhook"]]],
  envelope: { webhook: { record: "" } },
};

const testWebhook: Route = {
  methods: { POST: "testWebhook" },
  path: "/webhooks/{webhook}/test",
  summary: "Send the webhook a signed webhook.test delivery now; answers it after its first attempt",
  endpoint: "listDomains",
  type: "WebhookDelivery",
  single: true,
  mutation: true,
  inputs: [WEBHOOK_PATH],
  query: [["testWebhook", ["webhook"]]],
  envelope: { delivery: { record: "" } },
};

const listDeliveries: Route = {
  methods: { GET: "listWebhookDeliveries" },
  path: "/webhooks/{webhook}/deliveries",
  summary: "A webhook's deliveries, newest first, with their attempts' outcome",
  endpoint: "listDomains",
  type: "WebhookDelivery",
  uncached: true,
  inputs: [WEBHOOK_PATH, DELIVERY_PAGE],
  option: webhookOption,
  query: [["webhookDeliveries", ["webhook", "status", "first", "after"]]],
  envelope: {
    deliveries: { records: "nodes" },
    has_next_page: { value: "pageInfo.hasNextPage", type: "boolean" },
    next_cursor: { value: "pageInfo.endCursor", type: "string", when: "pageInfo.hasNextPage" },
  },
};

const retryDelivery: Route = {
  methods: { POST: "retryWebhookDelivery" },
  path: "/webhooks/{webhook}/deliveries/{delivery}/retry",
  summary:
    "Attempt a delivery again now, its retries started over (a failed one replayed); answers it after that attempt",
  endpoint: "listDomains",
  type: "WebhookDelivery",
  single: true,
  mutation: true,
  inputs: [WEBHOOK_PATH, DELIVERY_PATH],
  query: [["retryWebhookDelivery", ["webhook", "delivery"]]],
  envelope: { delivery: { record: "" } },
};

export const WEBHOOK_ROUTES: readonly Route[] = [
  createWebhook,
  listWebhooks,
  deleteWebhook,
  testWebhook,
  listDeliveries,
  retryDelivery,
];
