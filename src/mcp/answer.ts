import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ApiKey } from "../auth/keys.ts";
import type { Caller } from "../auth/plugin.ts";
import { budgetHeaders, RATE_HEADER_NAMES, rateHeadersIn } from "../auth/rate-headers.ts";
import { apiError, errorBody, isApiError, maskFault } from "../errors.ts";
import { newRequestId } from "../ops/request-id.ts";
import { answerOperation, drawOn, type RestContext, type Whole } from "../rest/answer.ts";
import { Options } from "../rest/options.ts";
import type { Operation } from "../rest/route.ts";
import { REST_BASE } from "../rest/routes.ts";
import { answerUsageOf } from "../rest/usage.ts";
import { checkLookUp, lookUp } from "./lookup.ts";
import { Refused } from "./tool-schemas.ts";
import {
  argumentName,
  endpointOf,
  formKeyOf,
  formLabel,
  formOf,
  MAX_ANSWER_BYTES,
  NOUNS,
  operationOf,
  optionName,
  type ToolSpec,
} from "./tool-spec.ts";
import { inToolWords } from "./tool-words.ts";

/** What the tools answer with: the REST layer's own context and whole answers (src/app.ts gives them). */
export interface McpDeps {
  rest: RestContext;
  whole: Whole;
}

/** Who calls, and where the gateway is reached (for the URL of an export's result). */
export interface CallScope {
  key: ApiKey;
  /** The gateway's origin as the client reached it (HTTP), or null (stdio: the path alone). */
  origin: string | null;
  /**
   * HTTP: the rate-limit fields of the budget the request's tool call drew on (RATE_HEADER_NAMES),
   * filled by the call, written on /mcp's answer (src/mcp/http.ts) as REST writes them on its own.
   */
  drawn?: Record<string, string>;
}

/** Keeps what a call drew on for the request's answer (the last call's, in a request of several). */
function noteDrawn(scope: CallScope, headers: Record<string, string>): void {
  if (!scope.drawn || !headers["x-ratelimit-limit"]) return;
  for (const name of RATE_HEADER_NAMES) delete scope.drawn[name];
  for (const name of RATE_HEADER_NAMES) if (headers[name] !== undefined) scope.drawn[name] = headers[name];
}

type Json = Record<string, unknown>;

/**
 * A tool's call: its arguments become the REST operation's path and options, answered by the same
 * function that answers REST (src/rest/answer.ts), for a caller of its own (no HTTP request is
 * made or made up), drawing on the same budget. The answer is the REST answer's JSON, cut to
 * MAX_ANSWER_BYTES; an error is a tool error with the API's message (and its "did you mean").
 */
export async function callTool(
  deps: McpDeps,
  scopeOf: () => CallScope | Promise<CallScope>,
  spec: ToolSpec,
  args: Json,
): Promise<CallToolResult> {
  const requestId = newRequestId();
  let scope: CallScope | undefined;
  try {
    // Who calls, asked at each call (a stdio session's key may have been revoked since).
    scope = await scopeOf();
    // One identity per call: its budgets' headers and faults are its own.
    const caller: Caller = { apiKey: scope.key, requestId };
    const refused = refusalIn(args);
    if (refused) throw apiError("BAD_USER_INPUT", refused.message);
    // A tool of several operations: the one this call asks (its form), its choice taken out.
    const form = formOf(spec, args);
    if (spec.choice)
      args = Object.fromEntries(Object.entries(args).filter(([a]) => a !== spec.choice?.argument));
    if (form.answers === "usage") return await usage(deps, caller, args);
    if (form.answers === "vocabulary") {
      // Checked before it draws, as REST refuses before it draws; then on its form's budget.
      checkLookUp(args);
      const endpoint = endpointOf(form);
      if (endpoint) noteDrawn(scope, budgetHeaders(await drawOn(deps.rest.limits, endpoint, caller)));
      const { line, body } = await lookUp(deps, caller, args);
      return withData(line, body);
    }
    const op = operationOf(form);
    if (!op) throw new Error(`tool ${spec.name} has no operation`);
    const params: Record<string, string> = {};
    // A variant of the operation (get_domain's as_of: the Domain as it was) has fields of its own:
    // the compact defaults are the operation's, not the variant's.
    const variant = op.route.variant && args[argumentName(op.route.variant.option)] !== undefined;
    const options: Json = variant ? {} : { ...(form.defaults ?? {}) };
    for (const [arg, value] of Object.entries(args)) {
      const path = form.path?.[arg];
      if (path) params[path.param] = String(value);
      else if (value !== undefined) options[optionName(arg)] = value;
    }
    // A form's own bound, where the tool's schema lists the largest of its forms' (similar_domains).
    if (form.maxPage && typeof options.page_size === "number" && options.page_size > form.maxPage)
      throw apiError(
        "BAD_USER_INPUT",
        `page_size: must be at most ${form.maxPage} ${formLabel(spec, formKeyOf(spec, form))}; got ${options.page_size}`,
      );
    if (spec.name === "export_segment") return await exportSegment(deps, scope, caller, options, params);
    if (options.cursor === "all")
      throw apiError("BAD_USER_INPUT", "cursor: all is the export_segment tool's (a job, not a page)");
    return await answerPage(deps, scope, caller, form, op, params, options);
  } catch (e) {
    const err = isApiError(e) ? e : maskFault(e, deps.rest.logger, requestId);
    const http = err.extensions.http as { headers?: Record<string, string> } | undefined;
    if (scope && http?.headers) noteDrawn(scope, http.headers);
    return failed(errorBody(err, requestId));
  }
}

/**
 * The tool's answer of a REST operation's page, fitted to MAX_ANSWER_BYTES. A page of a `cursor`
 * tool cut to fit is the page of the records it shows: asked again that long (drawing on nothing
 * more), its next_cursor follows the last record shown, not the records cut. Again, should the
 * snapshot served have changed meanwhile and its records grown.
 */
async function answerPage(
  deps: McpDeps,
  scope: CallScope,
  caller: Caller,
  spec: ToolSpec,
  op: Operation,
  params: Record<string, string>,
  options: Json,
): Promise<CallToolResult> {
  const ask = async (given: Json, charged = true) => {
    const response = await answerOperation(
      deps.rest,
      caller,
      op,
      params,
      Options.fromBody(given),
      deps.whole,
      undefined,
      charged,
    );
    noteDrawn(scope, rateHeadersIn(response.headers));
    // Parsed from its bytes, whose count is the answer's size (not measured again by writing it),
    // and whose text is the answer's JSON for a client that reads text (not written again).
    const bytes = await response.bytes();
    const text = UTF8.decode(bytes);
    return { ok: response.status < 400, body: JSON.parse(text) as Json, size: bytes.byteLength, text };
  };
  let page = await ask(options);
  let of: number | undefined;
  for (let again = 0; ; again++) {
    if (!page.ok) return failed(page.body);
    const shown = spec.paging === "cursor" ? fitting(spec, page.body, page.size) : null;
    if (!shown || again === 3) return answered(spec, page.body, page.size, of, page.text);
    of ??= recordsOf(spec, page.body)?.length;
    page = await ask({ ...options, page_size: shown }, false);
  }
}

/** The first argument its schema refused (src/mcp/tool-schemas.ts Refused), if any. */
function refusalIn(args: Json): Refused | null {
  for (const value of Object.values(args)) if (value instanceof Refused) return value;
  return null;
}

/** A tool error: the API's message (its suggestion in it), its code, and when to retry. */
function failed(body: Json): CallToolResult {
  const retry = typeof body.retry_after === "number" ? body.retry_after : null;
  const message = inToolWords(String(body.error ?? "the request failed"));
  const when = retry !== null && !/retry in \d+/.test(message) ? ` Retry in ${retry} s.` : "";
  return {
    isError: true,
    content: [{ type: "text", text: `${body.code ?? "ERROR"}: ${message}${when}` }],
    _meta: { code: body.code, ...(retry !== null ? { retry_after: retry } : {}) },
  };
}

const UTF8 = new TextDecoder();

/** The bytes kept for a cut answer's `cut` (its longest is about 200). */
const CUT_ROOM = 320;

/** The records of a tool's answer, when it answers records. */
const recordsOf = (spec: ToolSpec, body: Json) =>
  spec.records ? (body[spec.records] as unknown[] | undefined) : undefined;

/**
 * How many of an answer's records, from the first, fit in MAX_ANSWER_BYTES beside the rest of the
 * answer and room for its `cut`; null when the answer fits whole (or has no records). Each record
 * kept is written once to count it, the others not at all: a page of 50 Domains with the API's
 * default fields keeps about 4. `size` is the answer's JSON byte count.
 */
export function fitting(spec: ToolSpec, body: Json, size: number): number | null {
  const records = recordsOf(spec, body);
  if (!records || size <= MAX_ANSWER_BYTES) return null;
  let used = Buffer.byteLength(JSON.stringify({ ...body, [spec.records as string]: [] })) + CUT_ROOM;
  let shown = 0;
  for (; shown < records.length; shown++) {
    const next = Buffer.byteLength(JSON.stringify(records[shown])) + (shown ? 1 : 0);
    if (used + next > MAX_ANSWER_BYTES) break;
    used += next;
  }
  return shown;
}

/**
 * The REST answer as the tool's, cut to fit, with a short text saying what it holds and what is
 * next. `size` is its JSON's byte count when known (the REST answer's bytes). `cutFrom`: the
 * answer is already the page cut to fit (asked again with fewer records), of a page that had
 * `cutFrom` records: it says so, its next_cursor following its last record. `text`: the body's
 * JSON text as it came, when known (written anew when the answer is cut).
 */
export function answered(
  spec: ToolSpec,
  body: Json,
  size = Buffer.byteLength(JSON.stringify(body)),
  cutFrom?: number,
  text?: string,
): CallToolResult {
  let bytes = size;
  let json = text;
  const records = recordsOf(spec, body);
  const shown = fitting(spec, body, size);
  if (records && (shown !== null || (cutFrom !== undefined && cutFrom > records.length))) {
    const kept = shown ?? records.length;
    const of = cutFrom ?? records.length;
    body[spec.records as string] = records.slice(0, kept);
    const ask = `ask with page_size ${Math.max(1, kept)} or fewer fields`;
    const rest =
      spec.paging === "cursor"
        ? shown === null
          ? `next_cursor continues after the last record shown; ${ask} to fit`
          : `${ask} (this page's next_cursor follows all ${of} records)`
        : spec.paging === "page"
          ? `${ask.replace("ask", "ask again")}, and page through`
          : "ask for fewer names or fewer fields";
    body.cut = { shown: kept, of, rest };
    json = JSON.stringify(body);
    bytes = Buffer.byteLength(json);
    // Not even the first record fits: an empty page would skip them all.
    if (kept === 0)
      return failed({
        code: "ANSWER_TOO_LARGE",
        error: `one record alone is over the ${MAX_ANSWER_BYTES} bytes a tool answers: ask for fewer fields`,
      });
  }
  // One record (or facets) over the bound: nothing to cut it to, so it is not answered.
  if (bytes > MAX_ANSWER_BYTES)
    return failed({
      code: "ANSWER_TOO_LARGE",
      error: `the answer is ${bytes} bytes, over the ${MAX_ANSWER_BYTES} a tool answers: ask for fewer fields${spec.records ? "" : " (or smaller facets)"}`,
    });
  return withData(summary(spec, body), body, json);
}

/**
 * A tool's answer: a line saying what it holds and what is next, then its data as compact JSON in
 * a text block of its own, and the same data as structuredContent. The MCP specification says a
 * tool that returns structured content SHOULD also return it serialized in a text block: many
 * clients pass only text to their model. `json`: the data's JSON text when already written.
 */
export function withData(line: string, body: Json, json = JSON.stringify(body)): CallToolResult {
  return {
    content: [
      { type: "text", text: line },
      { type: "text", text: json },
    ],
    structuredContent: body,
  };
}

function summary(spec: ToolSpec, body: Json): string {
  const cut = body.cut as { shown: number; of: number; rest: string } | undefined;
  if (spec.records && Array.isArray(body[spec.records])) {
    const n = (body[spec.records] as unknown[]).length;
    const parts = [`${n} ${NOUNS[spec.records] ?? "records"}`];
    if (cut) parts.push(`cut from ${cut.of} to fit ${MAX_ANSWER_BYTES} bytes: ${cut.rest}`);
    if (Array.isArray(body.not_found) && body.not_found.length)
      parts.push(`not found: ${body.not_found.join(", ")}`);
    if (body.has_next_page === true && typeof body.next_cursor === "string")
      parts.push(`more: cursor "${body.next_cursor}"`);
    if (spec.paging === "page" && n > 0) parts.push("more: the next page");
    return `${parts.join("; ")}. The records follow as JSON.`;
  }
  if (typeof body.total === "number")
    return `${body.total} ${spec.filtersOf === "apps" ? "Apps" : "Domains"} match; facets and histograms follow as JSON.`;
  const [key] = Object.keys(body);
  const record = body[key] as Json | undefined;
  const name = record && typeof record === "object" ? (record.name ?? record.id) : undefined;
  return `${key}${name !== undefined ? ` ${String(name)}` : ""}: follows as JSON.`;
}

async function usage(deps: McpDeps, caller: Caller, args: Json): Promise<CallToolResult> {
  const response = await answerUsageOf(deps.rest, caller, Options.fromBody(args));
  const body = (await response.json()) as Json;
  if (response.status >= 400) return failed(body);
  const u = body.usage as { plan?: string } | undefined;
  return withData(`Plan ${u?.plan ?? "?"}: budgets and the month's counts follow as JSON.`, body);
}

/** The query string of a tool's options, as REST reads it (JSON values as their JSON text). */
function queryOf(options: Json): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(options)) {
    if (v === undefined || v === null) continue;
    q.set(k, typeof v === "object" ? JSON.stringify(v) : String(v));
  }
  return q.toString();
}

/**
 * export_segment: List Domains with cursor=all, answered by the export layer (src/export/cursor-all.ts)
 * through the REST layer's `whole`, as the REST request with the same options: the first call
 * starts the job (drawing on List Domains with cursor=all), each later one polls it. The result
 * itself is never read into the answer: its URL is, the same question as a REST request.
 */
async function exportSegment(
  deps: McpDeps,
  scope: CallScope,
  caller: Caller,
  given: Json,
  params: Record<string, string>,
): Promise<CallToolResult> {
  const options: Json = { ...given, cursor: "all" };
  const op = operationOf({ name: "export_segment", title: "", summary: "", op: "listDomains" });
  if (!op) throw new Error("no List Domains operation");
  const response = await answerOperation(
    deps.rest,
    caller,
    op,
    params,
    Options.fromBody(options),
    deps.whole,
  );
  noteDrawn(scope, rateHeadersIn(response.headers));
  if (response.status >= 400) return failed((await response.json()) as Json);
  const format = String(options.for ?? "json");
  if (response.status === 200 && Options.fromBody(options).bool("dry_run")) {
    const { dry_run: estimate } = (await response.json()) as {
      dry_run: Json & { domains: number; bytes: number };
    };
    const { dry_run: _, ...start } = options;
    const url = `${scope.origin ?? ""}${REST_BASE}/domain?${queryOf(start)}`;
    const fetch = `Call export_segment again without dry_run to start it (or GET ${url} with Authorization: Bearer <API key>).`;
    return withData(
      `Dry run, nothing started: ${estimate.domains} Domains, about ${estimate.bytes} bytes as ${format}. ${fetch}`,
      { status: "dry_run", url, format, fetch, dry_run: estimate },
    );
  }
  const url = `${scope.origin ?? ""}${REST_BASE}/domain?${queryOf(options)}`;
  const fetch = `GET ${url} with Authorization: Bearer <API key>: 202 with the progress while the job runs, then the whole result (kept for a while).`;
  if (response.status === 202) {
    const { progress, total } = (await response.json()) as { progress: number; total: number };
    return withData(`Export running: ${progress} of ${total} Domains written. ${fetch}`, {
      status: "running",
      progress,
      total,
      url,
      format,
      fetch,
    });
  }
  // Done: the result is the client's to fetch, not this answer's.
  await response.body?.cancel();
  return withData(`Export done. ${fetch}`, { status: "done", url, format, fetch });
}
