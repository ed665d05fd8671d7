import { LRUCache } from "lru-cache";
import {
  APP_FACET_VALUES,
  byValue,
  DOMAIN_FACET_VALUES,
  FACET_SUMMARY_TABLE,
  type FacetTable,
  type FacetValues,
} from "../db/facet-sql.ts";
import { perReader, type SqlReader } from "../db/reader.ts";
import { TABLES } from "../db/tables.ts";
import { statementOver } from "../db/where-sql.ts";
import { InputError } from "../errors.ts";
import { APP_LIST_FILTERS, APP_RANGE_FILTERS } from "./app-filter.ts";
import { DOMAIN_LIST_FILTERS, DOMAIN_RANGE_FILTERS } from "./domain-filter.ts";
import type { RangeSpec } from "./filter.ts";
import type { Where } from "./keyset.ts";

/**
 * Facets and histograms of a list: how the records matching a list's own filter and search are
 * spread over the values of a dimension (country, platform, installed App…), and over the ranges
 * of a number (estimated sales, rank…). Exact counts, as the database counts them, of the very
 * `where` the list's page and totalCount read (src/db/where-sql.ts), so they never disagree.
 *
 * - A facet counts distinct records: a Domain with three categories counts once in each, and
 *   never twice in one bucket; otherCount is the records having a value but none of the top
 *   ones, missingCount those without any value.
 * - Every dimension is a filter of the list, by the same name (GraphQL) and option (REST): a value
 *   of a facet is a value that filter takes, so a facet is a menu of the next filter. The one
 *   exception is an App's pricing, which has no filter.
 * - A snapshot never changes, so what is counted once is kept: the unfiltered counts are counted
 *   when the snapshot is loaded and kept in it (src/db/facet-sql.ts); a filtered count is kept in
 *   a cache of the snapshot's reader, by its statement, so it goes with the snapshot.
 */

export interface FacetDimension {
  /** The REST option of `facets=` (the list filter's option without `f:`). */
  option: string;
  description: string;
  values: FacetValues;
}

export interface HistogramField {
  option: string;
  description: string;
  column: string;
  /** How bounds are chosen by default: logarithmic for money and counts, linear for ranks. */
  scale: "log" | "linear";
}

const optionOfFilter = (legacy: string) => legacy.replace(/^f:/, "");

function dimensionsOf<K extends string>(
  values: Record<K, FacetValues>,
  filters: Record<string, { legacy: string; description: string }>,
  own: Partial<Record<K, { legacy: string; description: string }>> = {},
): Record<K, FacetDimension> {
  return Object.fromEntries(
    (Object.entries(values) as [K, FacetValues][]).map(([name, v]) => {
      const named = own[name] ?? filters[name];
      if (!named) throw new Error(`facet dimension ${name}: no filter of that name and no option of its own`);
      return [name, { option: optionOfFilter(named.legacy), description: named.description, values: v }];
    }),
  ) as Record<K, FacetDimension>;
}

export const DOMAIN_DIMENSIONS = dimensionsOf(DOMAIN_FACET_VALUES, DOMAIN_LIST_FILTERS);
export const APP_DIMENSIONS = dimensionsOf(APP_FACET_VALUES, APP_LIST_FILTERS, {
  pricing: {
    legacy: "pricing",
    description: "Pricing: free (a plan costs nothing), paid (a plan costs something), trial (a free trial)",
  },
});

const histogram = (spec: RangeSpec, scale: HistogramField["scale"]): HistogramField => ({
  option: optionOfFilter(spec.legacy),
  description: spec.description,
  column: spec.column,
  scale,
});

export const DOMAIN_HISTOGRAMS = {
  estimatedSales: histogram(DOMAIN_RANGE_FILTERS.estimatedSales, "log"),
  estimatedVisits: histogram(DOMAIN_RANGE_FILTERS.estimatedVisits, "log"),
  rank: histogram(DOMAIN_RANGE_FILTERS.rank, "linear"),
  productCount: histogram(DOMAIN_RANGE_FILTERS.productCount, "log"),
  employeeCount: histogram(DOMAIN_RANGE_FILTERS.employeeCount, "log"),
  monthlyAppSpend: histogram(DOMAIN_RANGE_FILTERS.monthlyAppSpend, "log"),
  avgPrice: histogram(DOMAIN_RANGE_FILTERS.avgPrice, "log"),
} satisfies Record<string, HistogramField>;

export const APP_HISTOGRAMS = {
  installs: histogram(APP_RANGE_FILTERS.installs, "log"),
  reviewCount: histogram(APP_RANGE_FILTERS.reviewCount, "log"),
} satisfies Record<string, HistogramField>;

export const FACETS: Record<
  FacetTable,
  { dimensions: Record<string, FacetDimension>; histograms: Record<string, HistogramField> }
> = {
  domain: { dimensions: DOMAIN_DIMENSIONS, histograms: DOMAIN_HISTOGRAMS },
  app: { dimensions: APP_DIMENSIONS, histograms: APP_HISTOGRAMS },
};

export const DEFAULT_FACET_SIZE = 10;
export const MAX_FACET_SIZE = 100;
export const MAX_DIMENSIONS = 20;
export const DEFAULT_BUCKETS = 10;
export const MAX_BUCKETS = 50;

export interface FacetValue {
  value: string;
  count: number;
}

export interface Facet {
  /** The dimension's name (its filter's GraphQL name). */
  dimension: string;
  values: FacetValue[];
  otherCount: number;
  missingCount: number;
}

export interface HistogramBucket {
  /** Inclusive. */
  from: number;
  /** Exclusive. */
  to: number;
  count: number;
}

export interface Histogram {
  field: string;
  scale: "log" | "linear" | "given";
  buckets: HistogramBucket[];
  /** Records without a value. */
  missingCount: number;
  /** Records with a value outside the bounds given (never with chosen bounds, which cover every value). */
  outsideCount: number;
}

export interface HistogramRequest {
  buckets?: number | null;
  bounds?: readonly number[] | null;
  scale?: "log" | "linear" | null;
}

/** What a list counts over: its table and the `where` of its filter and search (keys resolved). */
export interface FacetScope {
  table: FacetTable;
  where: Where;
}

/** Checks `size` (1 to MAX_FACET_SIZE); `argument` names it in the error. */
export function facetSize(size: number | null | undefined, argument = "size"): number {
  if (size == null) return DEFAULT_FACET_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_FACET_SIZE)
    throw new InputError(argument, `must be an integer from 1 to ${MAX_FACET_SIZE}; got ${size}`);
  return size;
}

/** The facets of `dimensions` (names of FACETS[table].dimensions, each once), top `size` values each. */
export async function facetsOf(
  sql: SqlReader,
  scope: FacetScope,
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
  return Promise.all(dimensions.map((d) => facetOf(sql, scope, d, size)));
}

function facetOf(sql: SqlReader, scope: FacetScope, dimension: string, size: number): Promise<Facet> {
  const values = FACETS[scope.table].dimensions[dimension].values;
  const unfiltered = Object.keys(scope.where).length === 0;
  if (unfiltered)
    return cached(sql, `summary|${scope.table}.${dimension}|${size}`, size, async () =>
      (await hasSummary(sql))
        ? summaryFacet(sql, scope.table, dimension, size)
        : countedFacet(sql, scope, dimension, values, size),
    );
  const statement = facetStatement(sql, scope, values, size);
  return cached(sql, `${statement.text}|${JSON.stringify(statement.params)}`, size, () =>
    run(sql, statement).then((rows) => facetFromRows(dimension, rows)),
  );
}

/** Facet rows: (kind, value, count); kinds as below. */
const TOP = 0;
const COVERED = 1;
const VALUED = 2;
const TOTAL = 3;
const MISSING = 4;

async function run(sql: SqlReader, s: { text: string; params: unknown[] }): Promise<unknown[][]> {
  return sql.all(s.text, s.params, { planEach: true });
}

/**
 * The one statement of a facet of a filtered list. A one-value dimension groups the matching rows
 * by the value; a child table's joins its (record, value) pairs to the matching keys, made
 * distinct, so that each record counts once per value, and counts the records having any of the
 * top values once.
 */
function facetStatement(sql: SqlReader, scope: FacetScope, values: FacetValues, size: number) {
  const from = `${sql.table(TABLES[scope.table].name)} r`;
  return statementOver(sql, scope.table, scope.where, (cond, bind) => {
    if (values.kind === "column") {
      const e = values.expr(sql.kind);
      return (
        `WITH f_g AS MATERIALIZED (SELECT ${e} AS v, count(*) AS n FROM ${from} WHERE ${cond} GROUP BY ${e}) ` +
        `SELECT ${TOP}, f_top.v, f_top.n FROM (SELECT v, n FROM f_g WHERE v IS NOT NULL ORDER BY n DESC, ${byValue(sql.kind, "v")} LIMIT ${bind(size)}) f_top ` +
        `UNION ALL SELECT ${MISSING}, NULL, coalesce(sum(n), 0) FROM f_g WHERE v IS NULL ` +
        `UNION ALL SELECT ${TOTAL}, NULL, coalesce(sum(n), 0) FROM f_g`
      );
    }
    return (
      `WITH f_m AS MATERIALIZED (SELECT r."pk" AS k FROM ${from} WHERE ${cond}), ` +
      `f_p AS MATERIALIZED (SELECT DISTINCT x.k, x.v FROM (${values.pairs(sql.kind, (n) => sql.table(n))}) x JOIN f_m ON f_m.k = x.k WHERE x.v <> ''), ` +
      `f_top AS MATERIALIZED (SELECT v, count(*) AS n FROM f_p GROUP BY v ORDER BY n DESC, ${byValue(sql.kind, "v")} LIMIT ${bind(size)}) ` +
      `SELECT ${TOP}, v, n FROM f_top ` +
      `UNION ALL SELECT ${COVERED}, NULL, count(DISTINCT k) FROM f_p WHERE v IN (SELECT v FROM f_top) ` +
      `UNION ALL SELECT ${VALUED}, NULL, count(DISTINCT k) FROM f_p ` +
      `UNION ALL SELECT ${TOTAL}, NULL, count(*) FROM f_m`
    );
  });
}

const byCount = (a: FacetValue, b: FacetValue) =>
  b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

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

/** A facet of every record, counted by the statement a filtered one uses (a snapshot without a summary). */
async function countedFacet(
  sql: SqlReader,
  scope: FacetScope,
  dimension: string,
  values: FacetValues,
  size: number,
): Promise<Facet> {
  return facetFromRows(dimension, await run(sql, facetStatement(sql, scope, values, size)));
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

/** Whether the snapshot keeps a facet summary (one loaded before facets existed does not). */
const summaries = perReader<"summary", Promise<boolean>>((sql) => {
  const answer = (
    sql.kind === "postgresql"
      ? sql.all("SELECT to_regclass($1) IS NOT NULL", [sql.table(FACET_SUMMARY_TABLE)])
      : sql.all("SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = $1", [
          FACET_SUMMARY_TABLE,
        ])
  ).then((rows) => Boolean(rows[0]?.[0]));
  return answer;
});
const hasSummary = (sql: SqlReader) => summaries(sql, "summary");

// ---------------------------------------------------------------------- histograms

/** Checks a histogram request against `field` and returns the bounds given, or null to choose them. */
function givenBounds(request: HistogramRequest): number[] | null {
  const { bounds, buckets } = request;
  if (bounds == null) {
    if (buckets != null && (!Number.isInteger(buckets) || buckets < 1 || buckets > MAX_BUCKETS))
      throw new InputError("buckets", `must be an integer from 1 to ${MAX_BUCKETS}; got ${buckets}`);
    return null;
  }
  if (buckets != null) throw new InputError("bounds", "cannot be given with buckets: bounds say how many");
  if (bounds.length < 2 || bounds.length > MAX_BUCKETS + 1)
    throw new InputError("bounds", `must list 2 to ${MAX_BUCKETS + 1} bounds; got ${bounds.length}`);
  bounds.forEach((b, i) => {
    if (!Number.isSafeInteger(b))
      throw new InputError("bounds", `must be whole numbers (the field's values are); got ${b}`);
    if (i > 0 && b <= bounds[i - 1])
      throw new InputError("bounds", `must increase strictly; ${b} follows ${bounds[i - 1]}`);
  });
  return [...bounds];
}

/** Two significant digits, at least 1: 1234 → 1200, 87 → 87, 0.4 → 1. */
function nice(x: number): number {
  if (x < 10) return Math.max(1, Math.round(x));
  const unit = 10 ** (Math.floor(Math.log10(x)) - 1);
  return Math.round(x / unit) * unit;
}

/**
 * Bounds covering every value from `min` to `max` (integers) in about `n` buckets: equal widths
 * (linear), or equal ratios (log) rounded to two significant digits, with a first bucket from
 * `min` to 1 when values below 1 exist. Fewer buckets when the range has fewer distinct steps.
 */
export function chooseBounds(min: number, max: number, n: number, scale: "log" | "linear"): number[] {
  const top = max + 1;
  if (min >= max) return [min, top];
  const edges: number[] = [min];
  if (scale === "linear") {
    const width = Math.max(1, Math.ceil((top - min) / n));
    for (let e = min + width; e < top; e += width) edges.push(e);
  } else {
    const lo = Math.max(min, 1);
    const steps = min < 1 ? Math.max(1, n - 1) : n;
    if (min < 1) edges.push(1);
    const ratio = top / lo;
    for (let i = 1; i < steps; i++) {
      const e = nice(lo * ratio ** (i / steps));
      if (e > edges[edges.length - 1] && e < top) edges.push(e);
    }
  }
  if (top > edges[edges.length - 1]) edges.push(top);
  return edges;
}

/** The histogram of `field` (a name of FACETS[table].histograms) over the list's records. */
export async function histogramOf(
  sql: SqlReader,
  scope: FacetScope,
  field: string,
  request: HistogramRequest,
): Promise<Histogram> {
  const spec = FACETS[scope.table].histograms[field];
  if (!spec) throw new Error(`unknown histogram field ${scope.table}.${field}`);
  const given = givenBounds(request);
  const scale = given ? "given" : (request.scale ?? spec.scale);
  const n = request.buckets ?? DEFAULT_BUCKETS;
  const column = (TABLES[scope.table].columns as string[])[TABLES[scope.table].fields.indexOf(spec.column)];
  // PostgreSQL compares bigint bounds with a 32-bit column only once the column is widened.
  const value = sql.kind === "postgresql" ? `r."${column}"::bigint` : `r."${column}"`;
  const from = `${sql.table(TABLES[scope.table].name)} r`;
  let bounds = given;
  if (!bounds) {
    const range = statementOver(
      sql,
      scope.table,
      scope.where,
      (cond) => `SELECT min(${value}), max(${value}) FROM ${from} WHERE ${cond}`,
    );
    const [[min, max]] = await cached(sql, `${range.text}|${JSON.stringify(range.params)}`, 0, () =>
      run(sql, range),
    );
    bounds = min == null ? [] : chooseBounds(Number(min), Number(max), n, scale as "log" | "linear");
  }
  const edges = bounds;
  const counting = statementOver(sql, scope.table, scope.where, (cond, bind) => {
    const cases = edges.map((e, i) => `WHEN ${value} < ${bind(e)} THEN ${i - 1}`).join(" ");
    return `SELECT b, count(*) FROM (SELECT CASE WHEN ${value} IS NULL THEN -2 ${cases} ELSE ${edges.length - 1} END AS b FROM ${from} WHERE ${cond}) x GROUP BY b`;
  });
  const rows = await cached(sql, `${counting.text}|${JSON.stringify(counting.params)}`, edges.length, () =>
    run(sql, counting),
  );
  const counts = new Map(rows.map((r) => [Number(r[0]), Number(r[1])]));
  const buckets = edges
    .slice(0, -1)
    .map((from_, i) => ({ from: from_, to: edges[i + 1], count: counts.get(i) ?? 0 }));
  const outside = (counts.get(-1) ?? 0) + (edges.length ? (counts.get(edges.length - 1) ?? 0) : 0);
  return { field, scale, buckets, missingCount: counts.get(-2) ?? 0, outsideCount: outside };
}

// ---------------------------------------------------------------------- the cache

/**
 * Counts kept per snapshot reader (a new snapshot has a new reader, so nothing counted over an
 * older one is ever served for it), bounded by memory: entries are a few hundred bytes and their
 * statement's text. A count that failed is asked again.
 */
const CACHE_BYTES = 32 * 1024 * 1024;
const caches = perReader<"facets", LRUCache<string, Promise<never>>>(
  () => new LRUCache<string, Promise<never>>({ maxSize: CACHE_BYTES }),
);

function cached<T>(sql: SqlReader, key: string, items: number, compute: () => Promise<T>): Promise<T> {
  const cache = caches(sql, "facets") as unknown as LRUCache<string, Promise<T>>;
  let answer = cache.get(key);
  if (!answer) {
    answer = compute();
    cache.set(key, answer, { size: 2 * key.length + 200 + 100 * items });
    answer.catch(() => cache.delete(key));
  }
  return answer;
}

/** Every dimension and histogram field of `table`, for error messages and the documents. */
export const facetNames = (table: FacetTable) => ({
  dimensions: Object.keys(FACETS[table].dimensions),
  histograms: Object.keys(FACETS[table].histograms),
});
