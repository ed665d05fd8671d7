import { z } from "zod";
import type { Endpoint } from "../auth/limits.ts";
import { meant, nearNames } from "../query/suggest.ts";
import { VOCABULARY_KINDS, VOCABULARY_TEXT } from "../query/vocabularies.ts";
import { LIST_OPS } from "../rest/filter-options.ts";
import type { OptionDoc } from "../rest/inputs.ts";
import type { Operation, Part } from "../rest/route.ts";
import { OPERATIONS } from "../rest/routes.ts";

/**
 * The MCP tools (docs/mcp.md), as data: each stands for a REST operation, whose options are its
 * arguments (the same catalogue, src/rest/inputs.ts, that drives the REST filters, fields and
 * facets, read here: no option is listed a second time), plus the path's parts as arguments of
 * their own, the defaults an agent gets (a small page, a compact field set), and the caps of its
 * answer. A tool's answer is the REST answer to the same question (src/mcp/answer.ts).
 */
export interface ToolSpec {
  name: string;
  title: string;
  /** What it does, first in its description (the rest is generated: arguments, defaults, budget). */
  summary: string;
  /** The REST operation it stands for (its id in src/rest/routes.ts); none for usage and the vocabulary. */
  op?: string;
  /** Arguments that fill the operation's path: argument → path parameter, with its description. */
  path?: Record<string, { param: string; description: string; example: string }>;
  /** The operation's options not offered (the tool answers them itself, or they do not apply). */
  omit?: readonly string[];
  /** Options given when the call does not: the compact defaults. */
  defaults?: Record<string, string | number>;
  /** The largest page_size a call may ask for. */
  maxPage?: number;
  /** The answer's key holding its records, cut to fit MAX_ANSWER_BYTES. */
  records?: string;
  /** How the rest of a cut or paged answer is got. */
  paging?: "cursor" | "page";
  /** The budget it draws on (its REST endpoint's, or its own for usage and the vocabulary). */
  endpoint?: Endpoint | null;
  /** Does it change what the account keeps (lists)? */
  writes?: true;
}

/** An answer's text is at most this many bytes: records past it are cut, and the answer says so. */
export const MAX_ANSWER_BYTES = 64 * 1024;

const DOMAIN_FIELDS = "name,platform,plan,state,country_code,rank,estimated_sales,product_count,categories";
const APP_FIELDS = "id,name,state,installs,average_rating,review_count,categories,vendor_name";
const REVIEW_FIELDS = "updated_at,rating,merchant_name,body";

const DOMAIN_ARG = { param: "name", description: "The Domain's name, e.g. shop.example.com.", example: "" };
const APP_ARG = {
  param: "app",
  description: "The App as <platform>.<token>, e.g. shopify.klaviyo (lookup_vocabulary finds it).",
  example: "",
};
const LIST_ARG = { param: "list", description: "The list's name.", example: "" };

export const TOOLS: readonly ToolSpec[] = [
  {
    name: "search_domains",
    title: "Search Domains",
    summary:
      "Find online stores (Domains) by List Domains' filters: platform (f.p), plan (f.plan), country (f.cc), category (f.cat), installed App (f.an), technology (f.tech), sales and traffic ranges (f.ermin, …), aq and bq queries, q words; sorted by `sort`; paged by `cursor`.",
    op: "searchDomains",
    omit: ["for", "dry_run"],
    defaults: { page_size: 10, fields: DOMAIN_FIELDS },
    maxPage: 100,
    records: "domains",
    paging: "cursor",
  },
  {
    name: "get_domain",
    title: "Get a Domain",
    summary: "One online store (Domain) by name, with the fields asked for.",
    op: "retrieveDomain",
    path: { name: DOMAIN_ARG },
    defaults: { fields: DOMAIN_FIELDS },
  },
  {
    name: "get_domains",
    title: "Get Domains",
    summary: "Up to 100 Domains by name at once, and the names not found.",
    op: "bulkRetrieveDomains",
    defaults: { fields: DOMAIN_FIELDS },
    records: "domains",
  },
  {
    name: "domain_facets",
    title: "Facets of a segment",
    summary:
      "How the Domains matching List Domains' filters spread: their count (total), the commonest values of each dimension asked for (facets: cc, p, plan, cat, tech, an, …) and histograms of numeric fields (histogram: er, rank, …).",
    op: "searchDomainFacets",
  },
  {
    name: "get_app",
    title: "Get an App",
    summary: "One App of an e-commerce platform's App store.",
    op: "retrieveApp",
    path: { app: APP_ARG },
    defaults: { fields: APP_FIELDS },
  },
  {
    name: "search_apps",
    title: "Search Apps",
    summary: "Find Apps by List Apps' filters (platform f.p, category, vendor, installs, …) and q words.",
    op: "searchApps",
    defaults: { page_size: 10, fields: APP_FIELDS },
    maxPage: 50,
    records: "apps",
    paging: "page",
  },
  {
    name: "app_reviews",
    title: "An App's reviews",
    summary: "The reviews of an App, newest first unless sorted otherwise.",
    op: "listAppReviews",
    path: { app: APP_ARG },
    defaults: { page_size: 10, fields: REVIEW_FIELDS },
    maxPage: 50,
    records: "reviews",
    paging: "page",
  },
  {
    name: "domain_app_reviews",
    title: "A Domain's App reviews",
    summary: "The App reviews a Domain (its merchant) wrote.",
    op: "listDomainAppReviews",
    path: { name: DOMAIN_ARG },
    defaults: { page_size: 10 },
    maxPage: 50,
    records: "reviews",
    paging: "page",
  },
  {
    name: "changes",
    title: "The change feed",
    summary:
      "What each load of the dataset changed (Domains added or removed, platform and plan changes, Apps installed or uninstalled, …), in feed order after `cursor`: filter by `kinds`, `since` and List Domains' filters.",
    op: "listChanges",
    defaults: { page_size: 20 },
    maxPage: 100,
    records: "changes",
    paging: "cursor",
  },
  {
    name: "lists",
    title: "Show lists",
    summary: "The lists of Domains the API key's account keeps, with their counts.",
    op: "listLists",
    records: "lists",
  },
  {
    name: "list_domains",
    title: "A list's Domains",
    summary: "The Domains of one of the account's lists, filtered and sorted as List Domains.",
    op: "listListDomains",
    path: { list: LIST_ARG },
    defaults: { page_size: 10, fields: DOMAIN_FIELDS },
    maxPage: 100,
    records: "domains",
    paging: "cursor",
  },
  {
    name: "add_to_list",
    title: "Add Domains to a list",
    summary: "Adds Domains (by name) to a list of the account, made when it has none of that name.",
    op: "addDomainsToList",
    path: { list: LIST_ARG },
    writes: true,
  },
  {
    name: "remove_from_list",
    title: "Remove Domains from a list",
    summary: "Removes Domains (by name) from a list of the account.",
    op: "removeDomainsFromList",
    path: { list: LIST_ARG },
    writes: true,
  },
  {
    name: "usage",
    title: "Usage",
    summary:
      "The API key's plan, what is left of each budget (read without drawing on it), and the month's exports and cursor=all jobs.",
    endpoint: null,
  },
  {
    name: "export_segment",
    title: "Export a segment",
    summary:
      "Starts the cursor=all job of every Domain matching List Domains' filters, or reports its progress when called again with the same arguments (at most once every 5 s): answers its status and the URL that fetches the whole result with the API key, never the records themselves.",
    op: "listDomains",
    omit: ["page_size", "cursor"],
  },
  {
    name: "lookup_vocabulary",
    title: "Look up a vocabulary",
    summary: `The values nearest to a free text in the vocabularies filters take, as the API's "did you mean" finds them: ${VOCABULARY_KINDS.map((k) => `${k} (${VOCABULARY_TEXT[k].what}, for ${VOCABULARY_TEXT[k].filter})`).join(", ")}. "klavio" finds the App shopify.klaviyo; "shopify plus" the plan Shopify Plus.`,
    endpoint: "retrieveDomain",
  },
];

export const operationOf = (spec: ToolSpec): Operation | null => {
  if (!spec.op) return null;
  const op = OPERATIONS.find((o) => o.id === spec.op);
  if (!op) throw new Error(`tool ${spec.name}: no REST operation ${spec.op}`);
  return op;
};

/** The endpoint whose budget a tool's call draws on. */
export const endpointOf = (spec: ToolSpec): Endpoint | null =>
  spec.endpoint !== undefined
    ? spec.endpoint
    : spec.name === "export_segment"
      ? "listDomainsAll"
      : (operationOf(spec)?.route.endpoint ?? null);

/**
 * A REST option's argument name: `:` is written `.` (f.cc for f:cc, f.cc.op for f:cc:op), since
 * clients of several models take only letters, digits, `_`, `.` and `-` in a property's name.
 * Either spelling is read (optionName).
 */
export const argumentName = (option: string) => option.replaceAll(":", ".");
export const optionName = (argument: string) => argument.replaceAll(".", ":");

/** A REST option's schema, from its catalogue entry. */
function schemaOf(doc: OptionDoc, spec: ToolSpec): z.ZodType {
  let s: z.ZodType;
  if (doc.name === "page_size" && spec.maxPage)
    s = z
      .number()
      .int()
      .min(1)
      .max(spec.maxPage)
      .describe(`Page size, 1 to ${spec.maxPage} (default ${spec.defaults?.page_size ?? 50}).`);
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
  const variant = operationOf(spec)?.route.variant?.option;
  const fields =
    doc.name === "fields" && spec.defaults?.fields
      ? ` Default here: ${spec.defaults.fields} (* for the API's own defaults)${variant ? `; with ${variant}, every field it answers` : ""}.`
      : "";
  return (
    doc.name === "page_size" && spec.maxPage ? s : s.describe(`${doc.description}${fields}`)
  ).optional();
}

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

/** Made once per tool: a server is made per HTTP request, and its tools with it. */
export function memo<T>(make: (spec: ToolSpec) => T): (spec: ToolSpec) => T {
  const made = new Map<ToolSpec, T>();
  return (spec) => {
    let value = made.get(spec);
    if (value === undefined) {
      value = make(spec);
      made.set(spec, value);
    }
    return value;
  };
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
export const CUT = z
  .object({ shown: z.number().int(), of: z.number().int(), rest: z.string() })
  .optional()
  .describe(
    `Present when the answer was cut to ${MAX_ANSWER_BYTES} bytes: what it shows, and how to get the rest.`,
  );

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
      dry_run: RECORD.optional().describe(
        "With dry_run: what the job would write (domains, bytes and gzip_bytes, estimated from its first page) and draw (would_draw), as REST's dry_run answers it; nothing started.",
      ),
    });
  if (spec.name === "usage") return z.object({ usage: RECORD });
  if (spec.name === "lookup_vocabulary")
    return z.object({
      text: z.string(),
      matches: z.record(z.string(), z.array(z.object({ value: z.string(), name: z.string().optional() }))),
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
  shape.cut = CUT;
  return z.object(shape);
}
