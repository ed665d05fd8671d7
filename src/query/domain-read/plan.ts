import type {
  FragmentDefinitionNode,
  GraphQLObjectType,
  GraphQLResolveInfo,
  SelectionSetNode,
} from "graphql";
import { getNamedType, isObjectType, Kind } from "graphql";
import { DOMAIN_CHILDREN, type DomainChild } from "../../db/domain-children.ts";
import { columnsOf } from "../../db/model-rows.ts";
import { DOMAIN_OMITTED } from "../loaders.ts";

/**
 * The Domain read plan: what a selection of Domain fields needs of each Domain it reads (a
 * DomainRead), planned from the selection, looking ahead at the root or connection field: the
 * Domain's own columns and the child tables its relation fields read, so that a page is read in
 * one statement (./read.ts reads it).
 */
export interface DomainRead {
  /** Model fields of the domain table; null: every column but DOMAIN_OMITTED. */
  fields: readonly string[] | null;
  /** Child tables whose rows the selection reads. */
  children: readonly DomainChild[];
  /**
   * Each Domain's rendered record (its text with the default fields, kept by the snapshot:
   * src/db/rendered.ts), read instead of the columns and child rows that text is written from
   * (renderedText gives it).
   */
  rendered?: boolean;
}

/** The read of Domains' rendered records: their key and name (what pages and lookups need), and the text. */
export const RENDERED_READ: DomainRead = { fields: ["name", "pk"], children: [], rendered: true };

const readKeys = new WeakMap<DomainRead, string>();
/** A string that identifies what `read` plans (reads are made once per selection and kept). */
export function readKey(read: DomainRead): string {
  let key = readKeys.get(read);
  if (key === undefined) {
    key = `${read.fields?.join(",") ?? "*"}|${read.children.join(",")}${read.rendered ? "|rendered" : ""}`;
    readKeys.set(read, key);
  }
  return key;
}
/**
 * Projection pushdown for pages of Domains: the model fields (columns) that the selected Domain
 * fields read, so that a page of `name,rank` reads two columns rather than a hundred. Each field
 * says what it reads where it is defined, beside its resolver (src/schema/domain.ts): a field named
 * after its column reads that column; any other declares the model fields it reads, and the child
 * table it resolves from, in its GraphQL extensions (`reads`). A field that does neither makes the
 * read take every column: a new field can be slow, never wrong. test/graphql/projection.test.ts
 * checks every field of the Domain type alone against a full read, and
 * test/graphql/model-coverage.test.ts that every field is a column or declares what it reads.
 */
export type FieldReads = {
  /** The model fields (of the domain table) the field's resolver reads. */
  reads: readonly string[];
  /** The child table whose rows it resolves from (src/db/domain-children.ts), read in the same statement. */
  readsChild?: DomainChild;
};

/**
 * The GraphQL extensions of a Domain field that reads `fields` (model field names) and, for a
 * relation field, the rows of `child`: `{ reads, readsChild }`, for the field's `extensions`.
 */
export const reads = (fields: readonly string[], child?: DomainChild): FieldReads =>
  child ? { reads: fields, readsChild: child } : { reads: fields };

const OMITTED = new Set(DOMAIN_OMITTED);
const COLUMNS = new Set(
  columnsOf("domain")
    .map((c) => c.field)
    .filter((f) => !OMITTED.has(f)),
);

/** What a field reads: its model fields (null: it declares nothing, so every column), its child table. */
export interface ReadsOfField {
  fields: readonly string[] | null;
  child: DomainChild | null;
}

const NOTHING: ReadsOfField = { fields: [], child: null };
const readsByType = new WeakMap<GraphQLObjectType, Map<string, ReadsOfField>>();

/** What the field `name` of the Domain type `type` reads (see FieldReads). */
export function readsOf(type: GraphQLObjectType, name: string): ReadsOfField {
  if (name === "__typename") return NOTHING;
  let byName = readsByType.get(type);
  if (!byName) {
    byName = new Map();
    readsByType.set(type, byName);
  }
  let found = byName.get(name);
  if (!found) {
    const declared = type.getFields()[name]?.extensions as Partial<FieldReads> | undefined;
    const child = declared?.readsChild;
    found = {
      fields: declared?.reads ?? (COLUMNS.has(name) ? [name] : null),
      child: child && child in DOMAIN_CHILDREN ? child : null,
    };
    byName.set(name, found);
  }
  return found;
}

/**
 * The model fields that the fields `names` (GraphQL names) of the Domain type `type` read, with
 * `always`; null for all.
 */
function modelFieldsOf(
  type: GraphQLObjectType,
  names: Iterable<string>,
  always: readonly string[],
): string[] | null {
  const fields = new Set(always);
  for (const name of names) {
    const read = readsOf(type, name).fields;
    if (!read) return null;
    for (const f of read) fields.add(f);
  }
  return [...fields].sort();
}

type Fragments = Record<string, FragmentDefinitionNode>;

/** The fields of selection sets, through inline fragments and fragment spreads. */
function fieldsIn(fragments: Fragments, sets: readonly SelectionSetNode[]) {
  const out = [];
  const stack = [...sets];
  for (let set = stack.pop(); set; set = stack.pop()) {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) out.push(s);
      else if (s.kind === Kind.INLINE_FRAGMENT) stack.push(s.selectionSet);
      else {
        const fragment = fragments[s.name.value];
        if (fragment) stack.push(fragment.selectionSet);
      }
    }
  }
  return out;
}

/** Plans by the field node they were made for (documents are parsed once and cached). */
const plans = new WeakMap<object, Map<string, DomainRead>>();

/**
 * What the Domains under `path` of the resolved field select (a DomainRead): their columns and
 * the child tables their relation fields read. Looked ahead once per field of a document and
 * kept: a repeated operation plans nothing. The readers add what they read themselves
 * (withFields: the key, the sort keys, what a lookup follows redirects by).
 */
export function domainReadOf(info: GraphQLResolveInfo, path: readonly string[]): DomainRead {
  const node = info.fieldNodes[0];
  const key = path.join(".");
  let byPath = plans.get(node);
  const known = byPath?.get(key);
  if (known && info.fieldNodes.length === 1) return known;
  let sets: SelectionSetNode[] = info.fieldNodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  for (const step of path) {
    sets = fieldsIn(info.fragments, sets).flatMap((f) =>
      f.name.value === step && f.selectionSet ? [f.selectionSet] : [],
    );
  }
  const read = domainReadOfSets(domainTypeOf(info, path), sets, [], info.fragments);
  if (info.fieldNodes.length === 1) {
    if (!byPath) {
      byPath = new Map();
      plans.set(node, byPath);
    }
    byPath.set(key, read);
  }
  return read;
}

/**
 * The Domain type under `path` of the resolved field's type (through lists, non-nulls and object
 * fields): the type whose fields say what they read.
 */
function domainTypeOf(info: GraphQLResolveInfo, path: readonly string[]): GraphQLObjectType {
  let type = getNamedType(info.returnType);
  for (const step of path) type = isObjectType(type) ? getNamedType(type.getFields()[step]?.type) : type;
  if (!isObjectType(type))
    throw new Error(`no object type under ${[info.fieldName, ...path].join(".")} to plan a Domain read by`);
  return type;
}

/** Reads with the fields their readers add, by read and added fields (both are made once and kept). */
const widened = new WeakMap<DomainRead, Map<string, DomainRead>>();

/**
 * `read` with the model fields `always` too: what a reader reads besides the selection (the key,
 * the sort keys of a page's cursors, what a lookup follows redirects by). Made once per pair.
 */
export function withFields(read: DomainRead, always: readonly string[]): DomainRead {
  if (read.fields === null) return read;
  const key = always.join(",");
  let byAlways = widened.get(read);
  const known = byAlways?.get(key);
  if (known) return known;
  const fields = [...new Set([...read.fields, ...always])].sort();
  const wide =
    fields.length === read.fields.length
      ? read
      : { fields, children: read.children, ...(read.rendered ? { rendered: read.rendered } : {}) };
  if (!byAlways) {
    byAlways = new Map();
    widened.set(read, byAlways);
  }
  byAlways.set(key, wide);
  return wide;
}

/**
 * What Domains (of the GraphQL type `type`, whose fields say what they read) selected by `sets`
 * need, with `always` (see domainReadOf).
 */
export function domainReadOfSets(
  type: GraphQLObjectType,
  sets: readonly SelectionSetNode[],
  always: readonly string[],
  fragments: Fragments = {},
): DomainRead {
  const fields = fieldsIn(fragments, sets);
  const children = new Set<DomainChild>();
  for (const f of fields) {
    const child = readsOf(type, f.name.value).child;
    if (child) children.add(child);
  }
  return {
    fields: modelFieldsOf(
      type,
      fields.map((f) => f.name.value),
      always,
    ),
    children: [...children].sort(),
  };
}
