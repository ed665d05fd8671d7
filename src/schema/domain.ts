import type DataLoader from "dataloader";
import type { GraphQLResolveInfo } from "graphql";
import type { ReadContext } from "../context.ts";
import type { DomainChild } from "../db/domain-children.ts";
import { InputError, notFound } from "../errors.ts";
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
import { type DomainListArgs, domainListWhere, domainSortKeys } from "../query/domain-list.ts";
import { canonicalDomainName } from "../query/domain-name.ts";
import { domainReadOf, reads } from "../query/domain-read/plan.ts";
import {
  plannedDomainByName,
  plannedDomainByPk,
  plannedRows,
  plannedTechnology,
} from "../query/domain-read/read.ts";
import type { Where } from "../query/keyset.ts";
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
import { connectionPage, DEFAULT_PAGE_SIZE, type PageArgs } from "../query/page.ts";
import { meant } from "../query/suggest.ts";
import { App } from "./app.ts";
import { builder, legacy, pagedComplexity, rateLimited } from "./builder.ts";
import { connectionOf, pageArgs, selectsPage } from "./connection.ts";
import {
  Contact,
  DomainFilter,
  DomainOrder,
  DomainTechnology,
  InstalledApp,
  Product,
  ReviewSite,
  Theme,
} from "./domain-parts.ts";

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
      t.stringList({ nullable: true, ...legacy(l), resolve: (d) => (d[f] as string[] | null) ?? null }),
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
  return {
    ...legacy(legacyName, reads([], child)),
    resolve: (d: DomainRow, _args: unknown, ctx: ReadContext): T | Promise<T> => {
      const planned = plannedRows<R>(d, child);
      return planned ? shape(planned) : loaderOf(ctx).load(d.pk).then(shape);
    },
  };
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
      // A snapshot loaded before every Domain had a cluster: the Domain's own name stands in.
      ...legacy("cluster_best_ranked", reads(["clusterBestRanked", "name"])),
      resolve: (d) => d.clusterBestRanked ?? d.name,
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
      ...legacy("cluster_domains", reads(["clusterDomains", "name"])),
      resolve: clusterOf,
    }),
    ...jsonLists(t, [
      ["collections", "collections"],
      ["shippingCarriers", "shipping_carriers"],
    ]),
    alternates: t.field({
      type: "StringMap",
      nullable: true,
      description: "Locale → domain name of localized versions.",
      ...legacy("alternates"),
      resolve: (d) => d.alternates ?? null,
    }),
    keywords: t.field({
      type: "Keywords",
      nullable: true,
      ...legacy("keywords"),
      resolve: (d) => d.keywords ?? null,
    }),
    mostRecentlyPublishedProduct: t.field({
      type: Product,
      nullable: true,
      description: "The newest product (shopify stores); read only when selected.",
      // Read only when selected (DOMAIN_OMITTED); its read primes domainProduct.
      ...legacy("most_recently_published_product", {
        onRequest: true,
        ...reads(["mostRecentlyPublishedProduct"]),
      }),
      resolve: async (d, _args, ctx) => (await domainProduct(ctx).load(d.pk)) as never,
    }),
    theme: t.field({
      type: Theme,
      nullable: true,
      ...legacy("theme", reads(["themeName", "themeStyle", "themeVendor", "themeVersion", "themeCost"])),
      resolve: (d) =>
        d.themeName === null
          ? null
          : {
              name: d.themeName,
              style: d.themeStyle,
              vendor: d.themeVendor,
              version: d.themeVersion,
              cost: d.themeCost,
            },
    }),
    trustpilot: t.field({
      type: ReviewSite,
      nullable: true,
      ...legacy("trustpilot", reads(["trustpilotReviewCount", "trustpilotAvgRating"])),
      resolve: (d) =>
        d.trustpilotReviewCount === null
          ? null
          : { reviewCount: d.trustpilotReviewCount, avgRating: d.trustpilotAvgRating ?? 0 },
    }),
    yotpo: t.field({
      type: ReviewSite,
      nullable: true,
      ...legacy("yotpo", reads(["yotpoReviewCount", "yotpoAvgRating"])),
      resolve: (d) =>
        d.yotpoReviewCount === null
          ? null
          : { reviewCount: d.yotpoReviewCount, avgRating: d.yotpoAvgRating ?? 0 },
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
      ...legacy("technologies", reads([], "technologies")),
      resolve: (d, _a, ctx) => {
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
      extensions: reads(["clusterDomains", "name"]),
      resolve: (d, _a, ctx) => knownDomains(ctx, clusterOf(d)),
    }),
  }),
});

/**
 * Every Domain is in a cluster; a snapshot loaded before the loader required one stores none,
 * which can only mean the Domain was alone.
 */
function clusterOf(d: DomainRow): string[] {
  return (d.clusterDomains as string[] | null) ?? [d.name];
}

async function knownDomains(ctx: ReadContext, names: string[]): Promise<DomainRow[]> {
  const rows = await domainByName(ctx).loadMany(names);
  return rows.filter((r): r is DomainRow => r !== null && !(r instanceof Error));
}

export const DomainConnection = connectionOf(Domain, "Domain");

/** A name as clients write it: case-insensitive, without a trailing dot. */
function normalizeName(name: string, argument: string): string {
  const n = canonicalDomainName(name);
  if (n === null) throw new InputError(argument, `"${name}" is not a domain name such as shop.example.com`);
  return n;
}

const MAX_REDIRECT_HOPS = 5;

/** The Domain fields a lookup by name reads besides the selection (redirects are followed by them). */
export const DOMAIN_LOOKUP = ["pk", "name", "platformDomain", "state", "redirectsTo"];

/** The loader of Domains by name for the Domains under `path` of the resolved field. */
const lookupOf = (ctx: ReadContext, info: GraphQLResolveInfo, path: readonly string[]) =>
  plannedDomainByName(ctx, domainReadOf(ctx, info, path, DOMAIN_LOOKUP));

/** The Domain, or with followRedirects the end of its redirect chain within the dataset. */
async function resolveDomain(
  byName: ReturnType<typeof lookupOf>,
  name: string,
  follow: boolean,
): Promise<DomainRow | null> {
  let d = await byName.load(name);
  const seen = new Set<string>();
  for (let hop = 0; follow && d && d.state === "Redirect" && hop < MAX_REDIRECT_HOPS; hop++) {
    seen.add(d.name);
    const target = ((d.redirectsTo as string[] | null) ?? [])[0];
    if (!target || seen.has(target)) break;
    const next = await byName.load(target);
    if (!next) break;
    d = next;
  }
  return d;
}

/**
 * For a www. name the dataset lacks, the bare name when the dataset has it: the 404 names it
 * (" (did you mean ...?)"). It is not answered in its place: the two may be different sites.
 */
async function bareNameMeant(byName: ReturnType<typeof lookupOf>, name: string): Promise<string> {
  const bare = name.startsWith("www.") ? name.slice("www.".length) : null;
  return bare && (await byName.load(bare)) ? meant([bare]) : "";
}

builder.queryField("domain", (t) =>
  t.field({
    type: Domain,
    nullable: true,
    description:
      "One Domain by its DNS name or platform domain (GET /domain/<name>). NOT_FOUND when unknown.",
    ...rateLimited("retrieveDomain"),
    args: {
      name: t.arg.string({ required: true }),
      followRedirects: t.arg.boolean({
        defaultValue: false,
        description: "For a Redirect Domain, return the Domain it redirects to (first target, up to 5 hops).",
      }),
    },
    resolve: async (_root, args, ctx, info) => {
      const byName = lookupOf(ctx, info, []);
      const name = normalizeName(args.name, "name");
      const d = await resolveDomain(byName, name, args.followRedirects ?? false);
      if (!d) throw notFound(`Domain ${args.name}`, { argument: "name" }, await bareNameMeant(byName, name));
      return d;
    },
  }),
);

const DomainsByName = builder
  .objectRef<{ domains: DomainRow[]; notFound: string[] }>("DomainsByName")
  .implement({
    fields: (t) => ({
      domains: t.field({
        type: [Domain],
        description: "The Domains found, in request order.",
        ...legacy("domains"),
        // domainsByName counts one per name asked for.
        complexity: { field: 1, multiplier: 1 },
        resolve: (r) => r.domains,
      }),
      notFound: t.exposeStringList("notFound", {
        description: "Requested names the dataset does not have.",
        ...legacy("not_found"),
      }),
    }),
  });

builder.queryField("domainsByName", (t) =>
  t.field({
    type: DomainsByName,
    description: "Up to 100 Domains by name (POST /domain/bulk).",
    ...rateLimited("bulkRetrieveDomains"),
    complexity: (args) => ({ field: 1, multiplier: args.names.length }),
    args: {
      names: t.arg.stringList({ required: true }),
      followRedirects: t.arg.boolean({ defaultValue: false }),
    },
    resolve: async (_root, args, ctx, info) => {
      if (args.names.length === 0) throw new InputError("names", "must name at least one Domain");
      if (args.names.length > 100)
        throw new InputError("names", `takes at most 100 names; got ${args.names.length}`);
      const names = args.names.map((n, i) => normalizeName(n, `names[${i}]`));
      const byName = lookupOf(ctx, info, ["domains"]);
      const found = await Promise.all(
        names.map((n) => resolveDomain(byName, n, args.followRedirects ?? false)),
      );
      return {
        domains: found.filter((d): d is DomainRow => d !== null),
        notFound: args.names.filter((_n, i) => found[i] === null),
      };
    },
  }),
);

export const domainListArgs = builder.args((t) => ({
  filter: t.field({ type: DomainFilter }),
  orderBy: t.field({ type: [DomainOrder], description: "Default: rank, ascending." }),
  search: t.string({
    description: "Words that must all occur in the name, title, description or merchant name (q).",
  }),
  ...pageArgs(1000),
}));

export async function domainPage(
  ctx: ReadContext,
  info: GraphQLResolveInfo,
  args: DomainListArgs & PageArgs,
  base: Where | null,
  scope: unknown,
) {
  const keys = domainSortKeys(args);
  // Only the columns the page's selection reads, with the key and the sort keys for its cursors.
  const read = domainReadOf(ctx, info, ["edges", "node"], ["pk", "name", ...keys.map((k) => k.field)]);
  return connectionPage(ctx, {
    args,
    max: 1000,
    keys,
    where: await domainListWhere(ctx, args, base),
    scope: [scope, args.filter, args.search],
    table: "domain",
    rows: plannedDomainByPk(ctx, read),
    page: selectsPage(info),
  });
}

builder.queryField("domains", (t) =>
  t.field({
    type: DomainConnection,
    description: "Domains matching a filter and a search, sorted (GET /domain).",
    ...rateLimited("listDomains"),
    complexity: pagedComplexity(DEFAULT_PAGE_SIZE),
    args: domainListArgs,
    resolve: (_root, args, ctx, info) => domainPage(ctx, info, args, null, "domains"),
  }),
);

builder.objectField(App, "installedOn", (t) =>
  t.field({
    type: DomainConnection,
    description: "The Domains that have the App installed (not since uninstalled), filterable like domains.",
    ...rateLimited("listDomains"),
    complexity: pagedComplexity(DEFAULT_PAGE_SIZE),
    args: domainListArgs,
    resolve: (app, args, ctx, info) =>
      domainPage(ctx, info, args, { apps: { some: { appPk: app.pk, removedAt: null } } }, [
        "app.installedOn",
        app.pk,
      ]),
  }),
);
