import {
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  getNamedType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from "graphql";

/**
 * The legacy `fields` option, translated to a GraphQL selection through the `legacy` extensions
 * the schema declares beside each field.
 *
 * @example
 * parseFields("name,plans.name", AppType)      // → selection { name plans { name } }
 * parseFields("", AppType)                      // → every default field
 * parseFields("*,description_long", AppType)    // → every default field and descriptionLong
 * parseFields("nope", AppType)                  // throws FieldsError: unknown field "nope"
 */
export class FieldsError extends Error {
  override name = "FieldsError";
}

/** One legacy field of a selection: where it comes from in the GraphQL result. */
export interface LegacyField {
  /** GraphQL field name. */
  field: string;
  /** For fields of a flattened child object (a Domain's apps carry App fields beside installed_at). */
  via?: string;
  /** Legacy fields of the nested object, when the field is an object or a list of objects. */
  children?: Selection;
}
export type Selection = Map<string, LegacyField>;

interface LegacyInfo {
  legacy: string;
  gql: GraphQLField<unknown, unknown>;
  via?: string;
  onRequest: boolean;
  /** Returned only when retrieving a single resource (installs_time_series). */
  singleOnly: boolean;
  defaultFields?: string[];
}

const cache = new WeakMap<GraphQLObjectType, Map<string, LegacyInfo>>();

/** The legacy fields of a type: its own, and those of a child marked `legacyFlatten`. */
export function legacyFields(type: GraphQLObjectType): Map<string, LegacyInfo> {
  let map = cache.get(type);
  if (map) return map;
  map = new Map();
  for (const f of Object.values(type.getFields())) {
    const ext = f.extensions as {
      legacy?: string;
      onRequest?: boolean;
      singleOnly?: boolean;
      legacyFlatten?: boolean;
      defaultFields?: string[];
    };
    if (ext.legacyFlatten) {
      const child = getNamedType(f.type);
      if (!isObjectType(child)) continue;
      for (const [name, info] of legacyFields(child)) {
        if (!map.has(name)) map.set(name, { ...info, via: f.name });
      }
    } else if (ext.legacy) {
      map.set(ext.legacy, {
        legacy: ext.legacy,
        gql: f,
        onRequest: ext.onRequest === true,
        singleOnly: ext.singleOnly === true,
        defaultFields: ext.defaultFields,
      });
    }
  }
  cache.set(type, map);
  return map;
}

interface FieldsOptions {
  option?: string;
  /** Fields this endpoint does not return, even when named. */
  exclude?: readonly string[];
  /** The endpoint retrieves one resource: its single-only fields may be named. */
  single?: boolean;
}

const parsed = new Map<string, Selection>();
const MAX_PARSED = 2000;

/**
 * Parses `fields` for `type`. Blank or absent means the defaults; `*` stands for them. Clients
 * send the same few `fields` over and over: each distinct one is parsed once (selections are
 * never modified after parsing). A bad one throws FieldsError every time.
 */
export function parseFields(
  spec: string | null | undefined,
  type: GraphQLObjectType,
  options: FieldsOptions = {},
): Selection {
  const key = `${type.name}\u0000${options.option ?? ""}\u0000${options.exclude?.join(",") ?? ""}\u0000${options.single === true}\u0000${spec ?? ""}`;
  let sel = parsed.get(key);
  if (!sel) {
    sel = parseFieldsOnce(spec, type, options);
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(key, sel);
  }
  return sel;
}

function parseFieldsOnce(
  spec: string | null | undefined,
  type: GraphQLObjectType,
  options: FieldsOptions,
): Selection {
  const option = options.option ?? "fields";
  const exclude = options.exclude ?? [];
  const paths = (spec ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (paths.length === 0) return defaults(type, undefined, exclude);
  const tree: PathTree = new Map();
  for (const path of paths) {
    const parts = path.split(".");
    if (parts.some((p) => p === ""))
      throw new FieldsError(`${option}: "${path}" is not a field path such as plans.name`);
    let node = tree;
    for (const part of parts) {
      let next = node.get(part);
      if (!next) {
        next = new Map();
        node.set(part, next);
      }
      node = next;
    }
  }
  return build(tree, type, option, "", exclude, options.single ?? false);
}

type PathTree = Map<string, PathTree>;

function build(
  tree: PathTree,
  type: GraphQLObjectType,
  option: string,
  prefix: string,
  exclude: readonly string[] = [],
  single = false,
): Selection {
  const known = legacyFields(type);
  const out: Selection = tree.has("*") ? defaults(type, undefined, exclude) : new Map();
  for (const [name, sub] of tree) {
    if (name === "*") {
      if (sub.size) throw new FieldsError(`${option}: "${prefix}*" cannot have sub-fields`);
      continue;
    }
    const info = known.get(name);
    if (!info) {
      throw new FieldsError(
        `${option}: unknown field "${prefix}${name}"; known fields${prefix ? ` of ${prefix.slice(0, -1)}` : ""}: ${[...known.keys()].join(", ")}`,
      );
    }
    if (exclude.includes(name)) {
      throw new FieldsError(`${option}: "${prefix}${name}" is not returned by this endpoint`);
    }
    if (info.singleOnly && !(single && prefix === "")) {
      throw new FieldsError(
        `${option}: "${prefix}${name}" is returned only when retrieving a single App (GET /app/<platform>.<token>)`,
      );
    }
    const child = getNamedType(info.gql.type);
    if (isObjectType(child)) {
      const children = sub.size
        ? build(sub, child, option, `${prefix}${name}.`)
        : defaults(child, info.defaultFields);
      out.set(name, { field: info.gql.name, via: info.via, children });
    } else {
      if (sub.size) throw new FieldsError(`${option}: "${prefix}${name}" has no sub-fields`);
      out.set(name, { field: info.gql.name, via: info.via });
    }
  }
  return out;
}

/** The default legacy fields of a type (every legacy field but those returned only on request). */
export function defaults(
  type: GraphQLObjectType,
  only?: string[],
  exclude: readonly string[] = [],
): Selection {
  const out: Selection = new Map();
  for (const [name, info] of legacyFields(type)) {
    if (info.onRequest || (only && !only.includes(name)) || exclude.includes(name)) continue;
    const child = getNamedType(info.gql.type);
    out.set(name, {
      field: info.gql.name,
      via: info.via,
      children: isObjectType(child) ? defaults(child, info.defaultFields) : undefined,
    });
  }
  return out;
}

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;
const fieldNode = (field: string, selectionSet?: SelectionSetNode): FieldNode => ({
  kind: Kind.FIELD,
  name: name(field),
  selectionSet,
});

/** The GraphQL selection set (AST) that answers a legacy selection. */
export function toSelectionSet(selection: Selection): SelectionSetNode {
  const direct = new Map<string, FieldNode>();
  const via = new Map<string, Selection>();
  for (const f of selection.values()) {
    if (f.via) {
      let s = via.get(f.via);
      if (!s) {
        s = new Map();
        via.set(f.via, s);
      }
      s.set(f.field, { ...f, via: undefined });
    } else if (!direct.has(f.field)) {
      direct.set(f.field, fieldNode(f.field, f.children && toSelectionSet(f.children)));
    }
  }
  for (const [field, s] of via) direct.set(field, fieldNode(field, toSelectionSet(s)));
  return { kind: Kind.SELECTION_SET, selections: [...direct.values()] };
}

/** Writes a GraphQL result object in its legacy form, as JSON text. */
export type LegacyWriter = (data: Record<string, unknown>) => string;

const writers = new WeakMap<Selection, LegacyWriter>();

/**
 * The JSON text of GraphQL result objects in their legacy form (legacy names in the selection's
 * order, a flattened child's fields beside the object's own, null and absent values left out),
 * written straight from the result: a writer per selection, made once (selections are parsed
 * once and never modified), with each field's key text ready. Leaves are written by
 * JSON.stringify, as the rest of the envelope; the result holds only serialized values.
 */
export function legacyWriter(selection: Selection): LegacyWriter {
  let writer = writers.get(selection);
  if (writer) return writer;
  const fields = [...selection].map(([legacy, f]) => ({
    key: `${JSON.stringify(legacy)}:`,
    field: f.field,
    via: f.via,
    child: f.children && legacyWriter(f.children),
  }));
  writer = (data) => {
    let out = "";
    for (const f of fields) {
      const source = f.via ? (data[f.via] as Record<string, unknown> | null | undefined) : data;
      const value = source?.[f.field];
      if (value === null || value === undefined) continue;
      let text: string;
      if (!f.child) text = JSON.stringify(value);
      else if (!Array.isArray(value)) text = f.child(value as Record<string, unknown>);
      else {
        text = "[";
        for (let i = 0; i < value.length; i++) text += (i ? "," : "") + f.child(value[i]);
        text += "]";
      }
      out += (out ? "," : "{") + f.key + text;
    }
    return out ? `${out}}` : "{}";
  };
  writers.set(selection, writer);
  return writer;
}

/** The JSON text of a list of GraphQL result objects in their legacy form. */
export function legacyList(objects: readonly Record<string, unknown>[], selection: Selection): string {
  const write = legacyWriter(selection);
  let out = "[";
  for (let i = 0; i < objects.length; i++) out += (i ? "," : "") + write(objects[i]);
  return `${out}]`;
}

/**
 * A string that identifies a selection whole, nested levels included: the cache key of the
 * document built from it (two selections with the same key must build the same document).
 */
const keys = new WeakMap<Selection, string>();

export function selectionKey(sel: Selection): string {
  let key = keys.get(sel);
  if (key === undefined) {
    const walk = (s: Selection): unknown => [...s].map(([k, f]) => [k, f.children ? walk(f.children) : 0]);
    key = JSON.stringify(walk(sel));
    keys.set(sel, key);
  }
  return key;
}
