import { apiError } from "../errors.ts";
import type { ListOp, ListSpec, RangeSpec } from "../query/filter.ts";
import { parseInstant } from "../query/instant.ts";
import { MAX_SUGGESTIONS, nearNames, unique } from "../query/suggest.ts";
import { joinList, type Options, splitList } from "./options.ts";

/**
 * Legacy `f:` options → the GraphQL filter input (AppFilter / DomainFilter), through the same
 * filter tables the GraphQL input types are built from. Blank values count as absent
 * (docs/api.md: "a blank min means everything before max").
 */
export interface EventSpec {
  legacy: string;
  subject: "app" | "technology";
  description?: string;
}

/** A filter by one name of something the account keeps (f:list: one of its lists). */
export interface NamedSpec {
  legacy: string;
  description: string;
}

export interface FilterTables {
  lists: Record<string, ListSpec>;
  ranges: Record<string, RangeSpec>;
  events?: Record<string, EventSpec>;
  named?: Record<string, NamedSpec>;
}

const REST_OPS: Record<string, ListOp> = { and: "and", or: "or", not: "not" };

/** What a list filter's `:op` takes (its first, the default). */
export const LIST_OPS = Object.keys(REST_OPS) as [string, ...string[]];

const blank = (v: string | undefined) => v === undefined || v.trim() === "";

/** Every option name a filter table accepts. */
export function filterOptionNames(t: FilterTables): string[] {
  return [
    ...Object.values(t.lists).flatMap((s) => [s.legacy, `${s.legacy}:op`]),
    ...Object.values(t.ranges).flatMap((s) => s.bounds),
    ...Object.values(t.events ?? {}).flatMap((s) => [s.legacy, `${s.legacy}:min`, `${s.legacy}:max`]),
    ...Object.values(t.named ?? {}).map((s) => s.legacy),
  ];
}

function bound(o: Options, key: string, kind: RangeSpec["kind"]): number | string | undefined {
  if (kind === "intRange") return o.int(key);
  const v = o.string(key);
  if (blank(v)) return undefined;
  instantOf(key, v as string);
  return v?.trim();
}

/** A time bound as a client wrote it (a date, or an RFC 3339 timestamp), or a 400 naming `key`. */
export function instantOf(key: string, v: string): Date {
  try {
    return parseInstant(v.trim(), "value");
  } catch (e) {
    const early = (e as Error).message.includes("or later");
    throw apiError(
      "BAD_USER_INPUT",
      early
        ? `${key}: must be in the year 1 or later; got "${v}"`
        : `${key}: must be a date YYYY-MM-DD or an RFC 3339 timestamp; got "${v}"`,
    );
  }
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
  for (const [name, spec] of Object.entries(t.named ?? {})) {
    const value = o.string(spec.legacy);
    if (!blank(value)) filter[name] = (value as string).trim();
  }
  return filter;
}

/** A list filter of a filter input: its values and op (GraphQL's enum name, or its value). */
export type ListInput = { values?: readonly string[] | null; op?: string | null };
type BoundsInput = { min?: unknown; max?: unknown } & Record<string, unknown>;

/**
 * The options readFilter reads `filter` from, its inverse: each list's values (escaped as
 * splitList reads them) and its op where not and, each range's and event's bounds, and a named
 * filter's name. A list with op nand has no option (only aq has nand): it is answered in `nand`
 * for the caller to write as aq.
 *
 * @example writeFilter({countryCode: {values: ["US", "CA"], op: "OR"}, rank: {min: 1, max: null}}, DOMAIN_TABLES)
 * // → {options: {"f:cc": "US,CA", "f:cc:op": "or", "f:rankmin": 1}, nand: {}}
 */
export function writeFilter(
  filter: Record<string, unknown>,
  t: FilterTables,
): { options: Record<string, unknown>; nand: Record<string, ListInput> } {
  const options: Record<string, unknown> = {};
  const nand: Record<string, ListInput> = {};
  for (const [name, spec] of Object.entries(t.lists)) {
    const f = filter[name] as ListInput | null | undefined;
    if (!f?.values) continue;
    const op = (f.op ?? "and").toLowerCase();
    if (op === "nand") {
      nand[name] = f;
      continue;
    }
    options[spec.legacy] = joinList(f.values);
    if (op !== "and") options[`${spec.legacy}:op`] = op;
  }
  const bounds = (r: BoundsInput | null | undefined, [min, max]: readonly [string, string]) => {
    if (r?.min != null) options[min] = r.min;
    if (r?.max != null) options[max] = r.max;
  };
  for (const [name, spec] of Object.entries(t.ranges)) bounds(filter[name] as BoundsInput, spec.bounds);
  for (const [name, spec] of Object.entries(t.events ?? {})) {
    const e = filter[name] as BoundsInput | null | undefined;
    if (!e) continue;
    if (e[spec.subject] != null) options[spec.legacy] = e[spec.subject];
    bounds(e, [`${spec.legacy}:min`, `${spec.legacy}:max`]);
  }
  for (const [name, spec] of Object.entries(t.named ?? {}))
    if (filter[name] != null) options[spec.legacy] = filter[name];
  return { options, nand };
}

const TERMS_OF: Record<string, string> = {
  and: "aq",
  or: "bq.should.disjuncts",
  not: "bq.must_not.disjuncts",
};

/** GraphQL filter argument path (`filter.countryCode.values`) → the legacy option it came from. */
export function optionOfArgument(t: FilterTables, argument: string): string {
  const m = /^filter(?:\.(and|or|not)\[(\d+)\])?\.(\w+)(?:\.(\w+))?/.exec(argument);
  if (!m) return argument;
  const [, group, i, name, part] = m;
  // A REST filter's terms: aq's conditions are and's; or and not come only from bq.
  const where = group === undefined ? "" : ` (${TERMS_OF[group]}[${i}])`;
  const list = t.lists[name];
  if (list) return `${list.legacy}${part === "op" ? ":op" : ""}${where}`;
  const range = t.ranges[name];
  if (range) return `${part === "max" ? range.bounds[1] : range.bounds[0]}${where}`;
  const event = t.events?.[name];
  if (event) return `${event.legacy}${part === "min" || part === "max" ? `:${part}` : ""}${where}`;
  const named = t.named?.[name];
  if (named) return `${named.legacy}${where}`;
  return argument;
}

/** What an option name ends with: a list's `:op`, a range's or an event's bound. */
type Suffix = "" | "op" | "min" | "max";

/** A filter option as a client may think of it, for "did you mean". */
interface Known {
  option: string;
  suffix: Suffix;
  /** A range has no option without a bound: a name without one may mean either. */
  range: boolean;
  /** Its long name as an option: the filter's GraphQL name in snake_case (f:country_code:op). */
  long: string;
  /** The words of that name (country, code), and of its description's first phrase. */
  words: string[];
  described: string[];
}

/** A name's words, lower case, plurals as their singular (categories: category). */
function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "")
    .map((w) =>
      w.length > 4 && w.endsWith("ies")
        ? `${w.slice(0, -3)}y`
        : w.length > 3 && /[^s]s$/.test(w)
          ? w.slice(0, -1)
          : w,
    );
}

const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
const STOP = new Set(["and", "the", "for", "not", "since", "its", "with", "after", "before", "min", "max"]);
const describedBy = (description = "") =>
  wordsOf(description.split(/[,;:(]/)[0]).filter((w) => w.length > 2 && !STOP.has(w));

function knownOptions(t: FilterTables, valid: ReadonlySet<string>): Known[] {
  const known: Known[] = [];
  const add = (option: string, suffix: Suffix, range: boolean, name: string, description?: string) => {
    if (!valid.has(option)) return;
    const long = `f:${snake(name)}${suffix === "" ? "" : `:${suffix}`}`;
    known.push({ option, suffix, range, long, words: wordsOf(name), described: describedBy(description) });
  };
  for (const [name, s] of Object.entries(t.lists)) {
    add(s.legacy, "", false, name, s.description);
    add(`${s.legacy}:op`, "op", false, name, s.description);
  }
  for (const [name, s] of Object.entries(t.ranges)) {
    add(s.bounds[0], "min", true, name, s.description);
    add(s.bounds[1], "max", true, name, s.description);
  }
  for (const [name, s] of Object.entries(t.events ?? {})) {
    add(s.legacy, "", false, name, s.description);
    add(`${s.legacy}:min`, "min", false, name, s.description);
    add(`${s.legacy}:max`, "max", false, name, s.description);
  }
  for (const [name, s] of Object.entries(t.named ?? {})) add(s.legacy, "", false, name, s.description);
  return known;
}

/** An unknown name's words and the suffix it ends with (f:estimated_sales:min: estimated, sale; min). */
function partsOf(name: string): { words: string[]; suffix: Suffix } {
  const rest = name.startsWith("f:") ? name.slice(2) : name;
  const op = /:op$/i.exec(rest);
  if (op) return { words: wordsOf(rest.slice(0, op.index)), suffix: "op" };
  const bound = /[:_-]?(min|max)$/i.exec(rest);
  if (bound && bound.index > 0)
    return { words: wordsOf(rest.slice(0, bound.index)), suffix: bound[1].toLowerCase() as Suffix };
  return { words: wordsOf(rest), suffix: "" };
}

/** The words of `words` all appear in `among` (`prefix`: or begin one, or are begun by one, of 4 letters or more). */
function allAmong(words: readonly string[], among: readonly string[], prefix: boolean): boolean {
  const near = (w: string, c: string) =>
    w === c || (prefix && Math.min(w.length, c.length) >= 4 && (w.startsWith(c) || c.startsWith(w)));
  return words.length > 0 && words.every((w) => among.some((c) => near(w, c)));
}

/**
 * How other APIs page, and the options this one pages with (docs/api.md): a count per page is
 * page_size, and where to go on from is a cursor (or a page number, on the routes that page by
 * offset). No edit of `limit` or `offset` reaches either, so they are named here.
 */
const PAGING_ELSEWHERE = new Map<string, readonly string[]>([
  ["limit", ["page_size"]],
  ["per_page", ["page_size"]],
  ["offset", ["cursor", "page"]],
  ["skip", ["cursor", "page"]],
]);

/**
 * "Did you mean" for a route's unknown options: the options a client most likely meant by `name`,
 * best first, at most 5 (src/rest/options.ts puts them in the refusal). A filter's legacy name is
 * short (f:cc), so a client often writes what it filters on instead: each `f:` option is also
 * known by its filter's GraphQL name in snake_case, the legacy field's name (f:country_code, and
 * f:country_code:op, f:estimated_sales:min), and by the words of that name and of its description.
 *
 * - Every word of `name` is a word of a filter's name (f:country, f:countryCode, f:sales:min):
 *   those filters' options, and only those.
 * - Otherwise: the filters whose whole name is in it (f:city_name: f:city), then the valid names
 *   and long names near it, each near the other (graphql-js's suggestionList: a typo, f:ccc, f:status),
 *   then those with a word that begins, or is begun by, each word of it, in the filter's name or its
 *   description (f:shipping: f:stc, "Ships-to country").
 *
 * A name without a bound may mean either bound of a range (f:sales: f:ermin, f:ermax); with one, or
 * with `:op`, only options of that kind are suggested. Other APIs' paging options (limit, offset)
 * suggest this one's (page_size, cursor).
 */
export function optionSuggester(valid: readonly string[], t?: FilterTables): (name: string) => string[] {
  const known = t ? knownOptions(t, new Set(valid)) : [];
  // Names an input is compared with, to the option each stands for: a filter's without `f:`, which
  // every one shares (it would only widen what counts as near), the others as they are.
  const filters = new Map<string, string>();
  for (const v of valid) if (v.startsWith("f:")) filters.set(v.slice(2), v);
  for (const k of known) if (!filters.has(k.long.slice(2))) filters.set(k.long.slice(2), k.option);
  const others = new Map(valid.filter((v) => !v.startsWith("f:")).map((v) => [v, v]));
  return (name) => {
    const paging = (PAGING_ELSEWHERE.get(name.toLowerCase()) ?? []).filter((o) => valid.includes(o));
    if (paging.length) return [...paging];
    const { words, suffix } = partsOf(name);
    const fits = known.filter((k) => k.suffix === suffix || (suffix === "" && k.range));
    const named = fits.filter((k) => allAmong(words, k.words, false)).map((k) => k.option);
    if (named.length) return unique(named).slice(0, MAX_SUGGESTIONS);
    const filter = name.startsWith("f:");
    const [input, names] = filter ? [name.slice(2), filters] : [name, others];
    // A filter's near both ways: a short name (it, cc) is not near a longer input by its measure alone.
    const near = nearNames(input, [...names.keys()]).filter(
      (n) => !filter || nearNames(n, [input]).length > 0,
    );
    return unique([
      // The whole name of a filter is in it (f:city_name: f:city).
      ...fits.filter((k) => allAmong(k.words, words, false)).map((k) => k.option),
      ...near.map((n) => names.get(n) as string),
      ...fits.filter((k) => allAmong(words, [...k.words, ...k.described], true)).map((k) => k.option),
    ]).slice(0, MAX_SUGGESTIONS);
  };
}
