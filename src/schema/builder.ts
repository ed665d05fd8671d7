import SchemaBuilder from "@pothos/core";
import ComplexityPlugin from "@pothos/plugin-complexity";
import DirectivesPlugin from "@pothos/plugin-directives";
import RelayPlugin from "@pothos/plugin-relay";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import { GraphQLError, Kind, type ValueNode } from "graphql";
import { directiveArgs, type Endpoint } from "../auth/limits.ts";
import { type ClientContext, isClientContext, type ReadContext } from "../context.ts";
import { apiError, InputError } from "../errors.ts";
import { dayText, instantText, parseInstant } from "../query/instant.ts";
import { textProblem } from "../text.ts";

/**
 * Builder configuration only; types live in one file each beside this one. Resolvers are typed
 * with ReadContext, so that a resolver cannot read who asked; the fields of an account and of a
 * gateway (lists, webhooks, usage, the live feed) are scoped `client` (t.withAuth({ client: true })),
 * and theirs read the request's ClientContext (src/context.ts): a read the server makes itself has
 * no client, and is refused them.
 */
export const builder = new SchemaBuilder<{
  Context: ReadContext;
  AuthScopes: { client: boolean };
  AuthContexts: { client: ClientContext };
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Date: { Input: Date; Output: Date };
    LocalDateTime: { Input: Date; Output: Date };
    SafeInt: { Input: number; Output: number | bigint };
    StringMap: { Input: Record<string, string>; Output: unknown };
    Keywords: { Input: string | string[]; Output: unknown };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Directives: {
    rateLimit: { locations: "FIELD_DEFINITION"; args: { limit: number; duration: number } };
  };
}>({
  // Scope auth first, so that no other plugin's wrapper runs before its check; directives before
  // Relay, so that fields Relay adds (node, nodes) can carry them too.
  plugins: [ScopeAuthPlugin, DirectivesPlugin, ComplexityPlugin, RelayPlugin],
  scopeAuth: {
    authScopes: (ctx) => ({ client: isClientContext(ctx) }),
    // A subscription is checked once, when it starts.
    authorizeOnSubscribe: true,
    unauthorizedError: () => apiError("UNAUTHENTICATED", "this field is answered to a client's request only"),
  },
  // graphql-rate-limit-directive reads directives as graphql-tools does: keyed by name.
  directives: { useGraphQLToolsUnorderedDirectives: true },
  // The cost of an operation (src/cost.ts): 1 per field; a list's selection counts 10 times
  // unless the field says how many items it asks for (connections: `first`).
  complexity: { defaultComplexity: 1, defaultListMultiplier: 10 },
  // Fields are non-null unless declared nullable: optional data is nullable on purpose, one by one.
  defaultFieldNullability: false,
  relay: {
    clientMutationId: "omit",
    cursorType: "String",
    // The connection's field multiplies by `first`; its edges then count once each.
    edgesFieldOptions: { nullable: false, complexity: { field: 0, multiplier: 1 } },
    nodeFieldOptions: { nullable: false },
    nodeQueryOptions: rateLimited("node"),
    // `nodes` is defined in schema/node.ts, with its cap.
    nodesQueryOptions: false,
    decodeGlobalID,
  },
});

const NODE_TYPES = ["App", "Domain", "AppReview", "Technology"];

/** Global IDs are base64 of `<type>:<key>`; anything else is bad input, not a server error. */
function decodeGlobalID(globalID: string): { typename: string; id: string } {
  const text = /^[A-Za-z0-9+/]+={0,2}$/.test(globalID)
    ? Buffer.from(globalID, "base64").toString("utf8")
    : "";
  const colon = text.indexOf(":");
  const typename = text.slice(0, colon);
  // A key with text no value holds (NUL) was never one of ours, and PostgreSQL cannot compare it.
  if (colon <= 0 || colon === text.length - 1 || !NODE_TYPES.includes(typename) || textProblem(text)) {
    throw new InputError(
      "id",
      `"${globalID}" is not the global ID of an App, Domain, AppReview or Technology`,
    );
  }
  return { typename, id: text.slice(colon + 1) };
}

const literal = (ast: ValueNode): unknown => (ast.kind === Kind.STRING ? ast.value : undefined);

builder.scalarType("DateTime", {
  description:
    "An RFC 3339 timestamp in UTC, e.g. 2024-03-01T12:30:00Z. As input a date (2024-03-01) is accepted too: midnight UTC as a minimum, the whole day as a maximum.",
  serialize: (d) => instantText(d),
  parseValue: (v) => parseInstant(v, "DateTime"),
  parseLiteral: (ast) => parseInstant(literal(ast), "DateTime"),
});

builder.scalarType("Date", {
  description: "A calendar date, YYYY-MM-DD (UTC).",
  serialize: (d) => dayText(d),
  parseValue: (v) => parseInstant(v, "Date"),
  parseLiteral: (ast) => parseInstant(literal(ast), "Date"),
});

builder.scalarType("LocalDateTime", {
  description: "A time without zone, YYYY-MM-DDTHH:MM:SS, as the app store shows it.",
  serialize: (d) => d.toISOString().slice(0, 19),
  parseValue: (v) => parseInstant(v, "LocalDateTime"),
  parseLiteral: (ast) => parseInstant(literal(ast), "LocalDateTime"),
});

function toSafeInt(value: unknown): number {
  const n = typeof value === "bigint" ? Number(value) : value;
  if (typeof n === "number" && Number.isSafeInteger(n)) return n;
  throw new TypeError(`SafeInt must be an integer within ±(2^53-1); got ${String(value)}`);
}

builder.scalarType("SafeInt", {
  description:
    "An integer up to ±(2^53-1), for counts and amounts (cents) that can exceed GraphQL's 32-bit Int.",
  serialize: toSafeInt,
  parseValue: toSafeInt,
  parseLiteral: (ast) => toSafeInt(ast.kind === Kind.INT ? Number(ast.value) : undefined),
});

builder.scalarType("StringMap", {
  description: 'A JSON object whose values are strings, e.g. {"de-DE": "shop.example.de"}.',
  serialize: (v) => v,
  parseValue: () => {
    throw new GraphQLError("StringMap is output only");
  },
});

builder.scalarType("Keywords", {
  description: "Meta keywords as the page carries them: a string, or a list of strings.",
  serialize: (v) => v,
  parseValue: () => {
    throw new GraphQLError("Keywords is output only");
  },
});

export const SortDirection = builder.enumType("SortDirection", {
  values: {
    ASC: { value: "asc", description: "Ascending; unknown values last." },
    DESC: { value: "desc", description: "Descending; unknown values last." },
  } as const,
});

/**
 * Declares the legacy REST name of a field (or input field) beside it; the REST layer derives its
 * mapping from these.
 */
export const legacy = (name: string, extra: Record<string, unknown> = {}) => ({
  extensions: { legacy: name, ...extra },
});

/**
 * Marks a field as serving an endpoint of docs/api.md section 8: selecting it draws on that endpoint's
 * budget (src/auth/rate-limit.ts). The directive's `limit` is the enterprise plan's.
 */
export function rateLimited(endpoint: Endpoint) {
  return {
    directives: { rateLimit: directiveArgs(endpoint) },
    extensions: { endpoint },
  };
}

/** Connection cost: the field, plus its selection once per item asked for. */
export const pagedComplexity =
  (defaultFirst: number) =>
  (args: { first?: number | null }): { field: number; multiplier: number } => ({
    field: 1,
    multiplier: Math.max(0, args.first ?? defaultFirst),
  });

/**
 * A field whose value is a function of its parent alone (with the operation's loaders, for a
 * value a planned read did not carry): `value` is its resolver, without arguments or resolve
 * info, and also, in its extensions (`rowValue`), what the row writer (src/rest/row-writer.ts)
 * writes REST answers with, from rows, without executing GraphQL. `options` are the field's other
 * extensions (its legacy name: `legacy(...)`). A field with a resolver of any other kind is
 * written through GraphQL.
 */
export function fromParent<P, T>(
  value: (parent: P, ctx: ReadContext) => T,
  options: { extensions?: Record<string, unknown> } = {},
) {
  return {
    extensions: { ...options.extensions, rowValue: value },
    resolve: (parent: P, _args: unknown, ctx: ReadContext) => value(parent, ctx),
  };
}
