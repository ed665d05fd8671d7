import type { DomainApp, DomainContact, Technology } from "../generated/sqlite/client.ts";
import {
  DOMAIN_EVENT_FILTERS,
  DOMAIN_LIST_FILTERS,
  DOMAIN_NAMED_FILTERS,
  DOMAIN_RANGE_FILTERS,
  type DomainFilter as DomainFilterShape,
  type EventFilter,
  type TERM_GROUPS,
} from "../query/domain-filter.ts";
import { plannedApp } from "../query/domain-read/read.ts";
import { appByPk, technologiesByName } from "../query/loaders.ts";
import { DOMAIN_SORTS, type Order } from "../query/sort.ts";
import { App } from "./app.ts";
import { builder, fromParent, legacy, SortDirection } from "./builder.ts";
import { filterFields } from "./filter.ts";

/** The nested objects of a Domain and the Domain list's input types. */

export const Contact = builder.objectRef<DomainContact>("ContactInfo").implement({
  description: "A way to reach the store, and where it was found.",
  fields: (t) => ({
    type: t.exposeString("type", {
      description: "email, phone, or a social or review network.",
      ...legacy("type"),
    }),
    value: t.exposeString("value", legacy("value")),
    source: t.exposeString("source", {
      description: "Relative URL of the page it was found on.",
      ...legacy("source"),
    }),
    description: t.exposeString("description", { nullable: true, ...legacy("description") }),
    followers: t.exposeInt("followers", { nullable: true, ...legacy("followers") }),
    followers30d: t.exposeInt("followers30d", { nullable: true, ...legacy("followers_30d") }),
    followers90d: t.exposeInt("followers90d", { nullable: true, ...legacy("followers_90d") }),
    posts: t.exposeInt("posts", { nullable: true, ...legacy("posts") }),
    likes: t.exposeInt("likes", { nullable: true, ...legacy("likes") }),
  }),
});

/**
 * A technology, shared by every Domain it is detected on: its text is the same wherever it
 * appears in a snapshot, so REST writes it once per snapshot (src/rest/shared-text.ts).
 */
export const TechnologyNode = builder.objectRef<Technology>("Technology");

builder.node(TechnologyNode, {
  description: "A technology detected on Domains: an analytics tool, a payment provider, a framework.",
  id: { resolve: (t) => t.name },
  loadMany: (names, ctx) => technologiesByName(ctx, names),
  fields: (t) => ({
    name: t.exposeString("name", legacy("name")),
    description: t.exposeString("description", legacy("description")),
    vendorUrl: t.exposeString("vendorUrl", legacy("vendor_url")),
    iconUrl: t.exposeString("iconUrl", legacy("icon_url")),
    installs: t.exposeInt("installs", { description: "Installs across all Domains.", ...legacy("installs") }),
    categories: t.stringList({
      nullable: true,
      ...legacy("categories"),
      resolve: (tech) => (tech.categories as string[] | null) ?? null,
    }),
  }),
});

/** In REST, a field of the technology itself, beside installed_at (src/rest/fields.ts). */
const ofTechnology = (name: string) => legacy(name, { legacyVia: "technology" });

export const DomainTechnology = builder
  .objectRef<{ installedAt: Date; technology: Technology }>("DomainTechnology")
  .implement({
    description: "A technology detected on the Domain.",
    fields: (t) => ({
      technology: t.field({
        type: TechnologyNode,
        description: "The technology itself (in REST its fields appear beside installed_at).",
        ...fromParent((d: { technology: Technology }) => d.technology, {
          extensions: { legacyShared: { key: "name" } },
        }),
      }),
      name: t.string({ ...ofTechnology("name"), resolve: (d) => d.technology.name }),
      description: t.string({ ...ofTechnology("description"), resolve: (d) => d.technology.description }),
      vendorUrl: t.string({ ...ofTechnology("vendor_url"), resolve: (d) => d.technology.vendorUrl }),
      iconUrl: t.string({ ...ofTechnology("icon_url"), resolve: (d) => d.technology.iconUrl }),
      installedAt: t.expose("installedAt", {
        type: "DateTime",
        description: "When the technology was first detected on the Domain.",
        ...legacy("installed_at"),
      }),
      installs: t.int({
        description: "Installs across all Domains.",
        ...ofTechnology("installs"),
        resolve: (d) => d.technology.installs,
      }),
      categories: t.stringList({
        nullable: true,
        ...ofTechnology("categories"),
        resolve: (d) => (d.technology.categories as string[] | null) ?? null,
      }),
    }),
  });

export interface ThemeShape {
  name: string;
  style: string | null;
  vendor: string | null;
  version: string | null;
  cost: number | null;
}

export const Theme = builder.objectRef<ThemeShape>("Theme").implement({
  fields: (t) => ({
    name: t.exposeString("name", legacy("name")),
    style: t.exposeString("style", {
      nullable: true,
      description: "Estimated from HTML similarity with a theme-store demo.",
      ...legacy("style"),
    }),
    vendor: t.exposeString("vendor", { nullable: true, ...legacy("vendor") }),
    version: t.exposeString("version", { nullable: true, ...legacy("version") }),
    cost: t.exposeInt("cost", {
      nullable: true,
      description: "Cents of USD; only for paid themes of the shopify theme store.",
      ...legacy("cost"),
    }),
  }),
});

export const ReviewSite = builder
  .objectRef<{ reviewCount: number; avgRating: number }>("ReviewSite")
  .implement({
    description: "A third-party review site's summary of the store.",
    fields: (t) => ({
      reviewCount: t.exposeInt("reviewCount", legacy("review_count")),
      avgRating: t.exposeFloat("avgRating", legacy("avg_rating")),
    }),
  });

interface ProductJson {
  title: string;
  handle: string;
  product_id: number;
  published_at: string;
}

export const Product = builder.objectRef<ProductJson>("Product").implement({
  description: "The newest product of a store.",
  fields: (t) => ({
    title: t.exposeString("title", legacy("title")),
    handle: t.exposeString("handle", legacy("handle")),
    productId: t.field({
      type: "SafeInt",
      ...fromParent((p: ProductJson) => p.product_id, legacy("product_id")),
    }),
    publishedAt: t.field({
      type: "DateTime",
      ...fromParent((p: ProductJson) => new Date(p.published_at), legacy("published_at")),
    }),
  }),
});

export const InstalledApp = builder.objectRef<DomainApp>("InstalledApp").implement({
  description: "An App on a Domain, with when it was installed and, once uninstalled, removed.",
  fields: (t) => ({
    installedAt: t.expose("installedAt", { type: "DateTime", ...legacy("installed_at") }),
    removedAt: t.expose("removedAt", {
      type: "DateTime",
      nullable: true,
      description: "When the Domain uninstalled the App.",
      ...legacy("removed_at"),
    }),
    app: t.field({
      type: App,
      description: "The App (in REST its fields appear beside installed_at).",
      // Shared by every Domain that installed it: REST writes its text once per snapshot.
      ...fromParent(
        (d: DomainApp, ctx) => {
          // A planned read attached the App (src/query/domain-read/read.ts); else its loader reads it.
          const planned = plannedApp(d);
          if (planned) return planned;
          return appByPk(ctx)
            .load(d.appPk)
            .then((app) => {
              if (!app) throw new Error(`Domain ${d.domainPk} refers to a missing App ${d.appPk}`);
              return app;
            });
        },
        { extensions: { legacyFlatten: true, legacyShared: { key: "appId" } } },
      ),
    }),
  }),
});

// ---------------------------------------------------------------------- list inputs

export const DomainSortField = builder.enumType("DomainSortField", {
  values: Object.fromEntries(
    Object.entries(DOMAIN_SORTS).map(([k, s]) => [
      k,
      { description: s.description, ...legacy(s.legacy[0], { aliases: s.legacy.slice(1) }) },
    ]),
  ) as unknown as Record<keyof typeof DOMAIN_SORTS, { description: string }>,
});

export const DomainOrder = builder.inputRef<Order<keyof typeof DOMAIN_SORTS>>("DomainOrder").implement({
  fields: (t) => ({
    field: t.field({ type: DomainSortField, required: true }),
    direction: t.field({ type: SortDirection, defaultValue: "asc" }),
  }),
});

const AppEventRange = builder.inputRef<EventFilter>("AppEventRange").implement({
  description: "When one App was installed or uninstalled; give min, max or both.",
  fields: (t) => ({
    app: t.string({ required: true, description: "The App, <platform>.<token> (exactly one)." }),
    min: t.field({ type: "DateTime" }),
    max: t.field({ type: "DateTime" }),
  }),
});

const TechnologyEventRange = builder.inputRef<EventFilter>("TechnologyEventRange").implement({
  description: "When one technology was first detected; give min, max or both.",
  fields: (t) => ({
    technology: t.string({ required: true, description: "The technology's name (exactly one)." }),
    min: t.field({ type: "DateTime" }),
    max: t.field({ type: "DateTime" }),
  }),
});

/** The filters of a Domain, each with its legacy option: DomainFilter's, and each term of its `and`. */
const domainFilterFields = (t: Parameters<Parameters<typeof builder.inputType>[1]["fields"]>[0]) => ({
  ...filterFields(t, DOMAIN_LIST_FILTERS, DOMAIN_RANGE_FILTERS),
  ...Object.fromEntries(
    Object.entries(DOMAIN_NAMED_FILTERS).map(([name, f]) => [
      name,
      t.string({ description: `${f.description} (${f.legacy}).`, ...legacy(f.legacy) }),
    ]),
  ),
  ...Object.fromEntries(
    Object.entries(DOMAIN_EVENT_FILTERS).map(([name, e]) => [
      name,
      t.field({
        type: e.subject === "app" ? AppEventRange : TechnologyEventRange,
        description: `${e.description} (${e.legacy}:min, ${e.legacy}:max).`,
        ...legacy(e.legacy),
      }),
    ]),
  ),
});

/**
 * A term of DomainFilter's `and`: the same filters without `and`, since terms do not nest. A
 * distinct type rather than DomainFilter itself, so that the input types hold no cycle: a
 * variable of a recursive input type cannot run compiled (src/schema/execute.ts).
 */
const DomainCondition = builder
  .inputRef<Omit<DomainFilterShape, (typeof TERM_GROUPS)[number]>>("DomainCondition")
  .implement({
    description:
      "One term of DomainFilter's and, or or not: it matches when all its given filters match (terms do not nest).",
    fields: (t) => domainFilterFields(t),
  });

export const DomainFilter = builder.inputRef<DomainFilterShape>("DomainFilter").implement({
  description: "Domain filters (docs/api.md 4.7 and docs/decisions.md); all given filters must match.",
  fields: (t) => ({
    ...domainFilterFields(t),
    and: t.field({
      type: [DomainCondition],
      description: "More filters that must all match too, e.g. the same filter twice (aq). Not nested.",
      ...legacy("aq"),
    }),
    or: t.field({
      type: [DomainCondition],
      description:
        "Terms of which at least one must match, beside the other filters (bq's should): conditions on different filters ORed. At least one term. Not nested.",
      ...legacy("bq"),
    }),
    not: t.field({
      type: [DomainCondition],
      description:
        "Terms none of which may match (bq's must_not). A Domain whose value a term tests is unknown does not match that term, so it matches its negation. Not nested.",
      ...legacy("bq"),
    }),
  }),
});
