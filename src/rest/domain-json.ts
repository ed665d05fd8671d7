import {
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isSpecifiedScalarType,
} from "graphql";
import { LRUCache } from "lru-cache";
import type { SqlReader } from "../db/reader.ts";
import type { DomainApp, DomainTechnology, Technology } from "../generated/sqlite/client.ts";
import { type AppRow, DOMAIN_CHILDREN, type DomainChild, READS, readDomainPage } from "../query/loaders.ts";
import { APP_RELATIONS } from "../schema/app.ts";
import { DOMAIN_RELATIONS } from "../schema/domain.ts";
import { modelFieldsOf } from "../schema/domain-columns.ts";
import { schema } from "../schema/index.ts";
import { type Selection, selectionKey } from "./fields.ts";

/**
 * The JSON text of Domains as the REST routes return them, written without running GraphQL field
 * by field: Export Domains and cursor=all (api.md; decisions.md "cursor=all and export"), and
 * Retrieve, Bulk retrieve and List Domains when their selection names a relation (src/rest/handler.ts).
 *
 * A page of Domains through graphql-js resolves and completes every field of every nested object
 * one by one (about 800 fields for a Domain with its default fields), then the REST layer reshapes
 * the result; an export is thousands of such pages. Here a page is read with the loaders' own
 * batch reads (the same SQL, row order and model rows: src/query/loaders.ts READS), each Domain
 * gets the values of its relation fields (the lists, contacts, technologies, Apps and product that
 * the resolvers read through loaders); every other field is the schema's own resolver, called on
 * the row, and the legacy selection is written as text with the schema's scalar serializers. An
 * App or a technology shared by many Domains is read and written once per snapshot (SharedRows).
 *
 * The GraphQL path stays the reference: test/rest/domain-json.test.ts compares every Domain field,
 * nested selections and the defaults with the same routes answered through GraphQL, byte for
 * byte, on both databases.
 */

type View = Record<string, unknown>;

interface FieldPlan {
  /** `"legacy_name":` */
  key: string;
  field: string;
  /** The field's value on its parent object (the `via` object for a flattened field). */
  get: (parent: View) => unknown;
  /** The flattened child object (InstalledApp.app) a `via` field is read from. */
  viaGet?: (parent: View) => unknown;
  /** A leaf's JSON text; absent for objects, written with `plan`. */
  leaf?: (value: unknown) => string;
  plan?: ObjectPlan;
}

interface ObjectPlan {
  fields: FieldPlan[];
  /**
   * The written `via` fields of a flattened object, by that object: an App installed by many
   * Domains is written once (its fields depend on the App alone).
   */
  viaText: WeakMap<object, (string | null)[]>;
  /** GraphQL names of the fields read, `via` objects' fields included as `via.field`. */
  names: Set<string>;
}

/** How GraphQL serializes a leaf of `type` (lists of leaves included), as JSON text. */
function leafWriter(type: GraphQLOutputType): (value: unknown) => string {
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) {
    const item = leafWriter(t.ofType);
    return (v) => `[${(v as unknown[]).map(item).join(",")}]`;
  }
  if (!isLeafType(t)) throw new Error(`${String(type)} is not a leaf type`);
  const serialized = (v: unknown) => JSON.stringify(t.serialize(v));
  if (!isSpecifiedScalarType(t)) return serialized;
  // A built-in scalar given a value of its own type serializes it as it is: write it without the
  // call (an export writes about a hundred leaves per Domain). Any other value takes the scalar's
  // own path, with its coercion or its error.
  switch (t.name) {
    case "String":
    case "ID":
      return (v) => (typeof v === "string" ? JSON.stringify(v) : serialized(v));
    case "Int":
      return (v) =>
        typeof v === "number" && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647
          ? String(v)
          : serialized(v);
    case "Float":
      return (v) => (typeof v === "number" && Number.isFinite(v) ? String(v) : serialized(v));
    case "Boolean":
      return (v) => (v === true ? "true" : v === false ? "false" : serialized(v));
    default:
      return serialized;
  }
}

/**
 * Fields whose resolvers read through loaders (by type): the writer reads them itself, in batches,
 * and hands their values over in PROVIDED. Every other field's resolver is a function of its
 * parent alone, and is called as it is.
 */
const RELATIONS: Record<string, readonly string[]> = {
  Domain: Object.keys(DOMAIN_RELATIONS),
  InstalledApp: ["app"],
  App: Object.keys(APP_RELATIONS),
};
/** The arguments given to a resolver of the parent alone: one object, not one per call. */
const NO_ARGS = Object.freeze({});
/** The relation values of an object, by GraphQL field name. */
const PROVIDED = Symbol("provided");

function getter(type: GraphQLObjectType, field: GraphQLField<unknown, unknown>): (parent: View) => unknown {
  const name = field.name;
  if (RELATIONS[type.name]?.includes(name))
    return (p) => (p as { [PROVIDED]: Record<string, unknown> })[PROVIDED][name];
  if (field.args.length) throw new Error(`${type.name}.${name} takes arguments`);
  const resolve = field.resolve;
  if (!resolve) return (p) => p[name];
  // Resolvers of the parent alone (src/schema): no context, arguments or info to give.
  return (p) => resolve(p, NO_ARGS, undefined, undefined as never);
}

/** The plan that writes `selection` of objects of `type`. */
function compile(selection: Selection, type: GraphQLObjectType): ObjectPlan {
  const fields: FieldPlan[] = [];
  const names = new Set<string>();
  for (const [legacy, f] of selection) {
    let owner = type;
    if (f.via) {
      const via = getNamedType(type.getFields()[f.via].type);
      if (!isObjectType(via)) throw new Error(`${type.name}.${f.via} is not an object`);
      owner = via;
    }
    const gql = owner.getFields()[f.field];
    if (!gql) throw new Error(`${owner.name} has no field ${f.field}`);
    names.add(f.via ? `${f.via}.${f.field}` : f.field);
    const key = `${JSON.stringify(legacy)}:`;
    const base = {
      key,
      field: f.field,
      get: getter(owner, gql),
      viaGet: f.via ? getter(type, type.getFields()[f.via]) : undefined,
    };
    if (f.children) {
      const child = getNamedType(gql.type);
      if (!isObjectType(child)) throw new Error(`${owner.name}.${f.field} is not an object`);
      fields.push({ ...base, plan: compile(f.children, child) });
    } else {
      fields.push({ ...base, leaf: leafWriter(gql.type) });
    }
  }
  return { fields, names, viaText: new WeakMap() };
}

/** An object's JSON text: its selected fields in order, null and absent values left out (reshape). */
function write(view: View, plan: ObjectPlan): string {
  let out = "{";
  const fields = plan.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    let text: string | null;
    if (f.viaGet) {
      const source = f.viaGet(view) as View | null | undefined;
      if (source === null || source === undefined) continue;
      let written = plan.viaText.get(source);
      if (!written) {
        written = [];
        plan.viaText.set(source, written);
      }
      text = written[i];
      if (text === undefined) {
        text = valueText(f, source);
        written[i] = text;
      }
    } else {
      text = valueText(f, view);
    }
    if (text === null) continue;
    out += out.length === 1 ? f.key + text : `,${f.key}${text}`;
  }
  return `${out}}`;
}

/** The JSON text of a field's value on `source`, or null when it is null or absent. */
function valueText(f: FieldPlan, source: View): string | null {
  const value = f.get(source);
  if (value === null || value === undefined) return null;
  if (!f.plan) return (f.leaf as (v: unknown) => string)(value);
  const plan = f.plan;
  return Array.isArray(value)
    ? `[${value.map((v) => write(v as View, plan)).join(",")}]`
    : write(value as View, plan);
}

/** The Domain relations read from the Domain's child tables, with its row (readDomainPage). */
const CHILDREN = Object.keys(DOMAIN_CHILDREN) as DomainChild[];
/** The direct ones: their value is a function of the child rows alone (DOMAIN_RELATIONS). */
const DIRECT = CHILDREN.filter((c) => c !== "technologies" && c !== "apps") as Exclude<
  DomainChild,
  "technologies" | "apps"
>[];

/** Hands `object` the value of its relation field `field`. */
function provide(object: object, field: string, value: unknown): void {
  const o = object as { [PROVIDED]?: Record<string, unknown> };
  o[PROVIDED] ??= {};
  o[PROVIDED][field] = value;
}

/** What a selection compiles to: shared by every writer of the same selection. */
interface Compiled {
  plan: ObjectPlan;
  /** The domain columns the selection reads (model field names), or null for all of them. */
  columns: string[] | null;
  /** The App fields selected under apps (`app.<field>`). */
  appFields: Set<string>;
}
const compiledByKey = new Map<string, Compiled>();
/** Distinct selections kept compiled (a client's `fields` can vary without end). */
const MAX_COMPILED = 1000;

function compiled(selection: Selection): Compiled {
  const key = selectionKey(selection);
  let c = compiledByKey.get(key);
  if (!c) {
    const plan = compile(selection, schema.getType("Domain") as GraphQLObjectType);
    c = {
      plan,
      columns: modelFieldsOf(
        [...plan.names].filter((n) => n !== "mostRecentlyPublishedProduct"),
        ["pk", "name"],
      ),
      appFields: plan.fields.find((f) => f.field === "apps")?.plan?.names ?? new Set(),
    };
    if (compiledByKey.size >= MAX_COMPILED) compiledByKey.clear();
    compiledByKey.set(key, c);
  }
  return c;
}

/**
 * Whether `selection` names a relation of Domain (Apps, technologies, contacts, lists, product):
 * only then does writing beat GraphQL for a REST page. Without one, a Domain is a few columns that
 * GraphQL completes quickly, and the writer's own read of the rows would cost more than it saves
 * (measured in-process, 20,000 Domains: a page of 50 with name,rank 1.1–2.7 ms written vs
 * 0.9–1.6 ms through GraphQL; with the default fields 13–15 ms vs 34–40 ms).
 */
export function readsRelations(selection: Selection): boolean {
  const { names } = compiled(selection).plan;
  return RELATIONS.Domain.some((field) => names.has(field));
}

/**
 * Apps and technologies of a snapshot, kept across requests and exports (by the snapshot's reader:
 * they go with it): a Domain's Apps are few of many, and each is shared by many Domains. An App
 * keeps the relations read for it (PROVIDED) and, in each selection's plan, its written text
 * (ObjectPlan.viaText), so a popular App is read and written once, not once per Domain.
 */
interface SharedRows {
  apps: LRUCache<number, AppRow>;
  technologies: LRUCache<number, Technology>;
}
const SHARED = new WeakMap<SqlReader, SharedRows>();
/** Bounds of SharedRows: a few MB each (an App with its plans and text is a few KB). */
const MAX_APPS = 5000;
const MAX_TECHNOLOGIES = 5000;

function sharedRows(sql: SqlReader): SharedRows {
  let rows = SHARED.get(sql);
  if (!rows) {
    rows = { apps: new LRUCache({ max: MAX_APPS }), technologies: new LRUCache({ max: MAX_TECHNOLOGIES }) };
    SHARED.set(sql, rows);
  }
  return rows;
}

/** The App relations a selection can name under `apps`, with their batch reads. */
const APP_READS = {
  categories: READS.appCategories,
  plans: READS.appPlans,
  integratesWith: READS.appIntegrations,
  descriptionLong: READS.appDescriptionLong,
} as const;

const hasProvided = (object: object, field: string) =>
  field in ((object as { [PROVIDED]?: Record<string, unknown> })[PROVIDED] ?? {});

/**
 * The JSON text of the Domains named, in that order, with `selection`, as List Domains answers
 * them, read from the snapshot of `sql`. A name the snapshot does not hold is an error: the names
 * come from the same snapshot (a page of it, or a route's operation over it).
 */
export async function domainLines(
  sql: SqlReader,
  selection: Selection,
  names: readonly string[],
): Promise<string[]> {
  if (!names.length) return [];
  const { plan, columns, appFields } = compiled(selection);
  const wanted = plan.names;
  const page = await readDomainPage(
    sql,
    names,
    columns,
    CHILDREN.filter((c) => wanted.has(c)),
  );
  const rows = page.rows.map((r, i) => {
    if (!r) throw new Error(`Domain ${names[i]} vanished between its page and its read`);
    return r;
  });
  const each = <V>(values: V[], field: string, value: (v: V) => unknown) => {
    for (let i = 0; i < rows.length; i++) provide(rows[i], field, value(values[i]));
  };
  const childRows = (child: DomainChild) => page.children[child] as never[][];
  for (const field of DIRECT) {
    if (wanted.has(field)) each(childRows(field), field, DOMAIN_RELATIONS[field] as (v: unknown) => unknown);
  }
  const shared = sharedRows(sql);
  const reads: Promise<void>[] = [];
  if (wanted.has("mostRecentlyPublishedProduct"))
    reads.push(
      READS.domainProduct(
        sql,
        rows.map((r) => r.pk),
      ).then((values) =>
        each(values, "mostRecentlyPublishedProduct", DOMAIN_RELATIONS.mostRecentlyPublishedProduct),
      ),
    );
  if (wanted.has("technologies")) {
    const groups = childRows("technologies") as DomainTechnology[][];
    const keys = groups.flat().map((r) => r.technologyPk);
    reads.push(
      rowsByPk(sql, shared.technologies, keys, READS.technologyByPk).then((technologies) =>
        each(groups, "technologies", (g) =>
          DOMAIN_RELATIONS.technologies(g, (r) => technologies.get(r.technologyPk)),
        ),
      ),
    );
  }
  if (wanted.has("apps")) {
    const groups = childRows("apps") as DomainApp[][];
    const installs = groups.flat();
    reads.push(
      readApps(
        sql,
        shared,
        appFields,
        installs.map((r) => r.appPk),
      ).then((apps) => {
        for (const r of installs) provide(r, "app", apps.get(r.appPk));
        each(groups, "apps", DOMAIN_RELATIONS.apps);
      }),
    );
  }
  await Promise.all(reads);
  return rows.map((r) => write(r as unknown as View, plan));
}

/** The rows of `keys`, from `cache` or read (and then cached); a key without a row is an error. */
async function rowsByPk<R extends { pk: number }>(
  sql: SqlReader,
  cache: LRUCache<number, R>,
  keys: number[],
  read: (sql: SqlReader, keys: readonly number[]) => Promise<(R | null)[]>,
): Promise<Map<number, R>> {
  const out = new Map<number, R>();
  const lacking = new Set<number>();
  for (const k of keys) {
    if (out.has(k) || lacking.has(k)) continue;
    const row = cache.get(k);
    if (row) out.set(k, row);
    else lacking.add(k);
  }
  if (!lacking.size) return out;
  const missing = [...lacking];
  (await read(sql, missing)).forEach((row, i) => {
    if (!row) throw new Error(`a Domain refers to a missing row ${missing[i]}`);
    cache.set(row.pk, row);
    out.set(row.pk, row);
  });
  return out;
}

/** The Apps of `keys`, each with the relations the selection names under apps (src/schema/app.ts). */
async function readApps(
  sql: SqlReader,
  shared: SharedRows,
  appFields: Set<string>,
  keys: number[],
): Promise<Map<number, AppRow>> {
  const apps = await rowsByPk(sql, shared.apps, keys, READS.appByPk);
  await Promise.all(
    (Object.keys(APP_READS) as (keyof typeof APP_READS)[]).map(async (field) => {
      if (!appFields.has(`app.${field}`)) return;
      const lacking = [...apps.values()].filter((a) => !hasProvided(a, field));
      if (!lacking.length) return;
      const values = await (APP_READS[field] as (sql: SqlReader, pks: number[]) => Promise<unknown[]>)(
        sql,
        lacking.map((a) => a.pk),
      );
      const value = APP_RELATIONS[field] as (v: unknown) => unknown;
      for (let i = 0; i < lacking.length; i++) provide(lacking[i], field, value(values[i]));
    }),
  );
  return apps;
}
