import type { MetaStore } from "./change-feed.ts";

/**
 * What the meta database keeps of past loads besides the change feed (docs/decisions.md,
 * "History"): each published load's unfiltered facet counts (`facet_trend`, copied from its
 * snapshot's facet_summary when it is published, pruned with its change events), and the reads of
 * them (one Domain's events are read by src/db/change-feed.ts, as every event is). Statements are
 * the same on both databases (`?` markers, `{meta}.` before each table: SnapshotStore.metaQuery),
 * but for the two the stores run in their publish transaction.
 */

type Dialect = MetaStore["kind"];

const TREND_COLUMNS = `"dimension", "version", "position", "published_at", "value", "count", "covered"`;

/**
 * Copies a snapshot's facet_summary (`source`, qualified) into the trends, for the load of
 * version (1st parameter) published at (2nd, unix ms). `meta`: the meta tables' prefix.
 */
export function keepTrendStatement(source: string, meta: string, dialect: Dialect): string {
  const [v, at] = dialect === "postgresql" ? ["$1::integer", "$2::bigint"] : ["?", "?"];
  return `INSERT INTO ${meta}facet_trend (${TREND_COLUMNS}) SELECT s."dimension", ${v}, s."position", ${at}, s."value", s."count", s."covered" FROM ${source} s`;
}

/** Drops the trends of loads older than the feed keeps (1st parameter: the oldest version kept). */
export function pruneTrendsStatement(meta: string, dialect: Dialect): string {
  return `DELETE FROM ${meta}facet_trend WHERE "version" < ${dialect === "postgresql" ? "$1" : "?"}`;
}

/** Which loads a trend covers: those up to `served`, within the bounds given (versions included). */
export interface TrendRange {
  served: number;
  sinceVersion?: number;
  untilVersion?: number;
  /** Published at or after. */
  sinceMs?: number;
  /** Published before. */
  untilMs?: number;
}

/** A load of a trend: its version, when it was published, and the records it held. */
export interface TrendLoadRow {
  version: number;
  publishedAt: Date;
  total: number;
}

function rangeTerms(range: TrendRange): { sql: string; params: unknown[] } {
  const terms = [`"version" <= ?`];
  const params: unknown[] = [range.served];
  if (range.sinceVersion !== undefined) {
    terms.push(`"version" >= ?`);
    params.push(range.sinceVersion);
  }
  if (range.untilVersion !== undefined) {
    terms.push(`"version" <= ?`);
    params.push(range.untilVersion);
  }
  if (range.sinceMs !== undefined) {
    terms.push(`"published_at" >= ?`);
    params.push(range.sinceMs);
  }
  if (range.untilMs !== undefined) {
    terms.push(`"published_at" < ?`);
    params.push(range.untilMs);
  }
  return { sql: terms.join(" AND "), params };
}

/**
 * The loads that kept `dimension`'s counts within `range`, oldest first: read from their rows of
 * position 0 (value null), by the index on (dimension, value, version).
 */
export async function trendLoads(
  meta: MetaStore,
  dimension: string,
  range: TrendRange,
): Promise<TrendLoadRow[]> {
  const { sql, params } = rangeTerms(range);
  const rows = await meta.metaQuery(
    `SELECT "version", "published_at", "count" + "covered" AS total FROM {meta}.facet_trend WHERE "dimension" = ? AND "value" IS NULL AND "position" = 0 AND ${sql} ORDER BY "version"`,
    [dimension, ...params],
  );
  return rows.map((r) => ({
    version: Number(r.version),
    publishedAt: new Date(Number(r.published_at)),
    total: Number(r.total),
  }));
}

/** The top `top` values of `dimension` in the load of `version`, in facet order. */
export async function topValues(
  meta: MetaStore,
  dimension: string,
  version: number,
  top: number,
): Promise<string[]> {
  const rows = await meta.metaQuery(
    `SELECT "value" FROM {meta}.facet_trend WHERE "dimension" = ? AND "version" = ? AND "position" BETWEEN 1 AND ? ORDER BY "position"`,
    [dimension, version, top],
  );
  return rows.map((r) => r.value as string);
}

/** The counts of `values` of `dimension` in each load of `range` that has them: version → value → n. */
export async function valueCounts(
  meta: MetaStore,
  dimension: string,
  values: readonly string[],
  range: TrendRange,
): Promise<Map<number, Map<string, number>>> {
  const out = new Map<number, Map<string, number>>();
  if (!values.length) return out;
  const { sql, params } = rangeTerms(range);
  const rows = await meta.metaQuery(
    `SELECT "version", "value", "count" FROM {meta}.facet_trend WHERE "dimension" = ? AND "value" IN (${values.map(() => "?").join(", ")}) AND "position" > 0 AND ${sql}`,
    [dimension, ...values, ...params],
  );
  for (const r of rows) {
    const version = Number(r.version);
    let counts = out.get(version);
    if (!counts) {
      counts = new Map();
      out.set(version, counts);
    }
    counts.set(r.value as string, Number(r.count));
  }
  return out;
}
