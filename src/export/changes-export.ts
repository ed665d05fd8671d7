import { readChanges } from "../rest/change-pages.ts";
import { cachedDocument } from "../rest/document.ts";
import { legacyWriter, selectionKey } from "../rest/fields.ts";
import { drawOn } from "../rest/handler.ts";
import type { Options } from "../rest/options.ts";
import { documentOf, readInto, selectionOf } from "../rest/route.ts";
import { listChanges } from "../rest/routes.ts";
import { type Answer, type ExportDeps, failMidStream } from "./export-query.ts";

/** Changes per page of the export: the feed's largest page. */
const PAGE = 1000;

/**
 * Export the change feed (GET /changes/export): every matching change after `cursor`, one JSON
 * object per line in feed order, each written as GET /changes writes it (its `fields`). It is the
 * pages of `changes` chained, read one at a time as the client takes them (memory is a page,
 * whatever the feed's size); the first is read before answering, so that a bad option is a 400
 * rather than a broken stream. It draws once on the List Domains budget.
 */
export async function changesStream(deps: ExportDeps, request: Request, options: Options): Promise<Answer> {
  const sel = selectionOf(listChanges, options);
  const variables: Record<string, unknown> = {
    ...readInto({}, listChanges.inputs, options, {}),
    first: PAGE,
  };
  const query = cachedDocument(`export:changes:${selectionKey(sel)}`, () => documentOf(listChanges, sel));
  const write = legacyWriter(sel);
  const read = (after: unknown) =>
    readChanges(deps, request, query, { ...variables, after }, (node, shared) => `${write(node, shared)}\n`);
  // The first page draws on the budget, once the options proved valid.
  let pending: Awaited<ReturnType<typeof read>> | null = await read(variables.after ?? null);
  const budget = await drawOn(deps.limits, "listDomains", request);
  const encoder = new TextEncoder();
  let cursor = pending.page.pageInfo.endCursor;
  let more = pending.page.pageInfo.hasNextPage;
  let dropped = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = pending ?? (more ? await read(cursor) : null);
        pending = null;
        if (dropped) return;
        if (!next) return controller.close();
        cursor = next.page.pageInfo.endCursor;
        more = next.page.pageInfo.hasNextPage;
        if (next.text) controller.enqueue(encoder.encode(next.text));
      } catch (e) {
        if (!dropped) failMidStream(controller, e, request, deps.logger);
      }
    },
    cancel() {
      dropped = true;
    },
  });
  const response = new Response(body, {
    headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" },
  });
  return { response, budget };
}
