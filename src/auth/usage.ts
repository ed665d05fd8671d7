import type { ApiKey, Plan } from "./keys.ts";
import { type Endpoint, RATE_LIMITS } from "./limits.ts";
import type { RateLimits } from "./rate-limit.ts";
import type { MonthCounts, MonthlyCounts } from "./usage-counts.ts";

/**
 * What an API key has used and has left (GraphQL `usage`, GET /json/api/v1/usage): its plan, each
 * budget of docs/api.md section 8 as it stands, read without drawing on it, and its exports and
 * cursor=all jobs of the month. Reading it draws on no budget, so that it never spends what it
 * reports; it costs a read of each budget (one Redis round trip each, in parallel) and of the
 * month's counts.
 */
export interface EndpointUsage {
  endpoint: Endpoint;
  title: string;
  /** Requests per window on the key's plan. */
  limit: number;
  windowSeconds: number;
  /** Requests left in the current window. */
  remaining: number;
  /** Seconds until `remaining` is back to `limit` (as X-RateLimit-Reset); 0 when it is. */
  resetSeconds: number;
  /** When that is; null when it is already. */
  resetAt: Date | null;
}

export interface UsageReport extends MonthCounts {
  keyId: string;
  keyName: string;
  plan: Plan;
  /** False when the gateway runs with --no-rate-limits: nothing is refused. */
  limitsEnforced: boolean;
  endpoints: EndpointUsage[];
}

/** Reads a key's usage (the GraphQL context carries one: src/context.ts). */
export interface UsageSource {
  report(key: ApiKey): Promise<UsageReport>;
}

export function usageSource(limits: RateLimits, counts: MonthlyCounts): UsageSource {
  return {
    async report(key) {
      const now = Date.now();
      const endpoints = Object.keys(RATE_LIMITS) as Endpoint[];
      const [budgets, month] = await Promise.all([
        Promise.all(endpoints.map((e) => limits.peek(e, key))),
        counts.read(key),
      ]);
      return {
        keyId: key.id,
        keyName: key.name,
        plan: key.plan,
        limitsEnforced: limits.enabled,
        ...month,
        endpoints: endpoints.map((endpoint, i) => {
          const row = RATE_LIMITS[endpoint];
          const limit = row[key.plan];
          const budget = budgets[i];
          // A full budget has nothing to reset (peek reports a whole window for it).
          const remaining = budget?.remaining ?? limit;
          const resetMs = remaining < limit ? (budget?.resetMs ?? 0) : 0;
          return {
            endpoint,
            title: row.title,
            limit,
            windowSeconds: row.duration,
            remaining,
            resetSeconds: Math.ceil(resetMs / 1000),
            resetAt: resetMs > 0 ? new Date(now + resetMs) : null,
          };
        }),
      };
    },
  };
}
