import { coerceInputValue, type GraphQLInputObjectType } from "graphql";
import type { Bitmap, CountIndex } from "../db/count-index.ts";
import type { SegmentRow } from "../db/segments.ts";
import type { DomainFilter } from "./domain-filter.ts";
import { DOMAIN_DIMENSIONS, MAX_FACET_SIZE, snakeName } from "./facets.ts";
import { indexFacet, indexFacetCut } from "./index-facet.ts";

/**
 * A saved segment's filter as List Domains' arguments (coerced by the schema's DomainFilter, which
 * src/schema/index.ts hands here once built), its members in a snapshot, and their spread over
 * the dimensions it names.
 */

/** A segment's filter and search, coerced as List Domains' arguments are. */
export interface SegmentArgs {
  filter?: DomainFilter | null;
  search?: string | null;
}

let filterType: GraphQLInputObjectType | null = null;

/** The schema's DomainFilter, which kept filters are coerced by (called by src/schema/index.ts). */
export function useSegmentFilterType(type: GraphQLInputObjectType): void {
  filterType = type;
}

/** The schema's DomainFilter: kept filters are read (segmentArgsOf) and written (asWritten) by it. */
export function domainFilterType(): GraphQLInputObjectType {
  if (!filterType) throw new Error("a filter is read before the schema was built");
  return filterType;
}

/**
 * A kept filter (as a client wrote it) coerced as List Domains' `filter` argument is, by the schema's
 * DomainFilter (`filterType`: domainFilterType() on a request's path, src/schema/index.ts's at a load).
 */
export function segmentArgsOf(
  row: Pick<SegmentRow, "filter" | "search">,
  filterType: GraphQLInputObjectType,
): SegmentArgs {
  return {
    filter: row.filter ? (coerceInputValue(row.filter, filterType) as DomainFilter) : null,
    search: row.search,
  };
}

/**
 * The dimensions a segment's spread is counted over unless it names its own (names of
 * DOMAIN_DIMENSIONS, the facets' catalogue): those every segment was counted over before a segment
 * could name them, so a segment saved then counts as it did.
 */
export const DEFAULT_SPREAD: readonly string[] = ["platform", "plan", "countryCode"];

/** Limits of a segment's spread. */
export const SPREAD_LIMITS = {
  /** Dimensions a segment names. */
  dimensions: 8,
  /** Values kept of a dimension at a load: its commonest among the members, as a facet lists them. */
  values: MAX_FACET_SIZE,
} as const;

/**
 * Why `dimensions` (known ones: GraphQL's enum and REST's readDimensions refuse any other) cannot
 * be a segment's spread (without the argument's name), or null: none, too many, or one named
 * twice. `shown` writes a dimension as the request named it (REST: cc).
 */
export function spreadProblem(
  dimensions: readonly string[],
  shown: (dimension: string) => string = (d) => d,
): string | null {
  if (!dimensions.length)
    return `names no dimension; leave it out for the default (${DEFAULT_SPREAD.map(shown).join(", ")})`;
  if (dimensions.length > SPREAD_LIMITS.dimensions)
    return `takes at most ${SPREAD_LIMITS.dimensions} dimensions; got ${dimensions.length}`;
  const twice = dimensions.find((d, i) => dimensions.indexOf(d) !== i);
  if (twice !== undefined) return `names ${shown(twice)} twice`;
  return null;
}

/**
 * A segment's spread at a load: by dimension (its GraphQL name in snake case: country_code,
 * technologies), the members having each of its commonest values (at most SPREAD_LIMITS.values);
 * and, per dimension whose values were cut, the members having a value but none of those listed.
 */
export interface Spread {
  counts: Record<string, Record<string, number>>;
  other: Record<string, number>;
}

/**
 * The spread of a segment (`ords`, ordinals of `index`) over `dimensions`: each a facet of the
 * segment from the count index (indexFacet, as GET /domain/facets with facet_size=100 answers it
 * on that snapshot). A dimension the index lacks is left out, not made up.
 */
export function spreadOf(
  index: CountIndex,
  ords: Bitmap,
  dimensions: readonly string[],
  size: number = SPREAD_LIMITS.values,
): Spread {
  const counts: Spread["counts"] = {};
  const other: Spread["other"] = {};
  for (const dimension of dimensions) {
    const values = DOMAIN_DIMENSIONS[dimension as keyof typeof DOMAIN_DIMENSIONS]?.values;
    const held =
      values &&
      (values.kind === "column" ? index.text.has(values.narrow ?? "") : index.children.has(dimension));
    if (!held) continue;
    const facet = indexFacet(index, ords, dimension, size);
    const key = snakeName(dimension);
    counts[key] = Object.fromEntries(facet.values.map((v) => [v.value, v.count]));
    // Every dimension cut to the top is in `other`, its count 0 included (a Domain may hold listed
    // and unlisted technologies at once).
    if (indexFacetCut(index, ords, dimension, facet, size)) other[key] = facet.otherCount;
  }
  return { counts, other };
}
