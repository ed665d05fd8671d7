import { coerceInputValue, type GraphQLInputObjectType } from "graphql";
import { type Bitmap, type CountIndex, RoaringBitmap32 } from "../db/count-index.ts";
import type { SqlReader } from "../db/reader.ts";
import { segmentOf } from "../db/segment.ts";
import type { SegmentRow } from "../db/segments.ts";
import { statementOver } from "../db/where-sql.ts";
import type { DomainFilter } from "./domain-filter.ts";
import type { Where } from "./keyset.ts";

/**
 * A saved segment's filter as List Domains' arguments (coerced by the schema's DomainFilter, which
 * src/schema/index.ts hands here once built), and its members in a snapshot.
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

/** A kept filter (as a client wrote it) coerced as List Domains' `filter` argument is. */
export function segmentArgsOf(row: Pick<SegmentRow, "filter" | "search">): SegmentArgs {
  if (row.filter && !filterType) throw new Error("a segment's filter is read before the schema was built");
  return {
    filter: row.filter && filterType ? (coerceInputValue(row.filter, filterType) as DomainFilter) : null,
    search: row.search,
  };
}

/** The dimensions a segment's spread is counted over at each load (count index columns). */
export const SEGMENT_DIMENSIONS = ["platform", "plan", "country_code"] as const;

/** A segment's members in a snapshot: their keys (pk), and their counts over SEGMENT_DIMENSIONS. */
export interface Members {
  pks: Bitmap;
  counts: Record<string, Record<string, number>> | null;
}

/** A segment's members as ordinals of its snapshot's count index, and their spread. */
export interface IndexedMembers {
  index: CountIndex;
  ords: Bitmap;
  counts: Record<string, Record<string, number>>;
}

/** The Domains `where` matches, from the snapshot's count index; null for a snapshot without one. */
export async function indexedMembersOf(sql: SqlReader, where: Where): Promise<IndexedMembers | null> {
  const found = await segmentOf(sql, where);
  if (!found) return null;
  const { index, segment } = found;
  const counts: Record<string, Record<string, number>> = {};
  for (const dimension of SEGMENT_DIMENSIONS) {
    const column = index.text.get(dimension);
    if (!column) continue;
    const of: Record<string, number> = {};
    column.keys.forEach((key, i) => {
      const n = segment.andCardinality(column.bitmaps[i]);
      if (n) of[key] = n;
    });
    counts[dimension] = of;
  }
  return { index, ords: segment, counts };
}

/**
 * The Domains `where` matches in the snapshot `sql` reads, by key: from its count index (a bitmap
 * of ordinals, then their keys) and their spread from its value bitmaps; by SQL's keys on a
 * snapshot without one (no spread then).
 */
export async function membersOf(sql: SqlReader, where: Where): Promise<Members> {
  const found = await indexedMembersOf(sql, where);
  if (!found) {
    const { text, params } = statementOver(
      sql,
      "domain",
      where,
      (cond) => `SELECT r."pk" FROM ${sql.table("domain")} r WHERE ${cond}`,
    );
    const rows = await sql.all(text, params);
    return { pks: new RoaringBitmap32(rows.map((r) => Number(r[0]))), counts: null };
  }
  const { index, ords, counts } = found;
  const members = ords.toUint32Array();
  const pks = new Uint32Array(members.length);
  for (let i = 0; i < members.length; i++) pks[i] = index.ordToPk[members[i]];
  return { pks: new RoaringBitmap32(pks), counts };
}
