import type DataLoader from "dataloader";
import type { ApiKey } from "./auth/keys.ts";
import type { Endpoint } from "./auth/limits.ts";
import type { Caller } from "./auth/plugin.ts";
import type { RateUsage } from "./auth/rate-usage.ts";
import type { UsageSource } from "./auth/usage.ts";
import type { FeedReader, MetaStore } from "./db/change-feed.ts";
import type { FeedWatch } from "./db/feed-watch.ts";
import type { ListStore } from "./db/lists.ts";
import type { SnapshotFiles } from "./db/snapshot-manifest.ts";
import type { ServedSnapshot, Snapshots } from "./db/snapshots.ts";
import type { TargetPolicy, Webhooks } from "./db/webhooks.ts";
import { apiError } from "./errors.ts";

/**
 * What an operation's resolvers read: the snapshot, fixed for the whole operation, and the
 * operation's loaders. The reads the server makes itself (an export's batches, the text of shared
 * Apps and technologies) run with this alone (readContext); a client's request adds who asked.
 */
export interface ReadContext {
  served: ServedSnapshot | null;
  /** Per-operation DataLoaders by name (src/query/loaders.ts). */
  loaders: Map<string, DataLoader<unknown, unknown>>;
  /** Where the change feed is read (the meta database: src/db/change-feed.ts). */
  meta?: MetaStore;
  /** The account the read is made for: whose lists `f:list` names (src/query/lists.ts). */
  account?: AccountScope;
  /** The kept snapshots and their files for data teams (src/files/service.ts). */
  files?: SnapshotFiles;
  /**
   * The request's scheme and host (https://api.example.com), which files' URLs start with: worked
   * out when a resolver asks (Snapshot.files), not for every request.
   */
  baseUrl?: () => string;
}

/** An account and where it keeps its lists (the meta database: src/db/lists.ts). */
export interface AccountScope {
  account: string;
  lists: ListStore;
}

/** The scope of the account of `key` (none for a read the server makes for no one). */
export const accountOf = (key: ApiKey | null, lists: ListStore): AccountScope | undefined =>
  key ? { account: key.account, lists } : undefined;

/** A client's request's GraphQL context: what its resolvers read, and who asked. */
export interface Context extends ReadContext {
  /** The API key the request was authenticated with. */
  apiKey: ApiKey | null;
  /** The rate-limit budgets this request draws on (src/auth/rate-limit.ts). */
  rateUsage: RateUsage;
  /** What a key has used and has left (GraphQL `usage`; src/auth/usage.ts). */
  usage?: UsageSource;
  /** Where the key's account keeps its lists (the meta database: src/db/lists.ts). */
  lists?: ListStore;
  /** What a live read of the feed (the `changes` subscription) waits on and reads again. */
  live?: LiveFeed;
  /** The account's webhooks (WebhookService, below). */
  webhooks?: WebhookService;
  /** Dry runs of exports and cursor=all jobs (GraphQL exportEstimate: src/export/estimate.ts). */
  exports?: ExportEstimator;
}

/**
 * What an export or a cursor=all job would write and draw, not started (docs/decisions.md, "Dry
 * runs"): REST's `dry_run=true`, MCP's and GraphQL's `exportEstimate`, from one estimate.
 */
export interface ExportEstimate {
  domains: number;
  format: "json" | "jsonl" | "csv";
  /** The `fields` option as given ("" for the defaults). */
  fields: string;
  bytes: number;
  gzipBytes: number;
  /** The Domains measured (a page), and whether they were all of them (then exact). */
  sample: number;
  exact: boolean;
  /** What starting it would draw: the start's budget now, and the month's count it adds to. */
  wouldDraw: {
    endpoint: Endpoint;
    title: string;
    limit: number | null;
    remaining: number | null;
    reset: number | null;
    month: string;
    countedAs: "exports" | "cursor_all_jobs";
    thisMonth: number | null;
  };
  /**
   * A cursor=all job of the same key and question already there (running, handed over, or done
   * and not yet read): the request would answer it (its progress, or its result) and start none,
   * drawing on neither the start's budget nor the month's count. Null for none, and for exports.
   */
  job: { status: string; progress: number; total: number } | null;
}

/** The dry run of an export (`cursorAll` false) or a job of List Domains' `filter` and `search`. */
export interface ExportEstimator {
  estimate(
    caller: Caller,
    input: {
      filter: Record<string, unknown> | null;
      search: string | null;
      fields: string;
      format: ExportEstimate["format"];
      cursorAll: boolean;
    },
  ): Promise<ExportEstimate>;
}

/**
 * A client's request's context with everything a request of a key has (createContext gives them
 * all): what the fields of an account and of a gateway read, typed for their resolvers by the
 * `client` scope (src/schema/builder.ts).
 */
export type ClientContext = Context &
  Required<Pick<Context, "usage" | "lists" | "live" | "webhooks" | "account">> & {
    apiKey: ApiKey;
  };

/** Whether a resolver's context is a client's request's (a read the server makes itself is not). */
export function isClientContext(ctx: ReadContext): ctx is ClientContext {
  const c = ctx as Partial<ClientContext>;
  return !!(c.apiKey && c.usage && c.lists && c.live && c.webhooks && c.account);
}

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

/** The gateway's view of the feed as it grows (src/query/changes-live.ts). */
export interface LiveFeed {
  watch: FeedWatch;
  /** The served snapshot now (a subscription reads each load's changes from its own). */
  current(): Promise<ServedSnapshot | null>;
  /**
   * The cursor after the last change `reader` sees of snapshot `version` (default: the one served
   * now). A read that started on a snapshot asks for its own: a newer one's end would skip that
   * load's changes. Another account's events are not counted (src/db/change-feed.ts, seenBy).
   * `cursor`: its text; `order`: that change's internal order (0 for none), never shown.
   */
  end(reader: FeedReader, version?: number): Promise<{ cursor: string; order: number }>;
}

/** The context of a read of the snapshot `served`: fresh loaders, and what else it reads with. */
export const readContext = (
  served: ServedSnapshot | null,
  more: Pick<ReadContext, "meta" | "account"> = {},
): ReadContext => ({ served, loaders: new Map(), ...more });

export async function createContext(
  snapshots: Snapshots,
  apiKey: ApiKey | null,
  rateUsage: RateUsage,
  usage?: UsageSource,
  live?: LiveFeed,
  webhooks?: WebhookService,
  exports?: ExportEstimator,
  files?: Pick<Context, "files" | "baseUrl">,
): Promise<Context> {
  return {
    served: await snapshots.current(),
    apiKey,
    loaders: new Map(),
    rateUsage,
    usage,
    meta: snapshots.store,
    account: accountOf(apiKey, snapshots.store),
    lists: snapshots.store,
    live,
    webhooks,
    exports,
    ...files,
  };
}

/** The snapshot this operation reads; NOT_READY before the first load. */
export function servedOf(ctx: ReadContext): ServedSnapshot {
  if (!ctx.served) throw apiError("NOT_READY", "no dataset has been loaded yet; try again shortly");
  return ctx.served;
}
