import { type Endpoint, RATE_LIMITS } from "./limits.ts";

/**
 * The rate-limit fields of an answer: what a budget reports (Budget), written as the X-RateLimit-*
 * fields, the IETF draft's RateLimit-Policy and RateLimit, and Retry-After, and carried from one
 * answer to another (rateHeadersIn).
 */

/** What a response reports: the budget it drew on that has the least left. */
export interface Budget {
  endpoint: Endpoint;
  limit: number;
  remaining: number;
  resetMs: number;
}

/** The rate-limit fields of a response: the X-RateLimit-* ones and the IETF ones (standardHeaders). */
export const RATE_HEADER_NAMES = [
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "ratelimit-policy",
  "ratelimit",
] as const;

/**
 * X-RateLimit-* of `b` (X-RateLimit-Reset in seconds from now, like Retry-After), the IETF fields
 * of every budget in `all` (standardHeaders), and Retry-After.
 */
export function budgetHeaders(
  b: Budget | null,
  retryAfter: number | null = null,
  all: readonly Budget[] = b ? [b] : [],
): Record<string, string> {
  if (!b) return {};
  return {
    "x-ratelimit-limit": String(b.limit),
    "x-ratelimit-remaining": String(b.remaining),
    "x-ratelimit-reset": String(Math.ceil(b.resetMs / 1000)),
    ...standardHeaders(all),
    ...(retryAfter !== null ? { "retry-after": String(retryAfter) } : {}),
  };
}

/**
 * RateLimit-Policy and RateLimit as draft-ietf-httpapi-ratelimit-headers (-08 to -10) writes them:
 * Structured Field Lists with one item per budget, the item a String naming its endpoint (the
 * `endpoint` of a 429's body), `q` the plan's requests per window and `w` the window in seconds,
 * `r` the requests left and `t` the seconds until the window resets (X-RateLimit-Reset's number).
 * @example
 * standardHeaders([{ endpoint: "listDomains", limit: 2, remaining: 1, resetMs: 800 }])
 * // { "ratelimit-policy": '"listDomains";q=2;w=1', ratelimit: '"listDomains";r=1;t=1' }
 */
export function standardHeaders(budgets: readonly Budget[]): Record<string, string> {
  if (!budgets.length) return {};
  return {
    "ratelimit-policy": budgets
      .map((b) => `"${b.endpoint}";q=${b.limit};w=${RATE_LIMITS[b.endpoint].duration}`)
      .join(", "),
    ratelimit: budgets
      .map((b) => `"${b.endpoint}";r=${b.remaining};t=${Math.ceil(b.resetMs / 1000)}`)
      .join(", "),
  };
}

/** The rate-limit fields `headers` carries (RATE_HEADER_NAMES), to be carried on by another answer. */
export function rateHeadersIn(headers: Headers): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of RATE_HEADER_NAMES) {
    const value = headers.get(name);
    if (value !== null) found[name] = value;
  }
  return found;
}
