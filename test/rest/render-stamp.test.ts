import { MapperKind, mapSchema } from "@graphql-tools/utils";
import { extendSchema, GraphQLFloat, GraphQLScalarType, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { PART_VERSIONS } from "../../src/db/snapshot-format.ts";
import { stampOf } from "../../src/rest/rendered.ts";
import { schema } from "../../src/schema/index.ts";

// The stamp of rendered records (src/rest/rendered.ts) covers what the default answer is written
// from, and only that: a release that adds a Domain field or filter beside the default fields
// keeps every rendered snapshot of its version; one that changes a selected field's type, an enum
// it writes or a scalar's serializer changes the stamp, and this test holds it to the rendered
// part's version (src/db/snapshot-format.ts), so that such a change bumps the version and every
// snapshot rendered before is rendered again (npm run load -- --upgrade), never served.

/**
 * The rendered part's version, and the stamp of the code that renders it: computed in UTC, held
 * here in New York's time zone (vitest.config.ts), so a stamp that depended on the zone (a
 * serializer's message printing a Date) would fail.
 */
const PINNED = { version: 1, stamp: "e045e9213d8f6f89b9c71d77d34c1a9e" };

describe("the rendered records' stamp", () => {
  it("is pinned to the rendered part's version: a change of what renders them bumps it", () => {
    const stamp = stampOf(schema);
    expect(stamp).toMatch(/^[0-9a-f]{32}$/);
    expect(
      { version: PART_VERSIONS.rendered, stamp },
      "the default answer is written otherwise: bump PART_VERSIONS.rendered (src/db/snapshot-format.ts) and pin both here",
    ).toEqual(PINNED);
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
