import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { RATE_LIMITS } from "../auth/limits.ts";
import { VOCABULARY_KINDS, VOCABULARY_TEXT } from "../query/vocabularies.ts";
import { REST_BASE } from "../rest/routes.ts";
import { type CallScope, callTool, type McpDeps, vocabularies } from "./answer.ts";
import {
  argumentName,
  endpointOf,
  MAX_ANSWER_BYTES,
  memo,
  operationOf,
  TOOLS,
  type ToolSpec,
} from "./catalogue.ts";
import { FILTERS_URI, filterGrammar, isDomainFilter } from "./filter-grammar.ts";
import { inputSchemaOf, outputSchemaOf } from "./tool-schemas.ts";

/** The server's name and version, as initialize reports them. */
export const SERVER_INFO = { name: "storegraph", version: "0.1.0" };

/** Where the vocabularies are read as resources. */
export const vocabularyUri = (kind: string) => `storegraph://vocabulary/${kind}`;

/** List Domains' filter options, each with its argument name and description (the resource FILTERS_URI). */
let filterDocs: string | undefined;
const domainFilterDocs = () => {
  const op = operationOf(TOOLS.find((t) => t.filters === "described") as ToolSpec);
  filterDocs ??= JSON.stringify({
    filters: (op?.options ?? []).filter(isDomainFilter).map((o) => ({
      option: o.name,
      argument: argumentName(o.name),
      description: o.description,
      ...(o.enum ? { values: o.enum } : {}),
    })),
  });
  return filterDocs;
};

/** A tool's description: what it does, what it stands for, its defaults and caps, its budget. */
export const descriptionOf = memo(description);

function description(spec: ToolSpec): string {
  const op = operationOf(spec);
  const endpoint = endpointOf(spec);
  const parts = [spec.summary];
  if (op)
    parts.push(
      `Stands for ${op.method} ${REST_BASE}${op.path} (${op.id}): its options are the arguments, \`:\` written \`.\` (f.cc for f:cc).`,
    );
  if (op && spec.filters === "described") parts.push(filterGrammar(op.options));
  if (spec.filters === "referred")
    parts.push(`Filters: the f.* arguments search_domains describes (every option: ${FILTERS_URI}).`);
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
 * Who a call is for: the scope of a stdio session (its key, checked again at each call: a revoked
 * key's calls are refused, src/mcp-stdio.ts), or, on HTTP, the scope each request's transport
 * hands its messages (src/mcp/serve-http.ts: the request's key, in `authInfo`), so that one server
 * answers the requests of many keys, one at a time. A refusal is thrown as an API error.
 */
export type ScopeOf = (extra: {
  authInfo?: { extra?: Record<string, unknown> };
}) => CallScope | Promise<CallScope>;

/** The scope an HTTP request's transport carries (scopeInfo). */
export const scopeOfRequest: ScopeOf = (extra) => {
  const scope = extra.authInfo?.extra?.scope as CallScope | undefined;
  if (!scope) throw new Error("an MCP message arrived without its request's scope");
  return scope;
};

/** What an HTTP request's transport is given as `authInfo`, so that its messages carry `scope`. */
export const scopeInfo = (scope: CallScope) => ({
  token: "",
  clientId: scope.key.id,
  scopes: [],
  extra: { scope },
});

/**
 * The SDK's validator of JSON Schemas (elicitation answers; unused by these tools), made once: the
 * SDK makes an Ajv instance per server otherwise, which cost more than the rest of a tool call.
 */
let validator: AjvJsonSchemaValidator | undefined;

/**
 * An MCP server: every tool of the catalogue (src/mcp/catalogue.ts), answering for the scope
 * `scope` gives each call, and the vocabularies as resources. Made once for a stdio session; on
 * HTTP, kept and reused by one request after another (src/mcp/serve-http.ts).
 */
export function createMcpServer(deps: McpDeps, scope: CallScope | ScopeOf): McpServer {
  const scopeOf: ScopeOf = typeof scope === "function" ? scope : () => scope;
  validator ??= new AjvJsonSchemaValidator();
  const server = new McpServer(SERVER_INFO, {
    instructions:
      "storegraph: online stores (Domains), their platforms, plans, Apps and technologies, App reviews and the change feed. Look exact values up with lookup_vocabulary before filtering (plans, categories, App tokens); search_domains and domain_facets take the same filters.",
    jsonSchemaValidator: validator,
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
      ((args: Record<string, unknown>, extra: Parameters<ScopeOf>[0]) =>
        callTool(deps, () => scopeOf(extra), spec, args)) as never,
    );
  }
  server.registerResource(
    "filters-domains",
    FILTERS_URI,
    {
      title: "Domain filters",
      description:
        "Every List Domains filter option the Domain tools take (search_domains, domain_facets, changes, list_domains, export_segment), with its argument name and description, as JSON.",
      mimeType: "application/json",
    },
    async (uri, extra) => {
      // Read for a key, as every resource is: a revoked key's session reads nothing more.
      await scopeOf(extra);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: domainFilterDocs() }] };
    },
  );
  for (const kind of VOCABULARY_KINDS) {
    server.registerResource(
      `vocabulary-${kind}`,
      vocabularyUri(kind),
      {
        title: `Vocabulary: ${kind}`,
        description: `Every value of ${VOCABULARY_TEXT[kind].what} in the served dataset (the values ${VOCABULARY_TEXT[kind].filter} takes), as JSON.`,
        mimeType: "application/json",
      },
      async (uri, extra) => {
        const caller = { apiKey: (await scopeOf(extra)).key, requestId: crypto.randomUUID() };
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
