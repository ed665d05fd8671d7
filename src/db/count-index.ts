import type SqliteDatabase from "better-sqlite3";
import roaring from "roaring";
import { DOMAIN_FACET_VALUES, FACET_COLUMNS, FACET_COLUMNS_TABLE, type FacetValues } from "./facet-sql.ts";
import {
  columnFromStored,
  encodeNumbers,
  type NumberColumn,
  plainColumn,
  type StoredCoding,
  storedColumn,
  valueAt,
} from "./number-column.ts";
import type { SqlReader } from "./reader.ts";
import { SearchBuilder, type SearchIndex, type StoredSearch, searchIndexFromParts } from "./search-index.ts";
import { DOMAIN_SORTS, type KeyKind } from "./sort-fields.ts";
import { TABLES, type TableKey } from "./tables.ts";
import { RELATIONS } from "./where-sql.ts";

const { RoaringBitmap32 } = roaring;
export type Bitmap = InstanceType<typeof RoaringBitmap32>;
export { RoaringBitmap32 };

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
 * snapshot; a snapshot loaded before it existed has no such table and is counted by SQL.
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

// ---------------------------------------------------------------------- what is indexed

const domain = TABLES.domain;
const fieldOfColumn = (table: TableKey, column: string) => {
  const i = TABLES[table].columns.indexOf(column);
  if (i < 0) throw new Error(`count index: ${table} has no column ${column}`);
  return TABLES[table].fields[i];
};

const fieldColumn = (table: TableKey, field: string) => {
  const i = TABLES[table].fields.indexOf(field);
  if (i < 0) throw new Error(`count index: ${table} has no field ${field}`);
  return TABLES[table].columns[i];
};

/** FACET_COLUMNS (and created_month), split by kind. */
const TEXT_COLUMNS: { column: string; field: string }[] = [
  ...FACET_COLUMNS.filter((c) => domain.kinds[domain.columns.indexOf(c)] === "text").map((c) => ({
    column: c as string,
    field: fieldOfColumn("domain", c),
  })),
  { column: "created_month", field: "createdMonth" },
];
const NUMBER_COLUMNS = FACET_COLUMNS.filter((c) => domain.kinds[domain.columns.indexOf(c)] !== "text").map(
  (c) => ({
    column: c as string,
    field: fieldOfColumn("domain", c),
    time: domain.kinds[domain.columns.indexOf(c)] === "time",
  }),
);

/**
 * The Domain sort keys without an array of NUMBER_COLUMNS (platform_rank, name): each gets its own
 * part, read from the domain table.
 */
const SORT_COLUMNS: { column: string; field: string; kind: KeyKind }[] = Object.values(DOMAIN_SORTS)
  .filter((s) => !NUMBER_COLUMNS.some((c) => c.field === s.field))
  .map((s) => {
    const i = domain.fields.indexOf(s.field);
    if (i < 0) throw new Error(`count index: the domain table has no field ${s.field}`);
    return { column: domain.columns[i], field: s.field, kind: s.kind };
  });
/** The column `q` searches (src/dataset/load/rows.ts searchText). */
const SEARCH_COLUMN = fieldColumn("domain", "searchText");
const SORT_KINDS = new Map<string, KeyKind>(Object.values(DOMAIN_SORTS).map((s) => [s.field, s.kind]));

type Child = Extract<FacetValues, { kind: "child" }>;
interface ChildSpec {
  name: string;
  values: Child;
  table: TableKey;
  relation: string;
}
const CHILD_DIMENSIONS: ChildSpec[] = Object.entries(DOMAIN_FACET_VALUES as Record<string, FacetValues>)
  .filter((e): e is [string, Child] => e[1].kind === "child")
  .map(([name, values]) => {
    const table = values.table;
    if (!table) throw new Error(`count index: dimension ${name} names no child table`);
    const relation = Object.entries(RELATIONS.domain ?? {}).find(([, r]) => r.table === table)?.[0];
    if (!relation) throw new Error(`count index: no Domain relation reads ${table}`);
    return { name, values, table, relation };
  });

/** The condition rows of a child dimension meet (`c."removed_at" IS NULL`) as its field, or null. */
function requiredNull(values: Child, table: TableKey): string | null {
  if (!values.where) return null;
  const m = /^c\."(\w+)" IS NULL$/.exec(values.where);
  if (!m) throw new Error(`count index: cannot read the condition ${values.where}`);
  return fieldOfColumn(table, m[1]);
}

// ---------------------------------------------------------------------- building

/** How a build reads the new snapshot: a statement's rows, batch by batch, as arrays. */
export interface IndexSource {
  kind: "sqlite" | "postgresql";
  table(name: string): string;
  batches(text: string): AsyncIterable<unknown[][]>;
}

/** A named part as stored. */
export interface IndexPart {
  name: string;
  body: Buffer;
}

const num = (v: unknown) => (v === null || v === undefined ? Number.NaN : Number(v));

export function bitmapsOf(lists: Map<string, number[]>): { keys: string[]; bitmaps: Bitmap[] } {
  const keys = [...lists.keys()].sort();
  const bitmaps = keys.map((k) => {
    const b = new RoaringBitmap32(Uint32Array.from((lists.get(k) as number[]).sort((a, b) => a - b)));
    b.runOptimize();
    b.shrinkToFit();
    return b;
  });
  return { keys, bitmaps };
}

/** Builds the index of the snapshot `source` reads, as the parts to store. */
export async function buildCountIndex(source: IndexSource): Promise<IndexPart[]> {
  const started = performance.now();
  const t = (name: string) => source.table(name);
  const pg = source.kind === "postgresql";
  const numberExpr = (c: { column: string; time: boolean }) =>
    pg
      ? c.time
        ? `(extract(epoch from r."${c.column}") * 1000)::float8`
        : `r."${c.column}"::float8`
      : `r."${c.column}"`;
  const select = [
    `r."pk"`,
    ...TEXT_COLUMNS.map((c) => `r."${c.column}"`),
    ...NUMBER_COLUMNS.map((c) => numberExpr(c)),
  ].join(", ");
  // Rank order, the Domains without a rank last, then by key: on both databases alike.
  const text = `SELECT ${select} FROM ${t(FACET_COLUMNS_TABLE)} r ORDER BY (CASE WHEN r."rank" IS NULL THEN 1 ELSE 0 END), r."rank", r."pk"`;
  const pks: number[] = [];
  const textLists = TEXT_COLUMNS.map(() => new Map<string, number[]>());
  const textNulls = TEXT_COLUMNS.map(() => [] as number[]);
  const numberLists = NUMBER_COLUMNS.map(() => [] as number[]);
  for await (const batch of source.batches(text)) {
    for (const row of batch) {
      const ord = pks.length;
      pks.push(Number(row[0]));
      for (let i = 0; i < TEXT_COLUMNS.length; i++) {
        const v = row[1 + i];
        if (v === null || v === undefined) {
          textNulls[i].push(ord);
          continue;
        }
        const key = String(v);
        const list = textLists[i].get(key);
        if (list) list.push(ord);
        else textLists[i].set(key, [ord]);
      }
      for (let i = 0; i < NUMBER_COLUMNS.length; i++)
        numberLists[i].push(num(row[1 + TEXT_COLUMNS.length + i]));
    }
  }
  const n = pks.length;
  const maxPk = pks.reduce((m, p) => Math.max(m, p), -1);
  const pkToOrd = new Int32Array(maxPk + 1).fill(-1);
  pks.forEach((pk, ord) => {
    pkToOrd[pk] = ord;
  });
  const parts: IndexPart[] = [{ name: "ords", body: Buffer.from(Int32Array.from(pks).buffer) }];
  const meta: StoredMeta = {
    format: COUNT_INDEX_FORMAT,
    n,
    text: {},
    numbers: [],
    children: {},
    buildMs: 0,
  };
  const sorts: Record<string, "i32" | "f64"> = {};
  meta.sorts = sorts;
  TEXT_COLUMNS.forEach((c, i) => {
    const { keys, bitmaps } = bitmapsOf(textLists[i]);
    const nulls = new RoaringBitmap32(Uint32Array.from(textNulls[i]));
    const { body, offsets } = concatenated([nulls, ...bitmaps]);
    meta.text[c.column] = { keys, offsets };
    parts.push({ name: `text.${c.column}`, body });
  });
  // Coded parts (src/db/number-column.ts) under their own names, `numbers` left empty: code that
  // reads `number.*` parts as doubles finds none, and counts such an index's snapshot by SQL.
  const coded: Record<string, StoredCoding> = {};
  meta.coded = coded;
  const sortArrays = new Map<string, NumberColumn>();
  NUMBER_COLUMNS.forEach((c, i) => {
    const column = encodeNumbers(numberLists[i]);
    numberLists[i] = [];
    const { coding, body } = storedColumn(column);
    coded[c.field] = coding;
    parts.push({ name: `coded.${c.field}`, body });
    if (SORT_KINDS.has(c.field)) sortArrays.set(c.field, column);
  });
  for (const c of SORT_COLUMNS) {
    const sort = await sortPart(source, c, pkToOrd, n, numberExpr);
    sorts[c.field] = sort.type;
    sortArrays.set(c.field, plainColumn(sort.values));
    parts.push({ name: `sort.${c.field}`, body: Buffer.from(sort.values.buffer) });
  }
  const orders: NonNullable<StoredMeta["orders"]> = {};
  meta.orders = orders;
  for (const [field, values] of sortArrays) {
    const { bitmaps, nullStart, firsts, lasts } = sortBuckets(values, Int32Array.from(pks));
    const { body, offsets } = concatenated(bitmaps);
    orders[field] = { offsets, nullStart, firsts, lasts };
    parts.push({ name: `order.${field}`, body });
  }
  for (const spec of CHILD_DIMENSIONS) {
    const { values } = spec;
    const where = values.where ? ` WHERE ${values.where}` : "";
    const lists = new Map<string, number[]>();
    const rows = `SELECT c."${values.key}", c."${values.id}" FROM ${t(TABLES[spec.table].name)} c${where}`;
    for await (const batch of source.batches(rows)) {
      for (const [key, id] of batch) {
        if (id === null || id === undefined) continue;
        const ord = pkToOrd[Number(key)];
        if (ord === undefined || ord < 0) continue;
        const k = String(id);
        const list = lists.get(k);
        if (list) list.push(ord);
        else lists.set(k, [ord]);
      }
    }
    // A Domain with the same value twice (two e-mail contacts) is in its bitmap once.
    const { keys, bitmaps } = bitmapsOf(lists);
    let labels: string[] | null = null;
    if (values.label) {
      const named = new Map<string, string>();
      const label = `SELECT x."pk", ${values.label.expr} FROM ${t(TABLES[values.label.table].name)} x`;
      for await (const batch of source.batches(label))
        for (const [pk, v] of batch) named.set(String(pk), String(v));
      labels = keys.map((k) => named.get(k) ?? k);
    }
    const { body, offsets } = concatenated(bitmaps);
    meta.children[spec.name] = { keys, labels, offsets };
    parts.push({ name: `child.${spec.name}`, body });
  }
  const search = new SearchBuilder();
  const searched = `SELECT r."pk", r."${SEARCH_COLUMN}" FROM ${t(domain.name)} r`;
  for await (const batch of source.batches(searched))
    for (const [pk, text] of batch) {
      const ord = pkToOrd[Number(pk)];
      if (ord !== undefined && ord >= 0) search.add(ord, text);
    }
  const words = search.parts();
  meta.search = words.meta;
  parts.push(...words.parts);
  meta.buildMs = Math.round(performance.now() - started);
  parts.unshift({ name: "meta", body: Buffer.from(JSON.stringify(meta)) });
  return parts;
}

/**
 * A sort key's part: its values by ordinal, or for a text each Domain's position in the order the
 * database sorts it in (the page's own ORDER BY, so its collation), equal texts at one position.
 * An Int32Array when every one is a 32-bit integer, else a Float64Array with NaN for none.
 */
async function sortPart(
  source: IndexSource,
  c: { column: string; kind: KeyKind },
  pkToOrd: Int32Array,
  n: number,
  numberExpr: (c: { column: string; time: boolean }) => string,
): Promise<{ type: "i32" | "f64"; values: Int32Array | Float64Array }> {
  const values = new Float64Array(n).fill(Number.NaN);
  const table = source.table(TABLES.domain.name);
  const text = c.kind === "string";
  const statement = text
    ? `SELECT r."pk", r."${c.column}" FROM ${table} r WHERE r."${c.column}" IS NOT NULL ORDER BY r."${c.column}"`
    : `SELECT r."pk", ${numberExpr({ column: c.column, time: c.kind === "time" })} FROM ${table} r`;
  let position = -1;
  let previous: unknown;
  for await (const batch of source.batches(statement)) {
    for (const [pk, v] of batch) {
      const ord = pkToOrd[Number(pk)];
      if (ord === undefined || ord < 0) continue;
      if (text) {
        if (position < 0 || v !== previous) position++;
        previous = v;
        values[ord] = position;
      } else values[ord] = num(v);
    }
  }
  const int32 = values.every((v) => Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31);
  return int32 ? { type: "i32", values: Int32Array.from(values) } : { type: "f64", values };
}

/** A key's slices (SortBuckets) from its values and keys by ordinal. */
export function sortBuckets(column: NumberColumn, pks: Int32Array, size = ORDER_BUCKET): SortBuckets {
  const n = column.codes.length;
  const values = Float64Array.from({ length: n }, (_, i) => valueAt(column, i));
  const unknown = (v: number) => Number.isNaN(v);
  const before = (a: number, b: number) => {
    const x = values[a];
    const y = values[b];
    const xu = unknown(x);
    if (xu !== unknown(y)) return xu ? 1 : -1;
    if (!xu && x !== y) return x < y ? -1 : 1;
    return pks[a] - pks[b];
  };
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) sorted = before(i - 1, i) < 0;
  if (!sorted) order.sort(before);
  let known = 0;
  while (known < n && !unknown(values[order[known]])) known++;
  const bitmaps: Bitmap[] = [];
  const firsts: number[] = [];
  const lasts: number[] = [];
  const slice = (from: number, to: number) => {
    for (let i = from; i < to; i += size) {
      const end = Math.min(to, i + size);
      const b = new RoaringBitmap32(order.subarray(i, end));
      b.runOptimize();
      b.shrinkToFit();
      bitmaps.push(b);
      firsts.push(order[i]);
      lasts.push(order[end - 1]);
    }
  };
  slice(0, known);
  const nullStart = bitmaps.length;
  slice(known, n);
  return { bitmaps, nullStart, firsts, lasts };
}

interface StoredMeta {
  format: number;
  n: number;
  text: Record<string, { keys: string[]; offsets: number[] }>;
  /** The fields whose values are stored as doubles, in `number.<field>` parts (before `coded`). */
  numbers: string[];
  /** Each number field's coding, its codes in a `coded.<field>` part. */
  coded?: Record<string, StoredCoding>;
  children: Record<string, { keys: string[]; labels: string[] | null; offsets: number[] }>;
  /** Absent in an index built before the sort parts (format 1 still): those sorts are read by SQL. */
  sorts?: Record<string, "i32" | "f64">;
  /** Each sort key's slices (SortBuckets; absent then too). */
  orders?: Record<string, { offsets: number[]; nullStart: number; firsts: number[]; lasts: number[] }>;
  /** The searched text's words (absent in an index built before them: a search asks the database). */
  search?: StoredSearch;
  buildMs: number;
}

function concatenated(bitmaps: Bitmap[]): { body: Buffer; offsets: number[] } {
  const pieces = bitmaps.map((b) => b.serialize(true));
  const offsets = [0];
  for (const p of pieces) offsets.push(offsets[offsets.length - 1] + p.length);
  return { body: Buffer.concat(pieces), offsets };
}

function split(body: Uint8Array, offsets: number[]): Bitmap[] {
  const out: Bitmap[] = [];
  for (let i = 0; i + 1 < offsets.length; i++)
    out.push(
      RoaringBitmap32.deserialize(
        Buffer.from(body.buffer, body.byteOffset + offsets[i], offsets[i + 1] - offsets[i]),
        true,
      ),
    );
  return out;
}

/** The statements that create COUNT_INDEX_TABLE (`table`: its quoted name). */
export function countIndexTableStatement(kind: "sqlite" | "postgresql", table: string): string {
  return kind === "postgresql"
    ? `CREATE TABLE ${table} ("name" TEXT PRIMARY KEY, "body" BYTEA NOT NULL)`
    : `CREATE TABLE ${table} ("name" TEXT PRIMARY KEY, "body" BLOB NOT NULL)`;
}

// ---------------------------------------------------------------------- loading

export const sizeOrder = (bitmaps: Bitmap[], keys: string[]) =>
  bitmaps
    .map((b, i) => ({ i, n: b.size }))
    .sort((a, b) => b.n - a.n || (keys[a.i] < keys[b.i] ? -1 : keys[a.i] > keys[b.i] ? 1 : 0))
    .map((x) => x.i);

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

// ---------------------------------------------------------------------- the writers' side

/** Rows per batch a build reads. */
const BUILD_BATCH = 50_000;

/** A build's source on a SQLite snapshot being written (its own connection). */
export function sqliteIndexSource(db: SqliteDatabase.Database): IndexSource {
  return {
    kind: "sqlite",
    table: (name) => `"${name}"`,
    async *batches(text) {
      let batch: unknown[][] = [];
      for (const row of db.prepare(text).raw(true).iterate()) {
        batch.push(row as unknown[]);
        if (batch.length === BUILD_BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    },
  };
}

interface PgClient {
  query(
    text: string | { text: string; rowMode: "array"; values?: unknown[] },
    values?: unknown[],
  ): Promise<{ rows: unknown[] }>;
}

/** A build's source on a PostgreSQL snapshot schema: each statement through a cursor. */
export function pgIndexSource(client: PgClient, schema: string): IndexSource {
  return {
    kind: "postgresql",
    table: (name) => `"${schema}"."${name}"`,
    async *batches(text) {
      await client.query("BEGIN");
      try {
        await client.query(`DECLARE count_index_rows NO SCROLL CURSOR FOR ${text}`);
        for (;;) {
          const { rows } = await client.query({
            text: `FETCH ${BUILD_BATCH} FROM count_index_rows`,
            rowMode: "array",
          });
          if (!rows.length) break;
          yield rows as unknown[][];
        }
        await client.query("COMMIT");
      } catch (e) {
        await client.query("ROLLBACK").catch(() => {});
        throw e;
      }
    },
  };
}

/**
 * Builds the index of a SQLite snapshot file open read-write (`db`, its own connection) and stores
 * it in one transaction, once the build's reads are done.
 */
export async function storeSqliteCountIndex(
  db: SqliteDatabase.Database,
): Promise<{ bytes: number; ms: number }> {
  const statements: [string, unknown[] | undefined][] = [];
  const built = await storeCountIndex(sqliteIndexSource(db), (statement, params) => {
    statements.push([statement, params]);
  });
  db.transaction(() => {
    for (const [statement, params] of statements)
      db.prepare(statement.replace(/\$\d+/g, "?")).run(...(params ?? []));
  })();
  return built;
}

/** Builds the index and stores it in COUNT_INDEX_TABLE (replacing one stored before). */
export async function storeCountIndex(
  source: IndexSource,
  write: (statement: string, params?: unknown[]) => Promise<unknown> | unknown,
): Promise<{ bytes: number; ms: number }> {
  const started = performance.now();
  const parts = await buildCountIndex(source);
  const table = source.table(COUNT_INDEX_TABLE);
  await write(`DROP TABLE IF EXISTS ${table}`);
  await write(countIndexTableStatement(source.kind, table));
  for (const p of parts)
    await write(`INSERT INTO ${table} ("name", "body") VALUES ($1, $2)`, [p.name, p.body]);
  return { bytes: parts.reduce((s, p) => s + p.body.length, 0), ms: Math.round(performance.now() - started) };
}

/**
 * Builds the count index into the served snapshot (`npm run load -- --count-index`): for a
 * snapshot loaded before the index existed, or by code of another index format. The table is
 * added beside the others; gateways find it within a minute (countIndexOf asks again).
 */
export async function indexServedSnapshot(
  config: { database: { kind: "sqlite"; dataDir: string } | { kind: "postgresql"; url: string } },
  location: string,
): Promise<{ bytes: number; ms: number }> {
  const db = config.database;
  if (db.kind === "sqlite") {
    const { default: Database } = await import("better-sqlite3");
    const { join } = await import("node:path");
    const file = new Database(join(db.dataDir, location));
    try {
      return await storeSqliteCountIndex(file);
    } finally {
      file.close();
    }
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return await storeCountIndex(pgIndexSource(client, location), (statement, params) =>
      client.query(statement, params),
    );
  } finally {
    await client.end();
  }
}
