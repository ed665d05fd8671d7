import { type ListOp, OPPOSITE_OP } from "../query/filter.ts";
import { CLAUSES, matchValues } from "./bq.ts";
import { type FilterTables, type ListInput, writeFilter } from "./filter-options.ts";

/** A DomainCondition: one term of DomainFilter's `and`, `or` or `not`. */
type Term = Record<string, unknown>;
type Json = Record<string, unknown>;

/** The ops a bq condition's operator says (parseBq reads no other). */
const BQ_OPS: readonly ListOp[] = ["or", "and"];

/**
 * The `bq` parseBq reads DomainFilter's `or` and `not` terms from, its inverse (docs/decisions.md
 * "Webhooks"): each term of `or` a condition of `should.disjuncts`, each of `not` one of
 * `must_not.disjuncts`, named by its option without `f:` as parseBq reads it. A list's one value
 * is written as `term`, several as `match` (a space inside one as `...`), `operator` where not or
 * (bq's default); a range's bounds as `min` and `max` with `inclusive_max` (both inclusive, as
 * the filter's are). `and`'s terms are not written here: aq says them.
 *
 * What aq says exactly is answered in `and`, for the caller to write as aq: a `not` term of a
 * list of op not or nand, a double negation, as its opposite op (or, and: a Domain without a
 * value is kept by neither), and the one term of an `or` that bq cannot say (an or of one term is
 * that term). What neither can say is written as Bleve writes it, which parseBq refuses (a
 * webhook made so is made again through GraphQL): a list of op not or nand in `or` as a nested
 * `{must_not: {disjuncts: [...]}}`, a term of several filters as `{conjuncts: [...]}`, and an
 * event filter or a list of the account as a condition naming its option, bounds beside.
 *
 * @example writeBq({or: [{countryCode: {values: ["US"], op: "OR"}}], not: [{tags: {values: ["a"], op: "NOT"}}]}, DOMAIN_TABLES)
 * // → {bq: {should: {disjuncts: [{field: "cc", term: "US"}]}}, and: [{tags: {values: ["a"], op: "OR"}}]}
 */
export function writeBq(
  filter: { or?: readonly Term[] | null; not?: readonly Term[] | null },
  tables: FilterTables,
): { bq: Json | null; and: Term[] } {
  const bq: Json = {};
  const and: Term[] = [];
  for (const [clause, { list, group }] of Object.entries(CLAUSES)) {
    if (group === "and") continue;
    const terms = filter[group] ?? [];
    const conditions: Json[] = [];
    for (const term of terms) {
      const parts = partsOf(term);
      const [name, value] = parts[0] ?? [];
      const op = opOf(tables, name, value);
      if (group === "not" && parts.length === 1 && op && !BQ_OPS.includes(op))
        and.push({ [name as string]: { ...(value as ListInput), op: OPPOSITE_OP[op].toUpperCase() } });
      else if (group === "or" && terms.length === 1 && !sayable(tables, parts)) and.push(term);
      else conditions.push(parts.length === 1 ? conditionOf(tables, parts[0]) : nested(tables, parts));
    }
    if (conditions.length) bq[clause] = { [list]: conditions };
  }
  return { bq: Object.keys(bq).length ? bq : null, and };
}

/** A term's filters, those given. */
const partsOf = (term: Term) => Object.entries(term).filter(([, v]) => v != null);

/** The op of a list filter (lower case), or undefined for any other. */
function opOf(t: FilterTables, name: string | undefined, value: unknown): ListOp | undefined {
  if (name === undefined || !t.lists[name]) return undefined;
  return ((value as ListInput).op ?? "and").toLowerCase() as ListOp;
}

/** A term bq says as one condition: one list of op or or and, or one range. */
function sayable(t: FilterTables, parts: [string, unknown][]): boolean {
  if (parts.length !== 1) return false;
  const [name, value] = parts[0] as [string, unknown];
  const op = opOf(t, name, value);
  return op ? BQ_OPS.includes(op) : name in t.ranges;
}

/** Several filters in one term, all to match: Bleve's conjunction, which parseBq refuses. */
function nested(t: FilterTables, parts: [string, unknown][]): Json {
  return { conjuncts: parts.map((p) => conditionOf(t, p)) };
}

/** One filter as a condition (a list of op not or nand as Bleve negates it). */
function conditionOf(t: FilterTables, [name, value]: [string, unknown]): Json {
  const list = t.lists[name];
  if (list) {
    const f = value as ListInput;
    const op = opOf(t, name, value) as ListOp;
    const positive = BQ_OPS.includes(op) ? op : OPPOSITE_OP[op];
    const values = f.values ?? [];
    const condition = {
      field: list.legacy.slice(2),
      ...(values.length === 1 ? { term: values[0] } : { match: matchOf(values) }),
      ...(positive === "or" ? {} : { operator: positive }),
    };
    return positive === op ? condition : { must_not: { disjuncts: [condition] } };
  }
  const range = t.ranges[name];
  if (range) {
    const r = value as { min?: unknown; max?: unknown };
    return {
      field: range.legacy.slice(2),
      ...(r.min != null ? { min: r.min } : {}),
      ...(r.max != null ? { max: r.max, inclusive_max: true } : {}),
    };
  }
  // An event or a list of the account: its option's name and value, and its bounds beside.
  const [subject, ...bounds] = Object.entries(writeFilter({ [name]: value }, t).options);
  const beside = bounds.map(([option, v]) => [option.slice(option.lastIndexOf(":") + 1), v]);
  return { field: subject?.[0].slice(2) ?? name, term: subject?.[1], ...Object.fromEntries(beside) };
}

/**
 * Values as `match` holds them, separated by spaces, a space inside one as `...`; a value that
 * reads back otherwise (a tab in it, or dots beside a space) leaves them as a list, which
 * parseBq refuses rather than read other values.
 */
function matchOf(values: readonly string[]): string | readonly string[] {
  const text = values.map((v) => v.replaceAll(" ", "...")).join(" ");
  const read = matchValues(text);
  return read.length === values.length && read.every((v, i) => v === values[i]) ? text : values;
}
