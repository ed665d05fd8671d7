import {
  byValue,
  childValues,
  FACET_COLUMNS,
  FACET_COLUMNS_TABLE,
  FACET_SUMMARY_TABLE,
  type FacetTable,
  type FacetValues,
  labelled,
} from "../db/facet-sql.ts";
import type { SqlReader } from "../db/reader.ts";
import { TABLES } from "../db/tables.ts";
import { whereKey } from "../db/where-bitmap.ts";
import { countWhere, RELATIONS, statementKey, statementOver } from "../db/where-sql.ts";
import { InputError } from "../errors.ts";
import { cached } from "./facet-cache.ts";
import { byCount, FACETS, type Facet, type FacetValue, MAX_DIMENSIONS, type RecordSet } from "./facets.ts";
import type { Where } from "./keyset.ts";

/**
 * A list's facets counted (src/query/facets.ts says what they are): from the snapshot's summary
 * where the list is not filtered, else from the set's members over its index (src/query/domain-set.ts,
 * src/query/app-set.ts), or, on a reader without one, by one statement a facet over the narrow
 * facet columns, the matching keys or the records' rows (sourceOf chooses, and histograms read the
 * same choice).
 */

/** The facets of `dimensions` (names of FACETS[table].dimensions, each once), top `size` values each, in their order. */
export async function facetsOf(
  scope: RecordSet,
  dimensions: readonly string[],
  size: number,
): Promise<Facet[]> {
  const known = FACETS[scope.table].dimensions;
  if (dimensions.length > MAX_DIMENSIONS)
    throw new InputError("by", `takes at most ${MAX_DIMENSIONS} dimensions; got ${dimensions.length}`);
  const seen = new Set<string>();
  for (const d of dimensions) {
    if (!(d in known)) throw new Error(`unknown facet dimension ${scope.table}.${d}`);
    if (seen.has(d)) throw new InputError("by", `names ${d} twice`);
    seen.add(d);
  }
  return Promise.all(dimensions.map((d) => facetOf(scope, d, size)));
}

async function facetOf(scope: RecordSet, dimension: string, size: number): Promise<Facet> {
  const { sql } = scope;
  if (Object.keys(scope.where).length === 0)
    return cached(sql, `summary|${scope.table}.${dimension}|${size}`, size, () =>
      summaryFacet(sql, scope.table, dimension, size),
    );
  if (await scope.hasIndex())
    return cached(
      sql,
      `${scope.table}-index|${dimension}|${size}|${whereKey(scope.where)}`,
      size,
      async () => {
        const found = await scope.indexed();
        if (!found) throw new Error(`the snapshot's ${scope.table} index vanished`);
        return found.facet(dimension, size);
      },
    );
  // Not the summary: the list is filtered.
  const source = (await sourceOf(scope)) as Exclude<Source, "summary">;
  const statement = facetStatement(
    sql,
    scope,
    FACETS[scope.table].dimensions[dimension].values,
    size,
    source,
  );
  return cached(sql, statementKey(statement), size, () =>
    run(sql, statement).then((rows) => facetFromRows(dimension, rows)),
  );
}

/**
 * Where a list's facets are counted from:
 * - `summary`: every record of the table, from the snapshot's summary;
 * - `scan`: the snapshot's narrow facet columns, scanned, when the filter tests only columns they
 *   hold and matches at least a twentieth of the Domains (a country, a platform, a state);
 * - `keys`: the matching keys read by the filter's indexes, then their narrow columns by key
 *   (a smaller set, or a filter on what they do not hold: the searched text);
 * - `rows`: the records' own rows (Apps).
 */
export type Source = "summary" | "scan" | "keys" | "rows";
const LARGE_SHARE = 0.05;

export async function sourceOf(scope: RecordSet): Promise<Source> {
  const { sql } = scope;
  if (Object.keys(scope.where).length === 0) return "summary";
  if (scope.table !== "domain") return "rows";
  if (!testsOnly(scope.where, NARROW_FIELDS)) return "keys";
  const [matching, all] = await Promise.all([
    countWhere(sql, "domain", scope.where),
    countWhere(sql, "domain", {}),
  ]);
  return matching >= LARGE_SHARE * all ? "scan" : "keys";
}

/** The Domain fields FACET_COLUMNS_TABLE holds (the model's names of FACET_COLUMNS). */
const NARROW_FIELDS = new Set(
  FACET_COLUMNS.map((c) => TABLES.domain.fields[TABLES.domain.columns.indexOf(c)]),
);

/** Whether `where` (on Domains) tests no field of the record's own row but `fields` (relations test the key). */
function testsOnly(where: Where, fields: Set<string>): boolean {
  return Object.entries(where).every(([key, value]) => {
    if (value === undefined) return true;
    if (key === "AND" || key === "OR" || key === "NOT")
      return (Array.isArray(value) ? value : [value]).every((w) => testsOnly(w as Where, fields));
    return key in (RELATIONS.domain ?? {}) || fields.has(key);
  });
}

/** Facet rows: (kind, value, count); kinds as below. */
const TOP = 0;
const COVERED = 1;
const VALUED = 2;
const TOTAL = 3;
const MISSING = 4;

export async function run(sql: SqlReader, s: { text: string; params: unknown[] }): Promise<unknown[][]> {
  return sql.all(s.text, s.params, { planEach: true });
}

/**
 * The one statement of a facet of a filtered list. The matching keys are read once, by the
 * filter's own condition; a one-value dimension then groups their values (from the snapshot's
 * narrow facet columns when it keeps them, else from their rows); a child table's groups its rows
 * of those keys by the value's key, names the top values only, and counts the records having any
 * value and any of the top ones by probing the child's (record key, …) index per matching key.
 */
function facetStatement(
  sql: SqlReader,
  scope: RecordSet,
  values: FacetValues,
  size: number,
  source: Exclude<Source, "summary">,
) {
  const t = (name: string) => sql.table(name);
  const from = `${t(source === "scan" ? FACET_COLUMNS_TABLE : TABLES[scope.table].name)} r`;
  return statementOver(sql, scope.table, scope.where, (cond, bind) => {
    const top = (g: string) =>
      `SELECT ${TOP}, f_top.v, f_top.n FROM (SELECT v, n FROM ${g} WHERE v IS NOT NULL ORDER BY n DESC, ${byValue(sql.kind, "v")} LIMIT ${bind(size)}) f_top ` +
      `UNION ALL SELECT ${MISSING}, NULL, coalesce(sum(n), 0) FROM ${g} WHERE v IS NULL ` +
      `UNION ALL SELECT ${TOTAL}, NULL, coalesce(sum(n), 0) FROM ${g}`;
    const keys = `f_m AS MATERIALIZED (SELECT r."pk" AS k FROM ${from} WHERE ${cond})`;
    if (values.kind === "column") {
      if (source === "keys" && values.narrow) {
        const e = `nullif(n."${values.narrow}", '')`;
        return `WITH ${keys}, f_g AS MATERIALIZED (SELECT ${e} AS v, count(*) AS n FROM f_m JOIN ${t(FACET_COLUMNS_TABLE)} n ON n."pk" = f_m.k GROUP BY ${e}) ${top("f_g")}`;
      }
      const e =
        source === "scan" && values.narrow ? `nullif(r."${values.narrow}", '')` : values.expr(sql.kind);
      return `WITH f_g AS MATERIALIZED (SELECT ${e} AS v, count(*) AS n FROM ${from} WHERE ${cond} GROUP BY ${e}) ${top("f_g")}`;
    }
    const c = values.from(sql.kind, t);
    const rows = childValues(values);
    const { join, value } = labelled(values, t);
    const counted = values.repeats ? `DISTINCT c."${values.key}"` : "*";
    const head =
      `WITH ${keys}, ` +
      `f_g AS MATERIALIZED (SELECT c."${values.id}" AS id, count(${counted}) AS n FROM f_m JOIN ${c} ON c."${values.key}" = f_m.k WHERE ${rows} GROUP BY c."${values.id}"), ` +
      `f_top AS MATERIALIZED (SELECT g.id, ${value} AS v, g.n FROM f_g g${join} ORDER BY g.n DESC, ${byValue(sql.kind, value)} LIMIT ${bind(size)})`;
    // The records with any value and with any of the top ones. PostgreSQL: one more pass over the
    // matching rows of the child, grouped by record (it streams them in key order); SQLite: a probe
    // of the child's key per matching record, which it does faster (at 100,000 Domains, the US
    // Domains' technologies: PostgreSQL 300-450 ms probing, 205-220 ms in one pass; SQLite
    // 205 ms probing, 260 ms in one pass).
    if (sql.kind === "postgresql" && source === "scan") {
      // A large set on PostgreSQL: the child's rows joined to the narrow rows that match, the
      // condition in the join, where the planner can see how many match; through a materialized
      // CTE of the keys it estimated them badly and hashed the whole child table (at a million
      // Domains, the US Domains' technologies: 7.8 s, then 2.3 s this way).
      // In parentheses: a condition may be a disjunction (`not` with unknown values: x OR y).
      const matched = `${c} JOIN ${from} ON r."pk" = c."${values.key}" WHERE (${cond}) AND (${rows})`;
      return (
        `WITH f_g AS MATERIALIZED (SELECT c."${values.id}" AS id, count(${counted}) AS n FROM ${matched} GROUP BY c."${values.id}"), ` +
        `f_top AS MATERIALIZED (SELECT g.id, ${value} AS v, g.n FROM f_g g${join} ORDER BY g.n DESC, ${byValue(sql.kind, value)} LIMIT ${bind(size)}), ` +
        `f_k AS MATERIALIZED (SELECT bool_or(c."${values.id}" IN (SELECT id FROM f_top)) AS t FROM ${matched} GROUP BY c."${values.key}") ` +
        `SELECT ${TOP}, v, n FROM f_top ` +
        `UNION ALL SELECT ${COVERED}, NULL, count(*) FILTER (WHERE t) FROM f_k ` +
        `UNION ALL SELECT ${VALUED}, NULL, count(*) FROM f_k ` +
        `UNION ALL SELECT ${TOTAL}, NULL, count(*) FROM ${from} WHERE ${cond}`
      );
    }
    if (sql.kind === "postgresql")
      return (
        `${head}, f_k AS MATERIALIZED (SELECT bool_or(c."${values.id}" IN (SELECT id FROM f_top)) AS t FROM f_m JOIN ${c} ON c."${values.key}" = f_m.k WHERE ${rows} GROUP BY f_m.k) ` +
        `SELECT ${TOP}, v, n FROM f_top ` +
        `UNION ALL SELECT ${COVERED}, NULL, count(*) FILTER (WHERE t) FROM f_k ` +
        `UNION ALL SELECT ${VALUED}, NULL, count(*) FROM f_k ` +
        `UNION ALL SELECT ${TOTAL}, NULL, count(*) FROM f_m`
      );
    return (
      `${head} SELECT ${TOP}, v, n FROM f_top ` +
      `UNION ALL SELECT ${COVERED}, NULL, count(*) FROM f_m WHERE EXISTS (SELECT 1 FROM ${c} WHERE c."${values.key}" = f_m.k AND ${rows} AND c."${values.id}" IN (SELECT id FROM f_top)) ` +
      `UNION ALL SELECT ${VALUED}, NULL, count(*) FROM f_m WHERE EXISTS (SELECT 1 FROM ${c} WHERE c."${values.key}" = f_m.k AND ${rows}) ` +
      `UNION ALL SELECT ${TOTAL}, NULL, count(*) FROM f_m`
    );
  });
}
function facetFromRows(dimension: string, rows: unknown[][]): Facet {
  const values: FacetValue[] = [];
  const totals: Record<number, number> = {};
  for (const [kind, value, count] of rows) {
    if (Number(kind) === TOP) values.push({ value: String(value), count: Number(count) });
    else totals[Number(kind)] = Number(count);
  }
  values.sort(byCount);
  const total = totals[TOTAL] ?? 0;
  const covered = totals[COVERED] ?? values.reduce((s, v) => s + v.count, 0);
  const valued = totals[VALUED] ?? total - (totals[MISSING] ?? 0);
  return { dimension, values, otherCount: valued - covered, missingCount: total - valued };
}

/** A facet of every record, read from the snapshot's summary (src/db/facet-sql.ts). */
async function summaryFacet(
  sql: SqlReader,
  table: FacetTable,
  dimension: string,
  size: number,
): Promise<Facet> {
  const rows = await sql.all(
    `SELECT f."position", f."value", f."count", f."covered" FROM ${sql.table(FACET_SUMMARY_TABLE)} f WHERE f."dimension" = $1 AND f."position" <= $2 ORDER BY f."position"`,
    [`${table}.${dimension}`, size],
  );
  if (!rows.length || Number(rows[0][0]) !== 0)
    throw new Error(`the snapshot's facet summary has no row 0 of ${table}.${dimension}`);
  const [, , missing, valued] = rows[0].map(Number);
  const top = rows.slice(1);
  const covered = top.length ? Number(top[top.length - 1][3]) : 0;
  return {
    dimension,
    values: top.map((r) => ({ value: String(r[1]), count: Number(r[2]) })),
    otherCount: valued - covered,
    missingCount: missing,
  };
}
