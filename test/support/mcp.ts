import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TestApi } from "./api.ts";

/** The SDK's own Client, connected to the app's /mcp (through app.fetch: no port) with `key`. */
export async function connect(api: TestApi, key: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: "storegraph-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    fetch: async (url, init) => api.app.fetch(new Request(url, init)),
    requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
  });
  await client.connect(transport);
  return client;
}

/** A tool answer's text. */
export const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

/** A documented tool call: docs/mcp.md's ```json example blocks, in the document's order. */
export interface ToolExample {
  tool: string;
  arguments: Record<string, unknown>;
}

export function documentedExamples(): ToolExample[] {
  const doc = readFileSync(join(import.meta.dirname, "../../docs/mcp.md"), "utf8");
  return [...doc.matchAll(/```json example\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]) as ToolExample);
}

/** The JSON-RPC body of a call of `tool`, as a client POSTs it to /mcp. */
export const toolCallBody = (tool: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args } });

/** The headers a Streamable HTTP client sends with a POST to /mcp. */
export const MCP_POST_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};
