import type { Bitmap } from "../db/count-index.ts";
import { FACET_COLUMNS_TABLE } from "../db/facet-sql.ts";
import { type NumberColumn, valueAt } from "../db/number-column.ts";
import { TABLES } from "../db/tables.ts";
import { whereKey } from "../db/where-bitmap.ts";
import { statementKey, statementOver } from "../db/where-sql.ts";
import { InputError } from "../errors.ts";
import { cached } from "./facet-cache.ts";
import { run, sourceOf } from "./facet-counts.ts";
import {
  DEFAULT_BUCKETS,
  FACETS,
  type Histogram,
  type HistogramRequest,
  MAX_BUCKETS,
  type RecordSet,
} from "./facets.ts";

/**
 * Histograms of a list (src/query/facets.ts says what they are): bounds given or chosen, and the
 * records counted into them from the count index's (or the App index's) values of the field over
 * the records a filter matches, else by one statement, from where a facet would read (sourceOf).
 */

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
  scope: RecordSet,
  field: string,
  request: HistogramRequest,
): Promise<Histogram> {
  const { sql } = scope;
  const spec = FACETS[scope.table].histograms[field];
  if (!spec) throw new Error(`unknown histogram field ${scope.table}.${field}`);
  const given = givenBounds(request);
  const scale = given ? "given" : (request.scale ?? spec.scale);
  const n = request.buckets ?? DEFAULT_BUCKETS;
  const values = await scope.numbers(spec.column);
  if (values) {
    const key = `${scope.table}-histogram|${field}|${scale}|${n}|${JSON.stringify(given)}|${whereKey(scope.where)}`;
    return cached(sql, key, given?.length ?? n, async () => {
      const found = await scope.indexed();
      if (!found) throw new Error(`the snapshot's ${scope.table} index vanished`);
      return indexHistogram(values, found.bitmap, field, scale, given, n);
    });
  }
  const column = (TABLES[scope.table].columns as string[])[TABLES[scope.table].fields.indexOf(spec.column)];
  // PostgreSQL compares bigint bounds with a 32-bit column only once the column is widened.
  const value = sql.kind === "postgresql" ? `r."${column}"::bigint` : `r."${column}"`;
  // Every histogram field is a narrow facet column: a large set is scanned there.
  const source = await sourceOf(scope);
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
