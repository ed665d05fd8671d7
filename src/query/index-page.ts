import { type Bitmap, type CountIndex, ORDER_BUCKET, RoaringBitmap32 } from "../db/count-index.ts";
import { type NumberColumn, plainColumn, valueAt } from "../db/number-column.ts";
import type { KeyValue, SortKey } from "./keyset.ts";

/**
 * A keyset page of Domains from the snapshot's count index (src/db/count-index.ts), without a
 * statement: the keys of the `take` members of `matched` (a set of Domains) that follow `after` in the
 * order of `keys`, exactly as readPage's statements (src/query/keyset.ts) order them: each key
 * ascending or descending with its unknown (NULL) values last in both directions, then the next
 * key, ending with `pk`.
 *
 * - Sorted by rank (ascending, then pk), the set's own order is the answer: Domains are
 *   numbered in that order, so the page is the first `take` members after the cursor's place.
 * - By one key, a set larger than a few slices is read slice by slice of the key's order
 *   (SortBuckets, src/db/count-index.ts): each slice's members in the set, after the cursor,
 *   ordered, until `take` are found (at 1M Domains and 40% of them in the set, one slice of
 *   16,384 holds ~6,500 of its members: a page costs one intersection and a sort of those).
 * - Otherwise (a small set, several keys), one pass over the set's members keeps the best
 *   `take` in a heap.
 *
 * Null (the page is read by SQL) when a key has no array in the index, or a cursor's value
 * cannot be placed exactly (a name: the index holds names' positions, not the names; a number a
 * double cannot hold). A set of Domains asks it for a page (src/query/domain-set.ts, pageKeys).
 */
export function selectPage(
  index: CountIndex,
  matched: Bitmap,
  keys: readonly SortKey[],
  after: readonly KeyValue[] | null,
  take: number,
  /** A set smaller than this is scanned whole rather than read by slices. */
  scanMost = SCAN_MOST,
): number[] | null {
  if (take <= 0 || keys.at(-1)?.field !== "pk") return null;
  const columns = sortColumns(index, keys);
  if (!columns) return null;
  let cursor: Float64Array | null = null;
  if (after) {
    cursor = new Float64Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const v = numeric(after[i]);
      if (v === undefined || (columns[i].positions && after[i] !== null)) return null;
      cursor[i] = v;
    }
  }
  const order = new Order(columns, cursor);
  const ords = order.inRankOrder(keys, index)
    ? order.firstMembers(matched, index, take)
    : (order.bySlices(keys, index, matched, take, scanMost) ?? order.top(matched.toUint32Array(), take));
  const pks = new Array<number>(ords.length);
  for (let i = 0; i < ords.length; i++) pks[i] = index.ordToPk[ords[i]];
  return pks;
}

interface Column {
  values: NumberColumn;
  /** 1 ascending, -1 descending. */
  sign: number;
  positions: boolean;
}

function sortColumns(index: CountIndex, keys: readonly SortKey[]): Column[] | null {
  const out: Column[] = [];
  for (const k of keys) {
    const sign = k.dir === "asc" ? 1 : -1;
    if (k.field === "pk") {
      out.push({ values: plainColumn(index.ordToPk), sign, positions: false });
      continue;
    }
    const held = index.sorts.get(k.field);
    if (!held?.exact) return null;
    out.push({ values: held.values, sign, positions: held.positions });
  }
  return out;
}

/** A cursor's value as the index holds it (NaN: unknown); undefined when a double cannot hold it. */
function numeric(v: KeyValue): number | undefined {
  if (v === null) return Number.NaN;
  if (v instanceof Date) return v.getTime();
  if (typeof v === "bigint")
    return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : undefined;
  if (typeof v === "number") return v;
  return undefined;
}

/** The order of a page's keys over ordinals, and the cursor's place in it. */
class Order {
  constructor(
    private readonly columns: Column[],
    private readonly cursor: Float64Array | null,
  ) {}

  /** <0 when ordinal a comes before b, >0 after, 0 the same place (never for two Domains: pk ends it). */
  compare(a: number, b: number): number {
    for (const c of this.columns) {
      const x = valueAt(c.values, a);
      const y = valueAt(c.values, b);
      if (x === y) continue;
      const d = compareValues(x, y, c.sign);
      if (d !== 0) return d;
    }
    return 0;
  }

  /** Whether ordinal a comes after the cursor (every ordinal, without one). */
  follows(a: number): boolean {
    const cursor = this.cursor;
    if (!cursor) return true;
    for (let i = 0; i < this.columns.length; i++) {
      const c = this.columns[i];
      const x = valueAt(c.values, a);
      const y = cursor[i];
      if (x === y) continue;
      const d = compareValues(x, y, c.sign);
      if (d !== 0) return d > 0;
    }
    return false;
  }

  /**
   * Whether the order is the ordinals' own: rank ascending, then pk ascending (ordinals are
   * numbered so, the Domains without a rank last, as NULLs sort).
   */
  inRankOrder(keys: readonly SortKey[], index: CountIndex): boolean {
    return (
      keys.length === 2 &&
      keys[0].field === "rank" &&
      keys[0].dir === "asc" &&
      keys[1].dir === "asc" &&
      this.columns[0].values === index.sorts.get("rank")?.values
    );
  }

  /** The first `take` members of `matched` after the cursor, in ordinal order. */
  firstMembers(matched: Bitmap, index: CountIndex, take: number): number[] {
    // The first ordinal after the cursor: ordinals are sorted in this order, so a binary search.
    let lo = 0;
    let hi = index.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.follows(mid)) hi = mid;
      else lo = mid + 1;
    }
    const out: number[] = [];
    const before = lo === 0 ? 0 : matched.rank(lo - 1);
    for (let r = before; out.length < take; r++) {
      const ord = matched.select(r);
      if (ord === undefined) break;
      out.push(ord);
    }
    return out;
  }

  /**
   * The page read slice by slice of its key's order, or null when it is not to be: several keys (a
   * slice holds one key's ties in pk order only), no slices, or a set small enough to scan.
   */
  bySlices(
    keys: readonly SortKey[],
    index: CountIndex,
    matched: Bitmap,
    take: number,
    scanMost: number,
  ): number[] | null {
    const buckets =
      keys.length === 2 && keys[1].dir === keys[0].dir ? index.sorts.get(keys[0].field)?.buckets : null;
    if (!buckets || matched.size < scanMost) return null;
    const asc = keys[0].dir === "asc";
    const count = buckets.bitmaps.length;
    const walk: number[] = [];
    if (asc) for (let b = 0; b < count; b++) walk.push(b);
    else {
      for (let b = buckets.nullStart - 1; b >= 0; b--) walk.push(b);
      for (let b = count - 1; b >= buckets.nullStart; b--) walk.push(b);
    }
    const out: number[] = [];
    for (const b of walk) {
      // A slice wholly at or before the cursor is passed.
      if (!this.follows(asc ? buckets.lasts[b] : buckets.firsts[b])) continue;
      const members = RoaringBitmap32.and(buckets.bitmaps[b], matched).toUint32Array();
      for (const ord of this.top(members, take - out.length)) out.push(ord);
      if (out.length >= take) break;
    }
    return out;
  }

  /** The first `take` of `members` after the cursor: one pass, the best kept in a max-heap. */
  top(members: Uint32Array, take: number): number[] {
    const heap: number[] = [];
    const worse = (a: number, b: number) => this.compare(a, b) > 0;
    // The first key rejects most members without a full comparison.
    const first = this.columns[0];
    const values = first.values;
    const sign = first.sign;
    for (let m = 0; m < members.length; m++) {
      const ord = members[m];
      if (heap.length === take) {
        const x = valueAt(values, ord);
        const y = valueAt(values, heap[0]);
        const d = x === y ? 0 : compareValues(x, y, sign);
        if (d > 0 || (d === 0 && !worse(heap[0], ord))) continue;
      }
      if (!this.follows(ord)) continue;
      if (heap.length < take) {
        // Sift up.
        let i = heap.push(ord) - 1;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (!worse(ord, heap[parent])) break;
          heap[i] = heap[parent];
          i = parent;
        }
        heap[i] = ord;
        continue;
      }
      // Replace the worst kept, and sift down.
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= take) break;
        const r = l + 1;
        const child = r < take && worse(heap[r], heap[l]) ? r : l;
        if (!worse(heap[child], ord)) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = ord;
    }
    return heap.sort((a, b) => this.compare(a, b));
  }
}

/** A set this small is scanned whole rather than read by slices. */
const SCAN_MOST = ORDER_BUCKET / 2;

/** Two different values of a key (NaN: unknown, after every known value in both directions). */
function compareValues(x: number, y: number, sign: number): number {
  const xu = Number.isNaN(x);
  const yu = Number.isNaN(y);
  if (xu || yu) return xu && yu ? 0 : xu ? 1 : -1;
  return x < y ? -sign : sign;
}
