import { LRUCache } from "lru-cache";
import { apiKeyOf } from "../auth/plugin.ts";
import { apiError, errorBody, isApiError, maskFault } from "../errors.ts";
import { requestIdOf } from "../ops/request-id.ts";
import { CHANGE_QUERY } from "../rest/change-inputs.ts";
import { POSITION, readChanges, withPosition } from "../rest/change-pages.ts";
import { cachedDocument } from "../rest/document.ts";
import { legacyWriter, selectionKey, toSelectionSet } from "../rest/fields.ts";
import { drawOn } from "../rest/handler.ts";
import type { Options } from "../rest/options.ts";
import { documentOf, readInto, selectionOf } from "../rest/route.ts";
import { listChanges } from "../rest/routes.ts";
import type { Answer, ExportDeps } from "./export-query.ts";

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
 * waits for the gateway to serve a newer snapshot (FeedWatch), sending a comment line every
 * `heartbeatMs` so that proxies keep it open, until the client closes it or `max_seconds` pass.
 * The first page is read before answering, so a bad option or cursor is a 400 (or 410), not a
 * broken stream; it draws once on the List Domains budget.
 */
export async function changesLive(deps: ExportDeps, request: Request, options: Options): Promise<Answer> {
  const live = deps.live;
  if (!live) throw new Error("GET /changes/stream without a feed watcher");
  const sel = selectionOf(listChanges, options);
  const variables: Record<string, unknown> = readInto({}, [CHANGE_QUERY], options, {});
  const maxSeconds = options.int("max_seconds", { min: 1, max: 86_400 });
  // An EventSource that reconnects sends the URL it opened (its cursor) and Last-Event-ID, the
  // last event it took: that one wins, or the cursor's events would come again.
  const header = request.headers.get("last-event-id")?.trim();
  const resumed = header !== undefined && header !== "";
  let start = resumed ? header : options.string("cursor");
  if (start !== undefined && !/^\d{1,15}$/.test(start)) {
    throw apiError(
      "BAD_USER_INPUT",
      `${resumed ? "Last-Event-ID" : "cursor"}: is not a cursor of the change feed`,
    );
  }
  const query = cachedDocument(`stream:changes:${selectionKey(sel)}`, () =>
    documentOf(listChanges, sel, withPosition(toSelectionSet(sel))),
  );
  const write = legacyWriter(sel);
  /** `cursor`: what an error of `after` names (the first page's of a resumed stream: Last-Event-ID). */
  const read = async (after: string | null, first: number, cursor = "cursor"): Promise<SharedPage> => {
    // Streams of the same options woken by the same load read each page once, and send the same
    // bytes: a page is kept briefly by the snapshot it was read on (a later load may match a
    // Domain filter otherwise), whether it is still being read or not. A list's names are the
    // account's, so a stream with f:list shares only with its account's.
    const account = options.has("f:list") ? (apiKeyOf(request)?.account ?? "") : "";
    const version = (await live.current())?.snapshot.version ?? 0;
    const key = `${selectionKey(sel)}\u0000${JSON.stringify(variables)}\u0000${after}\u0000${first}\u0000${account}\u0000${version}\u0000${cursor}`;
    const shared = pagesOf(live);
    const kept = shared.get(key);
    if (kept) return kept;
    const reading = readPage(after, first, cursor).then((r) => ({ ...r, bytes: encoder.encode(r.text) }));
    shared.set(key, reading);
    reading.catch(() => shared.delete(key));
    return reading;
  };
  const readPage = (after: string | null, first: number, cursor: string) =>
    readChanges(
      deps,
      request,
      query,
      { ...variables, first, after },
      (node, shared) => `id: ${node[POSITION]}\nevent: change\ndata: ${write(node, shared)}\n\n`,
      cursor,
    );
  // Without a cursor: from the last change of the served snapshot on (the next load's).
  if (start === undefined) start = String(await live.end());
  let pending: SharedPage | null = await read(start, FIRST_PAGE, resumed ? "Last-Event-ID" : "cursor");
  /** The size of the next page read: small after a wait, then the largest. */
  let size = PAGE;
  const budget = await drawOn(deps.limits, "listDomains", request);
  let cursor = pending.page.pageInfo.endCursor;
  /** The last `id:` sent: the position a client that reconnects resumes after. */
  let sent = start;
  /** The text that tells an EventSource where the stream stands, when that moved without an event. */
  const position = () => {
    if (cursor === sent) return "";
    sent = cursor;
    return `id: ${cursor}\n\n`;
  };
  let more = pending.page.pageInfo.hasNextPage;
  let version = pending.version;
  const closed = new AbortController();
  // The client going away aborts the request; the body is not always cancelled for it.
  request.signal.addEventListener("abort", () => closed.abort(), { once: true });
  const deadline = maxSeconds === undefined ? Number.POSITIVE_INFINITY : Date.now() + maxSeconds * 1000;
  let opened = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Ended (the client went, or the gateway closes): closed rather than left without a chunk, or
      // the stream would ask again at once.
      const end = () => {
        try {
          controller.close();
        } catch {
          // Cancelled already.
        }
      };
      try {
        if (!opened) {
          opened = true;
          // The cursor it starts after is the first `id:` (an id alone sets an EventSource's
          // Last-Event-ID), so a client that reconnects before any change came resumes there.
          const first = pending?.text ?? "";
          if (first) sent = cursor;
          controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\nid: ${start}\n\n${first}${position()}`));
          pending = null;
          return;
        }
        for (;;) {
          if (closed.signal.aborted || Date.now() >= deadline) return end();
          if (more) {
            const next = await read(cursor, size);
            size = PAGE;
            if (closed.signal.aborted) return end();
            cursor = next.page.pageInfo.endCursor;
            more = next.page.pageInfo.hasNextPage;
            version = Math.max(version, next.version);
            if (next.text) {
              sent = cursor;
              return controller.enqueue(next.bytes);
            }
            // Pages read past changes that did not match: where it stands moves on all the same.
            const moved = position();
            if (moved) return controller.enqueue(encoder.encode(moved));
            continue;
          }
          const wait = Math.min(live.heartbeatMs, deadline - Date.now());
          const how = await live.watch.next(version, wait, closed.signal);
          if (how === "aborted") return end();
          if (how === "moved") {
            more = true;
            size = FIRST_PAGE;
          }
          // The wait ended at max_seconds (a timer may fire a little before it): the stream ends.
          else if (wait < live.heartbeatMs) return end();
          else return controller.enqueue(encoder.encode(": keep-alive\n\n"));
        }
      } catch (e) {
        if (closed.signal.aborted) return end();
        // The stream's status is sent: its last event says what ended it, and it closes.
        const id = requestIdOf(request);
        const err = isApiError(e) ? e : maskFault(e, deps.logger, id);
        controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify(errorBody(err, id))}\n\n`));
        controller.close();
      }
    },
    cancel() {
      closed.abort();
    },
  });
  const response = new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      // Proxies that buffer (nginx) pass each event on at once.
      "x-accel-buffering": "no",
    },
  });
  return { response, budget };
}

/** A page of the feed as streams send it: its text, and that text's bytes (encoded once). */
type SharedPage = Awaited<ReturnType<typeof readChanges>> & { bytes: Uint8Array };

const encoder = new TextEncoder();

/**
 * The pages streams read, by options, cursor and snapshot (changesLive's `read`): kept for a few
 * seconds, long enough for the streams one load wakes to go through its pages together. Kept per
 * app (its feed), since a snapshot's version names it only within its own database: two apps in
 * one process (the tests' SQLite and PostgreSQL) each have a version 2.
 */
const keptPages = new WeakMap<object, LRUCache<string, Promise<SharedPage>>>();
function pagesOf(feed: object): LRUCache<string, Promise<SharedPage>> {
  let pages = keptPages.get(feed);
  if (!pages) {
    pages = new LRUCache({ max: 512, ttl: 10_000 });
    keptPages.set(feed, pages);
  }
  return pages;
}
