import { planFacets } from "./facets.ts";
import type { Options } from "./options.ts";
import { type Plan, planOf, type Route } from "./route.ts";

/** What one request of a route executes: a facets route's (src/rest/facets.ts) or any other's. */
export function planRequest(route: Route, params: Record<string, string>, options: Options): Plan {
  return route.facets ? planFacets(route, route.facets, params, options) : planOf(route, params, options);
}
