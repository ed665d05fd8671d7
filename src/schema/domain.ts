import type DataLoader from "dataloader";
import type { ReadContext } from "../context.ts";
import type { DomainChild } from "../db/domain-children.ts";
import type {
  DomainApp,
  DomainCategory,
  DomainContact,
  DomainFeature,
  DomainSalesChannel,
  DomainShipsTo,
  DomainTag,
  DomainTechnology as DomainTechnologyRow,
  Technology,
} from "../generated/sqlite/client.ts";
import { reads } from "../query/domain-read/plan.ts";
import { plannedRows, plannedTechnology } from "../query/domain-read/read.ts";
import {
  type DomainRow,
  domainApps,
  domainByName,
  domainCategories,
  domainContacts,
  domainFeatures,
  domainProduct,
  domainSalesChannels,
  domainShipsTo,
  domainTags,
  domainTechnologies,
  technologyByPk,
} from "../query/loaders.ts";
import { builder, fromParent, legacy } from "./builder.ts";
import { Contact, DomainTechnology, InstalledApp, Product, ReviewSite, Theme } from "./domain-parts.ts";

/**
 * The Domain type: its fields, each saying what it reads of the row (plain columns, JSON lists,
 * relations from the child rows a planned read gave it or from their loaders). The root fields
 * that find Domains are src/schema/domain-queries.ts.
 */
export const Domain = builder.objectRef<DomainRow>("Domain");

type Fields = Parameters<NonNullable<Parameters<typeof builder.node<[], typeof Domain>>[1]["fields"]>>[0];
type Key = keyof DomainRow & string;

/**
 * Optional columns exposed as they are: [GraphQL name = column, legacy name]. Exposed (no
 * resolver of their own): graphql-jit and the row writer read each as a property of its own,
 * where one resolver `(d) => d[f]` shared by 60 fields was a megamorphic read (6% of an export).
 */
function columns(t: Fields, type: "String" | "Int" | "Float" | "SafeInt" | "Date", pairs: [Key, string][]) {
  return Object.fromEntries(
    pairs.map(([f, l]) => [f, t.expose(f as "name", { type, nullable: true, ...legacy(l) } as never)]),
  );
}

/** Lists kept as JSON in the row: null when unknown. */
function jsonLists(t: Fields, pairs: [Key, string][]) {
  return Object.fromEntries(
    pairs.map(([f, l]) => [
      f,
      t.stringList({
        nullable: true,
        ...fromParent((d: DomainRow) => (d[f] as string[] | null) ?? null, legacy(l)),
      }),
    ]),
  );
}

/** Lists kept in a child table: null when the Domain has none (unknown). */
const nonEmpty = <T>(rows: T[]) => (rows.length ? rows : null);

/**
 * What the Domain's relation fields resolve to, given the rows of their batch reads or of a
 * planned read.
 */
const DOMAIN_RELATIONS = {
  categories: (rows: DomainCategory[]) => nonEmpty(rows.map((r) => r.category)),
  features: (rows: DomainFeature[]) => nonEmpty(rows.map((r) => r.feature)),
  tags: (rows: DomainTag[]) => nonEmpty(rows.map((r) => r.tag)),
  salesChannels: (rows: DomainSalesChannel[]) => nonEmpty(rows.map((r) => r.channel)),
  shipsToCountries: (rows: DomainShipsTo[]) => nonEmpty(rows.map((r) => r.countryCode)),
  contactInfo: (rows: DomainContact[]) => nonEmpty(rows),
  apps: (rows: DomainApp[]) => nonEmpty(rows),
  mostRecentlyPublishedProduct: (product: unknown) => product ?? null,
  /** `technologyOf`: the technology of a row, as its loader, a cache or a planned read gives it. */
  technologies: (rows: DomainTechnologyRow[], technologyOf: (row: DomainTechnologyRow) => unknown) =>
    nonEmpty(
      rows.map((r) => {
        const technology = technologyOf(r) as Technology | Error | null | undefined;
        if (!technology || technology instanceof Error)
          throw new Error(`missing technology ${r.technologyPk}`);
        return { installedAt: r.installedAt, technology };
      }),
    ),
};

/**
 * A relation field's REST name, what it reads (no column: the rows of `child`, which a planned read
 * reads in the same statement) and its resolver: from the child rows a planned read gave the
 * Domain (at once, no promise), else through the child's loader.
 */
function relation<R, T>(
  child: DomainChild,
  legacyName: string,
  loaderOf: (ctx: ReadContext) => DataLoader<number, R[]>,
  shape: (rows: R[]) => T,
) {
  return fromParent(
    (d: DomainRow, ctx): T | Promise<T> => {
      const planned = plannedRows<R>(d, child);
      return planned ? shape(planned) : loaderOf(ctx).load(d.pk).then(shape);
    },
    legacy(legacyName, reads([], child)),
  );
}

builder.node(Domain, {
  description: "An online store, identified by its DNS name.",
  id: { resolve: (d) => d.name, extensions: reads(["name"]) },
  loadMany: (names, ctx) => Promise.all(names.map((n) => domainByName(ctx).load(n.toLowerCase()))),
  fields: (t) => ({
    name: t.exposeString("name", { description: "DNS domain name.", ...legacy("name") }),
    tld1: t.exposeString("tld1", { description: "Registrable domain.", ...legacy("tld1") }),
    state: t.exposeString("state", {
      description: "Active, Inactive, Password Protected or Redirect.",
      ...legacy("state"),
    }),
    platform: t.exposeString("platform", legacy("platform")),
    createdAt: t.expose("createdAt", { type: "Date", ...legacy("created_at") }),
    rank: t.exposeInt("rank", { description: "World-wide rank across all platforms.", ...legacy("rank") }),
    rankPercentile: t.exposeFloat("rankPercentile", legacy("rank_percentile")),
    platformRank: t.exposeInt("platformRank", legacy("platform_rank")),
    platformRankPercentile: t.exposeFloat("platformRankPercentile", legacy("platform_rank_percentile")),
    ...columns(t, "String", [["platformDomain", "platform_domain"]]),
    clusterBestRanked: t.string({
      description: "The best-ranked Domain of its cluster (the Domain itself when alone).",
      // Every Domain has one: the loader requires it, and a snapshot loaded before it did is
      // given its clusters of one by its upgrade (prisma/migrations/…/0006_cluster_of_one.sql).
      ...fromParent((d: DomainRow) => d.clusterBestRanked as string, legacy("cluster_best_ranked")),
    }),
    ...columns(t, "String", [
      ["plan", "plan"],
      ["lastPlatform", "last_platform"],
      ["lastPlan", "last_plan"],
      ["magentoVersion", "magento_version"],
      ["merchantName", "merchant_name"],
      ["title", "title"],
      ["description", "description"],
      ["icon", "icon"],
      ["ogImage", "og_image"],
      ["countryCode", "country_code"],
      ["currencyCode", "currency_code"],
      ["languageCode", "language_code"],
      ["administrativeAreaLevel1", "administrative_area_level_1"],
      ["city", "city"],
      ["location", "location"],
      ["region", "region"],
      ["subregion", "subregion"],
      ["postalCode", "postal_code"],
      ["streetAddress", "street_address"],
      ["avgPriceFormatted", "avg_price_formatted"],
      ["contactPage", "contact_page"],
      ["brandsPage", "brands_page"],
      ["retailerPage", "retailer_page"],
      ["returnsPage", "returns_page"],
      ["trackingPage", "tracking_page"],
      ["warrantyPage", "warranty_page"],
      ["financingPage", "financing_page"],
      ["storeLocatorPage", "store_locator_page"],
      ["careerPage", "career_page"],
      ["sizingPage", "sizing_page"],
      ["aboutUs", "about_us"],
    ]),
    ...columns(t, "Date", [
      ["inactiveAt", "inactive_at"],
      ["lastPlatformChangeAt", "last_platform_change_at"],
      ["lastPlanChangeAt", "last_plan_change_at"],
      ["lastUpdatedAt", "last_updated_at"],
      ["maxProductPublishedAt", "max_product_published_at"],
    ]),
    ...columns(t, "Float", [
      ["latitude", "latitude"],
      ["longitude", "longitude"],
      ["ccRank", "cc_rank"],
      ["ccCentrality", "cc_centrality"],
    ]),
    ...columns(t, "Int", [
      ["employeeCount", "employee_count"],
      ["monthlyAppSpend", "monthly_app_spend"],
      ["avgWeight", "avg_weight"],
      ["maxWeight", "max_weight"],
      ["minWeight", "min_weight"],
      ["productCount", "product_count"],
      ["variantCount", "variant_count"],
      ["vendorCount", "vendor_count"],
      ["productImagesCreated30", "product_images_created_30"],
      ["productImagesCreated90", "product_images_created_90"],
      ["productImagesCreated365", "product_images_created_365"],
    ]),
    ...columns(t, "SafeInt", [
      ["estimatedPageViews", "estimated_page_views"],
      ["estimatedVisits", "estimated_visits"],
      ["estimatedSales", "estimated_sales"],
      ["estimatedSalesYearly", "estimated_sales_yearly"],
      ["avgPrice", "avg_price"],
      ["avgPriceUsd", "avg_price_usd"],
      ["minPrice", "min_price"],
      ["maxPrice", "max_price"],
      ["minPriceUsd", "min_price_usd"],
      ["maxPriceUsd", "max_price_usd"],
    ]),
    ...jsonLists(t, [
      ["redirectsTo", "redirects_to"],
      ["aliases", "aliases"],
      ["localizations", "localizations"],
      ["locs", "locs"],
    ]),
    clusterDomains: t.stringList({
      description: "The Domains of its cluster, itself included: a cluster of one when no other shares it.",
      ...fromParent(clusterOf, legacy("cluster_domains")),
    }),
    ...jsonLists(t, [
      ["collections", "collections"],
      ["shippingCarriers", "shipping_carriers"],
    ]),
    alternates: t.field({
      type: "StringMap",
      nullable: true,
      description: "Locale → domain name of localized versions.",
      ...fromParent((d: DomainRow) => d.alternates ?? null, legacy("alternates")),
    }),
    keywords: t.field({
      type: "Keywords",
      nullable: true,
      ...fromParent((d: DomainRow) => d.keywords ?? null, legacy("keywords")),
    }),
    mostRecentlyPublishedProduct: t.field({
      type: Product,
      nullable: true,
      description: "The newest product (shopify stores); read only when selected.",
      // Read only when selected (DOMAIN_OMITTED); its read primes domainProduct.
      ...legacy("most_recently_published_product", {
        onRequest: true,
        ...reads(["mostRecentlyPublishedProduct"]),
        // The row writer's (src/rest/row-writer.ts): a planned read that selected it brought it in
        // the row; one that did not leaves the field to the resolver (the row writer cannot).
        rowValue: (d: DomainRow) => {
          if (!("mostRecentlyPublishedProduct" in d)) throw new Error("not read with the row");
          return (d as { mostRecentlyPublishedProduct?: unknown }).mostRecentlyPublishedProduct ?? null;
        },
      }),
      resolve: async (d, _args, ctx) => (await domainProduct(ctx).load(d.pk)) as never,
    }),
    theme: t.field({
      type: Theme,
      nullable: true,
      ...fromParent(
        (d: DomainRow) =>
          d.themeName === null
            ? null
            : {
                name: d.themeName,
                style: d.themeStyle,
                vendor: d.themeVendor,
                version: d.themeVersion,
                cost: d.themeCost,
              },
        legacy("theme", reads(["themeName", "themeStyle", "themeVendor", "themeVersion", "themeCost"])),
      ),
    }),
    trustpilot: t.field({
      type: ReviewSite,
      nullable: true,
      ...fromParent(
        (d: DomainRow) =>
          d.trustpilotReviewCount === null
            ? null
            : { reviewCount: d.trustpilotReviewCount, avgRating: d.trustpilotAvgRating ?? 0 },
        legacy("trustpilot", reads(["trustpilotReviewCount", "trustpilotAvgRating"])),
      ),
    }),
    yotpo: t.field({
      type: ReviewSite,
      nullable: true,
      ...fromParent(
        (d: DomainRow) =>
          d.yotpoReviewCount === null
            ? null
            : { reviewCount: d.yotpoReviewCount, avgRating: d.yotpoAvgRating ?? 0 },
        legacy("yotpo", reads(["yotpoReviewCount", "yotpoAvgRating"])),
      ),
    }),
    categories: t.stringList({
      nullable: true,
      ...relation("categories", "categories", domainCategories, DOMAIN_RELATIONS.categories),
    }),
    features: t.stringList({
      nullable: true,
      ...relation("features", "features", domainFeatures, DOMAIN_RELATIONS.features),
    }),
    tags: t.stringList({
      nullable: true,
      ...relation("tags", "tags", domainTags, DOMAIN_RELATIONS.tags),
    }),
    salesChannels: t.stringList({
      nullable: true,
      ...relation("salesChannels", "sales_channels", domainSalesChannels, DOMAIN_RELATIONS.salesChannels),
    }),
    shipsToCountries: t.stringList({
      nullable: true,
      ...relation("shipsToCountries", "ships_to_countries", domainShipsTo, DOMAIN_RELATIONS.shipsToCountries),
    }),
    contactInfo: t.field({
      type: [Contact],
      nullable: true,
      ...relation("contactInfo", "contact_info", domainContacts, DOMAIN_RELATIONS.contactInfo),
    }),
    technologies: t.field({
      type: [DomainTechnology],
      nullable: true,
      ...fromParent(
        (d: DomainRow, ctx) => {
          const planned = plannedRows<DomainTechnologyRow>(d, "technologies");
          if (planned) return DOMAIN_RELATIONS.technologies(planned, plannedTechnology);
          return (async () => {
            const rows = await domainTechnologies(ctx).load(d.pk);
            const pks = rows.map((r) => r.technologyPk);
            const techs = await technologyByPk(ctx).loadMany(pks);
            const byPk = new Map(pks.map((pk, i) => [pk, techs[i]]));
            return DOMAIN_RELATIONS.technologies(rows, (r) => byPk.get(r.technologyPk));
          })();
        },
        legacy("technologies", reads([], "technologies")),
      ),
    }),
    apps: t.field({
      type: [InstalledApp],
      nullable: true,
      description: "Apps the Domain installed, with removedAt once uninstalled.",
      ...relation("apps", "apps", domainApps, DOMAIN_RELATIONS.apps),
    }),
    redirectTargets: t.field({
      type: [Domain],
      description: "The Domains this one redirects to that the dataset has.",
      extensions: reads(["redirectsTo"]),
      resolve: (d, _a, ctx) => knownDomains(ctx, (d.redirectsTo as string[] | null) ?? []),
    }),
    cluster: t.field({
      type: [Domain],
      description: "The Domains of the same cluster that the dataset has.",
      extensions: reads(["clusterDomains"]),
      resolve: (d, _a, ctx) => knownDomains(ctx, clusterOf(d)),
    }),
  }),
});

/** Every Domain is in a cluster (its clusterBestRanked's comment says how a snapshot holds it). */
function clusterOf(d: DomainRow): string[] {
  return d.clusterDomains as string[];
}

async function knownDomains(ctx: ReadContext, names: string[]): Promise<DomainRow[]> {
  const rows = await domainByName(ctx).loadMany(names);
  return rows.filter((r): r is DomainRow => r !== null && !(r instanceof Error));
}
