import { apiKeyOf } from "../auth/plugin.ts";
import { accountOf } from "../context.ts";
import { readFeed, WAITED } from "../query/feed.ts";
import { changeError, changeFilterOf, changeWriter } from "../rest/change-reading.ts";
import { failMidStream } from "../rest/errors.ts";
import { drawOn } from "../rest/handler.ts";
import type { Options } from "../rest/options.ts";
import { selectionOf } from "../rest/route.ts";
import { listChanges } from "../rest/routes.ts";
import type { Answer, FeedDeps } from "./deps.ts";

/** Changes per page of the export: the feed's largest page. */
const PAGE = 1000;

/**
 * Export the change feed (GET /changes/export): every matching change after `cursor`, one JSON
 * object per line in feed order, each written as GET /changes writes it (its `fields`). It is the
 * feed's pages read one at a time as the client takes them (memory is a page, whatever the feed's
 * size), each on the snapshot served then; the first is read before answering, so that a bad
 * option is a 400 rather than a broken stream. It draws once on the List Domains budget.
 */
export async function changesExport(deps: FeedDeps, request: Request, options: Options): Promise<Answer> {
  const write = changeWriter(selectionOf(listChanges, options));
  const pages = readFeed(
    { current: deps.live.current, meta: deps.meta, account: accountOf(apiKeyOf(request), deps.lists) },
    { filter: changeFilterOf(options), after: options.string("cursor") || null, pageSize: () => PAGE },
  );
  // The first page draws on the budget, once the options proved valid.
  const first = await pages.next().catch((e) => {
    throw changeError(e);
  });
  const budget = await drawOn(deps.limits, "listDomains", request);
  const encoder = new TextEncoder();
  let next: typeof first | null = first;
  let dropped = false;
  /** The error that ended the stream, its line written: the stream errors once that is taken. */
  let failed: Error | null = null;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (failed) return controller.error(failed);
      try {
        const page = next ?? (await pages.next());
        next = null;
        if (dropped) return;
        if (page.done) return controller.close();
        // A reading that is not live never waits.
        if (page.value === WAITED) return;
        let text = "";
        for (const row of page.value.nodes) text += `${write(row)}\n`;
        if (text) controller.enqueue(encoder.encode(text));
      } catch (e) {
        if (!dropped) failed = failMidStream(controller, changeError(e), request, deps.logger);
      }
    },
    cancel() {
      dropped = true;
      void pages.return(undefined);
    },
  });
  const response = new Response(body, {
    headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" },
  });
  return { response, budget };
}
