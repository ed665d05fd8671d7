import type { Bitmap } from "../db/count-index.ts";
import { APP_FACET_VALUES, DOMAIN_FACET_VALUES, type FacetTable, type FacetValues } from "../db/facet-sql.ts";
import type { NumberColumn } from "../db/number-column.ts";
import type { SqlReader } from "../db/reader.ts";
import { InputError } from "../errors.ts";
import { APP_LIST_FILTERS, APP_RANGE_FILTERS } from "./app-filter.ts";
import { DOMAIN_LIST_FILTERS, DOMAIN_RANGE_FILTERS } from "./domain-filter.ts";
import type { RangeSpec } from "./filter.ts";
import type { KeyValue, SortKey, Where } from "./keyset.ts";

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
 *
 * This file holds what a facet and a histogram are: the dimensions and fields of each table, their
 * limits and the shapes of their answers. They are counted by src/query/facet-counts.ts (from the
 * count index's bitmaps: src/query/index-facet.ts) and src/query/histograms.ts.
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

/**
 * What a list's totalCount, facets, histograms and pages count over: the records of one snapshot
 * reader that one `where` matches (its filter and search, keys resolved), as a set of Domains
 * (src/query/domain-set.ts) or of Apps (src/query/app-set.ts). Each set alone knows whether its
 * table's index answers for it or SQL does: no reader of a set asks.
 */
export interface RecordSet {
  readonly table: FacetTable;
  readonly sql: SqlReader;
  readonly where: Where;
  /** Whether its members are read from an index (else every count of it is a statement). */
  hasIndex(): Promise<boolean>;
  /** Its members over the index; null when the reader has none. */
  indexed(): Promise<IndexedMembers | null>;
  /** The values of a number field by member of the index; null without an index (or that field in it). */
  numbers(field: string): Promise<NumberColumn | null>;
  count(): Promise<number>;
  /** The keys of a page in the order of `keys` after `after`, from the index; null: read it by SQL. */
  pageKeys(
    keys: readonly SortKey[],
    after: readonly KeyValue[] | null,
    take: number,
  ): Promise<number[] | null>;
}

/** A set's members as a bitmap over its table's index, and their facets. */
export interface IndexedMembers {
  readonly bitmap: Bitmap;
  facet(dimension: string, size: number): Facet;
}

/** Checks `size` (1 to MAX_FACET_SIZE). */
export function facetSize(size: number | null | undefined): number {
  if (size == null) return DEFAULT_FACET_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_FACET_SIZE)
    throw new InputError("size", `must be an integer from 1 to ${MAX_FACET_SIZE}; got ${size}`);
  return size;
}
/** Facet values in their order: the largest count first, then by value. */
export const byCount = (a: FacetValue, b: FacetValue) =>
  b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
/** Every dimension and histogram field of `table`, for error messages and the documents. */
export const facetNames = (table: FacetTable) => ({
  dimensions: Object.keys(FACETS[table].dimensions),
  histograms: Object.keys(FACETS[table].histograms),
});
