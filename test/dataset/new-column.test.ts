import { describe, expect, it } from "vitest";
import { z } from "zod";
import { recordRows } from "../../src/dataset/load/rows.ts";
import { modelOnlyFields } from "../../src/dataset/record-model.ts";

/**
 * A column added to the Domain model is read from the input and written to its row with no other
 * change (docs/structure.md): the two generic halves of that, on columns the model does not have.
 */
describe("a column the Domain record does not describe", () => {
  const added = [
    { field: "fooScore", column: "foo_score", type: "Int" },
    { field: "fooSeenAt", column: "foo_seen_at", type: "DateTime" },
    { field: "fooTags", column: "foo_tags", type: "Json" },
  ];
  const described = { name: z.string() };
  const schema = z.strictObject({ ...described, ...modelOnlyFields(described, added) });

  it("is an optional input field of its column's name and base type", () => {
    expect(schema.parse({ name: "a" })).toEqual({ name: "a" });
    expect(
      schema.parse({ name: "a", foo_score: 7, foo_seen_at: "2024-03-01T12:00:00Z", foo_tags: ["x"] }),
    ).toEqual({ name: "a", foo_score: 7, foo_seen_at: "2024-03-01T12:00:00Z", foo_tags: ["x"] });
    expect(schema.safeParse({ name: "a", foo_score: "7" }).success).toBe(false);
    expect(schema.safeParse({ name: "a", foo_seen_at: "yesterday" }).success).toBe(false);
  });

  it("is not added when the record describes it, nor when the loader computes it", () => {
    expect(Object.keys(modelOnlyFields({ foo_score: z.int() }, added))).toEqual(["foo_seen_at", "foo_tags"]);
    expect(modelOnlyFields({}, [{ field: "pk", column: "pk", type: "Int" }])).toEqual({});
  });

  it("is refused at start when its type has no input form, naming it", () => {
    expect(() => modelOnlyFields({}, [{ field: "isFoo", column: "is_foo", type: "Boolean" }])).toThrow(
      /Domain\.isFoo/,
    );
  });

  it("is written to its row as its kind, after the computed columns", () => {
    type R = { name: string; foo_score?: number; foo_seen_at?: string; foo_tags?: string[] };
    const row = recordRows<R>(
      {
        name: "t",
        columns: ["pk", "name", "foo_score", "foo_seen_at", "foo_tags"],
        kinds: ["int", "text", "int", "time", "json"],
      },
      { pk: (_r, pk) => pk },
      schema.shape,
    );
    expect(row(3, { name: "a", foo_score: 7, foo_seen_at: "2024-03-01T00:00:00Z", foo_tags: ["x"] })).toEqual(
      [3, "a", 7, Date.parse("2024-03-01T00:00:00Z"), '["x"]'],
    );
    expect(row(4, { name: "b" })).toEqual([4, "b", null, null, null]);
  });

  it("is refused at start when the record has no field of its name", () => {
    expect(() =>
      recordRows({ name: "t", columns: ["pk", "bar"], kinds: ["int", "int"] }, { pk: (_r, pk) => pk }, {}),
    ).toThrow(/t\.bar/);
  });
});
