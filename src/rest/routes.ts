import type { GraphQLObjectType } from "graphql";
import { schema } from "../schema/index.ts";
import { CHANGE_PAGE, CHANGE_QUERY, changeOption, STREAM_OPTIONS } from "./change-inputs.ts";
import { facetInput } from "./facets.ts";
import { parseFields } from "./fields.ts";
import { AS_OF_OPTION, HISTORY_ROUTES, retrieveDomainAsOf } from "./history-routes.ts";
import {
  APP_MATCH,
  APP_PATH,
  APP_QUERY,
  APP_TABLES,
  CURSOR_PAGE,
  DOMAIN_MATCH,
  DOMAIN_NAMES,
  DOMAIN_PATH,
  DOMAIN_QUERY,
  DOMAIN_TABLES,
  EXPORT_FORMAT,
  followRedirects,
  LIST_DOMAINS,
  LIST_PAGE,
  LIST_PATH,
  offsetPage,
  REVIEW_SORT,
} from "./inputs.ts";
import { LOOKUP_ROUTES } from "./lookup-routes.ts";
import { documentOf, operationsOf, type Route } from "./route.ts";
import { SEGMENT_ROUTES } from "./segment-routes.ts";
import { SNAPSHOT_ROUTES } from "./snapshot-routes.ts";
import { WEBHOOK_ROUTES } from "./webhook-routes.ts";

/** Where the legacy REST API is served, and its OpenAPI document. */
export const REST_BASE = "/json/api/v1/all";
export const OPENAPI_PATH = "/json/api/v1/openapi.json";

const retrieveApp: Route = {
  methods: { GET: "retrieveApp" },
  path: "/app/{platform}.{token}",
  summary: "Retrieve an App",
  endpoint: "retrieveApp",
  type: "App",
  single: true,
  inputs: [APP_PATH],
  query: [["app", ["platform", "token"]]],
  envelope: { app: { record: "" } },
};

const listAppReviews: Route = {
  methods: { GET: "listAppReviews" },
  path: "/app/{platform}.{token}/reviews",
  summary: "List an App's reviews",
  endpoint: "listAppReviews",
  type: "AppReview",
  // docs/api.md 2.2: a review carries its `app` only in a Domain's review list.
  exclude: ["app"],
  inputs: [APP_PATH, offsetPage(50), REVIEW_SORT],
  query: [
    ["app", ["platform", "token"]],
    ["reviews", ["first", "offset", "orderBy"]],
  ],
  envelope: { reviews: { records: "", connection: true } },
};

const listApps: Route = {
  methods: { GET: "listApps", POST: "searchApps" },
  path: "/app",
  summary: "List Apps",
  endpoint: "listApps",
  type: "App",
  inputs: [offsetPage(50), APP_QUERY],
  query: [["apps", ["filter", "orderBy", "search", "first", "offset"]]],
  envelope: { apps: { records: "", connection: true } },
  filters: APP_TABLES,
};

const bulkRetrieveDomains: Route = {
  methods: { POST: "bulkRetrieveDomains" },
  path: "/domain/bulk",
  summary: "Bulk retrieve Domains (up to 100 names)",
  endpoint: "bulkRetrieveDomains",
  type: "Domain",
  inputs: [DOMAIN_NAMES, followRedirects("As in Retrieve a Domain.")],
  query: [["domainsByName", ["names", "followRedirects"]]],
  envelope: {
    domains: { records: "domains" },
    not_found: { value: "notFound", type: "string[]" },
  },
};

const retrieveDomain: Route = {
  methods: { GET: "retrieveDomain" },
  path: "/domain/{name}",
  summary: "Retrieve a Domain by name",
  endpoint: "retrieveDomain",
  type: "Domain",
  inputs: [DOMAIN_PATH, followRedirects("Return the Domain a Redirect Domain redirects to."), AS_OF_OPTION],
  query: [["domain", ["name", "followRedirects"]]],
  envelope: { domain: { record: "" } },
  // With as_of, the Domain as it was (docs/decisions.md, "History").
  variant: { option: "as_of", route: retrieveDomainAsOf },
};

const listDomainAppReviews: Route = {
  methods: { GET: "listDomainAppReviews" },
  path: "/domain/{name}/app_reviews",
  summary: "List App reviews for a Domain",
  endpoint: "listDomainAppReviews",
  type: "AppReview",
  inputs: [DOMAIN_PATH, offsetPage(50), REVIEW_SORT],
  query: [
    ["domain", ["name"]],
    ["appReviews", ["first", "offset", "orderBy"]],
  ],
  envelope: { reviews: { records: "", connection: true } },
};

export const listDomains: Route = {
  methods: { GET: "listDomains", POST: "searchDomains" },
  path: "/domain",
  summary: "List Domains",
  endpoint: "listDomains",
  type: "Domain",
  inputs: [CURSOR_PAGE, DOMAIN_QUERY],
  query: [["domains", ["filter", "orderBy", "search", "first", "after"]]],
  envelope: {
    domains: { records: "", connection: true },
    has_next_page: { value: "pageInfo.hasNextPage", type: "boolean" },
    next_cursor: { value: "pageInfo.endCursor", type: "string", when: "pageInfo.hasNextPage" },
  },
  filters: DOMAIN_TABLES,
  whole: { kind: "job", endpoint: "listDomainsAll" },
};

const exportDomains: Route = {
  methods: { GET: "exportDomains" },
  path: "/domain/export",
  summary: "Export Domains: every matching Domain as JSON Lines or CSV, streamed at once",
  endpoint: "exportDomains",
  type: "Domain",
  inputs: [DOMAIN_QUERY, EXPORT_FORMAT],
  envelope: {},
  filters: DOMAIN_TABLES,
  whole: { kind: "stream", endpoint: "exportDomains" },
};

/** Beyond the legacy paths (docs/decisions.md, "Facets"): how a list's matches spread (src/rest/facets.ts). */
const domainFacets: Route = {
  methods: { GET: "domainFacets", POST: "searchDomainFacets" },
  path: "/domain/facets",
  summary: "Facets of List Domains: how the matching Domains spread over values and ranges",
  endpoint: "listDomains",
  type: "Domain",
  inputs: [DOMAIN_MATCH, facetInput("domain")],
  query: [["domains", ["filter", "search", "first"]]],
  envelope: {},
  filters: DOMAIN_TABLES,
  facets: "domain",
};

const appFacets: Route = {
  methods: { GET: "appFacets", POST: "searchAppFacets" },
  path: "/app/facets",
  summary: "Facets of List Apps: how the matching Apps spread over values and ranges",
  endpoint: "listApps",
  type: "App",
  inputs: [APP_MATCH, facetInput("app")],
  query: [["apps", ["filter", "search", "first"]]],
  envelope: {},
  filters: APP_TABLES,
  facets: "app",
};

/** Beyond the legacy paths (docs/decisions.md, "Change feed"): what each load changed, in feed order. */
export const listChanges: Route = {
  methods: { GET: "listChanges" },
  path: "/changes",
  summary: "The change feed: what each load changed, in feed order, after a cursor that survives loads",
  endpoint: "listDomains",
  type: "Change",
  inputs: [CHANGE_PAGE, CHANGE_QUERY],
  query: [["changes", ["filter", "first", "after"]]],
  envelope: {
    changes: { records: "nodes" },
    has_next_page: { value: "pageInfo.hasNextPage", type: "boolean" },
    next_cursor: { value: "pageInfo.endCursor", type: "string" },
  },
  filters: DOMAIN_TABLES,
  option: changeOption,
};

const exportChanges: Route = {
  methods: { GET: "exportChanges" },
  path: "/changes/export",
  summary: "Export the change feed: every matching change after a cursor, as JSON Lines, streamed",
  endpoint: "listDomains",
  type: "Change",
  inputs: [CHANGE_QUERY, { ...CHANGE_PAGE, options: CHANGE_PAGE.options.filter((o) => o.name === "cursor") }],
  envelope: {},
  filters: DOMAIN_TABLES,
  whole: { kind: "stream", endpoint: "listDomains" },
  option: changeOption,
};

/**
 * Beyond the legacy paths (docs/decisions.md, "Lists"): the lists of the key's account. Adding
 * answers as a public client of the legacy API expects ({"list", "count_domains_added",
 * "unrecognized_domains"}); `fields` selects the list's own fields.
 */
/** The path's list is `list` in error messages; `domains` is the body's own. */
const listOption = (argument: string) =>
  argument === "name" ? "list" : argument === "domains" ? "domains" : undefined;

const listLists: Route = {
  methods: { GET: "listLists" },
  path: "/list",
  summary: "The lists of the API key's account, with their counts",
  endpoint: "listDomains",
  type: "DomainList",
  uncached: true,
  inputs: [],
  query: [["lists", []]],
  envelope: { lists: { records: "" } },
};

const listListDomains: Route = {
  methods: { GET: "listListDomains" },
  path: "/list/{list}",
  summary: "A list's Domains that the served snapshot has, paged by cursor",
  endpoint: "listDomains",
  type: "Domain",
  uncached: true,
  inputs: [LIST_PATH, LIST_PAGE, DOMAIN_QUERY],
  option: listOption,
  query: [["list", ["name", "filter", "orderBy", "search", "first", "after"]]],
  envelope: {
    domains: { records: "", connection: true },
    has_next_page: { value: "pageInfo.hasNextPage", type: "boolean" },
    next_cursor: { value: "pageInfo.endCursor", type: "string", when: "pageInfo.hasNextPage" },
  },
  filters: DOMAIN_TABLES,
};

const deleteList: Route = {
  methods: { DELETE: "deleteList" },
  path: "/list/{list}",
  summary: "Delete a list and its Domains; answers the list as it was",
  endpoint: "listDomains",
  type: "DomainList",
  single: true,
  mutation: true,
  inputs: [LIST_PATH],
  option: listOption,
  query: [["deleteList", ["name"]]],
  envelope: { list: { record: "" } },
};

const addToList: Route = {
  methods: { PUT: "addDomainsToList" },
  path: "/list/{list}/add-domains",
  summary: "Add Domains to a list, made when the account has none of that name",
  endpoint: "listDomains",
  type: "DomainList",
  single: true,
  mutation: true,
  inputs: [LIST_PATH, LIST_DOMAINS],
  option: listOption,
  query: [["addDomainsToList", ["name", "domains"]]],
  envelope: {
    list: { record: "list" },
    count_domains_added: { value: "countDomainsAdded", type: "integer" },
    unrecognized_domains: { value: "unrecognizedDomains", type: "string[]" },
  },
};

const removeFromList: Route = {
  methods: { POST: "removeDomainsFromList" },
  path: "/list/{list}/remove-domains",
  summary: "Remove Domains from a list",
  endpoint: "listDomains",
  type: "DomainList",
  single: true,
  mutation: true,
  inputs: [LIST_PATH, LIST_DOMAINS],
  option: listOption,
  query: [["removeDomainsFromList", ["name", "domains"]]],
  envelope: {
    list: { record: "list" },
    count_domains_removed: { value: "countDomainsRemoved", type: "integer" },
  },
};

const streamChanges: Route = {
  methods: { GET: "streamChanges" },
  path: "/changes/stream",
  summary:
    "The change feed, live: Server-Sent Events, each change as it is loaded, resumable by Last-Event-ID",
  endpoint: "listDomains",
  type: "Change",
  inputs: [CHANGE_QUERY, STREAM_OPTIONS],
  envelope: {},
  filters: DOMAIN_TABLES,
  whole: { kind: "stream", endpoint: "listDomains" },
  option: changeOption,
};

/** The legacy REST API (docs/api.md section 4), one entry per path, and the paths beyond it. */
export const ROUTES: readonly Route[] = [
  retrieveApp,
  listAppReviews,
  listApps,
  bulkRetrieveDomains,
  retrieveDomain,
  listDomainAppReviews,
  listDomains,
  exportDomains,
  domainFacets,
  appFacets,
  listChanges,
  exportChanges,
  streamChanges,
  listLists,
  listListDomains,
  deleteList,
  addToList,
  removeFromList,
  ...HISTORY_ROUTES,
  ...LOOKUP_ROUTES,
  ...SEGMENT_ROUTES,
  ...WEBHOOK_ROUTES,
  ...SNAPSHOT_ROUTES,
];

/** Each route once per method it answers. */
export const OPERATIONS = operationsOf(ROUTES);

/** List Domains' operation selecting only names: the pages of an export. */
export const DOMAIN_NAMES_SELECTION = parseFields("name", schema.getType("Domain") as GraphQLObjectType);
export const domainNamesDocument = () => documentOf(listDomains, DOMAIN_NAMES_SELECTION);
