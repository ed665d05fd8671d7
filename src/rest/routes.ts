import type { GraphQLObjectType } from "graphql";
import type { Endpoint } from "../auth/limits.ts";
import { APP_LIST_FILTERS, APP_RANGE_FILTERS } from "../query/app-filter.ts";
import { DOMAIN_EVENT_FILTERS, DOMAIN_LIST_FILTERS, DOMAIN_RANGE_FILTERS } from "../query/domain-filter.ts";
import { APP_SORTS, DOMAIN_SORTS, REVIEW_SORTS } from "../query/sort.ts";
import { schema } from "../schema/index.ts";
import { cachedDocument, connection, field, operation, selection } from "./document.ts";
import { RestError } from "./errors.ts";
import {
  legacyList,
  legacyWriter,
  parseFields,
  type Selection,
  type SharedTexts,
  selectionKey,
  toSelectionSet,
} from "./fields.ts";
import { type FilterTables, filterOptionNames, optionOfArgument, readFilter } from "./filter-options.ts";
import { parseAq, parseSort } from "./list-options.ts";
import type { Options } from "./options.ts";

/**
 * The legacy REST API (api.md section 4, decisions.md), one entry per endpoint: which options it
 * reads, and how they become a GraphQL operation and the result an envelope. src/rest/handler.ts
 * runs them; src/rest/openapi.ts documents them.
 */
export interface OptionDoc {
  name: string;
  type: "string" | "integer" | "boolean" | "array";
  description: string;
  /** For arrays: the JSON Schema of an item. */
  items?: Record<string, unknown>;
}

export interface Plan {
  /** Identifies the document: the same key always builds the same document. */
  key: string;
  document: () => ReturnType<typeof operation>;
  variables: Record<string, unknown>;
  /** The legacy envelope of a successful result, as JSON text. */
  envelope: (data: Record<string, unknown>, shared: SharedTexts) => string;
  /** GraphQL argument path → the legacy option it came from, for error messages. */
  option?: (argument: string) => string;
}

export interface Route {
  id: string;
  method: "GET" | "POST";
  /** OpenAPI path template relative to /json/api/v1/all. */
  path: string;
  summary: string;
  /** The rate limit of api.md section 8 that the route draws on. */
  endpoint: Endpoint;
  options: OptionDoc[];
  /** Where options come from: the query string, or a JSON body. */
  body: boolean;
  /** The envelope's keys, for the OpenAPI document. */
  returns: Record<string, string>;
  /** Absent for routes that src/rest/export.ts answers itself. */
  plan?(params: Record<string, string>, options: Options): Plan;
}

const type = (name: string) => schema.getType(name) as GraphQLObjectType;

export const DOMAIN_TABLES: FilterTables = {
  lists: DOMAIN_LIST_FILTERS,
  ranges: DOMAIN_RANGE_FILTERS,
  events: DOMAIN_EVENT_FILTERS,
};
export const APP_TABLES: FilterTables = { lists: APP_LIST_FILTERS, ranges: APP_RANGE_FILTERS };

const fieldsOption: OptionDoc = {
  name: "fields",
  type: "string",
  description:
    "Comma-separated fields to return, nested with a period (plans.name); * for the defaults; blank for the defaults.",
};
const pageOptions = (max: number): OptionDoc[] => [
  { name: "page", type: "integer", description: "Page number, from 0 (default 0)." },
  { name: "page_size", type: "integer", description: `Page size, 1 to ${max} (default 50).` },
];
const reviewSort: OptionDoc = {
  name: "sort",
  type: "string",
  description: "updated_at or -updated_at (default -updated_at, newest first).",
};

/** Reads `fields` for a type, turning a bad field into a 400 that names it. */
function readFields(
  o: Options,
  t: GraphQLObjectType,
  exclude: readonly string[] = [],
  single = false,
): { sel: Selection; key: string } {
  const spec = o.string("fields");
  const sel = parseFields(spec, t, { exclude, single });
  return { sel, key: selectionKey(sel) };
}

/** `page` and `page_size` → `first` and `offset`. */
function readPage(o: Options, max: number) {
  const size = o.int("page_size", { min: 1, max }) ?? 50;
  const page = o.int("page", { min: 0 }) ?? 0;
  if (page * size > 10_000) {
    throw new RestError(
      400,
      "BAD_USER_INPUT",
      `page: at most ${Math.floor(10_000 / size)} with page_size ${size} (results beyond the first 10,000 are not paged)`,
    );
  }
  return { first: size, offset: page * size };
}

function readReviewSort(o: Options) {
  const order = parseSort(o.string("sort"), REVIEW_SORTS);
  if (order && order.length > 1)
    throw new RestError(400, "BAD_USER_INPUT", "sort: takes one field, updated_at or -updated_at");
  return order?.[0] ?? null;
}

/** `<platform>.<token>` of the path. */
function appPath(params: Record<string, string>) {
  const dot = params.app.indexOf(".");
  if (dot <= 0 || dot === params.app.length - 1) {
    throw new RestError(
      404,
      "NOT_FOUND",
      `App "${params.app}" not found: the path names an App as <platform>.<token>`,
    );
  }
  return { platform: params.app.slice(0, dot), token: params.app.slice(dot + 1) };
}

const nodes = (conn: unknown) =>
  ((conn as { edges: { node: Record<string, unknown> }[] }).edges ?? []).map((e) => e.node);

const LIST_ARGS: Record<string, string> = {
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
/** A GraphQL argument path → the REST option (or path segment) it came from, for error messages. */
export const renameWith = (tables: FilterTables | null) => (argument: string) =>
  tables && argument.startsWith("filter")
    ? optionOfArgument(tables, argument)
    : (LIST_ARGS[argument.split(".")[0]] ?? argument);

function retrieveApp(): Route {
  return {
    id: "retrieveApp",
    method: "GET",
    path: "/app/{platform}.{token}",
    summary: "Retrieve an App",
    endpoint: "retrieveApp",
    body: false,
    options: [fieldsOption],
    returns: { app: "App" },
    plan(params, o) {
      const app = appPath(params);
      const { sel, key } = readFields(o, type("App"), [], true);
      return {
        key: `retrieveApp:${key}`,
        document: () =>
          operation(
            "RetrieveApp",
            { platform: "String!", token: "String!" },
            field("app", ["platform", "token"], toSelectionSet(sel)),
          ),
        variables: app,
        envelope: (d, shared) => `{"app":${legacyWriter(sel)(d.app as Record<string, unknown>, shared)}}`,
        option: renameWith(null),
      };
    },
  };
}

function reviewsOf(
  id: string,
  path: string,
  summary: string,
  parent: "app" | "domain",
  endpoint: Endpoint,
): Route {
  return {
    id,
    method: "GET",
    path,
    summary,
    endpoint,
    body: false,
    options: [fieldsOption, ...pageOptions(50), reviewSort],
    returns: { reviews: "AppReview[]" },
    plan(params, o) {
      // api.md 2.2: a review carries its `app` only in a Domain's review list.
      const { sel, key } = readFields(o, type("AppReview"), parent === "app" ? ["app"] : []);
      const { first, offset } = readPage(o, 50);
      const orderBy = readReviewSort(o);
      const connectionField = parent === "app" ? "reviews" : "appReviews";
      const parentArgs: Record<string, string> =
        parent === "app" ? { platform: "String!", token: "String!" } : { name: "String!" };
      return {
        key: `${id}:${key}`,
        document: () =>
          operation(
            `${id[0].toUpperCase()}${id.slice(1)}`,
            { ...parentArgs, first: "Int", offset: "Int", orderBy: "ReviewOrder" },
            field(
              parent,
              Object.keys(parentArgs),
              selection(
                field(connectionField, ["first", "offset", "orderBy"], connection(toSelectionSet(sel))),
              ),
            ),
          ),
        variables: {
          ...(parent === "app" ? appPath(params) : { name: params.name }),
          first,
          offset,
          orderBy,
        },
        envelope: (d, shared) =>
          `{"reviews":${legacyList(nodes((d[parent] as Record<string, unknown>)[connectionField]), sel, shared)}}`,
        option: renameWith(null),
      };
    },
  };
}

function listApps(method: "GET" | "POST"): Route {
  return {
    id: method === "GET" ? "listApps" : "searchApps",
    method,
    path: "/app",
    summary: method === "GET" ? "List Apps" : "List Apps (options as a JSON body)",
    endpoint: "listApps",
    body: method === "POST",
    options: [
      fieldsOption,
      ...pageOptions(50),
      {
        name: "sort",
        type: "string",
        description: `Comma-separated, - for descending: ${Object.values(APP_SORTS)
          .flatMap((s) => s.legacy)
          .join(", ")} (default -installs).`,
      },
      { name: "q", type: "string", description: "Words that must all occur in the name or description." },
      ...filterOptionNames(APP_TABLES).map((name) => ({
        name,
        type: "string" as const,
        description: filterDescription(APP_TABLES, name),
      })),
    ],
    returns: { apps: "App[]" },
    plan(_params, o) {
      const { sel, key } = readFields(o, type("App"));
      const { first, offset } = readPage(o, 50);
      const variables = {
        filter: readFilter(o, APP_TABLES),
        orderBy: parseSort(o.string("sort"), APP_SORTS),
        search: o.string("q"),
        first,
        offset,
      };
      return {
        key: `listApps:${key}`,
        document: () =>
          operation(
            "ListApps",
            { filter: "AppFilter", orderBy: "[AppOrder!]", search: "String", first: "Int", offset: "Int" },
            field(
              "apps",
              ["filter", "orderBy", "search", "first", "offset"],
              connection(toSelectionSet(sel)),
            ),
          ),
        variables,
        envelope: (d, shared) => `{"apps":${legacyList(nodes(d.apps), sel, shared)}}`,
        option: renameWith(APP_TABLES),
      };
    },
  };
}

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
  return option;
}

function retrieveDomain(): Route {
  return {
    id: "retrieveDomain",
    method: "GET",
    path: "/domain/{name}",
    summary: "Retrieve a Domain by name",
    endpoint: "retrieveDomain",
    body: false,
    options: [
      fieldsOption,
      {
        name: "follow_redirects",
        type: "boolean",
        description: "Return the Domain a Redirect Domain redirects to.",
      },
    ],
    returns: { domain: "Domain" },
    plan(params, o) {
      const { sel, key } = readFields(o, type("Domain"));
      return {
        key: `retrieveDomain:${key}`,
        document: () =>
          operation(
            "RetrieveDomain",
            { name: "String!", followRedirects: "Boolean" },
            field("domain", ["name", "followRedirects"], toSelectionSet(sel)),
          ),
        variables: { name: params.name, followRedirects: o.bool("follow_redirects") ?? false },
        envelope: (d, shared) =>
          `{"domain":${legacyWriter(sel)(d.domain as Record<string, unknown>, shared)}}`,
        option: renameWith(null),
      };
    },
  };
}

function bulkDomains(): Route {
  return {
    id: "bulkRetrieveDomains",
    method: "POST",
    path: "/domain/bulk",
    summary: "Bulk retrieve Domains (up to 100 names)",
    endpoint: "bulkRetrieveDomains",
    body: true,
    options: [
      {
        name: "domains",
        type: "array",
        description: "1 to 100 domain names (public DNS names or platform domains).",
        items: { type: "string" },
      },
      fieldsOption,
      { name: "follow_redirects", type: "boolean", description: "As in Retrieve a Domain." },
    ],
    returns: { domains: "Domain[]", not_found: "string[]" },
    plan(_params, o) {
      const names = o.raw("domains");
      if (
        !Array.isArray(names) ||
        names.length === 0 ||
        names.length > 100 ||
        names.some((n) => typeof n !== "string")
      ) {
        throw new RestError(
          400,
          "BAD_USER_INPUT",
          "domains: must be a list of 1 to 100 domain names (strings)",
        );
      }
      const { sel, key } = readFields(o, type("Domain"));
      type Found = { domains: Record<string, unknown>[]; notFound: string[] };
      return {
        key: `bulk:${key}`,
        document: () =>
          operation(
            "BulkRetrieveDomains",
            { names: "[String!]!", followRedirects: "Boolean" },
            field(
              "domainsByName",
              ["names", "followRedirects"],
              selection(field("domains", [], toSelectionSet(sel)), field("notFound")),
            ),
          ),
        variables: { names, followRedirects: o.bool("follow_redirects") ?? false },
        envelope: (d, shared) => {
          const r = d.domainsByName as Found;
          return `{"domains":${legacyList(r.domains, sel, shared)},"not_found":${JSON.stringify(r.notFound)}}`;
        },
        option: (a) => (a.startsWith("names") ? a.replace("names", "domains") : renameWith(null)(a)),
      };
    },
  };
}

const aqOption: OptionDoc = {
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

/** The options of List Domains, shared by the cursor=all jobs and Export Domains. */
export function domainListOptions(): OptionDoc[] {
  return [
    fieldsOption,
    { name: "page_size", type: "integer", description: "Page size, 1 to 1000 (default 50)." },
    {
      name: "cursor",
      type: "string",
      description: "next_cursor of the previous page; all for every result at once (202, then poll).",
    },
    { name: "for", type: "string", description: "With cursor=all: jsonl for JSON Lines." },
    aqOption,
    {
      name: "sort",
      type: "string",
      description: `Comma-separated, - for descending: ${Object.values(DOMAIN_SORTS)
        .flatMap((s) => s.legacy)
        .join(", ")} (default rank).`,
    },
    {
      name: "q",
      type: "string",
      description: "Words that must all occur in the name, title, description or merchant name.",
    },
    ...filterOptionNames(DOMAIN_TABLES).map((name) => ({
      name,
      type: "string" as const,
      description: filterDescription(DOMAIN_TABLES, name),
    })),
  ];
}

/** List Domains' options → the variables of `domains` (without paging). */
export function readDomainQuery(o: Options) {
  const filter = readFilter(o, DOMAIN_TABLES);
  let search = o.string("q");
  const aq = o.json("aq");
  if (aq !== undefined) {
    const parsed = parseAq(aq, DOMAIN_TABLES);
    if (parsed.and.length) filter.and = parsed.and;
    if (parsed.q.length) search = [search ?? "", ...parsed.q].join(" ").trim();
  }
  return { filter, orderBy: parseSort(o.string("sort"), DOMAIN_SORTS), search };
}

export const DOMAIN_LIST_DOCUMENT = (sel: Selection) =>
  operation(
    "ListDomains",
    { filter: "DomainFilter", orderBy: "[DomainOrder!]", search: "String", first: "Int", after: "String" },
    field("domains", ["filter", "orderBy", "search", "first", "after"], connection(toSelectionSet(sel))),
  );

/** List Domains' operation selecting only names (printed once): the export's pages. */
export const DOMAIN_NAMES_DOCUMENT = () =>
  cachedDocument("listDomains:names", () => DOMAIN_LIST_DOCUMENT(parseFields("name", type("Domain"))));

function listDomains(method: "GET" | "POST"): Route {
  return {
    id: method === "GET" ? "listDomains" : "searchDomains",
    method,
    path: "/domain",
    summary: method === "GET" ? "List Domains" : "List Domains (options as a JSON body)",
    endpoint: "listDomains",
    body: method === "POST",
    options: domainListOptions(),
    returns: { domains: "Domain[]", has_next_page: "boolean", next_cursor: "string" },
    plan(_params, o) {
      const { sel, key } = readFields(o, type("Domain"));
      const after = o.string("cursor");
      const format = o.string("for");
      if (format !== undefined && format !== "")
        throw new RestError(400, "BAD_USER_INPUT", "for: applies only with cursor=all");
      const variables = {
        ...readDomainQuery(o),
        first: o.int("page_size", { min: 1, max: 1000 }) ?? 50,
        after: after || null,
      };
      type Page = { pageInfo: { hasNextPage: boolean; endCursor: string | null } };
      const next = (d: Record<string, unknown>) => {
        const { hasNextPage, endCursor } = (d.domains as Page).pageInfo;
        return hasNextPage && endCursor ? endCursor : null;
      };
      return {
        key: `listDomains:${key}`,
        document: () => DOMAIN_LIST_DOCUMENT(sel),
        variables,
        envelope: (d, shared) => {
          const cursor = next(d);
          return `{"domains":${legacyList(nodes(d.domains), sel, shared)},"has_next_page":${(d.domains as Page).pageInfo.hasNextPage}${
            cursor ? `,"next_cursor":${JSON.stringify(cursor)}` : ""
          }}`;
        },
        option: renameWith(DOMAIN_TABLES),
      };
    },
  };
}

function exportDomains(): Route {
  return {
    id: "exportDomains",
    method: "GET",
    path: "/domain/export",
    summary: "Export Domains: every matching Domain as JSON Lines, streamed at once",
    endpoint: "exportDomains",
    body: false,
    options: domainListOptions().filter((o) => !["page_size", "cursor", "for"].includes(o.name)),
    returns: { "(one Domain per line)": "Domain" },
  };
}

/** cursor=all and Export Domains are answered by src/rest/export.ts. */
export const ROUTES: Route[] = [
  retrieveApp(),
  reviewsOf(
    "listAppReviews",
    "/app/{platform}.{token}/reviews",
    "List an App's reviews",
    "app",
    "listAppReviews",
  ),
  listApps("GET"),
  listApps("POST"),
  bulkDomains(),
  retrieveDomain(),
  reviewsOf(
    "listDomainAppReviews",
    "/domain/{name}/app_reviews",
    "List App reviews for a Domain",
    "domain",
    "listDomainAppReviews",
  ),
  listDomains("GET"),
  listDomains("POST"),
  exportDomains(),
];
