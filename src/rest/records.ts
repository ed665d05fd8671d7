import type { DocumentNode, GraphQLObjectType } from "graphql";
import type { ReadContext } from "../context.ts";
import { InputError, isApiError } from "../errors.ts";
import { domainListPage, findDomain, findDomains } from "../query/domain-read/lookup.ts";
import { type DomainRead, domainReadOfSets, RENDERED_READ } from "../query/domain-read/plan.ts";
import { renderedText } from "../query/domain-read/rendered-rows.ts";
import { schema } from "../schema/index.ts";
import { rootArguments } from "./document.ts";
import type { GraphQLErrorJson } from "./errors.ts";
import { type Selection, toSelectionSet } from "./fields.ts";
import { type RowWriter, rowWriter } from "./row-writer.ts";

/**
 * REST Domain answers (Retrieve, Bulk retrieve, a page of List Domains) read through the query
 * layer's typed functions (src/query/domain-read/lookup.ts) and written from their rows by the
 * generated row writer (src/rest/row-writer.ts), without executing their GraphQL operation: the
 * operation adds nothing to them but its walk of every field (docs/decisions.md, "REST Domain
 * answers"). What the operation did besides is done here by the same code: its arguments are the
 * route's variables, checked and coerced by the schema as GraphQL checks them (refusedText, then
 * the variables' types, then the root field's arguments), the budget is drawn on before the read
 * (src/rest/answer.ts), and the readers are the resolvers' own.
 *
 * A plan is made once per route and selection: what the records read (`read`), the writer of one
 * record (`write`), and the reader of the route's root field (`answer`). A selection the writer
 * cannot write (a field read on request) has none: it is answered through GraphQL.
 */
export interface RecordsPlan {
  read: DomainRead;
  /** One record's JSON: written (a string), or a rendered record's bytes as kept (UTF-8). */
  write: (...args: Parameters<RowWriter>) => string | Uint8Array | undefined;
  /** The route's root field's value, as its resolver gives it (a Domain row, DomainsByName, a Connection). */
  answer(ctx: ReadContext, args: Record<string, unknown>): Promise<unknown>;
  /** The root field's arguments, from the route's variables (an error names the argument, as GraphQL's do). */
  args(variables: Record<string, unknown>): Record<string, unknown>;
}

/** What a REST Domain route's root field reads, by the field's name: the query layer's readers. */
const READERS: Record<string, (ctx: ReadContext, args: never, read: DomainRead) => Promise<unknown>> = {
  domain: (ctx, args: { name: string; followRedirects?: boolean | null }, read) =>
    findDomain(ctx, read, args),
  domainsByName: (ctx, args: { names: string[]; followRedirects?: boolean | null }, read) =>
    findDomains(ctx, read, args),
  domains: (ctx, args: Parameters<typeof domainListPage>[2], read) =>
    domainListPage(ctx, read, args, null, "domains"),
};

const DOMAIN = () => schema.getType("Domain") as GraphQLObjectType;

/**
 * The records plan of a route whose root field READERS reads, for `sel`; null when the row writer
 * cannot write `sel` (answered through GraphQL); undefined for any other route.
 */
export function recordsPlanOf(
  root: string,
  document: () => DocumentNode,
  sel: Selection,
): RecordsPlan | null | undefined {
  const reader = READERS[root];
  if (!reader) return undefined;
  const write = rowWriter(sel, DOMAIN());
  if (!write) return null;
  const read = domainReadOfSets(DOMAIN(), [toSelectionSet(sel)], []);
  return {
    read,
    write,
    answer: (ctx, args) => reader(ctx, args as never, read),
    args: (variables) => rootArguments(document(), variables),
  };
}

/**
 * The records plan of a route whose root field READERS reads, answering with the default fields
 * from the snapshot's rendered records (src/db/rendered.ts): each Domain's key, name and text are
 * read, and the text written as it is; undefined for any other route.
 */
export function renderedPlanOf(root: string, document: () => DocumentNode): RecordsPlan | undefined {
  const reader = READERS[root];
  if (!reader) return undefined;
  const read = RENDERED_READ;
  return {
    read,
    write: (record) => renderedText(record),
    answer: (ctx, args) => reader(ctx, args as never, read),
    args: (variables) => rootArguments(document(), variables),
  };
}

/**
 * A thrown error as GraphQL reports it (the shape restErrorOf reads): an InputError names its
 * argument as BAD_USER_INPUT, an error of the API keeps its extensions; null for a fault.
 */
export function errorJsonOf(e: unknown): GraphQLErrorJson | null {
  if (e instanceof InputError)
    return { message: e.message, extensions: { code: "BAD_USER_INPUT", argument: e.argument } };
  if (isApiError(e))
    return { message: e.message, extensions: e.extensions as GraphQLErrorJson["extensions"] };
  return null;
}
