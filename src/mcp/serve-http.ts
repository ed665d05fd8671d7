import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { CallScope, McpDeps } from "./answer.ts";
import { createMcpServer } from "./server.ts";

/**
 * One request of the Streamable HTTP transport, stateless: a server and a transport of its own
 * (no session id), answering JSON rather than holding a stream open. A GET (the server's own
 * stream) or a DELETE (a session's end) is answered 405 by the transport, as a stateless server's.
 */
export async function answerMcp(deps: McpDeps, request: Request, scope: CallScope): Promise<Response> {
  const server = createMcpServer(deps, scope);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    void server.close();
  }
}
