import { type Bitmap, RoaringBitmap32, sizeOrder, split } from "./bitmaps.ts";
import {
  CHILD_DIMENSIONS,
  fieldOfColumn,
  NUMBER_COLUMNS,
  requiredNull,
  SORT_KINDS,
  type StoredMeta,
  TEXT_COLUMNS,
} from "./count-index-catalogue.ts";
import { columnFromStored, encodeNumbers, type NumberColumn, plainColumn } from "./number-column.ts";
import type { SqlReader } from "./reader.ts";
import { type SearchIndex, searchIndexFromParts } from "./search-index.ts";
import type { KeyKind } from "./sort-fields.ts";

export { type Bitmap, RoaringBitmap32 };

/**
 * The count index of a snapshot: what every count of Domains asks (facets, histograms,
 * totalCount), built once when the snapshot is loaded and kept in it, since a snapshot never
 * changes (docs/decisions.md, "Counting").
 *
 * - Domains are numbered 0…n-1 in rank order (then key): an ordinal.
 * - Each value of each Domain dimension, a column (country, platform, plan, state…) or a child
 *   table (categories, technologies, installed Apps…), is a roaring bitmap of the ordinals having
 *   it. The Domains a filter matches are a bitmap too (src/db/where-bitmap.ts), and a facet
 *   value's count is one intersection's cardinality.
 * - Each number and time the filters test (rank, estimated sales, creation time…) is an array of
 *   its values by ordinal (NaN for none): a range is one pass over it, a histogram one pass over a
 *   filter's bitmap.
 * - Each Domain sort key (DOMAIN_SORTS) is an array by ordinal too, so that a page of a filter's matches in
 *   any sort is a selection over its members (src/query/index-page.ts): the number's array above
 *   when the filters have one, else its own part (`sort.<field>`): an Int32Array where every value
 *   is a 32-bit integer (platform_rank), and for a text (name) each Domain's position in the
 *   database's own order of it, equal texts at equal positions.
 *
 * Every dimension and column comes from the catalogue the filters and facets already use
 * (DOMAIN_FACET_VALUES, FACET_COLUMNS, RELATIONS): nothing is listed twice. The index is stored
 * in the snapshot's table COUNT_INDEX_TABLE as named parts, and each gateway loads it once per
 * snapshot; a snapshot loaded before it existed has no such table and is counted by SQL. What it
 * holds is listed in src/db/count-index-catalogue.ts, built in src/db/count-index-build.ts, and
 * loaded here.
 */
export const COUNT_INDEX_TABLE = "count_index";
/** Bumped when the stored parts change shape: a snapshot of another format is counted by SQL. */
export const COUNT_INDEX_FORMAT = 1;

/** A column dimension's values (a text column of FACET_COLUMNS_TABLE). */
export interface TextColumn {
  /** The model field the filters test, e.g. countryCode (createdMonth's is its own name). */
  field: string;
  keys: string[];
  bitmaps: Bitmap[];
  nulls: Bitmap;
  nonNull: Bitmap;
  /** Value indexes by bitmap size, largest first (ties in key order). */
  order: number[];
  byKey: Map<string, number>;
}

/** A child-table dimension's values: the Domains having a row with each value. */
export interface ChildDimension {
  /** The Domain relation the filters test (apps, technologies…), and its value's model field. */
  relation: string;
  idField: string;
  /** A condition every indexed row meets (an App not uninstalled), as { field: null }. */
  requiresNull: string | null;
  keys: string[];
  /** What a facet names each value by (a technology's name), when not the key itself. */
  labels: string[] | null;
  bitmaps: Bitmap[];
  order: number[];
  byKey: Map<string, number>;
}

export interface CountIndex {
  format: number;
  /** Domains. */
  n: number;
  ordToPk: Int32Array;
  /** -1 for a key of no Domain. */
  pkToOrd: Int32Array;
  all: Bitmap;
  /** By column name of FACET_COLUMNS_TABLE (created_month included). */
  text: Map<string, TextColumn>;
  /** By model field: numbers and times (epoch ms) by ordinal, coded (src/db/number-column.ts). */
  numbers: Map<string, NumberColumn>;
  /** By dimension name (DOMAIN_FACET_VALUES). */
  children: Map<string, ChildDimension>;
  /**
   * By model field, each Domain sort key the index can order by (a snapshot indexed before the
   * sort parts existed lacks those of its own part): values (or positions) by ordinal.
   */
  sorts: Map<string, SortValues>;
  /**
   * The searched text's words and the Domains having each (src/db/search-index.ts): `q` from the
   * index; null in an index built before it (a search then asks the database).
   */
  search: SearchIndex | null;
  /** Bytes stored, and milliseconds the build took (from the stored meta). */
  bytes: number;
  buildMs: number;
}

/** A sort key's values by ordinal (valueAt: NaN for none). */
export interface SortValues {
  values: NumberColumn;
  /** Positions in the database's order of a text, not its values: a cursor's text cannot be placed. */
  positions: boolean;
  /** Every value compares as the database compares it (an integer beyond 2^53 would not). */
  exact: boolean;
  /** The Domains in this key's order, in slices (absent from an index built before them). */
  buckets: SortBuckets | null;
}

/**
 * A sort key's order (values ascending, NULLs last, then pk ascending) cut into slices of
 * ORDER_BUCKET Domains, each a bitmap, the known values' slices before the unknown ones': a page
 * of a large bitmap intersects the slices in turn (backwards for a descending sort: the known
 * values' slices from the last, then the unknown ones' from the last) and orders only what each
 * holds of the bitmap, instead of every member.
 */
export interface SortBuckets {
  bitmaps: Bitmap[];
  /** The first slice of Domains without a value (bitmaps.length when none). */
  nullStart: number;
  /** Each slice's first and last Domain in the ascending order (ordinals). */
  firsts: number[];
  lasts: number[];
}
export const ORDER_BUCKET = 16_384;

// ---------------------------------------------------------------------- loading

/** How a gateway reads a stored part of an index by name (undefined: the index has none). */
export type PartReader = (name: string) => Promise<Uint8Array | undefined>;

/**
 * An index from its stored parts, each read when it is needed (a gateway's reads one at a time from
 * the database: a million Domains' index is about 140 MB of parts, 195 MB before the coded number
 * columns, and asked all at once they were held together with what is made of them, adding 512 MB
 * to the gateway's RSS); null when they are of another format.
 */
export async function countIndexFromParts(
  parts: Map<string, Uint8Array> | PartReader,
): Promise<CountIndex | null> {
  let bytes = 0;
  const read: PartReader = async (name) => {
    const p = typeof parts === "function" ? await parts(name) : parts.get(name);
    bytes += p?.byteLength ?? 0;
    return p;
  };
  const metaBody = await read("meta");
  if (!metaBody) return null;
  const meta = JSON.parse(Buffer.from(metaBody).toString("utf8")) as StoredMeta;
  if (meta.format !== COUNT_INDEX_FORMAT) return null;
  const part = async (name: string) => {
    const p = await read(name);
    if (!p) throw new Error(`the snapshot's count index has no part ${name}`);
    return p;
  };
  const aligned = (p: Uint8Array) => {
    const copy = new Uint8Array(p.byteLength);
    copy.set(p);
    return copy.buffer;
  };
  const ordToPk = new Int32Array(aligned(await part("ords")));
  const n = meta.n;
  const maxPk = ordToPk.reduce((m, p) => Math.max(m, p), -1);
  const pkToOrd = new Int32Array(maxPk + 1).fill(-1);
  for (let i = 0; i < n; i++) pkToOrd[ordToPk[i]] = i;
  const all = new RoaringBitmap32();
  if (n) all.addRange(0, n);
  const text = new Map<string, TextColumn>();
  for (const c of TEXT_COLUMNS) {
    const stored = meta.text[c.column];
    if (!stored) return null;
    const [nulls, ...bitmaps] = split(await part(`text.${c.column}`), stored.offsets);
    text.set(c.column, {
      field: c.field,
      keys: stored.keys,
      bitmaps,
      nulls,
      nonNull: RoaringBitmap32.andNot(all, nulls),
      order: sizeOrder(bitmaps, stored.keys),
      byKey: new Map(stored.keys.map((k, i) => [k, i])),
    });
  }
  const numbers = new Map<string, NumberColumn>();
  for (const c of NUMBER_COLUMNS) {
    const coding = meta.coded?.[c.field];
    if (coding) numbers.set(c.field, columnFromStored(coding, aligned(await part(`coded.${c.field}`))));
    // An index built before coded parts: its doubles, coded as they are read.
    else if (meta.numbers.includes(c.field))
      numbers.set(c.field, encodeNumbers(new Float64Array(aligned(await part(`number.${c.field}`)))));
    else return null;
  }
  const children = new Map<string, ChildDimension>();
  for (const spec of CHILD_DIMENSIONS) {
    const stored = meta.children[spec.name];
    if (!stored) return null;
    const bitmaps = split(await part(`child.${spec.name}`), stored.offsets);
    const facetKeys = stored.labels ?? stored.keys;
    children.set(spec.name, {
      relation: spec.relation,
      idField: fieldOfColumn(spec.table, spec.values.id),
      requiresNull: requiredNull(spec.values, spec.table),
      keys: stored.keys,
      labels: stored.labels,
      bitmaps,
      order: sizeOrder(bitmaps, facetKeys),
      byKey: new Map(stored.keys.map((k, i) => [k, i])),
    });
  }
  const sorts = new Map<string, SortValues>();
  for (const [field, kind] of SORT_KINDS) {
    const shared = numbers.get(field);
    const type = meta.sorts?.[field];
    const own = !shared && type ? await read(`sort.${field}`) : undefined;
    const values =
      shared ??
      (own && plainColumn(type === "i32" ? new Int32Array(aligned(own)) : new Float64Array(aligned(own))));
    if (!values) continue;
    const order = meta.orders?.[field];
    const held = order ? await read(`order.${field}`) : undefined;
    const buckets =
      order && held
        ? {
            bitmaps: split(held, order.offsets),
            nullStart: order.nullStart,
            firsts: order.firsts,
            lasts: order.lasts,
          }
        : null;
    sorts.set(field, { values, positions: kind === "string", exact: exactFor(values, kind), buckets });
  }
  const search = await searchIndexFromParts(meta.search, read, aligned);
  return {
    format: meta.format,
    n,
    ordToPk,
    pkToOrd,
    all,
    text,
    numbers,
    children,
    sorts,
    search,
    bytes,
    buildMs: meta.buildMs,
  };
}

/** Whether a double holds every value of a key exactly as the database compares them. */
function exactFor(column: NumberColumn, kind: KeyKind): boolean {
  // Codes are of safe integers only (encodeNumbers); a double may hold one beyond 2^53.
  if (column.type !== "f64" || kind === "float" || kind === "string") return true;
  const values = column.codes;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isNaN(v) && !Number.isSafeInteger(v)) return false;
  }
  return true;
}

/**
 * The count index of the snapshot `sql` reads, loaded once per reader (so per snapshot and
 * gateway); null for a snapshot without one (loaded before it existed, or of another format),
 * which is counted by SQL as before. A load that failed (a database that did not answer) is tried
 * again by the next count.
 */
export function countIndexOf(sql: SqlReader): Promise<CountIndex | null> {
  // The snapshot's index describes its own Domains, not those gone from it.
  if (sql.gone) return Promise.resolve(null);
  let index = loaded.get(sql);
  if (!index) {
    const loading = loadIndex(sql);
    index = loading;
    loaded.set(sql, loading);
    const forget = () => {
      if (loaded.get(sql) === loading) loaded.delete(sql);
    };
    // None yet: asked again in a minute (an index built into the served snapshot by the CLI).
    loading.then((found) => {
      if (!found) setTimeout(forget, ABSENT_MS).unref();
    }, forget);
  }
  return index;
}
const ABSENT_MS = 60_000;
const loaded = new WeakMap<SqlReader, Promise<CountIndex | null>>();

async function loadIndex(sql: SqlReader): Promise<CountIndex | null> {
  // A snapshot older than the code reads what it lacks of the catalogue as absent (SQL does that,
  // src/db/catalogue-check.ts): it is counted by SQL, with that meaning.
  const lacks = sql.catalogue;
  if (lacks && (lacks.missingColumns.length || lacks.missingTables.length)) return null;
  const [held] =
    sql.kind === "postgresql"
      ? await sql.all("SELECT to_regclass($1) IS NOT NULL", [sql.table(COUNT_INDEX_TABLE)])
      : await sql.all("SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1)", [
          COUNT_INDEX_TABLE,
        ]);
  if (!held?.[0]) return null;
  const table = sql.table(COUNT_INDEX_TABLE);
  return countIndexFromParts(async (name) => {
    const [row] = await sql.all(`SELECT x."body" FROM ${table} x WHERE x."name" = $1`, [name]);
    return row ? (row[0] as Uint8Array) : undefined;
  });
}
