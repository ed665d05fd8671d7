import {
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  getNamedType,
  getNullableType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from "graphql";
import type { ReadContext } from "../context.ts";
import { type Selection, selectionKey } from "./fields.ts";
import { type Part, partsOf, type SharedTexts, withoutNulls } from "./legacy-writer.ts";

/**
 * A selection's legacy JSON text written straight from the rows a planned read gives, without
 * executing the GraphQL operation and walking its result again (docs/decisions.md, "Generated
 * writers"). It is generated, never listed by hand: each legacy field of the selection is the
 * schema's own field, its value what that field itself gives from its parent (an exposed field's
 * property, as Pothos names it, or the `rowValue` its resolver is made of: fromParent in
 * src/schema/builder.ts),
 * completed as its own type completes it (non-null checked, lists item by item, leaves through
 * the scalar's own serialize) and written as the REST writer writes it (legacyWriter in
 * src/rest/legacy-writer.ts: legacy names in the selection's order, nulls left out, a flattened child's
 * fields beside the parent's own, shared objects from their text of the snapshot).
 *
 * A selection with a field that is neither (its resolver reads more than its parent) has no row
 * writer: rowWriter gives null, and it is answered through GraphQL (the resolver path). A record
 * it cannot answer as the resolver path would gives undefined, and the caller takes the resolver
 * path for it: a value its planned read does not carry (the field's value is a promise), a null
 * where the type forbids one (GraphQL would fail the field), a leaf its scalar does not
 * serialize, a value function that fails. The resolver path then answers, or fails, as it always
 * has: the writer never answers differently, only faster. test/rest/row-writer.test.ts and
 * test/rest/records-parity.test.ts hold it to the resolver path byte for byte.
 */
export type RowWriter = (source: object, ctx: ReadContext, shared: SharedTexts) => string | undefined;

/** A value of a field from its parent; undefined: not one the writer can take. */
type Value = (source: object, ctx: ReadContext) => unknown;
/** A value's text; undefined: not written. */
type ValueWriter = (value: unknown, ctx: ReadContext, shared: SharedTexts) => string | undefined;

/** A field's value from its parent alone (fromParent, src/schema/builder.ts). */
type RowValue = (parent: never, ctx: ReadContext) => unknown;

/** The value the writer cannot take (undefined), as it stands for it. */
const CANNOT = undefined;

/** A value the writer cannot take synchronously: a promise is let go of (its rejection is the resolver path's). */
function settled(value: unknown): unknown {
  if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as PromiseLike<unknown>).then === "function"
  ) {
    (value as Promise<unknown>).then(undefined, () => {});
    return CANNOT;
  }
  // A missing property is no value (null), as graphql-js completes it.
  return value === undefined ? null : value;
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

/** The field's value from its parent, or null when the field's resolver reads more than its parent. */
function fieldValue(field: GraphQLField<unknown, unknown>): Value | null {
  const rowValue = (field.extensions as { rowValue?: RowValue }).rowValue;
  if (rowValue) {
    const value = rowValue as (parent: object, ctx: ReadContext) => unknown;
    return (source, ctx) => {
      try {
        return settled(value(source, ctx));
      } catch {
        // The resolver path fails the field with this error (or answers otherwise): it answers.
        return CANNOT;
      }
    };
  }
  // An exposed field (Pothos' t.expose…) reads its parent's property of that name.
  const exposed = (field.extensions as { pothosExposedField?: string }).pothosExposedField;
  if (field.resolve && exposed === undefined) return null;
  const read = propertyOf(exposed ?? field.name);
  return (source) => {
    const value = read(source);
    // graphql-js' default resolver calls a method with the field's arguments: not a row's.
    return typeof value === "function" ? CANNOT : settled(value);
  };
}

/**
 * The text of a non-null value of `type`, completed as GraphQL completes it (`json`: a JSON
 * value, written without its null members as the legacy writer writes it); null: no writer.
 */
function valueWriter(
  type: GraphQLOutputType,
  children: Selection | undefined,
  json = false,
): ValueWriter | null {
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const itemType = nullable.ofType as GraphQLOutputType;
    const itemNonNull = isNonNullType(itemType);
    const item = valueWriter(itemType, children, json);
    if (!item) return null;
    return (value, ctx, shared) => {
      if (!Array.isArray(value)) return CANNOT;
      let out = "[";
      for (let i = 0; i < value.length; i++) {
        const v = value[i];
        if (i) out += ",";
        if (v === null || v === undefined) {
          if (itemNonNull || children) return CANNOT;
          out += "null";
        } else {
          const text = item(v, ctx, shared);
          if (text === CANNOT) return CANNOT;
          out += text;
        }
      }
      return `${out}]`;
    };
  }
  if (isLeafType(nullable)) {
    return (value) => {
      let serialized: unknown;
      try {
        serialized = nullable.serialize(value);
      } catch {
        return CANNOT;
      }
      if (serialized === null || serialized === undefined) return CANNOT;
      return json ? JSON.stringify(serialized, withoutNulls) : JSON.stringify(serialized);
    };
  }
  if (isObjectType(nullable) && children) {
    const write = rowWriter(children, nullable);
    if (!write) return null;
    return (value, ctx, shared) => write(value as object, ctx, shared);
  }
  throw new Error(`row writer: cannot write a ${String(type)}`);
}

/** One part of the text: `"key":value`, a shared run's text, null when it writes nothing, undefined when it cannot. */
type Step = (source: object, ctx: ReadContext, shared: SharedTexts) => string | null | undefined;

function stepOf(type: GraphQLObjectType, part: Part): Step | null {
  const via = part.via === undefined ? null : fieldOf(type, part.via);
  const viaValue = via && fieldValue(via);
  if (via && !viaValue) return null;
  const viaNonNull = via !== null && isNonNullType(via.type);
  const owner = via ? getNamedType(via.type) : type;
  if (!isObjectType(owner)) throw new Error(`row writer: ${type.name}.${part.via} is not an object`);
  /** The object the part's field is read from: the source, or its child `via`; null: none. */
  const sourceOf = (source: object, ctx: ReadContext): object | null | undefined => {
    if (!viaValue) return source;
    const child = viaValue(source, ctx);
    if (child === CANNOT) return CANNOT;
    if (child === null) return viaNonNull ? CANNOT : null;
    return child as object;
  };
  if (part.kind === "run") {
    const keyField = fieldOf(owner, part.keyField);
    const keyValue = fieldValue(keyField);
    const keyType = getNullableType(keyField.type);
    if (!isLeafType(keyType)) throw new Error(`row writer: ${owner.name}.${part.keyField} is not a leaf`);
    if (!keyValue) return null;
    const { run } = part;
    return (source, ctx, shared) => {
      const object = sourceOf(source, ctx);
      if (object === null || object === CANNOT) return object;
      const value = keyValue(object, ctx);
      if (value === CANNOT) return CANNOT;
      let key: unknown;
      try {
        key = keyType.serialize(value);
      } catch {
        return CANNOT;
      }
      if (typeof key !== "string") return CANNOT;
      return shared.text(run, key) || null;
    };
  }
  const field = fieldOf(owner, part.field);
  const value = fieldValue(field);
  const write = valueWriter(field.type, part.children, part.json);
  if (!value || !write) return null;
  const nonNull = isNonNullType(field.type);
  const { key } = part;
  return (source, ctx, shared) => {
    const object = sourceOf(source, ctx);
    if (object === null || object === CANNOT) return object;
    const v = value(object, ctx);
    if (v === CANNOT) return CANNOT;
    if (v === null) return nonNull ? CANNOT : null;
    const text = write(v, ctx, shared);
    return text === CANNOT ? CANNOT : key + text;
  };
}

const writers = new WeakMap<Selection, Map<GraphQLObjectType, RowWriter | null>>();

/**
 * The writer of `selection` (legacy fields of `type`, as parseFields gives them), made once per
 * selection (selections are parsed once and never modified); null when a field of it is answered
 * only through GraphQL.
 */
export function rowWriter(selection: Selection, type: GraphQLObjectType): RowWriter | null {
  let byType = writers.get(selection);
  if (byType?.has(type)) return byType.get(type) ?? null;
  const parts = partsOf(selection).map((p) => stepOf(type, p));
  let writer: RowWriter | null = null;
  if (parts.every((p) => p !== null)) {
    const steps = parts as Step[];
    writer = (source, ctx, shared) => {
      let out = "";
      for (let i = 0; i < steps.length; i++) {
        const text = steps[i](source, ctx, shared);
        if (text === CANNOT) return CANNOT;
        if (text !== null) out += (out ? "," : "{") + text;
      }
      return out ? `${out}}` : "{}";
    };
  }
  if (!byType) {
    byType = new Map();
    writers.set(selection, byType);
  }
  byType.set(type, writer);
  return writer;
}

/** Each selection's text of one source, in the order the selections were given; undefined: as a RowWriter's. */
export type RowsWriter = (source: object, ctx: ReadContext, shared: SharedTexts) => string[] | undefined;

/** What a part writes, as a key: two parts of one type with the same key write the same text. */
function partKey(part: Part): string {
  return part.kind === "run"
    ? `run\u0000${part.via}\u0000${part.keyField}\u0000${part.run.id}`
    : `field\u0000${part.key}\u0000${part.field}\u0000${part.via ?? ""}\u0000${part.json === true}\u0000${part.children ? selectionKey(part.children) : ""}`;
}

/**
 * The texts of several selections of `type` from one source, each as rowWriter writes it, with each
 * part they have in common (a field with the same children) written once: a load's render writes a
 * Domain's default fields and its export record (src/export/export-rendered.ts), which share most
 * of their fields. Null when a selection has no row writer. A part any selection cannot write
 * makes the whole source undefined, as one selection's writer would.
 */
export function rowsWriter(selections: readonly Selection[], type: GraphQLObjectType): RowsWriter | null {
  const steps: Step[] = [];
  const at = new Map<string, number>();
  const plans: number[][] = [];
  for (const selection of selections) {
    const plan: number[] = [];
    for (const part of partsOf(selection)) {
      const key = partKey(part);
      let i = at.get(key);
      if (i === undefined) {
        const step = stepOf(type, part);
        if (!step) return null;
        i = steps.push(step) - 1;
        at.set(key, i);
      }
      plan.push(i);
    }
    plans.push(plan);
  }
  return (source, ctx, shared) => {
    const texts: (string | null)[] = new Array(steps.length);
    for (let i = 0; i < steps.length; i++) {
      const text = steps[i](source, ctx, shared);
      if (text === CANNOT) return CANNOT;
      texts[i] = text;
    }
    return plans.map((plan) => {
      let out = "";
      for (let k = 0; k < plan.length; k++) {
        const text = texts[plan[k]];
        if (text !== null) out += (out ? "," : "{") + text;
      }
      return out ? `${out}}` : "{}";
    });
  };
}
