import type { DocumentNode, ExecutionResult, GraphQLError } from "graphql";
import type { YogaServerInstance } from "graphql-yoga";
import type { Endpoint } from "./auth/limits.ts";
import { type Asker, type Caller, isRequest } from "./auth/plugin.ts";
import type { RateLimits } from "./auth/rate-limit.ts";
import type { Charge } from "./auth/rate-usage.ts";
import type { Context } from "./context.ts";
import type { ServedSnapshot } from "./db/snapshots.ts";
import { settleFaults, withInputCodes } from "./errors.ts";
import { requestIdOf } from "./ops/request-id.ts";

/**
 * A REST route's GraphQL operation run inside the app's yoga instance (src/app.ts builds it and
 * hands executeInternally to the REST layer as its ExecuteGraphQL): what yoga's context factory is
 * given besides the request (ServerContext: the budget it draws on, or the caller without a
 * request), and the run itself.
 */

/**
 * What yoga's context factory is given besides the request: a REST route's operation is run with
 * the budget it draws on (executeInternally); a client's GraphQL request, by the network, with
 * none, and draws on its fields' own budgets.
 */
export interface ServerContext {
  charge?: Charge;
  /** Who asks, when no HTTP request is answered (an MCP tool call: src/auth/plugin.ts's Caller). */
  caller?: Caller;
}

/**
 * A REST request's GraphQL operation runs through the same envelop pipeline as a GraphQL request
 * (validation cache, graphql-armor limits, the cost limit, rate limits, error masking), as a
 * request of the same client, so both faces are limited and masked alike. The document is the
 * REST layer's own (built as AST, kept per route and selection: src/rest/document.ts), so nothing
 * is printed or parsed. The HTTP layer is not run again: the outer request already passed auth
 * and the HTTPS check, and the result object is used as it is instead of being serialized to JSON
 * and parsed back. It draws on the budget of `charge` (the REST endpoint), and its rate-limit
 * headers are the REST response's.
 */
export async function executeInternally(
  yoga: YogaServerInstance<ServerContext, Context>,
  limits: RateLimits,
  request: Asker,
  document: DocumentNode,
  variables: Record<string, unknown>,
  charge: Endpoint | null,
) {
  // A caller without an HTTP request (an MCP tool call) is its own identity: the operation's
  // context reads its key and budgets from it, and no request is made up for it.
  const server = {
    ...(isRequest(request) ? { request } : { caller: request }),
    params: { variables },
    charge: charge ? { kind: "route", endpoint: charge } : { kind: "none" },
  } as ServerContext & { request: Request; params: unknown };
  const { validate, contextFactory, execute, schema } = yoga.getEnveloped(server);
  let served: ServedSnapshot | null = null;
  let context: Context | undefined;
  const outcome = async (): Promise<{ data?: Record<string, unknown> | null; errors?: GraphQLError[] }> => {
    const invalid = validate(schema, document);
    if (invalid.length) return { errors: invalid.map(validationFailed) };
    const contextValue = (await contextFactory()) as Context;
    served = contextValue.served;
    context = contextValue;
    const result = (await execute({
      schema,
      document,
      contextValue,
      variableValues: variables,
    })) as ExecutionResult<Record<string, unknown>>;
    if (result.errors) settleFaults(result.errors, requestIdOf(request));
    return { data: result.data, errors: result.errors ? withInputCodes([...result.errors]) : undefined };
  };
  const result = await outcome();
  return { ...result, rateHeaders: limits.headersOf(request), served, context };
}

/** What yoga answers for a document that fails to parse or validate (HTTP 400). */
function validationFailed(e: GraphQLError): GraphQLError {
  if (!e.extensions?.code) (e.extensions as Record<string, unknown>).code = "GRAPHQL_VALIDATION_FAILED";
  return e;
}
