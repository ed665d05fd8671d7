import type { Budget } from "../auth/rate-headers.ts";
import type { RateLimits } from "../auth/rate-limit.ts";
import type { LiveFeed } from "../context.ts";
import type { MetaStore } from "../db/change-feed.ts";
import type { ListStore } from "../db/lists.ts";
import type { Logger } from "../logger.ts";

/**
 * The change feed's REST routes answered whole (docs/decisions.md, "Change feed"): its export
 * (GET /changes/export, JSON Lines) and its live stream (GET /changes/stream, Server-Sent Events).
 * They read the feed through the query layer's reader (src/query/feed.ts), as the GraphQL
 * subscription and the webhooks do, and write each change as GET /changes writes it
 * (src/rest/change-reading.ts). src/app.ts hands them to the REST handler beside the Domain
 * exports (src/export/).
 */
export interface FeedDeps {
  limits: RateLimits;
  logger: Logger;
  /** Where the feed is kept. */
  meta: MetaStore;
  /** Where accounts keep their lists (`f:list`). */
  lists: ListStore;
  /** When the gateway serves a newer snapshot, and where the feed stands. */
  live: LiveFeed & {
    /** A comment line this often keeps a waiting stream open through proxies. */
    heartbeatMs: number;
  };
}

/** An answer, with the budget it drew on (the handler writes its X-RateLimit headers). */
export type Answer = { response: Response; budget?: Budget | null };
