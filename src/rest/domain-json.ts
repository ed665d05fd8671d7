import {
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from "graphql";
import type { SqlReader } from "../db/reader.ts";
import type { Technology } from "../generated/sqlite/client.ts";
import { type AppRow, READS, readDomainsByName } from "../query/loaders.ts";
import { APP_RELATIONS } from "../schema/app.ts";
import { DOMAIN_RELATIONS } from "../schema/domain.ts";
import { modelFieldsOf } from "../schema/domain-columns.ts";
import type { Selection } from "./fields.ts";

/**
 * The JSON text of Domains as List Domains returns them, written without running GraphQL: the
 * export's hot path (api.md: Export Domains; decisions.md "cursor=all and export").
 *
 * A page of Domains through graphql-js resolves and completes every field of every nested object
 * one by one (about 800 fields for a Domain with its default fields), then the REST layer reshapes
 * the result; an export is thousands of such pages. Here a page is read with the loaders' own
 * batch reads (the same SQL, row order and model rows: src/query/loaders.ts READS), each Domain
 * gets the values of its relation fields (the lists, contacts, technologies, Apps and product that
 * the resolvers read through loaders); every other field is the schema's own resolver, called on
 * the row, and the legacy selection is written as text with the schema's scalar serializers. An
 * App or a technology shared by many Domains is read once per export.
 *
 * The GraphQL path stays the reference: test/rest/domain-json.test.ts compares every Domain field,
 * nested selections and the defaults with List Domains' answers, byte for byte, on both databases.
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
  return (v) => JSON.stringify(t.serialize(v));
}

/**
 * Fields whose resolvers read through loaders (by type): the writer reads them itself, in batches,
 * and hands their values over in PROVIDED. Every other field's resolver is a function of its
 * parent alone, and is called as it is.
 */
const RELATIONS: Record<string, readonly string[]> = {
  Domain: [
    "categories",
    "features",
    "tags",
    "salesChannels",
    "shipsToCountries",
    "contactInfo",
    "technologies",
    "apps",
    "mostRecentlyPublishedProduct",
  ],
  InstalledApp: ["app"],
  App: ["categories", "plans", "integratesWith", "descriptionLong"],
};
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
  return (p) => resolve(p, {}, undefined, undefined as never);
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

/** The batch reads of the Domain relations whose values need no other read (DOMAIN_RELATIONS). */
const DOMAIN_READS = {
  categories: READS.domainCategories,
  features: READS.domainFeatures,
  tags: READS.domainTags,
  salesChannels: READS.domainSalesChannels,
  shipsToCountries: READS.domainShipsTo,
  contactInfo: READS.domainContacts,
  mostRecentlyPublishedProduct: READS.domainProduct,
} as const;
type DirectRelation = keyof typeof DOMAIN_READS;

/** Hands `object` the value of its relation field `field`. */
function provide(object: object, field: string, value: unknown): void {
  const o = object as { [PROVIDED]?: Record<string, unknown> };
  o[PROVIDED] ??= {};
  o[PROVIDED][field] = value;
}

export class DomainJsonWriter {
  private readonly plan: ObjectPlan;
  /** The domain columns the selection reads (model field names), or null for all of them. */
  private readonly columns: string[] | null;
  /** The App fields selected under apps (`app.<field>`). */
  private readonly appFields: Set<string>;
  /** Apps and technologies by pk, read once per export, for the snapshot of `version`. */
  private readonly apps = new Map<number, AppRow>();
  private readonly technologies = new Map<number, Technology>();
  private version: number | null = null;

  constructor(selection: Selection, domainType: GraphQLObjectType) {
    this.plan = compile(selection, domainType);
    this.columns = modelFieldsOf(
      [...this.plan.names].filter((n) => n !== "mostRecentlyPublishedProduct"),
      ["pk", "name"],
    );
    this.appFields = this.plan.fields.find((f) => f.field === "apps")?.plan?.names ?? new Set();
  }

  /**
   * The JSON text of the Domains named, in that order, read from `sql` (the snapshot of
   * `version`). A name the snapshot does not hold is an error: the names come from a page of it.
   */
  async lines(sql: SqlReader, version: number, names: readonly string[]): Promise<string[]> {
    if (this.version !== version) {
      this.apps.clear();
      this.technologies.clear();
      this.version = version;
    }
    const rows = (await readDomainsByName(sql, names, this.columns)).map((r, i) => {
      if (!r) throw new Error(`Domain ${names[i]} vanished between its page and its read`);
      return r;
    });
    const pks = rows.map((r) => r.pk);
    const wanted = this.plan.names;
    const each = <V>(values: V[], field: string, value: (v: V) => unknown) => {
      for (let i = 0; i < rows.length; i++) provide(rows[i], field, value(values[i]));
    };
    const reads: Promise<void>[] = [];
    for (const field of Object.keys(DOMAIN_READS) as DirectRelation[]) {
      if (!wanted.has(field)) continue;
      const read = DOMAIN_READS[field] as (sql: SqlReader, pks: number[]) => Promise<unknown[]>;
      const value = DOMAIN_RELATIONS[field] as (v: unknown) => unknown;
      reads.push(read(sql, pks).then((values) => each(values, field, value)));
    }
    if (wanted.has("technologies"))
      reads.push(
        READS.domainTechnologies(sql, pks).then(async (groups) => {
          const technologyPks = groups.flat().map((r) => r.technologyPk);
          await this.readMissing(sql, this.technologies, technologyPks, READS.technologyByPk);
          each(groups, "technologies", (g) =>
            DOMAIN_RELATIONS.technologies(g, (pk) => this.technologies.get(pk)),
          );
        }),
      );
    if (wanted.has("apps"))
      reads.push(
        READS.domainApps(sql, pks).then(async (groups) => {
          const installs = groups.flat();
          await this.readApps(
            sql,
            installs.map((r) => r.appPk),
          );
          for (const r of installs) provide(r, "app", this.apps.get(r.appPk));
          each(groups, "apps", DOMAIN_RELATIONS.apps);
        }),
      );
    await Promise.all(reads);
    return rows.map((r) => write(r as unknown as View, this.plan));
  }

  /** Reads into `cache` the rows of the keys it lacks; a key without a row is an error. */
  private async readMissing<R extends { pk: number }>(
    sql: SqlReader,
    cache: Map<number, R>,
    keys: number[],
    read: (sql: SqlReader, keys: readonly number[]) => Promise<(R | null)[]>,
  ): Promise<number[]> {
    const missing = [...new Set(keys)].filter((k) => !cache.has(k));
    if (!missing.length) return missing;
    (await read(sql, missing)).forEach((row, i) => {
      if (!row) throw new Error(`a Domain refers to a missing row ${missing[i]}`);
      cache.set(row.pk, row);
    });
    return missing;
  }

  /** The Apps not read yet, with the relations of theirs that the selection names (src/schema/app.ts). */
  private async readApps(sql: SqlReader, keys: number[]): Promise<void> {
    const fresh = await this.readMissing(sql, this.apps, keys, READS.appByPk);
    if (!fresh.length) return;
    const want = this.appFields;
    const [categories, plans, integrations, long] = await Promise.all([
      want.has("app.categories") ? READS.appCategories(sql, fresh) : null,
      want.has("app.plans") ? READS.appPlans(sql, fresh) : null,
      want.has("app.integratesWith") ? READS.appIntegrations(sql, fresh) : null,
      want.has("app.descriptionLong") ? READS.appDescriptionLong(sql, fresh) : null,
    ]);
    fresh.forEach((pk, i) => {
      const app = this.apps.get(pk) as AppRow;
      if (categories) provide(app, "categories", APP_RELATIONS.categories(categories[i]));
      if (plans) provide(app, "plans", APP_RELATIONS.plans(plans[i]));
      if (integrations) provide(app, "integratesWith", APP_RELATIONS.integratesWith(integrations[i]));
      if (long) provide(app, "descriptionLong", APP_RELATIONS.descriptionLong(long[i]));
    });
  }
}
