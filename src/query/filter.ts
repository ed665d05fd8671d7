import { WORD } from "../db/search-index.ts";
import { InputError } from "../errors.ts";
import { isCalendarDay } from "./instant.ts";
import type { Where } from "./keyset.ts";
import { meant, nearValues } from "./suggest.ts";

/**
 * The building blocks of the filter model shared by Apps and Domains: list filters with the
 * and / or / not operators of docs/api.md (plus nand for `aq`), inclusive ranges, and a translation of
 * each to a Prisma `where`. Pure functions; src/query/domain-filter.ts and app-filter.ts declare
 * which filters exist.
 */

/** and: every value; or: any value; not: none of the values; nand: not every value (aq only). */
export type ListOp = "and" | "or" | "not" | "nand";

export interface ListFilter {
  values: readonly string[];
  op?: ListOp | null;
}

export interface Range<T> {
  min?: T | null;
  max?: T | null;
}

/** How one list filter matches rows. */
export interface ListSpec {
  kind: "list";
  /** The legacy option, e.g. `f:cc`. */
  legacy: string;
  description: string;
  /** Each row has at most one value (a column): `and`/`nand` with several values can never match. */
  exclusive: boolean;
  /** Canonical form of a value, or an InputError's problem text when it is not allowed. */
  normalize?: (value: string) => string | { problem: string };
  one: (value: string) => Where;
  any: (values: string[]) => Where;
  none: (values: string[]) => Where;
}

export interface RangeSpec {
  kind: "intRange" | "timeRange";
  legacy: string;
  description: string;
  /** REST option names of the bounds. */
  bounds: [string, string];
  column: string;
  /** The column is a 32-bit integer: larger bounds are refused rather than sent to the database. */
  int32?: boolean;
}

/** A value of a column (or a relation of one row per value). */
export function columnList(
  legacy: string,
  description: string,
  column: string,
  options: { nullable: boolean; normalize?: ListSpec["normalize"] },
): ListSpec {
  return {
    kind: "list",
    legacy,
    description,
    exclusive: true,
    normalize: options.normalize,
    one: (v) => ({ [column]: v }),
    any: (vs) => ({ [column]: vs.length === 1 ? vs[0] : { in: vs } }),
    // NOT IN drops rows whose value is unknown; "none of these values" includes them.
    none: (vs) =>
      options.nullable
        ? { OR: [{ [column]: { notIn: vs } }, { [column]: null }] }
        : { [column]: { notIn: vs } },
  };
}

/** Values held in a child table, any number per row. */
export function relationList(
  legacy: string,
  description: string,
  relation: string,
  match: (values: string[]) => Where,
  normalize?: ListSpec["normalize"],
): ListSpec {
  return {
    kind: "list",
    legacy,
    description,
    exclusive: false,
    normalize,
    one: (v) => ({ [relation]: { some: match([v]) } }),
    any: (vs) => ({ [relation]: { some: match(vs) } }),
    none: (vs) => ({ [relation]: { none: match(vs) } }),
  };
}

/** `{ col: v }` or `{ col: { in: vs } }`. */
export const inValues = (column: string) => (vs: string[]) => ({
  [column]: vs.length === 1 ? vs[0] : { in: vs },
});

/**
 * Accepts a value of a closed vocabulary in any letter case and returns its canonical spelling. An
 * unknown value's problem names the values near it first (did you mean), then the allowed ones: all
 * of a short vocabulary, the first 30 of a long one, or `commonest` and how many in all.
 *
 * @example vocabulary(PLATFORMS, "platform", COMMON_PLATFORMS)("shopfy") // → { problem: 'unknown platform "shopfy" (did you mean "shopify"?); allowed: shopify, woocommerce, …, webflow, … (297 in all, the commonest first)' }
 */
export function vocabulary(
  values: Iterable<string>,
  what: string,
  commonest?: readonly string[],
): NonNullable<ListSpec["normalize"]> {
  const canonical = new Map([...values].map((v) => [v.toLowerCase(), v]));
  const list = [...canonical.values()];
  const shown = commonest
    ? `${commonest.join(", ")}, … (${list.length} in all, the commonest first)`
    : list.length > 30
      ? `${list.slice(0, 30).join(", ")}, … (${list.length} in all)`
      : list.join(", ");
  return (v) =>
    canonical.get(v.toLowerCase()) ?? {
      problem: `unknown ${what} "${v}"${meant(nearValues(v, list))}; allowed: ${shown}`,
    };
}

export function pattern(
  re: RegExp,
  form: string,
  transform = (v: string) => v,
): NonNullable<ListSpec["normalize"]> {
  return (v) => {
    const t = transform(v);
    return re.test(t) ? t : { problem: `"${v}" is not ${form}` };
  };
}

/**
 * The op whose filter matches exactly the records the op's does not, those without a value
 * included (De Morgan: not every value is some value missing): how a list condition is negated
 * (DomainFilter's `not`), with every check of its values unchanged.
 */
export const OPPOSITE_OP: Record<ListOp, ListOp> = { and: "nand", nand: "and", or: "not", not: "or" };

/** Translates one list filter; `argument` names it in errors (e.g. `filter.countryCode`). */
export function listWhere(spec: ListSpec, filter: ListFilter, argument: string): Where {
  const op = filter.op ?? "and";
  if (filter.values.length === 0) throw new InputError(`${argument}.values`, "must name at least one value");
  if (filter.values.length > 1000) throw new InputError(`${argument}.values`, "takes at most 1000 values");
  const values: string[] = [];
  for (const raw of filter.values) {
    const trimmed = raw.trim();
    if (trimmed === "") throw new InputError(`${argument}.values`, "must not contain a blank value");
    const v = spec.normalize ? spec.normalize(trimmed) : trimmed;
    if (typeof v !== "string") throw new InputError(`${argument}.values`, v.problem);
    if (!values.includes(v)) values.push(v);
  }
  if (spec.exclusive && values.length > 1 && (op === "and" || op === "nand")) {
    throw new InputError(
      argument,
      `a record has only one ${spec.description.toLowerCase()}, so op ${op} with several values can never match; use op or (any of them) or not (none of them)`,
    );
  }
  switch (op) {
    case "and":
      return values.length === 1 ? spec.one(values[0]) : { AND: values.map(spec.one) };
    case "or":
      return spec.any(values);
    case "not":
      return spec.none(values);
    case "nand":
      return values.length === 1 ? spec.none(values) : { OR: values.map((v) => spec.none([v])) };
  }
}

/** An inclusive range over a column; NULL (unknown) never matches. */
export function rangeSpec(
  kind: RangeSpec["kind"],
  legacy: string,
  description: string,
  column: string,
  bounds: [string, string] = [`${legacy}min`, `${legacy}max`],
): RangeSpec {
  return { kind, legacy, description, bounds, column };
}

/** An integer range over a 32-bit column. */
export function int32Range(legacy: string, description: string, column: string): RangeSpec {
  return { ...rangeSpec("intRange", legacy, description, column), int32: true };
}

function bounds_(r: { min?: unknown; max?: unknown }): Where {
  const w: Where = {};
  if (r.min != null) w.gte = r.min;
  if (r.max != null) {
    // A maximum given as a calendar day covers that whole day.
    if (r.max instanceof Date && isCalendarDay(r.max)) w.lt = new Date(r.max.getTime() + 86_400_000);
    else w.lte = r.max;
  }
  return w;
}

/** Checks a range (at least one bound, min ≤ max) and returns its Prisma comparison. */
export function rangeWhere(range: Range<unknown>, argument: string, int32 = false): Where {
  const { min, max } = range;
  if (min == null && max == null) throw new InputError(argument, "needs min, max or both");
  // Compared as bounds_ applies them: a calendar-day max reaches the end of that day.
  const upper = max instanceof Date && isCalendarDay(max) ? max.getTime() + 86_400_000 - 1 : toNumber(max);
  if (min != null && max != null && toNumber(min) > upper) {
    throw new InputError(argument, `min (${show(min)}) is greater than max (${show(max)})`);
  }
  return int32 ? clampInt32(range) : bounds_(range);
}

const INT32 = 2 ** 31 - 1;

/**
 * Bounds beyond a 32-bit column's range are valid input (IntRange takes SafeInt) that PostgreSQL
 * would refuse as parameters: drop the ones every value satisfies, and match nothing when one
 * excludes every value.
 */
function clampInt32({ min, max }: Range<unknown>): Where {
  const lo = typeof min === "number" ? min : null;
  const hi = typeof max === "number" ? max : null;
  if ((lo !== null && lo > INT32) || (hi !== null && hi < -INT32)) return { in: [] };
  const w: Where = {};
  if (lo !== null && lo >= -INT32) w.gte = lo;
  if (hi !== null && hi <= INT32) w.lte = hi;
  // No bound left: still "a known value" (an empty comparison would let NULLs through).
  return Object.keys(w).length ? w : { gte: -INT32 };
}

const toNumber = (v: unknown) => (v instanceof Date ? v.getTime() : Number(v));
const show = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

/**
 * `q`: every word must occur in the record's lower-cased search text. Words are runs of letters
 * and digits; anything else separates them, so `%` and `_` are never LIKE wildcards.
 *
 * @example searchWhere("Blue-tooth 50%") // → every one of "blue", "tooth", "50" must occur
 */
export function searchWords(search: string): string[] {
  return search.toLowerCase().match(WORD) ?? [];
}

export function searchWhere(search: string | null | undefined, argument = "search"): Where | null {
  if (search == null || search.trim() === "") return null;
  if (search.length > 200) throw new InputError(argument, "must be at most 200 characters");
  const words = searchWords(search);
  if (words.length === 0) throw new InputError(argument, "needs at least one word of letters or digits");
  if (words.length > 10) throw new InputError(argument, "takes at most 10 words");
  const parts = words.map((w) => ({ searchText: { contains: w } }));
  return parts.length === 1 ? parts[0] : { AND: parts };
}

export function allOf(parts: (Where | null | undefined)[]): Where {
  const present = parts.filter((p): p is Where => p != null && Object.keys(p).length > 0);
  return present.length === 1 ? present[0] : present.length === 0 ? {} : { AND: present };
}
