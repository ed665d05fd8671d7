import type { Method, Operation } from "../../src/rest/route.ts";
import { OPERATIONS, REST_BASE } from "../../src/rest/routes.ts";

/** A request as the tests send it. */
export interface Endpoint {
  name: string;
  method: Method;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * A request to send first, with the same key, for a route that needs what it makes: a list's
   * routes need the list (PUT add-domains makes it, of the key's account).
   */
  setup?: Endpoint;
}

/** Real values of the fixture (test/support/fixture.ts) for the path parameters of OPERATIONS. */
const PARAMS: Record<string, string> = {
  "{platform}.{token}": "shopify.klaviyo",
  "{name}": "shop.example.com",
  // A list of the request's key's account: its `setup` makes it first.
  "{list}": "prospects",
};
/** A query string some routes need to answer at all (by route id): a live stream that ends. */
const QUERIES: Record<string, string> = { streamChanges: "?max_seconds=1" };

/** A valid JSON body for every route that reads one (by route id). */
const BODIES: Record<string, unknown> = {
  searchApps: { fields: "name", q: "Klaviyo" },
  bulkRetrieveDomains: { domains: ["shop.example.com", "woo.example.org"] },
  searchDomains: { fields: "name" },
  searchDomainFacets: { facets: "cc,p", "f:p": "shopify" },
  searchAppFacets: { facets: "p,pricing" },
  addDomainsToList: { domains: ["shop.example.com", "nowhere.example"] },
  removeDomainsFromList: { domains: ["woo.example.org"] },
};

/** A valid request of a REST route over the fixture. */
export function restEndpoint(route: Operation): Endpoint {
  let path = route.path;
  for (const [template, value] of Object.entries(PARAMS)) path = path.replace(template, value);
  if (path.includes("{")) throw new Error(`no fixture value for a parameter of ${route.path}`);
  if (route.body && !(route.id in BODIES)) throw new Error(`no body for route ${route.id}`);
  const needsList = route.path.startsWith("/list/") && route.method !== "PUT";
  const addToList = OPERATIONS.find((op) => op.id === "addDomainsToList");
  return {
    ...(needsList && addToList ? { setup: restEndpoint(addToList) } : {}),
    name: `${route.method} ${REST_BASE}${route.path} (${route.id})`,
    method: route.method,
    path: `${REST_BASE}${path}${QUERIES[route.id] ?? ""}`,
    headers: route.body ? { "content-type": "application/json" } : {},
    ...(route.body ? { body: JSON.stringify(BODIES[route.id]) } : {}),
  };
}
