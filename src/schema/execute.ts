import { envelop, useEngine, useSchema } from "@envelop/core";
import { useGraphQlJit } from "@envelop/graphql-jit";
import {
  type DocumentNode,
  type ExecutionResult,
  execute as executeGraphQL,
  GraphQLError,
  parse,
  specifiedRules,
  subscribe,
  validate,
  visit,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import type { ReadContext } from "../context.ts";
import { schema } from "./index.ts";

/**
 * Operations run as code compiled once per document (graphql-jit, through @envelop/graphql-jit),
 * with a JSON writer per document: a repeated operation skips graphql-js' per-field walk of its
 * selection and its generic serialization. Measured A/B at 20k Domains on PostgreSQL (3
 * interleaved rounds, 32 connections): one Domain 1.26× the req/s at 0.72× the CPU per request,
 * a page of 20 Domains 1.39× at 0.62×.
 *
 * Where graphql-jit and graphql-js differ, this keeps graphql-js' behaviour:
 * - A literal argument is written into the compiled code and re-created on each execution, so a
 *   DateTime literal given as a calendar day (`max: "2024-03-01"`, the whole day: isCalendarDay)
 *   would lose that mark. Documents with such a literal run on graphql-js (variables are parsed
 *   per execution by the scalar itself, and keep it).
 * - A variable's bad value is reported by graphql-jit as "Expected type X." with the scalar's
 *   reason as originalError; it is rewritten to graphql-js' message, which gives the reason, as a
 *   client's error (BAD_USER_INPUT), not a fault.
 * - graphql-jit calls a subscription field's `subscribe` with the operation's variables where
 *   its arguments belong (its executeSubscription passes executionContext.variables): the
 *   `changes` subscription's `after` was lost. Subscriptions run on graphql-js.
 * - @envelop/graphql-jit keeps one compiled query per document, compiled for the operationName of
 *   its first run: a document of several operations (GraphiQL's examples, each run with ▶) then
 *   ran its first operation whichever was named. Such documents run on graphql-js.
 * - graphql-jit compiles a variable's coercion by unfolding its input type, and a recursive input
 *   type unfolds without end (zalando-incubator/graphql-jit#81, open): the process allocated until
 *   it ran out of memory. The schema has none (DomainFilter's `and` takes DomainCondition, which
 *   has no `and`), and test/schema.test.ts keeps it so.
 *
 * Every operation runs through these plugins, and so on one path: a client's GraphQL request and
 * a REST route's operation through yoga's (src/app.ts; src/execute-internally.ts adds the client's
 * context), and the reads the server makes itself (an export's lookups by name, the text of
 * shared Apps and technologies) through `execute` below, with a ReadContext of their snapshot.
 */
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether a document can run compiled, by document (documents are parsed once and cached). */
const compilable = new WeakMap<DocumentNode, boolean>();

function canCompile(document: DocumentNode): boolean {
  let known = compilable.get(document);
  if (known === undefined) {
    known = true;
    let operations = 0;
    visit(document, {
      StringValue(node) {
        if (DATE_ONLY.test(node.value)) known = false;
      },
      OperationDefinition(node) {
        if (node.operation === "subscription" || ++operations > 1) known = false;
      },
    });
    compilable.set(document, known);
  }
  return known;
}

export function useCompiledExecution(): Plugin[] {
  return [
    useGraphQlJit(
      {},
      {
        enableIf: (args) => canCompile(args.document),
      },
    ) as Plugin,
    {
      onExecute() {
        return {
          onExecuteDone({ result, setResult }) {
            if (!("errors" in result) || !result.errors?.length || "data" in result) return;
            setResult({ ...result, errors: result.errors.map(asGraphQLJsVariableError) });
          },
        };
      },
    },
  ];
}

function asGraphQLJsVariableError(e: GraphQLError): GraphQLError {
  if (!e.message.startsWith('Variable "$')) return e;
  const original = e.originalError;
  const reason = original && !(original instanceof GraphQLError) ? original.message : null;
  return new GraphQLError(reason ? e.message.replace(/Expected type [^;]*\.$/, reason) : e.message, {
    nodes: e.nodes,
    extensions: { code: "BAD_USER_INPUT" },
  });
}

/**
 * The reads the server makes itself on the one path of execution: `document` (parsed once by its
 * maker, and valid: these documents are built, not sent), compiled once and run as every client's
 * operation runs, on the schema without its per-client limits (no client draws on a budget).
 */
const enveloped = envelop({
  plugins: [
    useEngine({ parse, validate, specifiedRules, execute: executeGraphQL, subscribe }),
    useSchema(schema),
    ...useCompiledExecution(),
  ],
});

export async function execute(
  document: DocumentNode,
  variables: Record<string, unknown>,
  context: ReadContext,
): Promise<ExecutionResult<Record<string, unknown>>> {
  const { execute: run, schema: runSchema } = enveloped();
  return (await run({
    schema: runSchema,
    document,
    contextValue: context,
    variableValues: variables,
  })) as ExecutionResult<Record<string, unknown>>;
}
