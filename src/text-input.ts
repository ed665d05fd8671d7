import {
  type ArgumentNode,
  type DocumentNode,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type ValueNode,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import { textProblem } from "./text.ts";

/** The first string in a JSON value that textProblem refuses, with its path below `path`. */
function badInValue(value: unknown, path: string): { path: string; problem: string } | null {
  // Iterative: a variable's value can be nested deeper than the call stack (it is coerced later).
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length) {
    const [v, at] = stack.pop() as [unknown, string];
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) return { path: at, problem };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}[${i}]`]);
    } else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v).reverse()) stack.push([x, `${at}.${k}`]);
    }
  }
  return null;
}

/** The first refused string an argument's value holds, as a literal or through variables. */
function badInArgument(
  node: ValueNode,
  path: string,
  variables: Record<string, unknown>,
  defaults: Map<string, ValueNode>,
): { path: string; problem: string } | null {
  switch (node.kind) {
    case Kind.STRING: {
      const problem = textProblem(node.value);
      return problem ? { path, problem } : null;
    }
    case Kind.LIST:
      for (const [i, item] of node.values.entries()) {
        const bad = badInArgument(item, `${path}[${i}]`, variables, defaults);
        if (bad) return bad;
      }
      return null;
    case Kind.OBJECT:
      for (const f of node.fields) {
        const bad = badInArgument(f.value, `${path}.${f.name.value}`, variables, defaults);
        if (bad) return bad;
      }
      return null;
    case Kind.VARIABLE: {
      const name = node.name.value;
      if (Object.hasOwn(variables, name)) return badInValue(variables[name], path);
      const fallback = defaults.get(name);
      return fallback ? badInArgument(fallback, path, {}, new Map()) : null;
    }
    default:
      return null;
  }
}

/**
 * A BAD_USER_INPUT error naming the first argument of the operation to run whose strings (in the
 * document, or in the variables it uses) textProblem refuses; null when there is none. The
 * argument is named as resolvers name theirs (`filter.technologies.values[1]`), so the REST layer
 * renames it to the option it came from.
 */
export function refusedText(
  document: DocumentNode,
  variables: Record<string, unknown> | null | undefined,
  operationName?: string | null,
): GraphQLError | null {
  const shape = argumentsOf(document, operationName ?? null);
  if (!shape) return null;
  for (const arg of shape.args) {
    const bad = badInArgument(arg.value, arg.name.value, variables ?? {}, shape.defaults);
    if (bad) {
      return new GraphQLError(`${bad.path}: ${bad.problem}`, {
        nodes: arg,
        extensions: { code: "BAD_USER_INPUT", argument: bad.path },
      });
    }
  }
  return null;
}

interface OperationArguments {
  /** Every argument of the operation and of the fragments, depth first in document order. */
  args: ArgumentNode[];
  defaults: Map<string, ValueNode>;
}

/**
 * The arguments to check, found once per document and operation: documents are parsed once and
 * cached by yoga, so a repeated operation costs only the look at its values.
 */
const SHAPES = new WeakMap<DocumentNode, Map<string | null, OperationArguments | null>>();

function argumentsOf(document: DocumentNode, operationName: string | null): OperationArguments | null {
  let byName = SHAPES.get(document);
  if (!byName) {
    byName = new Map();
    SHAPES.set(document, byName);
  }
  if (byName.has(operationName)) return byName.get(operationName) ?? null;
  const shape = findArguments(document, operationName);
  byName.set(operationName, shape);
  return shape;
}

function findArguments(document: DocumentNode, operationName: string | null): OperationArguments | null {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const chosen = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (!chosen) return null;
  const defaults = new Map<string, ValueNode>();
  for (const v of chosen.variableDefinitions ?? []) {
    if (v.defaultValue) defaults.set(v.variable.name.value, v.defaultValue);
  }
  // The chosen operation and the fragments, which it may spread (an unused one fails validation).
  const roots = document.definitions.filter((d) => d === chosen || d.kind === Kind.FRAGMENT_DEFINITION);
  // Depth first, in document order: the first bad argument is the one named.
  const args: ArgumentNode[] = [];
  const stack: unknown[] = [...roots].reverse();
  while (stack.length) {
    const node = stack.pop() as { kind?: string } & Record<string, unknown>;
    if (node.kind === Kind.ARGUMENT) {
      args.push(node as unknown as ArgumentNode);
      continue;
    }
    for (const key of ["directives", "arguments", "selectionSet", "selections"].reverse()) {
      const child = node[key];
      if (Array.isArray(child)) stack.push(...[...child].reverse());
      else if (child) stack.push(child);
    }
  }
  return { args, defaults };
}

/**
 * Refuses, before execution, an operation whose string arguments hold text that no value can
 * (textProblem): one check for both faces, as the REST layer runs GraphQL operations.
 */
export function useTextInput(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const error = refusedText(
        args.document,
        args.variableValues as Record<string, unknown> | null,
        args.operationName,
      );
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}
