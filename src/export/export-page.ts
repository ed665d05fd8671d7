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
import { int8Of } from "../db/copy-binary.ts";
import type { RawRow } from "../db/reader.ts";
import { pieceOf, RENDERED_TABLE, RENDERED_TEXT, type RenderedPage, renderedJoin } from "../db/rendered.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import { findStatement, sqlitePlan } from "../db/where-sql.ts";
import type { DomainFilter } from "../query/domain-filter.ts";
import { type DomainListArgs, domainListWhere, domainSortKeys } from "../query/domain-list.ts";
import { type DomainRead, domainReadOfSets, withFields } from "../query/domain-read/plan.ts";
import { streamPlannedDomains } from "../query/domain-read/read.ts";
import { orderedReads } from "../query/keyset.ts";
import type { DomainRow } from "../query/loaders.ts";
import { field, operation, selection } from "../rest/document.ts";
import { parseFields, toSelectionSet } from "../rest/fields.ts";
import { type LegacyWriter, legacyWriter } from "../rest/legacy-writer.ts";
import { domainNamesDocument } from "../rest/routes.ts";
import { type RowWriter, rowWriter } from "../rest/row-writer.ts";
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
  /** The same text straight from the rows (src/rest/row-writer.ts); null: the selection has none. */
  rows: RowWriter | null;
  /** What the stream reads of each Domain: the selection's plan, or its name alone for the resolver path. */
  read: DomainRead;
  /** What it reads when every batch takes the resolver path (writer "resolvers"). */
  names: DomainRead;
}

const compiled = new LRUCache<string, Compiled>({ max: 100 });
const NAMES: DomainRead = { fields: ["name"], children: [] };

function compiledLookup(fields: string): Compiled {
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
function listArgs(query: ExportQuery): DomainListArgs {
  listVariables ??=
    domainNamesDocument().definitions.find(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    )?.variableDefinitions ?? [];
  // A list's names, read before the export (export-query.ts: withListNames), are no GraphQL
  // input: coerced without them, then put back where they were.
  const filter = query.filter as DomainFilter | null | undefined;
  const own = (f: DomainFilter) => {
    const { listNames: _names, segmentKeys: _keys, ...rest } = f;
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
    const back = (to: DomainFilter, from: DomainFilter): DomainFilter => ({
      ...to,
      ...(from.listNames ? { listNames: from.listNames } : {}),
      ...(from.segmentKeys ? { segmentKeys: from.segmentKeys } : {}),
    });
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
 * row writer cannot, through the lookup's operation.
 */
async function batchOf(
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
): AsyncGenerator<Batch> {
  const c = compiledLookup(fields);
  const read = writer === "rows" ? c.read : c.names;
  const wide = c.rows === null || read.children.length > 0 || read.fields === null;
  const size = batch ?? (wide ? WIDE_BATCH : BATCH);
  const args = listArgs(query);
  const where = await domainListWhere(readContext(served), args, null);
  // Its names: the resolver path looks a batch's Domains up by them.
  const planned = withFields(read, ["name"]);
  const passOver = { left: skip };
  for (const find of orderedReads(domainSortKeys(args), where)) {
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

/** A page of a load's rendering (src/db/rendered.ts), with how many Domains it holds. */
export interface Pieces extends RenderedPage {
  count: number;
}

/** A page of rendered pieces as an export reads them: each one's body (a view of what was read), CRC-32 and text length. */
export interface ReadPieces {
  bodies: Uint8Array[];
  crcs: Uint32Array;
  lens: Uint32Array;
}

/** A page of rendered texts as an export reads them (PostgreSQL's RENDERED_TEXT): views of what was read. */
export interface ReadTexts {
  texts: Uint8Array[];
}

/**
 * The pieces of every Domain whose key is in [from, to), in key order, for the rendered records of
 * a load (src/render.ts): each Domain's text with the default fields, as the export writes
 * it (the row writer, or the resolver path where it cannot), one piece per Domain.
 */
export async function* renderStream(
  served: ServedSnapshot,
  from: number,
  to: number,
  withText = false,
): AsyncGenerator<Pieces> {
  const c = compiledLookup("");
  const planned = withFields(c.read, ["name", "pk"]);
  const find = { where: { pk: { gte: from, lt: to } }, orderBy: [{ pk: "asc" }] };
  for await (const { ctx, rows } of streamPlannedDomains(
    () => readContext(served),
    served.sql,
    find,
    planned,
    WIDE_BATCH,
  )) {
    const { lines } = await batchOf(ctx, c, rows, "rows");
    const n = lines.length;
    const pks = new Float64Array(n);
    const crcs = new Uint32Array(n);
    const lens = new Uint32Array(n);
    const ends = new Uint32Array(n);
    const bodies: Buffer[] = [];
    const texts: Buffer[] = [];
    const textEnds = withText ? new Uint32Array(n) : null;
    let at = 0;
    let textAt = 0;
    for (let i = 0; i < n; i++) {
      const text = Buffer.from(lines[i], "utf8");
      const piece = pieceOf(text);
      pks[i] = rows[i].pk;
      crcs[i] = piece.crc;
      lens[i] = piece.len;
      at += piece.body.length;
      ends[i] = at;
      bodies.push(piece.body);
      if (textEnds) {
        textAt += text.length;
        textEnds[i] = textAt;
        texts.push(text);
      }
    }
    const page: Pieces = { count: n, bytes: Buffer.concat(bodies, at), pks, crcs, lens, ends };
    if (textEnds) Object.assign(page, { texts: Buffer.concat(texts, textAt), textEnds });
    yield page;
  }
}

/**
 * The rendered pieces of every Domain that List Domains' `query` matches, in its order (the same
 * statement as domainStream's, reading each Domain's piece instead of its columns), a batch of
 * BATCH at a time; null when the snapshot has no rendered records of this code (renderedFor).
 */
export function renderedPieces(
  served: ServedSnapshot,
  query: ExportQuery,
  skip?: number,
): AsyncGenerator<ReadPieces>;
export function renderedPieces(
  served: ServedSnapshot,
  query: ExportQuery,
  skip: number,
  form: "text",
): AsyncGenerator<ReadTexts>;
/**
 * `form` "text": the Domains' texts instead (PostgreSQL's RENDERED_TEXT, where the snapshot keeps
 * them: RenderedInfo's `text`), for an export that does not take gzip.
 */
export async function* renderedPieces(
  served: ServedSnapshot,
  query: ExportQuery,
  skip = 0,
  form: "pieces" | "text" = "pieces",
): AsyncGenerator<ReadPieces | ReadTexts> {
  const args = listArgs(query);
  const where = await domainListWhere(readContext(served), args, null);
  const { sql } = served;
  // PostgreSQL: the cursor reads the Domains' keys in order, and each batch's pieces come by a
  // binary COPY (src/db/copy-binary.ts): a FETCH answered the pieces as hex text, the server
  // writing it and the driver decoding it (src/db/reader.ts, `copy`).
  const pg = sql.kind === "postgresql";
  const texts = form === "text";
  if (texts && !pg) throw new Error("only PostgreSQL keeps the rendered texts");
  const copy = pg
    ? (keys: RawRow[]) =>
        `SELECT ${texts ? 'x."text"' : 'x."crc", x."len", x."body"'} FROM unnest('{${keys.map((k) => Number(k[0])).join(",")}}'::bigint[]) WITH ORDINALITY k("pk", "i") JOIN ${sql.table(texts ? RENDERED_TEXT : RENDERED_TABLE)} x ON x."domain_pk" = k."pk" ORDER BY k."i"`
    : undefined;
  for (const find of orderedReads(domainSortKeys(args), where)) {
    const { text, params } = pg
      ? findStatement(sql, "domain", find, 'r."pk"', await sqlitePlan(sql, "domain", find))
      : findStatement(
          sql,
          "domain",
          find,
          'x."crc", x."len", x."body"',
          await sqlitePlan(sql, "domain", find),
          renderedJoin(sql, "r."),
        );
    // Domains passed over (a resumed job): on PostgreSQL, before their pieces are asked for.
    const pass = (rows: RawRow[]) => {
      const passed = Math.min(skip, rows.length);
      skip -= passed;
      return passed ? rows.slice(passed) : rows;
    };
    const copyOf = copy && ((keys: RawRow[]) => copy(pass(keys)));
    for await (let raw of sql.stream(text, params, BATCH, copyOf)) {
      raw = pass(raw);
      if (!raw.length) continue;
      const n = raw.length;
      if (texts) {
        // Each text as it was read (a view of the COPY's output): the page copies it once.
        const page: Uint8Array[] = new Array(n);
        for (let i = 0; i < n; i++) page[i] = raw[i][0] as Buffer;
        yield { texts: page };
        continue;
      }
      const crcs = new Uint32Array(n);
      const lens = new Uint32Array(n);
      // Each body as it was read (a view of the COPY's output, or SQLite's own buffer): the page
      // copies it once, into the joined stream (src/db/rendered.ts: joinPieces).
      const bodies: Uint8Array[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const row = raw[i];
        crcs[i] = pg ? int8Of(row[0] as Buffer) : Number(row[0]);
        lens[i] = pg ? int8Of(row[1] as Buffer) : Number(row[1]);
        bodies[i] = row[2] as Buffer;
      }
      yield { bodies, crcs, lens };
    }
  }
}
