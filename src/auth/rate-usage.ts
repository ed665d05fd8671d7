import type { GraphQLError, GraphQLResolveInfo } from "graphql";
import type { RateLimiterRes } from "rate-limiter-flexible";
import { apiError } from "../errors.ts";
import type { ApiKey } from "./keys.ts";
import { type Endpoint, RATE_LIMITS, unitsPerRequest } from "./limits.ts";
import { type Budget, budgetHeaders } from "./rate-headers.ts";

/**
 * One request's use of the rate-limit budgets (src/auth/rate-limit.ts keeps the budgets): how it
 * draws on them (Charge), the place of the operation each field's resolution charges, the
 * verdict the other items of a list share, and the RATE_LIMITED error of a spent budget.
 *
 * Which budget a request draws on:
 * - a GraphQL request: each field marked `@rateLimit` that it selects draws once on that field's
 *   endpoint (once per place in the operation, not once per list item: `domains { edges { node {
 *   appReviews } } }` is one List Domains and one List App reviews for a Domain);
 * - a REST request: its route's endpoint, once, drawn by the root field of its operation (so an
 *   unknown App or Domain costs like a found one), and nothing else;
 * - the inner pages of cursor=all and Export Domains: nothing (the start was drawn on already).
 */

/** How a request draws on budgets. */
export type Charge = { kind: "fields" } | { kind: "route"; endpoint: Endpoint } | { kind: "none" };

const RETRY_AFTER_MIN_S = 1;
export const seconds = (ms: number) => Math.max(RETRY_AFTER_MIN_S, Math.ceil(ms / 1000));

/** One request's use of the budgets; read by the response to write the X-RateLimit headers. */
export class RateUsage {
  readonly budgets = new Map<Endpoint, Budget>();
  /**
   * Places in the operation already charged, with the verdict of that charge: the other items of
   * a list wait for it and share it.
   */
  readonly charged = new Map<string, Verdict>();
  /** Set when a budget was exhausted: the seconds to wait. */
  retryAfter: number | null = null;

  constructor(
    readonly key: ApiKey | null,
    readonly charge: Charge,
  ) {}

  record(endpoint: Endpoint, res: RateLimiterRes): Budget | null {
    if (!this.key) return null;
    const units = unitsPerRequest(endpoint, this.key.plan);
    const budget: Budget = {
      endpoint,
      limit: RATE_LIMITS[endpoint][this.key.plan],
      remaining: Math.max(0, Math.floor(res.remainingPoints / units)),
      resetMs: res.msBeforeNext,
    };
    this.budgets.set(endpoint, budget);
    return budget;
  }

  /** The budget with the least left (the longest wait on a tie); null when none was drawn on. */
  tightest(): Budget | null {
    let best: Budget | null = null;
    for (const b of this.budgets.values()) {
      if (
        !best ||
        b.remaining < best.remaining ||
        (b.remaining === best.remaining && b.resetMs > best.resetMs)
      )
        best = b;
    }
    return best;
  }

  headers(): Record<string, string> {
    const tightest = this.tightest();
    const others = [...this.budgets.values()].filter((b) => b !== tightest);
    return budgetHeaders(tightest, this.retryAfter, tightest ? [tightest, ...others] : []);
  }
}

export function rateLimitedError(endpoint: Endpoint, retryAfter: number, limit: number): GraphQLError {
  const { title, duration } = RATE_LIMITS[endpoint];
  const per = duration === 1 ? "second" : duration === 60 ? "minute" : `${duration} seconds`;
  return apiError(
    "RATE_LIMITED",
    `rate limit of ${title} exceeded (${limit} per ${per} for this API key's plan); retry in ${retryAfter} s`,
    { endpoint, retryAfter },
  );
}

/** The endpoint a field serves, declared with its directive (see rateLimited). */
function endpointOfField(info: GraphQLResolveInfo): Endpoint | undefined {
  const field = info.parentType.getFields()[info.fieldName];
  return (field?.extensions as { endpoint?: Endpoint } | undefined)?.endpoint;
}

/** The budget this field's resolution draws on for this request, if any. */
export function chargedEndpoint(usage: RateUsage, info: GraphQLResolveInfo): Endpoint | null {
  if (usage.charge.kind === "none") return null;
  if (usage.charge.kind === "route") return info.path.prev === undefined ? usage.charge.endpoint : null;
  return endpointOfField(info) ?? null;
}

/** A place in the operation: the response path without list indices. */
export function placeOf(info: GraphQLResolveInfo): string {
  const keys: (string | number)[] = [];
  for (let p: GraphQLResolveInfo["path"] | undefined = info.path; p; p = p.prev) {
    if (typeof p.key === "string") keys.push(p.key);
  }
  return keys.reverse().join(".");
}

/** The outcome of drawing on a budget, once known. */
export class Verdict {
  resolve: () => void = () => {};
  reject: (e: unknown) => void = () => {};
  readonly done = new Promise<void>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });
  constructor() {
    this.done.catch(() => {}); // awaited only by the other items of a list, if any
  }
}

export interface RateLimitContext {
  rateUsage: RateUsage;
}
