import DataLoader from "dataloader";
import { LRUCache } from "lru-cache";
import { type ReadContext, servedOf } from "../context.ts";
import { DOMAIN_CHILDREN, type DomainChild } from "../db/domain-children.ts";
import { columnsOf, selectList, toModel } from "../db/model-rows.ts";
import { perReader } from "../db/per-reader.ts";
import type { SqlReader } from "../db/reader.ts";
import { TABLES, type TableKey } from "../db/tables.ts";
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

export function loader<K, V>(
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

export function byKey<K, R>(keys: readonly K[], rows: R[], keyOf: (r: R) => K): (R | null)[] {
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
  const text = `SELECT ${selectList(columns)} FROM ${sql.table(TABLES[table].name)} t WHERE ${match.clause}${order}`;
  return toModel<T>(columns, await sql.all(text, [match.param]));
}

/** A Domain by its name or, failing that, its platform domain; keys are lower-case. */
export const domainByName = (ctx: ReadContext) =>
  loader<string, DomainRow | null>(ctx, "domainByName", async (sql, names) => {
    const columns = columnsOf("domain", DOMAIN_OMITTED);
    const name = keysMatch(sql, '"name"', names);
    const platformDomain = keysMatch(sql, '"platform_domain"', names);
    const text = `SELECT ${selectList(columns)} FROM ${sql.table("domain")} d WHERE ${name.clause} OR ${platformDomain.clause}`;
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
export const allBut = (table: TableKey, keep: readonly string[]) =>
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
    const text = `SELECT ${selectList(columns)} FROM ${sql.table("app")} a WHERE ("platform", "token") IN (${pairs})`;
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
    .all(`SELECT "name", "pk" FROM ${sql.table("technology")} t`, [])
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
