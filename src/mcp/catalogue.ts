import type { Endpoint } from "../auth/limits.ts";
import { VOCABULARY_KINDS, VOCABULARY_TEXT } from "../query/vocabularies.ts";
import type { Operation } from "../rest/route.ts";
import { OPERATIONS } from "../rest/routes.ts";

/**
 * The MCP tools (docs/mcp.md), as data: each stands for a REST operation, whose options are its
 * arguments (the same catalogue, src/rest/inputs.ts, that drives the REST filters, fields and
 * facets, read here: no option is listed a second time), plus the path's parts as arguments of
 * their own, the defaults an agent gets (a small page, a compact field set), and the caps of its
 * answer. A tool's answer is the REST answer to the same question (src/mcp/answer.ts); its input
 * and output schemas are made from this data in src/mcp/tool-schemas.ts.
 */
export interface ToolSpec {
  name: string;
  title: string;
  /** What it does, first in its description (the rest is generated: arguments, defaults, budget). */
  summary: string;
  /** The REST operation it stands for (its id in src/rest/routes.ts); none for usage and the vocabulary. */
  op?: string;
  /** Arguments that fill the operation's path: argument → path parameter, with its description. */
  path?: Record<string, { param: string; description: string; example: string }>;
  /** The operation's options not offered (the tool answers them itself, or they do not apply). */
  omit?: readonly string[];
  /** Options given when the call does not: the compact defaults. */
  defaults?: Record<string, string | number>;
  /** The largest page_size a call may ask for. */
  maxPage?: number;
  /** The answer's key holding its records, cut to fit MAX_ANSWER_BYTES. */
  records?: string;
  /** How the rest of a cut or paged answer is got. */
  paging?: "cursor" | "page";
  /** The budget it draws on (its REST endpoint's, or its own for usage and the vocabulary). */
  endpoint?: Endpoint | null;
  /** Does it change what the account keeps (lists, segments)? */
  writes?: true;
  /** Does it take away what the account keeps (remove_from_list, delete_list, delete_segment)? */
  destructive?: true;
  /**
   * How its List Domains filters (f:…) are told in the tool list: in full, once (search_domains:
   * src/mcp/filter-grammar.ts), or by reference to it. Either way they are not listed one by one.
   */
  filters?: "described" | "referred";
  /** Whose filters: List Domains' (the default) or List Apps'. */
  filtersOf?: FilterSubject;
}

/** The records whose filters (f:…) a tool takes. */
export type FilterSubject = "domains" | "apps";

/** The tool whose description tells the filters of `of`; the others refer to it. */
export const describerOf = (of: FilterSubject): ToolSpec => {
  const spec = TOOLS.find((t) => t.filters === "described" && (t.filtersOf ?? "domains") === of);
  if (!spec) throw new Error(`no tool describes the filters of ${of}`);
  return spec;
};

/** An answer's text is at most this many bytes: records past it are cut, and the answer says so. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** The compact fields a tool answers by default (named once, in the server's instructions). */
export const DOMAIN_FIELDS =
  "name,platform,plan,state,country_code,rank,estimated_sales,product_count,categories";
export const APP_FIELDS = "id,name,state,installs,average_rating,review_count,categories,vendor_name";
const REVIEW_FIELDS = "updated_at,rating,merchant_name,body";

const DOMAIN_ARG = { param: "name", description: "The Domain's name, e.g. shop.example.com.", example: "" };
const APP_ARG = {
  param: "app",
  description: "The App as <platform>.<token>, e.g. shopify.klaviyo (lookup_vocabulary finds it).",
  example: "",
};
const LIST_ARG = { param: "list", description: "The list's name.", example: "" };
const SEGMENT_ARG = { param: "segment", description: "The segment's name.", example: "" };

export const TOOLS: readonly ToolSpec[] = [
  {
    name: "search_domains",
    title: "Search Domains",
    filters: "described",
    summary:
      "Find online stores (Domains) by filters, aq and bq queries and q words; sorted by `sort`, paged by `cursor`.",
    op: "searchDomains",
    omit: ["for", "dry_run"],
    defaults: { page_size: 10, fields: DOMAIN_FIELDS },
    maxPage: 100,
    records: "domains",
    paging: "cursor",
  },
  {
    name: "get_domain",
    title: "Get a Domain",
    summary: "One online store (Domain) by name, with the fields asked for.",
    op: "retrieveDomain",
    path: { name: DOMAIN_ARG },
    defaults: { fields: DOMAIN_FIELDS },
  },
  {
    name: "get_domains",
    title: "Get Domains",
    summary: "Up to 100 Domains by name at once, and the names not found.",
    op: "bulkRetrieveDomains",
    defaults: { fields: DOMAIN_FIELDS },
    records: "domains",
  },
  {
    name: "domain_facets",
    title: "Facets of a segment",
    filters: "referred",
    summary:
      "How the Domains matching the filters spread: their count, the commonest values of each dimension (facets) and histograms of numbers.",
    op: "searchDomainFacets",
  },
  {
    name: "get_app",
    title: "Get an App",
    summary: "One App of an e-commerce platform's App store.",
    op: "retrieveApp",
    path: { app: APP_ARG },
    defaults: { fields: APP_FIELDS },
  },
  {
    name: "search_apps",
    title: "Search Apps",
    filters: "described",
    filtersOf: "apps",
    summary: "Find Apps of the platforms' App stores by List Apps' filters and q words.",
    op: "searchApps",
    defaults: { page_size: 10, fields: APP_FIELDS },
    maxPage: 50,
    records: "apps",
    paging: "page",
  },
  {
    name: "app_reviews",
    title: "An App's reviews",
    summary: "The reviews of an App, newest first unless sorted otherwise.",
    op: "listAppReviews",
    path: { app: APP_ARG },
    defaults: { page_size: 10, fields: REVIEW_FIELDS },
    maxPage: 50,
    records: "reviews",
    paging: "page",
  },
  {
    name: "domain_app_reviews",
    title: "A Domain's App reviews",
    summary: "The App reviews a Domain (its merchant) wrote.",
    op: "listDomainAppReviews",
    path: { name: DOMAIN_ARG },
    defaults: { page_size: 10 },
    maxPage: 50,
    records: "reviews",
    paging: "page",
  },
  {
    name: "changes",
    title: "The change feed",
    filters: "referred",
    summary:
      "What each weekly load changed (Domains added or removed, platform, plan, Apps, technologies, segments, …), in feed order after `cursor`.",
    op: "listChanges",
    defaults: { page_size: 20 },
    maxPage: 100,
    records: "changes",
    paging: "cursor",
  },
  {
    name: "snapshot_files",
    title: "Snapshot files (Parquet)",
    summary:
      "The kept snapshots' Parquet files (Domains, Apps, reviews) for a warehouse: rows, bytes, and the URL to GET each with the API key.",
    op: "listSnapshots",
    records: "snapshots",
    defaults: {
      fields: "version,loaded_at,domains,schema_version,files.name,files.url,files.rows,files.bytes",
    },
  },
  {
    name: "lists",
    title: "Show lists",
    summary: "The lists of Domains the API key's account keeps, with their counts.",
    op: "listLists",
    records: "lists",
  },
  {
    name: "list_domains",
    title: "A list's Domains",
    filters: "referred",
    summary: "The Domains of one of the account's lists.",
    op: "listListDomains",
    path: { list: LIST_ARG },
    defaults: { page_size: 10, fields: DOMAIN_FIELDS },
    maxPage: 100,
    records: "domains",
    paging: "cursor",
  },
  {
    name: "add_to_list",
    title: "Add Domains to a list",
    summary: "Adds Domains (by name) to a list of the account, made when it has none of that name.",
    op: "addDomainsToList",
    path: { list: LIST_ARG },
    writes: true,
  },
  {
    name: "remove_from_list",
    title: "Remove Domains from a list",
    summary: "Removes Domains (by name) from a list of the account.",
    op: "removeDomainsFromList",
    path: { list: LIST_ARG },
    writes: true,
    destructive: true,
  },
  {
    name: "delete_list",
    title: "Delete a list",
    summary: "Deletes a list of the account, with its Domains; answers it as it was.",
    op: "deleteList",
    path: { list: LIST_ARG },
    writes: true,
    destructive: true,
  },
  {
    name: "lookup_company",
    title: "Company to domain",
    summary:
      "Companies' Domains, 1 to 100 companies in one call, by their names as people write them (Allbirds, All Birds Inc.): matched against each Domain's merchant name, title and name, scored 0 to 1, best first for each company.",
    op: "bulkLookupDomains",
    defaults: { page_size: 5 },
    maxPage: 100,
    records: "lookups",
  },
  {
    name: "related_domains",
    title: "Related stores",
    summary:
      "The Domains one merchant likely runs beside this one: those sharing an email, phone, social profile, merchant name, cluster or redirect with it, each with the values shared, most shared first.",
    op: "relatedDomains",
    path: { name: DOMAIN_ARG },
    defaults: { page_size: 20 },
    maxPage: 1000,
  },
  {
    name: "similar_domains",
    title: "Lookalikes",
    filters: "referred",
    summary:
      "Stores like 1 to 1000 seed Domains (a customer list): scored by the rarest Apps, technologies and categories they share with the seeds, and platform, plan, country and size bands, each with why; the f.* filters narrow the candidates.",
    op: "similarDomains",
    defaults: { page_size: 10 },
    maxPage: 100,
    records: "similar",
    paging: "cursor",
  },
  {
    name: "domain_history",
    title: "A Domain's history",
    summary:
      "A Domain's changes at each load (platform, plan, Apps, technologies, …), newest first. The Domain as it was at a load: get_domain with as_of.",
    op: "domainHistory",
    path: { name: DOMAIN_ARG },
    defaults: { page_size: 20 },
    maxPage: 100,
    records: "changes",
    paging: "cursor",
  },
  {
    name: "domain_trends",
    title: "Trends of Domains",
    summary:
      "How many Domains had each value of a dimension at each load, oldest first: stores on BigCommerce over time is dimension p, values bigcommerce.",
    op: "domainTrends",
    records: "loads",
  },
  {
    name: "app_trends",
    title: "Trends of Apps",
    summary: "How many Apps had each value of a dimension at each load, oldest first.",
    op: "appTrends",
    records: "loads",
  },
  {
    name: "app_facets",
    title: "Facets of Apps",
    filters: "referred",
    filtersOf: "apps",
    summary:
      "How the Apps matching the filters spread: their count, the commonest values of each dimension, histograms.",
    op: "searchAppFacets",
  },
  {
    name: "segments",
    title: "Show segments",
    summary: "The segments (saved filters) of the account, with their sizes now.",
    op: "listSegments",
    records: "segments",
  },
  {
    name: "get_segment",
    title: "Get a segment",
    summary:
      "A segment: its filter, size, and at each load its size, entries, exits and spread. Its Domains: search_domains with f.segment; who entered or left: changes with segment.",
    op: "retrieveSegment",
    path: { segment: SEGMENT_ARG },
  },
  {
    name: "save_segment",
    title: "Save a segment",
    filters: "referred",
    summary:
      "Saves a named filter of Domains (made, or replaced): each later load counts it and records which Domains entered and left.",
    op: "saveSegment",
    path: { segment: SEGMENT_ARG },
    writes: true,
  },
  {
    name: "delete_segment",
    title: "Delete a segment",
    summary: "Deletes a segment of the account and its history (its events stay in the change feed).",
    op: "deleteSegment",
    path: { segment: SEGMENT_ARG },
    writes: true,
    destructive: true,
  },
  {
    name: "usage",
    title: "Usage",
    summary: "The API key's plan, what is left of each budget (drawing on none), and the month's exports.",
    endpoint: null,
  },
  {
    name: "export_segment",
    title: "Export a segment",
    filters: "referred",
    summary:
      "Every Domain matching the filters as a file: starts the job, or reports its progress when called again alike (at most every 5 s). Answers the file's URL (fetched with the API key), not the records.",
    op: "listDomains",
    omit: ["page_size", "cursor"],
  },
  {
    name: "lookup_vocabulary",
    title: "Look up a vocabulary",
    summary: `The exact values matching a free text in the vocabularies filters take (${VOCABULARY_KINDS.map((k) => `${k} for ${VOCABULARY_TEXT[k].filter}`).join(", ")}), scored 0 to 1, the best of all first: "klavio" finds the App shopify.klaviyo, "Deutschland" the country DE.`,
    endpoint: "retrieveDomain",
  },
];

export const operationOf = (spec: ToolSpec): Operation | null => {
  if (!spec.op) return null;
  const op = OPERATIONS.find((o) => o.id === spec.op);
  if (!op) throw new Error(`tool ${spec.name}: no REST operation ${spec.op}`);
  return op;
};

/** What an answer's records are called, by the key that holds them (ToolSpec.records). */
export const NOUNS: Record<string, string> = {
  domains: "Domains",
  apps: "Apps",
  reviews: "reviews",
  changes: "changes",
  lists: "lists",
  loads: "loads",
  segments: "segments",
  matches: "matches",
  lookups: "lookups",
  similar: "lookalikes",
};

/** The endpoint whose budget a tool's call draws on. */
export const endpointOf = (spec: ToolSpec): Endpoint | null =>
  spec.endpoint !== undefined
    ? spec.endpoint
    : spec.name === "export_segment"
      ? "listDomainsAll"
      : (operationOf(spec)?.route.endpoint ?? null);

/**
 * A REST option's argument name: `:` is written `.` (f.cc for f:cc, f.cc.op for f:cc:op), since
 * clients of several models take only letters, digits, `_`, `.` and `-` in a property's name.
 * Either spelling is read (optionName).
 */
export const argumentName = (option: string) => option.replaceAll(":", ".");
export const optionName = (argument: string) => argument.replaceAll(".", ":");

/** Made once per tool: a server is made per HTTP request, and its tools with it. */
export function memo<T>(make: (spec: ToolSpec) => T): (spec: ToolSpec) => T {
  const made = new Map<ToolSpec, T>();
  return (spec) => {
    let value = made.get(spec);
    if (value === undefined) {
      value = make(spec);
      made.set(spec, value);
    }
    return value;
  };
}
