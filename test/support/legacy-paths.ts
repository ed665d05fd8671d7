import { type GraphQLObjectType, getNamedType, isObjectType } from "graphql";
import { legacyFields } from "../../src/rest/fields.ts";

/** Every legacy field path of a type (`fields=` names), with those of its object fields `depth` levels down. */
export function legacyPaths(type: GraphQLObjectType, depth = 1, prefix = ""): string[] {
  const out: string[] = [];
  for (const [name, info] of legacyFields(type)) {
    out.push(`${prefix}${name}`);
    const child = getNamedType(info.gql.type);
    if (isObjectType(child) && depth > 0) out.push(...legacyPaths(child, depth - 1, `${prefix}${name}.`));
  }
  return out;
}
