import { type GraphQLObjectType, getNamedType, isObjectType } from "graphql";
import { legacyFields } from "../rest/fields.ts";
import { schema } from "../schema/index.ts";
import { TOOLS } from "./catalogue.ts";
import { operationsOf } from "./tool-spec.ts";

/**
 * The field dictionary of each record type the tools answer (a resource each): every field a
 * `fields` argument may name, its type, what it holds, whether it is answered by default, and the
 * fields it has when it is an object (named `parent.child` in `fields`). An agent learns the names
 * here rather than from the refusals' "did you mean". Generated from the same legacy fields that
 * REST's `fields` parser reads (src/rest/fields.ts), so it cannot name a field the API refuses.
 */

/** The record types the tools answer, by the resource name each is read at. */
export function fieldDocTypes(): Map<string, GraphQLObjectType> {
  const types = new Map<string, GraphQLObjectType>();
  for (const op of TOOLS.flatMap(operationsOf)) {
    const name = op.route.type;
    const type = name ? schema.getType(name) : undefined;
    if (!type || !isObjectType(type) || legacyFields(type).size === 0) continue;
    types.set(snake(type.name), type);
  }
  return types;
}

/** DomainAsOf: domain_as_of. */
const snake = (name: string) => name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();

export const fieldsUri = (name: string) => `storegraph://fields/${name}`;

interface FieldDoc {
  field: string;
  type: string;
  description?: string;
  /** false: answered only when `fields` names it. */
  default: boolean;
  /** Answered only by the tools that get one record (get_domain with name, search_apps with app). */
  single_only?: true;
  fields?: FieldDoc[];
}

const made = new Map<GraphQLObjectType, FieldDoc[]>();

/** Every field of `type` that `fields` may name, as the resource lists them. */
export function fieldDocs(type: GraphQLObjectType, depth = 0): FieldDoc[] {
  // Only the top level is kept: an object's nested fields go one level down from wherever it is.
  const known = depth === 0 ? made.get(type) : undefined;
  if (known) return known;
  const docs: FieldDoc[] = [];
  for (const [name, info] of legacyFields(type)) {
    const child = getNamedType(info.gql.type);
    docs.push({
      field: name,
      type: String(info.gql.type),
      ...(info.gql.description ? { description: info.gql.description } : {}),
      default: !info.onRequest,
      ...(info.singleOnly ? { single_only: true as const } : {}),
      // Nested objects one level down: their own fields are named parent.child.
      ...(isObjectType(child) && depth === 0 ? { fields: fieldDocs(child, depth + 1) } : {}),
    });
  }
  if (depth === 0) made.set(type, docs);
  return docs;
}
