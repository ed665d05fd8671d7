import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dayText, instantText } from "../../src/query/instant.ts";

// The DateTime and Date scalars' text (src/query/instant.ts) is toISOString's, written faster:
// the same text for every instant, before 1970 and after 9999 included, ms or none.
describe("instant text", () => {
  const instants = fc.oneof(
    fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }),
    fc.date({
      min: new Date("1969-12-31T00:00:00Z"),
      max: new Date("2100-01-01T00:00:00Z"),
      noInvalidDate: true,
    }),
    fc.integer({ min: 0, max: 4_000_000 }).map((days) => new Date(days * 86_400_000)),
    fc.integer({ min: 0, max: 253_402_300_799_999 }).map((t) => new Date(t - (t % 1000))),
  );

  it("is toISOString's, without .000", () => {
    fc.assert(
      fc.property(instants, (d) => {
        expect(instantText(d)).toBe(d.toISOString().replace(".000Z", "Z"));
        expect(dayText(d)).toBe(d.toISOString().slice(0, 10));
      }),
      { numRuns: 20_000 },
    );
  });

  it("at the edges: midnight, the last millisecond of a day, the epoch, year 9999", () => {
    for (const text of [
      "1970-01-01T00:00:00.000Z",
      "2024-02-29T23:59:59.999Z",
      "2024-03-01T00:00:00.001Z",
      "2024-03-01T00:00:00.010Z",
      "2024-03-01T00:00:00.100Z",
      "9999-12-31T23:59:59.999Z",
      "1969-12-31T23:59:59.999Z",
      "+010000-01-01T00:00:00.000Z",
    ]) {
      const d = new Date(text);
      expect(instantText(d)).toBe(text.replace(".000Z", "Z"));
      expect(dayText(d)).toBe(text.slice(0, 10));
    }
    expect(() => instantText(new Date(Number.NaN))).toThrow(RangeError);
  });
});
