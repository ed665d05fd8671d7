import type { DocumentNode, GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import pLimit, { type LimitFunction } from "p-limit";
import type { Endpoint } from "../auth/limits.ts";
import { apiKeyOf } from "../auth/plugin.ts";
import { type Budget, budgetHeaders, type RateLimits } from "../auth/rate-limit.ts";
import type { ReadContext } from "../context.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import { inSpan } from "../db/sql-tracing.ts";
import { apiError, errorResponse, isApiError, maskFault } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { noteRoute } from "../ops/access-log.ts";
import type { Metrics } from "../ops/metrics.ts";
import { requestIdOf } from "../ops/request-id.ts";
import { meant, nearNames, unique } from "../query/suggest.ts";
import { readBody } from "../request-body.ts";
import { type GraphQLErrorJson, restErrorOf } from "./errors.ts";
import { CACHE_CONTROL, cacheable, matchesEtag, parseIfNoneMatch, restEtag } from "./etag.ts";
import { optionSuggester } from "./filter-options.ts";
import { Options } from "./options.ts";
import { planRequest } from "./plan.ts";
import { errorJsonOf } from "./records.ts";
import type { Operation } from "./route.ts";
import { OPENAPI_PATH, OPERATIONS, REST_BASE } from "./routes.ts";
import { withSharedTexts } from "./shared-text.ts";
import { answerUsage, isUsagePath, USAGE_PATH } from "./usage.ts";

export { OPENAPI_PATH, REST_BASE };

let openapi: string | undefined;

/**
 * Runs a GraphQL operation (a document the REST layer built: src/rest/document.ts) through the
 * whole yoga pipeline, as the client's own request, drawing on the rate-limit budget of `charge`
 * (none when null); `rateHeaders` are its X-RateLimit-*.
 */
export type ExecuteGraphQL = (
  request: Request,
  document: DocumentNode,
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
  /** What a read through the query layer reads for `request` (its snapshot, its account): src/rest/records.ts. */
  readContext: (request: Request) => Promise<ReadContext>;
  logger: Logger;
  limits: RateLimits;
  /** The version of the snapshot being served (null before the first load): the ETags' half. */
  version: () => Promise<number | null>;
  /** Counts the row writer's fallbacks (src/ops/metrics.ts). */
  metrics?: Metrics | null;
  /** "resolvers": every record through the resolver path (the parity tests compare the two). */
  writer?: "rows" | "resolvers";
}

/**
 * A page of more than LARGE_PAGE records (List Domains with page_size up to 1000) is read and
 * written by at most LARGE_PAGES requests at a time per gateway; the others wait their turn. A
 * page of 1000 Domains with the default fields holds about 40 MB while it is built (rows, child
 * rows, its 6.5 MB of text twice): 32 of them at once took the server to 1.6 GB. The machine's
 * cores are busy with a few anyway, so the wait costs no throughput.
 */
const LARGE_PAGE = 100;
const LARGE_PAGES = 4;
const largePages = new WeakMap<RestContext, LimitFunction>();
const largePagesOf = (ctx: RestContext) => {
  let limit = largePages.get(ctx);
  if (!limit) {
    limit = pLimit(LARGE_PAGES);
    largePages.set(ctx, limit);
  }
  return limit;
};

/**
 * Answers the requests a route answers whole (its `whole`: cursor=all, export), or null for those
 * it answers by its GraphQL query. `budget` is what the answer drew on the route's whole budget.
 */
export type Whole = (
  operation: Operation,
  options: Options,
  request: Request,
) => Promise<{ response: Response; budget?: Budget | null } | null>;

/**
 * Every response of a route carries the X-RateLimit-* headers of the budget it drew on: those of
 * its operation, or, for a request refused before drawing (a bad option), the budget's current
 * state. This is where a REST answer's headers are decided, whichever path answered it.
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
  if (!headers?.["x-ratelimit-limit"] && !response.headers.has("x-ratelimit-limit") && endpoint && key) {
    headers = { ...budgetHeaders(await ctx.limits.peek(endpoint, key)), ...headers };
  }
  for (const [name, value] of Object.entries(headers ?? {})) response.headers.set(name, value);
  return response;
}

/**
 * Draws once on an endpoint's budget outside a GraphQL operation (a 304, an export's start): the
 * budget, or a 429 with Retry-After and the X-RateLimit headers when it is spent.
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
    throw apiError("RATE_LIMITED", (e as Error).message, {
      retryAfter,
      endpoint,
      headers: budgetHeaders((e as { budget?: Budget }).budget ?? null, retryAfter),
    });
  }
}

/** Route templates compiled to matchers: `{platform}.{token}` captures one path segment as `app`. */
function compile(operation: Operation): RegExp {
  const source = operation.route.path
    .replace("{platform}.{token}", "(?<app>[^/]+)")
    .replace(/\{(\w+)\}/g, "(?<$1>[^/]+)");
  return new RegExp(`^${source}$`);
}
const MATCHERS = OPERATIONS.map((op) => ({ op, re: compile(op) }));
/** Each operation's option names, listed once rather than per request. */
const VALID_OPTIONS = new Map(OPERATIONS.map((op) => [op, op.options.map((o) => o.name)]));
/** Each operation's "did you mean" for an unknown option (f:country: f:cc). */
const SUGGESTERS = new Map(
  OPERATIONS.map((op) => [op, optionSuggester(VALID_OPTIONS.get(op) ?? [], op.route.filters)]),
);

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

/** The first segments of the routes' paths (domain, app, changes, list, webhooks). */
const FIRST_SEGMENTS = unique(OPERATIONS.map((op) => op.route.path.split("/")[1]));

/**
 * The paths a client most likely meant by an unknown one under REST_BASE: the routes beside it
 * rather than under it (/json/api/v1/all/usage: /json/api/v1/usage), or the same path with its
 * first segment a route's near it (/domains/shop.example.com: /domain/shop.example.com).
 */
function nearPaths(path: string): string[] {
  const beside = `${REST_BASE.slice(0, REST_BASE.lastIndexOf("/"))}${path}`;
  if (beside === USAGE_PATH || beside === OPENAPI_PATH) return [beside];
  const [, first = "", ...rest] = path.split("/");
  return nearNames(first, FIRST_SEGMENTS)
    .map((segment) => ["", segment, ...rest].join("/"))
    .filter((near) => MATCHERS.some(({ re }) => re.test(near)))
    .map((near) => `${REST_BASE}${near}`);
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
  let drawn: Record<string, string> | undefined;
  const answer = (r: Response) => withRateHeaders(ctx, request, endpoint, r, drawn);
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
    options.refuseUnknown(VALID_OPTIONS.get(op) ?? [], SUGGESTERS.get(op));
    if (route.whole && whole) {
      // Its errors and answers report the budget of the whole answer, not the route's own.
      endpoint = route.whole.endpoint;
      const answered = await whole(op, options, request);
      if (answered) {
        drawn = answered.budget ? budgetHeaders(answered.budget) : undefined;
        return answer(answered.response);
      }
      endpoint = route.endpoint;
    }
    if (!route.query) throw new Error(`route ${op.id} has no query and nothing answered it whole`);
    const plan = planRequest(route, params, options);
    // Validated: the tag is known before executing (the body depends on the snapshot and the URL).
    // A list's Domains change between loads, and its name is the account's: with f:list an answer
    // is no longer the snapshot's alone, so it has no ETag.
    const version = cacheable(op) && !options.has("f:list") ? await ctx.version() : null;
    const etag = version === null ? null : restEtag(version, op.id, params, url.searchParams);
    const wanted = etag ? parseIfNoneMatch(request.headers.get("if-none-match")) : null;
    const cache: Record<string, string> = etag ? { etag, "cache-control": CACHE_CONTROL } : {};
    if (etag && Array.isArray(wanted) && matchesEtag(wanted, etag)) {
      // The client has this snapshot's response: answer without reading, but draw on the budget.
      drawn = budgetHeaders(await drawOn(ctx.limits, route.endpoint, request));
      return answer(new Response(null, { status: 304, headers: cache }));
    }
    // The body is UTF-8 bytes: given a string, Response checks every code unit for a lone
    // surrogate (WebIDL's USVString, 9% of a bulk of 100's CPU), and encodes it whole.
    const ok = (body: Uint8Array<ArrayBuffer>) =>
      answer(
        new Response(body, {
          status: 200,
          headers: { "content-type": "application/json", "cache-control": "no-store", ...cache },
        }),
      );
    // Pages of many records wait for their turn: memory is bounded whatever the concurrency.
    const size = Number(plan.variables.first) || 0;
    return size > LARGE_PAGE ? await largePagesOf(ctx)(respond) : await respond();

    async function respond(): Promise<Response> {
      let charge: Endpoint | null = route.endpoint;
      // A Domain route's records, read through the query layer and written from their rows
      // (src/rest/records.ts), where the row writer can write the selection.
      const records = ctx.writer === "resolvers" ? null : plan.records;
      if (records) {
        const answered = await fromRows(records);
        if (answered) return answered;
        // A record the writer could not write: the resolver path answers, or fails with its own
        // error, on the budget already drawn.
        charge = null;
      }
      // Every answer the resolver path gives in the writer's place is counted.
      if (plan.records !== undefined && ctx.writer !== "resolvers") ctx.metrics?.writerFallback("rest");
      const result = await ctx.execute(request, plan.document(), plan.variables, charge);
      if (charge) drawn = result.rateHeaders;
      if (result.errors?.length) throw restErrorOf(result.errors, plan.option);
      if (!result.data) throw new Error("a REST operation answered without data or errors");
      // `*` matches any current representation (RFC 9110 13.1.2): known to exist only once read.
      if (wanted === "*") return answer(new Response(null, { status: 304, headers: cache }));
      const data = result.data;
      return ok(await withSharedTexts(result.served ?? null, (shared) => plan.envelope(data, shared)));
    }

    /** The answer from the records' rows; null where one cannot be written so. */
    async function fromRows(records: NonNullable<typeof plan.records>): Promise<Response | null> {
      let read: { value: unknown; readCtx: ReadContext };
      try {
        const args = records.plan.args(plan.variables);
        drawn = budgetHeaders(await drawOn(ctx.limits, route.endpoint, request));
        const readCtx = await ctx.readContext(request);
        // Traced as a GraphQL operation's execution is: its statements are the span's children.
        read = await inSpan(`rest.read ${op.id}`, async () => ({
          value: await records.plan.answer(readCtx, args),
          readCtx,
        }));
      } catch (e) {
        // Named as GraphQL's errors are, by the option each argument came from.
        const json = errorJsonOf(e);
        throw json ? restErrorOf([json], plan.option) : e;
      }
      if (wanted === "*") return answer(new Response(null, { status: 304, headers: cache }));
      const { value, readCtx } = read;
      const body = await withSharedTexts(readCtx.served, (shared) =>
        records.envelope(value, readCtx, shared),
      );
      return body ? ok(body) : null;
    }
  } catch (e) {
    if (isApiError(e)) return answer(errorResponse(e, id));
    // The database not answering (503) or a fault of ours (500), logged once with its request id.
    return answer(errorResponse(maskFault(e, ctx.logger, id), id));
  }
}
