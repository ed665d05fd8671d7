import { PLATFORM_IDS } from "../dataset/platforms.ts";
import { apiError, InputError } from "../errors.ts";
import { DOMAIN_LIST_FILTERS } from "../query/domain-filter.ts";
import { type ListSpec, listWhere, type RangeSpec, rangeWhere } from "../query/filter.ts";
import { isCalendarDay } from "../query/instant.ts";
import { MAX_SUGGESTIONS, meant, nearNames, unique } from "../query/suggest.ts";
import { type FilterTables, instantOf, optionSuggester } from "./filter-options.ts";

/** What a bq adds to List Domains' filter: DomainFilter terms per group, and search words. */
export interface Bq {
  and: Term[];
  or: Term[];
  not: Term[];
  /** Search words of `q` conditions (in `must` only). */
  q: string[];
}

/** A DomainCondition: one filter, as the GraphQL input takes it. */
type Term = Record<string, unknown>;
type Json = Record<string, unknown>;

/** Each clause: the key of its conditions, and the DomainFilter group they become. */
export const CLAUSES = {
  must: { list: "conjuncts", group: "and" },
  should: { list: "disjuncts", group: "or" },
  must_not: { list: "disjuncts", group: "not" },
} as const;

/** As many conditions as DomainFilter takes terms in one group. */
const MAX_BQ_CONDITIONS = 50;

const MATCH_KEYS = ["match", "term", "operator", "analyzer"] as const;
const RANGE_KEYS = ["min", "max", "inclusive_min", "inclusive_max"] as const;
const CONDITION_KEYS = ["field", ...MATCH_KEYS, ...RANGE_KEYS];
const NESTED_KEYS = ["conjuncts", "disjuncts", "must", "should", "must_not"];

const bad = (at: string, problem: string) => apiError("BAD_USER_INPUT", `${at}: ${problem}`);
const given = (v: unknown) => v !== undefined && v !== null;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** `raw` as an object of `keys` only, or a 400 at `at` naming the key it does not take. */
function objectAt(at: string, raw: unknown, keys: readonly string[], shape: string): Json {
  if (!isObject(raw)) throw bad(at, `must be an object ${shape}; got ${JSON.stringify(raw)}`);
  for (const k of Object.keys(raw)) {
    if (!keys.includes(k))
      throw bad(at, `unknown key "${k}"${meant(nearNames(k, keys))}; keys: ${keys.join(", ")}`);
  }
  return raw;
}

/** The option's documentation (an OptionDoc of src/rest/inputs.ts, which imports this module). */
export const BQ_OPTION = {
  name: "bq",
  type: "object" as const,
  description:
    'The dashboard\'s boolean query, JSON: {"must": {"conjuncts": [...]}, "should": {"disjuncts": [...]}, "must_not": {"disjuncts": [...]}}; must\'s conditions all match, at least one of should\'s, none of must_not\'s, beside the f: options and aq. A condition names a filter option without f: as field (cc, er): {field, match, operator} with match\'s values space-separated (... for a space inside one) and operator or (default) or and, {field, term} for one value, or {field, min, max, inclusive_min, inclusive_max} for a range (inclusive_min defaults to true, inclusive_max to false). A platform may be its numeric id (1 = shopify). q in must is a search. In must_not, {field: "list", term: <name>} (or segment) leaves out the Domains of one of the account\'s lists. In a query string, the same JSON URL-encoded.',
  schema: {
    type: "object",
    additionalProperties: false,
    properties: Object.fromEntries(
      Object.entries(CLAUSES).map(([clause, { list }]) => [
        clause,
        {
          type: "object",
          additionalProperties: false,
          required: [list],
          properties: {
            [list]: { type: "array", minItems: 1, maxItems: MAX_BQ_CONDITIONS, items: conditionSchema() },
            ...(list === "disjuncts" ? { min: { enum: [0, 1] } } : {}),
          },
        },
      ]),
    ),
  },
};

/** The JSON Schema of one condition. */
function conditionSchema() {
  const value = { type: ["string", "number"] };
  return {
    type: "object",
    required: ["field"],
    additionalProperties: false,
    properties: {
      field: { type: "string" },
      match: value,
      term: value,
      operator: { enum: ["or", "and"] },
      analyzer: { type: "string" },
      min: value,
      max: value,
      inclusive_min: { type: "boolean" },
      inclusive_max: { type: "boolean" },
    },
  };
}

/**
 * `bq`, the dashboard's boolean query (docs/decisions.md "List Domains"), read into the terms of
 * DomainFilter: each condition of `must.conjuncts` is a term of `and`, of `should.disjuncts` one of
 * `or` (at least one matches), of `must_not.disjuncts` one of `not` (none matches); `q` in `must`
 * joins the search. A condition names one filter by its option without `f:` (`cc`, `er`): `match`
 * holds its values, space-separated (`...` a space inside one), combined by `operator` (`or`, the
 * default, or `and`), `term` one value; or `min`/`max`, with `inclusive_min` (default true) and
 * `inclusive_max` (default false), a range. The platform may be its numeric id (PLATFORM_IDS: `1`
 * is shopify). Every refusal names the part it could not read: `bq.must.conjuncts[2].field: …`.
 *
 * @example parseBq({ must: { conjuncts: [{ field: "p", match: "1" }, { field: "er", min: 5, max: 9 }] } }, DOMAIN_TABLES)
 * // → { and: [{ platform: { values: ["shopify"], op: "OR" } }, { estimatedSales: { min: 5, max: 8 } }], or: [], not: [], q: [] }
 */
export function parseBq(raw: unknown, tables: FilterTables): Bq {
  const bq = objectAt("bq", raw, Object.keys(CLAUSES), "{must, should, must_not}");
  const out: Bq = { and: [], or: [], not: [], q: [] };
  if (!Object.values(bq).some(given)) throw bad("bq", "needs must, should or must_not");
  for (const [clause, { list, group }] of Object.entries(CLAUSES)) {
    if (!given(bq[clause])) continue;
    const at = `bq.${clause}`;
    const keys = list === "disjuncts" ? [list, "min"] : [list];
    const c = objectAt(at, bq[clause], keys, `{"${list}": [conditions]}`);
    // Bleve's disjunction carries a min (0 when left out): a filter has no optional conditions,
    // so 0 and 1 both mean at least one of them.
    if (given(c.min) && c.min !== 0 && c.min !== 1)
      throw bad(`${at}.min`, `only 0 or 1 (at least one condition) is read; got ${JSON.stringify(c.min)}`);
    const conditions = c[list];
    if (!Array.isArray(conditions) || conditions.length === 0)
      throw bad(`${at}.${list}`, "must be a list of at least one condition");
    if (conditions.length > MAX_BQ_CONDITIONS)
      throw bad(`${at}.${list}`, `takes at most ${MAX_BQ_CONDITIONS} conditions`);
    conditions.forEach((raw, i) => {
      const read = conditionOf(`${at}.${list}[${i}]`, raw, tables, group);
      if ("q" in read) out.q.push(read.q);
      else out[group].push(read.term);
    });
  }
  return out;
}

/**
 * `bq`'s terms joined to `filter` (read from the `f:` options and aq, all ANDed): must's after
 * `and`'s, should's as `or` and must_not's as `not`. Answers the words its `q` adds to the search.
 */
export function joinBq(filter: Record<string, unknown>, bq: Bq): string[] {
  const and = (filter.and ?? []) as Term[];
  if (and.length + bq.and.length > MAX_BQ_CONDITIONS)
    throw bad(
      "bq.must.conjuncts",
      `takes at most ${MAX_BQ_CONDITIONS} conditions together with aq's; got ${bq.and.length} and ${and.length}`,
    );
  if (bq.and.length) filter.and = [...and, ...bq.and];
  if (bq.or.length) filter.or = bq.or;
  if (bq.not.length) filter.not = bq.not;
  return bq.q;
}

/** One condition: a term of one filter, or (in `must`) search words. */
function conditionOf(
  at: string,
  raw: unknown,
  tables: FilterTables,
  group: "and" | "or" | "not",
): { term: Term } | { q: string } {
  const must = group === "and";
  if (isObject(raw) && NESTED_KEYS.some((k) => k in raw)) {
    throw bad(
      at,
      "a nested query is not read; a condition names one filter, {field, match} or {field, min, max} (several values of a filter go in one match, with operator or)",
    );
  }
  const c = objectAt(at, raw, CONDITION_KEYS, "{field, match} or {field, min, max}");
  if (typeof c.field !== "string" || c.field === "") throw bad(`${at}.field`, "must name a filter, e.g. cc");
  const field = c.field;
  // An event filter: an option of its own (a subject and its bounds), which no condition names.
  const own = Object.values(tables.events ?? {}).find((s) => s.legacy === `f:${field}`);
  if (own)
    throw bad(
      `${at}.field`,
      `"${field}" is an option of its own (${own.legacy}), which bq does not hold; ${validFields(tables)}`,
    );
  const ranged = RANGE_KEYS.some((k) => given(c[k]));
  const matched = MATCH_KEYS.some((k) => given(c[k]));
  if (ranged && matched) throw bad(at, "is a range (min, max) or a match (match, term), not both");
  if (!ranged && !matched) throw bad(at, "needs match or term (values), or min and/or max (a range)");
  // A list or segment of the account, by its one name, in must_not: the Domains not in it. In
  // must it is f:list's, and an or of lists has no REST spelling to read back (aq holds none).
  const named = Object.entries(tables.named ?? {}).find(([, s]) => s.legacy === `f:${field}`);
  if (named) {
    if (group !== "not")
      throw bad(
        `${at}.field`,
        `"${field}" is read only in must_not (the Domains not in it); to keep only its Domains give ${named[1].legacy}`,
      );
    return { term: namedTerm(at, c, field, named[0]) };
  }
  if (field === "q") {
    if (!must) throw bad(`${at}.field`, "q is a search, read only in must");
    if (ranged) throw bad(at, "q takes match or term, not min or max");
    if (given(c.operator) && String(c.operator).toLowerCase() !== "and")
      throw bad(`${at}.operator`, "q takes only and: every word must occur");
    return { q: listValues(at, c).values.join(" ") };
  }
  const list = Object.entries(tables.lists).find(([, s]) => s.legacy === `f:${field}`);
  const range = Object.entries(tables.ranges).find(([, s]) => s.legacy === `f:${field}`);
  if (!list && !range)
    throw bad(
      `${at}.field`,
      `unknown field "${field}"${meant(nearFields(field, tables))}; ${validFields(tables)}`,
    );
  if (ranged && !range) {
    // The ranges on what the filter names (cratyyyymm, createdMonth: crat, createdAt).
    const words = (name: string) => name.split(/(?=[A-Z])/).map((w) => w.toLowerCase());
    const own = words((list as [string, ListSpec])[0]);
    const near = meant(
      Object.entries(tables.ranges)
        .filter(([name]) => words(name).some((w) => own.includes(w)))
        .map(([, s]) => s.legacy.slice(2)),
    );
    throw bad(`${at}.field`, `"${field}" is no range: it takes match or term${near}; ${validFields(tables)}`);
  }
  if (matched && !list)
    throw bad(`${at}.field`, `"${field}" is a range: give min, max or both, not match or term`);
  return ranged
    ? { term: rangeTerm(at, c, ...(range as [string, RangeSpec])) }
    : { term: listTerm(at, c, ...(list as [string, ListSpec])) };
}

/** The names a condition's field may take, as a refusal lists them. */
function validFields(t: FilterTables): string {
  const names = (specs: { legacy: string }[]) => specs.map((s) => s.legacy.slice(2)).join(", ");
  const named = Object.values(t.named ?? {});
  return `filters: q, ${names(Object.values(t.lists))}; ranges: ${names(Object.values(t.ranges))}${named.length ? `; the account's: ${names(named)}` : ""}`;
}

/**
 * The fields a client most likely meant by an unknown one: the filters' own suggestions for
 * `f:<field>` (country: cc; sales: er, from its bounds f:ermin and f:ermax), then spelling.
 */
function nearFields(field: string, t: FilterTables): string[] {
  const rangeOf = new Map(
    Object.values(t.ranges).flatMap((s) => s.bounds.map((b) => [b, s.legacy] as const)),
  );
  const options = [...Object.values(t.lists).map((s) => s.legacy), ...rangeOf.keys()];
  const names = [...Object.values(t.lists), ...Object.values(t.ranges)].map((s) => s.legacy.slice(2));
  const suggested = optionSuggester(options, { lists: t.lists, ranges: t.ranges })(`f:${field}`);
  return unique([
    ...suggested.map((o) => (rangeOf.get(o) ?? o).slice(2)),
    ...nearNames(field, ["q", ...names]),
  ]).slice(0, MAX_SUGGESTIONS);
}

/** The values of a `match`: separated by spaces (any whitespace), `...` a space inside one. */
export function matchValues(text: string): string[] {
  return text
    .split(/\s+/)
    .filter((x) => x !== "")
    .map((x) => x.replaceAll("...", " "));
}

/** `match` (space-separated, `...` a space inside a value) or `term` (one value), and its key. */
function listValues(at: string, c: Json): { key: string; values: string[] } {
  if (given(c.match) && given(c.term)) throw bad(at, "takes match or term, not both");
  const key = given(c.term) ? "term" : "match";
  const v = c[key];
  if (typeof v !== "string" && typeof v !== "number")
    throw bad(
      `${at}.${key}`,
      `must be a string${key === "match" ? " of space-separated values" : ""}; got ${JSON.stringify(v)}`,
    );
  const text = String(v);
  const values = key === "term" ? [text] : matchValues(text);
  if (values.every((x) => x.trim() === "")) throw bad(`${at}.${key}`, "names no value");
  if (given(c.analyzer) && typeof c.analyzer !== "string") throw bad(`${at}.analyzer`, "must be a string");
  return { key, values };
}

/** A list or segment of the account as a term: `{field, term}`, its one name. */
function namedTerm(at: string, c: Json, field: string, name: string): Term {
  if (RANGE_KEYS.some((k) => given(c[k]))) throw bad(at, `"${field}" takes a name (term), not min or max`);
  if (given(c.operator)) throw bad(`${at}.operator`, `"${field}" takes one name: no operator`);
  const { key, values } = listValues(at, c);
  if (values.length !== 1) throw bad(`${at}.${key}`, `"${field}" takes one name; got ${values.length}`);
  return { [name]: values[0].trim() };
}

/** A list filter's term: its values (a platform's ids as names), checked as the filter checks them. */
function listTerm(at: string, c: Json, name: string, spec: ListSpec): Term {
  const { key, values } = listValues(at, c);
  const operator = given(c.operator) ? String(c.operator).toLowerCase() : "or";
  if (operator !== "or" && operator !== "and")
    throw bad(`${at}.operator`, `must be or or and; got ${JSON.stringify(c.operator)}`);
  const named =
    spec === DOMAIN_LIST_FILTERS.platform ? values.map((v) => platformOf(`${at}.${key}`, v)) : values;
  try {
    listWhere(spec, { values: named, op: operator }, `${at}.${key}`);
  } catch (e) {
    if (e instanceof InputError) throw bad(`${at}.${key}`, e.problem);
    throw e;
  }
  return { [name]: { values: named, op: operator.toUpperCase() } };
}

/** A platform named by its numeric id (PLATFORM_IDS), or the value itself. */
function platformOf(at: string, value: string): string {
  const v = value.trim();
  if (!/^\d+$/.test(v)) return value;
  const platform = PLATFORM_IDS.get(v.replace(/^0+(?=\d)/, ""));
  if (platform) return platform;
  const ids = [...PLATFORM_IDS].map(([id, p]) => `${id} (${p})`).join(", ");
  throw bad(at, `unknown platform id "${v}"; ids: ${ids}; any other platform by its name`);
}

/** A range filter's term: exclusive bounds made inclusive, so that it means what f:<x>min/max mean. */
function rangeTerm(at: string, c: Json, name: string, spec: RangeSpec): Term {
  for (const k of ["inclusive_min", "inclusive_max"] as const) {
    if (given(c[k]) && typeof c[k] !== "boolean")
      throw bad(`${at}.${k}`, `must be true or false; got ${JSON.stringify(c[k])}`);
  }
  if (!given(c.min) && !given(c.max)) throw bad(at, "needs min, max or both");
  // Bleve's defaults: the minimum in, the maximum out.
  const inclusive = { min: c.inclusive_min !== false, max: c.inclusive_max === true };
  const bound = spec.kind === "intRange" ? intBound : timeBound;
  const min = given(c.min) ? bound(`${at}.min`, c.min, inclusive.min, "min") : null;
  const max = given(c.max) ? bound(`${at}.max`, c.max, inclusive.max, "max") : null;
  const asChecked = (v: number | string | null) => (typeof v === "string" ? instantOf(at, v) : v);
  try {
    rangeWhere({ min: asChecked(min), max: asChecked(max) }, at);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const shown = (k: "min" | "max") =>
      `${k} ${JSON.stringify(c[k])} ${inclusive[k] ? "inclusive" : "exclusive"}`;
    throw bad(at, `no value is within it (${shown("min")}, ${shown("max")})`);
  }
  return { [name]: { min, max } };
}

/** An integer bound: the least (min) or greatest (max) integer within it. */
function intBound(at: string, v: unknown, inclusive: boolean, end: "min" | "max"): number {
  if (typeof v !== "number" || !Number.isFinite(v))
    throw bad(at, `must be a number; got ${JSON.stringify(v)}`);
  const n =
    end === "min"
      ? inclusive
        ? Math.ceil(v)
        : Math.floor(v) + 1
      : inclusive
        ? Math.floor(v)
        : Math.ceil(v) - 1;
  if (!Number.isSafeInteger(n)) throw bad(at, `must be within ±${Number.MAX_SAFE_INTEGER}; got ${v}`);
  return n === 0 ? 0 : n;
}

const DAY_MS = 86_400_000;

/**
 * A time bound as the filter takes it: an exclusive one moved by the least step its form has, a
 * day for a date (after 2024-03-01: from 2024-03-02; before it: up to the whole 2024-02-29), a
 * millisecond for a timestamp (times are kept to the millisecond).
 */
function timeBound(at: string, v: unknown, inclusive: boolean, end: "min" | "max"): string {
  if (typeof v !== "string")
    throw bad(at, `must be a date YYYY-MM-DD or an RFC 3339 timestamp; got ${JSON.stringify(v)}`);
  const d = instantOf(at, v);
  if (inclusive) return v.trim();
  const day = isCalendarDay(d);
  const moved = new Date(d.getTime() + (end === "min" ? 1 : -1) * (day ? DAY_MS : 1));
  const text = day ? moved.toISOString().slice(0, 10) : moved.toISOString();
  instantOf(at, text);
  return text;
}
