import type { EndpointUsage as EndpointUsageRow, UsageReport } from "../auth/usage.ts";
import { builder, legacy } from "./builder.ts";

/** GraphQL `usage` and REST GET /json/api/v1/usage (src/rest/usage.ts): src/auth/usage.ts. */
const EndpointUsage = builder.objectRef<EndpointUsageRow>("EndpointUsage").implement({
  description:
    "One rate-limit budget of the API key (docs/api.md section 8), as it stands: reading it draws on none.",
  fields: (t) => ({
    endpoint: t.exposeString("endpoint", {
      description: "The budget's name, as a 429 names it (src/auth/limits.ts): listDomains, exportDomains, …",
      ...legacy("endpoint"),
    }),
    title: t.exposeString("title", { description: "What it limits, in words.", ...legacy("title") }),
    limit: t.exposeInt("limit", {
      description: "Requests per window on the key's plan (X-RateLimit-Limit).",
      ...legacy("limit"),
    }),
    windowSeconds: t.exposeInt("windowSeconds", {
      description: "The window's length: 1 (a second) or 60 (a minute).",
      ...legacy("window_seconds"),
    }),
    remaining: t.exposeInt("remaining", {
      description: "Requests left in the current window (X-RateLimit-Remaining).",
      ...legacy("remaining"),
    }),
    resetSeconds: t.exposeInt("resetSeconds", {
      description:
        "Seconds until remaining is back to limit, rounded up (X-RateLimit-Reset); 0 when it already is.",
      ...legacy("reset"),
    }),
    resetAt: t.expose("resetAt", {
      type: "DateTime",
      nullable: true,
      description: "When remaining is back to limit; null (left out in REST) when it already is.",
      ...legacy("reset_at"),
    }),
  }),
});

export const Usage = builder.objectRef<UsageReport>("Usage").implement({
  description:
    "What the calling API key has used and has left: its plan, every rate-limit budget, and its whole-result requests of the month (UTC).",
  fields: (t) => ({
    keyId: t.exposeString("keyId", {
      description: "The key's id, as `npm run keys -- list` shows it.",
      ...legacy("key_id"),
    }),
    keyName: t.exposeString("keyName", { description: "The key's name.", ...legacy("key_name") }),
    plan: t.exposeString("plan", { description: "pro, elite or enterprise.", ...legacy("plan") }),
    limitsEnforced: t.exposeBoolean("limitsEnforced", {
      description:
        "False when the gateway runs with --no-rate-limits (local load tests): nothing is refused, and remaining stays at limit.",
      ...legacy("limits_enforced"),
    }),
    endpoints: t.field({
      type: [EndpointUsage],
      description: "Every budget, in the order of docs/api.md section 8 (then Export Domains and node).",
      ...legacy("endpoints"),
      resolve: (u) => u.endpoints,
    }),
    month: t.exposeString("month", {
      description: "The calendar month (UTC) that exports and cursorAllJobs count, YYYY-MM.",
      ...legacy("month"),
    }),
    exports: t.exposeInt("exports", {
      description: "Export Domains requests started this month (a refused one is not counted).",
      ...legacy("exports"),
    }),
    cursorAllJobs: t.exposeInt("cursorAllJobs", {
      description: "cursor=all jobs started this month (polls are not counted).",
      ...legacy("cursor_all_jobs"),
    }),
  }),
});

builder.queryField("usage", (t) =>
  t.withAuth({ client: true }).field({
    type: Usage,
    description:
      "The calling API key's plan, budgets and month's exports (GET /json/api/v1/usage). Draws on no budget.",
    resolve: (_root, _args, ctx) => ctx.usage.report(ctx.apiKey),
  }),
);
