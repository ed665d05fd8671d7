import { LRUCache } from "lru-cache";
import { appCountIndexOf, appIndexable, appValuesOf, appWhereBitmapOf } from "../db/app-count-index.ts";
import { type Bitmap, type CountIndex, countIndexOf, RoaringBitmap32 } from "../db/count-index.ts";
import {
  APP_FACET_VALUES,
  byValue,
  childValues,
  DOMAIN_FACET_VALUES,
  FACET_COLUMNS,
  FACET_COLUMNS_TABLE,
  FACET_SUMMARY_TABLE,
  type FacetTable,
  type FacetValues,
  labelled,
} from "../db/facet-sql.ts";
import { type NumberColumn, plainColumn, valueAt } from "../db/number-column.ts";
import { holdsTables, perReader, type SqlReader } from "../db/reader.ts";
import { TABLES } from "../db/tables.ts";
import { whereBitmapOf, whereKey } from "../db/where-bitmap.ts";
import { countWhere, RELATIONS, statementKey, statementOver } from "../db/where-sql.ts";
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

/**
 * A dimension's (or field's) name in snake case, as GraphQL's enum names it in capitals.
 * @example snakeName("administrativeAreaLevel1") // → "administrative_area_level_1"
 */
export const snakeName = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([a-zA-Z])([0-9])/g, "$1_$2")
    .toLowerCase();

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

/** Checks `size` (1 to MAX_FACET_SIZE). */
export function facetSize(size: number | null | undefined): number {
  if (size == null) return DEFAULT_FACET_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_FACET_SIZE)
    throw new InputError("size", `must be an integer from 1 to ${MAX_FACET_SIZE}; got ${size}`);
  return size;
}

/** The facets of `dimensions` (names of FACETS[table].dimensions, each once), top `size` values each, in their order. */
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

async function facetOf(sql: SqlReader, scope: FacetScope, dimension: string, size: number): Promise<Facet> {
  if (scope.table === "domain" && Object.keys(scope.where).length && (await countIndexOf(sql)))
    return cached(sql, `index|${dimension}|${size}|${whereKey(scope.where)}`, size, async () => {
      const found = await whereBitmapOf(sql, scope.where);
      if (!found) throw new Error("the snapshot's count index vanished");
      return indexFacet(found.index, found.bitmap, dimension, size);
    });
  const source = await sourceOf(sql, scope);
  if (source === "summary")
    return cached(sql, `summary|${scope.table}.${dimension}|${size}`, size, () =>
      summaryFacet(sql, scope.table, dimension, size),
    );
  if (scope.table === "app" && appIndexable(sql))
    return cached(sql, `app-index|${dimension}|${size}|${whereKey(scope.where)}`, size, async () => {
      const [index, matched] = await Promise.all([appCountIndexOf(sql), appWhereBitmapOf(sql, scope.where)]);
      const values = index.dimensions.get(dimension);
      if (!values) throw new Error(`the App count index has no dimension ${dimension}`);
      return bitmapFacet(values, values.kind, matched, dimension, size);
    });
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
 * - `rows`: the records' own rows (a snapshot loaded before facets existed, and Apps).
 */
type Source = "summary" | "scan" | "keys" | "rows";
const LARGE_SHARE = 0.05;

async function sourceOf(sql: SqlReader, scope: FacetScope): Promise<Source> {
  const kept = await keepsFacetTables(sql);
  if (!kept) return "rows";
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

async function run(sql: SqlReader, s: { text: string; params: unknown[] }): Promise<unknown[][]> {
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
  scope: FacetScope,
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

/**
 * A facet of a set from the count index (src/db/count-index.ts): each value's count is the
 * cardinality of its bitmap's intersection with the set. Values are tried largest first, and
 * once a value holds fewer Domains in all than the last of the top ones holds in the set, no
 * later one can enter the top: a facet of a few Domains over 20,000 Apps asks only what it must.
 */
export function indexFacet(index: CountIndex, matched: Bitmap, dimension: string, size: number): Facet {
  const values = FACETS.domain.dimensions[dimension].values;
  const source =
    values.kind === "column" ? index.text.get(values.narrow ?? "") : index.children.get(dimension);
  if (!source) throw new Error(`the count index has no dimension ${dimension}`);
  return bitmapFacet(source, values.kind, matched, dimension, size);
}

/**
 * Whether the matched Domains hold a value of `dimension` that `facet` (indexFacet's, of `size`)
 * does not list: its values were cut to the top. A Domain has one value of a column, so a cut one
 * has others (otherCount); of a child dimension (technologies, Apps) it may have several, and a
 * cut can leave none without a listed value: then only the values past the top say so.
 */
export function indexFacetCut(
  index: CountIndex,
  matched: Bitmap,
  dimension: string,
  facet: Facet,
  size: number,
): boolean {
  if (facet.otherCount > 0) return true;
  if (facet.values.length < size) return false;
  const values = FACETS.domain.dimensions[dimension].values;
  if (values.kind === "column") return false;
  const source = index.children.get(dimension);
  if (!source) throw new Error(`the count index has no dimension ${dimension}`);
  const names = source.labels ? source.labels : source.keys;
  const blank = source.labels ? -1 : (source.byKey.get("") ?? -1);
  const listed = new Set(facet.values.map((v) => v.value));
  return source.order.some(
    (i) => i !== blank && !listed.has(names[i]) && matched.intersects(source.bitmaps[i]),
  );
}

/** The values of a dimension as bitmaps of records (Domain ordinals, or App keys). */
interface ValueBitmaps {
  keys: string[];
  labels?: string[] | null;
  bitmaps: Bitmap[];
  order: number[];
  byKey: Map<string, number>;
}

/** A facet of `matched` over a dimension's value bitmaps (of the same records' numbering). */
function bitmapFacet(
  source: ValueBitmaps,
  kind: "column" | "child",
  matched: Bitmap,
  dimension: string,
  size: number,
): Facet {
  const names = source.labels ? source.labels : source.keys;
  // A blank text is no value (as nullif(…, '') and childValues count), unless a label names it.
  const blank = source.labels ? -1 : (source.byKey.get("") ?? -1);
  const top: (FacetValue & { i: number })[] = [];
  for (const i of source.order) {
    if (i === blank) continue;
    const all = source.bitmaps[i].size;
    if (top.length === size && all < top[size - 1].count) break;
    const count = matched.andCardinality(source.bitmaps[i]);
    if (!count) continue;
    const entry = { value: names[i], count, i };
    if (top.length === size && byCount(entry, top[size - 1]) >= 0) continue;
    let at = top.length;
    while (at > 0 && byCount(entry, top[at - 1]) < 0) at--;
    top.splice(at, 0, entry);
    if (top.length > size) top.pop();
  }
  const total = matched.size;
  const valued = matched.andCardinality(valuedOf(source, blank));
  const covered =
    kind === "column"
      ? top.reduce((s, v) => s + v.count, 0)
      : matched.andCardinality(RoaringBitmap32.orMany(top.map((v) => source.bitmaps[v.i])));
  return {
    dimension,
    values: top.map(({ value, count }) => ({ value, count })),
    otherCount: valued - covered,
    missingCount: total - valued,
  };
}

/** The Domains with any value of a dimension of the index (computed once). */
const valuedBitmaps = new WeakMap<object, Bitmap>();
function valuedOf(source: { bitmaps: Bitmap[] }, blank: number): Bitmap {
  let valued = valuedBitmaps.get(source);
  if (!valued) {
    valued = RoaringBitmap32.orMany(source.bitmaps.filter((_b, i) => i !== blank));
    valuedBitmaps.set(source, valued);
  }
  return valued;
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

/**
 * Whether the snapshot keeps the facet tables (src/db/facet-sql.ts; built together, after the
 * load): one loaded before facets existed does not, and is counted from its own rows.
 */
function keepsFacetTables(sql: SqlReader): Promise<boolean> {
  return holdsTables(sql, [FACET_SUMMARY_TABLE, FACET_COLUMNS_TABLE]);
}

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
  if (scope.table === "app" && appIndexable(sql)) {
    const key = `app-histogram|${field}|${scale}|${n}|${JSON.stringify(given)}|${whereKey(scope.where)}`;
    return cached(sql, key, given?.length ?? n, async () => {
      const [values, matched] = await Promise.all([
        appValuesOf(sql, spec.column),
        appWhereBitmapOf(sql, scope.where),
      ]);
      return indexHistogram(plainColumn(values), matched, field, scale, given, n);
    });
  }
  const index = scope.table === "domain" ? await countIndexOf(sql) : null;
  const values = index?.numbers.get(spec.column);
  if (values) {
    const key = `index-histogram|${field}|${scale}|${n}|${JSON.stringify(given)}|${whereKey(scope.where)}`;
    return cached(sql, key, given?.length ?? n, async () => {
      const found = await whereBitmapOf(sql, scope.where);
      if (!found) throw new Error("the snapshot's count index vanished");
      return indexHistogram(values, found.bitmap, field, scale, given, n);
    });
  }
  const column = (TABLES[scope.table].columns as string[])[TABLES[scope.table].fields.indexOf(spec.column)];
  // PostgreSQL compares bigint bounds with a 32-bit column only once the column is widened.
  const value = sql.kind === "postgresql" ? `r."${column}"::bigint` : `r."${column}"`;
  // Every histogram field is a narrow facet column: a large set is scanned there.
  const source = await sourceOf(sql, scope);
  const narrow = source === "scan" || (source === "summary" && scope.table === "domain");
  const from = `${sql.table(narrow ? FACET_COLUMNS_TABLE : TABLES[scope.table].name)} r`;
  let bounds = given;
  if (!bounds) {
    const range = statementOver(
      sql,
      scope.table,
      scope.where,
      (cond) => `SELECT min(${value}), max(${value}) FROM ${from} WHERE ${cond}`,
    );
    const [[min, max]] = await cached(sql, statementKey(range), 0, () => run(sql, range));
    bounds = min == null ? [] : chooseBounds(Number(min), Number(max), n, scale as "log" | "linear");
  }
  const edges = bounds;
  const counting = statementOver(sql, scope.table, scope.where, (cond, bind) => {
    const cases = edges.map((e, i) => `WHEN ${value} < ${bind(e)} THEN ${i - 1}`).join(" ");
    return `SELECT b, count(*) FROM (SELECT CASE WHEN ${value} IS NULL THEN -2 ${cases} ELSE ${edges.length - 1} END AS b FROM ${from} WHERE ${cond}) x GROUP BY b`;
  });
  const rows = await cached(sql, statementKey(counting), edges.length, () => run(sql, counting));
  const counts = new Map(rows.map((r) => [Number(r[0]), Number(r[1])]));
  const buckets = edges
    .slice(0, -1)
    .map((from_, i) => ({ from: from_, to: edges[i + 1], count: counts.get(i) ?? 0 }));
  const outside = (counts.get(-1) ?? 0) + (edges.length ? (counts.get(edges.length - 1) ?? 0) : 0);
  return { field, scale, buckets, missingCount: counts.get(-2) ?? 0, outsideCount: outside };
}

/**
 * A histogram of a set from the values of the field by record (the count index's, by Domain
 * ordinal, or the App index's, by key): one pass, or two to choose bounds.
 */
function indexHistogram(
  column: NumberColumn,
  matched: Bitmap,
  field: string,
  scale: Histogram["scale"],
  given: number[] | null,
  n: number,
): Histogram {
  const ords = matched.toUint32Array();
  let edges = given;
  if (!edges) {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < ords.length; i++) {
      const v = valueAt(column, ords[i]);
      if (v < min) min = v;
      if (v > max) max = v;
    }
    edges = min === Number.POSITIVE_INFINITY ? [] : chooseBounds(min, max, n, scale as "log" | "linear");
  }
  const counts = new Array<number>(Math.max(edges.length - 1, 0)).fill(0);
  let missing = 0;
  let outside = 0;
  const last = edges.length - 1;
  for (let i = 0; i < ords.length; i++) {
    const v = valueAt(column, ords[i]);
    if (Number.isNaN(v)) missing++;
    else if (last < 0 || v < edges[0] || v >= edges[last]) outside++;
    else {
      // The bucket of v: the last edge at or below it.
      let lo = 0;
      let hi = last;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (edges[mid] <= v) lo = mid;
        else hi = mid;
      }
      counts[lo]++;
    }
  }
  const bounds = edges;
  const buckets = counts.map((count, i) => ({ from: bounds[i], to: bounds[i + 1], count }));
  return { field, scale, buckets, missingCount: missing, outsideCount: outside };
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
