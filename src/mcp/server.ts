import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { RATE_LIMITS } from "../auth/limits.ts";
import { VOCABULARY_KINDS, VOCABULARY_TEXT } from "../query/vocabularies.ts";
import { type CallScope, callTool, type McpDeps } from "./answer.ts";
import { describerOf, TOOLS } from "./catalogue.ts";
import { fieldDocs, fieldDocTypes, fieldsUri } from "./field-docs.ts";
import { filterGrammar, filtersUri, isFilter } from "./filter-grammar.ts";
import { vocabularies } from "./lookup.ts";
import { argsSchemaOf, PROMPTS, promptText } from "./prompts.ts";
import { annotationsOf, toolList } from "./tool-list.ts";
import { outputSchemaOf } from "./tool-output.ts";
import { inputSchemaOf } from "./tool-schemas.ts";
import {
  APP_FIELDS,
  argumentName,
  DOMAIN_FIELDS,
  endpointOf,
  type FilterSubject,
  formLabel,
  formsOf,
  MAX_ANSWER_BYTES,
  memo,
  operationOf,
  type ToolSpec,
} from "./tool-spec.ts";

/** The server's name and version, as initialize reports them. */
export const SERVER_INFO = { name: "storegraph", version: "0.1.0" };

/** Where the vocabularies are read as resources. */
export const vocabularyUri = (kind: string) => `storegraph://vocabulary/${kind}`;

/** The filter options of Domains (or Apps), each with its argument name and description (a resource). */
const filterDocs = new Map<FilterSubject, string>();
const filterDocsOf = (of: FilterSubject) => {
  let docs = filterDocs.get(of);
  if (docs === undefined) {
    const op = operationOf(describerOf(of));
    docs = JSON.stringify({
      filters: (op?.options ?? []).filter(isFilter).map((o) => ({
        option: o.name,
        argument: argumentName(o.name),
        description: o.description,
        ...(o.enum ? { values: o.enum } : {}),
      })),
    });
    filterDocs.set(of, docs);
  }
  return docs;
};

/**
 * A tool's description: what it does and when to use it, then what it costs. What every tool
 * shares (`:` written `.`, `fields`, answers cut to fit) is said once, in the server's
 * instructions; each argument's default and bounds, in its own schema.
 */
export const descriptionOf = memo(description);

function description(spec: ToolSpec): string {
  const forms = formsOf(spec);
  const parts = [spec.summary];
  const described = forms.find(([, f]) => f.filters === "described")?.[1];
  if (described) {
    const op = operationOf(described);
    if (op) parts.push(filterGrammar(op.options, described.filtersOf ?? "domains"));
  }
  // The forms' filters (and budgets) said once when they are the same, else each with its form's.
  // Each form's own: the feed takes no aq, bq or q, the Apps' facets no aq or bq.
  const referred = forms.filter(([, f]) => f.filters === "referred");
  const byFilters = byValue(
    referred,
    (f) => `${filterWords(f)}, as in ${describerOf(f.filtersOf ?? "domains").name}`,
  );
  if (byFilters.length)
    parts.push(
      `Filters: ${byFilters.map(([words, keys]) => `${words}${formWords(spec, keys, forms.length)}`).join("; ")}.`,
    );
  const byBudget = byValue(forms, (f) => {
    const endpoint = endpointOf(f);
    return endpoint ? RATE_LIMITS[endpoint].title : "none";
  });
  parts.push(
    `Budget: ${byBudget.map(([title, keys]) => `${title}${formWords(spec, keys, forms.length)}`).join("; ")}.`,
  );
  return parts.join(" ");
}

/** The filter arguments a form takes, as its description names them: "f.*, aq, bq, q". */
function filterWords(form: ToolSpec): string {
  const options = new Set(operationOf(form)?.options.map((o) => o.name));
  const filters = [...options].some((name) => name.startsWith("f:")) ? ["f.*"] : [];
  return [...filters, ...["aq", "bq", "q"].filter((name) => options.has(name))].join(", ");
}

/** The forms' keys by a value of each, in the order of first use. */
function byValue(forms: [string, ToolSpec][], saidOf: (form: ToolSpec) => string): [string, string[]][] {
  const by = new Map<string, string[]>();
  for (const [key, form] of forms) {
    const value = saidOf(form);
    by.set(value, [...(by.get(value) ?? []), key]);
  }
  return [...by];
}

/** " (of apps)", " (with name)": which of a tool's forms a part of its description is about; nothing when all. */
function formWords(spec: ToolSpec, keys: string[], of: number): string {
  if (!spec.forms || keys.length === of) return "";
  return ` (${keys.map((key) => formLabel(spec, key)).join(", ")})`;
}

/** What every tool shares, said once (initialize's instructions) rather than in each description. */
export const INSTRUCTIONS = [
  "storegraph: online stores (Domains), their platforms, plans, Apps and technologies, App reviews, segments and the change feed of each weekly load.",
  "Arguments are the REST API's options (docs/api.md), `:` written `.` (f.cc for f:cc); search_domains describes the Domain filters every Domain tool takes.",
  "Look exact values up with lookup before filtering (plans, categories, App tokens, countries; a company's Domains).",
  `fields: by default the Domain set (${DOMAIN_FIELDS}) or the App set (${APP_FIELDS}); * for the API's defaults, or name your own: each type's are the resource storegraph://fields/<type> (domain, app, app_review, change, segment, …).`,
  "Paging: cursor takes the previous answer's next_cursor (while has_next_page); page counts from 0.",
  `An answer of records over ${MAX_ANSWER_BYTES / 1024} KB is cut and says so in \`cut\` ({shown, of, rest}: how to get the others).`,
  "Each tool names the budget it draws on; usage shows what is left of each.",
].join(" ");

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
    instructions: INSTRUCTIONS,
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
        annotations: annotationsOf(spec),
      },
      ((args: Record<string, unknown>, extra: Parameters<ScopeOf>[0]) =>
        callTool(deps, () => scopeOf(extra), spec, args)) as never,
    );
  }
  // The list as tool-list.ts writes it, once per process; the SDK's handler wrote it at each call.
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList(descriptionOf) }));
  for (const of of ["domains", "apps"] as const) {
    const users = TOOLS.filter((t) =>
      formsOf(t).some(([, f]) => f.filters && (f.filtersOf ?? "domains") === of),
    ).map((t) => t.name);
    server.registerResource(
      `filters-${of}`,
      filtersUri(of),
      {
        title: `${of === "domains" ? "Domain" : "App"} filters`,
        description: `Every filter option the tools ${users.join(", ")} take, with its argument name and description, as JSON.`,
        mimeType: "application/json",
      },
      async (uri, extra) => {
        // Read for a key, as every resource is: a revoked key's session reads nothing more.
        await scopeOf(extra);
        return { contents: [{ uri: uri.href, mimeType: "application/json", text: filterDocsOf(of) }] };
      },
    );
  }
  for (const [name, type] of fieldDocTypes()) {
    server.registerResource(
      `fields-${name}`,
      fieldsUri(name),
      {
        title: `Fields: ${type.name}`,
        description: `Every field of a ${type.name} that a tool's fields argument may name (nested: parent.child), its type, whether it is answered by default, as JSON.`,
        mimeType: "application/json",
      },
      async (uri, extra) => {
        await scopeOf(extra);
        const text = JSON.stringify({ type: type.name, fields: fieldDocs(type) });
        return { contents: [{ uri: uri.href, mimeType: "application/json", text }] };
      },
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
  for (const spec of PROMPTS) {
    server.registerPrompt(
      spec.name,
      { title: spec.title, description: spec.description, argsSchema: argsSchemaOf(spec) as never },
      (async (args: Record<string, string>, extra: Parameters<ScopeOf>[0]) => {
        const caller = { apiKey: (await scopeOf(extra)).key, requestId: crypto.randomUUID() };
        // "The last load": the changes after the version before the one served.
        const served = (await deps.rest.readContext(caller)).served;
        const since = Math.max(0, (served?.snapshot.version ?? 1) - 1);
        const text = promptText(spec, args, since);
        return {
          description: spec.description,
          messages: [{ role: "user", content: { type: "text", text } }],
        };
      }) as never,
    );
  }
  // Neither the tools nor the resources change while a server runs: it sends no list_changed
  // notification, so it does not say it would (the SDK says so when a tool is registered).
  server.server.registerCapabilities({
    tools: { listChanged: false },
    resources: { listChanged: false },
    prompts: { listChanged: false },
  });
  return server;
}
