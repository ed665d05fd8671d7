import type { GraphQLObjectType } from "graphql";
import { describe, expect, it } from "vitest";
import { DOMAIN_CHILDREN } from "../../src/db/domain-children.ts";
import { MODEL } from "../../src/generated/model.ts";
import { readsOf } from "../../src/query/domain-read/plan.ts";
import { schema } from "../../src/schema/index.ts";

/**
 * Every column of the Domain model is served, or marked `/// @internal` in prisma/schema.prisma:
 * a column added to the model cannot be forgotten by the API, and one the API must not show
 * cannot leak. Served means a Domain field of the column's own name, whose REST name is the
 * column's name, or a field that reads it (its `reads` extension: the theme and review-site objects).
 */
describe("the Domain model and the Domain type", () => {
  const fields = (schema.getType("Domain") as GraphQLObjectType).getFields();
  const domainType = schema.getType("Domain") as GraphQLObjectType;
  const readByOthers = new Set(
    Object.keys(fields).flatMap((name) => {
      const columns = readsOf(domainType, name).fields ?? [];
      return columns.includes(name) ? [] : columns;
    }),
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

  /**
   * A field that is no column and declares no `reads` makes every read of a selection holding it
   * take every column (src/query/domain-read/plan.ts): right, but slow. None does today; a field
   * that must read everything is listed here, on purpose.
   */
  const READS_EVERYTHING: string[] = [];

  it("every Domain field is a column or declares what it reads, beside its resolver", () => {
    const undeclared = Object.keys(fields).filter((name) => readsOf(domainType, name).fields === null);
    expect(undeclared, "declare extensions: reads([...]) on these fields (src/schema/domain.ts)").toEqual(
      READS_EVERYTHING,
    );
  });

  it("every child table of a Domain is read by the relation field that declares it", () => {
    const declared = Object.keys(fields)
      .map((name) => readsOf(domainType, name).child)
      .filter((c) => c !== null)
      .sort();
    expect(declared).toEqual(Object.keys(DOMAIN_CHILDREN).sort());
  });
});
