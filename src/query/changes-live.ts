import { type LiveFeed, type ReadContext, servedOf } from "../context.ts";
import type { ChangeRow } from "../db/change-feed.ts";
import { type ChangeFilter, readerOf } from "./changes.ts";
import { readFeed, WAITED } from "./feed.ts";

/** Changes read at a time while a subscription catches up. */
const PAGE = 100;
/** How long a subscription waits on the watcher before it asks again (it is woken sooner by a load). */
const WAIT_MS = 60_000;

/**
 * The `changes` subscription (docs/graphql.md, "Change feed"): the feed's changes after `after`
 * (else from the next load on), one event each, in feed order, as GET /changes/stream sends them:
 * the feed's live reading (./feed.ts), each page on the snapshot served when it is read, waiting
 * for the gateway to serve a newer snapshot when it has caught up. Ending it (the client goes)
 * wakes it at once.
 */
export function liveChanges(
  ctx: ReadContext & { live: LiveFeed },
  args: { filter?: ChangeFilter | null; after?: string | null },
): AsyncIterableIterator<ChangeRow> {
  const closed = new AbortController();
  const changes = run(ctx, args, closed.signal);
  return {
    next: () => changes.next(),
    return: (value?: unknown) => {
      closed.abort();
      return changes.return(value as ChangeRow);
    },
    throw: (e?: unknown) => {
      closed.abort();
      return changes.throw(e);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

async function* run(
  ctx: ReadContext & { live: LiveFeed },
  args: { filter?: ChangeFilter | null; after?: string | null },
  signal: AbortSignal,
): AsyncGenerator<ChangeRow> {
  const { live } = ctx;
  // Without `after`: from the end of the feed of the snapshot it started on (the next load's).
  const after = args.after ?? (await live.end(readerOf(ctx), servedOf(ctx).snapshot.version)).cursor;
  if (!ctx.meta) throw new Error("the changes subscription runs without the feed's store");
  const pages = readFeed(
    { current: live.current, meta: ctx.meta, account: ctx.account },
    {
      filter: args.filter,
      after,
      pageSize: () => PAGE,
      live: { watch: live.watch, signal, waitMs: WAIT_MS },
      shared: true,
    },
  );
  for await (const page of pages) {
    if (page === WAITED) continue;
    // Its changes' fields (a Change's Domain) are resolved on the snapshot the page was read on:
    // one read earlier is closed after its grace period, however long a client stays. Its loaders
    // go with it.
    if (page.served && page.served !== ctx.served) {
      ctx.served = page.served;
      ctx.loaders.clear();
    }
    yield* page.nodes;
  }
}
