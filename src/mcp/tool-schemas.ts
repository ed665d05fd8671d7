import { z } from "zod";
import { meant, nearNames } from "../query/suggest.ts";
import { VOCABULARY_KINDS } from "../query/vocabularies.ts";
import { LIST_OPS } from "../rest/filter-options.ts";
import type { OptionDoc } from "../rest/inputs.ts";
import type { Part } from "../rest/route.ts";
import {
  APP_FIELDS,
  argumentName,
  DOMAIN_FIELDS,
  describerOf,
  memo,
  operationOf,
  type ToolSpec,
} from "./catalogue.ts";
import { isFilter } from "./filter-grammar.ts";

/**
 * The schemas of the MCP tools of src/mcp/catalogue.ts, as zod makes them and tools/list shows
 * them: a tool's input (its path arguments and its REST operation's options, each catching its
 * refusal as a Refused value that the tool answers in the API's words) and its output (its REST
 * answer's envelope, or its own for the tools that stand for no REST operation).
 */

/** A REST option's schema, from its catalogue entry. */
function schemaOf(doc: OptionDoc, spec: ToolSpec): z.ZodType {
  // aq and bq are told in full once, by search_domains; the other Domain tools take them as it
  // does, and their descriptions say so once for all of them (src/mcp/server.ts).
  if (spec.filters === "referred" && (doc.name === "aq" || doc.name === "bq")) return z.unknown().optional();
  let s: z.ZodType;
  if (doc.name === "page_size" && spec.maxPage)
    s = z
      .number()
      .int()
      .min(1)
      .max(spec.maxPage)
      .describe(`Default ${spec.defaults?.page_size ?? 50}.`);
  else if (doc.type === "integer") s = z.number().int();
  else if (doc.type === "boolean") s = z.boolean();
  else if (doc.type === "array")
    s = z.array(
      (doc.items as { type?: string } | undefined)?.type === "string"
        ? z.string()
        : z.record(z.string(), z.unknown()),
    );
  else if (doc.type === "object") s = z.record(z.string(), z.unknown());
  else if (doc.enum?.length) s = z.enum(doc.enum as [string, ...string[]]);
  // A filter's :op takes and, or, not: said shortly, as it is repeated for every list filter.
  else if (/^f:.+:op$/.test(doc.name))
    return z
      .enum(LIST_OPS)
      .optional()
      .describe(`How ${doc.name.slice(0, -3)}'s values combine (default ${LIST_OPS[0]}).`);
  // Ranges and lists are text in a query string; an agent may give a number.
  else if (doc.name.startsWith("f:")) s = z.union([z.string(), z.number()]);
  else s = z.string();
  const description = doc.name === "page_size" && spec.maxPage ? "" : shortDescription(doc, spec);
  return (description ? s.describe(description) : s).optional();
}

/**
 * An option's description in the tool list: the REST catalogue's, but for the options most tools
 * share, said shortly, with the tool's own defaults.
 */
function shortDescription(doc: OptionDoc, spec: ToolSpec): string {
  // What fields takes is said once (the server's instructions); here, only a tool's own default.
  if (doc.name === "fields") {
    const variant = operationOf(spec)?.route.variant?.option;
    const fields = spec.defaults?.fields;
    const set = fields === DOMAIN_FIELDS ? "the Domain set" : fields === APP_FIELDS ? "the App set" : fields;
    return set ? `Default: ${set}${variant ? `; with ${variant}, every field it answers` : ""}.` : "";
  }
  // cursor=all is a job, export_segment's: a page tool is not told of it.
  if (doc.name === "cursor") return "next_cursor of the previous page.";
  const short = SHORT[doc.name];
  if (short) return short;
  // An option a tool takes as the tool that tells its filters does (q): said once, there, and the
  // tool's description refers to it.
  if (spec.filters === "referred") {
    const describer = describerOf(spec.filtersOf ?? "domains");
    const same = operationOf(describer)?.options.find((o) => o.name === doc.name);
    if (same?.description === doc.description) return "";
  }
  return doc.description;
}

/** The tool list's words for options whose REST description is long (docs/api.md says them in full). */
const SHORT: Record<string, string> = {
  as_of:
    "The Domain as it was at a load: a snapshot version, or an RFC 3339 time or a date; only the fields the change feed covers.",
  dry_run: "true: how many Domains the job would write, its bytes, and what it would draw; nothing started.",
  for: "The result's format: json (default), jsonl or csv.",
  top: "Without values: how many of the newest load's top values (default 10).",
  page: "Page number, from 0.",
  aq: "Advanced search: [{field, value, operator}], all met; field a filter without f: (ermin) or q, value comma-separated, operator and (default), or, nand, nor.",
  bq: "Boolean query: {must: {conjuncts}, should: {disjuncts}, must_not: {disjuncts}}; a condition {field, match} (values space-separated; operator or|and), {field, term} or {field, min, max} (max excluded unless inclusive_max). In full: docs/api.md.",
};

/**
 * A tool's input schema: its path arguments, then its operation's options under their argument
 * names. Other properties are let through to the API, which refuses them as it refuses an unknown
 * option, with its "did you mean" (f.country: f:cc).
 */
export const inputSchemaOf = memo(inputSchema);

function inputSchema(spec: ToolSpec): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [arg, p] of Object.entries(spec.path ?? {}))
    shape[arg] = z.string().min(1).describe(p.description);
  const op = operationOf(spec);
  for (const doc of op?.options ?? []) {
    if (spec.omit?.includes(doc.name)) continue;
    // The filters are told once, in search_domains' (search_apps') description, not listed one by one.
    if (spec.filters && isFilter(doc)) continue;
    shape[argumentName(doc.name)] = schemaOf(doc, spec);
  }
  ownArguments(spec, shape);
  for (const [arg, schema] of Object.entries(shape)) shape[arg] = refusing(arg, schema);
  return z.looseObject(shape);
}

/**
 * An argument the call gave that its schema refuses: the SDK validates a call's arguments before
 * the tool sees them, and would answer its own text (MCP error -32602 and zod's issues); its
 * schema instead catches the refusal, which the tool answers as the API does (src/mcp/answer.ts
 * refusalIn): BAD_USER_INPUT, naming the argument. The schema listed is the same (tools/list).
 */
export class Refused {
  constructor(
    readonly argument: string,
    readonly value: unknown,
    readonly issue: z.core.$ZodIssue | undefined,
  ) {}

  /** The API's wording (src/rest/options.ts): `page_size: must be at most 100; got 1000`. */
  get message(): string {
    const { argument, value, issue } = this;
    const at = issue?.path?.length
      ? `${argument}${issue.path.map((p) => `[${String(p)}]`).join("")}`
      : argument;
    // The value refused: the argument's, or its element's the issue names (kinds[1]).
    const input = (issue?.path ?? []).reduce<unknown>(
      (v, k) => (v as Record<PropertyKey, unknown> | null | undefined)?.[k],
      value,
    );
    const got = `; got ${JSON.stringify(input) ?? String(input)}`;
    if (!issue) return `${at}: not valid${got}`;
    const origin = (issue as { origin?: string }).origin;
    const what = (n: unknown, noun: string) =>
      origin === "string" ? `${n} characters` : origin === "array" ? `${n} ${noun}` : String(n);
    switch (issue.code) {
      case "invalid_type":
        if (input === undefined) return `${at}: required`;
        return `${at}: must be ${TYPE_NAMES[issue.expected] ?? issue.expected}${got}`;
      case "too_big":
        return `${at}: must be at most ${what(issue.maximum, "items")}${got}`;
      case "too_small":
        return origin === "string" && issue.minimum === 1
          ? `${at}: must not be empty`
          : `${at}: must be at least ${what(issue.minimum, "items")}${got}`;
      case "invalid_value": {
        const valid = issue.values.map(String);
        return `${at}: must be one of ${valid.join(", ")}${got}${meant(nearNames(String(input), valid))}`;
      }
      case "invalid_union":
        return `${at}: must be a string or a number${got}`;
      default:
        return `${at}: ${issue.message}${got}`;
    }
  }
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "a list",
  record: "an object",
  object: "an object",
};

/** `schema`, its refusals caught as a Refused value (none is caught when JSON Schema asks, with no input). */
const refusing = (argument: string, schema: z.ZodType): z.ZodType =>
  schema.catch((ctx: z.core.$ZodCatchCtx | undefined) =>
    ctx === undefined ? undefined : (new Refused(argument, ctx.input, ctx.error.issues[0]) as never),
  );

/** The arguments of the tools that stand for no REST operation. */
function ownArguments(spec: ToolSpec, shape: Record<string, z.ZodType>): void {
  if (spec.name === "usage")
    shape.fields = z.string().optional().describe("Comma-separated fields of the answer; blank for all.");
  if (spec.name === "lookup_vocabulary") {
    shape.text = z.string().min(1).max(200).describe("The free text: a name as a person would write it.");
    shape.kinds = z
      .array(z.enum(VOCABULARY_KINDS))
      .optional()
      .describe(`The vocabularies to look in (default: all): ${VOCABULARY_KINDS.join(", ")}.`);
    shape.limit = z
      .number()
      .int()
      .min(1)
      .max(5)
      .optional()
      .describe("Values per vocabulary, 1 to 5 (default 5).");
  }
}

/**
 * A record of an answer: any object (its fields are the API's, asked by `fields`). A loose object
 * rather than a record of string keys: the SDK checks every answer against its output schema, and
 * a record checked each key (11 µs for a Domain of 60 fields, against 4.5).
 */
const RECORD = z.looseObject({});

/** An envelope key's schema (src/rest/route.ts's Part). */
function partSchema(part: Part): z.ZodType {
  if ("records" in part) return z.array(RECORD);
  if ("record" in part) return RECORD;
  const base = {
    boolean: z.boolean(),
    integer: z.number().int(),
    string: z.string(),
    "string[]": z.array(z.string()),
  }[part.type];
  // A value the answer leaves out (`when`) or gives as null (the feed's end has no cursor).
  return part.when || part.type === "string" ? base.nullable().optional() : base;
}

/** What a tool adds to a cut answer: how many records it shows of how many, and how to get the rest. */
export const CUT = z.looseObject({}).optional();

/** A tool's output schema: its REST answer's envelope (from its route), or its own for the others. */
export const outputSchemaOf = memo(outputSchema);

function outputSchema(spec: ToolSpec): z.ZodType {
  const op = operationOf(spec);
  if (spec.name === "export_segment")
    return z.object({
      status: z.enum(["running", "done", "dry_run"]),
      progress: z.number().int().optional(),
      total: z.number().int().optional(),
      url: z.string(),
      format: z.string(),
      fetch: z.string(),
      // With dry_run: REST's dry_run answer (domains, bytes, gzip_bytes, would_draw).
      dry_run: RECORD.optional(),
    });
  if (spec.name === "usage") return z.object({ usage: RECORD });
  if (spec.name === "lookup_vocabulary")
    return z.object({
      text: z.string(),
      best: z.array(
        z.object({
          kind: z.enum(VOCABULARY_KINDS),
          filter: z.string(),
          value: z.string(),
          name: z.string().optional(),
          score: z.number(),
        }),
      ),
      matches: z.record(
        z.string(),
        z.array(z.object({ value: z.string(), name: z.string().optional(), score: z.number() })),
      ),
    });
  if (op?.route.facets)
    return z.looseObject({
      total: z.number().int(),
      facets: z.record(z.string(), z.array(RECORD)).optional(),
      other: z.record(z.string(), z.number()).optional(),
      missing: z.record(z.string(), z.number()).optional(),
      histograms: z.record(z.string(), z.array(RECORD)).optional(),
    });
  const shape: Record<string, z.ZodType> = {};
  for (const [key, part] of Object.entries(op?.route.envelope ?? {})) shape[key] = partSchema(part);
  if (spec.records) shape.cut = CUT;
  return z.object(shape);
}
