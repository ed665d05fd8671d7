import { type Context, type ReadContext, servedOf } from "../context.ts";
import type { ChangeRow } from "../db/change-feed.ts";
import { type ChangeFilter, changePage } from "./changes.ts";

/** Changes read at a time while a subscription catches up. */
const PAGE = 100;
/** How long a subscription waits on the watcher before it asks again (it is woken sooner by a load). */
const WAIT_MS = 60_000;

/**
 * The `changes` subscription (docs/graphql.md, "Change feed"): the feed's changes after `after`
 * (else from the next load on), one event each, in feed order, as GET /changes/stream sends them.
 * When it has caught up it waits for the gateway to serve a newer snapshot (src/db/feed-watch.ts).
 * Each page is read on the snapshot served then: the context's snapshot and loaders move with it.
 * Ending it (the client goes) wakes it at once.
 */
export function liveChanges(
  ctx: ReadContext,
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
  ctx: ReadContext,
  args: { filter?: ChangeFilter | null; after?: string | null },
  signal: AbortSignal,
): AsyncGenerator<ChangeRow> {
  const live = (ctx as Partial<Context>).live;
  if (!live) throw new Error("the changes subscription runs without the live feed");
  let after = args.after ?? String(await live.end(servedOf(ctx).snapshot.version));
  for (;;) {
    // Each page on the snapshot served now: one read earlier is closed after its grace period,
    // however long a slow client takes to catch up. Its loaders go with it.
    const now = await live.current();
    if (now && now.snapshot.version !== ctx.served?.snapshot.version) {
      ctx.served = now;
      ctx.loaders.clear();
    }
    const page = await changePage(ctx, { filter: args.filter, first: PAGE, after });
    for (const node of page.nodes) {
      if (signal.aborted) return;
      yield node;
    }
    after = page.endCursor;
    if (page.hasNextPage) continue;
    const how = await live.watch.next(servedOf(ctx).snapshot.version, WAIT_MS, signal);
    if (how === "aborted" || signal.aborted) return;
  }
}
