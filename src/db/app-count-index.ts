import { LRUCache } from "lru-cache";
import { type Bitmap, bitmapsOf, RoaringBitmap32, sizeOrder } from "./bitmaps.ts";
import { APP_FACET_VALUES, childValues, type FacetValues } from "./facet-sql.ts";
import { perReader } from "./per-reader.ts";
import type { SqlReader } from "./reader.ts";
import { TABLES } from "./tables.ts";
import { whereKey } from "./where-bitmap.ts";
import { countWhere, statementOver, type Where } from "./where-sql.ts";

/**
 * The Apps' count index: each App facet dimension's values as bitmaps of App keys (and, read when
 * a histogram first asks, an App field's values by key: appValuesOf). The Domains' index (src/db/count-index.ts) is built at load and
 * kept in the snapshot because reading a million Domains' values takes minutes; a snapshot's Apps
 * are tens of thousands (20,000 in the bench), whose values a gateway reads in well under a second,
 * so each gateway builds this one from the snapshot's own App tables the first time it counts Apps
 * of a filter, and keeps it with the snapshot's reader (docs/decisions.md, "Counting").
 *
 * A filter's Apps are the keys its own statement reads (through the filter's indexes, at most every
 * App), then every value's count is one intersection count, as for Domains: one statement for any
 * number of dimensions, where SQL asked one grouped statement per dimension.
 */

/** A dimension's values: the Apps having each, by key. */
export interface AppValues {
  kind: FacetValues["kind"];
  keys: string[];
  /** What a facet names each value by, when not the key itself. */
  labels: string[] | null;
  bitmaps: Bitmap[];
  /** Value indexes by bitmap size, largest first (ties in key order). */
  order: number[];
  byKey: Map<string, number>;
}

export interface AppCountIndex {
  /** By dimension name (APP_FACET_VALUES). */
  dimensions: Map<string, AppValues>;
  /** The Apps' largest key (-1: none). */
  maxPk: number;
}

/**
 * Whether the App index answers for the snapshot `sql` reads: always, but for an unindexed reader
 * (the parity tests' SQL side: src/db/reader.ts), as countIndexOf decides for Domains.
 */
export const appIndexed = (sql: SqlReader): boolean => !sql.unindexed;

/** The App index of the snapshot `sql` reads (built once per reader; a failed build is tried again). */
export function appCountIndexOf(sql: SqlReader): Promise<AppCountIndex> {
  let index = built.get(sql);
  if (!index) {
    const building = buildAppIndex(sql);
    index = building;
    built.set(sql, building);
    building.catch(() => {
      if (built.get(sql) === building) built.delete(sql);
    });
  }
  return index;
}
const built = new WeakMap<SqlReader, Promise<AppCountIndex>>();

async function buildAppIndex(sql: SqlReader): Promise<AppCountIndex> {
  const t = (name: string) => sql.table(name);
  const app = TABLES.app;
  const [[max]] = await sql.all(`SELECT max(r."pk") FROM ${t(app.name)} r`, []);
  const maxPk = max == null ? -1 : Number(max);
  const dimensions = new Map<string, AppValues>();
  for (const [name, values] of Object.entries(APP_FACET_VALUES as Record<string, FacetValues>)) {
    const text =
      values.kind === "column"
        ? `SELECT r."pk", ${values.expr(sql.kind)} FROM ${t(app.name)} r`
        : `SELECT c."${values.key}", c."${values.id}" FROM ${values.from(sql.kind, t)} WHERE ${childValues(values)}`;
    const lists = new Map<string, number[]>();
    for (const [key, value] of await sql.all(text, [])) {
      if (value === null || value === undefined) continue;
      const k = String(value);
      const list = lists.get(k);
      if (list) list.push(Number(key));
      else lists.set(k, [Number(key)]);
    }
    const { keys: sorted, bitmaps } = bitmapsOf(lists);
    let labels: string[] | null = null;
    if (values.kind === "child" && values.label) {
      const named = new Map<string, string>();
      for (const [pk, v] of await sql.all(
        `SELECT x."pk", ${values.label.expr} FROM ${t(TABLES[values.label.table].name)} x`,
        [],
      ))
        named.set(String(pk), String(v));
      labels = sorted.map((k) => named.get(k) ?? k);
    }
    const order = sizeOrder(bitmaps, labels ?? sorted);
    dimensions.set(name, {
      kind: values.kind,
      keys: sorted,
      labels,
      bitmaps,
      order,
      byKey: new Map(sorted.map((k, i) => [k, i])),
    });
  }
  return { dimensions, maxPk };
}

/**
 * The values of an App field (a histogram's: its model field) by App key, NaN for none: read once
 * per snapshot, field and gateway, when a histogram of a filter first asks for them.
 */
export async function appValuesOf(sql: SqlReader, field: string): Promise<Float64Array> {
  const byField = fieldValues(sql, "fields");
  let values = byField.get(field);
  if (!values) {
    const reading = (async () => {
      const app = TABLES.app;
      const column = app.columns[app.fields.indexOf(field)];
      if (!column) throw new Error(`app count index: the app table has no field ${field}`);
      const { maxPk } = await appCountIndexOf(sql);
      const out = new Float64Array(maxPk + 1).fill(Number.NaN);
      for (const [pk, v] of await sql.all(`SELECT r."pk", r."${column}" FROM ${sql.table(app.name)} r`, []))
        if (v !== null && v !== undefined) out[Number(pk)] = Number(v);
      return out;
    })();
    values = reading;
    byField.set(field, reading);
    reading.catch(() => byField.delete(field));
  }
  return values;
}
const fieldValues = perReader<"fields", Map<string, Promise<Float64Array>>>(() => new Map());

/**
 * The Apps `where` matches, by key: read by the filter's own statement once per snapshot, filter
 * and gateway (all the dimensions of one request share it), kept in a bounded cache.
 */
export function appWhereBitmapOf(sql: SqlReader, where: Where): Promise<Bitmap> {
  const cache = bitmaps(sql, "apps");
  const key = whereKey(where);
  let bitmap = cache.get(key);
  if (!bitmap) {
    const { text, params } = statementOver(
      sql,
      "app",
      where,
      (cond) => `SELECT r."pk" FROM ${sql.table(TABLES.app.name)} r WHERE ${cond}`,
    );
    const reading = sql.all(text, params).then((rows) => {
      const b = new RoaringBitmap32(rows.map((r) => Number(r[0])));
      b.runOptimize();
      return b;
    });
    bitmap = reading;
    cache.set(key, reading);
    reading.catch(() => cache.delete(key));
  }
  return bitmap;
}

/**
 * How many Apps `where` matches: the size of its keys where they are read already (its facets
 * asked), else its count (reading every key to count them took 3-4 ms against 0.5 for the count,
 * 14,000 of 20,000 Apps on SQLite).
 */
export function appCountOf(sql: SqlReader, where: Where): Promise<number> {
  const bitmap = bitmaps(sql, "apps").get(whereKey(where));
  return bitmap ? bitmap.then((b) => b.size) : countWhere(sql, "app", where);
}

/** At most this many App bitmaps a snapshot and gateway (the bitmap of 20,000 Apps takes about 3 KB). */
const BITMAPS = 1000;
const bitmaps = perReader<"apps", LRUCache<string, Promise<Bitmap>>>(
  () => new LRUCache<string, Promise<Bitmap>>({ max: BITMAPS }),
);
