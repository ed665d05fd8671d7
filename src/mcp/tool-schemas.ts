import { z } from "zod";
import { meant, nearNames } from "../query/suggest.ts";
import { VOCABULARY_KINDS } from "../query/vocabularies.ts";
import { LIST_OPS } from "../rest/filter-options.ts";
import type { OptionDoc } from "../rest/inputs.ts";
import { describerOf } from "./catalogue.ts";
import { isFilter } from "./filter-grammar.ts";
import {
  APP_FIELDS,
  argumentName,
  DOMAIN_FIELDS,
  formLabel,
  formsOf,
  memo,
  operationOf,
  type ToolSpec,
} from "./tool-spec.ts";

/**
 * The schemas of the MCP tools of src/mcp/catalogue.ts, as zod makes them and tools/list shows
 * them: a tool's input (its path arguments and its REST operation's options, each catching its
 * refusal as a Refused value that the tool answers in the API's words) and its output (its REST
 * answer's envelope, or its own for the tools that stand for no REST operation).
 */

/** A REST option's schema, from its catalogue entry. */
function schemaOf(doc: OptionDoc, spec: ToolSpec): z.ZodType {
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
  // How cursor and page page is said once, in the server's instructions (cursor=all, a job, is
  // export_segment's: a page tool is not told of it).
  if (doc.name === "cursor" || doc.name === "page") return "";
  const short = SHORT[doc.name];
  if (short) return typeof short === "string" ? short : short(doc.description);
  // An option a tool takes as the tool that tells its filters does (q): said once, there, and the
  // tool's description refers to it.
  if (spec.filters === "referred") {
    const describer = describerOf(spec.filtersOf ?? "domains");
    const same = operationOf(describer)?.options.find((o) => o.name === doc.name);
    if (same?.description === doc.description) return "";
  }
  return doc.description;
}

/**
 * The tool list's words for options whose REST description is long (docs/api.md says them in
 * full), or made from it: the dimensions a facet, trend or segment's spread is counted by are
 * listed once, by facets' `facets` argument.
 */
const SHORT: Record<string, string | ((rest: string) => string)> = {
  facets: (rest) =>
    rest
      .replace(
        /^Comma-separated dimensions to count the matching records by \(at most (\d+)\), each named as its filter:/,
        "Dimensions to count by (comma-separated, at most $1):",
      )
      .replace(/Without facets and histogram: /, "Default "),
  histogram: (rest) =>
    rest
      .replace(
        /^Comma-separated numbers to spread the records over:/,
        "Numbers to spread the records over (comma-separated):",
      )
      .replace(
        /each alone \((\d+) buckets, bounds chosen\), with :n for n buckets \((\d+ to \d+)\), or with :b1\|b2\|… for the bounds themselves/,
        "each alone ($1 buckets), with :n ($2 buckets) or with :b1|b2|… (the bounds)",
      ),
  dimension: "The dimension (required): one that the facets tool's facets argument names.",
  segment: "Only the entries and exits of this segment of the account (segment_entered, segment_left).",
  spread: (rest) =>
    `The dimensions its members are counted over at each load, as the facets tool names them: 1 to 8 (a list, or comma-separated); default ${/default ([^.]+)\./.exec(rest)?.[1] ?? "p, plan, cc"}.`,
  as_of:
    "The Domain as it was at a load: a snapshot version, RFC 3339 time or date (only the fields the change feed covers).",
  facet_size: "Values per dimension, commonest first: 1 to 100 (default 10).",
  dry_run: "true: how many Domains the job would write, its bytes, and what it would draw; nothing started.",
  for: "The result's format (default json).",
  top: "Without values: how many of the newest load's top values (default 10).",
  aq: "Advanced search: [{field, value, operator}], all met; field a filter without f: (ermin) or q, value comma-separated, operator and (default), or, nand, nor.",
  bq: "Boolean query: {must: {conjuncts}, should: {disjuncts}, must_not: {disjuncts}}; a condition {field, match} (values space-separated; operator or|and), {field, term} or {field, min, max} (max excluded unless inclusive_max).",
};

/**
 * A tool's input schema: its path arguments, then its operation's options under their argument
 * names. Other properties are let through to the API, which refuses them as it refuses an unknown
 * option, with its "did you mean" (f.country: f:cc).
 */
export const inputSchemaOf = memo(inputSchema);

function inputSchema(spec: ToolSpec): z.ZodType {
  const forms = formsOf(spec);
  const shape: Record<string, z.ZodType> = {};
  if (spec.choice) {
    const values = z.enum(forms.map(([key]) => key) as [string, ...string[]]);
    const choice = spec.choice.description ? values.describe(spec.choice.description) : values;
    shape[spec.choice.argument] = spec.choice.default ? choice.optional() : choice;
  }
  // A tool of several forms takes each form's arguments, described once when they say the same.
  const shapes = forms.map(([key, form]) => [key, formShape(form)] as const);
  for (const [, own] of shapes)
    for (const [arg, schema] of Object.entries(own)) {
      if (shape[arg]) continue;
      const said = shapes.flatMap(([key, s]) => (s[arg] ? [[key, describedAs(s[arg])] as const] : []));
      const description = sayOnce(spec, said);
      shape[arg] = description === describedAs(schema) ? schema : schema.describe(description);
    }
  // Forms that page to different bounds: the largest listed, each form's said (and held: callTool).
  const bounds = forms.filter(([, f]) => f.maxPage);
  if (new Set(bounds.map(([, f]) => f.maxPage)).size > 1) {
    const most = Math.max(...bounds.map(([, f]) => f.maxPage ?? 0));
    const each = bounds.map(
      ([key, f]) => `${formLabel(spec, key)}: default ${f.defaults?.page_size ?? 50}, at most ${f.maxPage}`,
    );
    shape.page_size = z
      .number()
      .int()
      .min(1)
      .max(most)
      .describe(`${each.join("; ")}.`)
      .optional();
  }
  // An argument of some forms only (one that asks its form: formOf) is not one every call gives.
  for (const arg of Object.keys(shape))
    if (arg !== spec.choice?.argument && !shapes.every(([, s]) => s[arg])) shape[arg] = shape[arg].optional();
  for (const [arg, schema] of Object.entries(shape)) shape[arg] = refusing(arg, schema);
  return z.looseObject(shape);
}

/** One form's arguments: its path's, then its operation's options under their argument names. */
function formShape(spec: ToolSpec): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [arg, p] of Object.entries(spec.path ?? {}))
    shape[arg] = z.string().min(1).describe(p.description);
  const op = operationOf(spec);
  for (const doc of op?.options ?? []) {
    if (spec.omit?.includes(doc.name)) continue;
    // The filters are told once, in search_domains' (search_apps') description, not listed one by
    // one; aq and bq too, by the tools that refer to it (their descriptions say they take them).
    if (spec.filters && isFilter(doc)) continue;
    if (spec.filters === "referred" && (doc.name === "aq" || doc.name === "bq")) continue;
    shape[argumentName(doc.name)] = schemaOf(doc, spec);
  }
  ownArguments(spec, shape);
  return shape;
}

/** A schema's description, an optional one's too (zod keeps it on the schema made optional). */
const describedAs = (schema: z.ZodType): string =>
  schema.description ?? (schema instanceof z.ZodOptional ? describedAs(schema.unwrap() as z.ZodType) : "");

/**
 * An argument's description in a tool of several forms, from each form's (`said`: form, words):
 * the same words once; else what they share, then each form's own (facets' `facets`: "…each named
 * as its filter: cc, reg, … (of apps: p, categories, …)").
 */
function sayOnce(spec: ToolSpec, given: readonly (readonly [string, string])[]): string {
  // A form's words that defer to another's ("As in Retrieve a Domain."), or that another's
  // continue ("Default: the Domain set." and "…set; with as_of, …"), say nothing of their own.
  const said = given.filter(
    ([, words], i) =>
      words !== "" &&
      !(words.startsWith("As in ") && given.some(([, w]) => w && !w.startsWith("As in "))) &&
      !given.some(([, other], j) => j !== i && other !== words && other.startsWith(words.replace(/\.$/, ""))),
  );
  if (said.length === 0) return given[0]?.[1] ?? "";
  const [[, first], ...rest] = said;
  if (rest.every(([, words]) => words === first)) return first;
  const common = (at: (words: string, i: number) => string | undefined) => {
    let n = 0;
    while (said.every(([, words]) => at(words, n) !== undefined && at(words, n) === at(first, n))) n++;
    return n;
  };
  // What they share before and after, by whole words; between, each form's own.
  const head = first
    .slice(
      0,
      common((w, i) => w[i]),
    )
    .replace(/\S*$/, "");
  const tailLength = common((w, i) => (i < w.length - head.length ? w[w.length - 1 - i] : undefined));
  const tail = first.slice(first.length - tailLength).replace(/^\w*/, "");
  const own = said.map(
    ([key, words]) => [key, words.slice(head.length, words.length - tail.length)] as const,
  );
  const [[, mine], ...others] = own;
  return `${head}${mine} (${others.map(([key, words]) => `${formLabel(spec, key)}: ${words}`).join("; ")})${tail}`;
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
    // Left out: zod says an enum's value is not one of them (action), a string's type is wrong.
    if (input === undefined) return `${at}: required`;
    const origin = (issue as { origin?: string }).origin;
    const what = (n: unknown, noun: string) =>
      origin === "string" ? `${n} characters` : origin === "array" ? `${n} ${noun}` : String(n);
    switch (issue.code) {
      case "invalid_type":
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
  if (spec.answers === "usage")
    shape.fields = z.string().optional().describe("Comma-separated fields of the answer; blank for all.");
  if (spec.answers === "vocabulary") {
    shape.text = z.string().min(1).max(200).describe("A name as a person writes it.");
    shape.kinds = z
      .array(z.enum(VOCABULARY_KINDS))
      .optional()
      .describe("The vocabularies to look in (default: all).");
    shape.limit = z
      .number()
      .int()
      .min(1)
      .max(5)
      .optional()
      .describe("Values per vocabulary, 1 to 5 (default 5).");
  }
}
