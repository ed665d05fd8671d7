import { CHILD_ROWS_TABLE, DOMAIN_CHILDREN, type DomainChild } from "./domain-children.ts";
import type { CatalogueCheck, SqlReader } from "./reader.ts";
import { type ColumnKind, TABLES, type Table } from "./tables.ts";

/**
 * A snapshot older than its code: loaded by a version whose catalogue (src/db/tables.ts, from
 * prisma/schema.prisma) had fewer columns or tables than this one's. A snapshot is never migrated
 * once loaded (a replica cannot be written, and a load is one version's data), so the gateway
 * reads it as it is: before serving a snapshot (src/db/snapshots.ts), it asks once what the
 * snapshot holds of the catalogue (checkCatalogue), and its reader (checkedReader) then reads
 * what it lacks as absent: a missing column as NULL, a missing table as a table without rows.
 * Every statement of the snapshot names its tables through the reader (`table`), so select
 * lists, filters, sorts and child rows all see the same absent values, and an up-to-date
 * snapshot's statements are the very ones they were (docs/decisions.md, "A snapshot older than
 * its code").
 */

const CATALOGUED = Object.values(TABLES) as Table[];
const CHILD_TABLES = new Set(Object.values(DOMAIN_CHILDREN).map(({ table }) => TABLES[table].name as string));
const CHILDREN = Object.keys(DOMAIN_CHILDREN) as DomainChild[];

/**
 * What the snapshot `sql` reads holds of the catalogue, in one query: the columns of each of its
 * tables (PostgreSQL's pg_attribute, SQLite's table_info), against the catalogue's. It also answers
 * whether the snapshot keeps its Domains' child rows as this code reads them (the table, a column
 * per child, every child table whole: its arrays hold each child row's columns by position), which
 * keepsChildRows (src/db/domain-children.ts) would otherwise ask on the first read.
 */
export async function checkCatalogue(sql: SqlReader): Promise<CatalogueCheck> {
  const held = new Map<string, Set<string>>();
  const names = [...CATALOGUED.map((t) => t.name), CHILD_ROWS_TABLE];
  const rows =
    sql.kind === "postgresql"
      ? await sql.all(
          `SELECT t.name, a.attname FROM unnest($1::text[], $2::text[]) AS t(name, qualified)
           JOIN pg_attribute a ON a.attrelid = to_regclass(t.qualified) AND a.attnum > 0 AND NOT a.attisdropped`,
          [names, names.map((n) => sql.table(n))],
        )
      : await sql.all(
          `SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`,
          [],
        );
  for (const [table, column] of rows as [string, string][]) {
    const columns = held.get(table);
    if (columns) columns.add(column);
    else held.set(table, new Set([column]));
  }
  const missingTables: string[] = [];
  const missingColumns: string[] = [];
  for (const { name, columns } of CATALOGUED) {
    const has = held.get(name);
    if (!has) missingTables.push(name);
    else for (const c of columns) if (!has.has(c)) missingColumns.push(`${name}.${c}`);
  }
  const whole = (table: string) =>
    !missingTables.includes(table) && !missingColumns.some((c) => c.startsWith(`${table}.`));
  const kept = held.get(CHILD_ROWS_TABLE);
  const keepsChildRows =
    kept !== undefined && CHILDREN.every((child) => kept.has(child)) && [...CHILD_TABLES].every(whole);
  return { missingTables, missingColumns, keepsChildRows };
}

/** Whether the check found the snapshot lacking anything of the catalogue. */
export const lacksAny = (c: CatalogueCheck | null): c is CatalogueCheck =>
  c !== null && (c.missingTables.length > 0 || c.missingColumns.length > 0);

/** How a NULL of a column's kind is written: typed on PostgreSQL, so it compares as the column would. */
const PG_TYPES: Record<ColumnKind, string> = {
  int: "integer",
  bigint: "bigint",
  float: "double precision",
  text: "text",
  json: "jsonb",
  time: "timestamp(3)",
};
const nullOf = (kind: SqlReader["kind"], column: ColumnKind) =>
  kind === "postgresql" ? `NULL::${PG_TYPES[column]}` : "NULL";

/**
 * `reader` with what `check` found: its tables named as they are, except those the snapshot lacks
 * or lacks columns of, each a derived table generated from the difference: `(SELECT *, NULL AS
 * "new_column" FROM "table")`, or for a missing table every column NULL and no row. Nothing
 * else changes, so an up-to-date snapshot's reads cost what they did.
 */
export function checkedReader(reader: SqlReader, check: CatalogueCheck): SqlReader {
  if (!lacksAny(check)) return { ...reader, catalogue: check };
  const derived = new Map<string, string>();
  for (const table of CATALOGUED) {
    const absent = (c: string) => `${nullOf(reader.kind, table.kinds[table.columns.indexOf(c)])} AS "${c}"`;
    if (check.missingTables.includes(table.name)) {
      derived.set(table.name, `(SELECT ${table.columns.map(absent).join(", ")} WHERE 1 = 0)`);
      continue;
    }
    const missing = table.columns.filter((c) => check.missingColumns.includes(`${table.name}.${c}`));
    if (missing.length)
      derived.set(
        table.name,
        `(SELECT *, ${missing.map(absent).join(", ")} FROM ${reader.table(table.name)})`,
      );
  }
  return {
    ...reader,
    catalogue: check,
    table: (name) => derived.get(name) ?? reader.table(name),
  };
}

/**
 * A key telling apart the statements of readers that name their tables differently (an older
 * snapshot's derived tables), for caches of statements shared by every reader: "" for an
 * up-to-date snapshot.
 */
export const namingKey = (sql: SqlReader): string =>
  lacksAny(sql.catalogue) ? `${sql.catalogue.missingTables}|${sql.catalogue.missingColumns}` : "";
