import { DOMAIN_FACET_VALUES, FACET_COLUMNS, type FacetValues } from "./facet-sql.ts";
import type { StoredCoding } from "./number-column.ts";
import type { StoredSearch } from "./search-index.ts";
import { DOMAIN_SORTS, type KeyKind } from "./sort-fields.ts";
import { TABLES, type TableKey } from "./tables.ts";
import { RELATIONS } from "./where-sql.ts";

/**
 * What the count index (src/db/count-index.ts) holds, and how its parts are described: the text and
 * number columns, sort keys and child dimensions it takes from the catalogue the filters and facets
 * use, and the meta part that names the others. Its build (src/db/count-index-build.ts) and its
 * loading read both from here.
 */

export const domain = TABLES.domain;
export const fieldOfColumn = (table: TableKey, column: string) => {
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
export const TEXT_COLUMNS: { column: string; field: string }[] = [
  ...FACET_COLUMNS.filter((c) => domain.kinds[domain.columns.indexOf(c)] === "text").map((c) => ({
    column: c as string,
    field: fieldOfColumn("domain", c),
  })),
  { column: "created_month", field: "createdMonth" },
];
export const NUMBER_COLUMNS = FACET_COLUMNS.filter(
  (c) => domain.kinds[domain.columns.indexOf(c)] !== "text",
).map((c) => ({
  column: c as string,
  field: fieldOfColumn("domain", c),
  time: domain.kinds[domain.columns.indexOf(c)] === "time",
}));

/**
 * The Domain sort keys without an array of NUMBER_COLUMNS (platform_rank, name): each gets its own
 * part, read from the domain table.
 */
export const SORT_COLUMNS: { column: string; field: string; kind: KeyKind }[] = Object.values(DOMAIN_SORTS)
  .filter((s) => !NUMBER_COLUMNS.some((c) => c.field === s.field))
  .map((s) => {
    const i = domain.fields.indexOf(s.field);
    if (i < 0) throw new Error(`count index: the domain table has no field ${s.field}`);
    return { column: domain.columns[i], field: s.field, kind: s.kind };
  });
/** The column `q` searches (src/dataset/load/rows.ts searchText). */
export const SEARCH_COLUMN = fieldColumn("domain", "searchText");
export const SORT_KINDS = new Map<string, KeyKind>(Object.values(DOMAIN_SORTS).map((s) => [s.field, s.kind]));

export type Child = Extract<FacetValues, { kind: "child" }>;
export interface ChildSpec {
  name: string;
  values: Child;
  table: TableKey;
  relation: string;
}
export const CHILD_DIMENSIONS: ChildSpec[] = Object.entries(
  DOMAIN_FACET_VALUES as Record<string, FacetValues>,
)
  .filter((e): e is [string, Child] => e[1].kind === "child")
  .map(([name, values]) => {
    const table = values.table;
    if (!table) throw new Error(`count index: dimension ${name} names no child table`);
    const relation = Object.entries(RELATIONS.domain ?? {}).find(([, r]) => r.table === table)?.[0];
    if (!relation) throw new Error(`count index: no Domain relation reads ${table}`);
    return { name, values, table, relation };
  });

/** The condition rows of a child dimension meet (`c."removed_at" IS NULL`) as its field, or null. */
export function requiredNull(values: Child, table: TableKey): string | null {
  if (!values.where) return null;
  const m = /^c\."(\w+)" IS NULL$/.exec(values.where);
  if (!m) throw new Error(`count index: cannot read the condition ${values.where}`);
  return fieldOfColumn(table, m[1]);
}

/** The `meta` part: what the others hold, and where each value's bitmap is in its part. */
export interface StoredMeta {
  n: number;
  text: Record<string, { keys: string[]; offsets: number[] }>;
  /** Each number field's coding, its codes in a `coded.<field>` part. */
  coded: Record<string, StoredCoding>;
  children: Record<string, { keys: string[]; labels: string[] | null; offsets: number[] }>;
  /** The type of each sort key with a part of its own (`sort.<field>`). */
  sorts: Record<string, "i32" | "f64">;
  /** Each sort key's slices (SortBuckets), in an `order.<field>` part. */
  orders: Record<string, { offsets: number[]; nullStart: number; firsts: number[]; lasts: number[] }>;
  /** The searched text's words. */
  search: StoredSearch;
  buildMs: number;
}
