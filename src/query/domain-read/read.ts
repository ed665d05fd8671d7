import DataLoader from "dataloader";
import { LRUCache } from "lru-cache";
import type { ReadContext } from "../../context.ts";
import {
  CHILD_ROWS_TABLE,
  childArraySql,
  DOMAIN_CHILDREN,
  type DomainChild,
} from "../../db/domain-children.ts";
import { columnsOf, selectList, toModel } from "../../db/model-rows.ts";
import { perReader } from "../../db/per-reader.ts";
import type { RawRow, SqlReader } from "../../db/reader.ts";
import { renderedJoin } from "../../db/rendered.ts";
import { sqlitePlan } from "../../db/sqlite-plan.ts";
import { findStatement, type Where } from "../../db/where-sql.ts";
import type { DomainApp, DomainTechnology, Technology } from "../../generated/sqlite/client.ts";
import {
  type AppRow,
  allBut,
  appByPk,
  byKey,
  DOMAIN_OMITTED,
  type DomainRow,
  domainProduct,
  loader,
  technologyByPk,
} from "../loaders.ts";
import { type DomainRead, readKey } from "./plan.ts";
import { renderedTexts } from "./rendered-rows.ts";

/**
 * The reads of a Domain read plan (./plan.ts): the Domains' columns and child rows in one
 * statement, the shared Apps and technologies the child rows name attached by key (kept per
 * snapshot: sharedLoader in ../loaders.ts), by key or name (plannedDomainByPk/Name, resolvers) or
 * through one database cursor (streamPlannedDomains, exports). The rendered records a read gives
 * its rows are ./rendered-rows.ts.
 */

/** How the Domains of a planned read are matched: by key, by name, or by name or platform domain. */
export type DomainMatch = "pk" | "name" | "nameOrPlatformDomain";
/** The select list of a planned read: the Domain's columns, then a JSON array per child table. */
interface PlannedSelect {
  list: string;
  /** What the statement's FROM joins to its Domain table (the snapshot's child rows), or "". */
  join: string;
  columns: ReturnType<typeof columnsOf>;
  /** Per child in read.children: its columns. */
  children: { child: DomainChild; columns: ReturnType<typeof columnsOf> }[];
  /**
   * Whether the list ends with the rendered record (read.rendered): its CRC-32, length and piece.
   */
  rendered: boolean;
}
interface PlannedStatement extends PlannedSelect {
  text: string;
}

/**
 * The select list of a planned read of Domains aliased `alias`, on either database: the Domain's
 * selected columns and, per child table, its rows as one JSON array per Domain: `kept`, through
 * one join on the key of the snapshot's child rows (CHILD_ROWS_TABLE, src/db/domain-children.ts;
 * `join`, aliased k), else through a correlated subquery per child (childArraySql). The Apps and technologies the rows name are not joined in: they are shared by
 * many Domains and kept per snapshot (sharedLoader), so a page reads only those no request has read
 * yet (joined in, every page built and parsed them again as JSON).
 */
function plannedSelect(sql: SqlReader, read: DomainRead, alias: string, kept: boolean): PlannedSelect {
  const columns = columnsOf("domain", read.fields ? allBut("domain", read.fields) : DOMAIN_OMITTED);
  const children = read.children.map((child) => ({
    child,
    columns: columnsOf(DOMAIN_CHILDREN[child].table),
  }));
  const arrays = children.map(({ child }) =>
    kept ? `, k."${child}"` : `, ${childArraySql(sql.kind, sql.table.bind(sql), child, alias)}`,
  );
  let join = kept ? ` LEFT JOIN ${sql.table(CHILD_ROWS_TABLE)} k ON k."domain_pk" = ${alias}"pk"` : "";
  const rendered = read.rendered === true;
  if (rendered) join += renderedJoin(sql, alias);
  const piece = rendered ? ', x."crc", x."len", x."body"' : "";
  return {
    list: `${selectList(columns, alias)}${arrays.join("")}${piece}`,
    join,
    columns,
    children,
    rendered,
  };
}

const statements = new LRUCache<string, PlannedStatement>({ max: 500 });

/** The statement of a planned read of the Domains that keys match (bound at $1, as one list). */
function plannedStatement(
  sql: SqlReader,
  match: DomainMatch,
  read: DomainRead,
  single: boolean,
  kept: boolean,
): PlannedStatement {
  // The table names tell apart the snapshots of PostgreSQL (a schema each).
  const cacheKey = `${sql.kind}|${match}|${single}|${kept}|${readKey(read)}|${sql.table("domain")}`;
  const cached = statements.get(cacheKey);
  if (cached) return cached;
  const select = plannedSelect(sql, read, "d.", kept);
  // One key is a plain equality (about twice as fast as a list of one on SQLite; see keysMatch).
  const is = (column: string) => (single ? `${column} = $1` : sql.anyOf(column, 1));
  const where =
    match === "pk"
      ? is('d."pk"')
      : match === "name"
        ? is('d."name"')
        : `${is('d."name"')} OR ${is('d."platform_domain"')}`;
  const statement = {
    ...select,
    text: `SELECT ${select.list} FROM ${sql.table("domain")} d${select.join} WHERE ${where}`,
  };
  statements.set(cacheKey, statement);
  return statement;
}

/**
 * The child rows a planned read gave a Domain row, by child (only the children it planned): the
 * relation fields resolve from them at once, without a loader's promise per field and Domain. An
 * installed App's row carries its App, a technology row its technology. They are read through the
 * typed accessors below (plannedRows, plannedApp, plannedTechnology) only: the keys they are kept
 * under are this module's own. They stay properties of the rows (a field each, set in the same
 * order on every row, so rows keep one hidden class) rather than entries of a WeakMap, which
 * would cost a hash lookup per field and Domain, and ephemeron work per collection, on the export's
 * hot path.
 */
const PLANNED = Symbol("planned child rows");
const APP_OF = Symbol("the installed App's row");
const TECHNOLOGY_OF = Symbol("the technology's row");
type PlannedRow = { [PLANNED]?: Partial<Record<DomainChild, unknown[]>> };

/** The rows that a planned read gave `row` for `child`; undefined when it did not plan them. */
export const plannedRows = <R>(row: object, child: DomainChild): R[] | undefined =>
  (row as PlannedRow)[PLANNED]?.[child] as R[] | undefined;

/** The App a planned read attached to an installed App's row (plannedRows(d, "apps")); else undefined. */
export const plannedApp = (row: DomainApp): AppRow | null | undefined =>
  (row as { [APP_OF]?: AppRow | null })[APP_OF];

/** The technology a planned read attached to a technology row (plannedRows(d, "technologies")). */
export const plannedTechnology = (row: DomainTechnology): Technology | null | undefined =>
  (row as { [TECHNOLOGY_OF]?: Technology | null })[TECHNOLOGY_OF];

/**
 * Whether a read takes its children from the rows the snapshot keeps (one probe of their key) or
 * through a correlated subquery per child: the kept rows when it reads two children or more. One
 * child is one probe either way, and the kept row is the wider read: a GraphQL Domain with its
 * Apps only measured 0.89–0.94× the req/s through it (1M Domains, PostgreSQL, three runs).
 */
const joinsKeptChildren = (read: DomainRead) => read.children.length > 1;

/**
 * Reads the Domains that `keys` match with what `read` plans, in one statement, and gives each row
 * its child rows (PLANNED), the Apps and technologies they name attached (from the rows kept per
 * snapshot: sharedLoader), so that the resolvers of the selection find their values at once.
 */
export async function readPlannedDomains(
  ctx: ReadContext,
  sql: SqlReader,
  match: DomainMatch,
  keys: readonly (number | string)[],
  read: DomainRead,
): Promise<DomainRow[]> {
  const single = keys.length === 1;
  const kept = joinsKeptChildren(read);
  if (sql.kind === "postgresql") {
    const s = plannedStatement(sql, match, read, false, kept);
    const columns = keyColumns(s, match);
    if (columns)
      return domainRowsOf(ctx, s, read, await coalesced({ sql, match, read, kept, s, columns }, keys));
  }
  const s = plannedStatement(sql, match, read, single, kept);
  return domainRowsOf(ctx, s, read, await sql.all(s.text, [single ? keys[0] : sql.keysParam(keys)]));
}

/**
 * The Domains `pks`, in that order, read as `read` plans (which must read `pk`); a key that names
 * no Domain is an error, `what` saying whose read lost it.
 */
export async function readDomainsInOrder(
  ctx: ReadContext,
  sql: SqlReader,
  pks: ArrayLike<number>,
  read: DomainRead,
  what: string,
): Promise<DomainRow[]> {
  const keys = Array.from(pks);
  const rows = await readPlannedDomains(ctx, sql, "pk", keys, read);
  const byPk = new Map(rows.map((r) => [Number(r.pk), r]));
  return keys.map((pk) => {
    const row = byPk.get(pk);
    if (!row) throw new Error(`Domain ${pk} vanished between ${what}`);
    return row;
  });
}

/**
 * The reads of the same plan that requests make in one turn of the event loop, read by one
 * statement (PostgreSQL) of all their keys: concurrent lookups of a Domain by name, or the rows of
 * concurrent pages, each cost the gateway a pooled connection, a write to the socket and the
 * parsing of a result, and the database a statement; read together, those are shared by all of
 * them (at 1M Domains and 32 connections, twice the lookups a second at half the gateway's CPU
 * each). A DataLoader per snapshot reader and plan statement batches them, without a cache: a
 * batch is read when the turn's I/O callbacks have run (setImmediate), so a read waits for no
 * timer, and nothing is kept after it. A batch of one key is read by the single-key statement.
 * SQLite reads in the process, where a statement per read is cheaper. Each read gets the rows its
 * own statement would have given: those that match its keys.
 */
const planLoaders = perReader<"plans", LRUCache<string, DataLoader<number | string, RawRow[]>>>(
  () => new LRUCache({ max: 500 }),
);
/** The most keys a batch reads (a page of 1000 Domains and its look-ahead row fits in one). */
const BATCH_KEYS = 2000;

/** Where a planned statement's rows have the values `match` matches keys on; null if it lacks one. */
function keyColumns(s: PlannedStatement, match: DomainMatch): number[] | null {
  const fields = match === "pk" ? ["pk"] : match === "name" ? ["name"] : ["name", "platformDomain"];
  const at = fields.map((f) => s.columns.findIndex((c) => c.field === f));
  return at.every((i) => i >= 0) ? at : null;
}

/** What a batch is read by: its plan's statement on one snapshot reader. */
interface BatchPlan {
  sql: SqlReader;
  match: DomainMatch;
  read: DomainRead;
  kept: boolean;
  /** The plan's statement of a list of keys. */
  s: PlannedStatement;
  /** Where its rows have the values keys are matched on (keyColumns). */
  columns: number[];
}

async function coalesced(plan: BatchPlan, keys: readonly (number | string)[]): Promise<RawRow[]> {
  const loaders = planLoaders(plan.sql, "plans");
  let loader = loaders.get(plan.s.text);
  if (!loader) {
    loader = new DataLoader((batch) => readBatch(plan, batch), {
      cache: false,
      maxBatchSize: BATCH_KEYS,
      batchScheduleFn: (run) => setImmediate(run),
    });
    loaders.set(plan.s.text, loader);
  }
  const lists = await loader.loadMany(keys);
  const failed = lists.find((l) => l instanceof Error);
  if (failed) throw failed;
  if (lists.length === 1) return lists[0] as RawRow[];
  // A row two of its keys match (a name and a platform domain) is given once.
  return [...new Set((lists as RawRow[][]).flat())];
}

/** The rows of each key of a batch: those the key matches. */
async function readBatch(plan: BatchPlan, asked: readonly (number | string)[]): Promise<RawRow[][]> {
  const { sql, match, read, kept, s, columns } = plan;
  // Each key once (requests may ask the same), as given (a Domain's key is a number).
  const keys = [...new Map(asked.map((k) => [String(k), k])).values()];
  const raw =
    keys.length === 1
      ? await sql.all(plannedStatement(sql, match, read, true, kept).text, [keys[0]])
      : await sql.all(s.text, [sql.keysParam(keys)]);
  // By the key's text: PostgreSQL gives a BIGINT key as text.
  const rowsOf = new Map<string, RawRow[]>();
  for (const row of raw) {
    for (const i of columns) {
      const k = row[i];
      if (k === null || k === undefined) continue;
      const list = rowsOf.get(String(k));
      if (!list) rowsOf.set(String(k), [row]);
      else if (!list.includes(row)) list.push(row);
    }
  }
  return asked.map((k) => rowsOf.get(String(k)) ?? []);
}

/**
 * The Domain rows of a planned read's `raw` rows, each with its child rows (PLANNED) and the Apps
 * and technologies they name attached.
 */
async function domainRowsOf(
  ctx: ReadContext,
  s: PlannedSelect,
  read: DomainRead,
  raw: readonly RawRow[],
): Promise<DomainRow[]> {
  const rows = toModel<DomainRow & PlannedRow>(s.columns, raw);
  if (s.children.length) for (const r of rows) r[PLANNED] = {};
  const installed: DomainApp[] = [];
  const detected: DomainTechnology[] = [];
  s.children.forEach(({ child, columns }, k) => {
    const n = s.columns.length + k;
    for (let i = 0; i < rows.length; i++) {
      let list = raw[i][n] as RawRow[] | string | null;
      if (typeof list === "string") list = JSON.parse(list) as RawRow[];
      const childRows = list ? toModel<Record<string, unknown>>(columns, list) : [];
      (rows[i][PLANNED] as Record<string, unknown[]>)[child] = childRows;
      if (child === "apps") installed.push(...(childRows as DomainApp[]));
      else if (child === "technologies") detected.push(...(childRows as DomainTechnology[]));
    }
  });
  if (installed.length || detected.length) {
    await Promise.all([
      attach(installed, (r) => r.appPk, appByPk(ctx), APP_OF),
      attach(detected, (r) => r.technologyPk, technologyByPk(ctx), TECHNOLOGY_OF),
    ]);
  }
  if (s.rendered) renderedTexts(ctx, rows, raw, s.columns.length + s.children.length);
  if (read.fields?.includes("mostRecentlyPublishedProduct")) {
    const product = domainProduct(ctx);
    for (const r of rows)
      product.prime(
        r.pk,
        (r as { mostRecentlyPublishedProduct?: unknown }).mostRecentlyPublishedProduct ?? null,
      );
  }
  return rows;
}

/**
 * Every Domain that `args` finds (its where and order, src/db/where-sql.ts), read as `read` plans
 * through one database cursor, `batch` rows at a time (exports): each batch as readPlannedDomains
 * gives them. `ctxOf` gives each batch its context, so that no loader keeps a batch past its turn.
 */
export async function* streamPlannedDomains(
  ctxOf: () => ReadContext,
  sql: SqlReader,
  args: { where: Where; orderBy: Where[] },
  read: DomainRead,
  batch: number,
  /** Rows to pass over first, unread beyond their raw values (a resumed export job); counted down. */
  skip: { left: number } = { left: 0 },
): AsyncGenerator<{ ctx: ReadContext; rows: DomainRow[] }> {
  const kept = joinsKeptChildren(read);
  const select = plannedSelect(sql, read, "r.", kept);
  // Read to its end: on SQLite, the rows of a read of named columns alone are sorted once
  // gathered (sqlitePlan's `whole`). Rows with child rows or every column (several KB each) are
  // not: their sort would spill gigabytes into temporary files at a million Domains.
  const narrow = read.fields !== null && !read.children.length && !read.rendered;
  const { text, params } = findStatement(
    sql,
    "domain",
    args,
    select.list,
    await sqlitePlan(sql, "domain", args, narrow),
    select.join,
  );
  for await (let raw of sql.stream(text, params, batch)) {
    if (skip.left) {
      const passed = Math.min(skip.left, raw.length);
      skip.left -= passed;
      raw = raw.slice(passed);
      if (!raw.length) continue;
    }
    const ctx = ctxOf();
    yield { ctx, rows: await domainRowsOf(ctx, select, read, raw) };
  }
}

/** Gives each row (under `as`) the row its key names, read through `loader` in one batch. */
async function attach<R extends object, V>(
  rows: R[],
  keyOf: (r: R) => number,
  loader: DataLoader<number, V | null>,
  as: symbol,
): Promise<void> {
  if (!rows.length) return;
  const keys = [...new Set(rows.map(keyOf))];
  const found = await loader.loadMany(keys);
  const byKey = new Map(keys.map((k, i) => [k, found[i]]));
  for (const r of rows) {
    const v = byKey.get(keyOf(r));
    if (v instanceof Error) throw v;
    (r as Record<symbol, unknown>)[as] = v;
  }
}

/** Domains by name or platform domain (as domainByName), read as `read` plans. */
export const plannedDomainByName = (ctx: ReadContext, read: DomainRead) =>
  loader<string, DomainRow | null>(ctx, `domainByName:${readKey(read)}`, async (sql, names) => {
    const rows = await readPlannedDomains(ctx, sql, "nameOrPlatformDomain", names, read);
    const byName = new Map(rows.map((r) => [r.name, r]));
    const byPlatformDomain = new Map(rows.filter((r) => r.platformDomain).map((r) => [r.platformDomain, r]));
    return names.map((n) => byName.get(n) ?? byPlatformDomain.get(n) ?? null);
  });

/** Domains by key, read as `read` plans. */
export const plannedDomainByPk = (ctx: ReadContext, read: DomainRead) =>
  loader<number, DomainRow | null>(ctx, `domainByPk:${readKey(read)}`, async (sql, pks) =>
    byKey(pks, await readPlannedDomains(ctx, sql, "pk", pks, read), (r) => r.pk),
  );
