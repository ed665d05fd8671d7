import {
  type DocumentNode,
  type GraphQLObjectType,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from "graphql";
import { LRUCache } from "lru-cache";
import { type ReadContext, readContext } from "../context.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import { type DomainListArgs, domainSetOf, domainSortKeys } from "../query/domain-list.ts";
import { type DomainRead, domainReadOfSets, withFields } from "../query/domain-read/plan.ts";
import { streamPlannedDomains } from "../query/domain-read/read.ts";
import { DomainSet, type DomainSetWire } from "../query/domain-set.ts";
import { orderedReads, type SortKey } from "../query/keyset.ts";
import type { DomainRow } from "../query/loaders.ts";
import { field, operation, selection } from "../rest/document.ts";
import { parseFields, type Selection, selectionKey, toSelectionSet } from "../rest/fields.ts";
import { type LegacyWriter, legacyWriter } from "../rest/legacy-writer.ts";
import { domainNamesDocument } from "../rest/routes.ts";
import { type RowsWriter, type RowWriter, rowsWriter, rowWriter } from "../rest/row-writer.ts";
import { withSharedTexts } from "../rest/shared-text.ts";
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
 * generated row writer (src/rest/row-writer.ts). A selection it has no writer for (a field read on
 * request) is answered by the GraphQL operation of a lookup by name (domainsByName, compiled by
 * graphql-jit when first needed) and written by the REST envelope's legacy writer: its stream then
 * reads only the Domains' names, and the lookup reads each Domain. A batch the writer cannot write
 * (a value it cannot take: src/rest/row-writer.ts) is answered the same way.
 * test/rest/row-writer.test.ts holds the two to the same text, byte for byte.
 */
export const BATCH = 1000;
/**
 * A batch of Domains read with child rows or every column: 6–7 KB of text each with the default
 * fields, so that a batch's rows and text die young (within V8's young generation). Batches of
 * 1000 such Domains were promoted, and a 1M export peaked at 930 MB with GC at 35% of its CPU.
 */
export const WIDE_BATCH = 100;
/** domainsByName's own limit: a batch is answered by operations of this many names. */
const CHUNK = 100;
const DOMAIN = schema.getType("Domain") as GraphQLObjectType;

/** List Domains' filter, sort and search, as the REST options give them (GraphQL variables). */
export interface ExportVariables {
  filter?: unknown;
  orderBy?: unknown;
  search?: string | null;
}

/**
 * Which Domains an export writes, in which order: the set of Domains its check resolved on the
 * server's thread (src/query/domain-set.ts: lists and segments read there, as the account's),
 * as it crosses to the export thread, and List Domains' sort keys. The export thread resolves
 * nothing again.
 */
export interface ExportQuery {
  set: DomainSetWire;
  keys: SortKey[];
}

/**
 * The export query of List Domains' `variables` on the snapshot and account of `ctx`: the set of
 * Domains of the operation that checked them (domainSetOf keeps it per operation, so it is not
 * resolved twice), or resolved now.
 */
export async function exportQueryOf(ctx: ReadContext, variables: ExportVariables): Promise<ExportQuery> {
  const args = listArgs(variables);
  const set = await domainSetOf(ctx, args, null);
  return { set: set.toWire(), keys: domainSortKeys(args) };
}

export interface Compiled {
  /** The resolver path: the lookup's operation (compiled when a batch first runs it). */
  lookup: DocumentNode;
  write: LegacyWriter;
  /** The same text straight from the rows (src/rest/row-writer.ts); null: the selection has none. */
  rows: RowWriter | null;
  /** What the stream reads of each Domain: the selection's plan, or its name alone for the resolver path. */
  read: DomainRead;
  /** What it reads when every batch takes the resolver path (writer "resolvers"). */
  names: DomainRead;
  /** The parsed `fields` (what rowsWriter writes several selections from). */
  selection: Selection;
}

const compiled = new LRUCache<string, Compiled>({ max: 100 });
const NAMES: DomainRead = { fields: ["name"], children: [] };

export function compiledLookup(fields: string): Compiled {
  let c = compiled.get(fields);
  if (!c) {
    const sel = parseFields(fields, DOMAIN);
    const set = toSelectionSet(sel);
    const rows = rowWriter(sel, DOMAIN);
    c = {
      lookup: operation(
        "ExportPage",
        { names: "[String!]!" },
        field("domainsByName", ["names"], selection(field("domains", [], set), field("notFound"))),
      ),
      write: legacyWriter(sel),
      rows,
      read: rows ? domainReadOfSets(DOMAIN, [set], []) : NAMES,
      names: NAMES,
      selection: sel,
    };
    compiled.set(fields, c);
  }
  return c;
}

/** `writer: "resolvers"` makes every batch take the resolver path (the parity test compares the two). */
export type WriterChoice = "rows" | "resolvers";

/** A batch's JSON text, a line per Domain, and whether the resolver path wrote it in the row writer's place. */
export interface Batch {
  lines: string[];
  /** Counted in /metrics (storegraph_writer_fallbacks_total): the row writer did not write it. */
  fallback: boolean;
}

/** List Domains' variable definitions (its filter, sort and search), taken from its document once. */
let listVariables: readonly VariableDefinitionNode[] | null = null;

/** The variables of List Domains, coerced as its resolver receives them (enums, dates, inputs). */
export function listArgs(variables: ExportVariables): DomainListArgs {
  listVariables ??=
    domainNamesDocument().definitions.find(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    )?.variableDefinitions ?? [];
  const { coerced, errors } = getVariableValues(schema, listVariables, {
    filter: variables.filter ?? null,
    orderBy: variables.orderBy ?? null,
    search: variables.search ?? null,
  });
  if (errors?.length) throw errors[0];
  return coerced as DomainListArgs;
}

type Found = { domains: Record<string, unknown>[]; notFound: string[] };

/**
 * The JSON text of `rows` (as read for `c`), in their order: written from the rows, or where the
 * row writer cannot, through the lookup's operation.
 */
export async function batchOf(
  ctx: ReadContext,
  c: Compiled,
  rows: DomainRow[],
  writer: WriterChoice,
): Promise<Batch> {
  const write = writer === "rows" ? c.rows : null;
  if (write) {
    const lines = await withSharedTexts(ctx.served, (shared) => rows.map((r) => write(r, ctx, shared)));
    if (!lines.includes(undefined)) return { lines: lines as string[], fallback: false };
  }
  // Every batch the resolver path answers in the row writer's place is counted.
  return { lines: await resolvedLinesOf(ctx, c, rows), fallback: writer === "rows" };
}

const rowsWriters = new LRUCache<string, { write: RowsWriter | null }>({ max: 10 });

/**
 * The texts of `rows` with each of several selections (`cs`), in their order: written from the
 * rows together, each field they share once (rowsWriter), where the row writer can write them all;
 * else each as batchOf writes it.
 */
export async function batchesOf(
  ctx: ReadContext,
  cs: readonly Compiled[],
  rows: DomainRow[],
): Promise<string[][]> {
  const key = cs.map((c) => selectionKey(c.selection)).join("\u0000");
  let entry = rowsWriters.get(key);
  if (!entry) {
    entry = {
      write: rowsWriter(
        cs.map((c) => c.selection),
        DOMAIN,
      ),
    };
    rowsWriters.set(key, entry);
  }
  const { write } = entry;
  if (write) {
    const texts = await withSharedTexts(ctx.served, (shared) => rows.map((r) => write(r, ctx, shared)));
    if (!texts.includes(undefined)) return cs.map((_, k) => texts.map((t) => (t as string[])[k]));
  }
  return Promise.all(cs.map(async (c) => (await batchOf(ctx, c, rows, "rows")).lines));
}

/** The JSON text of the Domains of `rows`, in their order, through the lookup's operation (it reads them). */
async function resolvedLinesOf(ctx: ReadContext, c: Compiled, rows: DomainRow[]): Promise<string[]> {
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
 * The JSON text of every Domain of `query`'s set in the snapshot `served`, in its order, with
 * `fields`: a batch (up to BATCH, or WIDE_BATCH, Domains) at a time.
 */
export async function* domainStream(
  served: ServedSnapshot,
  fields: string,
  query: ExportQuery,
  batch?: number,
  skip = 0,
  writer: WriterChoice = "rows",
): AsyncGenerator<Batch> {
  const c = compiledLookup(fields);
  const read = writer === "rows" ? c.read : c.names;
  const wide = c.rows === null || read.children.length > 0 || read.fields === null;
  const size = batch ?? (wide ? WIDE_BATCH : BATCH);
  const { where } = DomainSet.fromWire(served.sql, query.set);
  // Its names: the resolver path looks a batch's Domains up by them.
  const planned = withFields(read, ["name"]);
  const passOver = { left: skip };
  for (const find of orderedReads(query.keys, where)) {
    for await (const { ctx, rows } of streamPlannedDomains(
      () => readContext(served),
      served.sql,
      find,
      planned,
      size,
      passOver,
    )) {
      yield await batchOf(ctx, c, rows, writer);
    }
  }
}
