import { buildSchema, type GraphQLInputObjectType, specifiedDirectives } from "graphql";
import { useSegmentFilterType } from "../query/segment-members.ts";
import { builder } from "./builder.ts";
import "./snapshot.ts";
import "./app.ts";
import "./domain.ts";
import "./domain-queries.ts";
import "./company-lookup.ts";
import "./facets.ts";
import "./changes.ts";
import "./history.ts";
import "./related.ts";
import "./review.ts";
import "./similar.ts";
import "./node.ts";
import "./usage.ts";
import "./lists.ts";
import "./webhooks.ts";
import "./webhook-deliveries.ts";
import "./segments.ts";
import "./export-estimate.ts";

builder.queryType({});

/** The directive of rate-limited fields (src/auth/rate-limit.ts enforces it). */
const rateLimit = buildSchema(`
"""
The field serves an endpoint of the REST API's rate limits (docs/api.md section 8), and selecting it draws
on that endpoint's budget for the API key: once per place in the operation, not per list item.
limit is the enterprise plan's number of requests per duration seconds; the pro and elite plans
have smaller limits (see X-RateLimit-Limit). Over the limit: HTTP 429, extensions.code RATE_LIMITED.
"""
directive @rateLimit(limit: Int!, duration: Int!) on FIELD_DEFINITION
`).getDirective("rateLimit");
if (!rateLimit) throw new Error("the rateLimit directive did not build");

/**
 * The schema as built from code. Its `@rateLimit` fields are not limited yet: the app applies
 * the limiters of its configuration (RateLimits.apply).
 */
export const schema = builder.toSchema({
  sortSchema: false,
  directives: [...specifiedDirectives, rateLimit],
});

/** The schema's DomainFilter: kept segment filters are coerced by it (src/query/segment-members.ts). */
export const domainFilterInput = schema.getType("DomainFilter") as GraphQLInputObjectType;
useSegmentFilterType(domainFilterInput);
