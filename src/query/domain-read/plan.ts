import type { FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from "graphql";
import { Kind } from "graphql";
import type { ReadContext } from "../../context.ts";
import { DOMAIN_CHILDREN, type DomainChild } from "../../db/domain-children.ts";
import { columnsOf } from "../../db/reader.ts";
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
}

const readKeys = new WeakMap<DomainRead, string>();
/** A string that identifies what `read` plans (reads are made once per selection and kept). */
export function readKey(read: DomainRead): string {
  let key = readKeys.get(read);
  if (key === undefined) {
    key = `${read.fields?.join(",") ?? "*"}|${read.children.join(",")}`;
    readKeys.set(read, key);
  }
  return key;
}
/**
 * Projection pushdown for pages of Domains: the model fields (columns) that the selected Domain
 * fields read, so that a page of `name,rank` reads two columns rather than a hundred. A field named
 * after its column reads that column; the others are listed here. A field this module does not
 * know makes the page read every column: a new field can be slow, never wrong.
 * test/graphql/projection.test.ts checks every field of the Domain type alone against a full read.
 */
export const DERIVED: Record<string, readonly string[]> = {
  __typename: [],
  id: ["name"],
  theme: ["themeName", "themeStyle", "themeVendor", "themeVersion", "themeCost"],
  trustpilot: ["trustpilotReviewCount", "trustpilotAvgRating"],
  yotpo: ["yotpoReviewCount", "yotpoAvgRating"],
  redirectTargets: ["redirectsTo"],
  // A snapshot loaded before every Domain had a cluster: the Domain's own name stands in.
  cluster: ["clusterDomains", "name"],
  clusterDomains: ["clusterDomains", "name"],
  clusterBestRanked: ["clusterBestRanked", "name"],
  // Read by the Domain's key from other tables (or, for the product, by its own loader).
  categories: [],
  features: [],
  tags: [],
  salesChannels: [],
  shipsToCountries: [],
  contactInfo: [],
  technologies: [],
  apps: [],
  appReviews: [],
  mostRecentlyPublishedProduct: ["mostRecentlyPublishedProduct"],
};

const OMITTED = new Set(DOMAIN_OMITTED);
const COLUMNS = new Set(
  columnsOf("domain")
    .map((c) => c.field)
    .filter((f) => !OMITTED.has(f)),
);

/** The model fields that the Domain fields `names` (GraphQL names) read, with `always`; null for all. */
export function modelFieldsOf(names: Iterable<string>, always: readonly string[]): string[] | null {
  const fields = new Set(always);
  for (const name of names) {
    const derived = DERIVED[name];
    if (derived) for (const d of derived) fields.add(d);
    else if (COLUMNS.has(name)) fields.add(name);
    else return null;
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

const CHILDREN = new Set(Object.keys(DOMAIN_CHILDREN));

/** Plans by the field node they were made for (documents are parsed once and cached). */
const plans = new WeakMap<object, Map<string, DomainRead>>();

/**
 * What the Domains under `path` of the resolved field need (a DomainRead): their columns (with
 * `always`: the key, the sort keys, what the resolver itself reads) and the child tables their
 * relation fields read. Looked ahead once per field of a document and kept: a repeated operation
 * plans nothing.
 */
export function domainReadOf(
  ctx: ReadContext,
  info: GraphQLResolveInfo,
  path: readonly string[],
  always: readonly string[],
): DomainRead {
  // A REST request's records: their document selects only their names, and what they read is
  // what the route's `fields` selects (src/context.ts, RecordHandoff).
  if (ctx.records) return handedOverRead(ctx.records.set, always);
  const node = info.fieldNodes[0];
  const key = `${path.join(".")}|${always.join(",")}`;
  let byPath = plans.get(node);
  const known = byPath?.get(key);
  if (known && info.fieldNodes.length === 1) return known;
  let sets: SelectionSetNode[] = info.fieldNodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  for (const step of path) {
    sets = fieldsIn(info.fragments, sets).flatMap((f) =>
      f.name.value === step && f.selectionSet ? [f.selectionSet] : [],
    );
  }
  const read = domainReadOfSets(sets, always, info.fragments);
  if (info.fieldNodes.length === 1) {
    if (!byPath) {
      byPath = new Map();
      plans.set(node, byPath);
    }
    byPath.set(key, read);
  }
  return read;
}

/** Reads of handed-over records, by their selection set and `always`. */
const handedOver = new WeakMap<SelectionSetNode, Map<string, DomainRead>>();

function handedOverRead(set: SelectionSetNode, always: readonly string[]): DomainRead {
  let byAlways = handedOver.get(set);
  if (!byAlways) {
    byAlways = new Map();
    handedOver.set(set, byAlways);
  }
  const key = always.join(",");
  let read = byAlways.get(key);
  if (!read) {
    // Their names too: the writer finds each record's row by it.
    read = domainReadOfSets([set], [...always, "name"]);
    byAlways.set(key, read);
  }
  return read;
}

/** What Domains selected by `sets` need, with `always` (see domainReadOf). */
export function domainReadOfSets(
  sets: readonly SelectionSetNode[],
  always: readonly string[],
  fragments: Fragments = {},
): DomainRead {
  const fields = fieldsIn(fragments, sets);
  const children = new Set<DomainChild>();
  for (const f of fields) if (CHILDREN.has(f.name.value)) children.add(f.name.value as DomainChild);
  return {
    fields: modelFieldsOf(
      fields.map((f) => f.name.value),
      always,
    ),
    children: [...children].sort(),
  };
}
