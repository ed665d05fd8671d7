import { type DocumentNode, Kind, type SelectionSetNode } from "graphql";
import { restErrorOf } from "./errors.ts";
import type { SharedTexts } from "./fields.ts";
import type { ExecuteGraphQL } from "./handler.ts";
import { optionOf } from "./inputs.ts";
import { listChanges } from "./routes.ts";
import { withSharedTexts } from "./shared-text.ts";

/**
 * Pages of GET /changes' own query read by the gateway (the export, the live stream, a webhook's
 * deliveries), each change written by the caller's writer.
 */
export interface ChangesPage {
  nodes: Record<string, unknown>[];
  pageInfo: { hasNextPage: boolean; endCursor: string };
}

/** An argument of `changes` as GET /changes names it in its errors (`after` is its `cursor`). */
const rename = (argument: string) =>
  listChanges.option?.(argument) ?? optionOf(listChanges.filters ?? null, argument);

/**
 * A page of `changes` read by `query` (a document of listChanges) as the request's client, drawing
 * on no budget, each change's text written by `line`; the page, its text and the snapshot it read.
 * `cursor`: what the errors of `after` name (a stream resumed by its Last-Event-ID header names it).
 */
export async function readChanges(
  deps: { execute: ExecuteGraphQL },
  request: Request,
  query: DocumentNode,
  variables: Record<string, unknown>,
  line: (node: Record<string, unknown>, shared: SharedTexts) => string,
  cursor = "cursor",
): Promise<{ page: ChangesPage; text: string; version: number }> {
  const result = await deps.execute(request, query, variables, null);
  if (result.errors?.length)
    throw restErrorOf(result.errors, (argument) => (argument === "after" ? cursor : rename(argument)));
  const page = result.data?.changes as ChangesPage | undefined;
  if (!page) throw new Error("the change feed answered without data");
  const text = await withSharedTexts(result.served ?? null, (shared) => {
    let out = "";
    for (const node of page.nodes) out += line(node, shared);
    return out;
  });
  return { page, text, version: result.served?.snapshot.version ?? 0 };
}

/** Each change read by a stream or a webhook carries its feed position under this alias, whatever `fields` selects. */
export const POSITION = "streamPosition";

/** The records' selection with the change's id under POSITION (the event's `id:`), whatever `fields` selects. */
export function withPosition(set: SelectionSetNode): SelectionSetNode {
  return {
    ...set,
    selections: [
      ...set.selections,
      {
        kind: Kind.FIELD,
        alias: { kind: Kind.NAME, value: POSITION },
        name: { kind: Kind.NAME, value: "id" },
      },
    ],
  };
}
