import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Baseline, startBaseline } from "../../src/bench/baseline.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { type Fixture, type Json, writeSnapshotDir } from "../support/fixture.ts";
import { manyDomainsFixture } from "../support/fixture-graphql.ts";

// The raw-SQL baseline of the benchmark (src/bench/baseline.ts) answers its two paths with the
// very bytes the real REST API answers: same keys in the same order, same values.

const CLONES = 60;

/**
 * manyDomainsFixture with some variety among the clones, so that the three filters select
 * different sets: every 4th clone is in Canada, every 3rd lacks the feature Shopify POS, every
 * 5th has no theme, trustpilot or contact info, and some carry values that read differently per
 * database (keywords as one JSON string, timestamps with milliseconds).
 */
function fixture(): Fixture {
  const f = manyDomainsFixture(CLONES);
  for (const d of f.domains) {
    const m = /^shop-(\d+)\.example\.com$/.exec(d.name as string);
    if (!m) continue;
    const i = Number(m[1]);
    const clone: Json = d;
    if (i % 4 === 0) clone.country_code = "CA";
    if (i % 3 === 0) clone.features = ["Contact Page"];
    if (i % 5 === 0) {
      delete clone.theme;
      delete clone.trustpilot;
      delete clone.contact_info;
    }
    if (i % 5 === 1) clone.keywords = "tents, boots";
    if (i % 7 === 2) {
      clone.apps = (clone.apps as Json[]).map((a) =>
        a.token === "klaviyo" ? { ...a, installed_at: "2021-01-01T00:00:00.25Z" } : a,
      );
    }
  }
  return f;
}

const LIST = "/json/api/v1/all/domain";
const ONE = "/json/api/v1/all/domain/";

describe.each(databaseKinds())("raw-SQL baseline on %s", (kind) => {
  const tmp = tempDir("storegraph-baseline-");
  let api: TestApi;
  let baseline: Baseline;

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "snapshot"), fixture()));
    baseline = await startBaseline({ kind, config: api.db.config });
  });
  afterAll(async () => {
    await baseline?.close();
    await api?.close();
    tmp.remove();
  });

  /** Both answers to one path: status and body text. */
  async function both(path: string) {
    const real = await api.app.fetch(`http://localhost${path}`);
    const base = await fetch(`${baseline.url}${path}`, { headers: { authorization: "Bearer ignored" } });
    return {
      real: { status: real.status, text: await real.text() },
      base: { status: base.status, text: await base.text() },
    };
  }

  async function expectSame(path: string, status = 200) {
    const { real, base } = await both(path);
    // Each answer has an id of its own.
    const sameId = (text: string) => text.replace(/"request_id":"[^"]+"/, '"request_id":"…"');
    real.text = sameId(real.text);
    base.text = sameId(base.text);
    expect(real.status, real.text).toBe(status);
    expect(base.status, base.text).toBe(status);
    expect(JSON.parse(base.text)).toEqual(JSON.parse(real.text));
    // Byte for byte, key order included.
    expect(base.text).toBe(real.text);
    return JSON.parse(real.text) as Json;
  }

  const names = [
    "shop.example.com",
    "woo.example.org",
    "gone.example.net",
    "old-shop.example.com",
    "shop-0.example.com",
    "shop-7.example.com",
    "shop-45.example.com",
    "SHOP-3.Example.com.",
    "example-shop.myshopify.com",
  ];

  it.each(names)("retrieves %s with the default fields", async (name) => {
    const body = await expectSame(`${ONE}${encodeURIComponent(name)}`);
    expect(Object.keys(body.domain as Json).length).toBeGreaterThan(5);
  });

  it.each(names)("retrieves %s with fields=name,rank", async (name) => {
    const body = await expectSame(`${ONE}${encodeURIComponent(name)}?fields=name,rank`);
    expect(Object.keys(body.domain as Json)).toEqual(["name", "rank"]);
  });

  it("retrieves with fields in another order and with *", async () => {
    await expectSame(`${ONE}shop-1.example.com?fields=rank,apps,name`);
    await expectSame(`${ONE}shop-1.example.com?fields=technologies,*`);
  });

  it("answers 404 for an unknown Domain, as the API does", async () => {
    const body = await expectSame(`${ONE}nope.example.com`, 404);
    expect(body.code).toBe("NOT_FOUND");
  });

  const filters = {
    many: "f:cc=US&f:features=Contact%20Page&f:an=shopify.klaviyo",
    few: "f:cc=us&f:features=shopify%20pos&f:an=shopify.clone-app-1",
    uninstalled: "f:cc=US&f:features=Contact%20Page&f:an=shopify.old-reviews",
    noCountry: "f:cc=DE&f:features=Contact%20Page&f:an=shopify.klaviyo",
    unknownApp: "f:cc=US&f:features=Contact%20Page&f:an=shopify.no-such-app",
  };

  it.each(Object.entries(filters))("lists Domains (%s) with the default fields", async (_label, f) => {
    await expectSame(`${LIST}?${f}&sort=rank&page_size=50`);
  });

  it.each(Object.entries(filters))("lists Domains (%s) with fields=name,rank", async (_label, f) => {
    await expectSame(`${LIST}?${f}&sort=rank&page_size=50&fields=name,rank`);
  });

  it("matches several Domains, none, and a first page with a next page", async () => {
    const many = await expectSame(`${LIST}?${filters.many}&sort=rank&page_size=50`);
    // shop.example.com and the clones in the US: all but every 4th.
    expect((many.domains as Json[]).length).toBe(1 + CLONES - CLONES / 4);
    expect(many.has_next_page).toBe(false);
    const few = await expectSame(`${LIST}?${filters.few}&sort=rank&page_size=50&fields=name,rank`);
    expect(few.domains).toEqual([
      { name: "shop-1.example.com", rank: 101 },
      { name: "shop-31.example.com", rank: 131 },
    ]);
    const none = await expectSame(`${LIST}?${filters.uninstalled}&sort=rank&page_size=50`);
    expect(none).toEqual({ domains: [], has_next_page: false });

    // A short page: has_next_page and the very next_cursor of the API.
    for (const fields of ["", "&fields=name,rank"]) {
      const page = await expectSame(`${LIST}?${filters.many}&sort=rank&page_size=20${fields}`);
      expect(page.has_next_page).toBe(true);
      expect(typeof page.next_cursor).toBe("string");
      expect((page.domains as Json[]).length).toBe(20);
    }
    // The cursor works on the API (the baseline serves first pages only).
    const first = await expectSame(`${LIST}?${filters.many}&sort=rank&page_size=20`);
    const next = await api.app.fetch(
      `http://localhost${LIST}?${filters.many}&sort=rank&page_size=20&cursor=${first.next_cursor}`,
    );
    expect(next.status).toBe(200);
  });

  it("lists every Domain by rank, unfiltered, as the bench's pages of 1000 ask", async () => {
    const all = await expectSame(`${LIST}?page_size=1000`);
    expect((all.domains as Json[]).length).toBeGreaterThan(CLONES);
    expect(all.has_next_page).toBe(false);
    // A short page: the very next_cursor of the API.
    const page = await expectSame(`${LIST}?page_size=20`);
    expect(page.has_next_page).toBe(true);
    expect(typeof page.next_cursor).toBe("string");
  });

  it("refuses what it does not implement instead of answering something else", async () => {
    for (const path of [
      `${LIST}?${filters.many}&cursor=abc`,
      `${LIST}?${filters.many}&sort=-er`,
      `${LIST}?f:cc=US,CA&f:cc:op=or`,
      `${ONE}shop.example.com?fields=apps.name`,
      `${ONE}shop.example.com?follow_redirects=true`,
    ]) {
      const res = await fetch(`${baseline.url}${path}`);
      expect(res.status, path).toBe(400);
    }
  });
});
