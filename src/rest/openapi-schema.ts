import {
  type GraphQLObjectType,
  type GraphQLOutputType,
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
} from "graphql";
import { legacyFields } from "./fields.ts";

/**
 * The JSON Schema of a record of the REST API (src/rest/openapi.ts), from the GraphQL type and the
 * legacy names its fields declare: components by type name, scalars as JSON types.
 */
export type Json = Record<string, unknown>;

const SCALARS: Record<string, Json> = {
  String: { type: "string" },
  ID: { type: "string" },
  Int: { type: "integer" },
  SafeInt: { type: "integer" },
  Float: { type: "number" },
  Boolean: { type: "boolean" },
  DateTime: { type: "string", format: "date-time" },
  Date: { type: "string", format: "date" },
  LocalDateTime: { type: "string", description: "YYYY-MM-DDTHH:MM:SS, without zone" },
  StringMap: { type: "object", additionalProperties: { type: "string" } },
  Keywords: { oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] },
};

/** Legacy object names in the document (GraphQL type → schema name). */
const NAMES: Record<string, string> = { App: "App", AppReview: "AppReview", Domain: "Domain" };

export function typeSchema(type: GraphQLOutputType, components: Json): Json {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return { type: "array", items: typeSchema(inner.ofType, components) };
  const named = getNamedType(inner);
  if (isObjectType(named)) {
    const name = NAMES[named.name] ?? `${named.name}`;
    if (!components[name]) {
      components[name] = {};
      components[name] = objectSchema(named, components);
    }
    return { $ref: `#/components/schemas/${name}` };
  }
  return SCALARS[named.name] ?? { type: "string" };
}

function objectSchema(type: GraphQLObjectType, components: Json): Json {
  const properties: Json = {};
  const required: string[] = [];
  for (const [name, info] of legacyFields(type)) {
    const s = typeSchema(info.gql.type, components);
    const notes = [info.gql.description, info.onRequest ? "Returned only when requested with fields." : ""]
      .filter(Boolean)
      .join(" ");
    properties[name] = notes ? { ...s, description: notes } : s;
    // A field of a child object (InstalledApp's App, DomainTechnology's technology) is always
    // present when the child always is.
    const present = !info.via || isNonNullType(type.getFields()[info.via].type);
    if (isNonNullType(info.gql.type) && present && !info.onRequest) required.push(name);
  }
  return {
    type: "object",
    description: `${type.description ?? type.name} Optional values are left out when unknown.`,
    properties,
    ...(required.length ? { required } : {}),
  };
}
