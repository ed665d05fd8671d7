import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { RATE_LIMITS } from "../auth/limits.ts";
import { VOCABULARY_KINDS, VOCABULARY_TEXT } from "../query/vocabularies.ts";
import { REST_BASE } from "../rest/routes.ts";
import { type CallScope, callTool, type McpDeps, vocabularies } from "./answer.ts";
import {
  endpointOf,
  inputSchemaOf,
  MAX_ANSWER_BYTES,
  operationOf,
  outputSchemaOf,
  TOOLS,
  type ToolSpec,
} from "./catalogue.ts";

/** The server's name and version, as initialize reports them. */
export const SERVER_INFO = { name: "storegraph", version: "0.1.0" };

/** Where the vocabularies are read as resources. */
export const vocabularyUri = (kind: string) => `storegraph://vocabulary/${kind}`;

/** A tool's description: what it does, what it stands for, its defaults and caps, its budget. */
export function descriptionOf(spec: ToolSpec): string {
  const op = operationOf(spec);
  const endpoint = endpointOf(spec);
  const parts = [spec.summary];
  if (op)
    parts.push(
      `Stands for ${op.method} ${REST_BASE}${op.path} (${op.id}): its options are the arguments, \`:\` written \`.\` (f.cc for f:cc).`,
    );
  const d = spec.defaults ?? {};
  if (d.page_size)
    parts.push(`Default page: ${d.page_size} records${spec.maxPage ? `, at most ${spec.maxPage}` : ""}.`);
  if (d.fields)
    parts.push(`Default fields: ${d.fields} (fields: "*" for the API's defaults, or name your own).`);
  if (spec.records) parts.push(`Answers are cut to ${MAX_ANSWER_BYTES / 1024} KB, and say so (cut).`);
  if (endpoint) parts.push(`Draws on the ${RATE_LIMITS[endpoint].title} budget.`);
  else parts.push("Draws on no budget.");
  return parts.join(" ");
}

/**
 * The MCP server of one client: every tool of the catalogue (src/mcp/catalogue.ts), answering for
 * `scope`'s key, and the vocabularies as resources. Made per HTTP request (stateless) or once
 * for a stdio session.
 */
export function createMcpServer(deps: McpDeps, scope: CallScope): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      "storegraph: online stores (Domains), their platforms, plans, Apps and technologies, App reviews and the change feed. Look exact values up with lookup_vocabulary before filtering (plans, categories, App tokens); search_domains and domain_facets take the same filters.",
  });
  for (const spec of TOOLS) {
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: descriptionOf(spec),
        inputSchema: inputSchemaOf(spec) as never,
        outputSchema: outputSchemaOf(spec) as never,
        annotations: {
          readOnlyHint: !spec.writes,
          destructiveHint: spec.name === "remove_from_list",
          idempotentHint: !spec.writes,
          openWorldHint: false,
        },
      },
      ((args: Record<string, unknown>) => callTool(deps, scope, spec, args)) as never,
    );
  }
  for (const kind of VOCABULARY_KINDS) {
    server.registerResource(
      `vocabulary-${kind}`,
      vocabularyUri(kind),
      {
        title: `Vocabulary: ${kind}`,
        description: `Every value of ${VOCABULARY_TEXT[kind].what} in the served dataset (the values ${VOCABULARY_TEXT[kind].filter} takes), as JSON.`,
        mimeType: "application/json",
      },
      async (uri) => {
        const caller = { apiKey: scope.key, requestId: crypto.randomUUID() };
        const entries = (await vocabularies(deps, caller, [kind]))[kind];
        return {
          contents: [
            { uri: uri.href, mimeType: "application/json", text: JSON.stringify({ [kind]: entries }) },
          ],
        };
      },
    );
  }
  return server;
}
