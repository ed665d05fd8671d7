import type { GraphQLObjectType } from "graphql";
import { describe, expect, it } from "vitest";
import { MODEL } from "../../src/generated/model.ts";
import { DERIVED } from "../../src/query/domain-read/plan.ts";
import { schema } from "../../src/schema/index.ts";

/**
 * Every column of the Domain model is served, or marked `/// @internal` in prisma/schema.prisma:
 * a column added to the model cannot be forgotten by the API, and one the API must not show
 * cannot leak. Served means a Domain field of the column's own name, whose REST name is the
 * column's name, or a field that reads it (DERIVED: the theme and review-site objects).
 */
describe("the Domain model and the Domain type", () => {
  const fields = (schema.getType("Domain") as GraphQLObjectType).getFields();
  const readByOthers = new Set(
    Object.entries(DERIVED)
      .filter(([name, columns]) => fields[name] && !columns.includes(name))
      .flatMap(([, columns]) => columns),
  );

  it.each(MODEL.Domain.fields.map((f) => [f.field, f] as const))("%s", (_name, column) => {
    const own = fields[column.field];
    const served = own !== undefined || readByOthers.has(column.field);
    if (column.internal) {
      expect(own, `${column.field} is marked @internal but is a field of Domain`).toBeUndefined();
      return;
    }
    expect(served, `${column.field}: not served; add a Domain field, or mark it /// @internal`).toBe(true);
    if (own) {
      const legacy = (own.extensions as { legacy?: string }).legacy;
      expect(legacy, `${column.field}: its REST name should be its column's`).toBe(column.column);
    }
  });

  it("marks exactly the key, the week and the search text internal", () => {
    expect(MODEL.Domain.fields.filter((f) => f.internal).map((f) => f.field)).toEqual([
      "pk",
      "createdWeek",
      "searchText",
    ]);
  });
});
