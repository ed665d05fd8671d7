import type { Endpoint } from "../auth/limits.ts";
import { STATUS } from "../errors.ts";

/** An error answered as `{ "error": message, "code": code }` with an HTTP status (decisions.md). */
export class RestError extends Error {
  override name = "RestError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * A 429: the endpoint whose budget is spent is named in the message and, for programs, as
 * `endpoint` (a key of RATE_LIMITS), since one request can be refused on another's budget.
 */
export function rateLimitedRestError(
  message: string,
  endpoint: Endpoint,
  retryAfter: number,
  headers: Record<string, string> = {},
): RestError {
  return Object.assign(
    new RestError(429, "RATE_LIMITED", message, { "retry-after": String(retryAfter), ...headers }),
    { retryAfter, endpoint },
  );
}

export interface GraphQLErrorJson {
  message: string;
  extensions?: { code?: string; argument?: string; requestId?: string; [k: string]: unknown };
}

const FAULTS = new Set([undefined, "INTERNAL_SERVER_ERROR", "DATABASE_UNAVAILABLE"]);

/** The one mapping of GraphQL errors to a REST status and body. */
export function restErrorOf(errors: GraphQLErrorJson[], rename: (argument: string) => string): RestError {
  // Never hide a fault of ours behind a client error of the same response.
  const e = errors.find((x) => FAULTS.has(x.extensions?.code)) ?? errors[0];
  const code = e.extensions?.code ?? "INTERNAL_SERVER_ERROR";
  const status =
    code === "GRAPHQL_VALIDATION_FAILED" ? 400 : ((STATUS as Record<string, number>)[code] ?? 500);
  let message = e.message;
  const argument = e.extensions?.argument;
  if (argument && message.startsWith(`${argument}: `)) {
    message = `${rename(argument)}: ${message.slice(argument.length + 2)}`;
  }
  // Headers the error asks for (a 503's Retry-After), as yoga sends them for GraphQL.
  const http = e.extensions?.http as { headers?: Record<string, string> } | undefined;
  const body = new RestError(status, code, message, { ...http?.headers });
  const { requestId, retryAfter, endpoint } = e.extensions ?? {};
  if (requestId) Object.assign(body, { requestId });
  if (typeof retryAfter === "number") Object.assign(body, { retryAfter });
  if (typeof endpoint === "string") Object.assign(body, { endpoint });
  return body;
}
