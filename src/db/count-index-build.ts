import type SqliteDatabase from "better-sqlite3";
import { bitmapsOf, concatenated, RoaringBitmap32 } from "./bitmaps.ts";
import { type Bitmap, COUNT_INDEX_TABLE, ORDER_BUCKET, type SortBuckets } from "./count-index.ts";
import {
  CHILD_DIMENSIONS,
  domain,
  NUMBER_COLUMNS,
  SEARCH_COLUMN,
  SORT_COLUMNS,
  SORT_KINDS,
  type StoredMeta,
  TEXT_COLUMNS,
} from "./count-index-catalogue.ts";
import { FACET_COLUMNS_TABLE } from "./facet-sql.ts";
import { encodeNumbers, type NumberColumn, plainColumn, storedColumn, valueAt } from "./number-column.ts";
import { SearchBuilder } from "./search-index.ts";
import { PART_TABLE, recordPartStatements } from "./snapshot-format.ts";
import type { KeyKind } from "./sort-fields.ts";
import { TABLES } from "./tables.ts";

/**
 * The count index's build (src/db/count-index.ts): its parts read from a snapshot being written
 * (SQLite's own connection, or a PostgreSQL cursor), and stored in COUNT_INDEX_TABLE, at a load or
 * by an upgrade (src/db/snapshot-upgrade.ts).
 */

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
  const sorts: StoredMeta["sorts"] = {};
  const coded: StoredMeta["coded"] = {};
  const orders: StoredMeta["orders"] = {};
  const meta: StoredMeta = {
    n,
    text: {},
    coded,
    children: {},
    sorts,
    orders,
    search: { words: 0, common: [], offsets: [] },
    buildMs: 0,
  };
  TEXT_COLUMNS.forEach((c, i) => {
    const { keys, bitmaps } = bitmapsOf(textLists[i]);
    const nulls = new RoaringBitmap32(Uint32Array.from(textNulls[i]));
    const { body, offsets } = concatenated([nulls, ...bitmaps]);
    meta.text[c.column] = { keys, offsets };
    parts.push({ name: `text.${c.column}`, body });
  });
  // Each number column coded (src/db/number-column.ts), under its own name.
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
/** The statements that create COUNT_INDEX_TABLE (`table`: its quoted name). */
export function countIndexTableStatement(kind: "sqlite" | "postgresql", table: string): string {
  return kind === "postgresql"
    ? `CREATE TABLE ${table} ("name" TEXT PRIMARY KEY, "body" BYTEA NOT NULL)`
    : `CREATE TABLE ${table} ("name" TEXT PRIMARY KEY, "body" BLOB NOT NULL)`;
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
  for (const statement of recordPartStatements(source.table(PART_TABLE), "count_index"))
    await write(statement);
  return { bytes: parts.reduce((s, p) => s + p.body.length, 0), ms: Math.round(performance.now() - started) };
}
