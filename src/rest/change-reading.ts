import { coerceInputValue, type GraphQLInputObjectType, type GraphQLObjectType } from "graphql";
import { readContext } from "../context.ts";
import type { ChangeRow } from "../db/change-feed.ts";
import type { WebhookRow } from "../db/webhooks.ts";
import type { ChangeFilter } from "../query/changes.ts";
import { schema } from "../schema/index.ts";
import { changeFilterOf as webhookFilter } from "../webhooks/payload.ts";
import { CHANGE_QUERY } from "./change-inputs.ts";
import { cachedDocument, rootArguments } from "./document.ts";
import { restErrorOf } from "./errors.ts";
import { parseFields, type Selection, selectionKey } from "./fields.ts";
import { optionOf } from "./inputs.ts";
import type { SharedTexts } from "./legacy-writer.ts";
import type { Options } from "./options.ts";
import { errorJsonOf } from "./records.ts";
import { documentOf, readInto } from "./route.ts";
import { listChanges } from "./routes.ts";
import { rowWriter } from "./row-writer.ts";

/**
 * The change feed's REST options as the typed arguments of the feed's readers (src/query/feed.ts:
 * the change export, the live stream, a webhook's deliveries), and a change's text as GET /changes
 * writes it: no GraphQL operation runs for them, and none is needed. The options are read as GET
 * /changes reads them, into the variables of its GraphQL query, and coerced by the schema as
 * GraphQL coerces them (rootArguments), so that their errors are the same, named by their options.
 */

const CHANGE = () => schema.getType("Change") as GraphQLObjectType;

/**
 * A thrown error of the feed's reading, named by the option it came from, as GET /changes names
 * it; `cursor`: what its position is named (a stream resumed by its header: Last-Event-ID).
 */
export function changeError(e: unknown, cursor = "cursor"): unknown {
  const json = errorJsonOf(e);
  if (!json) return e;
  return restErrorOf([json], (argument) =>
    argument === "after"
      ? cursor
      : (listChanges.option?.(argument) ?? optionOf(listChanges.filters ?? null, argument)),
  );
}

/** The ChangeFilter of the feed's options (kinds, since, until, app, technology, f:). */
export function changeFilterOf(options: Options): ChangeFilter {
  const variables = readInto({}, [CHANGE_QUERY], options, {});
  try {
    const document = cachedDocument("changes:filter", () =>
      documentOf(listChanges, parseFields("", CHANGE())),
    );
    return (rootArguments(document, variables).filter ?? {}) as ChangeFilter;
  } catch (e) {
    throw changeError(e);
  }
}

/** No shared objects in a change: a writer asking for one is a fault. */
const NONE: SharedTexts = {
  text: () => {
    throw new Error("a change has no shared objects");
  },
};

/** A change's JSON text. */
export type ChangeWrite = (row: ChangeRow) => string;

/** What a change's fields read of the context: nothing (no loader, no snapshot). */
const NO_READS = readContext(null);

const writers = new Map<string, ChangeWrite>();

/**
 * The writer of a change as GET /changes writes it with `sel` (its `fields`): the generated row
 * writer, from the row (every legacy field of a change is its row's own: src/schema/changes.ts).
 */
export function changeWriter(sel: Selection): ChangeWrite {
  const key = selectionKey(sel);
  let write = writers.get(key);
  if (!write) {
    const rows = rowWriter(sel, CHANGE());
    if (!rows) throw new Error(`the row writer cannot write the changes' fields ${key}`);
    write = (row) => {
      const text = rows(row, NO_READS, NONE);
      // A value its field's type refuses (GraphQL would fail the field too): a fault of ours.
      if (text === undefined) throw new Error(`change ${row.id} cannot be written from its row`);
      return text;
    };
    writers.set(key, write);
  }
  return write;
}

/**
 * A webhook's change filter (its kinds, list and Domain filter, kept as a client writes them) as
 * the feed's readers take it: coerced by the schema's ChangeFilter, as a variable of `changes`
 * would be (src/webhooks/enqueue.ts reads the webhook's events with it). Kept filters were checked
 * when the webhook was made; one that no longer coerces is a fault.
 */
export function webhookChangeFilter(
  hook: Pick<WebhookRow, "kinds" | "list" | "filter" | "segment">,
): ChangeFilter {
  const type = schema.getType("ChangeFilter") as GraphQLInputObjectType;
  return coerceInputValue(webhookFilter(hook), type) as ChangeFilter;
}
