/**
 * A count index's column of numbers by Domain ordinal (src/db/count-index.ts), held in as few
 * bytes as hold every value exactly: frame-of-reference codes. Every value is `base + code × step`,
 * and `none` is the code of a Domain without one. Whole numbers (counts, ranks, cents, and times in
 * epoch milliseconds, which are whole days or seconds in the data) fit 1, 2 or 4 bytes a Domain
 * instead of a double's 8; anything else (a fraction, a range wider than 2^32 steps) stays a
 * double, whose `none` is NaN, so that one reading, `valueAt`, serves both.
 *
 * At a million Domains the eleven number columns took 88 MB as doubles; coded, 36 MB (issue 54,
 * docs/performance-history.md, "The number columns coded").
 */

export type CodeType = "u8" | "u16" | "u32" | "i32" | "f64";

export interface NumberColumn {
  type: CodeType;
  codes: Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;
  base: number;
  step: number;
  /** The code of no value: the type's largest, or NaN (a double's own none, which no code equals). */
  none: number;
}

/** How a coded column is described in the index's stored meta (its codes are the part's body). */
export interface StoredCoding {
  type: CodeType;
  base: number;
  step: number;
}

const WIDEST: Record<"u8" | "u16" | "u32", number> = { u8: 0xff, u16: 0xffff, u32: 0xffffffff };

/** Ordinal i's value: NaN for none. */
export function valueAt(c: NumberColumn, i: number): number {
  const x = c.codes[i];
  return x === c.none ? Number.NaN : c.base + x * c.step;
}

/** A column of values as they are (NaN for none, or an Int32Array of positions or keys). */
export function plainColumn(values: Float64Array | Int32Array): NumberColumn {
  return {
    type: values instanceof Int32Array ? "i32" : "f64",
    codes: values,
    // x + -0 is x for every x, -0 included (0 + -0 would be 0).
    base: -0,
    step: 1,
    none: Number.NaN,
  };
}

const gcd = (a: number, b: number): number => {
  while (b) [a, b] = [b, a % b];
  return a;
};

/** The narrowest exact column of `values` (NaN for none). */
export function encodeNumbers(values: ArrayLike<number>): NumberColumn {
  const n = values.length;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let whole = true;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (Number.isNaN(v)) continue;
    if (!Number.isSafeInteger(v) || Object.is(v, -0)) whole = false;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const asDoubles = () => plainColumn(values instanceof Float64Array ? values : Float64Array.from(values));
  // Distances beyond 2^53 are not exact in a double: nor would a code's value be.
  if (!whole || max - min > Number.MAX_SAFE_INTEGER) return asDoubles();
  if (min === Number.POSITIVE_INFINITY) return coded("u8", new Uint8Array(n).fill(WIDEST.u8), 0, 1);
  let step = 0;
  for (let i = 0; i < n && step !== 1; i++) {
    const v = values[i];
    if (!Number.isNaN(v) && v !== min) step = gcd(step, v - min);
  }
  if (step === 0) step = 1;
  const span = (max - min) / step;
  const type = span < WIDEST.u8 ? "u8" : span < WIDEST.u16 ? "u16" : span < WIDEST.u32 ? "u32" : null;
  if (!type) return asDoubles();
  const codes = type === "u8" ? new Uint8Array(n) : type === "u16" ? new Uint16Array(n) : new Uint32Array(n);
  const none = WIDEST[type];
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (Number.isNaN(v)) codes[i] = none;
    else {
      codes[i] = (v - min) / step;
      // Exact by construction; checked, so that a column is never read back otherwise.
      if (min + codes[i] * step !== v) return asDoubles();
    }
  }
  return coded(type, codes, min, step);
}

function coded(type: "u8" | "u16" | "u32", codes: NumberColumn["codes"], base: number, step: number) {
  return { type, codes, base, step, none: WIDEST[type] };
}

/** A column as stored: its coding for the meta, and its codes' bytes. */
export function storedColumn(c: NumberColumn): { coding: StoredCoding; body: Buffer } {
  return {
    coding: { type: c.type, base: c.base, step: c.step },
    body: Buffer.from(c.codes.buffer, c.codes.byteOffset, c.codes.byteLength),
  };
}

/** A stored column from its coding and its part's bytes (an ArrayBuffer of its own). */
export function columnFromStored(coding: StoredCoding, body: ArrayBuffer): NumberColumn {
  switch (coding.type) {
    case "f64":
      return plainColumn(new Float64Array(body));
    case "i32":
      return plainColumn(new Int32Array(body));
    case "u8":
      return coded("u8", new Uint8Array(body), coding.base, coding.step);
    case "u16":
      return coded("u16", new Uint16Array(body), coding.base, coding.step);
    case "u32":
      return coded("u32", new Uint32Array(body), coding.base, coding.step);
    default:
      throw new Error(`count index: unknown column coding ${String((coding as StoredCoding).type)}`);
  }
}

/** Bytes a column holds. */
export const columnBytes = (c: NumberColumn) => c.codes.byteLength;
