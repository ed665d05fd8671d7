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
  /**
   * The request with what `setup`'s answer named in its path (a webhook's id): send it instead of
   * this one once the setup answered (`prepared`).
   */
  bind?: (answer: unknown) => Endpoint;
}

/**
 * Sends `ep`'s setup (and the setup's own) with `send`: `ep` with its path bound to what the setup
 * answered, to send next.
 */
export async function prepare(ep: Endpoint, send: (ep: Endpoint) => Promise<Response>): Promise<Endpoint> {
  if (!ep.setup) return ep;
  const made = await send(await prepare(ep.setup, send));
  if (!ep.bind) {
    await made.body?.cancel();
    return ep;
  }
  return ep.bind(await made.json().catch(() => null));
}

/** Sends `ep`'s setup, then `ep` bound to its answer; the answer of `ep`. */
export async function sendPrepared(
  ep: Endpoint,
  send: (ep: Endpoint) => Promise<Response>,
): Promise<Response> {
  return send(await prepare(ep, send));
}

/** Real values of the fixture (test/support/fixture.ts) for the path parameters of OPERATIONS. */
const PARAMS: Record<string, string> = {
  "{platform}.{token}": "shopify.klaviyo",
  "{name}": "shop.example.com",
  // A list of the request's key's account: its `setup` makes it first.
  "{list}": "prospects",
  // A segment of the request's key's account: its `setup` saves it first.
  "{segment}": "us-stores",
};
/**
 * Path parameters a setup makes (a webhook, a delivery of it): named by its answer, bound by
 * `sendPrepared`. A webhook's target refuses connections (tests allow loopback targets).
 */
const MADE: Record<
  string,
  { by: string; value: (answer: Record<string, Record<string, string>>) => string | undefined }
> = {
  "{delivery}": { by: "testWebhook", value: (a) => a?.delivery?.id },
  // The served snapshot's version, and one of its files.
  "{version}": {
    by: "listSnapshots",
    value: (a) => String((a?.snapshots as unknown as { version: number }[] | undefined)?.[0]?.version),
  },
  "{file}": { by: "listSnapshots", value: () => "apps.parquet" },
  "{webhook}": { by: "createWebhook", value: (a) => (a?.id as unknown as string) ?? a?.delivery?.webhook },
};
/** A query string some routes need to answer at all (by route id): a live stream that ends. */
const QUERIES: Record<string, string> = {
  streamChanges: "?max_seconds=1",
  domainTrends: "?dimension=tech",
  appTrends: "?dimension=p",
  lookupDomains: "?company=Example%20Shop",
};

/** A valid JSON body for every route that reads one (by route id). */
const BODIES: Record<string, unknown> = {
  searchApps: { fields: "name", q: "Klaviyo" },
  bulkRetrieveDomains: { domains: ["shop.example.com", "woo.example.org"] },
  bulkLookupDomains: { companies: ["Example Shop", "Example Goods"] },
  similarDomains: { domains: ["shop.example.com", "woo.example.org"], page_size: 5 },
  searchDomains: { fields: "name" },
  searchDomainFacets: { facets: "cc,p", "f:p": "shopify" },
  searchAppFacets: { facets: "p,pricing" },
  addDomainsToList: { domains: ["shop.example.com", "nowhere.example"] },
  removeDomainsFromList: { domains: ["woo.example.org"] },
  saveSegment: { "f:cc": "US" },
  createWebhook: { url: "http://127.0.0.1:9/hook", kinds: ["domain_added"] },
  testWebhook: {},
  retryWebhookDelivery: {},
};

/** A valid request of a REST route over the fixture. */
export function restEndpoint(route: Operation): Endpoint {
  let path = route.path;
  for (const [template, value] of Object.entries(PARAMS)) path = path.replace(template, value);
  const made = Object.entries(MADE).find(([template]) => path.includes(template));
  if (made) {
    const [, { by }] = made;
    const setup = OPERATIONS.find((op) => op.id === by) as Operation;
    const ep = restEndpoint({ ...route, path: path.replace(/\{(webhook|delivery|version|file)\}/g, "none") });
    const bind = (answer: unknown) => {
      let bound = path;
      for (const [template, m] of Object.entries(MADE))
        bound = bound.replace(template, m.value(answer as never) ?? "none");
      return { ...ep, path: `${REST_BASE}${bound}${QUERIES[route.id] ?? ""}` };
    };
    return {
      ...ep,
      name: `${route.method} ${REST_BASE}${route.path} (${route.id})`,
      setup: restEndpoint(setup),
      bind,
    };
  }
  if (path.includes("{")) throw new Error(`no fixture value for a parameter of ${route.path}`);
  if (route.body && !(route.id in BODIES)) throw new Error(`no body for route ${route.id}`);
  const needsList = route.path.startsWith("/list/") && route.method !== "PUT";
  const addToList = OPERATIONS.find((op) => op.id === "addDomainsToList");
  const needsSegment = route.path.startsWith("/segment/") && route.method !== "PUT";
  const saveSegment = OPERATIONS.find((op) => op.id === "saveSegment");
  return {
    ...(needsList && addToList ? { setup: restEndpoint(addToList) } : {}),
    ...(needsSegment && saveSegment ? { setup: restEndpoint(saveSegment) } : {}),
    name: `${route.method} ${REST_BASE}${route.path} (${route.id})`,
    method: route.method,
    path: `${REST_BASE}${path}${QUERIES[route.id] ?? ""}`,
    headers: route.body ? { "content-type": "application/json" } : {},
    ...(route.body ? { body: JSON.stringify(BODIES[route.id]) } : {}),
  };
}
