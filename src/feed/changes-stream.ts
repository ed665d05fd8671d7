import { apiKeyOf } from "../auth/plugin.ts";
import { accountOf } from "../context.ts";
import { parseFeedCursor } from "../db/feed-cursor.ts";
import { apiError, errorBody, isApiError, maskFault } from "../errors.ts";
import { requestIdOf } from "../ops/request-id.ts";

import { type FeedPage, readFeed, WAITED } from "../query/feed.ts";
import { type ChangeWrite, changeError, changeFilterOf, changeWriter } from "../rest/change-reading.ts";
import { selectionKey } from "../rest/fields.ts";
import { drawOn } from "../rest/handler.ts";
import type { Options } from "../rest/options.ts";
import { selectionOf } from "../rest/route.ts";
import { listChanges } from "../rest/routes.ts";
import { lastEventId, type SseMessage, sseResponse, sseText } from "../sse.ts";
import type { Answer, FeedDeps } from "./deps.ts";

/**
 * Changes read at a time: the first page after a load woke the stream is small, so that its first
 * changes go out at once; then the feed's largest page, so that the rest of the load reaches each
 * stream in few chunks (measured at 1,000 streams: 100 throughout sent the load's last change
 * 20% later, 1,000 throughout its first one 2 to 4 times later).
 */
const FIRST_PAGE = 100;
const PAGE = 1000;
/** How long a browser's EventSource waits before it reconnects (sent once, first). */
const RETRY_MS = 2000;

/**
 * The change feed, live (GET /changes/stream, docs/decisions.md "Change feed"): Server-Sent Events,
 * one `change` event for each change that matches the feed's options, written as GET /changes
 * writes a change (its `fields`), in feed order. Each event's `id:` is its feed cursor, so an
 * EventSource that reconnects sends it back as Last-Event-ID and loses nothing. It starts after
 * `cursor` (or Last-Event-ID), else with the changes of the next load. When it has caught up it
 * waits for the gateway to serve a newer snapshot (the feed's live reading, src/query/feed.ts),
 * sending a comment line every `heartbeatMs` so that proxies keep it open, until the client closes
 * it or `max_seconds` pass. The first page is read before answering, so a bad option or cursor is
 * a 400 (or 410), not a broken stream; it draws once on the List Domains budget.
 */
export async function changesStream(deps: FeedDeps, request: Request, options: Options): Promise<Answer> {
  const { live } = deps;
  const sel = selectionOf(listChanges, options);
  const filter = changeFilterOf(options);
  const maxSeconds = options.int("max_seconds", { min: 1, max: 86_400 });
  // An EventSource that reconnects sends the URL it opened (its cursor) and Last-Event-ID, the
  // last event it took: that one wins, or the cursor's events would come again.
  const header = lastEventId(request);
  const named = header === undefined ? "cursor" : "Last-Event-ID";
  const start = header ?? options.string("cursor");
  if (start !== undefined && !parseFeedCursor(start))
    throw apiError("BAD_USER_INPUT", `${named}: is not a cursor of the change feed`);
  const closed = new AbortController();
  // The client going away aborts the request; the body is not always cancelled for it.
  request.signal.addEventListener("abort", () => closed.abort(), { once: true });
  const deadline = maxSeconds === undefined ? Number.POSITIVE_INFINITY : Date.now() + maxSeconds * 1000;
  /** How long the last wait for a load could be: shorter than a heartbeat only at the deadline. */
  let wait = live.heartbeatMs;
  // Without a cursor: from the last change of the served snapshot on (the next load's).
  const account = accountOf(apiKeyOf(request), deps.lists);
  const after = start ?? (await live.end({ account: account?.account ?? null })).cursor;
  const pages = readFeed(
    { current: live.current, meta: deps.meta, account },
    {
      filter,
      after,
      pageSize: (waited) => (waited ? FIRST_PAGE : PAGE),
      live: {
        watch: live.watch,
        signal: closed.signal,
        waitMs: () => {
          wait = Math.max(0, Math.min(live.heartbeatMs, deadline - Date.now()));
          return wait;
        },
      },
      // Streams of the same options woken by the same load read each page once.
      shared: true,
    },
  );
  // The first page, before answering: a bad option or cursor is the answer's 400 or 410.
  const first = await pages.next().catch((e) => {
    closed.abort();
    throw changeError(e, named);
  });
  const budget = await drawOn(deps.limits, "listDomains", request);
  const write = changeWriter(sel);
  const key = selectionKey(sel);

  async function* messages(): AsyncGenerator<SseMessage | Uint8Array> {
    /** The last `id:` sent: the position a client that reconnects resumes after. */
    let sent = after;
    // The cursor it starts after is the first `id:` (an id alone sets an EventSource's
    // Last-Event-ID), so a client that reconnects before any change came resumes there.
    yield { retry: RETRY_MS, id: sent };
    let next = first;
    try {
      for (;;) {
        if (next.done || closed.signal.aborted || Date.now() >= deadline) return;
        const page = next.value;
        if (page === WAITED) {
          // The wait ended at max_seconds (a timer may fire a little before it): the stream ends.
          if (wait < live.heartbeatMs) return;
          yield { comment: "keep-alive" };
        } else {
          const bytes = eventsOf(page, key, write);
          if (bytes.length) yield bytes;
          // Pages read past changes that did not match: where it stands moves on all the same.
          else if (page.endCursor !== sent) yield { id: page.endCursor };
          sent = page.endCursor;
        }
        next = await pages.next();
      }
    } catch (e) {
      if (closed.signal.aborted) return;
      // The stream's status is sent: its last event says what ended it, and it closes.
      const id = requestIdOf(request);
      const err = isApiError(e) ? e : maskFault(e, deps.logger, id);
      yield { event: "error", data: JSON.stringify(errorBody(err, id)) };
    } finally {
      closed.abort();
      await pages.return(undefined);
    }
  }
  return { response: sseResponse(messages(), () => closed.abort()), budget };
}

const encoder = new TextEncoder();

/**
 * A page's events as bytes, written once for every stream that reads the same page (readFeed's
 * shared pages: the same object) with the same fields.
 */
const written = new WeakMap<FeedPage, Map<string, Uint8Array>>();
function eventsOf(page: FeedPage, key: string, write: ChangeWrite): Uint8Array {
  let bySelection = written.get(page);
  let bytes = bySelection?.get(key);
  if (bytes) return bytes;
  let text = "";
  for (const row of page.nodes) text += sseText({ id: row.id, event: "change", data: write(row) });
  bytes = encoder.encode(text);
  if (!bySelection) {
    bySelection = new Map();
    written.set(page, bySelection);
  }
  bySelection.set(key, bytes);
  return bytes;
}
