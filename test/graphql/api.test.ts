import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GqlResult, startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

// The lookups and relations of the GraphQL API over the hand-made fixture (test/support/fixture.ts).
// Every expected value below is written from reading the fixture, not computed.

/** The data of a response that must have no errors. */
function ok<T>(res: GqlResult<T>): T {
  expect(res.errors).toBeUndefined();
  expect(res.status).toBe(200);
  return res.data as T;
}

// Relay global ids: base64 of "<Type>:<id>".
const APP_1_ID = "QXBwOmFwcC0x"; // App:app-1
const SHOP_ID = "RG9tYWluOnNob3AuZXhhbXBsZS5jb20="; // Domain:shop.example.com

const APP_FIELDS = `
  id appId token platform name description descriptionLong appStoreUrl iconUrl averageRating
  reviewCount categories state createdAt removedAt installs instp installs30d installs90d
  reviews30d reviews90d installsTimeSeries { date installs } integratesWith
  plans { name monthlyCost monthlyCostCents } freeTrialDuration vendorName vendorEmail vendorUrl
  vendorWebsite vendorAddress vendorCountryCode`;

const DOMAIN_FIELDS = `
  id name platformDomain tld1 state inactiveAt redirectsTo aliases alternates localizations locs
  clusterDomains clusterBestRanked platform plan lastPlatform lastPlatformChangeAt lastPlan
  lastPlanChangeAt createdAt lastUpdatedAt magentoVersion merchantName title description keywords
  icon ogImage countryCode currencyCode languageCode administrativeAreaLevel1 city location region
  subregion postalCode streetAddress latitude longitude employeeCount rank rankPercentile
  platformRank platformRankPercentile ccRank ccCentrality estimatedPageViews estimatedVisits
  estimatedSales estimatedSalesYearly monthlyAppSpend avgWeight maxWeight minWeight productCount
  variantCount vendorCount avgPrice avgPriceFormatted avgPriceUsd minPrice maxPrice minPriceUsd
  maxPriceUsd maxProductPublishedAt
  mostRecentlyPublishedProduct { title handle productId publishedAt }
  productImagesCreated30 productImagesCreated90 productImagesCreated365 collections
  shipsToCountries shippingCarriers salesChannels categories features tags contactPage brandsPage
  retailerPage returnsPage trackingPage warrantyPage financingPage storeLocatorPage careerPage
  sizingPage aboutUs
  contactInfo { type value source description followers followers30d followers90d posts likes }
  technologies { name description vendorUrl iconUrl installedAt installs categories }
  theme { name style vendor version cost }
  apps { installedAt removedAt app { appId platform token name } }
  trustpilot { reviewCount avgRating }
  yotpo { reviewCount avgRating }`;

describe.each(databaseKinds())("GraphQL API on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-gql-api-");
  const snapshotDir = join(tmp.dir, "a");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(snapshotDir, validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  describe("app(platform, token)", () => {
    it("returns every field of app-1 with its exact value and format", async () => {
      const data = ok(await api.gql(`{ app(platform: "shopify", token: "klaviyo") { ${APP_FIELDS} } }`));
      expect(data).toEqual({
        app: {
          id: APP_1_ID,
          appId: "app-1",
          token: "klaviyo",
          platform: "shopify",
          name: "Klaviyo",
          description: "Email marketing",
          descriptionLong: "Email and SMS marketing for stores.",
          appStoreUrl: "https://apps.shopify.com/klaviyo",
          iconUrl: "https://cdn.example.com/klaviyo.png",
          averageRating: "4.6",
          reviewCount: 2,
          // Stored one row per category and returned in alphabetical order, not the file's
          // ["Marketing", "Email"].
          categories: ["Email", "Marketing"],
          state: "Active",
          createdAt: "2019-01-02T03:04:05",
          removedAt: null,
          installs: 1,
          instp: 0.5,
          installs30d: -3,
          installs90d: 10,
          reviews30d: 1,
          reviews90d: 2,
          installsTimeSeries: [
            { date: "2024-01-01", installs: 1 },
            { date: "2024-02-01", installs: 1 },
          ],
          // Kept as is, padding and newline included (docs/api.md 2.1).
          integratesWith: ["  Shopify Flow\n", "Zapier"],
          plans: [
            { name: "Free", monthlyCost: "Free", monthlyCostCents: null },
            { name: "Pro", monthlyCost: "$20/month", monthlyCostCents: 2000 },
          ],
          freeTrialDuration: "336h0m0s",
          vendorName: "Klaviyo Inc.",
          vendorEmail: "apps@klaviyo.example.com",
          vendorUrl: "https://apps.shopify.com/partners/klaviyo",
          vendorWebsite: "https://www.klaviyo.example.com",
          vendorAddress: "125 Summer St, Boston",
          vendorCountryCode: "US",
        },
      });
    });

    it("an Inactive App carries removedAt (RFC 3339); unknown optional values are null", async () => {
      const data = ok(await api.gql(`{ app(platform: "shopify", token: "old-reviews") { ${APP_FIELDS} } }`));
      expect(data).toEqual({
        app: {
          id: "QXBwOmFwcC0y", // App:app-2
          appId: "app-2",
          token: "old-reviews",
          platform: "shopify",
          name: "Old Reviews",
          description: "Product reviews",
          descriptionLong: null,
          appStoreUrl: "https://apps.shopify.com/old-reviews",
          iconUrl: "https://cdn.example.com/old.png",
          averageRating: "3.9",
          reviewCount: 0,
          categories: ["Reviews"],
          state: "Inactive",
          createdAt: "2018-05-06T07:08:09",
          removedAt: "2023-06-01T00:00:00Z",
          installs: 0,
          instp: null,
          installs30d: null,
          installs90d: null,
          reviews30d: null,
          reviews90d: null,
          installsTimeSeries: null,
          integratesWith: null,
          plans: [],
          freeTrialDuration: null,
          vendorName: "Old Co",
          vendorEmail: null,
          vendorUrl: null,
          vendorWebsite: null,
          vendorAddress: null,
          vendorCountryCode: null,
        },
      });
    });

    it("a non-shopify App: averageRating as given, no integratesWith, paid plan with cents", async () => {
      const data = ok(
        await api.gql(`{ app(platform: "woocommerce", token: "woo-seo") {
          averageRating categories integratesWith plans { name monthlyCost monthlyCostCents } } }`),
      );
      expect(data).toEqual({
        app: {
          averageRating: "4",
          categories: [],
          integratesWith: null,
          plans: [{ name: "Yearly", monthlyCost: "$4.08/month", monthlyCostCents: 408 }],
        },
      });
    });

    it("takes the platform in any letter case", async () => {
      const data = ok(
        await api.gql(`{
          a: app(platform: "Shopify", token: "klaviyo") { appId }
          b: app(platform: "SHOPIFY", token: "klaviyo") { appId }
          c: app(platform: "WooCommerce", token: "woo-seo") { appId } }`),
      );
      expect(data).toEqual({ a: { appId: "app-1" }, b: { appId: "app-1" }, c: { appId: "app-3" } });
    });

    it("an unknown token is NOT_FOUND with data.app null", async () => {
      const res = await api.gql(`{ app(platform: "shopify", token: "no-such-app") { appId } }`);
      expect(res.status).toBe(200);
      expect(res.data).toEqual({ app: null });
      expect(res.errors).toHaveLength(1);
      expect(res.errors?.[0].extensions?.code).toBe("NOT_FOUND");
      expect(res.errors?.[0].path).toEqual(["app"]);
      // A token of another platform is not found either.
      const other = await api.gql(`{ app(platform: "woocommerce", token: "klaviyo") { appId } }`);
      expect(other.data).toEqual({ app: null });
      expect(other.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    });
  });

  describe("domain(name)", () => {
    it("returns every field of shop.example.com with its exact value and format", async () => {
      const data = ok(await api.gql(`{ domain(name: "shop.example.com") { ${DOMAIN_FIELDS} } }`));
      expect(data).toEqual({
        domain: {
          id: SHOP_ID,
          name: "shop.example.com",
          platformDomain: "example-shop.myshopify.com",
          tld1: "example.com",
          state: "Active",
          inactiveAt: null,
          redirectsTo: null,
          aliases: ["example.com"],
          alternates: { "de-DE": "de.example.com" },
          localizations: ["en-US", "de-DE"],
          locs: ["en"],
          clusterDomains: ["shop.example.com", "de.example.com"],
          clusterBestRanked: "shop.example.com",
          platform: "shopify",
          plan: "Shopify Plus",
          lastPlatform: "magento",
          lastPlatformChangeAt: "2021-03-04",
          lastPlan: "Advanced",
          lastPlanChangeAt: "2022-05-06",
          createdAt: "2018-03-02",
          lastUpdatedAt: "2026-11-01",
          magentoVersion: null,
          merchantName: "Example Shop",
          title: "Example Shop — Outdoor Gear",
          description: "Tents and boots",
          keywords: ["tents", "boots"],
          icon: "https://shop.example.com/favicon.ico",
          ogImage: "https://shop.example.com/og.png",
          countryCode: "US",
          currencyCode: "USD",
          languageCode: "en",
          administrativeAreaLevel1: "California",
          city: "San Francisco",
          location: "San Francisco, CA",
          region: "Americas",
          subregion: "Northern America",
          postalCode: "94103",
          streetAddress: "1 Market St",
          latitude: 37.79,
          longitude: -122.39,
          employeeCount: 120,
          rank: 10,
          rankPercentile: 99.9,
          platformRank: 1,
          platformRankPercentile: 99.95,
          ccRank: 5.5,
          ccCentrality: 0.25,
          // SafeInt: beyond GraphQL's 32-bit Int.
          estimatedPageViews: 12000000000,
          estimatedVisits: 3000000,
          estimatedSales: 350000000000,
          estimatedSalesYearly: 4200000000000,
          monthlyAppSpend: 150000,
          avgWeight: 500,
          maxWeight: 2000,
          minWeight: 100,
          productCount: 340,
          variantCount: 1200,
          vendorCount: 12,
          avgPrice: 4999,
          avgPriceFormatted: "$49.99",
          avgPriceUsd: 4999,
          minPrice: 500,
          maxPrice: 99900,
          minPriceUsd: 500,
          maxPriceUsd: 99900,
          maxProductPublishedAt: "2026-10-30",
          mostRecentlyPublishedProduct: {
            title: "Trail Boot",
            handle: "trail-boot",
            productId: 7000000001,
            publishedAt: "2026-10-30T10:00:00Z",
          },
          productImagesCreated30: 3,
          productImagesCreated90: 9,
          productImagesCreated365: 40,
          collections: ["Boots", "Tents"],
          // Stored one row per country, returned alphabetically (the file has ["US", "CA"]).
          shipsToCountries: ["CA", "US"],
          shippingCarriers: ["UPS"],
          salesChannels: ["Amazon"],
          categories: ["/Sports/Outdoor"],
          features: ["Contact Page", "Shopify POS"],
          tags: ["Trending on TikTok"],
          contactPage: "https://shop.example.com/pages/contact",
          brandsPage: null,
          retailerPage: null,
          returnsPage: null,
          trackingPage: null,
          warrantyPage: null,
          financingPage: null,
          storeLocatorPage: null,
          careerPage: null,
          sizingPage: null,
          aboutUs: "https://shop.example.com/pages/about",
          contactInfo: [
            {
              type: "email",
              value: "hi@example.com",
              source: "/pages/contact",
              description: null,
              followers: null,
              followers30d: null,
              followers90d: null,
              posts: null,
              likes: null,
            },
            {
              type: "instagram",
              value: "https://instagram.com/exampleshop",
              source: "/",
              description: null,
              followers: 12000,
              followers30d: 150,
              followers90d: 400,
              posts: 300,
              likes: 5000,
            },
          ],
          technologies: [
            {
              name: "Google Analytics",
              description: "Web analytics",
              vendorUrl: "https://analytics.google.com",
              iconUrl: "https://cdn.example.com/ga.png",
              installedAt: "2020-01-01T00:00:00Z",
              installs: 2,
              categories: ["Analytics"],
            },
          ],
          theme: { name: "Dawn", style: "Default", vendor: "Shopify", version: "15.0.0", cost: 18000 },
          // In order of installation; the uninstalled App keeps its removedAt.
          apps: [
            {
              installedAt: "2019-01-01T00:00:00Z",
              removedAt: "2023-01-01T00:00:00Z",
              app: { appId: "app-2", platform: "shopify", token: "old-reviews", name: "Old Reviews" },
            },
            {
              installedAt: "2021-01-01T00:00:00Z",
              removedAt: null,
              app: { appId: "app-1", platform: "shopify", token: "klaviyo", name: "Klaviyo" },
            },
          ],
          trustpilot: { reviewCount: 420, avgRating: 4.4 },
          yotpo: { reviewCount: 80, avgRating: 4.8 },
        },
      });
    });

    it("a sparse Domain: unknown values are null, a blank language stays blank, times in UTC", async () => {
      const data = ok(
        await api.gql(`{ domain(name: "woo.example.org") {
          name platformDomain state platform createdAt rank platformRank languageCode countryCode
          keywords alternates aliases localizations categories features tags contactInfo { type }
          theme { name } trustpilot { reviewCount } yotpo { reviewCount } estimatedSales avgPrice
          employeeCount latitude mostRecentlyPublishedProduct { title } inactiveAt redirectsTo
          technologies { name installedAt installs } apps { installedAt removedAt app { appId } } } }`),
      );
      expect(data).toEqual({
        domain: {
          name: "woo.example.org",
          platformDomain: null,
          state: "Active",
          platform: "woocommerce",
          createdAt: "2020-07-03",
          rank: 20,
          platformRank: 1,
          // language_code "" means unknown, and docs/api.md 2.3 says it is blank then.
          languageCode: "",
          countryCode: null,
          keywords: null,
          alternates: null,
          aliases: null,
          localizations: null,
          categories: null,
          features: null,
          tags: null,
          contactInfo: null,
          theme: null,
          trustpilot: null,
          yotpo: null,
          estimatedSales: null,
          avgPrice: null,
          employeeCount: null,
          latitude: null,
          mostRecentlyPublishedProduct: null,
          inactiveAt: null,
          redirectsTo: null,
          // 2021-05-05T12:00:00+02:00 in the file.
          technologies: [{ name: "Google Analytics", installedAt: "2021-05-05T10:00:00Z", installs: 2 }],
          apps: [{ installedAt: "2022-02-02T00:00:00Z", removedAt: null, app: { appId: "app-3" } }],
        },
      });
    });

    it("an Inactive Domain has inactiveAt; a Domain without Apps has apps null", async () => {
      const data = ok(
        await api.gql(`{
          gone: domain(name: "gone.example.net") { state inactiveAt apps { app { appId } } }
          old: domain(name: "old-shop.example.com") { state inactiveAt apps { app { appId } } technologies { name } } }`),
      );
      expect(data).toEqual({
        gone: { state: "Inactive", inactiveAt: "2025-01-01", apps: [{ app: { appId: "app-1" } }] },
        old: { state: "Redirect", inactiveAt: null, apps: null, technologies: null },
      });
    });

    it("is found by its platform domain, in any letter case, with a trailing dot", async () => {
      const data = ok(
        await api.gql(`{
          byPlatformDomain: domain(name: "example-shop.myshopify.com") { name }
          upper: domain(name: "SHOP.EXAMPLE.COM") { name }
          mixed: domain(name: "Example-Shop.MyShopify.com") { name }
          dot: domain(name: "woo.example.org.") { name } }`),
      );
      expect(data).toEqual({
        byPlatformDomain: { name: "shop.example.com" },
        upper: { name: "shop.example.com" },
        mixed: { name: "shop.example.com" },
        dot: { name: "woo.example.org" },
      });
    });

    it("followRedirects: false (default) returns the Redirect Domain, true returns its target", async () => {
      const data = ok(
        await api.gql(`{
          plain: domain(name: "old-shop.example.com") { name state redirectsTo }
          no: domain(name: "old-shop.example.com", followRedirects: false) { name state }
          yes: domain(name: "old-shop.example.com", followRedirects: true) { name state rank }
          notRedirect: domain(name: "woo.example.org", followRedirects: true) { name } }`),
      );
      expect(data).toEqual({
        plain: { name: "old-shop.example.com", state: "Redirect", redirectsTo: ["shop.example.com"] },
        no: { name: "old-shop.example.com", state: "Redirect" },
        yes: { name: "shop.example.com", state: "Active", rank: 10 },
        notRedirect: { name: "woo.example.org" },
      });
    });

    it("redirectTargets and cluster list only the Domains the dataset has", async () => {
      const data = ok(
        await api.gql(`{
          old: domain(name: "old-shop.example.com") { redirectTargets { name state } cluster { name } }
          shop: domain(name: "shop.example.com") { redirectTargets { name } cluster { name rank } }
          woo: domain(name: "woo.example.org") { redirectTargets { name } cluster { name } } }`),
      );
      expect(data).toEqual({
        // A cluster lists the Domain itself: old-shop and woo are clusters of one.
        old: {
          redirectTargets: [{ name: "shop.example.com", state: "Active" }],
          cluster: [{ name: "old-shop.example.com" }],
        },
        // cluster_domains is [shop.example.com, de.example.com]; de.example.com is not in the dataset.
        shop: { redirectTargets: [], cluster: [{ name: "shop.example.com", rank: 10 }] },
        woo: { redirectTargets: [], cluster: [{ name: "woo.example.org" }] },
      });
    });

    it("an unknown name is NOT_FOUND with data.domain null", async () => {
      const res = await api.gql(`{ domain(name: "nowhere.example.com") { name } }`);
      expect(res.status).toBe(200);
      expect(res.data).toEqual({ domain: null });
      expect(res.errors?.[0].extensions?.code).toBe("NOT_FOUND");
      expect(res.errors?.[0].path).toEqual(["domain"]);
    });
  });

  describe("domainsByName", () => {
    const query = `query($names: [String!]!, $follow: Boolean) {
      domainsByName(names: $names, followRedirects: $follow) { domains { name } notFound } }`;

    it("keeps the request order, resolves platform domains and case, lists unknown names", async () => {
      const data = ok(
        await api.gql(query, {
          names: [
            "woo.example.org",
            "missing.example.com",
            "SHOP.example.com",
            "gone.example.net",
            "example-shop.myshopify.com",
            "also-missing.example.org",
          ],
        }),
      );
      expect(data).toEqual({
        domainsByName: {
          domains: [
            { name: "woo.example.org" },
            { name: "shop.example.com" },
            { name: "gone.example.net" },
            { name: "shop.example.com" },
          ],
          notFound: ["missing.example.com", "also-missing.example.org"],
        },
      });
    });

    it("a name asked twice is answered twice, in place", async () => {
      const data = ok(
        await api.gql(query, {
          names: [
            "woo.example.org",
            "shop.example.com",
            "woo.example.org",
            "nope.example.com",
            "nope.example.com",
          ],
        }),
      );
      expect(data).toEqual({
        domainsByName: {
          domains: [{ name: "woo.example.org" }, { name: "shop.example.com" }, { name: "woo.example.org" }],
          notFound: ["nope.example.com", "nope.example.com"],
        },
      });
    });

    it("followRedirects replaces a Redirect Domain by its target", async () => {
      const names = ["old-shop.example.com", "woo.example.org"];
      expect(ok(await api.gql(query, { names, follow: true }))).toEqual({
        domainsByName: { domains: [{ name: "shop.example.com" }, { name: "woo.example.org" }], notFound: [] },
      });
      expect(ok(await api.gql(query, { names, follow: false }))).toEqual({
        domainsByName: {
          domains: [{ name: "old-shop.example.com" }, { name: "woo.example.org" }],
          notFound: [],
        },
      });
    });

    it("100 names are accepted; 0 and 101 names are BAD_USER_INPUT naming `names`", async () => {
      const hundred = Array.from({ length: 100 }, (_, i) =>
        i === 0 ? "shop.example.com" : `n${i}.example.com`,
      );
      const data = ok(
        await api.gql<{ domainsByName: { domains: unknown[]; notFound: string[] } }>(query, {
          names: hundred,
        }),
      );
      expect(data.domainsByName.domains).toEqual([{ name: "shop.example.com" }]);
      expect(data.domainsByName.notFound).toHaveLength(99);

      for (const names of [[], [...hundred, "one-more.example.com"]]) {
        const res = await api.gql(query, { names });
        expect(res.status).toBe(200);
        expect(res.data).toBeNull();
        expect(res.errors).toHaveLength(1);
        expect(res.errors?.[0].extensions).toMatchObject({ code: "BAD_USER_INPUT", argument: "names" });
        expect(res.errors?.[0].message).toMatch(/^names: /);
      }
    });
  });

  describe("node and nodes", () => {
    async function reviewIds(): Promise<{ id: string; body: string }[]> {
      const data = ok(
        await api.gql<{ app: { reviews: { edges: { node: { id: string; body: string } }[] } } }>(
          `{ app(platform: "shopify", token: "klaviyo") { reviews { edges { node { id body } } } } }`,
        ),
      );
      return data.app.reviews.edges.map((e) => e.node);
    }

    it("resolves the global ids of an App, a Domain and an AppReview", async () => {
      const [slow, great] = await reviewIds();
      expect(slow.body).toBe("Support was slow.");
      expect(great.body).toBe("Great app, doubled our email revenue.");
      const data = ok(
        await api.gql(
          `query($review: ID!) {
            app: node(id: "${APP_1_ID}") { __typename id ... on App { appId name } }
            domain: node(id: "${SHOP_ID}") { __typename id ... on Domain { name rank } }
            review: node(id: $review) { __typename id ... on AppReview { body rating app { appId } } } }`,
          { review: great.id },
        ),
      );
      expect(data).toEqual({
        app: { __typename: "App", id: APP_1_ID, appId: "app-1", name: "Klaviyo" },
        domain: { __typename: "Domain", id: SHOP_ID, name: "shop.example.com", rank: 10 },
        review: {
          __typename: "AppReview",
          id: great.id,
          body: "Great app, doubled our email revenue.",
          rating: 5,
          app: { appId: "app-1" },
        },
      });
    });

    it("the id field of each type is the one node() takes", async () => {
      const data = ok(
        await api.gql(`{
          app(platform: "shopify", token: "klaviyo") { id }
          domain(name: "shop.example.com") { id } }`),
      );
      expect(data).toEqual({ app: { id: APP_1_ID }, domain: { id: SHOP_ID } });
    });

    it("nodes answers in request order, with null for a well-formed id of nothing", async () => {
      const [slow] = await reviewIds();
      const data = ok(
        await api.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, {
          // App:app-99 and Domain:nowhere.example.com do not exist.
          ids: [slow.id, SHOP_ID, "QXBwOmFwcC05OQ==", APP_1_ID, "RG9tYWluOm5vd2hlcmUuZXhhbXBsZS5jb20="],
        }),
      );
      expect(data).toEqual({
        nodes: [
          { __typename: "AppReview", id: slow.id },
          { __typename: "Domain", id: SHOP_ID },
          null,
          { __typename: "App", id: APP_1_ID },
          null,
        ],
      });
    });

    it("an invalid id is BAD_USER_INPUT, not an error without a code", async () => {
      const res = await api.gql(`{ node(id: "not-a-global-id") { id } }`);
      expect(res.status).toBe(200);
      expect(res.data).toEqual({ node: null });
      expect(res.errors).toHaveLength(1);
      expect(res.errors?.[0].message).toMatch(/not-a-global-id/);
      expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    });
  });

  describe("reviews", () => {
    const REVIEW = `updatedAt body merchantName rating
      domains { name platformDomain platformRank domain { name rank } }
      app { appId name appStoreUrl vendorName }`;
    const SLOW = {
      updatedAt: "2025-07-01T10:00:00Z",
      body: "Support was slow.",
      merchantName: "Unknown Store",
      rating: 3,
      // The review's store is not in the dataset: its domain is null.
      domains: [
        {
          name: "unknown-store.example.com",
          platformDomain: "unknown.myshopify.com",
          platformRank: 999,
          domain: null,
        },
      ],
      app: {
        appId: "app-1",
        name: "Klaviyo",
        appStoreUrl: "https://apps.shopify.com/klaviyo",
        vendorName: "Klaviyo Inc.",
      },
    };
    const GREAT = {
      updatedAt: "2025-06-01T10:00:00Z",
      body: "Great app, doubled our email revenue.",
      merchantName: "Example Shop",
      rating: 5,
      domains: [
        {
          name: "shop.example.com",
          platformDomain: "example-shop.myshopify.com",
          platformRank: 1,
          domain: { name: "shop.example.com", rank: 10 },
        },
      ],
      app: SLOW.app,
    };
    type ReviewPage = {
      app: {
        reviews: {
          totalCount: number;
          edges: { cursor: string; node: Record<string, unknown> }[];
          pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
        };
      };
    };
    const page = (args: string) =>
      `query${args.includes("$after") ? "($after: String)" : ""} { app(platform: "shopify", token: "klaviyo") {
        reviews${args ? `(${args})` : ""} { totalCount edges { cursor node { id ${REVIEW} } }
          pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
    // Review ids are checked by the node tests.
    const nodes = (d: ReviewPage) => d.app.reviews.edges.map(({ node: { id: _id, ...rest } }) => rest);

    it("App.reviews: newest first by default, with domains (resolved when known) and app", async () => {
      const data = ok(await api.gql<ReviewPage>(page("")));
      expect(data.app.reviews.totalCount).toBe(2);
      expect(nodes(data)).toEqual([SLOW, GREAT]);
      expect(data.app.reviews.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    });

    it("App.reviews: orderBy direction ASC gives oldest first, DESC newest first", async () => {
      const asc = ok(await api.gql<ReviewPage>(page("orderBy: { direction: ASC }")));
      expect(nodes(asc).map((n) => n.body)).toEqual([GREAT.body, SLOW.body]);
      const desc = ok(await api.gql<ReviewPage>(page("orderBy: { field: UPDATED_AT, direction: DESC }")));
      expect(nodes(desc).map((n) => n.body)).toEqual([SLOW.body, GREAT.body]);
    });

    it("App.reviews: pages of one with first: 1 and after", async () => {
      const p1 = ok(await api.gql<ReviewPage>(page("first: 1")));
      expect(nodes(p1).map((n) => n.body)).toEqual([SLOW.body]);
      expect(p1.app.reviews.totalCount).toBe(2);
      expect(p1.app.reviews.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
      const after = p1.app.reviews.pageInfo.endCursor;
      expect(after).toBe(p1.app.reviews.edges[0].cursor);

      const p2 = ok(await api.gql<ReviewPage>(page("first: 1, after: $after"), { after }));
      expect(nodes(p2).map((n) => n.body)).toEqual([GREAT.body]);
      expect(p2.app.reviews.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });

      const p3 = ok(
        await api.gql<ReviewPage>(page("first: 1, after: $after"), {
          after: p2.app.reviews.pageInfo.endCursor,
        }),
      );
      expect(p3.app.reviews.edges).toEqual([]);
      expect(p3.app.reviews.pageInfo).toMatchObject({
        hasNextPage: false,
        hasPreviousPage: true,
        endCursor: null,
      });
    });

    it("Apps without reviews (another shopify App, a non-shopify App) have an empty list", async () => {
      const data = ok(
        await api.gql(`{
          old: app(platform: "shopify", token: "old-reviews") { reviews { totalCount edges { cursor } } }
          woo: app(platform: "woocommerce", token: "woo-seo") { reviews { totalCount edges { cursor } } } }`),
      );
      expect(data).toEqual({
        old: { reviews: { totalCount: 0, edges: [] } },
        woo: { reviews: { totalCount: 0, edges: [] } },
      });
    });

    it("Domain.appReviews: the reviews that list the Domain, with the reviewed App", async () => {
      const data = ok(
        await api.gql(`{
          shop: domain(name: "shop.example.com") { appReviews { totalCount edges { node { ${REVIEW} } } } }
          woo: domain(name: "woo.example.org") { appReviews { totalCount edges { node { body } } } } }`),
      );
      expect(data).toMatchObject({
        shop: { appReviews: { totalCount: 1, edges: [{ node: GREAT }] } },
        woo: { appReviews: { totalCount: 0, edges: [] } },
      });
    });
  });

  describe("App.installedOn", () => {
    type Installed = { totalCount: number; edges: { node: { name: string } }[] };
    const names = (c: Installed) => c.edges.map((e) => e.node.name);

    it("lists the Domains that have the App installed and not uninstalled, by rank", async () => {
      const data = ok(
        await api.gql<Record<string, { installedOn: Installed }>>(`{
          klaviyo: app(platform: "shopify", token: "klaviyo") { installedOn { totalCount edges { node { name } } } }
          old: app(platform: "shopify", token: "old-reviews") { installedOn { totalCount edges { node { name } } } }
          woo: app(platform: "woocommerce", token: "woo-seo") { installedOn { totalCount edges { node { name } } } } }`),
      );
      // Klaviyo: shop.example.com (rank 10) and the Inactive gone.example.net (rank 30).
      expect(names(data.klaviyo.installedOn)).toEqual(["shop.example.com", "gone.example.net"]);
      expect(data.klaviyo.installedOn.totalCount).toBe(2);
      // Old Reviews was uninstalled (removed_at) by its only Domain.
      expect(data.old.installedOn).toEqual({ totalCount: 0, edges: [] });
      expect(names(data.woo.installedOn)).toEqual(["woo.example.org"]);
    });

    it("takes a filter, a search and an order like domains", async () => {
      const data = ok(
        await api.gql<{ app: Record<string, Installed> }>(`{ app(platform: "shopify", token: "klaviyo") {
          inactive: installedOn(filter: { state: { values: ["Inactive"] } }) { totalCount edges { node { name } } }
          us: installedOn(filter: { countryCode: { values: ["us"] } }) { totalCount edges { node { name } } }
          notActive: installedOn(filter: { state: { values: ["Active"], op: NOT } }) { totalCount edges { node { name } } }
          search: installedOn(search: "tents") { totalCount edges { node { name } } }
          byName: installedOn(orderBy: [{ field: NAME }]) { totalCount edges { node { name } } } } }`),
      );
      expect(names(data.app.inactive)).toEqual(["gone.example.net"]);
      expect(data.app.inactive.totalCount).toBe(1);
      expect(names(data.app.us)).toEqual(["shop.example.com"]);
      expect(names(data.app.notActive)).toEqual(["gone.example.net"]);
      expect(names(data.app.search)).toEqual(["shop.example.com"]);
      expect(names(data.app.byName)).toEqual(["gone.example.net", "shop.example.com"]);
    });
  });

  describe("domains and snapshot", () => {
    type Page = {
      domains: {
        totalCount: number;
        edges: { cursor: string; node: { name: string; rank: number } }[];
        pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
      };
    };
    const query = `query($first: Int, $after: String) { domains(first: $first, after: $after) {
      totalCount edges { cursor node { name rank } } pageInfo { hasNextPage hasPreviousPage endCursor } } }`;

    it("default order is rank ascending, with totalCount", async () => {
      const data = ok(await api.gql<Page>(query));
      expect(data.domains.edges.map((e) => e.node)).toEqual([
        { name: "shop.example.com", rank: 10 },
        { name: "woo.example.org", rank: 20 },
        { name: "gone.example.net", rank: 30 },
        { name: "old-shop.example.com", rank: 40 },
      ]);
      expect(data.domains.totalCount).toBe(4);
      expect(data.domains.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
      expect(data.domains.pageInfo.endCursor).toBe(data.domains.edges[3].cursor);
    });

    it("pages follow each other; totalCount counts all matches on every page", async () => {
      const p1 = ok(await api.gql<Page>(query, { first: 3 }));
      expect(p1.domains.edges.map((e) => e.node.name)).toEqual([
        "shop.example.com",
        "woo.example.org",
        "gone.example.net",
      ]);
      expect(p1.domains.pageInfo.hasNextPage).toBe(true);
      const p2 = ok(await api.gql<Page>(query, { first: 3, after: p1.domains.pageInfo.endCursor }));
      expect(p2.domains.edges.map((e) => e.node.name)).toEqual(["old-shop.example.com"]);
      expect(p2.domains.totalCount).toBe(4);
      expect(p2.domains.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    });

    // Relay's hasNextPage for `first`: true when more than `first` edges follow the cursor; and
    // docs/decisions.md: only the last page says has_next_page false.
    it("first: 0 returns no edges, still counts, and says that more follow", async () => {
      const data = ok(await api.gql<Page>(query, { first: 0 }));
      expect(data.domains).toEqual({
        totalCount: 4,
        edges: [],
        pageInfo: { hasNextPage: true, hasPreviousPage: false, endCursor: null },
      });
    });

    it("snapshot describes the served snapshot", async () => {
      const data = ok(
        await api.gql<{ snapshot: Record<string, unknown> }>(
          `{ snapshot { version loadedAt source apps domains reviews } }`,
        ),
      );
      expect(data.snapshot).toEqual({
        version: 1,
        loadedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
        source: snapshotDir,
        apps: 3,
        domains: 4,
        reviews: 2,
      });
      const loadedAt = Date.parse(data.snapshot.loadedAt as string);
      expect(Date.now() - loadedAt).toBeGreaterThanOrEqual(0);
      expect(Date.now() - loadedAt).toBeLessThan(10 * 60_000);
    });
  });
});
