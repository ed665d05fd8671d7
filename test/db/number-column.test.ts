import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  columnFromStored,
  encodeNumbers,
  type NumberColumn,
  storedColumn,
  valueAt,
} from "../../src/db/number-column.ts";

// A count index's number column (src/db/number-column.ts) gives back every value exactly as it was
// given (NaN for none, -0 as -0, fractions, integers up to 2^53), in the narrowest coding that can,
// and the same again once stored and read back.

const values = (c: NumberColumn) => Array.from({ length: c.codes.length }, (_, i) => valueAt(c, i));
const sameEach = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  expect(b.length).toBe(a.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) expect([i, b[i]]).toEqual([i, a[i]]);
};
const roundTrip = (c: NumberColumn) => {
  const { coding, body } = storedColumn(c);
  const own = new Uint8Array(body.byteLength);
  own.set(body);
  return columnFromStored(JSON.parse(JSON.stringify(coding)), own.buffer);
};

/** Times of whole days, whole seconds, or any millisecond; counts; cents; fractions; NaN for none. */
const column = fc.oneof(
  fc.array(
    fc.oneof(
      fc.integer({ min: 0, max: 20_000 }).map((d) => 1.2e12 + d * 86_400_000),
      fc.constant(Number.NaN),
    ),
  ),
  fc.array(
    fc.oneof(
      fc.integer({ min: 0, max: 2 ** 31 }).map((s) => 1e12 + s * 1000),
      fc.constant(Number.NaN),
    ),
  ),
  fc.array(fc.oneof(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.constant(Number.NaN))),
  fc.array(fc.oneof(fc.integer({ min: 0, max: 300 }), fc.constant(Number.NaN))),
  fc.array(fc.oneof(fc.maxSafeInteger(), fc.constant(-Number.MAX_SAFE_INTEGER), fc.constant(Number.NaN))),
  fc.array(
    fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(-0), fc.constant(Number.NaN)),
  ),
  fc.array(fc.constant(Number.NaN)),
);

describe("a count index's number column", () => {
  it("gives back every value exactly, before and after it is stored", () => {
    fc.assert(
      fc.property(column, (given) => {
        const c = encodeNumbers(given);
        sameEach(given, values(c));
        sameEach(given, values(roundTrip(c)));
      }),
      { numRuns: 2000 },
    );
  });

  it("takes the fewest bytes that hold each kind of column", () => {
    const days = [1.7e12, 1.7e12 + 86_400_000, 1.7e12 + 86_400_000 * 3000, Number.NaN];
    expect(encodeNumbers(days).type).toBe("u16");
    expect(encodeNumbers([5, 7, 9, Number.NaN]).type).toBe("u8");
    // Values apart by a common step are coded in steps: two values are two codes.
    expect(encodeNumbers([0, 2 ** 40]).type).toBe("u8");
    // 254 steps fit a byte beside its none (255); 255 do not.
    expect(encodeNumbers([0, 1, 254]).type).toBe("u8");
    expect(encodeNumbers([0, 1, 255]).type).toBe("u16");
    expect(encodeNumbers([1, 2, 1_000_000]).type).toBe("u32");
    expect(encodeNumbers([0, 1, 2 ** 32]).type).toBe("f64");
    expect(encodeNumbers([0.5, 1]).type).toBe("f64");
    expect(encodeNumbers([-0, 1]).type).toBe("f64");
    // Safe integers more than 2^53 apart: their distance is not exact in a double (found by the property).
    const far = encodeNumbers([-Number.MAX_SAFE_INTEGER, 7680405617393045, 1]);
    expect([far.type, valueAt(far, 1)]).toEqual(["f64", 7680405617393045]);
    expect(encodeNumbers([Number.NaN, Number.NaN]).type).toBe("u8");
    // A column of one value and none has step 1.
    const one = encodeNumbers([42, Number.NaN, 42]);
    expect([one.type, one.base, one.step]).toEqual(["u8", 42, 1]);
    expect(encodeNumbers(days).codes.byteLength).toBe(days.length * 2);
  });
});
