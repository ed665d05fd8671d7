import { isRequest } from "../auth/plugin.ts";
import type { Whole } from "../rest/handler.ts";
import { changesExport } from "./changes-export.ts";
import { changesStream } from "./changes-stream.ts";
import type { FeedDeps } from "./deps.ts";

/**
 * The feed's routes answered whole: null for any other route, and for a caller without an HTTP
 * request (an MCP tool call reads the feed's pages, never its stream or export).
 */
export function feedRoutes(deps: FeedDeps): Whole {
  return async (op, options, request) => {
    if (!isRequest(request)) return null;
    if (op.id === "streamChanges") return changesStream(deps, request, options);
    if (op.id === "exportChanges") return changesExport(deps, request, options);
    return null;
  };
}
