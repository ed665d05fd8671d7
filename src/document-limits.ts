import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";
import { GraphQLError, Lexer, Source, TokenKind, type ValidationContext } from "graphql";
import type { Plugin } from "graphql-yoga";
import { apiError } from "./errors.ts";

/**
 * Limits on the shape of a GraphQL document, checked before execution. The deepest useful
 * operation (domains → apps → app → reviews → domains → domain) is depth 12, and the REST layer's
 * largest document (every Domain field with its Apps) is about 250 tokens. `nesting` counts every
 * `{`, `[` and `(` still open, selections and argument values alike: the parser recurses once per
 * level, and a document nested a few thousand deep overflowed its stack before the token limit
 * was reached (docs/decisions.md, Errors).
 */
export const LIMITS = { depth: 15, aliases: 20, tokens: 5000, nesting: 64 };

/**
 * The document limits as envelop plugins: graphql-armor's depth, alias and token limits, the
 * nesting limit before them, and the operation types this read-only API serves. Each refusal
 * says which limit it hit (`extensions.limit`) and the limit (`extensions.max`):
 * - depth and aliases are QUERY_TOO_COMPLEX (HTTP 400, as the cost limit: nothing ran);
 * - tokens and nesting stop the parser: GRAPHQL_PARSE_FAILED, as any other document that does
 *   not parse.
 */
export function documentLimits(): Plugin[] {
  return [
    maxDepthPlugin({
      n: LIMITS.depth,
      exposeLimits: true,
      flattenFragments: true,
      propagateOnRejection: false,
      onReject: [tooComplex("depth", LIMITS.depth)],
    }),
    maxAliasesPlugin({
      n: LIMITS.aliases,
      exposeLimits: true,
      propagateOnRejection: false,
      onReject: [tooComplex("aliases", LIMITS.aliases)],
    }),
    maxTokensPlugin({
      n: LIMITS.tokens,
      exposeLimits: true,
      onReject: [
        (_context, error) => Object.assign(error.extensions, { limit: "tokens", max: LIMITS.tokens }),
      ],
    }),
    useNestingLimit(LIMITS.nesting, LIMITS.tokens),
  ];
}

/** graphql-armor's refusal, reported as a validation error of its own code. */
function tooComplex(limit: string, max: number) {
  return (context: ValidationContext | null, error: GraphQLError) => {
    const message = error.message.replace(/^Syntax Error: /, "");
    context?.reportError(apiError("QUERY_TOO_COMPLEX", message, { limit, max }));
  };
}

/**
 * Refuses a document nested deeper than `max` before the parser recurses into it: one pass of
 * graphql-js' own lexer (iterative), counting the brackets still open. A document that does not
 * lex, or that passes the token limit first, is left to the parser to refuse as it does. Parsed
 * documents are cached by yoga, so a repeated document is not lexed again.
 */
function useNestingLimit(max: number, maxTokens: number): Plugin {
  const check = (source: string | Source) => {
    const lexer = new Lexer(typeof source === "string" ? new Source(source) : source);
    let open = 0;
    let tokens = 0;
    try {
      for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
        if (++tokens > maxTokens) return;
        const kind = token.kind;
        if (kind === TokenKind.BRACE_L || kind === TokenKind.BRACKET_L || kind === TokenKind.PAREN_L) {
          if (++open > max) {
            throw new GraphQLError(
              `Syntax Error: Nesting limit of ${max} exceeded ({, [ and ( open at once, selections and values together).`,
              { source: lexer.source, positions: [token.start], extensions: { limit: "nesting", max } },
            );
          }
        } else if (kind === TokenKind.BRACE_R || kind === TokenKind.BRACKET_R || kind === TokenKind.PAREN_R) {
          open--;
        }
      }
    } catch (e) {
      if ((e as GraphQLError).extensions?.limit === "nesting") throw e;
      // A lexical error: the parser reports it, with its own message.
    }
  };
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        check(source);
        return parseFn(source, options);
      });
    },
  };
}
