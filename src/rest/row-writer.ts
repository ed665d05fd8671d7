import {
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  getNamedType,
  getNullableType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from "graphql";
import type { ReadContext } from "../context.ts";
import { type Part, partsOf, type Selection, type SharedTexts } from "./fields.ts";

/**
 * A selection's legacy JSON text written straight from the rows a planned read gives, without
 * executing the GraphQL operation and walking its result again (docs/decisions.md, "Generated
 * writers"). It is generated, never listed by hand: each legacy field of the selection is the
 * schema's own field, its value that field's own resolver gives (or the default resolver's
 * property), completed as its own type completes it (non-null checked, lists item by item, leaves
 * through the scalar's own serialize) and written as the REST writer writes it (legacyWriter in
 * src/rest/fields.ts: legacy names in the selection's order, nulls left out, a flattened child's
 * fields beside the parent's own, shared objects from their text of the snapshot).
 *
 * Where it cannot answer as the resolver path would, it stops (NOT_WRITTEN) and the caller takes
 * the resolver path for the batch: a resolver that answers with a promise (a value its planned
 * read does not carry), a null where the type forbids one (GraphQL would fail the field), a leaf
 * its scalar does not serialize, anything a resolver throws. The resolver path then answers, or
 * fails, as it always has: the writer never answers differently, only faster.
 * test/rest/row-writer.test.ts holds it to the resolver path byte for byte.
 */
export type RowWriter = (source: object, ctx: ReadContext, shared: SharedTexts) => string;

/** The writer stopped: the resolver path answers this batch. */
export const NOT_WRITTEN: unique symbol = Symbol("not written by the row writer");

type Resolve = (source: object, ctx: ReadContext) => unknown;
type ValueWriter = (value: unknown, ctx: ReadContext, shared: SharedTexts) => string;

const NO_ARGS = Object.freeze({});
/**
 * Resolvers of object fields read their parent (and the context's loaders), never the resolve
 * info: a resolver that did would throw on this one, and the batch would take the resolver path.
 */
const NO_INFO = Object.freeze({}) as GraphQLResolveInfo;

/** A value the writer cannot take synchronously: a promise is let go of (its rejection is the resolver path's). */
function settled(value: unknown): unknown {
  if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as PromiseLike<unknown>).then === "function"
  ) {
    (value as Promise<unknown>).then(undefined, () => {});
    throw NOT_WRITTEN;
  }
  return value;
}

function fieldOf(type: GraphQLObjectType, name: string): GraphQLField<unknown, unknown> {
  const field = type.getFields()[name];
  if (!field) throw new Error(`row writer: ${type.name} has no field ${name}`);
  return field;
}

/** GraphQL names are identifiers: a property read written out for each is a site of its own. */
const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * A read of the property `name`, compiled: one function per name, so that V8 sees one shape of
 * row at each (a shared `source[name]` is megamorphic across a Domain's 60 columns).
 */
function propertyOf(name: string): (source: object) => unknown {
  if (!NAME.test(name)) throw new Error(`row writer: ${name} is not a GraphQL name`);
  return new Function("source", `return source.${name};`) as (source: object) => unknown;
}

/** The field's own resolver, or the default resolver's property read. */
function resolverOf(field: GraphQLField<unknown, unknown>): Resolve {
  const { resolve, name } = field;
  if (resolve) return (source, ctx) => settled(resolve(source, NO_ARGS, ctx, NO_INFO));
  const read = propertyOf(name);
  return (source) => {
    const value = read(source);
    // graphql-js' default resolver calls a method with the field's arguments: not a row's.
    if (typeof value === "function") throw NOT_WRITTEN;
    return settled(value);
  };
}

/** The text of a non-null value of `type`, completed as GraphQL completes it. */
function valueWriter(type: GraphQLOutputType, children: Selection | undefined): ValueWriter {
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const itemType = nullable.ofType as GraphQLOutputType;
    const itemNonNull = isNonNullType(itemType);
    const item = valueWriter(itemType, children);
    return (value, ctx, shared) => {
      if (!Array.isArray(value)) throw NOT_WRITTEN;
      let out = "[";
      for (let i = 0; i < value.length; i++) {
        const v = value[i];
        if (i) out += ",";
        if (v === null || v === undefined) {
          if (itemNonNull || children) throw NOT_WRITTEN;
          out += "null";
        } else out += item(v, ctx, shared);
      }
      return `${out}]`;
    };
  }
  if (isLeafType(nullable)) {
    return (value) => {
      const serialized = nullable.serialize(value);
      if (serialized === null || serialized === undefined) throw NOT_WRITTEN;
      return JSON.stringify(serialized);
    };
  }
  if (isObjectType(nullable) && children) {
    const write = rowWriter(children, nullable);
    return (value, ctx, shared) => write(value as object, ctx, shared);
  }
  throw new Error(`row writer: cannot write a ${String(type)}`);
}

/** One part of the text: `"key":value`, a shared run's text, or null when it writes nothing. */
type Step = (source: object, ctx: ReadContext, shared: SharedTexts) => string | null;

function stepOf(type: GraphQLObjectType, part: Part): Step {
  const via = part.via === undefined ? null : fieldOf(type, part.via);
  const viaResolve = via && resolverOf(via);
  const viaNonNull = via !== null && isNonNullType(via.type);
  const owner = via ? getNamedType(via.type) : type;
  if (!isObjectType(owner)) throw new Error(`row writer: ${type.name}.${part.via} is not an object`);
  /** The object the part's field is read from: the source, or its child `via`; null: none. */
  const sourceOf = (source: object, ctx: ReadContext): object | null => {
    if (!viaResolve) return source;
    const child = viaResolve(source, ctx);
    if (child === null || child === undefined) {
      if (viaNonNull) throw NOT_WRITTEN;
      return null;
    }
    return child as object;
  };
  if (part.kind === "run") {
    const keyField = fieldOf(owner, part.keyField);
    const keyResolve = resolverOf(keyField);
    const keyType = getNullableType(keyField.type);
    if (!isLeafType(keyType)) throw new Error(`row writer: ${owner.name}.${part.keyField} is not a leaf`);
    const { run } = part;
    return (source, ctx, shared) => {
      const object = sourceOf(source, ctx);
      if (object === null) return null;
      const key = keyType.serialize(keyResolve(object, ctx));
      if (typeof key !== "string") throw NOT_WRITTEN;
      return shared.text(run, key) || null;
    };
  }
  const field = fieldOf(owner, part.field);
  const resolve = resolverOf(field);
  const nonNull = isNonNullType(field.type);
  const write = valueWriter(field.type, part.children);
  const { key } = part;
  return (source, ctx, shared) => {
    const object = sourceOf(source, ctx);
    if (object === null) return null;
    const value = resolve(object, ctx);
    if (value === null || value === undefined) {
      if (nonNull) throw NOT_WRITTEN;
      return null;
    }
    return key + write(value, ctx, shared);
  };
}

const writers = new WeakMap<Selection, Map<GraphQLObjectType, RowWriter>>();

/**
 * The writer of `selection` (legacy fields of `type`, as parseFields gives them), made once per
 * selection (selections are parsed once and never modified).
 */
export function rowWriter(selection: Selection, type: GraphQLObjectType): RowWriter {
  let byType = writers.get(selection);
  let writer = byType?.get(type);
  if (writer) return writer;
  const steps = partsOf(selection).map((p) => stepOf(type, p));
  writer = (source, ctx, shared) => {
    let out = "";
    for (let i = 0; i < steps.length; i++) {
      const text = steps[i](source, ctx, shared);
      if (text !== null) out += (out ? "," : "{") + text;
    }
    return out ? `${out}}` : "{}";
  };
  if (!byType) {
    byType = new Map();
    writers.set(selection, byType);
  }
  byType.set(type, writer);
  return writer;
}
