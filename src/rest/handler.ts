import type { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Endpoint } from "../auth/limits.ts";
import { apiError, errorResponse, isApiError, maskFault } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { noteRoute } from "../ops/access-log.ts";
import { requestIdOf } from "../ops/request-id.ts";
import { meant, nearNames, unique } from "../query/suggest.ts";
import { readBody } from "../request-body.ts";
import { answerOperation, type RestContext, type Whole, withRateHeaders } from "./answer.ts";
import { Options } from "./options.ts";
import type { Operation } from "./route.ts";
import { OPENAPI_PATH, OPERATIONS, REST_BASE } from "./routes.ts";
import { answerUsage, isUsagePath, USAGE_PATH } from "./usage.ts";

export { drawOn, type ExecuteGraphQL, type RestContext, type Whole } from "./answer.ts";
export { OPENAPI_PATH, REST_BASE };

let openapi: string | undefined;

/** Route templates compiled to matchers: `{platform}.{token}` captures one path segment as `app`. */
function compile(operation: Operation): RegExp {
  const source = operation.route.path
    .replace("{platform}.{token}", "(?<app>[^/]+)")
    .replace(/\{(\w+)\}/g, "(?<$1>[^/]+)");
  return new RegExp(`^${source}$`);
}
const MATCHERS = OPERATIONS.map((op) => ({ op, re: compile(op) }));
/** The operation for a path and method: 404 for an unknown path, 405 (with Allow) for a wrong method. */
function match(path: string, method: string): { op: Operation; params: Record<string, string> } {
  const all = MATCHERS.flatMap(({ op, re }) => {
    const m = re.exec(path);
    return m ? [{ op, params: decodeParams(m.groups ?? {}) }] : [];
  });
  // A static path (/domain/bulk, /domain/export) is never a template's parameter (/domain/{name}).
  const statics = all.filter((c) => !c.op.route.path.includes("{"));
  const candidates = statics.length ? statics : all;
  const found = candidates.find(
    (c) => c.op.method === method || (method === "HEAD" && c.op.method === "GET"),
  );
  if (found) return found;
  if (candidates.length) {
    const allowed = [...new Set(candidates.map((c) => c.op.method))];
    throw apiError(
      "METHOD_NOT_ALLOWED",
      `${method} is not allowed on ${REST_BASE}${path}; use ${allowed.join(" or ")}`,
      { headers: { allow: allowed.join(", ") } },
    );
  }
  throw apiError(
    "NOT_FOUND",
    `no such path: ${REST_BASE}${path}${meant(nearPaths(path))} (see ${OPENAPI_PATH})`,
  );
}

/** Each route's path template, split into its segments. */
const TEMPLATES = unique(OPERATIONS.map((op) => op.route.path)).map((path) => path.split("/"));

/**
 * The paths a client most likely meant by an unknown one under REST_BASE: the routes beside it
 * rather than under it (/json/api/v1/all/usage: /json/api/v1/usage), or the same path with each
 * of its fixed segments that is not a route's replaced by the route's near it, at any depth
 * (/domains/shop.example.com: /domain/shop.example.com; /domain/shop.example.com/histroy:
 * …/history; /app/shopify.klaviyo/review: …/reviews), fewest replaced first.
 */
function nearPaths(path: string): string[] {
  const beside = `${REST_BASE.slice(0, REST_BASE.lastIndexOf("/"))}${path}`;
  if (beside === USAGE_PATH || beside === OPENAPI_PATH) return [beside];
  const segments = path.split("/");
  const near: { path: string; replaced: number }[] = [];
  for (const template of TEMPLATES) {
    if (template.length !== segments.length) continue;
    let replaced = 0;
    const meant = template.map((t, i) => {
      const given = segments[i];
      if (t.includes("{") || t === given) return given;
      if (nearNames(given, [t]).length === 0) return null;
      replaced++;
      return t;
    });
    if (replaced > 0 && !meant.includes(null)) near.push({ path: meant.join("/"), replaced });
  }
  return unique(
    near
      .sort((a, b) => a.replaced - b.replaced)
      .map((n) => n.path)
      .filter((n) => MATCHERS.some(({ re }) => re.test(n))),
  ).map((n) => `${REST_BASE}${n}`);
}

/**
 * A path with a trailing slash is not a route's (docs/decisions.md, Errors): where the path
 * without it is one, the answer is a 308 to it, which keeps the method and the body, so that
 * a client that adds the slash still arrives, at the one URL that is cached, counted and logged.
 */
function canonicalPath(path: string, method: string): string | null {
  if (path.length < 2 || !path.endsWith("/")) return null;
  const trimmed = path.replace(/\/+$/, "");
  try {
    match(trimmed, method);
  } catch (e) {
    if ((e as GraphQLError).extensions?.code === "NOT_FOUND") return null;
  }
  return trimmed;
}

function canonicalRedirect(path: string, url: URL): Response {
  const location = `${REST_BASE}${path}${url.search}`;
  return Response.json(
    { location, message: `this path has no trailing slash: ${REST_BASE}${path}` },
    { status: 308, headers: { location, "cache-control": "no-store" } },
  );
}

function decodeParams(groups: Record<string, string>): Record<string, string> {
  try {
    return Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, decodeURIComponent(v)]));
  } catch {
    throw apiError("BAD_USER_INPUT", "the path has a malformed percent-encoding");
  }
}

async function readOptions(op: Operation, request: Request, url: URL, logger: Logger): Promise<Options> {
  if (!op.body) return Options.fromQuery(url.searchParams);
  const text = await readBody(request, logger);
  let body: unknown = {};
  if (text.trim() !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      throw apiError("BAD_USER_INPUT", "the body is not valid JSON");
    }
  }
  const options = Options.fromBody(body);
  for (const [key, value] of url.searchParams) {
    if (options.has(key))
      throw apiError("BAD_USER_INPUT", `${key}: given both in the query string and in the body`);
    options.add(key, value);
  }
  return options;
}

/** Every other path answers a JSON 404, like the REST API's own unknown paths. */
export function useJsonNotFound(known: string[]): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      if (!known.includes(url.pathname)) {
        endResponse(
          errorResponse(apiError("NOT_FOUND", `no such path: ${url.pathname}`), requestIdOf(request)),
        );
      }
    },
  };
}

/** The REST layer: a translation of each legacy path onto the GraphQL schema (src/rest/routes.ts). */
export function useRest(ctx: RestContext, whole?: Whole): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if (url.pathname === OPENAPI_PATH && (request.method === "GET" || request.method === "HEAD")) {
        openapi ??= JSON.stringify(await import("./openapi.ts").then((m) => m.buildOpenApi()), null, 2);
        return endResponse(
          new Response(openapi, { headers: { "content-type": "application/json; charset=utf-8" } }),
        );
      }
      if (isUsagePath(url.pathname)) return endResponse(await answerUsage(ctx, request, url));
      if (!url.pathname.startsWith(`${REST_BASE}/`) && url.pathname !== REST_BASE) return;
      endResponse(await handle(ctx, request, url, whole));
    },
  };
}

async function handle(ctx: RestContext, request: Request, url: URL, whole?: Whole): Promise<Response> {
  let endpoint: Endpoint | null = null;
  const answer = (r: Response) => withRateHeaders(ctx, request, endpoint, r, undefined);
  const id = requestIdOf(request);
  try {
    const path = url.pathname.slice(REST_BASE.length) || "/";
    const canonical = canonicalPath(path, request.method);
    if (canonical) return canonicalRedirect(canonical, url);
    const { op, params } = match(path, request.method);
    const { route } = op;
    noteRoute(request, op.id);
    endpoint = route.endpoint;
    const options = await readOptions(op, request, url, ctx.logger);
    return await answerOperation(ctx, request, op, params, options, whole, {
      url,
      ifNoneMatch: request.headers.get("if-none-match"),
    });
  } catch (e) {
    if (isApiError(e)) return answer(errorResponse(e, id));
    // The database not answering (503) or a fault of ours (500), logged once with its request id.
    return answer(errorResponse(maskFault(e, ctx.logger, id), id));
  }
}
