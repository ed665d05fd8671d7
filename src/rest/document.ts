import {
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  Kind,
  OperationTypeNode,
  parseType,
  type SelectionSetNode,
  type VariableDefinitionNode,
} from "graphql";
import { LRUCache } from "lru-cache";

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
