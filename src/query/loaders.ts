import DataLoader from "dataloader";
import { LRUCache } from "lru-cache";
import { type ReadContext, servedOf } from "../context.ts";
import {
  CHILD_ROWS_TABLE,
  childArraySql,
  DOMAIN_CHILDREN,
  type DomainChild,
  keepsChildRows,
} from "../db/domain-children.ts";
import { columnsOf, perReader, type RawRow, type SqlReader, selectList, toModel } from "../db/reader.ts";
import { TABLES, type TableKey } from "../db/tables.ts";
import { findStatement, sqlitePlan, type Where } from "../db/where-sql.ts";
import type {
  App,
  AppCategory,
  AppInstallsPoint,
  AppIntegration,
  AppPlan,
  AppReview,
  AppReviewDomain,
  Domain,
  DomainApp,
  DomainCategory,
  DomainContact,
  DomainFeature,
  DomainSalesChannel,
  DomainShipsTo,
  DomainTag,
  DomainTechnology,
  Technology,
} from "../generated/sqlite/client.ts";

/**
 * Per-request batch loaders: every relation and lookup by key is read with one query per batch,
 * so a page costs a constant number of queries whatever its size. They are the hot path of every
 * request, so they read with hand-written SQL (src/db/reader.ts) rather than through Prisma.
 */
export type DomainRow = Omit<Domain, "mostRecentlyPublishedProduct" | "searchText">;
export type AppRow = Omit<App, "descriptionLong" | "searchText">;

/** Columns read only when their field is selected (docs/api.md: returned on request only). */
export const DOMAIN_OMITTED: readonly string[] = ["mostRecentlyPublishedProduct", "searchText"];
const APP_OMITTED: readonly string[] = ["descriptionLong", "searchText"];

function loader<K, V>(
  ctx: ReadContext,
  name: string,
  batch: (sql: SqlReader, keys: readonly K[]) => Promise<V[]>,
) {
  let l = ctx.loaders.get(name) as DataLoader<K, V> | undefined;
  if (!l) {
    const { sql } = servedOf(ctx);
    // Keys are bound as one parameter (src/db/reader.ts): a batch is one statement at any size,
    // up to a page of 1000 and its look-ahead row, or a REST bulk of 1000 names.
    l = new DataLoader<K, V>((keys) => batch(sql, keys), { maxBatchSize: 2000 });
    ctx.loaders.set(name, l as DataLoader<unknown, unknown>);
  }
  return l;
}

/**
 * The rows of an App or a technology, and of their child tables, are shared by many Domains and
 * never change within a snapshot: they are kept per snapshot reader (a snapshot's SqlReader lives
 * as long as it is served) across requests, so a page of Domains with their Apps reads only the
 * Apps no request has read yet. Bounded per read: an App with its plans and text is a few KB.
 */
const SHARED_ROWS = 10_000;
/** The rows kept for `read` of the snapshot `sql` reads. */
const keptRows = perReader<BatchRead<number, unknown>, LRUCache<number, { row: unknown }>>(
  () => new LRUCache({ max: SHARED_ROWS }),
);

/**
 * A loader (`name`) of rows kept per snapshot: a batch reads only the keys no request has read
 * yet. `now(ctx, key)` gives a kept row at once (no promise), else loads it: an App's relations
 * resolve without a promise once the App has been read.
 */
function sharedLoader<V>(name: string, read: BatchRead<number, V>) {
  const batch: BatchRead<number, V> = async (sql, keys) => {
    const kept = keptRows(sql, read);
    const found = new Map<number, V>();
    const missing: number[] = [];
    for (const k of keys) {
      const hit = kept.get(k);
      if (hit) found.set(k, hit.row as V);
      else missing.push(k);
    }
    if (missing.length) {
      const rows = await read(sql, missing);
      missing.forEach((k, i) => {
        found.set(k, rows[i]);
        kept.set(k, { row: rows[i] });
      });
    }
    return keys.map((k) => found.get(k) as V);
  };
  const of = (ctx: ReadContext) => loader(ctx, name, batch);
  const now = (ctx: ReadContext, key: number): V | Promise<V> => {
    const hit = keptRows(servedOf(ctx).sql, read).get(key);
    return hit ? (hit.row as V) : of(ctx).load(key);
  };
  return Object.assign(of, { now });
}

/** Rows grouped under their key, in key order; `[]` for keys without rows. */
function groupBy<K, R>(keys: readonly K[], rows: R[], keyOf: (r: R) => K): R[][] {
  const groups = new Map<K, R[]>(keys.map((k) => [k, []]));
  for (const r of rows) groups.get(keyOf(r))?.push(r);
  return keys.map((k) => groups.get(k) ?? []);
}

function byKey<K, R>(keys: readonly K[], rows: R[], keyOf: (r: R) => K): (R | null)[] {
  const map = new Map(rows.map((r) => [keyOf(r), r]));
  return keys.map((k) => map.get(k) ?? null);
}

/**
 * `column` is one of `keys`, bound at $1: a plain equality for one key (the lookup of one Domain,
 * about twice as fast as matching a list of one on SQLite), else a list bound as one parameter.
 */
function keysMatch(sql: SqlReader, column: string, keys: readonly (number | string)[]) {
  return keys.length === 1
    ? { clause: `${column} = $1`, param: keys[0] }
    : { clause: sql.anyOf(column, 1), param: sql.keysParam(keys) };
}

/**
 * The rows of `table` whose `column` is one of `keys`, in `orderBy` order, as the model's rows.
 * `omit` leaves out columns read only on request (DOMAIN_OMITTED, APP_OMITTED).
 */
async function rowsWhere<T>(
  sql: SqlReader,
  table: TableKey,
  column: string,
  keys: readonly (number | string)[],
  orderBy: string[] = [],
  omit: readonly string[] = [],
): Promise<T[]> {
  const columns = columnsOf(table, omit);
  const order = orderBy.length ? ` ORDER BY ${orderBy.map((c) => `"${c}"`).join(", ")}` : "";
  const match = keysMatch(sql, `"${column}"`, keys);
  const text = `SELECT ${selectList(columns)} FROM ${sql.table(TABLES[table].name)} WHERE ${match.clause}${order}`;
  return toModel<T>(columns, await sql.all(text, [match.param]));
}

/** A Domain by its name or, failing that, its platform domain; keys are lower-case. */
export const domainByName = (ctx: ReadContext) =>
  loader<string, DomainRow | null>(ctx, "domainByName", async (sql, names) => {
    const columns = columnsOf("domain", DOMAIN_OMITTED);
    const name = keysMatch(sql, '"name"', names);
    const platformDomain = keysMatch(sql, '"platform_domain"', names);
    const text = `SELECT ${selectList(columns)} FROM ${sql.table("domain")} WHERE ${name.clause} OR ${platformDomain.clause}`;
    const rows = toModel<DomainRow>(columns, await sql.all(text, [name.param]));
    const byName = new Map(rows.map((r) => [r.name, r]));
    const byPlatformDomain = new Map(rows.filter((r) => r.platformDomain).map((r) => [r.platformDomain, r]));
    return names.map((n) => byName.get(n) ?? byPlatformDomain.get(n) ?? null);
  });

/**
 * Domains by key. `fields` (model field names) narrows the columns read to those a selection
 * needs (projection pushdown: a page of `name,rank` does not read 100 columns per row); the
 * other fields of such rows are absent, so it is for callers that know the whole selection.
 */
export const domainByPk = (ctx: ReadContext, fields: readonly string[] | null = null) => {
  const omit = fields ? allBut("domain", fields) : DOMAIN_OMITTED;
  return loader<number, DomainRow | null>(ctx, `domainByPk:${fields?.join(",") ?? "*"}`, async (sql, pks) =>
    byKey(pks, await rowsWhere<DomainRow>(sql, "domain", "pk", pks, [], omit), (r) => r.pk),
  );
};

/** The fields of `table` other than `keep`: the `omit` that reads only `keep`. */
const allBut = (table: TableKey, keep: readonly string[]) =>
  columnsOf(table)
    .map((c) => c.field)
    .filter((f) => !keep.includes(f));

/** An App by `<platform>.<token>`. */
export const appByIdentifier = (ctx: ReadContext) =>
  loader<string, AppRow | null>(ctx, "appByIdentifier", async (sql, ids) => {
    const platforms = ids.map((id) => id.slice(0, id.indexOf(".")));
    const tokens = ids.map((id) => id.slice(id.indexOf(".") + 1));
    const columns = columnsOf("app", APP_OMITTED);
    // (platform, token) pairs, matched on the unique index of both.
    const pairs =
      sql.kind === "sqlite"
        ? "SELECT p.value, t.value FROM json_each($1) p JOIN json_each($2) t ON t.key = p.key"
        : "SELECT * FROM unnest($1::text[], $2::text[])";
    const text = `SELECT ${selectList(columns)} FROM ${sql.table("app")} WHERE ("platform", "token") IN (${pairs})`;
    const rows = toModel<AppRow>(
      columns,
      await sql.all(text, [sql.keysParam(platforms), sql.keysParam(tokens)]),
    );
    primeApps(ctx, rows);
    return byKey(ids, rows, (r) => `${r.platform}.${r.token}`);
  });

/**
 * The keys of technologies by name (null for an unknown one). There are a few hundred, shared by
 * every Domain: they are read once per snapshot (again after a failed read).
 */
export async function technologyKeys(sql: SqlReader, names: readonly string[]): Promise<(number | null)[]> {
  const slot = technologyNames(sql, 0);
  slot.keys ??= sql
    .all(`SELECT "name", "pk" FROM ${sql.table("technology")}`, [])
    .then((rows) => new Map(rows.map(([name, pk]) => [name as string, Number(pk)])))
    .catch((e: unknown) => {
      slot.keys = null;
      throw e;
    });
  const keys = await slot.keys;
  return names.map((n) => keys.get(n) ?? null);
}
/** Technologies by name (null for an unknown one): their keys, then their rows kept per snapshot. */
export async function technologiesByName(
  ctx: ReadContext,
  names: readonly string[],
): Promise<(Technology | null)[]> {
  const pks = await technologyKeys(servedOf(ctx).sql, names);
  return Promise.all(pks.map((pk) => (pk === null ? null : technologyByPk.now(ctx, pk))));
}
const technologyNames = perReader((): { keys: Promise<Map<string, number>> | null } => ({ keys: null }));

/** An App by its `id`. */
export const appById = (ctx: ReadContext) =>
  loader<string, AppRow | null>(ctx, "appById", async (sql, ids) => {
    const rows = await rowsWhere<AppRow>(sql, "app", "id", ids, [], APP_OMITTED);
    primeApps(ctx, rows);
    return byKey(ids, rows, (r) => r.id);
  });

/** Apps read by another key are known by pk too: AppReview.app then costs no query. */
function primeApps(ctx: ReadContext, rows: AppRow[]): void {
  const byPk = appByPk(ctx);
  for (const r of rows) byPk.prime(r.pk, r);
}

// ---------------------------------------------------------------------- Domain relations

/**
 * The batch reads behind the relation loaders: `keys` in, one result per key out, in key order
 * (sharedLoader keeps some per snapshot; test/db/reader.test.ts compares the planned reads with them).
 */
export type BatchRead<K, V> = (sql: SqlReader, keys: readonly K[]) => Promise<V[]>;

export { DOMAIN_CHILDREN, type DomainChild };

/** A Domain's rows of a child table, in the table's order after the Domain's key. */
const domainValuesRead =
  <R extends { domainPk: number }>(child: DomainChild): BatchRead<number, R[]> =>
  async (sql, pks) => {
    const { table, orderBy } = DOMAIN_CHILDREN[child];
    return groupBy(
      pks,
      await rowsWhere<R>(sql, table, "domain_pk", pks, ["domain_pk", ...orderBy]),
      (r) => r.domainPk,
    );
  };

const appValuesRead =
  <R extends { appPk: number }>(table: TableKey, orderBy: string[]): BatchRead<number, R[]> =>
  async (sql, pks) =>
    groupBy(pks, await rowsWhere<R>(sql, table, "app_pk", pks, ["app_pk", ...orderBy]), (r) => r.appPk);

export const READS = {
  domainCategories: domainValuesRead<DomainCategory>("categories"),
  domainFeatures: domainValuesRead<DomainFeature>("features"),
  domainTags: domainValuesRead<DomainTag>("tags"),
  domainSalesChannels: domainValuesRead<DomainSalesChannel>("salesChannels"),
  domainShipsTo: domainValuesRead<DomainShipsTo>("shipsToCountries"),
  domainContacts: domainValuesRead<DomainContact>("contactInfo"),
  domainTechnologies: domainValuesRead<DomainTechnology>("technologies"),
  domainApps: domainValuesRead<DomainApp>("apps"),
  /** Technologies by key: few and shared by many Domains. */
  technologyByPk: (async (sql, pks) =>
    byKey(pks, await rowsWhere<Technology>(sql, "technology", "pk", pks), (r) => r.pk)) as BatchRead<
    number,
    Technology | null
  >,
  domainProduct: (async (sql, pks) => {
    const keep = ["pk", "mostRecentlyPublishedProduct"];
    const rows = await rowsWhere<Domain>(sql, "domain", "pk", pks, [], allBut("domain", keep));
    return byKey(pks, rows, (r) => r.pk).map((r) => r?.mostRecentlyPublishedProduct ?? null);
  }) as BatchRead<number, unknown>,
  appByPk: (async (sql, pks) =>
    byKey(pks, await rowsWhere<AppRow>(sql, "app", "pk", pks, [], APP_OMITTED), (r) => r.pk)) as BatchRead<
    number,
    AppRow | null
  >,
  appCategories: appValuesRead<AppCategory>("appCategory", ["category"]),
  appPlans: appValuesRead<AppPlan>("appPlan", ["position"]),
  appIntegrations: appValuesRead<AppIntegration>("appIntegration", ["position"]),
  appInstallsSeries: appValuesRead<AppInstallsPoint>("appInstallsPoint", ["date"]),
  appDescriptionLong: (async (sql, pks) => {
    const rows = await rowsWhere<App>(sql, "app", "pk", pks, [], allBut("app", ["pk", "descriptionLong"]));
    return byKey(pks, rows, (r) => r.pk).map((r) => r?.descriptionLong ?? null);
  }) as BatchRead<number, string | null>,
};

// Apps and technologies, and the Apps' child rows: shared by many Domains, kept per snapshot.
export const appByPk = sharedLoader("appByPk", READS.appByPk);
export const technologyByPk = sharedLoader("technologyByPk", READS.technologyByPk);
export const appCategories = sharedLoader("appCategory", READS.appCategories);
export const appPlans = sharedLoader("appPlan", READS.appPlans);
export const appIntegrations = sharedLoader("appIntegration", READS.appIntegrations);

export const domainCategories = (ctx: ReadContext) => loader(ctx, "domainCategory", READS.domainCategories);
export const domainFeatures = (ctx: ReadContext) => loader(ctx, "domainFeature", READS.domainFeatures);
export const domainTags = (ctx: ReadContext) => loader(ctx, "domainTag", READS.domainTags);
export const domainSalesChannels = (ctx: ReadContext) =>
  loader(ctx, "domainSalesChannel", READS.domainSalesChannels);
export const domainShipsTo = (ctx: ReadContext) => loader(ctx, "domainShipsTo", READS.domainShipsTo);
export const domainContacts = (ctx: ReadContext) => loader(ctx, "domainContact", READS.domainContacts);
export const domainTechnologies = (ctx: ReadContext) =>
  loader(ctx, "domainTechnology", READS.domainTechnologies);
export const domainApps = (ctx: ReadContext) => loader(ctx, "domainApp", READS.domainApps);
export const domainProduct = (ctx: ReadContext) => loader(ctx, "domainProduct", READS.domainProduct);

// ---------------------------------------------------------------------- App relations

export const appInstallsSeries = (ctx: ReadContext) =>
  loader(ctx, "appInstallsPoint", READS.appInstallsSeries);
export const appDescriptionLong = (ctx: ReadContext) =>
  loader(ctx, "appDescriptionLong", READS.appDescriptionLong);

// ---------------------------------------------------------------------- Review relations

export const reviewDomains = (ctx: ReadContext) =>
  loader<number, AppReviewDomain[]>(ctx, "reviewDomains", async (sql, pks) =>
    groupBy(
      pks,
      await rowsWhere<AppReviewDomain>(sql, "appReviewDomain", "review_pk", pks, ["review_pk", "position"]),
      (r) => r.reviewPk,
    ),
  );

export const reviewByPk = (ctx: ReadContext) =>
  loader<number, AppReview | null>(ctx, "reviewByPk", async (sql, pks) =>
    byKey(pks, await rowsWhere<AppReview>(sql, "appReview", "pk", pks), (r) => r.pk),
  );

// ---------------------------------------------------------------------- planned reads

/**
 * What a selection needs of each Domain it reads (src/schema/domain-columns.ts plans it from the
 * selection, looking ahead at the root or connection field): the Domain's own columns and the
 * child tables its relation fields read, so that a page is read in one statement.
 */
export interface DomainRead {
  /** Model fields of the domain table; null: every column but DOMAIN_OMITTED. */
  fields: readonly string[] | null;
  /** Child tables whose rows the selection reads. */
  children: readonly DomainChild[];
}

/** How the Domains of a planned read are matched: by key, by name, or by name or platform domain. */
export type DomainMatch = "pk" | "name" | "nameOrPlatformDomain";

const readKeys = new WeakMap<DomainRead, string>();
/** A string that identifies what `read` plans (reads are made once per selection and kept). */
export function readKey(read: DomainRead): string {
  let key = readKeys.get(read);
  if (key === undefined) {
    key = `${read.fields?.join(",") ?? "*"}|${read.children.join(",")}`;
    readKeys.set(read, key);
  }
  return key;
}

/** The select list of a planned read: the Domain's columns, then a JSON array per child table. */
interface PlannedSelect {
  list: string;
  /** What the statement's FROM joins to its Domain table (the snapshot's child rows), or "". */
  join: string;
  columns: ReturnType<typeof columnsOf>;
  /** Per child in read.children: its columns. */
  children: { child: DomainChild; columns: ReturnType<typeof columnsOf> }[];
}
interface PlannedStatement extends PlannedSelect {
  text: string;
}

/**
 * The select list of a planned read of Domains aliased `alias`, on either database: the Domain's
 * selected columns and, per child table, its rows as one JSON array per Domain. A snapshot that
 * keeps its child rows (CHILD_ROWS_TABLE, src/db/domain-children.ts) gives them through one join
 * on its key (`join`, aliased k); an older one through a correlated subquery per child
 * (childArraySql). The Apps and technologies the rows name are not joined in: they are shared by
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
    kept ? `, k."${child}"` : `, ${childArraySql(sql.kind, (name) => sql.table(name), child, alias)}`,
  );
  const join =
    kept && children.length
      ? ` LEFT JOIN ${sql.table(CHILD_ROWS_TABLE)} k ON k."domain_pk" = ${alias}"pk"`
      : "";
  return { list: `${selectList(columns, alias)}${arrays.join("")}`, join, columns, children };
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
 * installed App's row carries its App (APP_OF), a technology row its technology (TECHNOLOGY_OF).
 */
export const PLANNED = Symbol("planned child rows");
export const APP_OF = Symbol("the installed App's row");
export const TECHNOLOGY_OF = Symbol("the technology's row");
export type PlannedRow = { [PLANNED]?: Partial<Record<DomainChild, unknown[]>> };

/** The rows that a planned read gave `row` for `child`; undefined when it did not plan them. */
export const plannedRows = <R>(row: object, child: DomainChild): R[] | undefined =>
  (row as PlannedRow)[PLANNED]?.[child] as R[] | undefined;

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
  const kept = read.children.length > 0 && (await keepsChildRows(sql));
  const s = plannedStatement(sql, match, read, single, kept);
  return domainRowsOf(ctx, s, read, await sql.all(s.text, [single ? keys[0] : sql.keysParam(keys)]));
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
  // Handed to the row writer of a REST request (src/context.ts, RecordHandoff).
  const handoff = ctx.records?.rows;
  if (handoff) for (const r of rows) handoff.set(r.name, r);
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
  const kept = read.children.length > 0 && (await keepsChildRows(sql));
  const select = plannedSelect(sql, read, "r.", kept);
  const { text, params } = findStatement(
    sql,
    "domain",
    args,
    select.list,
    await sqlitePlan(sql, "domain", args),
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
