import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { writeSnapshotDir } from "../support/fixture.ts";
import { manyDomainsFixture } from "../support/fixture-graphql.ts";

// N+1 guard: the number of SQL queries an operation costs does not grow with the number of rows it
// returns. Every relation is read through a per-request DataLoader (src/query/loaders.ts), so an
// operation costs one query per list it reads plus one per relation level it selects.
//
// The dataset: validFixture() plus 60 clones of its rich Domain (shop-0 … shop-59.example.com,
// ranks 100 … 159), each with Klaviyo, the uninstalled Old Reviews and one of 30 extra Apps
// (shop-i has "Clone App <i mod 30>"), and one Klaviyo review per clone. 64 Domains, 33 Apps,
// 62 reviews.

/**
 * The table each query reads (its last FROM: a planned Domain read names its child tables in
 * subqueries before its own), sorted: the same on SQLite and PostgreSQL.
 */
function tables(sql: readonly string[]): string[] {
  const named = sql
    .map((s) =>
      // The snapshot's migrations, and whether it records its parts: asked once, before serving it.
      /to_regclass|sqlite_master/.test(s)
        ? "(catalogue)"
        : ([...s.matchAll(/\bFROM\s+(?:[`"][^`"]+[`"]\.)?[`"]([^`"]+)[`"]/g)].at(-1)?.[1] ?? s),
    )
    .sort();
  // The count index is read one part a statement, once per snapshot: named once here.
  return named.filter((t, i) => t !== "count_index" || named.indexOf(t) === i);
}

const DOMAIN_SELECTION = `name
  apps { installedAt app { name categories plans { name } } }
  technologies { name installs }
  contactInfo { type }
  theme { name }
  categories
  features`;

/**
 * The Domains are read in one statement with what their selection plans (src/query/domain-read/read.ts
 * readPlannedDomains): their columns, their child tables as JSON arrays. The Apps and technologies
 * they name, and the Apps' categories and plans, are read once per snapshot (sharedLoader): on a new
 * snapshot one query each, then none.
 */
const SHARED_TABLES = ["app", "app_category", "app_plan", "technology"];
const DOMAIN_TABLES = ["domain"];
/** A page of Domains reads its keys first (the filtered, sorted page query), then their rows. */
/**
 * A page of Domains: its rows, in one statement. Its keys come from the snapshot's count index
 * (src/query/index-page.ts), not from a statement of their own.
 */
const DOMAIN_PAGE_TABLES = ["domain"];
/**
 * The first read of Domains on a new snapshot also reads the Apps and technologies they name (kept
 * per snapshot). Before the snapshot is served, the gateway asks once for its format (its
 * migrations, then its parts' versions: src/db/snapshot-format.ts): those two questions are the
 * first request's, whatever it reads.
 */
const cold = (tables: string[]) => [...tables, ...SHARED_TABLES, "(catalogue)", "snapshot_part"].sort();

type DomainNode = {
  name: string;
  apps: { installedAt: string; app: { name: string; categories: string[]; plans: { name: string }[] } }[];
  technologies: { name: string; installs: number }[];
  contactInfo: { type: string }[];
  theme: { name: string };
  categories: string[];
  features: string[];
};

/** shop-7.example.com as the selection shows it (written from manyDomainsFixture). */
const SHOP_7: DomainNode = {
  name: "shop-7.example.com",
  apps: [
    {
      installedAt: "2019-01-01T00:00:00Z",
      app: { name: "Old Reviews", categories: ["Reviews"], plans: [] },
    },
    {
      installedAt: "2021-01-01T00:00:00Z",
      app: {
        name: "Klaviyo",
        categories: ["Email", "Marketing"],
        plans: [{ name: "Free" }, { name: "Pro" }],
      },
    },
    {
      installedAt: "2022-03-03T00:00:00Z",
      app: {
        name: "Clone App 7",
        categories: ["Group 1", "Marketing"],
        plans: [{ name: "Free" }, { name: "Plus" }],
      },
    },
  ],
  // 2 Domains of the fixture + 60 clones list it.
  technologies: [{ name: "Google Analytics", installs: 62 }],
  contactInfo: [{ type: "email" }, { type: "instagram" }],
  theme: { name: "Dawn" },
  categories: ["/Sports/Outdoor"],
  features: ["Contact Page", "Shopify POS"],
};

describe.each(databaseKinds())("query counts on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-gql-queries-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "many"), manyDomainsFixture(60)));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  /** Serves a new snapshot of the same data: the rows kept per snapshot are read anew. */
  const newSnapshot = () => api.load(writeSnapshotDir(join(tmp.dir, "many"), manyDomainsFixture(60)));

  /** Runs one operation and returns its data and the SQL it cost. */
  async function counted<T>(query: string, variables: Record<string, unknown> = {}) {
    api.resetQueries();
    const res = await api.gql<T>(query, variables);
    expect(res.errors).toBeUndefined();
    return { data: res.data as T, sql: [...api.queries] };
  }

  it("the dataset is what the comments say", async () => {
    const { data } = await counted(`{ snapshot { apps domains reviews } }`);
    expect(data).toEqual({ snapshot: { apps: 33, domains: 64, reviews: 62 } });
  });

  describe("Domains", () => {
    const page = `query($first: Int) { domains(first: $first) { edges { node { ${DOMAIN_SELECTION} } } } }`;
    type Page = { domains: { edges: { node: DomainNode }[] } };

    it("a page of 50 Domains with apps, technologies, contacts, theme, categories, features: 1 query, 8 on a new snapshot", async () => {
      await newSnapshot();
      // A new snapshot's first page also loads its count index (its parts).
      expect(tables((await counted<Page>(page, { first: 50 })).sql)).toEqual(
        cold([...DOMAIN_PAGE_TABLES, "count_index"]),
      );
      const { data, sql } = await counted<Page>(page, { first: 50 });
      const nodes = data.domains.edges.map((e) => e.node);
      expect(nodes).toHaveLength(50);
      expect(nodes.slice(0, 5).map((n) => n.name)).toEqual([
        "shop.example.com",
        "woo.example.org",
        "gone.example.net",
        "old-shop.example.com",
        "shop-0.example.com",
      ]);
      expect(nodes[49].name).toBe("shop-45.example.com");
      expect(nodes.find((n) => n.name === "shop-7.example.com")).toEqual(SHOP_7);
      // The page reaches all 30 extra Apps (shop-0 … shop-45), plus the fixture's three.
      expect(new Set(nodes.flatMap((n) => (n.apps ?? []).map((a) => a.app.name))).size).toBe(33);

      expect(sql).toHaveLength(1);
      expect(tables(sql)).toEqual(DOMAIN_PAGE_TABLES);
    });

    it("the same count for first: 1, 5 and 50", async () => {
      for (const first of [1, 5, 50]) {
        const { data, sql } = await counted<Page>(page, { first });
        expect(data.domains.edges).toHaveLength(first);
        expect(tables(sql)).toEqual(DOMAIN_PAGE_TABLES);
      }
    });

    it("totalCount costs no query once the snapshot's count index is loaded", async () => {
      const query = `query($first: Int) { domains(first: $first) { totalCount edges { node { ${DOMAIN_SELECTION} } } } }`;
      // The pages before loaded the index (src/db/count-index.ts): the total is counted on it, no COUNT.
      for (const first of [50, 49]) {
        const { data, sql } = await counted<Page & { domains: { totalCount: number } }>(query, { first });
        expect(data.domains.totalCount).toBe(64);
        expect(sql.filter((s) => /count\(\*\)/i.test(s))).toEqual([]);
        expect(tables(sql)).toEqual(DOMAIN_PAGE_TABLES);
      }
    });

    it("one Domain by name with the same selection: 1 query, 6 on a new snapshot", async () => {
      // domain(name) reads the Domain with its planned relations in one statement.
      const query = `{ domain(name: "shop-7.example.com") { ${DOMAIN_SELECTION} } }`;
      await newSnapshot();
      const first = await counted<{ domain: DomainNode }>(query);
      expect(first.data.domain).toEqual(SHOP_7);
      expect(tables(first.sql)).toEqual(cold(DOMAIN_TABLES));
      const { data, sql } = await counted<{ domain: DomainNode }>(query);
      expect(data.domain).toEqual(SHOP_7);
      expect(sql).toHaveLength(1);
      expect(tables(sql)).toEqual(DOMAIN_TABLES);
    });

    it("domainsByName with 20 names: 1 query, as with 2", async () => {
      const query = `query($names: [String!]!) { domainsByName(names: $names) {
        domains { ${DOMAIN_SELECTION} } notFound } }`;
      type ByName = { domainsByName: { domains: DomainNode[]; notFound: string[] } };
      // shop-0, shop-3, …, shop-57: one batched lookup for the 20 names.
      const names = Array.from({ length: 20 }, (_, i) => `shop-${3 * i}.example.com`);
      // The first reads the Apps and technologies of these Domains that no request has read yet.
      expect(tables((await counted<ByName>(query, { names })).sql)).toEqual(
        expect.arrayContaining(DOMAIN_TABLES),
      );
      const twenty = await counted<ByName>(query, { names });
      expect(twenty.data.domainsByName.domains.map((d) => d.name)).toEqual(names);
      expect(twenty.data.domainsByName.notFound).toEqual([]);
      expect(twenty.sql).toHaveLength(1);
      expect(tables(twenty.sql)).toEqual(DOMAIN_TABLES);

      const two = await counted<ByName>(query, { names: ["shop-7.example.com", "nowhere.example.com"] });
      expect(two.data.domainsByName).toEqual({ domains: [SHOP_7], notFound: ["nowhere.example.com"] });
      expect(tables(two.sql)).toEqual(DOMAIN_TABLES);
    });
  });

  describe("Apps", () => {
    type Page = {
      apps: { edges: { node: { name: string; categories: string[]; plans: { name: string }[] } }[] };
    };
    const page = (orderBy: string) =>
      `query($first: Int) { apps(first: $first${orderBy}) { edges { node { name categories plans { name } } } } }`;

    it("a page of 50 Apps with categories and plans: 1 query (app keys), as a page of 5; 5 on a new snapshot", async () => {
      // CREATED_AT is not nullable: the page is one keyset query (of keys), then the rows, their
      // categories and plans, kept per snapshot (sharedLoader).
      await newSnapshot();
      const first = await counted<Page>(page(", orderBy: [{ field: CREATED_AT }]"), { first: 50 });
      expect(tables(first.sql)).toEqual([
        "(catalogue)",
        "app",
        "app",
        "app_category",
        "app_plan",
        "snapshot_part",
      ]);
      for (const first of [5, 50]) {
        const { data, sql } = await counted<Page>(page(", orderBy: [{ field: CREATED_AT }]"), { first });
        // All 33 Apps fit in a page of 50.
        expect(data.apps.edges).toHaveLength(Math.min(first, 33));
        expect(tables(sql)).toEqual(["app"]);
      }
      const { data } = await counted<Page>(page(", orderBy: [{ field: CREATED_AT }]"), { first: 5 });
      // Oldest first: Old Reviews (2018), Klaviyo (2019), Woo SEO (2020-01-01), then the clones (2020-02-02).
      expect(data.apps.edges.slice(0, 3).map((e) => e.node)).toEqual([
        { name: "Old Reviews", categories: ["Reviews"], plans: [] },
        { name: "Klaviyo", categories: ["Email", "Marketing"], plans: [{ name: "Free" }, { name: "Pro" }] },
        { name: "Woo SEO", categories: [], plans: [{ name: "Yearly" }] },
      ]);
    });

    it("the default order (installs, nullable) reads the Apps in two phases when the first runs short", async () => {
      // installs is nullable, so a page reads the Apps with installs and, only if that does not
      // fill the page, those without (src/query/keyset.ts). 5 Apps: the first phase fills the
      // page, 1 query (keys; the rows, categories and plans are kept per snapshot). 50 Apps: the
      // first phase returns all 33, the second (installs IS NULL) finds none, 2 queries. The extra
      // query is per page, not per row.
      const five = await counted<Page>(page(""), { first: 5 });
      expect(five.data.apps.edges).toHaveLength(5);
      expect(tables(five.sql)).toEqual(["app"]);

      const fifty = await counted<Page>(page(""), { first: 50 });
      expect(fifty.data.apps.edges).toHaveLength(33);
      // Most installs first: Klaviyo is on 61 Active Domains.
      expect(fifty.data.apps.edges[0].node.name).toBe("Klaviyo");
      expect(tables(fifty.sql)).toEqual(["app", "app"]);
    });
  });

  describe("reviews", () => {
    const page = `query($first: Int) { app(platform: "shopify", token: "klaviyo") {
      reviews(first: $first) { edges { node { body domains { name domain { name } } app { name } } } } } }`;
    type Page = {
      app: {
        reviews: {
          edges: {
            node: {
              body: string;
              domains: { name: string; domain: { name: string } | null }[];
              app: { name: string };
            };
          }[];
        };
      };
    };
    // The App (by platform and token), its reviews' keys and rows, their domains and those
    // Domains. AppReview.app costs nothing: the App read by platform.token is primed into the
    // loader by pk.
    const REVIEW_TABLES = ["app", "app_review", "app_review", "app_review_domain", "domain"];

    it("an App's reviews page with domains and app: 5 queries for 5 and for 50 reviews", async () => {
      for (const first of [5, 50]) {
        const { data, sql } = await counted<Page>(page, { first });
        expect(data.app.reviews.edges).toHaveLength(first);
        expect(sql).toHaveLength(5);
        expect(tables(sql)).toEqual(REVIEW_TABLES);
      }
      const { data } = await counted<Page>(page, { first: 50 });
      const nodes = data.app.reviews.edges.map((e) => e.node);
      // Newest first: the fixture's two (2025), then the clones' (2024-01-01 + i hours), shop-59 first.
      expect(nodes.slice(0, 3)).toEqual([
        {
          body: "Support was slow.",
          domains: [{ name: "unknown-store.example.com", domain: null }],
          app: { name: "Klaviyo" },
        },
        {
          body: "Great app, doubled our email revenue.",
          domains: [{ name: "shop.example.com", domain: { name: "shop.example.com" } }],
          app: { name: "Klaviyo" },
        },
        {
          body: "Review 59",
          domains: [
            { name: "shop-59.example.com", domain: { name: "shop-59.example.com" } },
            { name: "gone-59.example.com", domain: null },
          ],
          app: { name: "Klaviyo" },
        },
      ]);
      expect(nodes[49].body).toBe("Review 12");
    });
  });
});
