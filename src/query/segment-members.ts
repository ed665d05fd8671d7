import { coerceInputValue, type GraphQLInputObjectType } from "graphql";
import { LRUCache } from "lru-cache";
import { type Bitmap, type CountIndex, RoaringBitmap32 } from "../db/count-index.ts";
import { DomainKeys } from "../db/domain-keys.ts";
import { perReader } from "../db/per-reader.ts";
import type { SqlReader } from "../db/reader.ts";
import type { SegmentRow } from "../db/segments.ts";
import { whereBitmapOf, whereKey } from "../db/where-bitmap.ts";
import { statementOver } from "../db/where-sql.ts";
import type { DomainFilter } from "./domain-filter.ts";
import { DOMAIN_DIMENSIONS, MAX_FACET_SIZE, snakeName } from "./facets.ts";
import { indexFacet, indexFacetCut } from "./index-facet.ts";
import type { Where } from "./keyset.ts";

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

/** A segment's members as ordinals of its snapshot's count index. */
export interface IndexedMembers {
  index: CountIndex;
  ords: Bitmap;
}

/** The Domains `where` matches, from the snapshot's count index; null for a snapshot without one. */
export async function indexedMembersOf(sql: SqlReader, where: Where): Promise<IndexedMembers | null> {
  const found = await whereBitmapOf(sql, where);
  return found ? { index: found.index, ords: found.bitmap } : null;
}

/** Indexed members by key. */
export function pksOf({ index, ords }: IndexedMembers): Bitmap {
  const members = ords.toUint32Array();
  const pks = new Uint32Array(members.length);
  for (let i = 0; i < members.length; i++) pks[i] = index.ordToPk[members[i]];
  return new RoaringBitmap32(pks);
}

/**
 * The keys of the Domains `where` matches in the snapshot `sql` reads: from its count index (a
 * bitmap of ordinals, then their keys), and by SQL on a snapshot without one.
 */
export async function membersOf(sql: SqlReader, where: Where): Promise<Bitmap> {
  const found = await indexedMembersOf(sql, where);
  return found ? pksOf(found) : keysBySql(sql, where);
}

async function keysBySql(sql: SqlReader, where: Where): Promise<Bitmap> {
  const { text, params } = statementOver(
    sql,
    "domain",
    where,
    (cond) => `SELECT r."pk" FROM ${sql.table("domain")} r WHERE ${cond}`,
  );
  const rows = await sql.all(text, params);
  return new RoaringBitmap32(rows.map((r) => Number(r[0])));
}

/**
 * Sets of members by reader and `where`, kept while memory allows (each holds a bitmap: a few
 * hundred KB at most, as src/db/where-bitmap.ts reckons its segments).
 */
const kept = perReader<"members", LRUCache<string, Promise<DomainKeys>>>(
  () => new LRUCache({ maxSize: 64 * 1024 * 1024, sizeCalculation: () => 256 * 1024 }),
);

/**
 * The Domains `where` (a segment's filter, read now) matches in the snapshot `sql` reads, as a set
 * to stand in another `where` for their keys (`f:segment`): the count index's ordinals as they are
 * on a snapshot with one, SQL's keys without. Made once per reader and `where`, so that requests
 * naming the segment share one set and the caches keyed by their `where` (whereKey) find it by its
 * name. Kept by the `where` rather than by the segment's name and time: a filter naming a list is
 * another `where` once the list changes, though the segment itself did not.
 */
export function domainKeysOf(sql: SqlReader, where: Where): Promise<DomainKeys> {
  const cache = kept(sql, "members");
  const key = whereKey(where);
  let found = cache.get(key);
  if (!found) {
    found = indexedMembersOf(sql, where).then(async (indexed) =>
      indexed
        ? DomainKeys.ofOrdinals(sql, indexed.index, indexed.ords)
        : DomainKeys.ofKeys(sql, await keysBySql(sql, where)),
    );
    cache.set(key, found);
    // A read that failed (the database did not answer) is made again by the next request.
    found.catch(() => cache.delete(key));
  }
  return found;
}
