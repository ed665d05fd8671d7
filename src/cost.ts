import { complexityFromQuery } from "@pothos/plugin-complexity";
import { type DocumentNode, Kind } from "graphql";
import type { Plugin } from "graphql-yoga";
import { LRUCache } from "lru-cache";
import { apiError } from "./errors.ts";

/**
 * The cost limit of a GraphQL operation, computed by @pothos/plugin-complexity from the fields the
 * schema declares: every field costs 1; a connection's selection counts once per item asked for
 * (`first`, default 50), `domainsByName` and `nodes` once per name or ID, another list's selection
 * 10 times. So a page of 1000 Domains with nested lists costs what it costs.
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
  return complexityFromQuery(operationDocument(args.document, args.operationName), {
    schema: args.schema,
    variables: args.variableValues ?? {},
    ctx: (args.contextValue ?? {}) as object,
  }).complexity;
}

/**
 * Costs already computed, by document (yoga's parser cache hands out the same object for the same
 * text) and variables: the REST routes send the same few documents with the same few page sizes.
 */
const costs = new WeakMap<DocumentNode, LRUCache<string, number>>();
const MAX_VARIANTS = 200;

function cachedCost(args: Parameters<typeof operationCost>[0]): number {
  let byVariables = costs.get(args.document);
  if (!byVariables) {
    byVariables = new LRUCache({ max: MAX_VARIANTS });
    costs.set(args.document, byVariables);
  }
  const key = `${args.operationName ?? ""}\u0000${JSON.stringify(args.variableValues ?? {})}`;
  let cost = byVariables.get(key);
  if (cost === undefined) {
    cost = operationCost(args);
    byVariables.set(key, cost);
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
