import type { DocumentNode, FieldNode, GraphQLObjectType, SelectionSetNode } from "graphql";
import type { Endpoint } from "../auth/limits.ts";
import type { ReadContext } from "../context.ts";
import { schema } from "../schema/index.ts";
import { cachedDocument, field, operation, selection } from "./document.ts";
import { at, gzippedEnvelope, type Member, writeEnvelope } from "./envelope.ts";
import { parseFields, type Selection, selectionKey, toSelectionSet } from "./fields.ts";
import type { FilterTables } from "./filter-options.ts";
import { FIELDS_OPTION, type Input, type OptionDoc, optionOf } from "./inputs.ts";
import { legacyWriter, type SharedTexts } from "./legacy-writer.ts";
import type { Options } from "./options.ts";
import { type RecordsPlan, recordsPlanOf, renderedPlanOf } from "./records.ts";
import { isRenderedSelection } from "./rendered.ts";

/**
 * A route of the legacy REST API as data (the table is src/rest/routes.ts): its path, methods,
 * rate limit, inputs, the GraphQL fields it descends and the keys of its JSON envelope. Everything
 * else is derived here from that: the options it accepts, its GraphQL document, its envelope, the
 * renaming of GraphQL arguments back to options in error messages; the OpenAPI document
 * (src/rest/openapi.ts) and the handler (src/rest/handler.ts) read the same data.
 */
export interface Route {
  /** The operation id of each method it answers. A POST or PUT takes its options as a JSON body. */
  methods: { GET?: string; POST?: string; PUT?: string; DELETE?: string };
  /** The path template under /json/api/v1/all: `{platform}.{token}` and `{name}` are one segment. */
  path: string;
  summary: string;
  /** The rate limit it draws on (docs/api.md section 8). */
  endpoint: Endpoint;
  /** The GraphQL type of its records, whose fields `fields` selects. */
  type:
    | "App"
    | "AppReview"
    | "Domain"
    | "DomainMatch"
    | "DomainLookup"
    | "DomainRelated"
    | "SimilarDomain"
    | "Snapshot"
    | HistoryType
    | AccountType;
  /**
   * Its operation is a mutation (an account's lists): never cached (no ETag, no 304), and run on
   * the method's own operation id.
   */
  mutation?: true;
  /**
   * Answers what an account keeps besides the snapshot (a list's Domains): the snapshot's version
   * does not tell when it changed, so it has no ETag.
   */
  uncached?: true;
  /** Fields of `type` it never returns. */
  exclude?: readonly string[];
  /** `fields` of one record (no list-only defaults). */
  single?: boolean;
  inputs: readonly Input[];
  /**
   * The fields its GraphQL query descends from the root, each with its arguments (variables of the
   * same names, declared by the inputs). Absent for a route answered only whole (Export Domains).
   */
  query?: readonly (readonly [field: string, args: readonly string[]])[];
  /** The envelope's keys, in order, and where each value is under the last field of `query`. */
  envelope: Record<string, Part>;
  /** The filter tables of its `f:` options, to name them in error messages. */
  filters?: FilterTables;
  /**
   * Answered whole by src/export/export.ts on a budget of its own: a JSON Lines `stream` of every
   * match, or a `job` (cursor=all: 202 while it runs, then the result).
   */
  whole?: { kind: "stream" | "job"; endpoint: Endpoint };
  /** Answers the facets of the list it names (src/rest/facets.ts, planFacets), not records: no `fields`. */
  facets?: "domain" | "app";
  /** Answers a file's bytes (a snapshot's Parquet file: src/files/routes.ts), not records: no `fields`. */
  file?: true;
  /** Answered by another route of its path (not in the table) when this option is given (as_of). */
  variant?: { option: string; route: Route };
  /** The option a GraphQL argument came from, where the route's own naming differs (else optionOf). */
  option?: (argument: string) => string | undefined;
  /**
   * Each record as REST writes it, where a field's REST form is not its GraphQL one (a webhook's
   * filter: List Domains' options, as REST takes it, for GraphQL's DomainFilter).
   */
  recordOf?: (record: Record<string, unknown>) => Record<string, unknown>;
}

type HistoryType = "Change" | "TrendLoad" | "DomainAsOf";
type AccountType = "DomainList" | "Segment" | "Webhook" | "WebhookDelivery";

/** One key of an envelope. Paths are dotted; "" is the last field of the query itself. */
export type Part =
  /** A list of records, or a connection's nodes, written by `fields`. */
  | { records: string; connection?: true }
  /** One record, written by `fields`. */
  | { record: string }
  /** A plain value, of this JSON type; left out when the value at `when` is false. */
  | { value: string; type: "boolean" | "integer" | "string" | "string[]"; when?: string };

/** A route answering one method: what the handler matches and OpenAPI lists. */
export type Method = "GET" | "POST" | "PUT" | "DELETE";

export interface Operation {
  id: string;
  method: Method;
  /** Options come from a JSON body (POST, PUT), or from the query string. */
  body: boolean;
  /** The route's path template. */
  path: string;
  summary: string;
  route: Route;
  /** Every option it accepts, `fields` first. */
  options: OptionDoc[];
}

export function operationsOf(routes: readonly Route[]): Operation[] {
  return routes.flatMap((route) => {
    const methods = Object.entries(route.methods) as [Method, string][];
    const options = [
      ...(route.facets || route.file ? [] : [FIELDS_OPTION]),
      ...route.inputs.flatMap((i) => i.options),
    ];
    return methods.map(([method, id]) => ({
      id,
      method,
      body: method === "POST" || method === "PUT",
      path: route.path,
      summary:
        methods.length > 1 && method === "POST" ? `${route.summary} (options as a JSON body)` : route.summary,
      route,
      options,
    }));
  });
}

/** What one request of a route executes, and how its result becomes the envelope. */
export interface Plan {
  /** Identifies the document: the same key always builds the same document. */
  key: string;
  /** The route's GraphQL operation, built once per key (cachedDocument). */
  document: () => DocumentNode;
  variables: Record<string, unknown>;
  /** The legacy envelope of a successful result, as JSON in UTF-8. */
  envelope: (data: Record<string, unknown>, shared: SharedTexts) => Uint8Array<ArrayBuffer>;
  /** GraphQL argument path → the option it came from, for error messages. */
  option: (argument: string) => string;
  /**
   * A Domain route's records, read through the query layer and written from their rows
   * (src/rest/records.ts) rather than executed; null where the row writer cannot write the
   * selection (it is answered by `document`, counted as the writer's fallback).
   */
  records?: {
    plan: RecordsPlan;
    envelope: RecordsEnvelope;
    /**
     * The default fields: the same records copied from the snapshot's rendered records
     * (src/db/rendered.ts), which every served snapshot has: they answer, and `plan` answers
     * only a Domain whose rendered piece was lost or another's (src/rest/answer.ts).
     */
    rendered?: {
      plan: RecordsPlan;
      envelope: RecordsEnvelope;
      /** The same answer as one gzip member, the records' pieces passed on as they are kept. */
      gzipped: RecordsEnvelope;
    };
  } | null;
}

/** A records plan's envelope: the JSON of the root field's value, or undefined where a record cannot be written from its row. */
export type RecordsEnvelope = (
  value: unknown,
  ctx: ReadContext,
  shared: SharedTexts,
) => Uint8Array<ArrayBuffer> | undefined;

const objectType = (name: string) => schema.getType(name) as GraphQLObjectType;

/** The route's `fields`, checked against its type: a bad field is a 400 that names it. */
export function selectionOf(route: Route, options: Options): Selection {
  return parseFields(options.string("fields"), objectType(route.type), {
    exclude: route.exclude ?? [],
    single: route.single ?? false,
  });
}

/** The variables of these inputs, added to `into`. */
export function readInto(
  into: Record<string, unknown>,
  inputs: readonly Input[],
  options: Options,
  params: Record<string, string>,
) {
  for (const input of inputs) Object.assign(into, input.read(options, params));
  return into;
}

/**
 * The request's operation. Of several mistakes, the first one checked is reported: the path (a
 * path that names nothing is a 404 whatever the options), then `fields`, then the other inputs in
 * the table's order.
 */
export function planOf(route: Route, params: Record<string, string>, options: Options): Plan {
  if (route.facets) throw new Error(`route ${route.path} is planned by planFacets (src/rest/facets.ts)`);
  const { ofPath, others, name, root, members, option } = compiled(route);
  const variables = readInto({}, ofPath, options, params);
  const sel = selectionOf(route, options);
  readInto(variables, others, options, params);
  const legacy = legacyWriter(sel);
  const { recordOf } = route;
  const key = `${name}:${selectionKey(sel)}`;
  const document = () => cachedDocument(key, () => documentOf(route, sel));
  return {
    key,
    document,
    variables,
    envelope: (data, shared) =>
      writeEnvelope(
        members,
        recordOf ? (r) => legacy(recordOf(r), shared) : (r) => legacy(r, shared),
        at(data, root),
      ) as Uint8Array<ArrayBuffer>,
    option,
    records: route.type === "Domain" && root.length === 1 ? recordsOf(route, sel, document) : undefined,
  };
}

/** The records of a Domain route whose root field the query layer reads (src/rest/records.ts), once per selection. */
const recordPlans = new WeakMap<Selection, Map<Route, Plan["records"]>>();

function recordsOf(route: Route, sel: Selection, document: () => DocumentNode): Plan["records"] {
  let byRoute = recordPlans.get(sel);
  if (byRoute?.has(route)) return byRoute.get(route);
  const { root, members } = compiled(route);
  const plan = recordsPlanOf(root[0], document, sel);
  const rendered = isRenderedSelection(sel) ? renderedPlanOf(root[0], document) : null;
  const records: Plan["records"] = plan
    ? {
        plan,
        envelope: (value, ctx, shared) =>
          writeEnvelope(members, (record) => plan.write(record, ctx, shared), value),
        ...(rendered
          ? {
              rendered: {
                plan: rendered,
                envelope: (value, ctx, shared) =>
                  writeEnvelope(members, (record) => rendered.write(record, ctx, shared), value),
                gzipped: (value) => gzippedEnvelope(members, value),
              },
            }
          : {}),
      }
    : plan;
  if (!byRoute) {
    byRoute = new Map();
    recordPlans.set(sel, byRoute);
  }
  byRoute.set(route, records);
  return records;
}

/** What planOf needs of a route beyond the request, worked out once per route. */
const compiledRoutes = new WeakMap<Route, ReturnType<typeof compile>>();

function compile(route: Route) {
  return {
    ofPath: route.inputs.filter((i) => i.fromPath),
    others: route.inputs.filter((i) => !i.fromPath),
    name: documentName(route),
    /** Where the envelope's paths start: the last field of the query. */
    root: (route.query ?? []).map(([name]) => name),
    members: Object.entries(route.envelope).map(([key, part]) => memberOf(key, part)),
    option: (argument: string) => route.option?.(argument) ?? optionOf(route.filters ?? null, argument),
  };
}

function compiled(route: Route) {
  let c = compiledRoutes.get(route);
  if (!c) {
    c = compile(route);
    compiledRoutes.set(route, c);
  }
  return c;
}

const documentName = (route: Route) => {
  const id = route.methods.GET ?? route.methods.POST ?? route.methods.PUT ?? route.methods.DELETE ?? "";
  return `${id[0].toUpperCase()}${id.slice(1)}`;
};

interface Tree {
  fields: Map<string, Tree>;
  set?: SelectionSetNode;
}

/** The route's GraphQL operation for a selection: its query's fields, selecting what the envelope reads. */
export function documentOf(route: Route, sel: Selection, records = toSelectionSet(sel)): DocumentNode {
  if (!route.query?.length) throw new Error(`route ${route.path} has no query`);
  const tree: Tree = { fields: new Map() };
  const put = (path: string, set?: SelectionSetNode) => {
    let node = tree;
    for (const name of path ? path.split(".") : []) {
      const next = node.fields.get(name) ?? { fields: new Map() };
      node.fields.set(name, next);
      node = next;
    }
    if (set) node.set = set;
  };
  for (const part of Object.values(route.envelope)) {
    if ("records" in part) put(part.connection ? join(part.records, "edges.node") : part.records, records);
    else if ("record" in part) put(part.record, records);
    else {
      put(part.value);
      if (part.when) put(part.when);
    }
  }
  const render = (node: Tree): SelectionSetNode =>
    node.set ??
    selection(
      ...[...node.fields].map(([name, sub]) =>
        field(name, [], sub.fields.size || sub.set ? render(sub) : undefined),
      ),
    );
  const steps = [...route.query];
  const [lastName, lastArgs] = steps.pop() as (typeof steps)[number];
  let node: FieldNode = field(lastName, [...lastArgs], render(tree));
  for (const [name, args] of steps.reverse()) node = field(name, [...args], selection(node));
  const used = new Set(route.query.flatMap(([, args]) => args));
  const types = Object.assign({}, ...route.inputs.map((i) => i.variables)) as Record<string, string>;
  return operation(documentName(route), pick(types, used), node, route.mutation ? "mutation" : "query");
}

function pick(types: Record<string, string>, used: Set<string>): Record<string, string> {
  for (const name of used) if (!(name in types)) throw new Error(`no input declares the variable $${name}`);
  return Object.fromEntries(Object.entries(types).filter(([name]) => used.has(name)));
}

const join = (a: string, b: string) => (a ? `${a}.${b}` : b);

const steps = (path: string) => (path ? path.split(".") : []);

function memberOf(key: string, part: Part): Member {
  const prefix = `${JSON.stringify(key)}:`;
  if ("records" in part)
    return {
      prefix,
      kind: part.connection ? "connection" : "records",
      path: steps(part.records),
      when: null,
    };
  if ("record" in part) return { prefix, kind: "record", path: steps(part.record), when: null };
  return { prefix, kind: "value", path: steps(part.value), when: part.when ? steps(part.when) : null };
}
