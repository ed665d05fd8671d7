import type { Plugin } from "graphql-yoga";
import { apiKeyOf } from "../auth/plugin.ts";
import { boundEchoes, errorResponse, isApiError, jsonError } from "../errors.ts";
import { noteRoute } from "../ops/access-log.ts";
import { requestIdOf } from "../ops/request-id.ts";
import { readBody } from "../request-body.ts";
import type { McpDeps } from "./answer.ts";

/** Where the MCP server answers, on the gateway's own port. */
export const MCP_PATH = "/mcp";

export interface McpHttpPolicy {
  /** The Host names answered (lower case, no port); null: any. */
  allowedHosts: readonly string[] | null;
  /** Origins allowed besides the gateway's own (CORS_ORIGINS). */
  origins: readonly string[];
  /**
   * Did the request reach the gateway over HTTPS (TLS, or a TRUSTED_PROXIES proxy's
   * X-Forwarded-Proto: src/https.ts)? The URLs a tool answers (export_segment's) say https then.
   */
  overHttps?: (request: Request, serverContext: unknown) => boolean;
}

/**
 * The gateway's origin as the client reached it: the request's, with https when it reached the
 * gateway over HTTPS, as a TLS-terminating proxy of TRUSTED_PROXIES says (X-Forwarded-Proto).
 */
export function originOf(url: URL, https: boolean): string {
  return https && url.protocol === "http:" ? `https://${url.host}` : url.origin;
}

/** The host name of a Host header, without its port, lower-cased ("[::1]" stays bracketed). */
function hostName(host: string): string {
  const h = host.toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const colon = h.lastIndexOf(":");
  return colon >= 0 ? h.slice(0, colon) : h;
}

/**
 * DNS-rebinding protection (the MCP specification's Streamable HTTP transport, "Security
 * Warning"): a request whose Origin is neither the gateway's own (as its Host names it) nor an
 * allowed one, or whose Host is not allowed, is refused with 403 before any message is read.
 */
export function refusal(request: Request, policy: McpHttpPolicy): string | null {
  const host = request.headers.get("host") ?? new URL(request.url).host;
  if (policy.allowedHosts && !policy.allowedHosts.includes(hostName(host)))
    return `the Host "${host}" is not one this MCP server answers (MCP_ALLOWED_HOSTS)`;
  const origin = request.headers.get("origin");
  if (origin !== null) {
    let own = false;
    try {
      own = new URL(origin).host.toLowerCase() === host.toLowerCase();
    } catch {}
    if (!own && !policy.origins.includes(origin))
      return `the Origin "${origin}" is not allowed to call this MCP server (CORS_ORIGINS)`;
  }
  return null;
}

/**
 * The Streamable HTTP transport at /mcp, stateless: each POST is answered by a server of its own,
 * made for the request's key (useAuth, before this plugin, answered 401 without one), with JSON
 * answers (no stream is held open): src/mcp/serve-http.ts.
 */
export function useMcp(deps: McpDeps, policy: McpHttpPolicy): Plugin {
  let serving: Promise<typeof import("./serve-http.ts")> | undefined;
  return {
    async onRequest({ request, url, serverContext, endResponse }) {
      if (url.pathname !== MCP_PATH) return;
      const id = requestIdOf(request);
      noteRoute(request, "mcp");
      const refused = refusal(request, policy);
      if (refused) return endResponse(jsonError("FORBIDDEN", refused, id));
      // Stateless: no stream of the server's own (GET) and no session to end (DELETE).
      if (request.method !== "POST")
        return endResponse(
          jsonError("METHOD_NOT_ALLOWED", `${request.method} is not allowed on ${MCP_PATH}; use POST`, id, {
            headers: { allow: "POST" },
          }),
        );
      const key = apiKeyOf(request);
      if (!key) throw new Error("a request reached /mcp without an authenticated key");
      // Read by the door the other faces' bodies come in by (src/request-body.ts): the same
      // codings, the same 1 MB bound, the same 413, 415 and 400; the SDK is handed the message.
      let text: string;
      try {
        text = await readBody(request, deps.rest.logger);
      } catch (e) {
        if (isApiError(e)) return endResponse(errorResponse(e, id));
        throw e;
      }
      const message = parseMessage(text);
      if (message instanceof Response) return endResponse(message);
      // The SDK is loaded with the first call, not at every start (docs/structure.md).
      serving ??= import("./serve-http.ts");
      const { answerMcp } = await serving;
      const origin = originOf(url, policy.overHttps?.(request, serverContext) ?? false);
      const scope = { key, origin, drawn: {} as Record<string, string> };
      const response = await answerMcp(deps, request, scope, message.parsed);
      // The budget its tool call drew on, in the fields a REST answer carries (none: it drew on none).
      for (const [name, value] of Object.entries(scope.drawn)) response.headers.set(name, value);
      endResponse(response);
    },
  };
}

/** JSON-RPC's code for a message that is not JSON (JSON-RPC 2.0, section 5.1). */
const PARSE_ERROR = -32700;

/**
 * The JSON-RPC message (or batch) of a body, or the JSON-RPC parse error answering it, as the SDK
 * answers one (400, `id: null`), saying what did not parse.
 */
function parseMessage(text: string): { parsed: unknown } | Response {
  try {
    return { parsed: JSON.parse(text) };
  } catch (e) {
    const why =
      text.trim() === "" ? "the body is empty" : `the body is not valid JSON: ${(e as Error).message}`;
    return Response.json(
      { jsonrpc: "2.0", error: { code: PARSE_ERROR, message: boundEchoes(`Parse error: ${why}`) }, id: null },
      { status: 400, headers: { "cache-control": "no-store" } },
    );
  }
}
