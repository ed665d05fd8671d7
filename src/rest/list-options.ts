import { apiError } from "../errors.ts";
import type { SortField } from "../query/sort.ts";
import { meant } from "../query/suggest.ts";
import {
  type FilterTables,
  type ListInput,
  optionSuggester,
  readFilter,
  writeFilter,
} from "./filter-options.ts";
import { joinList, Options } from "./options.ts";

/**
 * `sort`: comma-separated legacy sort names, `-` prefix for descending → GraphQL `orderBy`.
 *
 * @example parseSort("-er,name", DOMAIN_SORTS) // → [{field: "ESTIMATED_SALES", direction: "desc"}, {field: "NAME", direction: "asc"}]
 */
export function parseSort(value: string | undefined, sorts: Record<string, SortField>, key = "sort") {
  if (value === undefined || value.trim() === "") return undefined;
  const byLegacy = new Map<string, string>();
  for (const [field, s] of Object.entries(sorts)) for (const l of s.legacy) byLegacy.set(l, field);
  return value.split(",").map((raw) => {
    const item = raw.trim();
    const desc = item.startsWith("-");
    const name = desc ? item.slice(1) : item.startsWith("+") ? item.slice(1) : item;
    const field = byLegacy.get(name);
    if (!field) {
      throw apiError(
        "BAD_USER_INPUT",
        `${key}: cannot sort by "${name}"; valid: ${[...byLegacy.keys()].join(", ")}`,
      );
    }
    return { field, direction: desc ? "DESC" : "ASC" };
  });
}

const AQ_OPERATORS: Record<string, string> = { and: "and", or: "or", nand: "nand", nor: "not" };

/**
 * `aq` (docs/decisions.md): `[{ field, value, operator }]`, all combined with AND. `field` is a filter
 * option without `f:` (for ranges, a bound such as `ermin`), or `q`. Each condition becomes one
 * entry of DomainFilter.and.
 */
export function parseAq(raw: unknown, tables: FilterTables): { and: Record<string, unknown>[]; q: string[] } {
  if (!Array.isArray(raw))
    throw apiError("BAD_USER_INPUT", "aq: must be an array of {field, value, operator}");
  if (raw.length > 50) throw apiError("BAD_USER_INPUT", "aq: takes at most 50 conditions");
  const and: Record<string, unknown>[] = [];
  const q: string[] = [];
  raw.forEach((c, i) => {
    const at = `aq[${i}]`;
    if (typeof c !== "object" || c === null || Array.isArray(c)) {
      throw apiError("BAD_USER_INPUT", `${at}: must be an object {field, value, operator}`);
    }
    const { field, value, operator, ...rest } = c as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length)
      throw apiError("BAD_USER_INPUT", `${at}: unknown key "${extra[0]}"; keys: field, value, operator`);
    if (typeof field !== "string" || field === "")
      throw apiError("BAD_USER_INPUT", `${at}.field: must name a filter`);
    if (typeof value !== "string" && typeof value !== "number") {
      throw apiError("BAD_USER_INPUT", `${at}.value: must be a string of comma-separated values`);
    }
    const op = operator === undefined ? "and" : AQ_OPERATORS[String(operator).toLowerCase()];
    if (!op)
      throw apiError("BAD_USER_INPUT", `${at}.operator: must be and, or, nand or nor; got "${operator}"`);
    if (field === "q") {
      if (op !== "and") throw apiError("BAD_USER_INPUT", `${at}.operator: q takes only and`);
      q.push(String(value));
      return;
    }
    const option = `f:${field}`;
    const isList = Object.values(tables.lists).some((s) => s.legacy === option);
    const isBound = Object.values(tables.ranges).some((s) => s.bounds.includes(option));
    if (!isList && !isBound) {
      const valid = [
        ...Object.values(tables.lists).map((s) => s.legacy),
        ...Object.values(tables.ranges).flatMap((s) => s.bounds),
      ];
      // Suggested as the f: options they name, and named as aq names them (cc for f:cc).
      const suggested = optionSuggester(valid, { ...tables, events: undefined })(option).map((v) =>
        v.slice(2),
      );
      throw apiError(
        "BAD_USER_INPUT",
        `${at}.field: unknown filter "${field}"${meant(suggested)}; valid: q, ${valid.map((v) => v.slice(2)).join(", ")}`,
      );
    }
    if (isBound && op !== "and")
      throw apiError("BAD_USER_INPUT", `${at}.operator: a range bound takes only and`);
    const o = Options.fromBody(
      isList ? { [option]: String(value), [`${option}:op`]: op } : { [option]: value },
    );
    and.push(readFilter(o, { ...tables, events: undefined }, true));
  });
  return { and, q };
}

/** The aq operator of each list op (parseAq reads nor as not). */
const AQ_OPERATOR_OF = Object.fromEntries(Object.entries(AQ_OPERATORS).map(([aq, op]) => [op, aq]));

/**
 * The aq conditions parseAq reads `terms` (DomainFilter.and) from, its inverse: one for each list
 * of a term, and one for each bound of its ranges. An event filter or a list of the account, which
 * aq cannot hold and only GraphQL gives in `and`, is written as a condition naming its option, with
 * its bounds beside (`{field: "app_installed_at", value, min, max}`), which parseAq refuses.
 *
 * @example writeAq([{tags: {values: ["a", "b"], op: "NOT"}}, {rank: {min: 1, max: 5}}], DOMAIN_TABLES)
 * // → [{field: "tags", value: "a,b", operator: "nor"}, {field: "rankmin", value: 1, operator: "and"},
 * //    {field: "rankmax", value: 5, operator: "and"}]
 */
export function writeAq(
  terms: readonly Record<string, unknown>[],
  tables: FilterTables,
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const term of terms) {
    for (const [name, value] of Object.entries(term)) {
      if (value == null) continue;
      const list = tables.lists[name];
      const range = tables.ranges[name];
      if (list) {
        const f = value as ListInput;
        const operator = AQ_OPERATOR_OF[(f.op ?? "and").toLowerCase()];
        out.push({ field: list.legacy.slice(2), value: joinList(f.values ?? []), operator });
      } else if (range) {
        const r = value as { min?: unknown; max?: unknown };
        [r.min, r.max].forEach((v, i) => {
          if (v != null) out.push({ field: range.bounds[i].slice(2), value: v, operator: "and" });
        });
      } else {
        const [subject, ...bounds] = Object.entries(writeFilter({ [name]: value }, tables).options);
        if (!subject) continue;
        const beside = bounds.map(([option, v]) => [option.slice(option.lastIndexOf(":") + 1), v]);
        out.push({ field: subject[0].slice(2), value: subject[1], ...Object.fromEntries(beside) });
      }
    }
  }
  return out;
}
