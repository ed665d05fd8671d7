import { type Bitmap, type CountIndex, RoaringBitmap32 } from "../db/count-index.ts";
import { byCount, FACETS, type Facet, type FacetValue } from "./facets.ts";

/**
 * Facets counted from bitmaps: a dimension's values as bitmaps of records (the count index's of
 * Domains, the App index's of Apps), each value's count its intersection with the records a filter
 * matches (src/db/where-bitmap.ts). src/query/facet-counts.ts asks them for a list's facets,
 * src/query/segment-members.ts for a segment's spread.
 */

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
export interface ValueBitmaps {
  keys: string[];
  labels?: string[] | null;
  bitmaps: Bitmap[];
  order: number[];
  byKey: Map<string, number>;
}

/** A facet of `matched` over a dimension's value bitmaps (of the same records' numbering). */
export function bitmapFacet(
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
