import type { RawRow } from "./reader.ts";
import { type ColumnKind, TABLES, type TableKey } from "./tables.ts";

/**
 * Rows in the Prisma model's shape, as the hand-written reads (src/db/reader.ts) return them: a
 * table's columns with their model fields and kinds (columnsOf), their select list, and the
 * compiled constructor that makes each raw row a model row (toModel).
 */

export interface Column {
  column: string;
  field: string;
  kind: ColumnKind;
}

const COLUMNS = new Map<TableKey, Column[]>(
  (Object.keys(TABLES) as TableKey[]).map((key) => [
    key,
    TABLES[key].columns.map((column, i) => ({
      column,
      field: TABLES[key].fields[i],
      kind: TABLES[key].kinds[i],
    })),
  ]),
);

export function columnsOf(table: TableKey, omit: readonly string[] = []): Column[] {
  const all = COLUMNS.get(table);
  if (!all) throw new Error(`unknown table ${table}`);
  return omit.length ? all.filter((c) => !omit.includes(c.field)) : all;
}

/** `"a", "b"`: the select list of `columns`. */
export const selectList = (columns: readonly Column[], alias = "") =>
  columns.map((c) => `${alias}"${c.column}"`).join(", ");

/**
 * Rows (their values in the order of `columns`, the query's select list) as Prisma returns them:
 * model field names; times as Date (SQLite keeps epoch milliseconds, PostgreSQL TIMESTAMP(3));
 * BIGINT as bigint; JSON parsed (SQLite keeps text); a missing value as null.
 */
export function toModel<T>(columns: readonly Column[], rows: readonly RawRow[]): T[] {
  const make = modelMaker(columns) as (raw: RawRow) => T;
  const out = new Array<T>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = make(rows[i]);
  return out;
}

type ModelMaker = (raw: RawRow) => Record<string, unknown>;
const makers = new WeakMap<readonly Column[], ModelMaker>();
const makersByFields = new Map<string, ModelMaker>();

/**
 * The row of a column list, compiled: one object literal with every field at once, so that all rows
 * of a read share one hidden class with its fields in place. Assigned field by field through
 * `row[c.field]`, a Domain's hundred columns made each row a dictionary: every read of a field by
 * the resolvers and the row writer was a hash lookup (toModel alone was 6% of a page of 1,000
 * Domains' CPU). Made once per list (by identity, else by its fields and kinds).
 */
function modelMaker(columns: readonly Column[]): ModelMaker {
  let make = makers.get(columns);
  if (make) return make;
  const key = columns.map((c) => `${c.field}:${c.kind}`).join(",");
  make = makersByFields.get(key);
  if (!make) {
    const value = (c: Column, i: number) => {
      const v = `raw[${i}]`;
      const converted =
        c.kind === "time"
          ? `(${v} instanceof Date ? ${v} : new Date(${v}))`
          : c.kind === "bigint"
            ? `(typeof ${v} === "bigint" ? ${v} : BigInt(${v}))`
            : c.kind === "json"
              ? `(typeof ${v} === "string" ? JSON.parse(${v}) : ${v})`
              : v;
      return `${JSON.stringify(c.field)}: ${v} === null || ${v} === undefined ? null : ${converted}`;
    };
    make = new Function("raw", `return { ${columns.map(value).join(",\n")} };`) as ModelMaker;
    makersByFields.set(key, make);
  }
  makers.set(columns, make);
  return make;
}
