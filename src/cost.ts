import { complexityFromQuery } from "@pothos/plugin-complexity";
import {
  BREAK,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getVariableValues,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  TypeInfo,
  type ValueNode,
  visit,
  visitWithTypeInfo,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import { LRUCache } from "lru-cache";
import type { ReadContext } from "./context.ts";
import { apiError } from "./errors.ts";

/**
 * The cost limit of a GraphQL operation, computed by @pothos/plugin-complexity from the fields the
 * schema declares: every field costs 1; a connection's selection counts once per item asked for
 * (`first`, default 50), `domainsByName` and `nodes` once per name or ID, another list's selection
 * 10 times. So a page of 1000 Domains with nested lists costs what it costs.
 *
 * A facet or histogram, which counts over a whole list, is charged by the statements it runs and
 * the records they may read (scanCost, below), not by the page.
 *
 * It is checked before execution, so an operation over the limit reads nothing and draws on no
 * rate-limit budget. The limit admits the largest REST request (a page of 1000 Domains with every
 * field) with room to spare: test/graphql/cost.test.ts checks it.
 */
export const MAX_COST = 2_000_000;

/** The operation that runs (operationName, or the only one) with the fragments it may use. */
function operationDocument(document: DocumentNode, operationName?: string | null): DocumentNode {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const chosen = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  return {
    ...document,
    definitions: document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION || d === chosen),
  };
}

export function operationCost(args: {
  schema: Parameters<typeof complexityFromQuery>[1]["schema"];
  document: DocumentNode;
  variableValues?: Record<string, unknown> | null;
  operationName?: string | null;
  contextValue?: unknown;
}): number {
  const document = operationDocument(args.document, args.operationName);
  const fields = complexityFromQuery(document, {
    schema: args.schema,
    variables: args.variableValues ?? {},
    ctx: (args.contextValue ?? {}) as object,
  }).complexity;
  if (!mayScan(args.document)) return fields;
  return fields + scanCost(args.schema, document, args.variableValues ?? {}, rowsOf(args.contextValue));
}

/** The fields that declare `scans` (src/schema/facets.ts): facets and histogram. */
export const SCANNING = new Set(["facets", "histogram"]);
const scanning = new WeakMap<DocumentNode, boolean>();

/**
 * Whether a document selects a field of a scanning name anywhere (found once per document): the
 * others, every REST document among them, skip the second walk of scanCost.
 */
function mayScan(document: DocumentNode): boolean {
  let found = scanning.get(document);
  if (found === undefined) {
    found = false;
    visit(document, {
      Field(node) {
        if (SCANNING.has(node.name.value)) {
          found = true;
          return BREAK;
        }
        return undefined;
      },
    });
    scanning.set(document, found);
  }
  return found;
}

// ---------------------------------------------------------------------- scans (facets, histograms)

/**
 * A field that counts over a whole list rather than reading items (facets, histograms) declares
 * `extensions.scans(args)`: how many statements it runs, each of which may read every record of
 * the list's table. It is charged `scans × rows / 100` (rows: the served snapshot's count of the
 * table's records, the largest segment a list may have), once for the connection it is on, not
 * once per item of its page: at a million Domains, 10,000 per dimension. Nested in a list of
 * parents (installedOn of each App of a page) it is charged once per parent, as the fields of
 * each parent are. Its own selection costs nothing more.
 */
export interface Scans {
  table: "domain" | "app";
  count: (args: Record<string, unknown>) => number;
}

/** The records of each table a scan may read: the served snapshot's, or a million when none is served. */
function rowsOf(context: unknown): Record<Scans["table"], number> {
  const snapshot = (context as Partial<ReadContext> | undefined)?.served?.snapshot;
  return snapshot ? { domain: snapshot.domains, app: snapshot.apps } : { domain: 1_000_000, app: 1_000_000 };
}

/** Pothos' multiplier of a field's selection (src/schema/builder.ts sets the defaults). */
function multiplierOf(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): number {
  let option = field.extensions?.complexity as unknown;
  if (typeof option === "function") option = option(args, {}, field);
  if (option && typeof option === "object" && "multiplier" in option) return Number(option.multiplier);
  const type = isNonNullType(field.type) ? field.type.ofType : field.type;
  return isListType(type) ? 10 : 1;
}

function scanCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  rawVariables: Record<string, unknown>,
  rows: Record<Scans["table"], number>,
): number {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (!operation) return 0;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables);
  if (coerced.errors) throw coerced.errors[0];
  const variables = coerced.coerced;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((f) => [f.name.value, f]),
  );
  let total = 0;
  const typeNamed = (name: string | undefined, fallback: GraphQLNamedType) =>
    (name ? schema.getType(name) : undefined) ?? fallback;
  /** `scale`: how many times this selection is made; `outer`: how many times its parent field is. */
  const walk = (
    set: SelectionSetNode,
    type: GraphQLNamedType,
    scale: number,
    outer: number,
    depth: number,
  ) => {
    if (depth > 64) return;
    for (const s of set.selections) {
      if (s.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(s.name.value);
        if (f) walk(f.selectionSet, typeNamed(f.typeCondition.name.value, type), scale, outer, depth + 1);
        continue;
      }
      if (s.kind === Kind.INLINE_FRAGMENT) {
        walk(s.selectionSet, typeNamed(s.typeCondition?.name.value, type), scale, outer, depth + 1);
        continue;
      }
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      const field = type.getFields()[s.name.value];
      if (!field) continue;
      const scans = field.extensions?.scans as Scans | undefined;
      const args = getArgumentValues(field, s, variables);
      if (scans) {
        total += outer * scans.count(args) * Math.max(1, Math.ceil(rows[scans.table] / 100));
        continue;
      }
      if (s.selectionSet)
        walk(
          s.selectionSet,
          getNamedType(field.type),
          scale * Math.max(0, multiplierOf(field, args)),
          scale,
          depth + 1,
        );
    }
  };
  const root = schema.getRootType(operation.operation);
  if (root) walk(operation.selectionSet, root, 1, 1, 0);
  return total;
}

/**
 * Costs already computed, by document (yoga's parser cache hands out the same object for the same
 * text) and variables: the REST routes send the same few documents with the same few page sizes.
 * Only the variables that can change the cost are part of the key (weighingVariables): a cursor
 * weighs nothing (the cost reads page sizes and selections, never where a page starts), so a
 * client paging a connection or the change feed with `after` as a variable pays for its cost once,
 * not once per page (the walk was 3–4% of a feed page's CPU, profiled at 100,000 Domains), and a
 * lookup's name weighs nothing either. test/graphql/cost.test.ts holds every `after` and `before`
 * argument of the schema to a cursor.
 */
const costs = new WeakMap<DocumentNode, { byVariables: LRUCache<string, number>; weighing: Set<string> }>();
const MAX_VARIANTS = 200;
const CURSOR_ARGUMENTS = new Set(["after", "before"]);

/** The variables of a value (an argument's, however nested). */
function variablesIn(value: ValueNode, into: Set<string>): void {
  if (value.kind === Kind.VARIABLE) into.add(value.name.value);
  else if (value.kind === Kind.LIST) for (const v of value.values) variablesIn(v, into);
  else if (value.kind === Kind.OBJECT) for (const f of value.fields) variablesIn(f.value, into);
}

/**
 * The variables of `document` that can change its cost: those in a directive's arguments
 * (`@include`, `@skip`), in the arguments of a field whose cost is a function of them (a
 * connection's page size, `domainsByName`'s names: @pothos/plugin-complexity keeps it as the
 * field's `complexity` extension) other than its cursors, and in a scanning field's. Every other
 * field costs what its definition says, whatever its arguments: a lookup's `name` weighs nothing,
 * and a client looking up a Domain after another pays for the walk once, not once a name (it was
 * 2.6% of a lookup's CPU at 1M Domains).
 */
export function weighingVariables(schema: GraphQLSchema, document: DocumentNode): Set<string> {
  const weighing = new Set<string>();
  const info = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(info, {
      Directive(node) {
        for (const a of node.arguments ?? []) variablesIn(a.value, weighing);
      },
      Field(node) {
        const def = info.getFieldDef();
        const weighs =
          !def || typeof def.extensions?.complexity === "function" || SCANNING.has(node.name.value);
        if (!weighs) return;
        for (const a of node.arguments ?? []) {
          if (CURSOR_ARGUMENTS.has(a.name.value) && a.value.kind === Kind.VARIABLE) continue;
          variablesIn(a.value, weighing);
        }
      },
    }),
  );
  return weighing;
}

export function cachedCost(args: Parameters<typeof operationCost>[0]): number {
  let cached = costs.get(args.document);
  if (!cached) {
    cached = {
      byVariables: new LRUCache({ max: MAX_VARIANTS }),
      weighing: weighingVariables(args.schema, args.document),
    };
    costs.set(args.document, cached);
  }
  // Scans are charged by the served snapshot's size (scanCost): its version is part of the key.
  const version = (args.contextValue as Partial<ReadContext> | undefined)?.served?.snapshot.version ?? 0;
  const variables = args.variableValues ?? {};
  const weighed: Record<string, unknown> = {};
  for (const name of cached.weighing) if (name in variables) weighed[name] = variables[name];
  const key = `${version}\u0000${args.operationName ?? ""}\u0000${JSON.stringify(weighed)}`;
  let cost = cached.byVariables.get(key);
  if (cost === undefined) {
    cost = operationCost(args);
    cached.byVariables.set(key, cost);
  }
  return cost;
}

export function useCostLimit(max = MAX_COST): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      let cost: number;
      try {
        cost = cachedCost(args);
      } catch {
        // Variables that do not fit their types: execution reports them (BAD_USER_INPUT), and
        // reads nothing.
        return;
      }
      if (cost > max) {
        setResultAndStopExecution({
          errors: [
            apiError(
              "QUERY_TOO_COMPLEX",
              `the operation costs ${cost.toLocaleString("en-US")}, more than the limit of ${max.toLocaleString("en-US")}: ` +
                "ask for fewer items (first) or fewer nested lists. Each field costs 1; a connection's selection " +
                "counts once per item asked for, another list's 10 times.",
              { cost, maxCost: max },
            ),
          ],
        });
      }
    },
  };
}
