import type { Endpoint } from "../auth/limits.ts";
import { apiError } from "../errors.ts";
import type { Operation } from "../rest/route.ts";
import { OPERATIONS } from "../rest/routes.ts";

/**
 * The MCP tools (docs/mcp.md), as data: each stands for a REST operation, whose options are its
 * arguments (the same catalogue, src/rest/inputs.ts, that drives the REST filters, fields and
 * facets, read here: no option is listed a second time), plus the path's parts as arguments of
 * their own, the defaults an agent gets (a small page, a compact field set), and the caps of its
 * answer. A tool's answer is the REST answer to the same question (src/mcp/answer.ts); its input
 * and output schemas are made from this data in src/mcp/tool-schemas.ts and tool-output.ts.
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
  /** Does it change what the account keeps (lists, segments)? */
  writes?: true;
  /** Does it take away what the account keeps (edit_list's remove and delete, edit_segment's delete)? */
  destructive?: true;
  /**
   * How its List Domains filters (f:…) are told in the tool list: in full, once (search_domains:
   * src/mcp/filter-grammar.ts), or by reference to it. Either way they are not listed one by one.
   */
  filters?: "described" | "referred";
  /** Whose filters: List Domains' (the default) or List Apps'. */
  filtersOf?: FilterSubject;
  /**
   * A tool of several REST operations, each a form of it (a smaller tool list: one tool for the
   * facets of Domains and of Apps, one for the edits to a list): what each form sets over the tool's
   * own (its op, path, defaults, records, paging, filters). The form a call asks is named by the
   * `choice` argument, or, without one, is the form whose path arguments the call gives (formOf).
   */
  forms?: Readonly<Record<string, Partial<ToolSpec>>>;
  /** The argument whose presence asks this form of its tool (else its path arguments do). */
  asks?: string;
  /** A tool (or form) answered by its own code, not a REST operation's: usage, the vocabularies' look-up. */
  answers?: "usage" | "vocabulary";
  /** The argument that names a call's form, with its description and the form taken without it. */
  choice?: { argument: string; description: string; default?: string };
}

/** The records whose filters (f:…) a tool takes. */
export type FilterSubject = "domains" | "apps";

/** An answer's text is at most this many bytes: records past it are cut, and the answer says so. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** The compact fields a tool answers by default (named once, in the server's instructions). */
export const DOMAIN_FIELDS =
  "name,platform,plan,state,country_code,rank,estimated_sales,product_count,categories";
export const APP_FIELDS = "id,name,state,installs,average_rating,review_count,categories,vendor_name";

/** The REST operation a tool (or one of its forms) asks; none for usage and the look-up of values. */
export const operationOf = (spec: ToolSpec): Operation | null => {
  if (!spec.op) return null;
  const op = OPERATIONS.find((o) => o.id === spec.op);
  if (!op) throw new Error(`tool ${spec.name}: no REST operation ${spec.op}`);
  return op;
};

/**
 * Each form of a tool as a spec of its own (the tool's settings, then the form's), in order; a
 * tool of one operation is its one form.
 */
export const formsOf = memo((spec: ToolSpec): [string, ToolSpec][] =>
  spec.forms
    ? Object.entries(spec.forms).map(([key, form]) => [
        key,
        { ...spec, forms: undefined, choice: undefined, ...form },
      ])
    : [["", spec]],
);

/** The arguments whose presence asks a form: the one it names, or its path's. */
const pathArguments = (spec: ToolSpec) => (spec.asks ? [spec.asks] : Object.keys(spec.path ?? {}));

/**
 * The form of a tool a call asks: the one its `choice` argument names (or the default), or, for a
 * tool without one, the form whose path arguments it gives (segments with `segment`: one segment;
 * without: all of them). A call that gives two forms' arguments, or none that any form can take,
 * is refused naming them.
 */
export function formOf(spec: ToolSpec, args: Record<string, unknown>): ToolSpec {
  if (!spec.forms) return spec;
  const forms = formsOf(spec);
  if (spec.choice) {
    const { argument } = spec.choice;
    const key = args[argument] ?? spec.choice.default;
    const form = forms.find(([k]) => k === key);
    if (!form)
      throw apiError("BAD_USER_INPUT", `${argument}: must be one of ${forms.map(([k]) => k).join(", ")}`);
    return form[1];
  }
  const given = forms.filter(([, f]) => {
    const path = pathArguments(f);
    return path.length > 0 && path.every((a) => args[a] !== undefined);
  });
  if (given.length > 1)
    throw apiError(
      "BAD_USER_INPUT",
      `${given.flatMap(([, f]) => pathArguments(f)).join(", ")}: give one, not both`,
    );
  const form = given[0] ?? forms.find(([, f]) => pathArguments(f).length === 0);
  if (!form)
    throw apiError("BAD_USER_INPUT", `${forms.flatMap(([, f]) => pathArguments(f)).join(" or ")}: required`);
  return form[1];
}

/**
 * How a tool's description names one of its forms: by its choice ("of apps"), or by the path
 * argument that asks it ("with name"; "without name" for the form asked without one).
 */
export function formLabel(spec: ToolSpec, key: string): string {
  if (spec.choice) return `${spec.choice.argument} ${key}`;
  const forms = formsOf(spec);
  const own = pathArguments(forms.find(([k]) => k === key)?.[1] ?? spec);
  if (own.length) return `with ${own.join(", ")}`;
  return `without ${forms.flatMap(([, f]) => pathArguments(f)).join(" or ")}`;
}

/** The key of one of a tool's forms. */
export const formKeyOf = (spec: ToolSpec, form: ToolSpec): string =>
  formsOf(spec).find(([, f]) => f === form)?.[0] ?? "";

/** The REST operations a tool asks (one per form). */
export const operationsOf = (spec: ToolSpec): Operation[] =>
  formsOf(spec).flatMap(([, form]) => operationOf(form) ?? []);

/** What an answer's records are called, by the key that holds them (ToolSpec.records). */
export const NOUNS: Record<string, string> = {
  domains: "Domains",
  apps: "Apps",
  reviews: "reviews",
  changes: "changes",
  lists: "lists",
  loads: "loads",
  segments: "segments",
  matches: "matches",
  lookups: "lookups",
  similar: "lookalikes",
};

/**
 * The endpoint whose budget a call draws on: a tool's, or a form's (endpointOf(formOf(tool,
 * args))); a tool of several forms has none of its own.
 */
export function endpointOf(spec: ToolSpec): Endpoint | null {
  if (spec.forms) throw new Error(`tool ${spec.name}: its forms draw on their own budgets (formOf)`);
  if (spec.endpoint !== undefined) return spec.endpoint;
  if (spec.name === "export_segment") return "listDomainsAll";
  return operationOf(spec)?.route.endpoint ?? null;
}

/**
 * A REST option's argument name: `:` is written `.` (f.cc for f:cc, f.cc.op for f:cc:op), since
 * clients of several models take only letters, digits, `_`, `.` and `-` in a property's name.
 * Either spelling is read (optionName).
 */
export function argumentName(option: string): string {
  return option.replaceAll(":", ".");
}
export const optionName = (argument: string) => argument.replaceAll(".", ":");

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
