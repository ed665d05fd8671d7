import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Culprits } from "../../src/dataset/load/culprits.ts";
import { jsonPrefix } from "../../src/dataset/load/json-prefix.ts";
import { LoadValidationError, MAX_LISTED, Problems } from "../../src/dataset/load/problems.ts";
import { openSnapshotStore } from "../../src/db/open-store.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { LoadInProgressError } from "../../src/db/store.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { tempDir, testLoadSteps } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { type Fixture, type Json, validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { openSnapshotClient } from "../support/prisma.ts";

const tmp = tempDir("storegraph-load-");
const scratch = tmp.dir;
afterAll(() => tmp.remove());
let dirs = 0;
const snapshotDir = (f: Fixture, gzip: (keyof Fixture)[] = []) =>
  writeSnapshotDir(join(scratch, `s${++dirs}`), f, gzip);

/** One rule broken per case: the mutation and the exact message the loader must print. */
const violations: [string, (f: Fixture) => void, string][] = [
  ["invalid JSON", () => {}, ""], // replaced below: written by hand
  [
    "null instead of absent",
    (f) => (f.apps[0].vendor_email = null),
    "apps.jsonl:1: vendor_email: is null; leave the field out when the value is unknown",
  ],
  [
    "unknown field",
    (f) => (f.domains[1].colour = "red"),
    "domains.jsonl:2: colour: is not a field of this record",
  ],
  ["missing required field", (f) => delete f.domains[1].rank, "domains.jsonl:2: rank: is required"],
  [
    "removed_at on an Active App",
    (f) => (f.apps[0].removed_at = "2024-01-01T00:00:00Z"),
    "apps.jsonl:1: removed_at: is set only for Inactive Apps",
  ],
  [
    "P1-only field on another platform's App",
    (f) => (f.apps[2].vendor_address = "x"),
    "apps.jsonl:3: vendor_address: is set only for shopify Apps",
  ],
  [
    "bad local time",
    (f) => (f.apps[0].created_at = "2019-01-02 03:04:05"),
    "apps.jsonl:1: created_at: must be a local time YYYY-MM-DDTHH:MM:SS (no zone)",
  ],
  [
    "impossible date",
    (f) => (f.domains[0].created_at = "2018-02-30"),
    "domains.jsonl:1: created_at: must be a date YYYY-MM-DD",
  ],
  [
    "unknown platform",
    (f) => (f.domains[1].platform = "nosuchshop"),
    "domains.jsonl:2: platform: must be a platform of src/dataset/platforms.txt",
  ],
  [
    "redirects_to on an Active Domain",
    (f) => (f.domains[1].redirects_to = ["shop.example.com"]),
    "domains.jsonl:2: redirects_to: is set only for Redirect Domains",
  ],
  [
    "Redirect without redirects_to",
    (f) => delete f.domains[3].redirects_to,
    "domains.jsonl:4: redirects_to: is required for Redirect Domains",
  ],
  [
    "inactive_at on an Active Domain",
    (f) => (f.domains[0].inactive_at = "2025-01-01"),
    "domains.jsonl:1: inactive_at: is set only for Inactive Domains",
  ],
  [
    "P1-only field on a woocommerce Domain",
    (f) => (f.domains[1].variant_count = 3),
    "domains.jsonl:2: variant_count: is set only for shopify Domains",
  ],
  [
    "city without administrative area",
    (f) => delete f.domains[0].administrative_area_level_1,
    "domains.jsonl:1: city: needs country_code and administrative_area_level_1",
  ],
  [
    "followers on an email contact",
    (f) => ((f.domains[0].contact_info as Json[])[0].followers = 5),
    "domains.jsonl:1: contact_info[0].followers: applies only to facebook, instagram, tiktok, pinterest",
  ],
  [
    "unknown feature",
    (f) => (f.domains[0].features = ["Teleportation"]),
    "domains.jsonl:1: features[0]: must be one of",
  ],
  [
    "App of another platform installed",
    (f) =>
      ((f.domains[1].apps as Json[])[0] = {
        id: "app-1",
        platform: "shopify",
        token: "klaviyo",
        name: "Klaviyo",
        installed_at: "2022-01-01T00:00:00Z",
      }),
    "domains.jsonl:2: apps[0].platform: is shopify, not the Domain's platform woocommerce",
  ],
  [
    "unknown installed App",
    (f) => ((f.domains[0].apps as Json[])[0].id = "app-404"),
    "domains.jsonl:1: apps[0].id: names no App of apps.jsonl",
  ],
  [
    "uninstalled before installed",
    (f) => ((f.domains[0].apps as Json[])[1].removed_at = "2018-01-01T00:00:00Z"),
    "domains.jsonl:1: apps[1].removed_at: is before installed_at",
  ],
  [
    "installs disagree with Active Domains",
    (f) => (f.apps[0].installs = 2),
    "apps.jsonl:1: installs: is 2 but 1 Active Domain has the App installed",
  ],
  [
    "duplicate Domain name",
    (f) =>
      Object.assign(f.domains[2], {
        name: "shop.example.com",
        tld1: "example.com",
        cluster_domains: ["shop.example.com"],
        cluster_best_ranked: "shop.example.com",
      }),
    "domains.jsonl:3: name: shop.example.com is also the Domain at line 1",
  ],
  [
    "duplicate rank",
    (f) => (f.domains[2].rank = 10),
    "domains.jsonl:3: rank: 10 is also the rank of shop.example.com (line 1)",
  ],
  [
    "percentile against rank order",
    (f) => (f.domains[2].rank_percentile = 99.95),
    "domains.jsonl:3: rank_percentile: is higher than that of the better-ranked woo.example.org (line 2)",
  ],
  [
    "platform rank against rank order",
    (f) => (f.domains[2].platform_rank = 5),
    "domains.jsonl:4: platform_rank: 3 does not follow the rank order of shopify Domains (gone.example.net (line 3) ranks better with platform_rank 5)",
  ],
  [
    "technology described two ways",
    (f) => ((f.domains[1].technologies as Json[])[0].vendor_url = "https://ga.example.com"),
    "domains.jsonl:2: technologies[0].vendor_url: differs from Google Analytics's vendor_url at domains.jsonl:1",
  ],
  [
    "technology installs miscounted",
    (f) => delete f.domains[1].technologies,
    "domains.jsonl:1: technologies: Google Analytics has installs 2 but 1 Domain lists it",
  ],
  [
    "review of a non-P1 App",
    (f) =>
      (f.reviews[0].app = {
        id: "app-3",
        name: "Woo SEO",
        app_store_url: "https://woocommerce.com/products/woo-seo",
        vendor_name: "Woo SEO Ltd",
      }),
    "reviews.jsonl:1: app.id: App app-3 is a woocommerce App; reviews exist only for shopify Apps",
  ],
  [
    "review app fields disagree",
    (f) => ((f.reviews[0].app as Json).name = "Klaviyo!"),
    "reviews.jsonl:1: app.name: is not the App's name (apps.jsonl:1)",
  ],
  [
    "review domain rank disagrees",
    (f) => ((f.reviews[0].domains as Json[])[0].platform_rank = 2),
    "reviews.jsonl:1: domains[0].platform_rank: is not shop.example.com's platform_rank (domains.jsonl:1)",
  ],
  [
    "more reviews than review_count",
    (f) => Object.assign(f.apps[0], { review_count: 1, reviews_30d: 1, reviews_90d: 1 }),
    "apps.jsonl:1: review_count: is 1 but reviews lists 2 reviews of the App",
  ],
  [
    "Domain without cluster_domains",
    (f) => delete f.domains[1].cluster_domains,
    "domains.jsonl:2: cluster_domains: is required",
  ],
  [
    "Domain without cluster_best_ranked",
    (f) => delete f.domains[1].cluster_best_ranked,
    "domains.jsonl:2: cluster_best_ranked: is required",
  ],
  [
    "cluster_domains without the Domain itself",
    (f) => (f.domains[1].cluster_domains = []),
    "domains.jsonl:2: cluster_domains: must list the Domain itself (woo.example.org)",
  ],
  [
    "cluster_domains repeating a name",
    (f) => (f.domains[1].cluster_domains = ["woo.example.org", "woo.example.org"]),
    "domains.jsonl:2: cluster_domains: must not repeat a value",
  ],
  [
    "cluster_best_ranked outside the cluster",
    (f) => (f.domains[1].cluster_best_ranked = "shop.example.com"),
    "domains.jsonl:2: cluster_best_ranked: is not one of cluster_domains",
  ],
  [
    "a member that lists another cluster",
    (f) => (f.domains[0].cluster_domains = ["shop.example.com", "woo.example.org"]),
    "domains.jsonl:1: cluster_domains: lists woo.example.org, whose cluster_domains (line 2) are woo.example.org",
  ],
  [
    "members naming different best-ranked Domains",
    (f) => {
      f.domains[1].cluster_domains = ["woo.example.org", "gone.example.net"];
      f.domains[2].cluster_domains = ["gone.example.net", "woo.example.org"];
      f.domains[2].cluster_best_ranked = "gone.example.net";
    },
    "domains.jsonl:3: cluster_best_ranked: is gone.example.net, but woo.example.org (line 2) names woo.example.org",
  ],
  [
    "cluster_best_ranked not the best-ranked member",
    (f) => {
      for (const d of [f.domains[0], f.domains[2]]) {
        d.cluster_domains = ["shop.example.com", "gone.example.net", "de.example.com"];
        d.cluster_best_ranked = "gone.example.net";
      }
    },
    "domains.jsonl:3: cluster_best_ranked: is gone.example.net (rank 30), but shop.example.com (line 1) ranks better (rank 10)",
  ],
  ["rating out of range", (f) => (f.reviews[1].rating = 6), "reviews.jsonl:2: rating: must be 1..5"],
  // Text that no database can hold alike (issue 33): refused in any string, keys included.
  [
    "NUL in a string",
    (f) => (f.domains[1].title = "Woo\u0000Shop"),
    "domains.jsonl:2: title: must not contain the NUL character (U+0000)",
  ],
  [
    "NUL in a nested string",
    (f) => ((f.domains[0].contact_info as Json[])[0].description = "\u0000"),
    "domains.jsonl:1: contact_info[0].description: must not contain the NUL character (U+0000)",
  ],
  [
    "NUL in an item of a list",
    (f) => (f.domains[0].keywords = ["tents", "bo\u0000ots"]),
    "domains.jsonl:1: keywords[1]: must not contain the NUL character (U+0000)",
  ],
  [
    "NUL in a key of a map",
    (f) => (f.domains[0].alternates = { "de\u0000DE": "de.example.com" }),
    'domains.jsonl:1: alternates: key "de\\u0000DE" must not contain the NUL character (U+0000)',
  ],
  [
    "NUL in an App field that the Domain's apps carry along unread",
    (f) => ((f.domains[0].apps as Json[])[0].vendor_name = "Klaviyo\u0000"),
    "domains.jsonl:1: apps[0].vendor_name: must not contain the NUL character (U+0000)",
  ],
  [
    "an unpaired high surrogate",
    (f) => (f.apps[0].name = "Klaviyo \ud800"),
    "apps.jsonl:1: name: must be valid Unicode text; it has an unpaired surrogate (U+D800)",
  ],
  [
    "an unpaired low surrogate",
    (f) => (f.reviews[1].body = "\udfffSupport was slow."),
    "reviews.jsonl:2: body: must be valid Unicode text; it has an unpaired surrogate (U+DFFF)",
  ],
  [
    "an unpaired surrogate in a key of a map",
    (f) => (f.domains[0].alternates = { "\udc00": "de.example.com" }),
    'domains.jsonl:1: alternates: key "\\udc00" must be valid Unicode text; it has an unpaired surrogate (U+DC00)',
  ],
];

/**
 * One record that fails, and every problem the load reports, in order: the record's own problems
 * first, then the cross-record problems that follow from it, each naming the line it follows from.
 */
const followOns: [string, (f: Fixture) => void, string[]][] = [
  [
    "a Domain that fails its own checks",
    (f) => (f.domains[1].platform = "nosuchshop"),
    [
      "domains.jsonl:2: platform: must be a platform of src/dataset/platforms.txt",
      "domains.jsonl:2: apps[0].platform: is woocommerce, not the Domain's platform nosuchshop",
      "apps.jsonl:3: installs: is 1 but 0 Active Domains have the App installed (follows from domains.jsonl:2)",
      "domains.jsonl:1: technologies: Google Analytics has installs 2 but 1 Domain lists it (follows from domains.jsonl:2)",
    ],
  ],
  [
    "a Domain whose installed App fails a check (the issue's case: follow-ons at higher lines too)",
    (f) => ((f.domains[0].apps as Json[])[1].removed_at = "2018-01-01T00:00:00Z"),
    [
      "domains.jsonl:1: apps[1].removed_at: is before installed_at",
      "apps.jsonl:1: installs: is 1 but 0 Active Domains have the App installed (follows from domains.jsonl:1)",
      "domains.jsonl:2: technologies: Google Analytics has installs 2 but 1 Domain lists it (follows from domains.jsonl:1)",
    ],
  ],
  [
    "a Domain whose installed App is named as another App",
    (f) => ((f.domains[0].apps as Json[])[0].token = "klaviyo-two"),
    [
      "domains.jsonl:1: apps[0]: is shopify.klaviyo-two but App app-1 is shopify.klaviyo (apps.jsonl:1)",
      "apps.jsonl:1: installs: is 1 but 0 Active Domains have the App installed (follows from domains.jsonl:1)",
    ],
  ],
  [
    "a Domain dropped as a duplicate name",
    (f) =>
      Object.assign(f.domains[1], {
        name: "shop.example.com",
        tld1: "example.com",
        // The same cluster as the Domain it repeats, so that the repeat is its only problem.
        cluster_domains: f.domains[0].cluster_domains,
        cluster_best_ranked: f.domains[0].cluster_best_ranked,
      }),
    [
      "domains.jsonl:2: name: shop.example.com is also the Domain at line 1",
      "apps.jsonl:3: installs: is 1 but 0 Active Domains have the App installed (follows from domains.jsonl:2)",
      "domains.jsonl:1: technologies: Google Analytics has installs 2 but 1 Domain lists it (follows from domains.jsonl:2)",
    ],
  ],
  [
    "a Domain whose title holds NUL (refused like any other bad value)",
    (f) => (f.domains[1].title = "Woo\u0000Shop"),
    [
      "domains.jsonl:2: title: must not contain the NUL character (U+0000)",
      "apps.jsonl:3: installs: is 1 but 0 Active Domains have the App installed (follows from domains.jsonl:2)",
      "domains.jsonl:1: technologies: Google Analytics has installs 2 but 1 Domain lists it (follows from domains.jsonl:2)",
    ],
  ],
  [
    "an App that fails its own checks",
    (f) => (f.apps[0].vendor_email = null),
    [
      "apps.jsonl:1: vendor_email: is null; leave the field out when the value is unknown",
      "domains.jsonl:1: apps[0].id: names no App of apps.jsonl (follows from apps.jsonl:1)",
      "domains.jsonl:3: apps[0].id: names no App of apps.jsonl (follows from apps.jsonl:1)",
      "reviews.jsonl:1: app.id: names no App of apps.jsonl (follows from apps.jsonl:1)",
      "reviews.jsonl:2: app.id: names no App of apps.jsonl (follows from apps.jsonl:1)",
    ],
  ],
  [
    "an App dropped as a duplicate token",
    (f) => (f.apps[1].token = "klaviyo"),
    [
      "apps.jsonl:2: token: shopify.klaviyo is also the App at line 1",
      "domains.jsonl:1: apps[1].id: names no App of apps.jsonl (follows from apps.jsonl:2)",
    ],
  ],
  [
    "two Domains that fail, both listing one technology",
    (f) => {
      const ga = { ...(f.domains[0].technologies as Json[])[0], installs: 4 };
      for (const d of f.domains) d.technologies = [ga];
      f.domains[1].platform = "nosuchshop";
      f.domains[3].inactive_at = "2025-01-01";
    },
    [
      "domains.jsonl:2: platform: must be a platform of src/dataset/platforms.txt",
      "domains.jsonl:2: apps[0].platform: is woocommerce, not the Domain's platform nosuchshop",
      "domains.jsonl:4: inactive_at: is set only for Inactive Domains",
      "apps.jsonl:3: installs: is 1 but 0 Active Domains have the App installed (follows from domains.jsonl:2)",
      "domains.jsonl:1: technologies: Google Analytics has installs 4 but 2 Domains list it (follows from domains.jsonl:2, domains.jsonl:4)",
    ],
  ],
  [
    "a failed Domain beside cross-record problems it cannot explain (those stay the records' own)",
    (f) => {
      f.domains[1].platform = "nosuchshop";
      f.apps[0].installs = 5;
      for (const d of f.domains.slice(0, 2)) (d.technologies as Json[])[0].installs = 9;
    },
    [
      "apps.jsonl:1: installs: is 5 but 1 Active Domain has the App installed",
      "domains.jsonl:1: technologies: Google Analytics has installs 9 but 1 Domain lists it",
      "domains.jsonl:2: platform: must be a platform of src/dataset/platforms.txt",
      "domains.jsonl:2: apps[0].platform: is woocommerce, not the Domain's platform nosuchshop",
      "apps.jsonl:3: installs: is 1 but 0 Active Domains have the App installed (follows from domains.jsonl:2)",
    ],
  ],
];

/**
 * One line that is not JSON, and every problem the load reports, in order: like a record that
 * fails its checks, its problem comes first and what its absence causes follows from it, as far
 * as the keys it names can be read from the JSON before the break.
 */
const brokenLines: [string, keyof Fixture, number, (text: string) => string, (string | RegExp)[]][] = [
  [
    "a Domain line cut short of its closing brace",
    "domains",
    1,
    (text) => text.slice(0, -1),
    [
      /^domains\.jsonl:2: \(record\): is not valid JSON: /,
      "apps.jsonl:3: installs: is 1 but 0 Active Domains have the App installed (follows from domains.jsonl:2)",
      "domains.jsonl:1: technologies: Google Analytics has installs 2 but 1 Domain lists it (follows from domains.jsonl:2)",
    ],
  ],
  [
    "an App line broken just after its id",
    "apps",
    0,
    (text) => text.replace('"app-1",', '"app-1",,'),
    [
      /^apps\.jsonl:1: \(record\): is not valid JSON: /,
      "domains.jsonl:1: apps[0].id: names no App of apps.jsonl (follows from apps.jsonl:1)",
      "domains.jsonl:3: apps[0].id: names no App of apps.jsonl (follows from apps.jsonl:1)",
      "reviews.jsonl:1: app.id: names no App of apps.jsonl (follows from apps.jsonl:1)",
      "reviews.jsonl:2: app.id: names no App of apps.jsonl (follows from apps.jsonl:1)",
    ],
  ],
];

describe("jsonPrefix (what a line that is not JSON holds before it breaks)", () => {
  it.each([
    ["a stray comma", '{"id": "app-1",, "token": "x"}', { id: "app-1" }],
    ["open containers, kept with what they hold", '{"a": [1, {"b": "c"', { a: [1, { b: "c" }] }],
    ["a string cut short, left out", '{"a": 1, "b": "cu', { a: 1 }],
    ["a number that ends the text, left out", '{"a": "x", "n": 12', { a: "x" }],
    ["a bad escape, left out", '{"a": "\\q", "b": 1}', {}],
    ["nothing JSON at all", "<html>", undefined],
    ["more nesting than the call stack", "[".repeat(1_000_000), undefined],
  ])("%s", (_name, text, expected) => {
    expect(jsonPrefix(text)).toEqual(expected);
  });

  it("keeps a __proto__ key as a member, as JSON.parse does", () => {
    const v = jsonPrefix('{"__proto__": {"id": "x"}, "b": tru') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(["__proto__"]);
  });
});

describe("Culprits (what failed records named, to attribute follow-on problems)", () => {
  it("remembers a bounded number of keys, and a few lines of each for citing", () => {
    const c = new Culprits(2);
    c.app("app-1", 1);
    c.uncounted("app-2", 2);
    c.unlisted("Google Analytics", 3); // over the limit: not remembered
    c.uncounted("app-2", 5); // a key already remembered still counts
    c.uncounted("app-2", 6);
    c.uncounted("app-2", 7);
    expect(c.ofApp("app-1")).toBe(1);
    expect(c.ofApp("app-9")).toBeUndefined();
    expect(c.ofInstalls("app-2")).toEqual({ count: 4, lines: [2, 5, 6] });
    expect(c.ofTechnology("Google Analytics")).toEqual({ count: 0, lines: [] });
    expect(c.size).toBe(2);
  });
});

describe("Problems", () => {
  it("keeps a record's own problems over follow-ons when the list is full, and counts them all", () => {
    const p = new Problems();
    const follows = { file: "domains.jsonl", lines: [9], more: 0 };
    for (let i = 1; i <= MAX_LISTED; i++) p.add("apps.jsonl", i, "installs: is 1 but 0", follows);
    p.add("domains.jsonl", 9, "platform: must be a platform");
    const lines = p.lines();
    expect(lines).toHaveLength(MAX_LISTED);
    expect(lines[0]).toBe("domains.jsonl:9: platform: must be a platform");
    expect(lines[1]).toBe("apps.jsonl:1: installs: is 1 but 0 (follows from domains.jsonl:9)");
    expect(p.summary()).toBe(
      `${MAX_LISTED + 1} problems found, ${MAX_LISTED} of which follow from others (listed last); ${MAX_LISTED} are listed`,
    );
  });
});

describe.each(databaseKinds())("loading snapshots on %s", (kind) => {
  let db: TestDatabase;
  let store: SnapshotStore;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    store = await openSnapshotStore(db.config);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("serves nothing before the first load", async () => {
    expect(await store.current()).toBeNull();
  });

  it("loads a valid snapshot (gzip too) and round-trips its values through Prisma", async () => {
    // Through the worker-thread path (small inputs otherwise load in process, as the rest here do).
    const r = await loadSnapshot(store, snapshotDir(validFixture(), ["domains"]), {
      ...testLoadSteps(db.config, store),
      keep: 1,
      workers: 2,
    });
    expect(r).toMatchObject({ version: 1, apps: 3, domains: 4, reviews: 2 });
    const current = await store.current();
    expect(current).toMatchObject({ version: 1, status: "ready", domains: 4 });
    const prisma = openSnapshotClient(db.config, current ?? { location: "" });
    try {
      const shop = await prisma.domain.findUniqueOrThrow({
        where: { name: "shop.example.com" },
        include: {
          apps: { include: { app: true } },
          technologies: { include: { technology: true } },
          contacts: true,
          features: true,
          shipsTo: true,
        },
      });
      expect(shop.createdAt.toISOString()).toBe("2018-03-02T00:00:00.000Z");
      expect(shop.createdWeek.toISOString()).toBe("2018-03-02T00:00:00.000Z"); // a Friday
      expect(shop.estimatedSales).toBe(350_000_000_000n);
      expect(shop.estimatedPageViews).toBe(12_000_000_000n);
      expect(shop.alternates).toEqual({ "de-DE": "de.example.com" });
      expect(shop.keywords).toEqual(["tents", "boots"]);
      expect(shop.mostRecentlyPublishedProduct).toMatchObject({ product_id: 7_000_000_001 });
      expect(shop.themeCost).toBe(18000);
      expect(shop.apps.map((a) => [a.app.token, a.removedAt?.toISOString() ?? null]).sort()).toEqual([
        ["klaviyo", null],
        ["old-reviews", "2023-01-01T00:00:00.000Z"],
      ]);
      expect(shop.technologies[0].technology).toMatchObject({
        name: "Google Analytics",
        installs: 2,
        categories: ["Analytics"],
      });
      expect(shop.contacts.map((c) => c.type)).toEqual(["email", "instagram"]);
      expect(shop.shipsTo.map((s) => s.countryCode).sort()).toEqual(["CA", "US"]);
      const woo = await prisma.domain.findUniqueOrThrow({
        where: { name: "woo.example.org" },
        include: { technologies: true },
      });
      expect(woo.technologies[0].installedAt.toISOString()).toBe("2021-05-05T10:00:00.000Z");
      expect(woo.languageCode).toBe("");
      const app = await prisma.app.findUniqueOrThrow({
        where: { id: "app-1" },
        include: { plans: true, integratesWith: true, installsSeries: true },
      });
      expect(app.createdAt.toISOString()).toBe("2019-01-02T03:04:05.000Z");
      expect(app.averageRatingSort).toBe(4.6);
      expect(app.integratesWith.map((i) => i.value)).toEqual(["  Shopify Flow\n", "Zapier"]);
      expect(app.plans.map((p) => p.monthlyCostCents)).toEqual([null, 2000]);
      const reviews = await prisma.appReview.findMany({ include: { domains: true }, orderBy: { pk: "asc" } });
      expect(reviews.map((r) => r.domains[0].domainPk)).toEqual([shop.pk, null]);
      expect((await prisma.snapshotInfo.findFirstOrThrow()).version).toBe(1);
    } finally {
      await prisma.$disconnect();
    }
  });

  it.each(violations.slice(1))(
    "rejects %s with a line-numbered message and changes nothing",
    async (_name, mutate, message) => {
      const f = validFixture();
      mutate(f);
      const err = await loadSnapshot(store, snapshotDir(f), {
        ...testLoadSteps(db.config, store),
        keep: 1,
      }).catch((e) => e);
      expect(err).toBeInstanceOf(LoadValidationError);
      expect((err as LoadValidationError).problems.lines().join("\n")).toContain(message);
      expect((await store.current())?.version).toBe(1);
      await expectNoLeftoverCopies(db, store);
    },
  );

  it("rejects invalid JSON and lists every problem, not only the first", async () => {
    const dir = snapshotDir(validFixture());
    const f = validFixture();
    f.apps[0].removed_at = "2024-01-01T00:00:00Z";
    f.domains[1].platform = "nosuchshop";
    writeSnapshotDir(dir, f);
    writeFileSync(join(dir, "reviews.jsonl"), '{"updated_at": \n');
    const err = (await loadSnapshot(store, dir, { ...testLoadSteps(db.config, store), keep: 1 }).catch(
      (e) => e,
    )) as LoadValidationError;
    const lines = err.problems.lines();
    expect(lines[0]).toBe("apps.jsonl:1: removed_at: is set only for Inactive Apps");
    expect(lines).toContain("domains.jsonl:2: platform: must be a platform of src/dataset/platforms.txt");
    expect(lines.some((l) => l.startsWith("reviews.jsonl:1: (record): is not valid JSON"))).toBe(true);
    expect((await store.current())?.version).toBe(1);
  });

  it.each(followOns)(
    "reports %s first, then the problems that follow from it",
    async (_name, mutate, expected) => {
      const f = validFixture();
      mutate(f);
      const err = await loadSnapshot(store, snapshotDir(f), {
        ...testLoadSteps(db.config, store),
        keep: 1,
      }).catch((e) => e);
      expect(err).toBeInstanceOf(LoadValidationError);
      expect((err as LoadValidationError).problems.lines()).toEqual(expected);
      expect((await store.current())?.version).toBe(1);
    },
  );

  it.each(brokenLines)(
    "reports %s first, then the problems that follow from it",
    async (_name, file, index, breakLine, expected) => {
      const f = validFixture();
      const dir = snapshotDir(f);
      const lines = f[file].map((r) => JSON.stringify(r));
      lines[index] = breakLine(lines[index]);
      writeFileSync(join(dir, `${file}.jsonl`), `${lines.join("\n")}\n`);
      const err = await loadSnapshot(store, dir, { ...testLoadSteps(db.config, store), keep: 1 }).catch(
        (e) => e,
      );
      expect(err).toBeInstanceOf(LoadValidationError);
      expect((err as LoadValidationError).problems.lines()).toEqual(
        expected.map((e) => (typeof e === "string" ? e : expect.stringMatching(e))),
      );
      expect((await store.current())?.version).toBe(1);
    },
  );

  it("refuses text in worker threads as in process: NUL and an unpaired surrogate", async () => {
    const f = validFixture();
    f.domains[1].title = "Woo\u0000Shop";
    f.reviews[0].merchant_name = "Example \udbff";
    const err = await loadSnapshot(store, snapshotDir(f), {
      ...testLoadSteps(db.config, store),
      keep: 1,
      workers: 2,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(LoadValidationError);
    expect((err as LoadValidationError).problems.lines().slice(0, 2)).toEqual([
      "domains.jsonl:2: title: must not contain the NUL character (U+0000)",
      "reviews.jsonl:1: merchant_name: must be valid Unicode text; it has an unpaired surrogate (U+DBFF)",
    ]);
    expect((await store.current())?.version).toBe(1);
    await expectNoLeftoverCopies(db, store);
  });

  it("says how many problems follow from others, also when worker threads check the lines", async () => {
    const [, mutate, expected] = followOns[0];
    const f = validFixture();
    mutate(f);
    const err = await loadSnapshot(store, snapshotDir(f), {
      ...testLoadSteps(db.config, store),
      keep: 1,
      workers: 2,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(LoadValidationError);
    expect((err as LoadValidationError).problems.lines()).toEqual(expected);
    expect((err as Error).message).toBe(
      `the snapshot was not loaded: 4 problems found, 2 of which follow from others (listed last)\n${expected.join("\n")}`,
    );
    const failed = (await store.list()).at(-1);
    expect(failed?.status).toBe("failed");
  });

  it("names missing files and leaves the served snapshot", async () => {
    const dir = mkdtempSync(join(scratch, "empty-"));
    await expect(loadSnapshot(store, dir, { ...testLoadSteps(db.config, store), keep: 1 })).rejects.toThrow(
      /apps\.jsonl \(or apps\.jsonl\.gz\) is missing/,
    );
    expect((await store.current())?.version).toBe(1);
  });

  it("a load stopped while it writes its Parquet files publishes nothing and leaves no files behind", async () => {
    const controller = new AbortController();
    const load = loadSnapshot(store, snapshotDir(validFixture()), {
      ...testLoadSteps(db.config, store),
      keep: 1,
      signal: controller.signal,
      // Stopped as the files step starts its DuckDB process (or, on a fast machine, as it ends).
      onStep: (r) => {
        if (r.step === "render") setTimeout(() => controller.abort(), 200);
      },
    });
    await expect(load).rejects.toThrow();
    expect((await store.current())?.version).toBe(1);
    expect((await store.list()).at(-1)?.status).toBe("failed");
    await expectNoLeftoverCopies(db, store);
    expect(readdirSync(db.config.dataDir).filter((n) => n.startsWith(".files-"))).toEqual([]);
  });

  it("an interrupted load leaves the served snapshot and is cleaned up", async () => {
    const controller = new AbortController();
    const load = loadSnapshot(store, snapshotDir(validFixture()), {
      ...testLoadSteps(db.config, store),
      keep: 1,
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    await expect(load).rejects.toThrow();
    expect((await store.current())?.version).toBe(1);
    const last = (await store.list()).at(-1);
    expect(last?.status).toBe("failed");
    await expectNoLeftoverCopies(db, store);
  });

  it("allows one load at a time", async () => {
    const release = await store.lockForLoad();
    try {
      await expect(
        loadSnapshot(store, snapshotDir(validFixture()), { ...testLoadSteps(db.config, store), keep: 1 }),
      ).rejects.toBeInstanceOf(LoadInProgressError);
    } finally {
      await release();
    }
  });

  it("a new load replaces the served snapshot and retires copies beyond `keep`", async () => {
    const f = validFixture();
    f.domains[1].title = "Version two";
    const a = await loadSnapshot(store, snapshotDir(f), { ...testLoadSteps(db.config, store), keep: 1 });
    // Named relative to the working directory, as `npm run load -- bench/out/…` names it: the files
    // step's links to the Apps' and reviews' lines must not dangle.
    const b = await loadSnapshot(store, relative(process.cwd(), snapshotDir(f)), {
      ...testLoadSteps(db.config, store),
      keep: 1,
    });
    expect(b.version).toBeGreaterThan(a.version);
    const rows = await store.list();
    expect(rows.filter((r) => r.status === "ready").map((r) => r.version)).toEqual([a.version, b.version]);
    expect(rows.find((r) => r.version === 1)?.status).toBe("retired");
    expect((await store.current())?.version).toBe(b.version);
    await expectNoLeftoverCopies(db, store);
  });

  it("publishes nothing when the change feed moved after the load numbered its events for its files", async () => {
    const served = await store.current();
    const [{ n: events }] = await store.metaQuery("SELECT count(*) AS n FROM {meta}.change_event");
    // The store as it is, but for a publish told the feed ended one event earlier than it does.
    const moved = Object.create(store) as SnapshotStore;
    moved.publish = (version, counts, options) =>
      store.publish(version, counts, {
        ...options,
        feedTail: options.feedTail && { ...options.feedTail, lastPos: options.feedTail.lastPos - 1 },
      });
    const f = validFixture();
    f.domains[0].title = "Moved";
    await expect(
      loadSnapshot(moved, snapshotDir(f), { ...testLoadSteps(db.config, store), keep: 1 }),
    ).rejects.toThrow(/the change feed moved during the load/);
    expect((await store.current())?.version).toBe(served?.version);
    const [{ n: after }] = await store.metaQuery("SELECT count(*) AS n FROM {meta}.change_event");
    expect(Number(after)).toBe(Number(events));
    expect((await store.list()).at(-1)?.status).toBe("failed");
  });

  it("loads text that only looks like NUL or a surrogate: escaped backslashes, surrogate pairs", async () => {
    const f = validFixture();
    // In the file: a pair of surrogate escapes, a pair as is, and backslashes escaped before "u".
    const title = "Tents \u{1F3D5} \u{1F3D5} \\u0000 \\ud800 \\\u00e9";
    f.domains[1].title = title;
    f.domains[1].description = "\u{10FFFF}";
    const dir = snapshotDir(f);
    const file = join(dir, "domains.jsonl");
    writeFileSync(file, readFileSync(file, "utf8").replace("\u{1F3D5}", "\\ud83c\\udfd5"));
    expect(readFileSync(file, "utf8")).toContain('"title":"Tents \\ud83c\\udfd5 \u{1F3D5} \\\\u0000');
    const r = await loadSnapshot(store, dir, { ...testLoadSteps(db.config, store), keep: 1 });
    const current = await store.current();
    expect(current?.version).toBe(r.version);
    const prisma = openSnapshotClient(db.config, current ?? { location: "" });
    try {
      const woo = await prisma.domain.findUniqueOrThrow({ where: { name: "woo.example.org" } });
      expect([woo.title, woo.description]).toEqual([title, "\u{10FFFF}"]);
    } finally {
      await prisma.$disconnect();
    }
  });

  if (kind === "postgresql") {
    it("leaves the loaded tables vacuumed: every page all-visible, for index-only scans", async () => {
      await loadSnapshot(store, snapshotDir(validFixture(), ["domains"]), {
        ...testLoadSteps(db.config, store),
        keep: 1,
      });
      const current = await store.current();
      const database = db.config.database;
      if (database.kind !== "postgresql") throw new Error("a PostgreSQL test on another database");
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ relname: string; relpages: number; relallvisible: number }>(
          `SELECT c.relname, c.relpages, c.relallvisible FROM pg_class c
             JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND c.relkind = 'r'`,
          [current?.location],
        );
        const domain = rows.find((r) => r.relname === "domain");
        expect(domain?.relpages).toBeGreaterThan(0);
        for (const r of rows) expect(r.relallvisible, r.relname).toBe(r.relpages);
      } finally {
        await client.end();
      }
    });
  }
});

/** Only ready snapshots have a copy (file or schema); failed and retired ones are gone. */
async function expectNoLeftoverCopies(db: TestDatabase, store: SnapshotStore): Promise<void> {
  const ready = (await store.list()).filter((r) => r.status === "ready").map((r) => r.location);
  if (db.config.database.kind === "sqlite") {
    const dir = join(db.config.dataDir, "snapshots");
    const files = existsSync(dir) ? readdirSync(dir).map((f) => `snapshots/${f}`) : [];
    expect(files.sort()).toEqual(ready.sort());
    return;
  }
  const client = new pg.Client({ connectionString: db.config.database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'storegraph_snapshot_%'",
    );
    expect(rows.map((r) => r.nspname).sort()).toEqual(ready.sort());
  } finally {
    await client.end();
  }
}
