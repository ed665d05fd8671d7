import SchemaBuilder from "@pothos/core";
import type { Context } from "../context.ts";

/** Builder configuration only; types live in one file each beside this one. */
export const builder = new SchemaBuilder<{
  Context: Context;
  Scalars: { DateTime: { Input: Date; Output: Date } };
  DefaultFieldNullability: false;
}>({
  // Fields are non-null unless declared nullable: optional data is nullable on purpose, one by one.
  defaultFieldNullability: false,
});

builder.scalarType("DateTime", {
  description: "An RFC 3339 timestamp in UTC, e.g. 2024-03-01T12:30:00Z",
  serialize: (d) => d.toISOString().replace(".000Z", "Z"),
  parseValue: (v) => {
    const d = new Date(String(v));
    if (Number.isNaN(d.getTime())) throw new TypeError("DateTime must be an RFC 3339 timestamp");
    return d;
  },
});
