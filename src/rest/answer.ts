import { Response as ServerResponse } from "@whatwg-node/fetch";
import type { DocumentNode, GraphQLError } from "graphql";
import pLimit, { type LimitFunction } from "p-limit";
import type { Endpoint } from "../auth/limits.ts";
import { type Asker, apiKeyOf } from "../auth/plugin.ts";
import { type Budget, budgetHeaders } from "../auth/rate-headers.ts";
import type { RateLimits } from "../auth/rate-limit.ts";
import type { ReadContext } from "../context.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import { apiError, errorResponse, isApiError, maskFault } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { chooseEncoding } from "../ops/compression.ts";
import type { Metrics } from "../ops/metrics.ts";
import { requestIdOf } from "../ops/request-id.ts";
import { type DomainFilter, filterTerms } from "../query/domain-filter.ts";
import { type RecordsRead, readRecords, writeRecords } from "./answer-records.ts";
import { type GraphQLErrorJson, restErrorOf } from "./errors.ts";
import { CACHE_CONTROL, cacheable, matchesEtag, parseIfNoneMatch, restEtag } from "./etag.ts";
import { optionSuggester } from "./filter-options.ts";
import type { Options } from "./options.ts";
import { planRequest } from "./plan.ts";
import { errorJsonOf } from "./records.ts";
import type { Operation } from "./route.ts";
import { OPERATIONS } from "./routes.ts";
import { withSharedTexts } from "./shared-text.ts";

/*
 * A REST operation's answer, from its parsed request: the operation, its path's parameters, its
 * options and who asks (src/rest/handler.ts reads them from an HTTP request; the MCP tools,
 * src/mcp/, from a tool call's arguments). The same function answers both, so a tool's answer is
 * the REST answer to the same question, drawn on the same budget.
 */

/**
 * Runs a GraphQL operation (a document the REST layer built: src/rest/document.ts) through the
 * whole yoga pipeline, as the client's own request, drawing on the rate-limit budget of `charge`
 * (none when null); `rateHeaders` are its X-RateLimit-*.
 */
export type ExecuteGraphQL = (
  request: Asker,
  document: DocumentNode,
  variables: Record<string, unknown>,
  charge: Endpoint | null,
) => Promise<{
  data?: Record<string, unknown> | null;
  errors?: GraphQLErrorJson[];
  rateHeaders?: Record<string, string>;
  /** The snapshot the operation read (fixed for the whole operation: src/context.ts). */
  served?: ServedSnapshot | null;
  /** What its resolvers read (an export takes the set of Domains its check resolved: src/export/export-query.ts). */
  context?: ReadContext;
}>;

export interface RestContext {
  execute: ExecuteGraphQL;
  /** What a read through the query layer reads for `request` (its snapshot, its account): src/rest/records.ts. */
  readContext: (request: Asker) => Promise<ReadContext>;
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
  request: Asker,
  /** The path's parameters (`{version}`, `{file}`). */
  params?: Record<string, string>,
) => Promise<{ response: Response; budget?: Budget | null } | null>;

/**
 * Every response of a route carries the X-RateLimit-* headers of the budget it drew on: those of
 * its operation, or, for a request refused before drawing (a bad option), the budget's current
 * state. This is where a REST answer's headers are decided, whichever path answered it.
 */
export async function withRateHeaders(
  ctx: RestContext,
  request: Asker,
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
export async function drawOn(limits: RateLimits, endpoint: Endpoint, request: Asker): Promise<Budget | null> {
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

/** Each operation's option names, listed once rather than per request. */
const VALID_OPTIONS = new Map(OPERATIONS.map((op) => [op, op.options.map((o) => o.name)]));
/** Each operation's "did you mean" for an unknown option (f:country: f:cc). */
const SUGGESTERS = new Map(
  OPERATIONS.map((op) => [op, optionSuggester(VALID_OPTIONS.get(op) ?? [], op.route.filters)]),
);

/** What an answer to an HTTP request adds: its URL and If-None-Match (the ETag and 304). */
export interface Conditional {
  url: URL;
  ifNoneMatch: string | null;
}

/**
 * The answer of `op` to `options` for `request`: unknown options refused (with their "did you
 * mean"), then the route's whole answer (cursor=all, exports) or its records; every answer, an
 * error's too, as JSON with the X-RateLimit headers of the budget it drew on. `http` gives the
 * ETag and its 304 (an HTTP request's); without it the answer has no ETag. `charged` false: the
 * records' read draws on nothing, for a question the caller was charged for already (an MCP
 * tool's page read again, shorter, to fit its answer: src/mcp/answer.ts).
 */
export async function answerOperation(
  ctx: RestContext,
  request: Asker,
  op: Operation,
  params: Record<string, string>,
  options: Options,
  whole?: Whole,
  http?: Conditional,
  charged = true,
): Promise<Response> {
  let { route } = op;
  let endpoint: Endpoint | null = route.endpoint;
  let drawn: Record<string, string> | undefined;
  const answer = (r: Response) => withRateHeaders(ctx, request, endpoint, r, drawn);
  const id = requestIdOf(request);
  try {
    options.refuseUnknown(VALID_OPTIONS.get(op) ?? [], SUGGESTERS.get(op));
    if (route.whole && whole) {
      // Its errors and answers report the budget of the whole answer, not the route's own.
      endpoint = route.whole.endpoint;
      const answered = await whole(op, options, request, params);
      if (answered) {
        drawn = answered.budget ? budgetHeaders(answered.budget) : undefined;
        return answer(answered.response);
      }
      endpoint = route.endpoint;
    }
    if (route.variant && options.has(route.variant.option)) route = route.variant.route;
    if (!route.query) throw new Error(`route ${op.id} has no query and nothing answered it whole`);
    const plan = planRequest(route, params, options);
    // Validated: the tag is known before executing (the body depends on the snapshot and the URL).
    // A list's Domains (a segment's filter) change between loads, and its name is the account's:
    // with f:list or f:segment, or bq naming either, an answer is no longer the snapshot's alone,
    // so it has no ETag.
    const version =
      http &&
      cacheable(op) &&
      !options.has("f:list") &&
      !options.has("f:segment") &&
      !namesTheAccounts(plan.variables.filter as DomainFilter | null | undefined)
        ? await ctx.version()
        : null;
    const etag = version === null || !http ? null : restEtag(version, op.id, params, http.url.searchParams);
    const wanted = etag ? parseIfNoneMatch(http?.ifNoneMatch ?? null) : null;
    const cache: Record<string, string> = etag ? { etag, "cache-control": CACHE_CONTROL } : {};
    if (etag && Array.isArray(wanted) && matchesEtag(wanted, etag)) {
      // The client has this snapshot's response: answer without reading, but draw on the budget.
      drawn = budgetHeaders(await drawOn(ctx.limits, route.endpoint, request));
      return answer(new Response(null, { status: 304, headers: cache }));
    }
    // The body is UTF-8 bytes: given a string, Response checks every code unit for a lone
    // surrogate (WebIDL's USVString, 9% of a bulk of 100's CPU), and encodes it whole. The
    // Response is the server's own fetch API's (whatwg-node's): it keeps the bytes as they are,
    // and the server writes them to the socket in one call, where Node's own copies them into a
    // stream that is then read back (docs/performance-history.md, "A REST answer's way to the socket").
    const ok = (body: Uint8Array<ArrayBuffer>, gzipped = false) =>
      answer(
        new ServerResponse(body, {
          status: 200,
          headers: {
            "content-type": "application/json",
            "cache-control": "no-store",
            ...cache,
            ...(gzipped ? { "content-encoding": "gzip", vary: "Accept-Encoding" } : {}),
          },
        }),
      );
    // Pages of many records wait for their turn: memory is bounded whatever the concurrency.
    const size = Number(plan.variables.first) || 0;
    return size > LARGE_PAGE ? await largePagesOf(ctx)(respond) : await respond();

    async function respond(): Promise<Response> {
      let charge: Endpoint | null = charged ? route.endpoint : null;
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

    /** The answer from the records' rows (src/rest/answer-records.ts); null where one cannot be written so. */
    async function fromRows(all: NonNullable<typeof plan.records>): Promise<Response | null> {
      let args: Record<string, unknown>;
      let read: RecordsRead;
      try {
        args = all.plan.args(plan.variables);
        if (charged) drawn = budgetHeaders(await drawOn(ctx.limits, route.endpoint, request));
        read = await readRecords(op.id, all, args, await ctx.readContext(request), acceptsGzip(request));
      } catch (e) {
        // Named as GraphQL's errors are, by the option each argument came from.
        const json = errorJsonOf(e);
        throw json ? restErrorOf([json], plan.option) : e;
      }
      if (wanted === "*") return answer(new Response(null, { status: 304, headers: cache }));
      const written = await writeRecords(ctx, op.id, all, args, read);
      return written ? ok(written.body, written.gzipped) : null;
    }
  } catch (e) {
    if (isApiError(e)) return answer(errorResponse(e, id));
    // The database not answering (503) or a fault of ours (500), logged once with its request id.
    return answer(errorResponse(maskFault(e, ctx.logger, id), id));
  }
}

/** Whether the client's best choice of coding is gzip (src/ops/compression.ts chooses the same way). */
function acceptsGzip(request: Asker): boolean {
  // A request of the server's fetch API (whatwg-node's Request, not always Node's own), or a caller
  // without one (MCP's tools), which takes the text as it is.
  return "headers" in request && chooseEncoding(request.headers.get("accept-encoding")) === "gzip";
}

/** Whether a filter names a list or segment of the account, in any of its terms. */
const namesTheAccounts = (filter: DomainFilter | null | undefined) =>
  !!filter && filterTerms(filter).some((f) => f.list != null || f.segment != null);
