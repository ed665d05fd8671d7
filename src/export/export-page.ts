import {
  type DocumentNode,
  type GraphQLObjectType,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type VariableDefinitionNode,
} from "graphql";
import { LRUCache } from "lru-cache";
import { type ReadContext, readContext } from "../context.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import type { DomainFilter } from "../query/domain-filter.ts";
import { type DomainListArgs, domainListWhere, domainSortKeys } from "../query/domain-list.ts";
import { domainReadOfSets } from "../query/domain-read/plan.ts";
import { streamPlannedDomains } from "../query/domain-read/read.ts";
import { orderedReads } from "../query/keyset.ts";
import type { DomainRow } from "../query/loaders.ts";
import { field, operation, selection } from "../rest/document.ts";
import { type LegacyWriter, legacyWriter, parseFields, toSelectionSet } from "../rest/fields.ts";
import { domainNamesDocument } from "../rest/routes.ts";
import { NOT_WRITTEN, type RowWriter, rowWriter } from "../rest/row-writer.ts";
import { withSharedTexts } from "../rest/shared-text.ts";
import { DOMAIN_LOOKUP } from "../schema/domain.ts";
import { execute } from "../schema/execute.ts";
import { schema } from "../schema/index.ts";

/**
 * Every Domain of an export or cursor=all job, as List Domains answers them, on the export thread
 * (src/export/export-worker.ts).
 *
 * Which Domains, in which order, is List Domains' own statement (src/query/domain-list.ts: the
 * same `where` and sort keys as a page), read through one database cursor with the columns and
 * child rows the selection needs (streamPlannedDomains): each Domain is read once, in its order,
 * and a batch of rows is all the export holds. Each batch is then written from its rows by the
 * generated row writer (src/rest/row-writer.ts), or, where it stops, answered by the GraphQL
 * operation of a lookup by name (domainsByName, compiled by graphql-jit when first needed) that is
 * handed the batch's rows (as a REST request's records: RecordHandoff, src/context.ts), and
 * written by the REST envelope's legacy writer.
 * test/rest/row-writer.test.ts holds the two to the same text, byte for byte.
 */
const BATCH = 1000;
/**
 * A batch of Domains read with child rows or every column: 6–7 KB of text each with the default
 * fields, so that a batch's rows and text die young (within V8's young generation). Batches of
 * 1000 such Domains were promoted, and a 1M export peaked at 930 MB with GC at 35% of its CPU.
 */
const WIDE_BATCH = 100;
/** domainsByName's own limit: a batch is answered by operations of this many names. */
const CHUNK = 100;
const DOMAIN = schema.getType("Domain") as GraphQLObjectType;

/** List Domains' filter, sort and search, as the REST options give them (GraphQL variables). */
export interface ExportQuery {
  filter?: unknown;
  orderBy?: unknown;
  search?: string | null;
}

interface Compiled {
  /** The resolver path: the lookup's operation (compiled when a batch first runs it). */
  lookup: DocumentNode;
  write: LegacyWriter;
  /** The same text straight from the rows (src/rest/row-writer.ts). */
  rows: RowWriter;
  /** The row writer stopped on this selection's structure (NOT_WRITTEN): batches skip it. */
  resolversOnly?: boolean;
  /** The selection under `domains`: the records the resolver path is handed (RecordHandoff). */
  set: SelectionSetNode;
  /** What a lookup by name of this selection reads: the rows of a batch are read so. */
  read: ReturnType<typeof domainReadOfSets>;
}

const compiled = new LRUCache<string, Compiled>({ max: 100 });

function compiledLookup(fields: string): Compiled {
  let c = compiled.get(fields);
  if (!c) {
    const sel = parseFields(fields, DOMAIN);
    const set = toSelectionSet(sel);
    // domainsByName reads its Domains as domainReadOf plans the selection under `domains`.
    c = {
      lookup: operation(
        "ExportPage",
        { names: "[String!]!" },
        field("domainsByName", ["names"], selection(field("domains", [], set), field("notFound"))),
      ),
      write: legacyWriter(sel),
      rows: rowWriter(sel, DOMAIN),
      set,
      read: domainReadOfSets(DOMAIN, [set], DOMAIN_LOOKUP),
    };
    compiled.set(fields, c);
  }
  return c;
}

/**
 * Batches the row writer left to the resolver path since the last call (the export thread sends
 * the count with each page; /metrics counts them: storegraph_writer_fallbacks_total).
 */
let fallbacks = 0;
export function takeFallbacks(): number {
  const n = fallbacks;
  fallbacks = 0;
  return n;
}

/** `writer: "resolvers"` makes every batch take the resolver path (the parity test compares the two). */
export type WriterChoice = "rows" | "resolvers";

/** List Domains' variable definitions (its filter, sort and search), taken from its document once. */
let listVariables: readonly VariableDefinitionNode[] | null = null;

/** The variables of List Domains, coerced as its resolver receives them (enums, dates, inputs). */
function listArgs(query: ExportQuery): DomainListArgs {
  listVariables ??=
    domainNamesDocument().definitions.find(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    )?.variableDefinitions ?? [];
  // A list's names, read before the export (export-query.ts: withListNames), are no GraphQL
  // input: coerced without them, then put back where they were.
  const filter = query.filter as DomainFilter | null | undefined;
  const own = (f: DomainFilter) => {
    const { listNames: _names, ...rest } = f;
    return rest;
  };
  const { coerced, errors } = getVariableValues(schema, listVariables, {
    filter: filter ? { ...own(filter), ...(filter.and ? { and: filter.and.map(own) } : {}) } : null,
    orderBy: query.orderBy ?? null,
    search: query.search ?? null,
  });
  if (errors?.length) throw errors[0];
  const args = coerced as DomainListArgs;
  if (filter && args.filter) {
    const back = (to: DomainFilter, from: DomainFilter): DomainFilter =>
      from.listNames ? { ...to, listNames: from.listNames } : to;
    args.filter = {
      ...back(args.filter, filter),
      ...(args.filter.and && filter.and
        ? { and: args.filter.and.map((term, i) => back(term, (filter.and as DomainFilter[])[i])) }
        : {}),
    };
  }
  return args;
}

type Found = { domains: Record<string, unknown>[]; notFound: string[] };

/**
 * The JSON text of `rows` (as read for `c`), in their order: written from the rows, or where the
 * row writer stops, through the lookup's operation.
 */
async function linesOf(
  ctx: ReadContext,
  c: Compiled,
  rows: DomainRow[],
  writer: WriterChoice,
): Promise<string[]> {
  if (writer === "rows") {
    // Every batch the resolver path answers is counted, whether it tried the writer first or not.
    if (c.resolversOnly) fallbacks++;
    else {
      try {
        return await withSharedTexts(ctx.served, (shared) => rows.map((r) => c.rows(r, ctx, shared)));
      } catch (e) {
        // NOT_WRITTEN (the next batches of this selection go straight to the resolver path), or
        // anything a resolver threw: the resolver path answers, or fails with its own error.
        if (e === NOT_WRITTEN) c.resolversOnly = true;
        fallbacks++;
      }
    }
  }
  return resolvedLinesOf(ctx, c, rows);
}

/** The JSON text of `rows` (as read for `c`), in their order, through the lookup's operation. */
async function resolvedLinesOf(ctx: ReadContext, c: Compiled, rows: DomainRow[]): Promise<string[]> {
  // The batch's rows, read as the lookup plans its `domains` (c.read), are handed over as REST
  // hands its records over (src/context.ts): the lookup reads none of them again.
  ctx.records = { set: c.set, rows: new Map(rows.map((r) => [r.name, r])) };
  const chunks: Promise<string[]>[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const names = rows.slice(i, i + CHUNK).map((r) => r.name);
    chunks.push(
      execute(c.lookup, { names }, ctx).then((result) => {
        if (result.errors?.length) throw result.errors[0].originalError ?? result.errors[0];
        const found = (result.data as { domainsByName: Found }).domainsByName;
        if (found.notFound.length) throw new Error(`${found.notFound.join(", ")} were read but not found`);
        return withSharedTexts(ctx.served, (shared) => found.domains.map((d) => c.write(d, shared)));
      }),
    );
  }
  return (await Promise.all(chunks)).flat();
}

/**
 * The JSON text of every Domain that List Domains' `query` matches in the snapshot `sql` reads, in
 * its order, with `fields`: a batch (up to BATCH, or WIDE_BATCH, Domains) at a time.
 */
export async function* domainStream(
  served: ServedSnapshot,
  fields: string,
  query: ExportQuery,
  batch?: number,
  skip = 0,
  writer: WriterChoice = "rows",
): AsyncGenerator<string[]> {
  const c = compiledLookup(fields);
  const size = batch ?? (c.read.children.length || c.read.fields === null ? WIDE_BATCH : BATCH);
  const args = listArgs(query);
  const where = await domainListWhere(readContext(served), args, null);
  const passOver = { left: skip };
  for (const find of orderedReads(domainSortKeys(args), where)) {
    for await (const { ctx, rows } of streamPlannedDomains(
      () => readContext(served),
      served.sql,
      find,
      c.read,
      size,
      passOver,
    )) {
      yield await linesOf(ctx, c, rows, writer);
    }
  }
}
