import {
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  getArgumentValues,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  parseType,
  type SelectionSetNode,
  type VariableDefinitionNode,
} from "graphql";
import { LRUCache } from "lru-cache";
import { withInputCodes } from "../errors.ts";
import { schema } from "../schema/index.ts";
import { refusedText } from "../text-input.ts";

/**
 * GraphQL documents of REST routes, built as graphql-js AST (never by string concatenation), once
 * per distinct (route, fields) pair, and handed to execution as they are (as SOFA does): never
 * printed to be parsed again. yoga's validation and graphql-jit's compilation are cached by the
 * document object, so each distinct document is validated and compiled once.
 */
const nameNode = (value: string) => ({ kind: Kind.NAME, value }) as const;

/** A field whose arguments are all variables of the same name: `field(a: $a, b: $b) { ... }`. */
export function field(name: string, args: string[] = [], selectionSet?: SelectionSetNode): FieldNode {
  const argumentNodes: ArgumentNode[] = args.map((a) => ({
    kind: Kind.ARGUMENT,
    name: nameNode(a),
    value: { kind: Kind.VARIABLE, name: nameNode(a) },
  }));
  return { kind: Kind.FIELD, name: nameNode(name), arguments: argumentNodes, selectionSet };
}

/** A field whose arguments are variables of other names (`args`: argument → variable), under `alias`. */
export function call(
  name: string,
  args: Record<string, string>,
  selectionSet?: SelectionSetNode,
  alias?: string,
): FieldNode {
  const argumentNodes: ArgumentNode[] = Object.entries(args).map(([a, v]) => ({
    kind: Kind.ARGUMENT,
    name: nameNode(a),
    value: { kind: Kind.VARIABLE, name: nameNode(v) },
  }));
  return {
    kind: Kind.FIELD,
    alias: alias ? nameNode(alias) : undefined,
    name: nameNode(name),
    arguments: argumentNodes,
    selectionSet,
  };
}

export const selection = (...fields: FieldNode[]): SelectionSetNode => ({
  kind: Kind.SELECTION_SET,
  selections: fields,
});

/** A query operation named after the route, declaring `variables` (name → GraphQL type). */
export function operation(
  name: string,
  variables: Record<string, string>,
  root: FieldNode,
  kind: "query" | "mutation" = "query",
): DocumentNode {
  const definitions: VariableDefinitionNode[] = Object.entries(variables).map(([v, type]) => ({
    kind: Kind.VARIABLE_DEFINITION,
    variable: { kind: Kind.VARIABLE, name: nameNode(v) },
    type: parseType(type),
  }));
  return {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: kind === "mutation" ? OperationTypeNode.MUTATION : OperationTypeNode.QUERY,
        name: nameNode(name),
        variableDefinitions: definitions,
        selectionSet: selection(root),
      },
    ],
  };
}

const built = new LRUCache<string, DocumentNode>({ max: 5000 });

/** The document for `key`, built by `build` the first time (the same object every time after). */
export function cachedDocument(key: string, build: () => DocumentNode): DocumentNode {
  let document = built.get(key);
  if (document === undefined) {
    document = build();
    built.set(key, document);
  }
  return document;
}

/** A document's operation and its root field, found once per document (documents are built once and kept). */
const shapes = new WeakMap<
  DocumentNode,
  { operation: OperationDefinitionNode; node: FieldNode; field: GraphQLField<unknown, unknown> }
>();

function shapeOf(document: DocumentNode) {
  let shape = shapes.get(document);
  if (!shape) {
    const operation = document.definitions.find(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    );
    const node = operation?.selectionSet.selections[0];
    const root =
      operation?.operation === OperationTypeNode.MUTATION ? schema.getMutationType() : schema.getQueryType();
    const field = node?.kind === Kind.FIELD ? root?.getFields()[node.name.value] : undefined;
    if (!operation || node?.kind !== Kind.FIELD || !field)
      throw new Error("a document without a root field of the schema");
    shape = { operation, node, field };
    shapes.set(document, shape);
  }
  return shape;
}

/**
 * The arguments of a document's root field (a REST route's, read through the query layer rather
 * than executed: src/rest/records.ts, src/rest/change-reading.ts), from its variables, refused as
 * GraphQL refuses them, in the same order: text no value holds (refusedText), then a variable
 * that does not fit its type, then the field's own arguments (coerced, their defaults applied).
 * An error names the argument, as GraphQL's errors do.
 */
export function rootArguments(
  document: DocumentNode,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  const refused = refusedText(document, variables);
  if (refused) throw refused;
  const { operation, node, field } = shapeOf(document);
  const { coerced, errors } = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  if (errors?.length) throw withInputCodes([...errors])[0];
  return getArgumentValues(field, node, coerced) as Record<string, unknown>;
}
