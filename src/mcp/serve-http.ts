import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { CallScope, McpDeps } from "./answer.ts";
import { createMcpServer, scopeInfo, scopeOfRequest } from "./server.ts";

/**
 * Servers not answering a request now, per app: each request takes one (or makes one) and gives it
 * back once answered. Making a server (its sixteen tools, its resources) cost as much CPU as the
 * rest of a get_domain call; the servers kept are those the busiest moment needed, at most
 * MAX_IDLE.
 */
const idle = new WeakMap<McpDeps, McpServer[]>();
const MAX_IDLE = 64;

/**
 * One request of the Streamable HTTP transport, stateless: a transport of its own (no session id),
 * answering JSON rather than holding a stream open, connected for the request's time to a server
 * no other request is using (the SDK's Protocol serves one transport at a time; it is closed
 * before the server serves another). The request's key reaches the tools through the transport's
 * `authInfo` (src/mcp/server.ts scopeOfRequest). A GET (the server's own stream) or a DELETE (a
 * session's end) is answered 405 by the transport, as a stateless server's. `message` is the
 * request's body, read and parsed by src/mcp/http.ts as the other faces read theirs: the
 * transport reads nothing of the request's own.
 */
export async function answerMcp(
  deps: McpDeps,
  request: Request,
  scope: CallScope,
  message: unknown,
): Promise<Response> {
  let servers = idle.get(deps);
  if (!servers) {
    servers = [];
    idle.set(deps, servers);
  }
  const server = servers.pop() ?? createMcpServer(deps, scopeOfRequest);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { authInfo: scopeInfo(scope), parsedBody: message });
  } finally {
    // Closed once the SDK has let go of the request (its handler's bookkeeping ends a turn after
    // the answer is sent): closing at once aborted the finished handler's signal every time.
    setImmediate(() => void release(servers, server));
  }
}

async function release(servers: McpServer[], server: McpServer): Promise<void> {
  await server.close();
  if (servers.length < MAX_IDLE) servers.push(server);
}
