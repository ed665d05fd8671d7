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
  /** Does it change what the account keeps (lists)? */
  writes?: true;
  /**
   * How its List Domains filters (f:…) are told in the tool list: in full, once (search_domains:
   * src/mcp/filter-grammar.ts), or by reference to it. Either way they are not listed one by one.
   */
  filters?: "described" | "referred";
}

/** An answer's text is at most this many bytes: records past it are cut, and the answer says so. */
export const MAX_ANSWER_BYTES = 64 * 1024;

const DOMAIN_FIELDS = "name,platform,plan,state,country_code,rank,estimated_sales,product_count,categories";
const APP_FIELDS = "id,name,state,installs,average_rating,review_count,categories,vendor_name";
const REVIEW_FIELDS = "updated_at,rating,merchant_name,body";

const DOMAIN_ARG = { param: "name", description: "The Domain's name, e.g. shop.example.com.", example: "" };
const APP_ARG = {
  param: "app",
  description: "The App as <platform>.<token>, e.g. shopify.klaviyo (lookup_vocabulary finds it).",
  example: "",
};
const LIST_ARG = { param: "list", description: "The list's name.", example: "" };

export const TOOLS: readonly ToolSpec[] = [
  {
    name: "search_domains",
    title: "Search Domains",
    filters: "described",
    summary:
      "Find online stores (Domains) by List Domains' filters: platform (f.p), plan (f.plan), country (f.cc), category (f.cat), installed App (f.an), technology (f.tech), sales and traffic ranges (f.ermin, …), aq and bq queries, q words; sorted by `sort`; paged by `cursor`.",
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
      "How the Domains matching List Domains' filters spread: their count (total), the commonest values of each dimension asked for (facets: cc, p, plan, cat, tech, an, …) and histograms of numeric fields (histogram: er, rank, …).",
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
    summary: "Find Apps by List Apps' filters (platform f.p, category, vendor, installs, …) and q words.",
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
      "What each load of the dataset changed (Domains added or removed, platform and plan changes, Apps installed or uninstalled, …), in feed order after `cursor`: filter by `kinds`, `since` and List Domains' filters.",
    op: "listChanges",
    defaults: { page_size: 20 },
    maxPage: 100,
    records: "changes",
    paging: "cursor",
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
    summary: "The Domains of one of the account's lists, filtered and sorted as List Domains.",
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
  },
  {
    name: "usage",
    title: "Usage",
    summary:
      "The API key's plan, what is left of each budget (read without drawing on it), and the month's exports and cursor=all jobs.",
    endpoint: null,
  },
  {
    name: "export_segment",
    title: "Export a segment",
    filters: "referred",
    summary:
      "Starts the cursor=all job of every Domain matching List Domains' filters, or reports its progress when called again with the same arguments (at most once every 5 s): answers its status and the URL that fetches the whole result with the API key, never the records themselves.",
    op: "listDomains",
    omit: ["page_size", "cursor"],
  },
  {
    name: "lookup_vocabulary",
    title: "Look up a vocabulary",
    summary: `The values nearest to a free text in the vocabularies filters take, as the API's "did you mean" finds them: ${VOCABULARY_KINDS.map((k) => `${k} (${VOCABULARY_TEXT[k].what}, for ${VOCABULARY_TEXT[k].filter})`).join(", ")}. "klavio" finds the App shopify.klaviyo; "shopify plus" the plan Shopify Plus.`,
    endpoint: "retrieveDomain",
  },
];

export const operationOf = (spec: ToolSpec): Operation | null => {
  if (!spec.op) return null;
  const op = OPERATIONS.find((o) => o.id === spec.op);
  if (!op) throw new Error(`tool ${spec.name}: no REST operation ${spec.op}`);
  return op;
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
