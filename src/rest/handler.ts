import type { Plugin } from "graphql-yoga";
import type { Logger } from "../logger.ts";
import { cachedDocument } from "./document.ts";
import { type GraphQLErrorJson, RestError, restErrorOf } from "./errors.ts";
import { FieldsError } from "./fields.ts";
import { Options } from "./options.ts";
import { ROUTES, type Route } from "./routes.ts";

export const REST_BASE = "/json/api/v1/all";
export const OPENAPI_PATH = "/json/api/v1/openapi.json";
let openapi: string | undefined;
const MAX_BODY_BYTES = 1_000_000;

/** Runs a GraphQL operation through the whole yoga pipeline, as the client's own request. */
export type ExecuteGraphQL = (
  request: Request,
  query: string,
  variables: Record<string, unknown>,
) => Promise<{ data?: Record<string, unknown> | null; errors?: GraphQLErrorJson[] }>;

export interface RestContext {
  execute: ExecuteGraphQL;
  logger: Logger;
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
  const requestId = (e as { requestId?: string }).requestId;
  return json(
    { error: e.message, code: e.code, ...(requestId ? { request_id: requestId } : {}) },
    e.status,
    e.headers,
  );
}

/** Route templates compiled to matchers: `{platform}.{token}` captures one path segment as `app`. */
function compile(route: Route): RegExp {
  const source = route.path
    .replace("{platform}.{token}", "(?<app>[^/]+)")
    .replace("{name}", "(?<name>[^/]+)");
  return new RegExp(`^${source}/?$`);
}
const MATCHERS = ROUTES.map((r) => ({ route: r, re: compile(r) }));

/** The route for a path and method: 404 for an unknown path, 405 (with Allow) for a wrong method. */
function match(path: string, method: string): { route: Route; params: Record<string, string> } {
  const candidates = MATCHERS.flatMap(({ route, re }) => {
    const m = re.exec(path);
    return m
      ? [
          {
            route,
            params: Object.fromEntries(
              Object.entries(m.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]),
            ),
          },
        ]
      : [];
  });
  // Static paths (/domain/bulk, /domain/export) win over templates (/domain/{name}).
  const staticFirst = candidates.sort(
    (a, b) => Number(b.route.path.includes("{") === false) - Number(a.route.path.includes("{") === false),
  );
  const found = staticFirst.find(
    (c) => c.route.method === method || (method === "HEAD" && c.route.method === "GET"),
  );
  if (found) return found;
  if (staticFirst.length) {
    const staticOnly = staticFirst.filter((c) => !c.route.path.includes("{"));
    const allowed = [...new Set((staticOnly.length ? staticOnly : staticFirst).map((c) => c.route.method))];
    throw new RestError(
      405,
      "METHOD_NOT_ALLOWED",
      `${method} is not allowed on ${REST_BASE}${path}; use ${allowed.join(" or ")}`,
      {
        allow: allowed.join(", "),
      },
    );
  }
  throw new RestError(404, "NOT_FOUND", `no such path: ${REST_BASE}${path} (see /json/api/v1/openapi.json)`);
}

async function readOptions(route: Route, request: Request, url: URL): Promise<Options> {
  if (!route.body) return Options.fromQuery(url.searchParams);
  const length = Number(request.headers.get("content-length") ?? 0);
  if (length > MAX_BODY_BYTES)
    throw new RestError(413, "PAYLOAD_TOO_LARGE", `the body is larger than ${MAX_BODY_BYTES} bytes`);
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES)
    throw new RestError(413, "PAYLOAD_TOO_LARGE", `the body is larger than ${MAX_BODY_BYTES} bytes`);
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
  try {
    const { route, params } = match(url.pathname.slice(REST_BASE.length) || "/", request.method);
    const options = await readOptions(route, request, url);
    options.refuseUnknown(route.options.map((o) => o.name));
    const answered = special && (await special(route, params, options, request));
    if (answered) return answered;
    if (!route.plan) throw new Error(`route ${route.id} has no plan and nothing answered it`);
    const plan = route.plan(params, options);
    const query = cachedDocument(plan.key, plan.document);
    const result = await ctx.execute(request, query, plan.variables);
    if (result.errors?.length) throw restErrorOf(result.errors, plan.option ?? ((a) => a));
    if (!result.data) throw new RestError(500, "INTERNAL_SERVER_ERROR", "no data");
    return json(plan.envelope(result.data));
  } catch (e) {
    if (e instanceof RestError) return errorResponse(e);
    if (e instanceof FieldsError) return errorResponse(new RestError(400, "BAD_USER_INPUT", e.message));
    const requestId = crypto.randomUUID();
    ctx.logger.error({ err: e, requestId }, "unexpected error in the REST layer");
    return errorResponse(
      Object.assign(
        new RestError(500, "INTERNAL_SERVER_ERROR", `Unexpected error (request id ${requestId}).`),
        { requestId },
      ),
    );
  }
}
