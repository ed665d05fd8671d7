import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/rest/routes.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { writeSnapshotDir } from "../support/fixture.ts";
import { manyDomainsFixture } from "../support/fixture-graphql.ts";

// Every REST route (src/rest/routes.ts) answers what the equivalent GraphQL operation answers,
// written by hand here with camelCase fields and converted by a helper of this file (snake_case
// names, unknown values left out, a Domain's apps flattened), independently of src/rest/fields.ts.
// Plus literal expectations from the fixture, and the content type of every response.

const BASE = "http://localhost/json/api/v1/all";
/** 4 fixture Domains + 60 clones, 3 fixture Apps + 30 extra, 2 + 60 reviews of Klaviyo. */
const CLONES = 60;

type Json = Record<string, unknown>;

// ---------------------------------------------------------------- the GraphQL side, by hand

const PLAN = "name monthlyCost monthlyCostCents";
/** An App's default fields, less removedAt (inside a Domain's apps removed_at is the uninstall time). */
const APP_BASE = `appId token platform name description appStoreUrl iconUrl averageRating reviewCount
  categories state createdAt installs instp installs30d installs90d reviews30d reviews90d integratesWith
  plans { ${PLAN} } freeTrialDuration vendorName vendorEmail vendorUrl vendorWebsite vendorAddress
  vendorCountryCode`;
const APP = `${APP_BASE} removedAt`;
const DOMAIN = `name tld1 state platform createdAt rank rankPercentile platformRank platformRankPercentile
  platformDomain clusterBestRanked plan lastPlatform lastPlan magentoVersion merchantName title description
  icon ogImage countryCode currencyCode languageCode administrativeAreaLevel1 city location region subregion
  postalCode streetAddress avgPriceFormatted contactPage brandsPage retailerPage returnsPage trackingPage
  warrantyPage financingPage storeLocatorPage careerPage sizingPage aboutUs inactiveAt lastPlatformChangeAt
  lastPlanChangeAt lastUpdatedAt maxProductPublishedAt latitude longitude ccRank ccCentrality employeeCount
  monthlyAppSpend avgWeight maxWeight minWeight productCount variantCount vendorCount productImagesCreated30
  productImagesCreated90 productImagesCreated365 estimatedPageViews estimatedVisits estimatedSales
  estimatedSalesYearly avgPrice avgPriceUsd minPrice maxPrice minPriceUsd maxPriceUsd redirectsTo aliases
  localizations locs clusterDomains collections shippingCarriers alternates keywords
  theme { name style vendor version cost }
  trustpilot { reviewCount avgRating }
  yotpo { reviewCount avgRating }
  categories features tags salesChannels shipsToCountries
  contactInfo { type value source description followers followers30d followers90d posts likes }
  technologies { name description vendorUrl iconUrl installedAt installs categories }
  apps { installedAt removedAt app { ${APP_BASE} } }`;
const REVIEW = "updatedAt body merchantName rating domains { name platformDomain platformRank }";
const DOMAIN_REVIEW = `${REVIEW} app { appId name appStoreUrl vendorName }`;

/** GraphQL names whose legacy name is not their snake_case. */
const RENAMED: Record<string, string> = { appId: "id", tld1: "tld1", sha256: "sha256" };
/** Values that are JSON scalars: their keys are data, not field names. */
const OPAQUE = new Set(["alternates"]);

const snake = (k: string) =>
  RENAMED[k] ?? k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/([a-z])(\d)/g, "$1_$2");

/** A GraphQL result in its legacy form: snake_case names, null values left out, apps flattened. */
function legacy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(legacy);
  if (value === null || typeof value !== "object") return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) {
    if (v === null || v === undefined) continue;
    out[snake(k)] = OPAQUE.has(k) ? v : legacy(k === "apps" && Array.isArray(v) ? v.map(installed) : v);
  }
  return out;
}

/** A Domain's InstalledApp: the App's fields beside its own installed_at and removed_at. */
function installed(item: Json): Json {
  const { app, ...own } = item;
  return { ...(app as Json | undefined), ...own };
}

const nodes = (conn: unknown) => (conn as { edges: { node: Json }[] }).edges.map((e) => legacy(e.node));

// ---------------------------------------------------------------- cases

interface ListCase {
  options: Record<string, string | number | boolean | unknown[]>;
  /** The GraphQL arguments of the same request. */
  args: Json;
  select?: string;
}

const APP_LIST_CASES: ListCase[] = [
  { options: {}, args: { first: 50, offset: 0 } },
  {
    options: { sort: "-average_rating,created_at" },
    args: {
      orderBy: [
        { field: "AVERAGE_RATING", direction: "DESC" },
        { field: "CREATED_AT", direction: "ASC" },
      ],
    },
  },
  {
    options: { sort: "reviews", page: 1, page_size: 5 },
    args: { orderBy: [{ field: "REVIEWS" }], first: 5, offset: 5 },
  },
  {
    options: { sort: "-installs", page: 3, page_size: 10 },
    args: { orderBy: [{ field: "INSTALLS", direction: "DESC" }], first: 10, offset: 30 },
  },
  { options: { sort: "removed_at", page_size: 3 }, args: { orderBy: [{ field: "REMOVED_AT" }], first: 3 } },
  { options: { page: 7, page_size: 5 }, args: { first: 5, offset: 35 } },
  { options: { q: "klaviyo" }, args: { search: "klaviyo" } },
  { options: { q: "clone app" }, args: { search: "clone app" } },
  {
    options: { "f:categories": "Marketing,Group 1", "f:categories:op": "or" },
    args: { filter: { categories: { values: ["Marketing", "Group 1"], op: "OR" } } },
  },
  {
    options: { "f:categories": "Marketing,Group 1" },
    args: { filter: { categories: { values: ["Marketing", "Group 1"], op: "AND" } } },
  },
  { options: { "f:p": "woocommerce" }, args: { filter: { platform: { values: ["woocommerce"] } } } },
  {
    options: { "f:p": "woocommerce", "f:p:op": "not" },
    args: { filter: { platform: { values: ["woocommerce"], op: "NOT" } } },
  },
  { options: { "f:icmin": 1, "f:icmax": 40 }, args: { filter: { installs: { min: 1, max: 40 } } } },
  { options: { "f:rcmin": 1 }, args: { filter: { reviewCount: { min: 1 } } } },
  { options: { "f:as": "Inactive" }, args: { filter: { state: { values: ["Inactive"] } } } },
  { options: { "f:vendor": "Klaviyo Inc." }, args: { filter: { vendorName: { values: ["Klaviyo Inc."] } } } },
  { options: { "f:vcc": "us" }, args: { filter: { vendorCountryCode: { values: ["US"] } } } },
  {
    options: { fields: "name,plans.name", sort: "created_at" },
    args: { orderBy: [{ field: "CREATED_AT" }] },
    select: "name plans { name }",
  },
  {
    options: { fields: "*,description_long", page_size: 4 },
    args: { first: 4 },
    select: `${APP} descriptionLong`,
  },
  {
    options: { fields: "id,installs_30d,vendor_country_code" },
    args: {},
    select: "appId installs30d vendorCountryCode",
  },
];

const DOMAIN_LIST_CASES: ListCase[] = [
  { options: {}, args: { first: 50 } },
  { options: { page_size: 1000 }, args: { first: 1000 } },
  {
    options: { sort: "-er,name", page_size: 10 },
    args: { first: 10, orderBy: [{ field: "ESTIMATED_SALES", direction: "DESC" }, { field: "NAME" }] },
  },
  { options: { sort: "pc" }, args: { orderBy: [{ field: "PRODUCT_COUNT" }] } },
  { options: { sort: "-empc" }, args: { orderBy: [{ field: "EMPLOYEE_COUNT", direction: "DESC" }] } },
  {
    options: { sort: "mas,-rank" },
    args: { orderBy: [{ field: "MONTHLY_APP_SPEND" }, { field: "RANK", direction: "DESC" }] },
  },
  { options: { sort: "-created_at" }, args: { orderBy: [{ field: "CREATED_AT", direction: "DESC" }] } },
  { options: { sort: "platform_rank" }, args: { orderBy: [{ field: "PLATFORM_RANK" }] } },
  {
    options: { sort: "estimated_visits,name" },
    args: { orderBy: [{ field: "ESTIMATED_VISITS" }, { field: "NAME" }] },
  },
  {
    options: { sort: "-last_plan_change_at" },
    args: { orderBy: [{ field: "LAST_PLAN_CHANGE_AT", direction: "DESC" }] },
  },
  { options: { sort: "-name" }, args: { orderBy: [{ field: "NAME", direction: "DESC" }] } },
  { options: { "f:cc": "US" }, args: { filter: { countryCode: { values: ["US"] } } } },
  { options: { "f:ds": "Inactive" }, args: { filter: { state: { values: ["Inactive"] } } } },
  {
    options: { "f:ds": "Active,Inactive", "f:ds:op": "or" },
    args: { filter: { state: { values: ["Active", "Inactive"], op: "OR" } } },
  },
  { options: { "f:an": "shopify.klaviyo" }, args: { filter: { apps: { values: ["shopify.klaviyo"] } } } },
  {
    options: { "f:an": "shopify.klaviyo,shopify.clone-app-3", "f:an:op": "and" },
    args: { filter: { apps: { values: ["shopify.klaviyo", "shopify.clone-app-3"] } } },
  },
  { options: { "f:features": "Shopify POS" }, args: { filter: { features: { values: ["Shopify POS"] } } } },
  {
    options: { "f:tags": "Trending on TikTok", "f:tags:op": "not" },
    args: { filter: { tags: { values: ["Trending on TikTok"], op: "NOT" } } },
  },
  {
    options: { "f:cratmin": "2017-01-01", "f:cratmax": "2019-01-01" },
    args: { filter: { createdAt: { min: "2017-01-01", max: "2019-01-01" } } },
  },
  {
    options: { "f:cc": "US", "f:administrative_area_level_1": "California", "f:city": "San Francisco" },
    args: {
      filter: {
        countryCode: { values: ["US"] },
        administrativeAreaLevel1: { values: ["California"] },
        city: { values: ["San Francisco"] },
      },
    },
  },
  { options: { "f:rankmin": 20, "f:rankmax": 120 }, args: { filter: { rank: { min: 20, max: 120 } } } },
  {
    options: { "f:p": "woocommerce,shopify", "f:p:op": "or", "f:ds": "Active" },
    args: {
      filter: { platform: { values: ["woocommerce", "shopify"], op: "OR" }, state: { values: ["Active"] } },
    },
  },
  {
    options: { "f:app_installed_at": "shopify.klaviyo", "f:app_installed_at:min": "2021-01-01" },
    args: { filter: { appInstalledAt: { app: "shopify.klaviyo", min: "2021-01-01" } } },
  },
  {
    options: { "f:app_uninstalled_at": "shopify.old-reviews", "f:app_uninstalled_at:max": "2023-12-31" },
    args: { filter: { appUninstalledAt: { app: "shopify.old-reviews", max: "2023-12-31" } } },
  },
  {
    options: { "f:tech_installed_at": "Google Analytics", "f:tech_installed_at:max": "2020-06-01" },
    args: { filter: { technologyInstalledAt: { technology: "Google Analytics", max: "2020-06-01" } } },
  },
  { options: { q: "clone shop 1" }, args: { search: "clone shop 1" } },
  {
    options: { fields: "name,rank,apps.name,apps.installed_at", sort: "-rank", page_size: 20 },
    args: { orderBy: [{ field: "RANK", direction: "DESC" }], first: 20 },
    select: "name rank apps { installedAt app { name } }",
  },
  {
    options: { fields: "*,most_recently_published_product", page_size: 5 },
    args: { first: 5 },
    select: `${DOMAIN} mostRecentlyPublishedProduct { title handle productId publishedAt }`,
  },
  {
    options: { fields: "contact_info.type,contact_info.followers,theme.name,trustpilot" },
    args: {},
    select: "contactInfo { type followers } theme { name } trustpilot { reviewCount avgRating }",
  },
];

/** aq: a JSON array in a POST body, or the same JSON URL-encoded in a GET query string. */
const AQ_CASES: ListCase[] = [
  {
    options: { aq: [{ field: "cc", value: "US" }] },
    args: { filter: { and: [{ countryCode: { values: ["US"], op: "AND" } }] } },
  },
  {
    options: {
      aq: [
        { field: "ermin", value: 1 },
        { field: "tags", value: "Dropshipper", operator: "nor" },
        { field: "an", value: "shopify.klaviyo,shopify.clone-app-1", operator: "nand" },
      ],
      "f:ds": "Active",
    },
    args: {
      filter: {
        state: { values: ["Active"] },
        and: [
          { estimatedSales: { min: 1 } },
          { tags: { values: ["Dropshipper"], op: "NOT" } },
          { apps: { values: ["shopify.klaviyo", "shopify.clone-app-1"], op: "NAND" } },
        ],
      },
    },
  },
  {
    options: {
      aq: [
        { field: "cat", value: "/Sports/Outdoor", operator: "and" },
        { field: "p", value: "shopify,woocommerce", operator: "or" },
        { field: "q", value: "clone" },
      ],
      page_size: 7,
      sort: "name",
    },
    args: {
      filter: {
        and: [
          { categories: { values: ["/Sports/Outdoor"] } },
          { platform: { values: ["shopify", "woocommerce"], op: "OR" } },
        ],
      },
      search: "clone",
      first: 7,
      orderBy: [{ field: "NAME" }],
    },
  },
];

const APP_KEYS = ["shopify.klaviyo", "shopify.old-reviews", "woocommerce.woo-seo", "shopify.clone-app-0"];
const DOMAIN_NAMES = [
  "shop.example.com",
  "woo.example.org",
  "gone.example.net",
  "old-shop.example.com",
  "shop-0.example.com",
  "shop-59.example.com",
];

/** Options as a query string; aq (an array) as its JSON text, as clients send it with GET. */
const queryString = (options: ListCase["options"]) =>
  new URLSearchParams(
    Object.entries(options).map(([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : String(v)]),
  ).toString();

describe.each(databaseKinds())("REST and GraphQL parity on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-rest-parity-");
  const covered = new Set<string>();

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "snapshot"), manyDomainsFixture(CLONES)));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  /** A REST request: status, content type, and the body parsed (JSON, or JSON Lines). */
  async function rest(
    path: string,
    init?: RequestInit,
  ): Promise<{ status: number; type: string; body: unknown }> {
    const res = await api.app.fetch(`${BASE}${path}`, init ?? {});
    const type = res.headers.get("content-type") ?? "";
    // Each answer has a request id of its own.
    const text = (await res.text()).replace(/"request_id":"[^"]+"/, '"request_id":"…"');
    const body = type.startsWith("application/x-ndjson")
      ? text
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l))
      : JSON.parse(text);
    return { status: res.status, type, body };
  }

  /** A successful JSON REST response's body. */
  async function ok(path: string, init?: RequestInit): Promise<Json> {
    const res = await rest(path, init);
    expect(res.status, `${init?.method ?? "GET"} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
    expect(res.type).toMatch(/^application\/json\b/);
    return res.body as Json;
  }

  const post = (path: string, body: unknown) =>
    ok(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  /** A GraphQL operation's data; errors fail the test. */
  async function gql(query: string, variables: Json = {}): Promise<Json> {
    const res = await api.gql(query, variables);
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    return res.data as Json;
  }

  describe("Retrieve an App (GET /app/<platform>.<token>)", () => {
    const one = (select: string) =>
      `query($p: String!, $t: String!) { app(platform: $p, token: $t) { ${select} } }`;
    const vars = (key: string) => ({ p: key.split(".")[0], t: key.slice(key.indexOf(".") + 1) });

    it.each(APP_KEYS)("default fields of %s", async (key) => {
      covered.add("retrieveApp");
      const data = await gql(one(APP), vars(key));
      const body = await ok(`/app/${key}`);
      expect(body).toEqual({ app: legacy(data.app) });
      expect(Object.keys(body.app as Json)).toEqual(
        expect.arrayContaining(["id", "token", "platform", "plans"]),
      );
    });

    it.each([
      ["name,plans.name", "name plans { name }"],
      ["*,description_long", `${APP} descriptionLong`],
      ["installs_time_series,name", "installsTimeSeries { date installs } name"],
      ["plans", `plans { ${PLAN} }`],
      [
        "id,token,installs_30d,reviews_90d,vendor_country_code",
        "appId token installs30d reviews90d vendorCountryCode",
      ],
      ["*", APP],
    ])("fields=%s", async (fields, select) => {
      for (const key of APP_KEYS.slice(0, 3)) {
        const data = await gql(one(select), vars(key));
        expect(await ok(`/app/${key}?fields=${encodeURIComponent(fields)}`), key).toEqual({
          app: legacy(data.app),
        });
      }
    });
  });

  describe("List an App's reviews (GET /app/<platform>.<token>/reviews)", () => {
    const reviews = (
      select: string,
    ) => `query($p: String!, $t: String!, $first: Int, $offset: Int, $orderBy: ReviewOrder) {
      app(platform: $p, token: $t) { reviews(first: $first, offset: $offset, orderBy: $orderBy) { edges { node { ${select} } } } }
    }`;

    it.each([
      ["", {}],
      ["page=1&page_size=20", { first: 20, offset: 20 }],
      ["page=3&page_size=20", { first: 20, offset: 60 }],
      ["page=9&page_size=20", { first: 20, offset: 180 }],
      ["sort=updated_at&page_size=7", { first: 7, orderBy: { direction: "ASC" } }],
      ["sort=-updated_at&page=2&page_size=7", { first: 7, offset: 14, orderBy: { direction: "DESC" } }],
    ])("shopify.klaviyo ?%s", async (q, args) => {
      covered.add("listAppReviews");
      const data = await gql(reviews(REVIEW), { p: "shopify", t: "klaviyo", ...args });
      const body = await ok(`/app/shopify.klaviyo/reviews?${q}`);
      expect(body).toEqual({ reviews: nodes((data.app as Json).reviews) });
    });

    it("fields=rating,domains.name", async () => {
      const data = await gql(reviews("rating domains { name }"), { p: "shopify", t: "klaviyo", first: 50 });
      expect(await ok("/app/shopify.klaviyo/reviews?fields=rating,domains.name")).toEqual({
        reviews: nodes((data.app as Json).reviews),
      });
    });

    it("the first page holds 50 reviews by default, newest first", async () => {
      const body = (await ok("/app/shopify.klaviyo/reviews")) as { reviews: { updated_at: string }[] };
      expect(body.reviews).toHaveLength(50);
      const times = body.reviews.map((r) => r.updated_at);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it("Apps without reviews, and non-P1 Apps, have an empty list", async () => {
      for (const key of ["woocommerce.woo-seo", "shopify.old-reviews", "shopify.clone-app-2"]) {
        expect(await ok(`/app/${key}/reviews`)).toEqual({ reviews: [] });
      }
    });
  });

  describe("List Apps (GET and POST /app)", () => {
    const list = (
      select: string,
    ) => `query($filter: AppFilter, $orderBy: [AppOrder!], $search: String, $first: Int, $offset: Int) {
      apps(filter: $filter, orderBy: $orderBy, search: $search, first: $first, offset: $offset) { edges { node { ${select} } } }
    }`;

    it.each(APP_LIST_CASES)("GET $options", async ({ options, args, select }) => {
      covered.add("listApps");
      const data = await gql(list(select ?? APP), args);
      expect(await ok(`/app?${queryString(options)}`)).toEqual({ apps: nodes(data.apps) });
    });

    it.each(APP_LIST_CASES)("POST $options", async ({ options, args, select }) => {
      covered.add("searchApps");
      const data = await gql(list(select ?? APP), args);
      expect(await post("/app", options)).toEqual({ apps: nodes(data.apps) });
    });

    it("POST takes numeric options as strings too, and options in the query string", async () => {
      const data = await gql(list("name"), { first: 3, offset: 6 });
      expect(await post("/app", { fields: "name", page: "2", page_size: "3" })).toEqual({
        apps: nodes(data.apps),
      });
      expect(await post("/app?fields=name&page=2", { page_size: 3 })).toEqual({ apps: nodes(data.apps) });
    });

    it("an empty POST body is no options", async () => {
      const data = await gql(list(APP), {});
      expect(await ok("/app", { method: "POST" })).toEqual({ apps: nodes(data.apps) });
      expect(await ok("/app", { method: "POST", body: " " })).toEqual({ apps: nodes(data.apps) });
    });

    it("pages of 10 put together are the first 40 Apps, each once", async () => {
      const data = await gql(list("appId"), { first: 40 });
      const pages: unknown[] = [];
      for (let page = 0; page < 4; page++) {
        pages.push(...((await ok(`/app?fields=id&page_size=10&page=${page}`)).apps as unknown[]));
      }
      expect(pages).toEqual(nodes(data.apps));
      expect(pages.length).toBe(3 + 30);
    });
  });

  describe("Retrieve a Domain (GET /domain/<name>)", () => {
    const one = (select: string) =>
      `query($n: String!, $f: Boolean) { domain(name: $n, followRedirects: $f) { ${select} } }`;

    it.each(DOMAIN_NAMES)("default fields of %s", async (name) => {
      covered.add("retrieveDomain");
      const data = await gql(one(DOMAIN), { n: name });
      const body = await ok(`/domain/${name}`);
      expect(body).toEqual({ domain: legacy(data.domain) });
      expect(Object.keys(body.domain as Json)).toEqual(
        expect.arrayContaining(["name", "tld1", "rank", "state"]),
      );
    });

    it("by platform domain, in any letter case, with a trailing dot", async () => {
      const data = await gql(one(DOMAIN), { n: "shop.example.com" });
      for (const n of ["example-shop.myshopify.com", "SHOP.Example.com", "shop.example.com."]) {
        expect(await ok(`/domain/${n}`), n).toEqual({ domain: legacy(data.domain) });
      }
    });

    it("follow_redirects", async () => {
      const followed = await gql(one(DOMAIN), { n: "old-shop.example.com", f: true });
      const itself = await gql(one(DOMAIN), { n: "old-shop.example.com", f: false });
      expect((followed.domain as Json).name).toBe("shop.example.com");
      expect(await ok("/domain/old-shop.example.com?follow_redirects=true")).toEqual({
        domain: legacy(followed.domain),
      });
      expect(await ok("/domain/old-shop.example.com?follow_redirects=1")).toEqual({
        domain: legacy(followed.domain),
      });
      expect(await ok("/domain/old-shop.example.com?follow_redirects=false")).toEqual({
        domain: legacy(itself.domain),
      });
      expect(await ok("/domain/old-shop.example.com")).toEqual({ domain: legacy(itself.domain) });
      // Not a Redirect: no difference.
      expect(await ok("/domain/woo.example.org?follow_redirects=true&fields=name")).toEqual({
        domain: { name: "woo.example.org" },
      });
    });

    it.each([
      ["name,apps.name,apps.installed_at", "name apps { installedAt app { name } }"],
      ["apps", `apps { installedAt removedAt app { ${APP_BASE} } }`],
      ["apps.id,apps.removed_at,apps.plans.name", "apps { removedAt app { appId plans { name } } }"],
      [
        "*,most_recently_published_product",
        `${DOMAIN} mostRecentlyPublishedProduct { title handle productId publishedAt }`,
      ],
      ["most_recently_published_product.title", "mostRecentlyPublishedProduct { title }"],
      [
        "contact_info.type,contact_info.followers_30d,technologies.name",
        "contactInfo { type followers30d } technologies { name }",
      ],
      [
        "theme,trustpilot,yotpo,alternates,keywords",
        "theme { name style vendor version cost } trustpilot { reviewCount avgRating } yotpo { reviewCount avgRating } alternates keywords",
      ],
      [
        "tld1,administrative_area_level_1,product_images_created_365,estimated_sales_yearly",
        "tld1 administrativeAreaLevel1 productImagesCreated365 estimatedSalesYearly",
      ],
    ])("fields=%s", async (fields, select) => {
      for (const name of DOMAIN_NAMES.slice(0, 5)) {
        const data = await gql(one(select), { n: name });
        expect(await ok(`/domain/${name}?fields=${encodeURIComponent(fields)}`), name).toEqual({
          domain: legacy(data.domain),
        });
      }
    });
  });

  describe("Bulk retrieve Domains (POST /domain/bulk)", () => {
    const bulk = (select: string) => `query($names: [String!]!, $f: Boolean) {
      domainsByName(names: $names, followRedirects: $f) { domains { ${select} } notFound }
    }`;
    const envelope = (data: Json) => {
      const r = data.domainsByName as { domains: unknown[]; notFound: string[] };
      return { domains: legacy(r.domains), not_found: r.notFound };
    };

    it("default fields, request order, unknown names in not_found", async () => {
      covered.add("bulkRetrieveDomains");
      const names = ["woo.example.org", "nope.example.com", ...DOMAIN_NAMES, "example-shop.myshopify.com"];
      const data = await gql(bulk(DOMAIN), { names });
      expect(await post("/domain/bulk", { domains: names })).toEqual(envelope(data));
    });

    it("fields and follow_redirects", async () => {
      const names = ["old-shop.example.com", "shop-7.example.com", "missing.example.org"];
      const followed = await gql(bulk("name state apps { installedAt app { name } }"), { names, f: true });
      expect(
        await post("/domain/bulk", {
          domains: names,
          fields: "name,state,apps.name,apps.installed_at",
          follow_redirects: true,
        }),
      ).toEqual(envelope(followed));
      const itself = await gql(bulk("name state redirectsTo"), { names, f: false });
      expect(await post("/domain/bulk", { domains: names, fields: "name,state,redirects_to" })).toEqual(
        envelope(itself),
      );
      expect(
        await post("/domain/bulk", {
          domains: names,
          fields: "name,state,redirects_to",
          follow_redirects: "false",
        }),
      ).toEqual(envelope(itself));
    });

    it("100 names", async () => {
      const names = Array.from({ length: 100 }, (_, i) =>
        i < CLONES ? `shop-${i}.example.com` : `none-${i}.example.com`,
      );
      const data = await gql(bulk("name rank"), { names });
      const body = await post("/domain/bulk", { domains: names, fields: "name,rank" });
      expect(body).toEqual(envelope(data));
      expect((body.domains as unknown[]).length).toBe(CLONES);
      expect((body.not_found as unknown[]).length).toBe(100 - CLONES);
    });
  });

  describe("List App reviews for a Domain (GET /domain/<name>/app_reviews)", () => {
    const reviews = (
      select: string,
    ) => `query($n: String!, $first: Int, $offset: Int, $orderBy: ReviewOrder) {
      domain(name: $n) { appReviews(first: $first, offset: $offset, orderBy: $orderBy) { edges { node { ${select} } } } }
    }`;

    it.each([
      ["shop.example.com", "", {}],
      ["shop-3.example.com", "", {}],
      ["example-shop.myshopify.com", "", {}],
      ["shop.example.com", "page=1&page_size=1", { first: 1, offset: 1 }],
      ["shop.example.com", "sort=updated_at&page_size=1", { first: 1, orderBy: { direction: "ASC" } }],
      ["woo.example.org", "", {}],
    ])("%s ?%s", async (name, q, args) => {
      covered.add("listDomainAppReviews");
      const data = await gql(reviews(DOMAIN_REVIEW), { n: name, ...args });
      expect(await ok(`/domain/${name}/app_reviews?${q}`)).toEqual({
        reviews: nodes((data.domain as Json).appReviews),
      });
    });

    it.each([
      ["rating,app", "rating app { appId name appStoreUrl vendorName }"],
      ["app.name,app.description,body", "app { name description } body"],
      ["domains", "domains { name platformDomain platformRank }"],
    ])("fields=%s", async (fields, select) => {
      const data = await gql(reviews(select), { n: "shop.example.com" });
      expect(await ok(`/domain/shop.example.com/app_reviews?fields=${fields}`)).toEqual({
        reviews: nodes((data.domain as Json).appReviews),
      });
    });
  });

  describe("List Domains (GET and POST /domain)", () => {
    const list = (
      select: string,
    ) => `query($filter: DomainFilter, $orderBy: [DomainOrder!], $search: String, $first: Int, $after: String) {
      domains(filter: $filter, orderBy: $orderBy, search: $search, first: $first, after: $after) {
        edges { node { ${select} } } pageInfo { hasNextPage endCursor }
      }
    }`;
    const page = (data: Json) => {
      const conn = data.domains as { pageInfo: { hasNextPage: boolean } };
      return { domains: nodes(conn), has_next_page: conn.pageInfo.hasNextPage };
    };
    /** The body without next_cursor, which must be there exactly when there is a next page. */
    const withoutCursor = (body: Json) => {
      const { next_cursor, ...rest } = body;
      if (body.has_next_page) expect(typeof next_cursor).toBe("string");
      else expect(next_cursor).toBeUndefined();
      return rest;
    };

    it.each([...DOMAIN_LIST_CASES, ...AQ_CASES])("GET $options", async ({ options, args, select }) => {
      covered.add("listDomains");
      const data = await gql(list(select ?? DOMAIN), args);
      expect(withoutCursor(await ok(`/domain?${queryString(options)}`))).toEqual(page(data));
    });

    it.each([...DOMAIN_LIST_CASES, ...AQ_CASES])("POST $options", async ({ options, args, select }) => {
      covered.add("searchDomains");
      const data = await gql(list(select ?? DOMAIN), args);
      expect(withoutCursor(await post("/domain", options))).toEqual(page(data));
    });

    it.each([
      [
        { sort: "-er,name" },
        { orderBy: [{ field: "ESTIMATED_SALES", direction: "DESC" }, { field: "NAME" }] },
      ],
      [{}, {}],
      [
        { "f:ds": "Active", sort: "pc" },
        { filter: { state: { values: ["Active"] } }, orderBy: [{ field: "PRODUCT_COUNT" }] },
      ],
      [
        { q: "shop", sort: "-mas" },
        { search: "shop", orderBy: [{ field: "MONTHLY_APP_SPEND", direction: "DESC" }] },
      ],
    ] as [ListCase["options"], Json][])(
      "next_cursor pages through %j as endCursor does",
      async (options, args) => {
        const size = 7;
        const rest: unknown[][] = [];
        const graph: unknown[][] = [];
        let cursor: string | undefined;
        for (let i = 0; i < 20; i++) {
          const q = queryString({
            ...options,
            fields: "name",
            page_size: size,
            ...(cursor ? { cursor } : {}),
          });
          const body = await ok(`/domain?${q}`);
          rest.push(body.domains as unknown[]);
          expect(body.has_next_page).toBe(body.next_cursor !== undefined);
          cursor = body.next_cursor as string | undefined;
          if (!cursor) break;
        }
        let after: string | null = null;
        for (let i = 0; i < 20; i++) {
          const data = await gql(list("name"), { ...args, first: size, after });
          const conn = data.domains as { pageInfo: { hasNextPage: boolean; endCursor: string } };
          graph.push(nodes(conn));
          if (!conn.pageInfo.hasNextPage) break;
          after = conn.pageInfo.endCursor;
        }
        expect(rest).toEqual(graph);
        const all = rest.flat() as { name: string }[];
        expect(new Set(all.map((d) => d.name)).size).toBe(all.length);
        const total = await gql(
          "query($filter: DomainFilter, $search: String) { domains(filter: $filter, search: $search) { totalCount } }",
          { filter: args.filter, search: args.search },
        );
        expect(all.length).toBe((total.domains as { totalCount: number }).totalCount);
      },
    );

    it("POST pages with next_cursor too, and keeps aq across pages", async () => {
      const options = { aq: [{ field: "ermin", value: 1 }], fields: "name", page_size: 10, sort: "name" };
      const args = {
        filter: { and: [{ estimatedSales: { min: 1 } }] },
        orderBy: [{ field: "NAME" }],
        first: 10,
      };
      let cursor: string | undefined;
      let after: string | null = null;
      for (let i = 0; i < 10; i++) {
        const body = await post("/domain", { ...options, ...(cursor ? { cursor } : {}) });
        const data = await gql(list("name"), { ...args, after });
        expect(withoutCursor(body)).toEqual(page(data));
        cursor = body.next_cursor as string | undefined;
        after = (data.domains as { pageInfo: { endCursor: string } }).pageInfo.endCursor;
        if (!cursor) return;
      }
      throw new Error("never reached the last page");
    });

    it("GET with aq pages with next_cursor, and keeps aq across pages", async () => {
      const options = { aq: [{ field: "ermin", value: 1 }], fields: "name", page_size: 10, sort: "name" };
      const viaPost: unknown[] = [];
      const viaGet: unknown[] = [];
      for (const [pages, send] of [
        [viaPost, (cursor?: string) => post("/domain", { ...options, ...(cursor ? { cursor } : {}) })],
        [
          viaGet,
          (cursor?: string) => ok(`/domain?${queryString({ ...options, ...(cursor ? { cursor } : {}) })}`),
        ],
      ] as const) {
        let cursor: string | undefined;
        for (let i = 0; i < 10; i++) {
          const body = await send(cursor);
          pages.push(body.domains);
          cursor = body.next_cursor as string | undefined;
          if (!cursor) break;
        }
      }
      expect(viaGet.length).toBeGreaterThan(1);
      expect(viaGet).toEqual(viaPost);
    });

    it("GET with aq answers what POST with aq answers, errors included", async () => {
      const cases: unknown[] = [
        [],
        [{ field: "cc", value: "US", operator: "and" }],
        [
          { field: "cc", value: "US,DE", operator: "or" },
          { field: "q", value: "shop" },
        ],
        [{ field: "cc", value: "US,DE" }],
        [{ field: "city", value: "X" }],
        [{ field: "ermin", value: "lots" }],
        [{ field: "cratmin", value: "2020-02-30" }],
        [{ field: "p", value: "nosuchplatform" }],
        [{ field: "bogus", value: "1" }],
        [{ field: "cc", value: "US", operator: "xor" }],
        [{ field: "cc", value: "US" }, 1],
        { field: "cc", value: "US" },
        "cc=US",
        null,
      ];
      for (const aq of cases) {
        const init = {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ aq, fields: "name", page_size: 20 }),
        };
        const viaPost = await rest("/domain", init);
        const viaGet = await rest(
          `/domain?${queryString({ aq: JSON.stringify(aq), fields: "name", page_size: 20 })}`,
        );
        expect(viaGet, JSON.stringify(aq)).toEqual(viaPost);
      }
    });

    it("the last page has has_next_page false and no next_cursor", async () => {
      const body = await ok("/domain?fields=name&page_size=1000");
      expect(body.has_next_page).toBe(false);
      expect(body).not.toHaveProperty("next_cursor");
      expect((body.domains as unknown[]).length).toBe(4 + CLONES);
    });
  });

  describe("Export Domains (GET /domain/export)", () => {
    const all = (select: string) => `query($filter: DomainFilter, $orderBy: [DomainOrder!], $search: String) {
      domains(filter: $filter, orderBy: $orderBy, search: $search, first: 1000) { edges { node { ${select} } } }
    }`;

    it.each([
      [{}, {}, DOMAIN],
      [
        { fields: "name,rank,apps.name", sort: "-name", "f:ds": "Active" },
        { orderBy: [{ field: "NAME", direction: "DESC" }], filter: { state: { values: ["Active"] } } },
        "name rank apps { app { name } }",
      ],
      [
        { q: "clone", sort: "-er", fields: "name,estimated_sales" },
        { search: "clone", orderBy: [{ field: "ESTIMATED_SALES", direction: "DESC" }] },
        "name estimatedSales",
      ],
      [{ "f:cc": "DE", fields: "name" }, { filter: { countryCode: { values: ["DE"] } } }, "name"],
      [
        {
          aq: [
            { field: "tags", value: "Dropshipper", operator: "nor" },
            { field: "q", value: "clone" },
          ],
        },
        { filter: { and: [{ tags: { values: ["Dropshipper"], op: "NOT" } }] }, search: "clone" },
        DOMAIN,
      ],
    ] as [ListCase["options"], Json, string][])(
      "%j streams every Domain as JSON Lines",
      async (options, args, select) => {
        covered.add("exportDomains");
        const data = await gql(all(select), args);
        const res = await rest(`/domain/export?${queryString(options)}`);
        expect(res.status).toBe(200);
        expect(res.type).toMatch(/^application\/x-ndjson\b/);
        expect(res.body).toEqual(nodes(data.domains));
      },
    );
  });

  describe("literal expectations from the fixture", () => {
    const klaviyoApp = {
      id: "app-1",
      name: "Klaviyo",
      app_store_url: "https://apps.shopify.com/klaviyo",
      vendor_name: "Klaviyo Inc.",
    };

    it.each([
      [
        "/app/shopify.klaviyo?fields=name,plans.name",
        { app: { name: "Klaviyo", plans: [{ name: "Free" }, { name: "Pro" }] } },
      ],
      [
        "/app/shopify.klaviyo?fields=plans,installs,integrates_with,created_at",
        {
          app: {
            plans: [
              { name: "Free", monthly_cost: "Free" },
              { name: "Pro", monthly_cost: "$20/month", monthly_cost_cents: 2000 },
            ],
            installs: 1 + CLONES,
            integrates_with: ["  Shopify Flow\n", "Zapier"],
            created_at: "2019-01-02T03:04:05",
          },
        },
      ],
      [
        "/app/shopify.old-reviews?fields=state,removed_at,plans,vendor_email,free_trial_duration",
        { app: { state: "Inactive", removed_at: "2023-06-01T00:00:00Z", plans: [] } },
      ],
      [
        "/app/shopify.klaviyo?fields=installs_time_series",
        {
          app: {
            installs_time_series: [
              { date: "2024-01-01", installs: 1 },
              { date: "2024-02-01", installs: 1 },
            ],
          },
        },
      ],
      ["/app/woocommerce.woo-seo/reviews", { reviews: [] }],
      ["/app?fields=name&f:p=woocommerce", { apps: [{ name: "Woo SEO" }] }],
      ["/app?fields=name,state&f:as=inactive", { apps: [{ name: "Old Reviews", state: "Inactive" }] }],
      [
        "/app/shopify.klaviyo/reviews?fields=rating,domains&page=0&page_size=2&sort=-updated_at",
        {
          reviews: [
            {
              rating: 3,
              domains: [
                {
                  name: "unknown-store.example.com",
                  platform_domain: "unknown.myshopify.com",
                  platform_rank: 999,
                },
              ],
            },
            {
              rating: 5,
              domains: [
                { name: "shop.example.com", platform_domain: "example-shop.myshopify.com", platform_rank: 1 },
              ],
            },
          ],
        },
      ],
      [
        "/domain/old-shop.example.com?follow_redirects=true&fields=name,state",
        { domain: { name: "shop.example.com", state: "Active" } },
      ],
      [
        "/domain/old-shop.example.com?fields=name,state,redirects_to,inactive_at",
        { domain: { name: "old-shop.example.com", state: "Redirect", redirects_to: ["shop.example.com"] } },
      ],
      [
        "/domain/gone.example.net?fields=state,inactive_at,redirects_to",
        { domain: { state: "Inactive", inactive_at: "2025-01-01" } },
      ],
      [
        "/domain/shop.example.com?fields=apps.name,apps.installed_at,apps.removed_at",
        {
          domain: {
            apps: [
              {
                name: "Old Reviews",
                installed_at: "2019-01-01T00:00:00Z",
                removed_at: "2023-01-01T00:00:00Z",
              },
              { name: "Klaviyo", installed_at: "2021-01-01T00:00:00Z" },
            ],
          },
        },
      ],
      [
        "/domain/woo.example.org?fields=name,language_code,country_code,features,apps.id",
        { domain: { name: "woo.example.org", language_code: "", apps: [{ id: "app-3" }] } },
      ],
      [
        "/domain/shop.example.com?fields=most_recently_published_product,trustpilot,alternates,keywords,estimated_sales",
        {
          domain: {
            most_recently_published_product: {
              title: "Trail Boot",
              handle: "trail-boot",
              product_id: 7_000_000_001,
              published_at: "2026-10-30T10:00:00Z",
            },
            trustpilot: { review_count: 420, avg_rating: 4.4 },
            alternates: { "de-DE": "de.example.com" },
            keywords: ["tents", "boots"],
            estimated_sales: 350_000_000_000,
          },
        },
      ],
      [
        "/domain/shop.example.com?fields=contact_info",
        {
          domain: {
            contact_info: [
              { type: "email", value: "hi@example.com", source: "/pages/contact" },
              {
                type: "instagram",
                value: "https://instagram.com/exampleshop",
                source: "/",
                followers: 12000,
                followers_30d: 150,
                followers_90d: 400,
                posts: 300,
                likes: 5000,
              },
            ],
          },
        },
      ],
      [
        "/domain/shop.example.com/app_reviews?fields=rating,app",
        { reviews: [{ rating: 5, app: klaviyoApp }] },
      ],
      [
        "/domain?fields=name&f:ds=Inactive",
        { domains: [{ name: "gone.example.net" }], has_next_page: false },
      ],
      [
        "/domain?fields=name,rank&page_size=2&f:rankmax=30",
        {
          domains: [
            { name: "shop.example.com", rank: 10 },
            { name: "woo.example.org", rank: 20 },
          ],
          has_next_page: true,
        },
      ],
    ])("GET %s", async (path, expected) => {
      const body = await ok(path);
      const { next_cursor, ...rest } = body;
      expect(rest).toEqual(expected);
    });

    it("POST /domain/bulk with unknown and differently written names", async () => {
      expect(
        await post("/domain/bulk", {
          domains: ["woo.example.org", "nope.example.com", "SHOP.example.com.", "old-shop.example.com"],
          fields: "name",
          follow_redirects: true,
        }),
      ).toEqual({
        domains: [{ name: "woo.example.org" }, { name: "shop.example.com" }, { name: "shop.example.com" }],
        not_found: ["nope.example.com"],
      });
    });

    it("GET /domain/export?fields=name&f:ds=Active,Inactive&f:ds:op=or&f:rankmax=40", async () => {
      const res = await rest("/domain/export?fields=name&f:ds=Active,Inactive&f:ds:op=or&f:rankmax=40");
      expect(res.type).toMatch(/^application\/x-ndjson\b/);
      expect(res.body).toEqual([
        { name: "shop.example.com" },
        { name: "woo.example.org" },
        { name: "gone.example.net" },
      ]);
    });
  });

  describe("Facets (GET|POST /domain/facets and /app/facets, beyond the legacy paths)", () => {
    const FACETED = `totalCount facets(by: $by, size: $size) { dimension values { value count } otherCount missingCount }
      h0: histogram(field: $h) { buckets { from to count } missingCount outsideCount }`;
    /** The REST answer of a GraphQL connection's facets, as src/rest/facets.ts writes it. */
    const answer = (c: Json, names: Record<string, string>, histogram: string) => {
      const facets = c.facets as {
        dimension: string;
        values: unknown;
        otherCount: number;
        missingCount: number;
      }[];
      const h0 = c.h0 as { buckets: unknown; missingCount: number; outsideCount: number };
      return {
        total: c.totalCount,
        facets: Object.fromEntries(facets.map((f) => [names[f.dimension], f.values])),
        other: {
          ...Object.fromEntries(facets.map((f) => [names[f.dimension], f.otherCount])),
          [histogram]: h0.outsideCount,
        },
        missing: {
          ...Object.fromEntries(facets.map((f) => [names[f.dimension], f.missingCount])),
          [histogram]: h0.missingCount,
        },
        histograms: { [histogram]: h0.buckets },
      };
    };
    const DOMAIN_FACETS = `query($filter: DomainFilter, $search: String, $by: [DomainFacetDimension!]!, $size: Int, $h: DomainHistogramField!) {
      domains(filter: $filter, search: $search, first: 0) { ${FACETED} } }`;
    const APP_FACETS = `query($filter: AppFilter, $by: [AppFacetDimension!]!, $size: Int, $h: AppHistogramField!) {
      apps(filter: $filter, first: 0) { ${FACETED} } }`;
    const domainCase = {
      options: {
        "f:cc": "US,DE",
        "f:cc:op": "or",
        q: "shop",
        facets: "p,cat,an",
        facet_size: 3,
        histogram: "er",
      },
      variables: {
        filter: { countryCode: { values: ["US", "DE"], op: "OR" } },
        search: "shop",
        by: ["PLATFORM", "CATEGORIES", "APPS"],
        size: 3,
        h: "ESTIMATED_SALES",
      },
    };
    const domainNames = { PLATFORM: "p", CATEGORIES: "cat", APPS: "an" };
    const appCase = {
      options: { "f:p": "shopify", facets: "pricing,as", histogram: "ic" },
      variables: {
        filter: { platform: { values: ["shopify"] } },
        by: ["PRICING", "STATE"],
        size: 10,
        h: "INSTALLS",
      },
    };
    const appNames = { PRICING: "pricing", STATE: "as" };

    it("GET /domain/facets", async () => {
      covered.add("domainFacets");
      const data = await gql(DOMAIN_FACETS, domainCase.variables);
      expect(await ok(`/domain/facets?${queryString(domainCase.options)}`)).toEqual(
        answer(data.domains as Json, domainNames, "er"),
      );
    });
    it("POST /domain/facets", async () => {
      covered.add("searchDomainFacets");
      const data = await gql(DOMAIN_FACETS, domainCase.variables);
      expect(await post("/domain/facets", domainCase.options)).toEqual(
        answer(data.domains as Json, domainNames, "er"),
      );
    });
    it("GET /app/facets", async () => {
      covered.add("appFacets");
      const data = await gql(APP_FACETS, appCase.variables);
      expect(await ok(`/app/facets?${queryString(appCase.options)}`)).toEqual(
        answer(data.apps as Json, appNames, "ic"),
      );
    });
    it("POST /app/facets", async () => {
      covered.add("searchAppFacets");
      const data = await gql(APP_FACETS, appCase.variables);
      expect(await post("/app/facets", appCase.options)).toEqual(answer(data.apps as Json, appNames, "ic"));
    });
  });

  describe("Lists (/list): each REST path answers as its GraphQL operation does", () => {
    const LIST_FIELDS = "name count createdAt updatedAt";
    const names = ["shop-1.example.com", "shop-2.example.com", "shop-3.example.com", "nowhere.example"];
    const send = (method: string, path: string, body?: unknown) =>
      ok(path, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      });

    it("PUT add-domains, GET /list, GET /list/{name}, POST remove-domains, DELETE", async () => {
      for (const id of [
        "addDomainsToList",
        "listLists",
        "listListDomains",
        "removeDomainsFromList",
        "deleteList",
      ])
        covered.add(id);
      const added = await gql(
        `mutation($n: String!, $d: [String!]!) { addDomainsToList(name: $n, domains: $d) { list { ${LIST_FIELDS} } countDomainsAdded unrecognizedDomains } }`,
        { n: "by-graphql", d: names },
      );
      const put = await send("PUT", "/list/by-rest/add-domains", { domains: names });
      const mutation = legacy(added.addDomainsToList) as Json;
      // The same answer, but for the list's own name and times.
      const same = (j: Json) => ({
        ...j,
        list: { ...(j.list as Json), name: "x", created_at: "t", updated_at: "t" },
      });
      expect(same(put)).toEqual(same(mutation));
      expect(Object.keys(put)).toEqual(["list", "count_domains_added", "unrecognized_domains"]);

      const lists = await gql(`{ lists { ${LIST_FIELDS} } }`);
      expect(await ok("/list")).toEqual({ lists: legacy(lists.lists) });

      // A cursor encodes its request's arguments as each face gives them: each face pages on with its own.
      const LIST_PAGE = `query($n: String!, $a: String) { list(name: $n, first: 2, after: $a, orderBy: [{ field: NAME }]) { edges { node { name rank } } pageInfo { hasNextPage endCursor } } }`;
      type Conn = { pageInfo: { hasNextPage: boolean; endCursor: string } };
      let after: string | null = null;
      let cursor = "";
      for (let i = 0; i < 2; i++) {
        const page = await gql(LIST_PAGE, { n: "by-rest", a: after });
        const conn = page.list as Conn;
        const body = await ok(`/list/by-rest?fields=name,rank&page_size=2&sort=name${cursor}`);
        expect(body.domains).toEqual(nodes(page.list));
        expect(body.has_next_page ?? false).toBe(conn.pageInfo.hasNextPage);
        after = conn.pageInfo.endCursor;
        cursor = `&cursor=${encodeURIComponent(String(body.next_cursor))}`;
      }
      expect(after).not.toBeNull();

      const removed = await gql(
        `mutation { removeDomainsFromList(name: "by-graphql", domains: ["shop-1.example.com"]) { list { ${LIST_FIELDS} } countDomainsRemoved } }`,
      );
      const post = await send("POST", "/list/by-rest/remove-domains", { domains: ["shop-1.example.com"] });
      expect(same(post)).toEqual(same(legacy(removed.removeDomainsFromList) as Json));

      const deleted = await gql(`mutation { deleteList(name: "by-graphql") { ${LIST_FIELDS} } }`);
      const del = await send("DELETE", "/list/by-rest");
      expect(same(del)).toEqual(same({ list: legacy(deleted.deleteList) } as Json));
      expect(await ok("/list")).toEqual({ lists: [] });
    });
  });

  describe("Segments (/segment): each REST path answers as its GraphQL operation does", () => {
    const SEGMENT_FIELDS = "name filter search spread size createdAt updatedAt";
    const send = (method: string, path: string, body?: unknown) =>
      ok(path, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      });
    // The same answer but for the segment's own name and times; REST writes its filter and search
    // in List Domains' options, `filter`, and its spread as facets= names it (checked on their own).
    const same = ({ search: _search, ...j }: Json) => ({
      ...j,
      name: "x",
      created_at: "t",
      updated_at: "t",
      filter: null,
      spread: null,
    });

    it("PUT /segment/{name}, GET /segment, GET /segment/{name}, DELETE", async () => {
      for (const id of ["saveSegment", "listSegments", "retrieveSegment", "deleteSegment"]) covered.add(id);
      const saved = await gql(
        `mutation { saveSegment(name: "by-graphql", filter: { countryCode: { values: ["US"] } }, search: "shop", spread: [TECHNOLOGIES, COUNTRY_CODE]) { ${SEGMENT_FIELDS} } }`,
      );
      const put = await send("PUT", "/segment/by-rest", { "f:cc": "US", q: "shop", spread: ["tech", "cc"] });
      expect(same(put.segment as Json)).toEqual(same(legacy(saved.saveSegment) as Json));
      expect((put.segment as Json).filter).toEqual({ "f:cc": "US", q: "shop" });
      expect((put.segment as Json).spread).toEqual(["tech", "cc"]);
      expect((saved.saveSegment as Json).spread).toEqual(["TECHNOLOGIES", "COUNTRY_CODE"]);

      const all = await gql(`{ segments { ${SEGMENT_FIELDS} } }`);
      const listed = (await ok("/segment")).segments as Json[];
      expect(listed.map(same)).toEqual((legacy(all.segments) as Json[]).map(same));
      // Saved by either face, REST lists the same filter, search and spread.
      const named = Object.fromEntries(listed.map((x) => [x.name as string, x]));
      for (const key of ["filter", "search", "spread"])
        expect(named["by-graphql"][key], key).toEqual(named["by-rest"][key]);
      expect(named["by-graphql"].spread).toEqual(["tech", "cc"]);

      const one = await gql(
        `{ segment(name: "by-rest") { ${SEGMENT_FIELDS} history { version size entered left counts other error } } }`,
      );
      const got = (await ok("/segment/by-rest")).segment as Json;
      expect(same(got)).toEqual(same(legacy(one.segment) as Json));

      const deleted = await gql(
        `mutation { deleteSegment(name: "by-graphql") { name filter search spread createdAt updatedAt } }`,
      );
      const del = (await send("DELETE", "/segment/by-rest")).segment as Json;
      expect(same(del)).toEqual(same(legacy(deleted.deleteSegment) as Json));
      // The deleted segment is answered whole, by either face.
      expect(del).toMatchObject({
        name: "by-rest",
        filter: { "f:cc": "US", q: "shop" },
        spread: ["tech", "cc"],
      });
      expect(deleted.deleteSegment).toMatchObject({
        name: "by-graphql",
        search: "shop",
        spread: ["TECHNOLOGIES", "COUNTRY_CODE"],
      });
      expect(await ok("/segment")).toEqual({ segments: [] });
    });
  });

  describe("Webhooks (/webhooks): each REST path answers as its GraphQL operation does", () => {
    const HOOK = "id url kinds list filter cursor error createdAt pendingDeliveries failedDeliveries";
    const DELIVERY =
      "id webhook type status events cursor attempts createdAt lastAttemptAt nextAttemptAt responseStatus error";
    // A receiver that refuses connections: each attempt fails at once, and is retried later.
    const url = "http://127.0.0.1:9/hook";
    const send = (method: string, path: string, body?: unknown) =>
      ok(path, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      });
    /**
     * Each answer's own ids and times set aside: the rest is the same. A filter is a JSON value,
     * DomainFilter in GraphQL and List Domains' options in REST: compared on its own.
     */
    const same = (v: unknown): unknown =>
      JSON.parse(
        JSON.stringify(v, (k, x) => (k === "filter" ? "…" : x))
          .replace(/"(wh|whsec|msg)_[^"]+"/g, '"$1_…"')
          .replace(/"(created|last_attempt|next_attempt)_at":"[^"]+"/g, '"$1_at":"…"'),
      );

    it("POST /webhooks, GET /webhooks, test, deliveries, retry, DELETE", async () => {
      for (const id of [
        "createWebhook",
        "listWebhooks",
        "testWebhook",
        "listWebhookDeliveries",
        "retryWebhookDelivery",
        "deleteWebhook",
      ])
        covered.add(id);
      const made = await gql(
        `mutation($u: String!) { createWebhook(url: $u, kinds: [domain_added], filter: { countryCode: { values: ["US"] } }) { id secret webhook { ${HOOK} } } }`,
        { u: url },
      );
      const post = await send("POST", "/webhooks", {
        url,
        kinds: ["domain_added"],
        filter: { "f:cc": "US" },
      });
      expect(Object.keys(post)).toEqual(["id", "secret", "webhook"]);
      expect(same(post)).toEqual(same(legacy(made.createWebhook)));
      // REST answers the filter in its own options, GraphQL as DomainFilter: the same filter.
      expect((post.webhook as Json).filter).toEqual({ "f:cc": "US" });
      const hooks = await gql(`{ webhooks { ${HOOK} } }`);
      const listed = await ok("/webhooks");
      expect(same(listed)).toEqual(same({ webhooks: legacy(hooks.webhooks) }));
      const filters = (hooks.webhooks as Json[]).map((h) => h.filter);
      expect(filters).toEqual([
        { countryCode: { values: ["US"], op: "AND" } },
        { countryCode: { values: ["US"], op: "AND" } },
      ]);
      expect((listed.webhooks as Json[]).map((h) => h.filter)).toEqual([{ "f:cc": "US" }, { "f:cc": "US" }]);

      const restId = String(post.id);
      const gqlId = String((made.createWebhook as Json).id);
      const tested = await gql(`mutation($w: String!) { testWebhook(webhook: $w) { ${DELIVERY} } }`, {
        w: gqlId,
      });
      const test = await send("POST", `/webhooks/${restId}/test`);
      expect(same(test)).toEqual(same({ delivery: legacy(tested.testWebhook) }));
      expect(test.delivery).toMatchObject({ status: "pending", attempts: 1, error: "connection refused" });

      const page = await gql(
        `query($w: String!) { webhookDeliveries(webhook: $w, first: 10) { nodes { ${DELIVERY} } pageInfo { hasNextPage } } }`,
        { w: gqlId },
      );
      const deliveries = await ok(`/webhooks/${restId}/deliveries?page_size=10`);
      expect(same(deliveries)).toEqual(
        same({
          deliveries: (page.webhookDeliveries as { nodes: Json[] }).nodes.map(legacy),
          has_next_page: false,
        }),
      );

      const retried = await gql(
        `mutation($w: String!, $d: String!) { retryWebhookDelivery(webhook: $w, delivery: $d) { ${DELIVERY} } }`,
        { w: gqlId, d: (tested.testWebhook as Json).id },
      );
      const retry = await send("POST", `/webhooks/${restId}/deliveries/${(test.delivery as Json).id}/retry`);
      expect(same(retry)).toEqual(same({ delivery: legacy(retried.retryWebhookDelivery) }));

      const deleted = await gql(`mutation($w: String!) { deleteWebhook(webhook: $w) { ${HOOK} } }`, {
        w: gqlId,
      });
      const del = await send("DELETE", `/webhooks/${restId}`);
      expect(same(del)).toEqual(same({ webhook: legacy(deleted.deleteWebhook) }));
      expect(await ok("/webhooks")).toEqual({ webhooks: [] });
    });
  });

  // Last: it loads two more snapshots (five clones fewer, then the same again).
  describe("Change feed (GET /changes and /changes/export, beyond the legacy paths)", () => {
    const CHANGE =
      "id version loadedAt kind domainName app { id platform token name } technology before after";
    /** A change as GET /changes writes it: legacy names, null values left out. */
    const legacyChange = (n: Json) =>
      Object.fromEntries(
        Object.entries({
          id: n.id,
          version: n.version,
          loaded_at: n.loadedAt,
          kind: n.kind,
          domain: n.domainName,
          app: n.app,
          technology: n.technology,
          before: n.before,
          after: n.after,
        }).filter(([, v]) => v !== null && v !== undefined),
      );

    it("GET /changes and GET /changes/export", async () => {
      covered.add("listChanges");
      covered.add("exportChanges");
      await api.load(writeSnapshotDir(join(tmp.dir, "fewer"), manyDomainsFixture(CLONES - 5)));
      await api.load(writeSnapshotDir(join(tmp.dir, "again"), manyDomainsFixture(CLONES)));
      const data = await gql(
        `query($f: ChangeFilter) { changes(filter: $f, first: 1000) { nodes { ${CHANGE} } pageInfo { endCursor } } }`,
        { f: { kinds: ["domain_removed", "domain_added"] } },
      );
      const changes = data.changes as { nodes: Json[]; pageInfo: { endCursor: string } };
      expect(changes.nodes.map((n) => n.kind).sort()).toEqual([
        ...Array(5).fill("domain_added"),
        ...Array(5).fill("domain_removed"),
      ]);
      const want = changes.nodes.map(legacyChange);
      expect(await ok("/changes?kinds=domain_removed,domain_added&page_size=1000")).toEqual({
        changes: want,
        has_next_page: false,
        next_cursor: changes.pageInfo.endCursor,
      });
      const exported = await rest("/changes/export?kinds=domain_removed,domain_added");
      expect(exported.status).toBe(200);
      expect(exported.type).toMatch(/^application\/x-ndjson\b/);
      expect(exported.body).toEqual(want);
      // The live stream from the feed's start: the same changes, as events whose ids are their cursors.
      covered.add("streamChanges");
      const res = await api.app.fetch(
        `${BASE}/changes/stream?kinds=domain_removed,domain_added&max_seconds=1`,
        {
          headers: { "last-event-id": "0" },
        },
      );
      expect(res.status).toBe(200);
      const events = (await res.text())
        .split("\n\n")
        .filter((b) => b.includes("\nevent: change\n"))
        .map((b) => {
          const [id, event, data] = b.split("\n");
          expect(event).toBe("event: change");
          return { id: id.slice(4), change: JSON.parse(data.slice(6)) as Json };
        });
      expect(events.map((e) => e.change)).toEqual(want);
      expect(events.map((e) => e.id)).toEqual(want.map((w) => w.id));
    });
  });

  // After the change feed's: three loads, the second without five clones, the third with them again.
  describe("History (GET /trends, /app/trends, /domain/<name>/history and ?as_of=, beyond the legacy paths)", () => {
    const TREND = "dimension values loads { version publishedAt counts total }";
    /** A Trend as REST writes it: legacy names; counts' keys are values, not names. */
    const legacyTrend = (t: Json) => ({
      dimension: t.dimension,
      values: t.values,
      loads: (t.loads as Json[]).map((l) => ({
        version: l.version,
        published_at: l.publishedAt,
        counts: l.counts,
        total: l.total,
      })),
    });
    /** The loads' versions, oldest first, as GraphQL answers them. */
    const versions = async () =>
      (
        (await gql(`{ trends(dimension: PLATFORM) { loads { version } } }`)).trends as {
          loads: { version: number }[];
        }
      ).loads.map((l) => l.version);

    it("GET /trends", async () => {
      covered.add("domainTrends");
      const v = await versions();
      expect(v).toHaveLength(3);
      const named = await gql(
        `query($s: String) { trends(dimension: COUNTRY_CODE, values: ["US", "DE", "XX"], since: $s) { ${TREND} } }`,
        { s: String(v[1]) },
      );
      const body = await ok(`/trends?dimension=cc&values=US,DE,XX&since=${v[1]}`);
      expect(body).toEqual(legacyTrend(named.trends as Json));
      expect((body.loads as Json[]).map((l) => l.version)).toEqual(v.slice(1));
      // The second load lacks five clones: its total is five fewer than the third's.
      const [second, third] = body.loads as { total: number }[];
      expect(third.total - second.total).toBe(5);
      const top = await gql(`{ trends(dimension: APPS, top: 2, until: "${v[1]}") { ${TREND} } }`);
      expect(await ok(`/trends?dimension=an&top=2&until=${v[1]}`)).toEqual(legacyTrend(top.trends as Json));
    });

    it("GET /app/trends", async () => {
      covered.add("appTrends");
      const data = await gql(`{ appTrends(dimension: PRICING) { ${TREND} } }`);
      const body = await ok("/app/trends?dimension=pricing");
      expect(body).toEqual(legacyTrend(data.appTrends as Json));
      expect(body.loads).toHaveLength(3);
    });

    it("GET /domain/<name>/history, page by page", async () => {
      covered.add("domainHistory");
      const CHANGE =
        "id version loadedAt kind domainName app { id platform token name } technology before after";
      const page = `query($n: String!, $after: String) { domain(name: $n) { history(first: 1, after: $after) {
        nodes { ${CHANGE} } pageInfo { hasNextPage endCursor } } } }`;
      const name = `shop-${CLONES - 1}.example.com`;
      const kinds: unknown[] = [];
      let after: string | null = null;
      for (;;) {
        const data = await gql(page, { n: name, after });
        const h = (data.domain as Json).history as {
          nodes: Json[];
          pageInfo: { hasNextPage: boolean; endCursor: string };
        };
        const body = await ok(`/domain/${name}/history?page_size=1${after ? `&cursor=${after}` : ""}`);
        expect(body).toEqual({
          changes: h.nodes.map((n) =>
            Object.fromEntries(
              Object.entries({
                id: n.id,
                version: n.version,
                loaded_at: n.loadedAt,
                kind: n.kind,
                domain: n.domainName,
                app: n.app,
                technology: n.technology,
                before: n.before,
                after: n.after,
              }).filter(([, v]) => v !== null && v !== undefined),
            ),
          ),
          has_next_page: h.pageInfo.hasNextPage,
          ...(h.pageInfo.hasNextPage ? { next_cursor: h.pageInfo.endCursor } : {}),
        });
        kinds.push(...h.nodes.map((n) => n.kind));
        if (!h.pageInfo.hasNextPage) break;
        after = h.pageInfo.endCursor;
      }
      // Newest first: back in the third load, removed in the second.
      expect(kinds).toEqual(["domain_added", "domain_removed"]);
    });

    it("GET /domain/<name>?as_of=", async () => {
      const v = await versions();
      const AS_OF =
        "name version publishedAt covers state platform plan countryCode theme rank rankVersion apps technologies";
      const names: Record<string, string> = {
        version: "as_of_version",
        publishedAt: "as_of_published_at",
        countryCode: "country_code",
        rankVersion: "rank_version",
      };
      for (const name of ["shop.example.com", `shop-${CLONES - 1}.example.com`]) {
        const data = await gql(
          `query($n: String!, $a: String!) { domainAsOf(name: $n, asOf: $a) { ${AS_OF} } }`,
          {
            n: name,
            a: String(v[0]),
          },
        );
        const want = Object.fromEntries(
          Object.entries(data.domainAsOf as Json)
            .filter(([, x]) => x !== null)
            .map(([k, x]) => [names[k] ?? k, x]),
        );
        expect(want.as_of_version).toBe(v[0]);
        expect(await ok(`/domain/${name}?as_of=${v[0]}`), name).toEqual({ domain: want });
      }
      // Absent from the second load: 404 on both, naming the load it left in.
      const name = `shop-${CLONES - 1}.example.com`;
      const gone = await api.gql(`{ domainAsOf(name: "${name}", asOf: "${v[1]}") { name } }`);
      expect(gone.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
      const res = await rest(`/domain/${name}?as_of=${v[1]}`);
      expect(res.status).toBe(404);
      expect((res.body as Json).error).toBe(gone.errors?.[0]?.message);
      expect((res.body as Json).error).toContain(`left in version ${v[1]}`);
    });
  });

  describe("Company to domain (GET /domain/lookup)", () => {
    it("answers as domainLookup, with the fields asked for", async () => {
      covered.add("lookupDomains");
      const data = await gql(
        `{ domainLookup(company: "Example Shop Inc.", first: 5) { company matches { score matched domain { name } } } }`,
      );
      const body = await ok(
        "/domain/lookup?company=Example%20Shop%20Inc.&page_size=5&fields=score,matched,domain.name",
      );
      expect(body).toEqual(data.domainLookup);
      expect((body.matches as Json[]).length).toBe(5);
      covered.add("bulkLookupDomains");
      const bulk = await gql(
        `{ domainLookups(companies: ["Example Shop Inc.", "example goods"], first: 3) { company matches { score matched domain { name } } } }`,
      );
      const posted = await post("/domain/lookup", {
        companies: ["Example Shop Inc.", "example goods"],
        page_size: 3,
        fields: "company,matches.score,matches.matched,matches.domain.name",
      });
      expect(posted).toEqual({ lookups: bulk.domainLookups });
    });
  });

  describe("Related stores (GET /domain/{name}/related)", () => {
    it("answers as Domain.related, with the fields asked for", async () => {
      covered.add("relatedDomains");
      const data = await gql(
        `{ domain(name: "shop.example.com") { related(first: 5) { total domains { score shared { type value } domain { name } } tooCommon { type value domains } } } }`,
      );
      const body = await ok(
        "/domain/shop.example.com/related?page_size=5&fields=total,domains.score,domains.shared,domains.domain.name,too_common",
      );
      const related = (data.domain as Json).related as Json;
      expect(body).toEqual({
        related: { total: related.total, domains: related.domains, too_common: related.tooCommon },
      });
      expect(related.total as number).toBeGreaterThan(0);
      // The root field REST maps onto answers as Domain.related does.
      const root = await gql(
        `{ relatedDomains(name: "shop.example.com", first: 5) { total domains { score shared { type value } domain { name } } tooCommon { type value domains } } }`,
      );
      expect(root.relatedDomains).toEqual(related);
    });
  });

  describe("Lookalikes (POST /domain/similar, GET /domain/{name}/similar)", () => {
    it("answer as similarDomains and Domain.similar, with the fields asked for", async () => {
      covered.add("similarDomains");
      covered.add("domainSimilar");
      const selection =
        "total notFound hasNextPage domains { score shared why { type value seeds weight } domain { name } }";
      const data = await gql(
        `{ similarDomains(names: ["shop.example.com", "nowhere.example"], filter: { countryCode: { values: ["US"] } }, first: 3) { ${selection} } }`,
      );
      const fields = "score,shared,why,domain.name";
      const posted = await post("/domain/similar", {
        domains: ["shop.example.com", "nowhere.example"],
        "f:cc": "US",
        page_size: 3,
        fields,
      });
      const found = data.similarDomains as Json;
      expect(found.notFound).toEqual(["nowhere.example"]);
      expect(found.total as number).toBeGreaterThan(0);
      const { next_cursor, ...rest } = posted as Json;
      expect(rest).toEqual({
        total: found.total,
        similar: found.domains,
        has_next_page: found.hasNextPage,
        not_found: found.notFound,
      });
      expect(typeof next_cursor === "string" || !found.hasNextPage).toBe(true);
      const one = await gql(`{ domain(name: "shop.example.com") { similar(first: 3) { ${selection} } } }`);
      const got = await ok(`/domain/shop.example.com/similar?page_size=3&fields=${fields}`);
      const similar = (one.domain as Json).similar as Json;
      expect(got.similar).toEqual(similar.domains);
      expect(got.total).toBe(similar.total);
    });
  });

  describe("Snapshots (/snapshots): the list as GraphQL lists it, and each file as listed", () => {
    it("GET /snapshots, GET /snapshots/{version}/{file}", async () => {
      covered.add("listSnapshots");
      covered.add("downloadSnapshotFile");
      const data = await gql(
        "{ snapshots { version loadedAt apps domains reviews schemaVersion files { name url rows bytes sha256 columns { name type required } } } }",
      );
      const body = await ok("/snapshots");
      expect(body.snapshots).toEqual(legacy(data.snapshots));
      const [snapshot] = body.snapshots as {
        version: number;
        files: { name: string; url: string; bytes?: number; sha256?: string }[];
      }[];
      expect(snapshot.files.map((f) => f.name)).toEqual([
        "apps.parquet",
        "domains.parquet",
        "reviews.parquet",
        "changes.parquet",
        "manifest.json",
      ]);
      for (const f of snapshot.files.filter((x) => x.sha256)) {
        const res = await api.app.fetch(f.url);
        expect(res.status, f.url).toBe(200);
        expect(res.headers.get("etag")).toBe(`"${f.sha256}"`);
        expect((await res.arrayBuffer()).byteLength).toBe(f.bytes);
      }
    });
  });

  it("covers every route of the route table", () => {
    expect([...covered].sort()).toEqual(OPERATIONS.map((r) => r.id).sort());
  });
});
