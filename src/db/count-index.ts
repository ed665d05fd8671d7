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
import { columnFromStored, type NumberColumn, plainColumn } from "./number-column.ts";
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
 * in the snapshot's table COUNT_INDEX_TABLE as named parts (a part of the snapshot's format:
 * src/db/snapshot-format.ts, `count_index`), and each gateway loads it once per snapshot. What it
 * holds is listed in src/db/count-index-catalogue.ts, built in src/db/count-index-build.ts, and
 * loaded here.
 */
export const COUNT_INDEX_TABLE = "count_index";

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
  /** By model field, each Domain sort key (DOMAIN_SORTS): values (or positions) by ordinal. */
  sorts: Map<string, SortValues>;
  /** The searched text's words and the Domains having each (src/db/search-index.ts): `q` from the index. */
  search: SearchIndex;
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
  /** The Domains in this key's order, in slices. */
  buckets: SortBuckets;
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
 * to the gateway's RSS). A part missing is a fault: the snapshot's format says the index is whole.
 */
export async function countIndexFromParts(parts: Map<string, Uint8Array> | PartReader): Promise<CountIndex> {
  let bytes = 0;
  const part = async (name: string) => {
    const p = typeof parts === "function" ? await parts(name) : parts.get(name);
    if (!p) throw new Error(`the snapshot's count index has no part ${name}`);
    bytes += p.byteLength;
    return p;
  };
  const meta = JSON.parse(Buffer.from(await part("meta")).toString("utf8")) as StoredMeta;
  const stored = <T>(what: string, value: T | undefined): T => {
    if (value === undefined) throw new Error(`the snapshot's count index describes no ${what}`);
    return value;
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
    const { keys, offsets } = stored(`text column ${c.column}`, meta.text[c.column]);
    const [nulls, ...bitmaps] = split(await part(`text.${c.column}`), offsets);
    text.set(c.column, {
      field: c.field,
      keys,
      bitmaps,
      nulls,
      nonNull: RoaringBitmap32.andNot(all, nulls),
      order: sizeOrder(bitmaps, keys),
      byKey: new Map(keys.map((k, i) => [k, i])),
    });
  }
  const numbers = new Map<string, NumberColumn>();
  for (const c of NUMBER_COLUMNS) {
    const coding = stored(`number column ${c.field}`, meta.coded[c.field]);
    numbers.set(c.field, columnFromStored(coding, aligned(await part(`coded.${c.field}`))));
  }
  const children = new Map<string, ChildDimension>();
  for (const spec of CHILD_DIMENSIONS) {
    const { keys, labels, offsets } = stored(`dimension ${spec.name}`, meta.children[spec.name]);
    const bitmaps = split(await part(`child.${spec.name}`), offsets);
    children.set(spec.name, {
      relation: spec.relation,
      idField: fieldOfColumn(spec.table, spec.values.id),
      requiresNull: requiredNull(spec.values, spec.table),
      keys,
      labels,
      bitmaps,
      order: sizeOrder(bitmaps, labels ?? keys),
      byKey: new Map(keys.map((k, i) => [k, i])),
    });
  }
  const sorts = new Map<string, SortValues>();
  for (const [field, kind] of SORT_KINDS) {
    let values = numbers.get(field);
    if (!values) {
      const own = aligned(await part(`sort.${field}`));
      values = plainColumn(
        stored(`sort ${field}`, meta.sorts[field]) === "i32" ? new Int32Array(own) : new Float64Array(own),
      );
    }
    const order = stored(`order of ${field}`, meta.orders[field]);
    const buckets = {
      bitmaps: split(await part(`order.${field}`), order.offsets),
      nullStart: order.nullStart,
      firsts: order.firsts,
      lasts: order.lasts,
    };
    sorts.set(field, { values, positions: kind === "string", exact: exactFor(values, kind), buckets });
  }
  const search = await searchIndexFromParts(meta.search, part, aligned);
  return { n, ordToPk, pkToOrd, all, text, numbers, children, sorts, search, bytes, buildMs: meta.buildMs };
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
 * gateway); null for the reader of the Domains gone from a snapshot, which have none, and for an
 * unindexed reader (the parity tests' SQL side). A load that failed (a database that did not
 * answer) is tried again by the next count.
 */
export function countIndexOf(sql: SqlReader): Promise<CountIndex | null> {
  // The snapshot's index describes its own Domains, not those gone from it.
  if (sql.gone || sql.unindexed) return Promise.resolve(null);
  let index = loaded.get(sql);
  if (!index) {
    const loading = loadIndex(sql);
    index = loading;
    loaded.set(sql, loading);
    loading.catch(() => {
      if (loaded.get(sql) === loading) loaded.delete(sql);
    });
  }
  return index;
}
const loaded = new WeakMap<SqlReader, Promise<CountIndex>>();

function loadIndex(sql: SqlReader): Promise<CountIndex> {
  const table = sql.table(COUNT_INDEX_TABLE);
  return countIndexFromParts(async (name) => {
    const [row] = await sql.all(`SELECT x."body" FROM ${table} x WHERE x."name" = $1`, [name]);
    return row ? (row[0] as Uint8Array) : undefined;
  });
}
