import type { ResultFormat } from "../db/export-jobs.ts";
import { checkListName, LIST_LIMITS } from "../db/lists.ts";
import { apiError } from "../errors.ts";
import { APP_LIST_FILTERS, APP_RANGE_FILTERS } from "../query/app-filter.ts";
import {
  DOMAIN_EVENT_FILTERS,
  DOMAIN_LIST_FILTERS,
  DOMAIN_NAMED_FILTERS,
  DOMAIN_RANGE_FILTERS,
} from "../query/domain-filter.ts";
import { MAX_OFFSET } from "../query/page.ts";
import { APP_SORTS, DOMAIN_SORTS, REVIEW_SORTS, type SortField } from "../query/sort.ts";
import { BQ_OPTION, joinBq, parseBq } from "./bq.ts";
import { DRY_RUN } from "./dry-run.ts";
import { type FilterTables, filterOptionNames, optionOfArgument, readFilter } from "./filter-options.ts";
import { parseAq, parseSort } from "./list-options.ts";
import type { Options } from "./options.ts";

/**
 * What a route reads from its request: the options it takes (documented in the OpenAPI document,
 * and the only ones it accepts), and the GraphQL variables (name → type) they become. A route's
 * inputs are listed in src/rest/routes.ts; the handler, the OpenAPI document and the checks of
 * unknown options are all derived from them.
 */
export interface OptionDoc {
  name: string;
  type: "string" | "integer" | "boolean" | "array" | "object";
  description: string;
  /** For arrays: the JSON Schema of an item. */
  items?: Record<string, unknown>;
  /** For objects: the JSON Schema of the value. */
  schema?: Record<string, unknown>;
  /** The only values it takes. */
  enum?: readonly string[];
}

export interface Input {
  /** It reads the path, not options: read before anything else (src/rest/route.ts). */
  fromPath?: true;
  options: OptionDoc[];
  /** GraphQL variable → its type. */
  variables: Record<string, string>;
  /** The variables' values; `params` are the path's. */
  read(options: Options, params: Record<string, string>): Record<string, unknown>;
}

export const DOMAIN_TABLES: FilterTables = {
  lists: DOMAIN_LIST_FILTERS,
  ranges: DOMAIN_RANGE_FILTERS,
  events: DOMAIN_EVENT_FILTERS,
  named: DOMAIN_NAMED_FILTERS,
};
export const APP_TABLES: FilterTables = { lists: APP_LIST_FILTERS, ranges: APP_RANGE_FILTERS };

export const FIELDS_OPTION: OptionDoc = {
  name: "fields",
  type: "string",
  description:
    "Comma-separated fields to return, nested with a period (plans.name); * for the defaults; blank for the defaults.",
};

/** `page` and `page_size` → `first` and `offset`. */
export function offsetPage(max: number): Input {
  return {
    options: [
      { name: "page", type: "integer", description: "Page number, from 0 (default 0)." },
      { name: "page_size", type: "integer", description: `Page size, 1 to ${max} (default 50).` },
    ],
    variables: { first: "Int", offset: "Int" },
    read(o) {
      const size = o.int("page_size", { min: 1, max }) ?? 50;
      const page = o.int("page", { min: 0 }) ?? 0;
      if (page * size > MAX_OFFSET) {
        throw apiError(
          "BAD_USER_INPUT",
          `page: at most ${Math.floor(MAX_OFFSET / size)} with page_size ${size} (results beyond the first 10,000 are not paged)`,
        );
      }
      return { first: size, offset: page * size };
    },
  };
}

/** The formats of a whole result (docs/api.md 4.7): a `cursor=all` job's, and Export Domains'. */
export const RESULT_FORMATS = {
  job: ["json", "jsonl", "csv"],
  stream: ["jsonl", "csv"],
} as const satisfies Record<string, readonly ResultFormat[]>;

/** `for` of a whole result: its format (the first of `kind`'s when blank), or a 400 naming them. */
export function readFormat(o: Options, kind: keyof typeof RESULT_FORMATS): ResultFormat {
  const allowed: readonly ResultFormat[] = RESULT_FORMATS[kind];
  const format = o.string("for");
  if (format === undefined || format === "") return allowed[0];
  if (!(allowed as readonly string[]).includes(format))
    throw apiError(
      "BAD_USER_INPUT",
      `for: must be ${allowed.slice(0, -1).join(", ")} or ${allowed[allowed.length - 1]}; got "${format}"`,
    );
  return format as ResultFormat;
}

/** Export Domains' `for` (checked by readFormat where the export starts: src/export/export.ts). */
export const EXPORT_FORMAT: Input = {
  options: [
    {
      name: "for",
      type: "string",
      description:
        "The format: jsonl (the default) for JSON Lines, or csv (a header record, then one per Domain; RFC 4180).",
      enum: RESULT_FORMATS.stream,
    },
    DRY_RUN("the export"),
  ],
  variables: {},
  read: () => ({}),
};

/**
 * `page_size`, `cursor` and `for` of List Domains → `first` and `after` (cursor=all: src/export/export.ts).
 */
export const CURSOR_PAGE: Input = {
  options: [
    { name: "page_size", type: "integer", description: "Page size, 1 to 1000 (default 50)." },
    {
      name: "cursor",
      type: "string",
      description: "next_cursor of the previous page; all for every result at once (202, then poll).",
    },
    {
      name: "for",
      type: "string",
      description:
        "With cursor=all, the result's format: json (the default), jsonl for JSON Lines, or csv (a header record, then one per Domain; RFC 4180).",
      enum: RESULT_FORMATS.job,
    },
    DRY_RUN("the cursor=all job (with cursor=all only)"),
  ],
  variables: { first: "Int", after: "String" },
  read(o) {
    for (const name of ["for", "dry_run"])
      if (o.string(name)) throw apiError("BAD_USER_INPUT", `${name}: applies only with cursor=all`);
    return { first: o.int("page_size", { min: 1, max: 1000 }) ?? 50, after: o.string("cursor") || null };
  },
};

export const REVIEW_SORT: Input = {
  options: [
    {
      name: "sort",
      type: "string",
      description: "updated_at or -updated_at (default -updated_at, newest first).",
    },
  ],
  variables: { orderBy: "ReviewOrder" },
  read(o) {
    const order = parseSort(o.string("sort"), REVIEW_SORTS);
    if (order && order.length > 1)
      throw apiError("BAD_USER_INPUT", "sort: takes one field, updated_at or -updated_at");
    return { orderBy: order?.[0] ?? null };
  },
};

const sortOption = (sorts: Record<string, SortField>, fallback: string): OptionDoc => ({
  name: "sort",
  type: "string",
  description: `Comma-separated, - for descending: ${Object.values(sorts)
    .flatMap((s) => s.legacy)
    .join(", ")} (default ${fallback}).`,
});

export const filterOptions = (tables: FilterTables): OptionDoc[] =>
  filterOptionNames(tables).map((name) => ({
    name,
    type: "string" as const,
    description: filterDescription(tables, name),
  }));

export function filterDescription(t: FilterTables, option: string): string {
  for (const s of Object.values(t.lists)) {
    if (option === s.legacy) return `${s.description}: comma-separated values (\\, for a literal comma).`;
    if (option === `${s.legacy}:op`) return `How the values of ${s.legacy} combine: and (default), or, not.`;
  }
  for (const s of Object.values(t.ranges)) {
    if (option === s.bounds[0]) return `${s.description}: at least (inclusive).`;
    if (option === s.bounds[1]) return `${s.description}: at most (inclusive).`;
  }
  for (const s of Object.values(t.events ?? {})) {
    if (option === s.legacy) return `The ${s.subject} of ${s.legacy}:min / :max (exactly one).`;
    if (option.startsWith(s.legacy))
      return `${option.endsWith("min") ? "From" : "Until"} this time (inclusive); blank for open.`;
  }
  for (const s of Object.values(t.named ?? {})) if (option === s.legacy) return `${s.description}.`;
  return option;
}

const APP_SEARCH: OptionDoc = {
  name: "q",
  type: "string",
  description: "Words that must all occur in the name or description.",
};

/** List Apps' `sort`, `q` and `f:` options → `orderBy`, `search` and `filter`. */
export const APP_QUERY: Input = {
  options: [sortOption(APP_SORTS, "-installs"), APP_SEARCH, ...filterOptions(APP_TABLES)],
  variables: { filter: "AppFilter", orderBy: "[AppOrder!]", search: "String" },
  read: (o) => ({
    filter: readFilter(o, APP_TABLES),
    orderBy: parseSort(o.string("sort"), APP_SORTS),
    search: o.string("q"),
  }),
};

/** List Apps' `q` and `f:` options without its sort (the facets of its matches): `search` and `filter`. */
export const APP_MATCH: Input = {
  options: [APP_SEARCH, ...filterOptions(APP_TABLES)],
  variables: { filter: "AppFilter", search: "String" },
  read: (o) => ({ filter: readFilter(o, APP_TABLES), search: o.string("q") }),
};

const AQ_OPTION: OptionDoc = {
  name: "aq",
  type: "array",
  description:
    "Advanced search, JSON: [{field, value, operator}], all combined with AND, beside the f: options. field: a filter option without f: (ermin for f:ermin), or q; value: comma-separated values (\\, for a literal comma); operator: and (default), or, nand, nor. In a query string, the same JSON URL-encoded.",
  items: {
    type: "object",
    required: ["field", "value"],
    additionalProperties: false,
    properties: {
      field: { type: "string" },
      value: { type: ["string", "number"] },
      operator: { enum: ["and", "or", "nand", "nor"] },
    },
  },
};

const DOMAIN_SEARCH: OptionDoc = {
  name: "q",
  type: "string",
  description: "Words that must all occur in the name, title, description or merchant name.",
};

/** List Domains' `aq`, `bq`, `q` and `f:` options → `filter` and `search`. */
function readDomainMatch(o: Options): { filter: Record<string, unknown>; search: string | undefined } {
  const filter = readFilter(o, DOMAIN_TABLES);
  const words: string[] = [];
  const aq = o.json("aq");
  if (aq !== undefined) {
    const parsed = parseAq(aq, DOMAIN_TABLES);
    if (parsed.and.length) filter.and = parsed.and;
    words.push(...parsed.q);
  }
  const bq = o.json("bq");
  if (bq !== undefined) words.push(...joinBq(filter, parseBq(bq, DOMAIN_TABLES)));
  const search = o.string("q");
  return { filter, search: words.length ? [search ?? "", ...words].join(" ").trim() : search };
}

/** List Domains' `aq`, `sort`, `q` and `f:` options → `filter`, `orderBy` and `search`. */
export const DOMAIN_QUERY: Input = {
  options: [
    AQ_OPTION,
    BQ_OPTION,
    sortOption(DOMAIN_SORTS, "rank"),
    DOMAIN_SEARCH,
    ...filterOptions(DOMAIN_TABLES),
  ],
  variables: { filter: "DomainFilter", orderBy: "[DomainOrder!]", search: "String" },
  read: (o) => ({ ...readDomainMatch(o), orderBy: parseSort(o.string("sort"), DOMAIN_SORTS) }),
};

/** List Domains' options without its sort (the facets of its matches): `filter` and `search`. */
export const DOMAIN_MATCH: Input = {
  options: [AQ_OPTION, BQ_OPTION, DOMAIN_SEARCH, ...filterOptions(DOMAIN_TABLES)],
  variables: { filter: "DomainFilter", search: "String" },
  read: readDomainMatch,
};

/** The App the path names as `<platform>.<token>`. */
export const APP_PATH: Input = {
  fromPath: true,
  options: [],
  variables: { platform: "String!", token: "String!" },
  read(_o, params) {
    const dot = params.app.indexOf(".");
    if (dot <= 0 || dot === params.app.length - 1) {
      throw apiError(
        "NOT_FOUND",
        `App "${params.app}" not found: the path names an App as <platform>.<token>`,
      );
    }
    return { platform: params.app.slice(0, dot), token: params.app.slice(dot + 1) };
  },
};

/** The Domain the path names. */
export const DOMAIN_PATH: Input = {
  fromPath: true,
  options: [],
  variables: { name: "String!" },
  read: (_o, params) => ({ name: params.name }),
};

export const followRedirects = (description: string): Input => ({
  options: [{ name: "follow_redirects", type: "boolean", description }],
  variables: { followRedirects: "Boolean" },
  read: (o) => ({ followRedirects: o.bool("follow_redirects") ?? false }),
});

/** Bulk Retrieve's `domains`: 1 to 100 names. */
export const DOMAIN_NAMES: Input = {
  options: [
    {
      name: "domains",
      type: "array",
      description: "1 to 100 domain names (public DNS names or platform domains).",
      items: { type: "string" },
    },
  ],
  variables: { names: "[String!]!" },
  read: (o) => ({ names: domainNames(o, 100) }),
};

/** A body's `domains`: 1 to `most` strings, or a 400 that says so. */
export function domainNames(o: Options, most: number): string[] {
  const names = o.raw("domains");
  if (
    !Array.isArray(names) ||
    names.length === 0 ||
    names.length > most ||
    names.some((n) => typeof n !== "string")
  )
    throw apiError("BAD_USER_INPUT", `domains: must be a list of 1 to ${most} domain names (strings)`);
  return names;
}

/** GraphQL arguments → the REST option (or path part) they come from, for error messages. */
const ARGUMENT_OPTIONS: Record<string, string> = {
  first: "page_size",
  after: "cursor",
  offset: "page",
  search: "q",
  orderBy: "sort",
  names: "domains",
  name: "domain name",
  token: "App",
  platform: "App",
};

/**
 * A GraphQL argument path → the REST option (or path segment) it came from: a filter's through
 * its table, an item of `names` as the same item of `domains`.
 */
export function optionOf(tables: FilterTables | null, argument: string): string {
  if (tables && argument.startsWith("filter")) return optionOfArgument(tables, argument);
  if (argument.startsWith("names")) return argument.replace("names", "domains");
  return ARGUMENT_OPTIONS[argument.split(".")[0]] ?? argument;
}

/** The account's list the path names (`/list/{list}`). */
export const LIST_PATH: Input = {
  fromPath: true,
  options: [],
  variables: { name: "String!" },
  read(_o, params) {
    // The path is checked first, as every route's (planOf).
    try {
      return { name: checkListName(params.list) };
    } catch (e) {
      throw apiError("BAD_USER_INPUT", `list: ${(e as Error).message}`);
    }
  },
};

/** The names to add to a list or remove from it: a JSON body's `domains`. */
export const LIST_DOMAINS: Input = {
  options: [
    {
      name: "domains",
      type: "array",
      description: `1 to ${LIST_LIMITS.perRequest} domain names. Names the served snapshot does not have are reported back, never stored.`,
      items: { type: "string" },
    },
  ],
  variables: { domains: "[String!]!" },
  read: (o) => ({ domains: domainNames(o, LIST_LIMITS.perRequest) }),
};

/** A list's page: page_size and cursor (a list is read whole by paging it). */
export const LIST_PAGE: Input = {
  options: CURSOR_PAGE.options.filter((o) => o.name === "page_size" || o.name === "cursor"),
  variables: CURSOR_PAGE.variables,
  read(o) {
    if (o.string("cursor") === "all")
      throw apiError("BAD_USER_INPUT", "cursor: all is not served for a list; page it with next_cursor");
    return CURSOR_PAGE.read(o, {});
  },
};
