import type { ListFilter, ListSpec, RangeSpec } from "../query/filter.ts";
import { builder, legacy } from "./builder.ts";

/** Input types shared by AppFilter and DomainFilter (src/query/filter.ts gives their meaning). */
export const ListOp = builder.enumType("ListOp", {
  description: "How the values of a list filter combine (docs/api.md `f:<x>:op`).",
  values: {
    AND: { value: "and", description: "Match all of the values (default)." },
    OR: { value: "or", description: "Match any of the values." },
    NOT: { value: "not", description: "Match none of the values." },
    NAND: { value: "nand", description: "Match not all of the values (aq's nand)." },
  } as const,
});

export const StringListFilter = builder.inputRef<ListFilter>("StringListFilter").implement({
  description: "Values to match, combined by op.",
  fields: (t) => ({
    values: t.stringList({ required: true }),
    op: t.field({ type: ListOp, defaultValue: "and" }),
  }),
});

export const IntRange = builder.inputRef<{ min?: number | null; max?: number | null }>("IntRange").implement({
  description: "An inclusive range; give min, max or both. Unknown values never match.",
  fields: (t) => ({ min: t.field({ type: "SafeInt" }), max: t.field({ type: "SafeInt" }) }),
});

export const TimeRange = builder.inputRef<{ min?: Date | null; max?: Date | null }>("TimeRange").implement({
  description:
    "An inclusive time range; give min, max or both. A date as max covers that whole day. Unknown values never match.",
  fields: (t) => ({ min: t.field({ type: "DateTime" }), max: t.field({ type: "DateTime" }) }),
});

type FieldsOf = Parameters<Parameters<typeof builder.inputType>[1]["fields"]>[0];

/** Input fields for a table of list and range filters, each with its legacy option name. */
export function filterFields(
  t: FieldsOf,
  lists: Record<string, ListSpec>,
  ranges: Record<string, RangeSpec>,
) {
  const fields: Record<string, ReturnType<FieldsOf["field"]>> = {};
  for (const [name, spec] of Object.entries(lists)) {
    fields[name] = t.field({
      type: StringListFilter,
      description: `${spec.description} (${spec.legacy}).`,
      ...legacy(spec.legacy, { exclusive: spec.exclusive }),
    });
  }
  for (const [name, spec] of Object.entries(ranges)) {
    fields[name] = t.field({
      type: spec.kind === "intRange" ? IntRange : TimeRange,
      description: `${spec.description} (${spec.bounds.join(", ")}).`,
      ...legacy(spec.legacy, { bounds: spec.bounds }),
    });
  }
  return fields;
}
