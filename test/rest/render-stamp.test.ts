import { MapperKind, mapSchema } from "@graphql-tools/utils";
import { extendSchema, GraphQLFloat, GraphQLScalarType, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { renderStamp, stampOf } from "../../src/rest/rendered.ts";
import { schema } from "../../src/schema/index.ts";

// The stamp of rendered records (src/rest/rendered.ts) covers what the default answer is written
// from, and only that: a release that adds a Domain field or filter beside the default fields
// keeps every rendered snapshot fresh; one that changes a selected field's type, an enum it
// writes or a scalar's serializer makes them stale (answered by the row writer until rendered).

describe("the rendered records' stamp", () => {
  it("is the running schema's, made once", () => {
    expect(renderStamp()).toBe(stampOf(schema));
    expect(renderStamp()).toMatch(/^[0-9a-f]{32}$/);
  });

  it("stays the same when a Domain field, its arguments' input types or a filter are added", () => {
    const extended = extendSchema(
      schema,
      parse(`
        extend type Domain { trendOfSomething(filter: DomainFilter, first: Int = 3): [Int!] }
        extend input DomainFilter { somethingNew: String }
        type Unrelated { x: Int }
        extend type Query { unrelated: Unrelated }
      `),
    );
    expect(extended.getType("DomainFilter")).not.toBe(schema.getType("DomainFilter"));
    expect(stampOf(extended)).toBe(stampOf(schema));
  });

  it("changes when a selected field's type changes", () => {
    const changed = mapSchema(schema, {
      [MapperKind.OBJECT_FIELD]: (config, name, type) =>
        type === "Domain" && name === "avgPrice" ? { ...config, type: GraphQLFloat } : config,
    });
    expect(stampOf(changed)).not.toBe(stampOf(schema));
  });

  it("changes when a scalar the default fields write serializes otherwise", () => {
    const changed = mapSchema(schema, {
      [MapperKind.SCALAR_TYPE]: (type) =>
        type.name === "SafeInt"
          ? new GraphQLScalarType({ ...type.toConfig(), serialize: (v) => String(v) })
          : type,
    });
    expect(stampOf(changed)).not.toBe(stampOf(schema));
  });

  it("stays the same when an enum no default field writes gains a value", () => {
    const extended = extendSchema(schema, parse("extend enum DomainSortField { somethingNew }"));
    expect(stampOf(extended)).toBe(stampOf(schema));
  });

  it("stays the same when a selected field's description changes (it is not written)", () => {
    const changed = mapSchema(schema, {
      [MapperKind.OBJECT_FIELD]: (config, name, type) =>
        type === "Domain" && name === "avgPrice"
          ? { ...config, type: config.type, description: "x" }
          : config,
    });
    expect(stampOf(changed)).toBe(stampOf(schema));
  });
});
