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
