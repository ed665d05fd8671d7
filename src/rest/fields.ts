import {
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  getNamedType,
  isObjectType,
  type SelectionSetNode,
} from "graphql";
import { LRUCache } from "lru-cache";
import { apiError } from "../errors.ts";
import { meant, nearNames } from "../query/suggest.ts";
import { field, selection as selectionSet } from "./document.ts";

/**
 * The legacy `fields` option, translated to a GraphQL selection through the `legacy` extensions
 * the schema declares beside each field.
 *
 * @example
 * parseFields("name,plans.name", AppType)      // → selection { name plans { name } }
 * parseFields("", AppType)                      // → every default field
 * parseFields("*,description_long", AppType)    // → every default field and descriptionLong
 * parseFields("nope", AppType)                  // throws BAD_USER_INPUT: unknown field "nope"
 * parseFields("name,nmae", AppType)             // throws: unknown field "nmae" (did you mean "name"?)
 */
const fieldsError = (message: string) => apiError("BAD_USER_INPUT", message);

/**
 * The object of a field that many parents share (an installed App, a detected technology): its
 * text is the same under every parent within a snapshot, so REST selects only its `key` field
 * under each parent and writes the rest once per snapshot (src/rest/shared-text.ts).
 */
export interface Shared {
  /** GraphQL type of the shared object (a Node type: fetched by global ID). */
  type: string;
  /** GraphQL field of the object whose value is its Node ID's key. */
  key: string;
}

/** One legacy field of a selection: where it comes from in the GraphQL result. */
export interface LegacyField {
  /** GraphQL field name. */
  field: string;
  /** For fields of a flattened child object (a Domain's apps carry App fields beside installed_at). */
  via?: string;
  /** The flattened child object is shared by many parents (see Shared). */
  shared?: Shared;
  /** Legacy fields of the nested object, when the field is an object or a list of objects. */
  children?: Selection;
  /** A JSON value (a change's before and after): written with its null members left out. */
  json?: boolean;
}
export type Selection = Map<string, LegacyField>;

/** The scalar of free-form JSON values, whose null members the legacy writer leaves out. */
const JSON_SCALAR = "JSON";

interface LegacyInfo {
  legacy: string;
  gql: GraphQLField<unknown, unknown>;
  via?: string;
  shared?: Shared;
  onRequest: boolean;
  /** Returned only when retrieving a single resource (installs_time_series). */
  singleOnly: boolean;
  defaultFields?: string[];
}

interface LegacyExtensions {
  legacy?: string;
  onRequest?: boolean;
  singleOnly?: boolean;
  /** The child object's legacy fields appear beside the parent's own (InstalledApp.app). */
  legacyFlatten?: boolean;
  /** In REST this field is the same-named legacy field of the child object under this field. */
  legacyVia?: string;
  /** The child object under this field is shared by many parents, identified by this field. */
  legacyShared?: { key: string };
  defaultFields?: string[];
}

const cache = new WeakMap<GraphQLObjectType, Map<string, LegacyInfo>>();

/**
 * The legacy fields of a type, in its fields' order: its own, those of a child marked
 * `legacyFlatten` in the child's place, and those it takes from a child by `legacyVia`.
 */
export function legacyFields(type: GraphQLObjectType): Map<string, LegacyInfo> {
  let map = cache.get(type);
  if (map) return map;
  map = new Map();
  const fields = type.getFields();
  /** The child object type under `field`, and whether it is shared. */
  const childOf = (field: string) => {
    const f = fields[field];
    const child = f && getNamedType(f.type);
    if (!child || !isObjectType(child)) throw new Error(`${type.name}.${field} is not an object field`);
    const shared = (f.extensions as LegacyExtensions).legacyShared;
    return { child, shared: shared && { type: child.name, key: shared.key } };
  };
  for (const f of Object.values(fields)) {
    const ext = f.extensions as LegacyExtensions;
    if (ext.legacyFlatten) {
      const { child, shared } = childOf(f.name);
      for (const [name, info] of legacyFields(child)) {
        if (!map.has(name)) map.set(name, { ...info, via: f.name, shared });
      }
    } else if (ext.legacy && ext.legacyVia) {
      const { child, shared } = childOf(ext.legacyVia);
      const info = legacyFields(child).get(ext.legacy);
      if (!info) throw new Error(`${type.name}.${f.name}: ${child.name} has no legacy field ${ext.legacy}`);
      map.set(ext.legacy, { ...info, via: ext.legacyVia, shared });
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

const parsed = new LRUCache<string, Selection>({ max: 2000 });

/**
 * Parses `fields` for `type`. Blank or absent means the defaults; `*` stands for them. Clients
 * send the same few `fields` over and over: each distinct one is parsed once (selections are
 * never modified after parsing). A bad one throws BAD_USER_INPUT every time.
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
      throw fieldsError(`${option}: "${path}" is not a field path such as plans.name`);
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
      if (sub.size) throw fieldsError(`${option}: "${prefix}*" cannot have sub-fields`);
      continue;
    }
    const info = known.get(name);
    if (!info) {
      const near = nearNames(
        name,
        [...known.keys()].filter((k) => !exclude.includes(k)),
      );
      throw fieldsError(
        `${option}: unknown field "${prefix}${name}"${meant(near.map((k) => prefix + k))}; known fields${prefix ? ` of ${prefix.slice(0, -1)}` : ""}: ${[...known.keys()].join(", ")}`,
      );
    }
    if (exclude.includes(name)) {
      throw fieldsError(`${option}: "${prefix}${name}" is not returned by this endpoint`);
    }
    if (info.singleOnly && !(single && prefix === "")) {
      throw fieldsError(
        `${option}: "${prefix}${name}" is returned only when retrieving a single App (GET /app/<platform>.<token>)`,
      );
    }
    const child = getNamedType(info.gql.type);
    if (isObjectType(child)) {
      const children = sub.size
        ? build(sub, child, option, `${prefix}${name}.`)
        : defaults(child, info.defaultFields);
      out.set(name, { field: info.gql.name, via: info.via, shared: info.shared, children });
    } else {
      if (sub.size) throw fieldsError(`${option}: "${prefix}${name}" has no sub-fields`);
      out.set(name, { field: info.gql.name, via: info.via, shared: info.shared, ...jsonOf(child) });
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
      shared: info.shared,
      children: isObjectType(child) ? defaults(child, info.defaultFields) : undefined,
      ...jsonOf(child),
    });
  }
  return out;
}

const jsonOf = (type: { name: string }) => (type.name === JSON_SCALAR ? { json: true } : {});

/** The GraphQL selection set (AST) that answers a legacy selection. */
export function toSelectionSet(selection: Selection): SelectionSetNode {
  const direct = new Map<string, FieldNode>();
  const via = new Map<string, { fields: Selection; shared?: Shared }>();
  for (const f of selection.values()) {
    if (f.via) {
      let child = via.get(f.via);
      if (!child) {
        child = { fields: new Map(), shared: f.shared };
        via.set(f.via, child);
      }
      child.fields.set(f.field, { ...f, via: undefined, shared: undefined });
    } else if (!direct.has(f.field)) {
      direct.set(f.field, field(f.field, [], f.children && toSelectionSet(f.children)));
    }
  }
  for (const [name, { fields, shared }] of via) {
    // A shared object is written once per snapshot: under each parent, only its key is selected.
    direct.set(name, field(name, [], shared ? selectionSet(field(shared.key)) : toSelectionSet(fields)));
  }
  return selectionSet(...direct.values());
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
