import { VOCABULARY_KINDS, VOCABULARY_TEXT } from "../query/vocabularies.ts";
import {
  APP_FIELDS,
  argumentName,
  DOMAIN_FIELDS,
  type FilterSubject,
  formsOf,
  type ToolSpec,
} from "./tool-spec.ts";

const REVIEW_FIELDS = "updated_at,rating,merchant_name,body";

const DOMAIN_ARG = { param: "name", description: "The Domain's name, e.g. shop.example.com.", example: "" };
const APP_ARG = {
  param: "app",
  description: "The App as <platform>.<token>, e.g. shopify.klaviyo (lookup finds it).",
  example: "",
};
const LIST_ARG = { param: "list", description: "The list's name.", example: "" };
const SEGMENT_ARG = { param: "segment", description: "The segment's name.", example: "" };

/**
 * The MCP tools (docs/mcp.md), as data (what a ToolSpec says: src/mcp/tool-spec.ts): each stands
 * for a REST operation, or for several as its forms.
 */
export const TOOLS: readonly ToolSpec[] = [
  {
    name: "search_domains",
    title: "Search Domains",
    filters: "described",
    summary: "Find online stores (Domains) by filters, aq and bq queries and q words.",
    op: "searchDomains",
    omit: ["for", "dry_run"],
    defaults: { page_size: 10, fields: DOMAIN_FIELDS },
    maxPage: 100,
    records: "domains",
    paging: "cursor",
  },
  {
    name: "get_domain",
    title: "Get Domains",
    summary:
      "One online store (Domain) by name, with any of its fields, or as it was at a load (as_of); or up to 100 at once (domains), with those not found.",
    forms: {
      one: { op: "retrieveDomain", path: { name: DOMAIN_ARG } },
      many: { asks: "domains", op: "bulkRetrieveDomains", records: "domains" },
    },
    defaults: { fields: DOMAIN_FIELDS },
  },
  {
    name: "facets",
    title: "Facets",
    summary:
      "How the Domains (or Apps) matching the filters spread: their count, each dimension's commonest values, histograms of numbers.",
    choice: { argument: "of", description: "Default domains.", default: "domains" },
    forms: {
      domains: { op: "searchDomainFacets", filters: "referred" },
      apps: { op: "searchAppFacets", filters: "referred", filtersOf: "apps" },
    },
  },
  {
    name: "search_apps",
    title: "Search Apps",
    filters: "described",
    filtersOf: "apps",
    summary:
      "Find Apps of the platforms' App stores by filters and q words; or one App, with any of its fields (app).",
    forms: {
      search: {
        op: "searchApps",
        defaults: { page_size: 10, fields: APP_FIELDS },
        maxPage: 50,
        records: "apps",
        paging: "page",
      },
      one: { op: "retrieveApp", path: { app: APP_ARG }, filters: undefined },
    },
    defaults: { fields: APP_FIELDS },
  },
  {
    name: "reviews",
    title: "App reviews",
    summary:
      "The reviews of an App (app), or those a Domain's merchant wrote (name); newest first unless sorted otherwise.",
    forms: {
      app: {
        op: "listAppReviews",
        path: { app: APP_ARG },
        defaults: { page_size: 10, fields: REVIEW_FIELDS },
      },
      domain: {
        op: "listDomainAppReviews",
        path: { name: DOMAIN_ARG },
        defaults: { page_size: 10, fields: "updated_at,rating,body,app" },
      },
    },
    maxPage: 50,
    records: "reviews",
    paging: "page",
  },
  {
    name: "changes",
    title: "The change feed",
    summary:
      "What each weekly load changed, in feed order; with name, one Domain's changes, newest first (its state at a load: get_domain with as_of).",
    forms: {
      feed: { op: "listChanges", filters: "referred" },
      domain: { op: "domainHistory", path: { name: DOMAIN_ARG } },
    },
    defaults: { page_size: 20 },
    maxPage: 100,
    records: "changes",
    paging: "cursor",
  },
  {
    name: "snapshot_files",
    title: "Parquet files",
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
    summary:
      "The lists of Domains the API key's account keeps, with their counts. A list's Domains: search_domains with f.list.",
    op: "listLists",
    records: "lists",
  },
  {
    name: "edit_list",
    title: "Change a list",
    summary:
      "Adds Domains (by name) to a list of the account (made when it has none of that name), removes them, or deletes the list (answered as it was).",
    choice: { argument: "action", description: "" },
    forms: {
      add: { op: "addDomainsToList" },
      remove: { op: "removeDomainsFromList" },
      delete: { op: "deleteList" },
    },
    path: { list: LIST_ARG },
    writes: true,
    destructive: true,
  },
  {
    name: "similar_domains",
    title: "Lookalikes and related stores",
    summary:
      "With domains: stores like 1 to 1000 seed Domains (a customer list), scored by the rarest Apps, technologies and categories they share with them and by platform, plan, country and size, each with why. With name: the Domains its merchant likely also runs (sharing an email, phone, social profile, merchant name, cluster or redirect), most shared first.",
    forms: {
      lookalikes: {
        asks: "domains",
        op: "similarDomains",
        filters: "referred",
        defaults: { page_size: 10 },
        maxPage: 100,
        records: "similar",
        paging: "cursor",
      },
      related: {
        op: "relatedDomains",
        path: { name: DOMAIN_ARG },
        defaults: { page_size: 20 },
        maxPage: 1000,
      },
    },
  },
  {
    name: "trends",
    title: "Trends",
    summary:
      "How many Domains (or Apps) had each value of a dimension at each load, oldest first: stores on BigCommerce over time is dimension p, values bigcommerce.",
    choice: { argument: "of", description: "Default domains.", default: "domains" },
    forms: { domains: { op: "domainTrends" }, apps: { op: "appTrends" } },
    records: "loads",
  },
  {
    name: "segments",
    title: "Segments",
    summary:
      "The account's segments (saved filters) with their sizes, or one (segment): its filter, and at each load its size, entries, exits and spread. Its Domains: search_domains with f.segment; who entered or left: changes with segment.",
    forms: {
      all: { op: "listSegments", records: "segments" },
      one: { op: "retrieveSegment", path: { segment: SEGMENT_ARG } },
    },
  },
  {
    name: "edit_segment",
    title: "Change a segment",
    summary:
      "Saves a named filter of Domains (made, or replaced): each later load counts it and records which Domains entered and left; or deletes it and its history (its events stay in the change feed).",
    choice: { argument: "action", description: "" },
    forms: { save: { op: "saveSegment", filters: "referred" }, delete: { op: "deleteSegment" } },
    path: { segment: SEGMENT_ARG },
    writes: true,
    destructive: true,
  },
  {
    name: "usage",
    title: "Usage",
    answers: "usage",
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
    name: "lookup",
    title: "Look up names",
    summary: `Exact values for names as people write them, scored 0 to 1, best first. With text: the values of the vocabularies filters take (${VOCABULARY_KINDS.map((k) => `${k} for ${argumentName(VOCABULARY_TEXT[k].filter)}`).join(", ")}), best of all in best: "klavio" finds the App shopify.klaviyo, "Deutschland" the country DE. With companies: 1 to 100 companies' Domains (Allbirds, All Birds Inc.), matched against each Domain's merchant name, title and name.`,
    forms: {
      values: { asks: "text", answers: "vocabulary", endpoint: "retrieveDomain" },
      companies: {
        asks: "companies",
        op: "bulkLookupDomains",
        defaults: { page_size: 5 },
        maxPage: 100,
        records: "lookups",
      },
    },
  },
];

/** The tool whose description tells the filters of `of`; the others refer to it. */
export const describerOf = (of: FilterSubject): ToolSpec => {
  // The form of the tool that asks the operation whose filters it tells (search_apps' search).
  const spec = TOOLS.flatMap((t) => formsOf(t).map(([, form]) => form)).find(
    (f) => f.filters === "described" && (f.filtersOf ?? "domains") === of,
  );
  if (!spec) throw new Error(`no tool describes the filters of ${of}`);
  return spec;
};
