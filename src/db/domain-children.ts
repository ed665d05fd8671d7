import { type Column, columnsOf } from "./model-rows.ts";
import type { SqlReader } from "./reader.ts";
import { PART_TABLE, recordPartStatements } from "./snapshot-format.ts";
import { TABLES, type TableKey } from "./tables.ts";

/**
 * The child tables of a Domain, by the Domain field each gives, with the order of a Domain's rows
 * (after its key). One list for the relation loaders, the planned reads and the child rows a
 * snapshot keeps per Domain (below), so all read the same rows in the same order.
 */
export const DOMAIN_CHILDREN = {
  categories: { table: "domainCategory", orderBy: ["category"] },
  features: { table: "domainFeature", orderBy: ["feature"] },
  tags: { table: "domainTag", orderBy: ["tag"] },
  salesChannels: { table: "domainSalesChannel", orderBy: ["channel"] },
  shipsToCountries: { table: "domainShipsTo", orderBy: ["country_code"] },
  contactInfo: { table: "domainContact", orderBy: ["position"] },
  technologies: { table: "domainTechnology", orderBy: ["installed_at", "technology_pk"] },
  apps: { table: "domainApp", orderBy: ["installed_at", "app_pk"] },
} as const satisfies Record<string, { table: TableKey; orderBy: readonly string[] }>;
export type DomainChild = keyof typeof DOMAIN_CHILDREN;

/**
 * A column as a JSON value that toModel reads back as the column itself: times as epoch
 * milliseconds (SQLite keeps them so; JSON would write a PostgreSQL TIMESTAMP without its zone),
 * BIGINT and JSON as text (a JSON number cannot hold every BIGINT; JSON text is parsed as the
 * reader parses the column).
 */
function jsonValueOf(kind: SqlReader["kind"], column: Column, alias: string): string {
  const c = `${alias}"${column.column}"`;
  if (kind === "postgresql") {
    if (column.kind === "time") return `(extract(epoch from ${c}) * 1000)::bigint`;
    if (column.kind === "bigint" || column.kind === "json") return `${c}::text`;
    return c;
  }
  return column.kind === "bigint" ? `CAST(${c} AS TEXT)` : c;
}

/**
 * A Domain's rows of `child` as one JSON array of arrays (each row's columns, as columnsOf lists
 * them), in the child's order: a correlated subquery on the child's (domain_pk, …) key of the
 * Domain aliased `alias`. PostgreSQL builds it with json_agg, SQLite with json_group_array; a
 * Domain without rows gets NULL (PostgreSQL) or `[]` (SQLite), both read as no rows.
 */
export function childArraySql(
  kind: SqlReader["kind"],
  table: (name: string) => string,
  child: DomainChild,
  alias: string,
): string {
  const [agg, array] =
    kind === "postgresql" ? ["json_agg", "json_build_array"] : ["json_group_array", "json_array"];
  const { table: key, orderBy } = DOMAIN_CHILDREN[child];
  const values = columnsOf(key)
    .map((c) => jsonValueOf(kind, c, "c."))
    .join(", ");
  const order = orderBy.map((o) => `c."${o}"`).join(", ");
  return `(SELECT ${agg}(${array}(${values}) ORDER BY ${order}) FROM ${table(TABLES[key].name)} c WHERE c."domain_pk" = ${alias}"pk")`;
}

/**
 * Each Domain's child rows, kept by the snapshot: one row per Domain, one column per child (named
 * as the child), holding the very array childArraySql gives. A snapshot never changes once loaded,
 * so the writer builds it once, after the load (childRowsStatements); a read then finds a Domain's
 * children with one probe of this table's key instead of one per child table. On 100,000 Domains
 * (PostgreSQL), every Domain with all eight children read in rank order took 6.2–6.5 s through the
 * correlated subqueries and 1.3 s through this table (docs/decisions.md, "Generated writers").
 */
export const CHILD_ROWS_TABLE = "domain_child_rows";
const CHILDREN = Object.keys(DOMAIN_CHILDREN) as DomainChild[];

/**
 * The statements that build CHILD_ROWS_TABLE from a loaded snapshot's tables (named by `table`),
 * replacing one built before, and record the part (src/db/snapshot-format.ts).
 */
export function childRowsStatements(kind: SqlReader["kind"], table: (name: string) => string): string[] {
  const target = table(CHILD_ROWS_TABLE);
  const arrays = CHILDREN.map((child) => `${childArraySql(kind, table, child, "d.")} AS "${child}"`);
  const select = `SELECT d."pk" AS "domain_pk", ${arrays.join(", ")} FROM ${table(TABLES.domain.name)} d`;
  const record = recordPartStatements(table(PART_TABLE), "child_rows");
  if (kind === "postgresql")
    return [
      `DROP TABLE IF EXISTS ${target}`,
      `CREATE TABLE ${target} AS ${select} ORDER BY d."pk"`,
      `ALTER TABLE ${target} ADD PRIMARY KEY ("domain_pk")`,
      `ANALYZE ${target}`,
      ...record,
    ];
  const columns = CHILDREN.map((child) => `"${child}" TEXT`).join(", ");
  return [
    `DROP TABLE IF EXISTS ${target}`,
    `CREATE TABLE ${target} ("domain_pk" INTEGER PRIMARY KEY, ${columns})`,
    `INSERT INTO ${target} ${select} ORDER BY d."pk"`,
    ...record,
  ];
}
