import { apiError } from "../errors.ts";
import type { ListOp, ListSpec, RangeSpec } from "../query/filter.ts";
import { parseInstant } from "../query/instant.ts";
import { type Options, splitList } from "./options.ts";

/**
 * Legacy `f:` options → the GraphQL filter input (AppFilter / DomainFilter), through the same
 * filter tables the GraphQL input types are built from. Blank values count as absent
 * (docs/api.md: "a blank min means everything before max").
 */
export interface EventSpec {
  legacy: string;
  subject: "app" | "technology";
}

export interface FilterTables {
  lists: Record<string, ListSpec>;
  ranges: Record<string, RangeSpec>;
  events?: Record<string, EventSpec>;
}

const REST_OPS: Record<string, ListOp> = { and: "and", or: "or", not: "not" };

const blank = (v: string | undefined) => v === undefined || v.trim() === "";

/** Every option name a filter table accepts. */
export function filterOptionNames(t: FilterTables): string[] {
  return [
    ...Object.values(t.lists).flatMap((s) => [s.legacy, `${s.legacy}:op`]),
    ...Object.values(t.ranges).flatMap((s) => s.bounds),
    ...Object.values(t.events ?? {}).flatMap((s) => [s.legacy, `${s.legacy}:min`, `${s.legacy}:max`]),
  ];
}

function bound(o: Options, key: string, kind: RangeSpec["kind"]): number | string | undefined {
  if (kind === "intRange") return o.int(key);
  const v = o.string(key);
  if (blank(v)) return undefined;
  try {
    parseInstant(v?.trim(), "value");
  } catch (e) {
    const early = (e as Error).message.includes("or later");
    throw apiError(
      "BAD_USER_INPUT",
      early
        ? `${key}: must be in the year 1 or later; got "${v}"`
        : `${key}: must be a date YYYY-MM-DD or an RFC 3339 timestamp; got "${v}"`,
    );
  }
  return v?.trim();
}

/** Reads the filter options of a table from `o` into a filter input object. */
export function readFilter(o: Options, t: FilterTables, withNand = false): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(t.lists)) {
    const value = o.string(spec.legacy);
    const op = o.string(`${spec.legacy}:op`);
    if (blank(value)) {
      if (!blank(op)) throw apiError("BAD_USER_INPUT", `${spec.legacy}:op: is given without ${spec.legacy}`);
      continue;
    }
    const name_ = blank(op) ? "and" : (op as string).trim().toLowerCase();
    // nand exists only inside aq (its "nand" operator).
    const listOp = withNand && name_ === "nand" ? "nand" : REST_OPS[name_];
    if (!listOp) throw apiError("BAD_USER_INPUT", `${spec.legacy}:op: must be and, or or not; got "${op}"`);
    filter[name] = { values: splitList(value as string), op: listOp.toUpperCase() };
  }
  for (const [name, spec] of Object.entries(t.ranges)) {
    const min = bound(o, spec.bounds[0], spec.kind);
    const max = bound(o, spec.bounds[1], spec.kind);
    if (min !== undefined || max !== undefined) filter[name] = { min: min ?? null, max: max ?? null };
  }
  for (const [name, spec] of Object.entries(t.events ?? {})) {
    const subject = o.string(spec.legacy);
    const min = bound(o, `${spec.legacy}:min`, "timeRange");
    const max = bound(o, `${spec.legacy}:max`, "timeRange");
    if (blank(subject)) {
      if (min !== undefined || max !== undefined) {
        throw apiError(
          "BAD_USER_INPUT",
          `${spec.legacy}: names the ${spec.subject} that :min and :max apply to`,
        );
      }
      continue;
    }
    if (min === undefined && max === undefined) {
      throw apiError(
        "BAD_USER_INPUT",
        `${spec.legacy}: needs ${spec.legacy}:min, ${spec.legacy}:max or both`,
      );
    }
    filter[name] = { [spec.subject]: (subject as string).trim(), min: min ?? null, max: max ?? null };
  }
  return filter;
}

/** GraphQL filter argument path (`filter.countryCode.values`) → the legacy option it came from. */
export function optionOfArgument(t: FilterTables, argument: string): string {
  const m = /^filter(?:\.and\[(\d+)\])?\.(\w+)(?:\.(\w+))?/.exec(argument);
  if (!m) return argument;
  const [, aq, name, part] = m;
  const where = aq === undefined ? "" : ` (aq[${aq}])`;
  const list = t.lists[name];
  if (list) return `${list.legacy}${part === "op" ? ":op" : ""}${where}`;
  const range = t.ranges[name];
  if (range) return `${part === "max" ? range.bounds[1] : range.bounds[0]}${where}`;
  const event = t.events?.[name];
  if (event) return `${event.legacy}${part === "min" || part === "max" ? `:${part}` : ""}${where}`;
  return argument;
}
