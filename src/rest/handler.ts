import type { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Endpoint } from "../auth/limits.ts";
import { apiKeyOf } from "../auth/plugin.ts";
import { type Budget, budgetHeaders, type RateLimits } from "../auth/rate-limit.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import { faultResponse, maskFault } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { noteRoute } from "../ops/access-log.ts";
import { requestIdOf } from "../ops/request-id.ts";
import { cachedDocument } from "./document.ts";
import { type GraphQLErrorJson, RestError, rateLimitedRestError, restErrorOf } from "./errors.ts";
import { CACHE_CONTROL, cacheable, matchesEtag, parseIfNoneMatch, restEtag } from "./etag.ts";
import { FieldsError } from "./fields.ts";
import { Options } from "./options.ts";
import { ROUTES, type Route } from "./routes.ts";
import { withSharedTexts } from "./shared-text.ts";

export const REST_BASE = "/json/api/v1/all";
export const OPENAPI_PATH = "/json/api/v1/openapi.json";
let openapi: string | undefined;
const MAX_BODY_BYTES = 1_000_000;

/**
 * Runs a GraphQL operation through the whole yoga pipeline, as the client's own request, drawing
 * on the rate-limit budget of `charge` (none when null); `rateHeaders` are its X-RateLimit-*.
 */
export type ExecuteGraphQL = (
  request: Request,
  query: string,
  variables: Record<string, unknown>,
  charge: Endpoint | null,
) => Promise<{
  data?: Record<string, unknown> | null;
  errors?: GraphQLErrorJson[];
  rateHeaders?: Record<string, string>;
  /** The snapshot the operation read (fixed for the whole operation: src/context.ts). */
  served?: ServedSnapshot | null;
}>;

export interface RestContext {
  execute: ExecuteGraphQL;
  logger: Logger;
  limits: RateLimits;
  /** The version of the snapshot being served (null before the first load): the ETags' half. */
  version: () => Promise<number | null>;
}

/** Extra routes handled outside the route table (cursor=all, export): they answer themselves. */
export type Special = (
  route: Route,
  params: Record<string, string>,
  options: Options,
  request: Request,
) => Promise<Response | null>;

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers: { "cache-control": "no-store", ...headers } });

export function errorResponse(e: RestError): Response {
  const { requestId, retryAfter, endpoint } = e as {
    requestId?: string;
    retryAfter?: number;
    endpoint?: string;
  };
  return json(
    {
      error: e.message,
      code: e.code,
      ...(requestId ? { request_id: requestId } : {}),
      ...(retryAfter ? { retry_after: retryAfter } : {}),
      ...(endpoint ? { endpoint } : {}),
    },
    e.status,
    e.headers,
  );
}

/**
 * Every response of a route carries its budget's X-RateLimit-* headers: those of the operation
 * that drew on it, or, for a request refused before that (a bad option), its current state.
 */
async function withRateHeaders(
  ctx: RestContext,
  request: Request,
  endpoint: Endpoint | null,
  response: Response,
  drawn: Record<string, string> | undefined,
): Promise<Response> {
  let headers = drawn;
  const key = apiKeyOf(request);
  if (!headers?.["x-ratelimit-limit"] && endpoint && key) {
    headers = { ...budgetHeaders(await ctx.limits.peek(endpoint, key)), ...headers };
  }
  for (const [name, value] of Object.entries(headers ?? {})) response.headers.set(name, value);
  return response;
}

/**
 * Draws once on an endpoint's budget outside a GraphQL operation (a 304, an export's start): the
 * budget, or a 429 RestError with Retry-After and the X-RateLimit headers when it is spent.
 */
export async function drawOn(
  limits: RateLimits,
  endpoint: Endpoint,
  request: Request,
): Promise<Budget | null> {
  const key = apiKeyOf(request);
  if (!key) throw new Error(`a request drawing on ${endpoint} without an authenticated key`);
  try {
    return await limits.consume(endpoint, key);
  } catch (e) {
    const ext = (e as GraphQLError).extensions;
    if (ext?.code !== "RATE_LIMITED") throw e;
    const retryAfter = ext.retryAfter as number;
    throw rateLimitedRestError(
      (e as Error).message,
      endpoint,
      retryAfter,
      budgetHeaders((e as { budget?: Budget }).budget ?? null, retryAfter),
    );
  }
}

/** Route templates compiled to matchers: `{platform}.{token}` captures one path segment as `app`. */
function compile(route: Route): RegExp {
  const source = route.path
    .replace("{platform}.{token}", "(?<app>[^/]+)")
    .replace("{name}", "(?<name>[^/]+)");
  return new RegExp(`^${source}/?$`);
}
const MATCHERS = ROUTES.map((r) => ({ route: r, re: compile(r) }));
/** Each route's option names, listed once rather than per request. */
const VALID_OPTIONS = new Map(ROUTES.map((r) => [r, r.options.map((o) => o.name)]));

/** The route for a path and method: 404 for an unknown path, 405 (with Allow) for a wrong method. */
function match(path: string, method: string): { route: Route; params: Record<string, string> } {
  const all = MATCHERS.flatMap(({ route, re }) => {
    const m = re.exec(path);
    return m ? [{ route, params: decodeParams(m.groups ?? {}) }] : [];
  });
  // A static path (/domain/bulk, /domain/export) is never a template's parameter (/domain/{name}).
  const statics = all.filter((c) => !c.route.path.includes("{"));
  const candidates = statics.length ? statics : all;
  const found = candidates.find(
    (c) => c.route.method === method || (method === "HEAD" && c.route.method === "GET"),
  );
  if (found) return found;
  if (candidates.length) {
    const allowed = [...new Set(candidates.map((c) => c.route.method))];
    throw new RestError(
      405,
      "METHOD_NOT_ALLOWED",
      `${method} is not allowed on ${REST_BASE}${path}; use ${allowed.join(" or ")}`,
      { allow: allowed.join(", ") },
    );
  }
  throw new RestError(404, "NOT_FOUND", `no such path: ${REST_BASE}${path} (see /json/api/v1/openapi.json)`);
}

function decodeParams(groups: Record<string, string>): Record<string, string> {
  try {
    return Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, decodeURIComponent(v)]));
  } catch {
    throw new RestError(400, "BAD_USER_INPUT", "the path has a malformed percent-encoding");
  }
}

/**
 * The body as text, refusing it (413) as soon as it passes MAX_BODY_BYTES bytes. A body that
 * cannot be read to its end is the client's doing (it aborted, or its connection broke): a 400,
 * as yoga answers the same on /graphql, logged at info rather than as a fault of ours.
 */
async function readBody(request: Request, logger: Logger): Promise<string> {
  const tooLarge = () =>
    new RestError(413, "PAYLOAD_TOO_LARGE", `the body is larger than ${MAX_BODY_BYTES} bytes`);
  if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch (e) {
      const path = new URL(request.url).pathname;
      logger.info(
        { method: request.method, path, reason: (e as Error).message },
        "request body aborted by the client",
      );
      throw new RestError(400, "BAD_REQUEST", "the request body ended before it was complete");
    }
    const { done, value } = read;
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function readOptions(route: Route, request: Request, url: URL, logger: Logger): Promise<Options> {
  if (!route.body) return Options.fromQuery(url.searchParams);
  const text = await readBody(request, logger);
  let body: unknown = {};
  if (text.trim() !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      throw new RestError(400, "BAD_USER_INPUT", "the body is not valid JSON");
    }
  }
  const options = Options.fromBody(body);
  for (const [key, value] of url.searchParams) {
    if (options.has(key))
      throw new RestError(400, "BAD_USER_INPUT", `${key}: given both in the query string and in the body`);
    options.add(key, value);
  }
  return options;
}

/** Every other path answers a JSON 404, like the REST API's own unknown paths. */
export function useJsonNotFound(known: string[]): Plugin {
  return {
    onRequest({ url, endResponse }) {
      if (!known.includes(url.pathname)) {
        endResponse(errorResponse(new RestError(404, "NOT_FOUND", `no such path: ${url.pathname}`)));
      }
    },
  };
}

/** The REST layer: a translation of each legacy path onto the GraphQL schema (src/rest/routes.ts). */
export function useRest(ctx: RestContext, special?: Special): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if (url.pathname === OPENAPI_PATH && (request.method === "GET" || request.method === "HEAD")) {
        openapi ??= JSON.stringify(await import("./openapi.ts").then((m) => m.buildOpenApi()), null, 2);
        return endResponse(
          new Response(openapi, { headers: { "content-type": "application/json; charset=utf-8" } }),
        );
      }
      if (!url.pathname.startsWith(`${REST_BASE}/`) && url.pathname !== REST_BASE) return;
      endResponse(await handle(ctx, request, url, special));
    },
  };
}

async function handle(ctx: RestContext, request: Request, url: URL, special?: Special): Promise<Response> {
  let endpoint: Endpoint | null = null;
  let drawn: Record<string, string> | undefined;
  const answer = (r: Response) => withRateHeaders(ctx, request, endpoint, r, drawn);
  try {
    const { route, params } = match(url.pathname.slice(REST_BASE.length) || "/", request.method);
    noteRoute(request, route.id);
    endpoint = route.endpoint;
    const options = await readOptions(route, request, url, ctx.logger);
    options.refuseUnknown(VALID_OPTIONS.get(route) ?? []);
    const answered = special && (await special(route, params, options, request));
    if (answered) return answered;
    if (!route.plan) throw new Error(`route ${route.id} has no plan and nothing answered it`);
    const plan = route.plan(params, options);
    // Validated: the tag is known before executing (the body depends on the snapshot and the URL).
    const version = cacheable(route) ? await ctx.version() : null;
    const etag = version === null ? null : restEtag(version, route.id, params, url.searchParams);
    const wanted = etag ? parseIfNoneMatch(request.headers.get("if-none-match")) : null;
    const cache: Record<string, string> = etag ? { etag, "cache-control": CACHE_CONTROL } : {};
    if (etag && Array.isArray(wanted) && matchesEtag(wanted, etag)) {
      // The client has this snapshot's response: answer without reading, but draw on the budget.
      drawn = budgetHeaders(await drawOn(ctx.limits, route.endpoint, request));
      return answer(new Response(null, { status: 304, headers: cache }));
    }
    const query = cachedDocument(plan.key, plan.document);
    const result = await ctx.execute(request, query, plan.variables, route.endpoint);
    drawn = result.rateHeaders;
    if (result.errors?.length) throw restErrorOf(result.errors, plan.option ?? ((a) => a));
    if (!result.data) throw new RestError(500, "INTERNAL_SERVER_ERROR", "no data");
    // `*` matches any current representation (RFC 9110 13.1.2): known to exist only once read.
    if (wanted === "*") return answer(new Response(null, { status: 304, headers: cache }));
    const data = result.data;
    const body = await withSharedTexts(result.served ?? null, (shared) => plan.envelope(data, shared));
    return answer(
      new Response(body, {
        status: 200,
        headers: { "content-type": "application/json", "cache-control": "no-store", ...cache },
      }),
    );
  } catch (e) {
    if (e instanceof RestError) return answer(errorResponse(e));
    if (e instanceof FieldsError)
      return answer(errorResponse(new RestError(400, "BAD_USER_INPUT", e.message)));
    // The database not answering (503) or a fault of ours (500), logged once with its request id.
    return answer(faultResponse(maskFault(e, ctx.logger, requestIdOf(request))));
  }
}
