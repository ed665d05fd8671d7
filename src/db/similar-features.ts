import { type Bitmap, type CountIndex, RoaringBitmap32 } from "./count-index.ts";
import { valueAt } from "./number-column.ts";

/**
 * The features lookalikes are scored by (src/query/similar.ts; docs/decisions.md, "Lookalikes"),
 * each with the Domains holding it and its weight: how rare it is. All of them are the count index's
 * own bitmaps (src/db/count-index.ts) but the size bands, which are made from its number columns
 * here, once per index (so once per snapshot and gateway: about 40 ms at a million Domains, a few
 * hundred KB of bitmaps).
 *
 * - `app`: an installed App (`<platform>.<token>`); `technology`: a technology (its name);
 *   `category`: a category;
 * - `platform`, `plan`, `country` (country_code): the Domain's own value;
 * - the size bands `estimated_sales`, `estimated_visits`, `product_count`, `employee_count`: the
 *   decade the value is in (`1000-9999`; `0` for nought).
 *
 * A feature's weight is `round(1000 × ln(N / n))`, N the snapshot's Domains and n those holding it:
 * an integer, so that every score is a sum of integers, exact and the same however it is added up
 * (ties are then real ties, broken by the documented rule, not by rounding). A feature every Domain
 * holds weighs nothing.
 */

export interface Feature {
  type: string;
  value: string;
  holders: Bitmap;
  /** round(1000 × ln(N / holders)). */
  weight: number;
}

/** The child dimensions of the index, by the type their features are named. */
const CHILDREN = [
  ["app", "apps"],
  ["technology", "technologies"],
  ["category", "categories"],
] as const;
/** The text columns, by type. */
const COLUMNS = [
  ["platform", "platform"],
  ["plan", "plan"],
  ["country", "country_code"],
] as const;
/** The number columns banded by decade, by type. */
const BANDED = [
  ["estimated_sales", "estimatedSales"],
  ["estimated_visits", "estimatedVisits"],
  ["product_count", "productCount"],
  ["employee_count", "employeeCount"],
] as const;

/** The bounds of the decades: 10^0 … 10^15 (a count beyond is in the last). */
const DECADES = Array.from({ length: 16 }, (_, k) => 10 ** k);

/** The decade a count is in: 0 for nought (or less), k for 10^(k-1) to 10^k - 1. */
function decadeOf(v: number): number {
  if (v < 1) return 0;
  let k = 1;
  while (k < DECADES.length && v >= DECADES[k]) k++;
  return k;
}

/** A decade as a feature's value: 0, 1-9, 10-99, 100-999… */
function band(v: number): string {
  const k = decadeOf(v);
  return k === 0 ? "0" : `${DECADES[k - 1]}-${DECADES[k - 1] * 10 - 1}`;
}

const featureWeight = (n: number, holders: number) => Math.round(1000 * Math.log(n / holders));

const made = new WeakMap<CountIndex, Feature[]>();

/** Every feature of the index's Domains, with a weight above nought. */
export function featuresOf(index: CountIndex): Feature[] {
  let features = made.get(index);
  if (!features) {
    features = [];
    const add = (type: string, value: string, holders: Bitmap) => {
      const weight = holders.size ? featureWeight(index.n, holders.size) : 0;
      if (weight > 0) (features as Feature[]).push({ type, value, holders, weight });
    };
    for (const [type, name] of CHILDREN) {
      const dim = index.children.get(name);
      if (!dim) throw new Error(`lookalikes: the count index has no dimension ${name}`);
      for (const [i, key] of dim.keys.entries()) add(type, dim.labels?.[i] ?? key, dim.bitmaps[i]);
    }
    for (const [type, column] of COLUMNS) {
      const col = index.text.get(column);
      if (!col) throw new Error(`lookalikes: the count index has no column ${column}`);
      for (const [i, key] of col.keys.entries()) add(type, key, col.bitmaps[i]);
    }
    for (const [type, field] of BANDED) {
      const col = index.numbers.get(field);
      if (!col) throw new Error(`lookalikes: the count index has no number column ${field}`);
      // Each Domain's decade (255: none), then each decade's Domains: two passes over typed arrays.
      const decade = new Uint8Array(index.n);
      const counts = new Uint32Array(DECADES.length + 1);
      for (let i = 0; i < index.n; i++) {
        const v = valueAt(col, i);
        const k = Number.isNaN(v) ? 255 : decadeOf(v);
        decade[i] = k;
        if (k !== 255) counts[k]++;
      }
      const ords = Array.from(counts, (c) => new Uint32Array(c));
      const filled = new Uint32Array(counts.length);
      for (let i = 0; i < index.n; i++) {
        const k = decade[i];
        if (k !== 255) ords[k][filled[k]++] = i;
      }
      for (const [k, members] of ords.entries()) {
        if (!members.length) continue;
        const holders = new RoaringBitmap32(members);
        holders.runOptimize();
        add(type, k === 0 ? "0" : band(DECADES[k - 1]), holders);
      }
    }
    made.set(index, features);
  }
  return features;
}
