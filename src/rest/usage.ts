import type { DocumentNode, GraphQLObjectType } from "graphql";
import type { Asker } from "../auth/plugin.ts";
import { apiError, errorResponse, isApiError, maskFault } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { noteRoute } from "../ops/access-log.ts";
import { requestIdOf } from "../ops/request-id.ts";
import { schema } from "../schema/index.ts";
import { cachedDocument, field, operation } from "./document.ts";
import { type GraphQLErrorJson, restErrorOf } from "./errors.ts";
import { parseFields, selectionKey, toSelectionSet } from "./fields.ts";
import { legacyWriter, type SharedTexts } from "./legacy-writer.ts";
import { Options } from "./options.ts";

/**
 * GET /json/api/v1/usage (docs/api.md section 8, "Usage"): the calling key's plan, budgets and
 * month's counts, as `{"usage": {...}}`. Like every REST answer it is the GraphQL operation of the
 * same data (`usage`), run through the same pipeline and written by the legacy writer, with the
 * legacy names the schema declares (src/schema/usage.ts). It takes `fields`, as the other routes
 * do, and draws on no budget: reading what is left never spends it.
 */
export const USAGE_PATH = "/json/api/v1/usage";

const USAGE = () => schema.getType("Usage") as GraphQLObjectType;
/** Usage has no objects shared by many parents (src/rest/shared-text.ts). */
const NO_SHARED: SharedTexts = { text: () => undefined };

/** Whether a request is this route's: its path, or the path with a trailing slash (answered 308). */
export const isUsagePath = (path: string) => path === USAGE_PATH || /^\/json\/api\/v1\/usage\/+$/.test(path);

/** What it needs of the REST layer (src/rest/answer.ts's RestContext is one). */
interface UsageContext {
  execute(
    request: Asker,
    document: DocumentNode,
    variables: Record<string, unknown>,
    charge: null,
  ): Promise<{ data?: Record<string, unknown> | null; errors?: GraphQLErrorJson[] }>;
  logger: Logger;
}

export async function answerUsage(ctx: UsageContext, request: Request, url: URL): Promise<Response> {
  const id = requestIdOf(request);
  try {
    if (url.pathname !== USAGE_PATH) {
      const location = `${USAGE_PATH}${url.search}`;
      return Response.json(
        { location, message: `this path has no trailing slash: ${USAGE_PATH}` },
        { status: 308, headers: { location, "cache-control": "no-store" } },
      );
    }
    if (request.method !== "GET" && request.method !== "HEAD")
      throw apiError("METHOD_NOT_ALLOWED", `${request.method} is not allowed on ${USAGE_PATH}; use GET`, {
        headers: { allow: "GET" },
      });
    noteRoute(request, "usage");
    return await answerUsageOf(ctx, request, Options.fromQuery(url.searchParams));
  } catch (e) {
    return errorResponse(isApiError(e) ? e : maskFault(e, ctx.logger, id), id);
  }
}

/** The usage answer to `options` (its `fields`), for a request or a caller without one (src/mcp/). */
export async function answerUsageOf(ctx: UsageContext, request: Asker, options: Options): Promise<Response> {
  const id = requestIdOf(request);
  try {
    options.refuseUnknown(["fields"]);
    const sel = parseFields(options.string("fields"), USAGE());
    const key = `Usage:${selectionKey(sel)}`;
    const query = cachedDocument(key, () => operation("Usage", {}, field("usage", [], toSelectionSet(sel))));
    const result = await ctx.execute(request, query, {}, null);
    if (result.errors?.length) throw restErrorOf(result.errors, (argument) => argument);
    const usage = result.data?.usage as Record<string, unknown> | undefined;
    if (!usage) throw new Error("the usage operation answered without data or errors");
    const body = `{"usage":${legacyWriter(sel)(usage, NO_SHARED)}}`;
    return new Response(body, {
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    });
  } catch (e) {
    return errorResponse(isApiError(e) ? e : maskFault(e, ctx.logger, id), id);
  }
}
