import { type Bitmap, type CountIndex, RoaringBitmap32 } from "../db/count-index.ts";
import { valueAt } from "../db/number-column.ts";

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
export const BANDED = [
  ["estimated_sales", "estimatedSales"],
  ["estimated_visits", "estimatedVisits"],
  ["product_count", "productCount"],
  ["employee_count", "employeeCount"],
] as const;

/** The decade a count is in, as a feature's value: 0, 1-9, 10-99, 100-999… */
export function band(v: number): string {
  if (v < 1) return "0";
  const digits = String(Math.trunc(v)).length;
  const lo = 10 ** (digits - 1);
  return `${lo}-${lo * 10 - 1}`;
}

export const featureWeight = (n: number, holders: number) => Math.round(1000 * Math.log(n / holders));

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
      const bands = new Map<string, number[]>();
      for (let i = 0; i < index.n; i++) {
        const v = valueAt(col, i);
        if (Number.isNaN(v)) continue;
        const b = band(v);
        const list = bands.get(b);
        if (list) list.push(i);
        else bands.set(b, [i]);
      }
      for (const [value, ords] of [...bands].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
        const holders = new RoaringBitmap32(ords);
        holders.runOptimize();
        add(type, value, holders);
      }
    }
    made.set(index, features);
  }
  return features;
}
