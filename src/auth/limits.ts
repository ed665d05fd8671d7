import type { Plan } from "./keys.ts";

/**
 * Rate limits per plan, per API key and per endpoint: docs/api.md section 8, one row per endpoint.
 * `duration` is the window in seconds. A GraphQL field that serves an endpoint's data draws on
 * that endpoint's budget (src/schema: `rateLimited(endpoint)`), so REST and GraphQL share it.
 */
export const RATE_LIMITS = {
  retrieveApp: { title: "Retrieve an App", enterprise: 20, elite: 5, pro: 5, duration: 1 },
  listAppReviews: { title: "List App reviews", enterprise: 20, elite: 5, pro: 5, duration: 1 },
  listApps: { title: "List Apps", enterprise: 6, elite: 2, pro: 2, duration: 1 },
  retrieveDomain: { title: "Retrieve a Domain", enterprise: 20, elite: 5, pro: 5, duration: 1 },
  bulkRetrieveDomains: { title: "Bulk retrieve Domains", enterprise: 20, elite: 5, pro: 5, duration: 1 },
  listDomainAppReviews: {
    title: "List App reviews for a Domain",
    enterprise: 20,
    elite: 5,
    pro: 5,
    duration: 1,
  },
  listDomains: { title: "List Domains", enterprise: 6, elite: 2, pro: 2, duration: 1 },
  /** Starting a cursor=all job (polls draw on nothing: they have their own 5-second spacing). */
  listDomainsAll: { title: "List Domains with cursor=all", enterprise: 1, elite: 1, pro: 1, duration: 60 },
  /**
   * An Export Domains stream: the same limit as cursor=all but a budget of its own, so that using
   * one never refuses the other.
   */
  exportDomains: { title: "Export Domains", enterprise: 1, elite: 1, pro: 1, duration: 60 },
  /**
   * A snapshot's files (GET /snapshots, /snapshots/{version}/{file}): each request, a byte range
   * too, since a remote query of a Parquet file is many range reads (docs/parquet.md).
   */
  snapshotFiles: { title: "Snapshot files", enterprise: 20, elite: 10, pro: 10, duration: 1 },
  /** GraphQL only: `node` and `nodes`, which read any record by global ID (like a retrieve). */
  node: { title: "Nodes by global ID (GraphQL)", enterprise: 20, elite: 5, pro: 5, duration: 1 },
} as const;

export type Endpoint = keyof typeof RATE_LIMITS;

/** cursor=all: a job may be polled at most once per this many seconds (docs/decisions.md). */
export const POLL_INTERVAL_SECONDS = 5;

/**
 * The limiter behind an endpoint counts in units of its most generous plan (enterprise), and
 * a request of a smaller plan costs proportionally more units: with 20 units a second, a pro
 * request costs 4, so pro gets 5 a second. One limiter per endpoint then serves every plan,
 * which is what graphql-rate-limit-directive supports (one limit per directive).
 */
export function unitsPerRequest(endpoint: Endpoint, plan: Plan): number {
  const row = RATE_LIMITS[endpoint];
  return row.enterprise / row[plan];
}

/** The directive arguments of an endpoint: its limiter's size in units, and its window. */
export function directiveArgs(endpoint: Endpoint): { limit: number; duration: number } {
  const row = RATE_LIMITS[endpoint];
  return { limit: row.enterprise, duration: row.duration };
}

for (const [endpoint, row] of Object.entries(RATE_LIMITS)) {
  for (const plan of ["pro", "elite", "enterprise"] as const) {
    if (!Number.isInteger(row.enterprise / row[plan])) {
      throw new Error(`rate limit of ${endpoint}: ${plan}'s limit must divide enterprise's`);
    }
  }
}
