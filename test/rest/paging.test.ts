import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import type { DomainRecord } from "../../src/dataset/record.ts";
import { type Oracle, oracleOf } from "../graphql/oracle.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

// List Domains (docs/api.md 4.7, docs/decisions.md "List Domains") paged to the end with next_cursor over a
// generated dataset, against the reference implementation of test/graphql/oracle.ts: every
// matching Domain exactly once, in the oracle's order, through GET and POST (with aq); cursors of
// another query are refused, cursors of an older snapshot expire (410).

const BASE = "http://localhost/json/api/v1/all/domain";
const PAGE_SIZE = 100;

const scratch = tempDir("storegraph-rest-paging-");
const dirA = join(scratch.dir, "a");
const dirB = join(scratch.dir, "b");
let oracle: Oracle;
let oracleB: Oracle;
let domains: DomainRecord[];

/** Distinct values of a Domain attribute, most frequent first. */
function ranked(values: (d: DomainRecord) => string | undefined): string[] {
  const counts = new Map<string, number>();
  for (const d of domains) {
    const v = values(d);
    if (v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([v]) => v);
}

beforeAll(async () => {
  await generateDataset({ domains: 3000, apps: 100, seed: 4711, outDir: dirA });
  // The "next weekly update": another, smaller dataset.
  await generateDataset({ domains: 400, apps: 40, seed: 4712, outDir: dirB });
  oracle = oracleOf(dirA);
  oracleB = oracleOf(dirB);
  domains = [...oracle.domains];
});

afterAll(() => scratch.remove());

interface Page {
  domains: Record<string, unknown>[];
  has_next_page: boolean;
  next_cursor?: string;
}

const query = (params: Record<string, string>) => `${BASE}?${new URLSearchParams(params)}`;

describe.each(databaseKinds())("List Domains paging (%s)", (kind) => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi(kind, dirA);
  });

  afterAll(async () => {
    await api?.close();
  });

  // api.app.fetch sends the harness's API key.
  const get = async (params: Record<string, string>) => api.app.fetch(query(params));
  const post = async (body: Record<string, unknown>) =>
    api.app.fetch(BASE, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  /**
   * Follows next_cursor from the first page to the last, checking the envelope of every page;
   * returns every page's body.
   */
  async function pageThrough(request: (cursor: string | undefined) => Promise<Response>): Promise<Page[]> {
    const pages: Page[] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await request(cursor);
      const body = (await res.json()) as Page;
      expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
      expect(Array.isArray(body.domains)).toBe(true);
      expect(typeof body.has_next_page).toBe("boolean");
      pages.push(body);
      if (!body.has_next_page) break;
      expect(body.domains).toHaveLength(PAGE_SIZE);
      expect(typeof body.next_cursor).toBe("string");
      expect(body.next_cursor).not.toBe(cursor);
      cursor = body.next_cursor;
      if (pages.length > 200)
        throw new Error("more pages than the data can fill: the cursor does not advance");
    }
    const last = pages[pages.length - 1];
    expect(last.has_next_page).toBe(false);
    expect(Object.hasOwn(last, "next_cursor")).toBe(false);
    expect(last.domains.length).toBeLessThanOrEqual(PAGE_SIZE);
    return pages;
  }

  const namesOf = (pages: Page[]) => pages.flatMap((p) => p.domains.map((d) => d.name as string));

  function expectExactly(names: string[], expected: string[]) {
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBe(expected.length);
    expect(names).toEqual(expected);
  }

  it("pages a filtered result with next_cursor: every Domain once, in rank order", async () => {
    const countries = ranked((d) => d.country_code).slice(0, 3);
    const expected = oracle.domainNames({ filter: { countryCode: { values: countries, op: "OR" } } });
    expect(expected.length).toBeGreaterThanOrEqual(800);

    const pages = await pageThrough((cursor) =>
      get({
        "f:cc": countries.join(","),
        "f:cc:op": "or",
        page_size: String(PAGE_SIZE),
        ...(cursor ? { cursor } : {}),
      }),
    );
    expect(pages.length).toBe(Math.ceil(expected.length / PAGE_SIZE));
    expectExactly(namesOf(pages), expected);
    // Default fields: the whole Domain, here its country and rank among them.
    const byName = new Map(domains.map((d) => [d.name, d]));
    for (const d of pages.flatMap((p) => p.domains)) {
      expect(countries).toContain(d.country_code);
      expect(d.rank).toBe(byName.get(d.name as string)?.rank);
    }
  });

  it.each([
    ["-er", [{ field: "ESTIMATED_SALES", direction: "DESC" }]],
    ["er", [{ field: "ESTIMATED_SALES", direction: "ASC" }]],
    ["-last_plan_change_at,name", [{ field: "LAST_PLAN_CHANGE_AT", direction: "DESC" }, { field: "NAME" }]],
  ] as const)("pages with the nullable sort %s and fields=name,rank", async (sort, orderBy) => {
    const platform = ranked((d) => d.platform)[0];
    const expected = oracle.domainNames({
      filter: { platform: { values: [platform] } },
      orderBy: [...orderBy],
    });
    expect(expected.length).toBeGreaterThanOrEqual(800);
    // The sort key is unknown for some of them: they come last, and must not be lost or repeated.
    const firstKey = orderBy[0].field === "ESTIMATED_SALES" ? "estimated_sales" : "last_plan_change_at";
    const unknown = domains.filter((d) => d.platform === platform && d[firstKey] === undefined).length;
    expect(unknown).toBeGreaterThan(0);

    const pages = await pageThrough((cursor) =>
      get({
        "f:p": platform,
        sort,
        fields: "name,rank",
        page_size: String(PAGE_SIZE),
        ...(cursor ? { cursor } : {}),
      }),
    );
    for (const d of pages.flatMap((p) => p.domains)) expect(Object.keys(d).sort()).toEqual(["name", "rank"]);
    expectExactly(namesOf(pages), expected);
  });

  it("pages through POST /domain with the options as a JSON body", async () => {
    const platform = ranked((d) => d.platform)[0];
    const expected = oracle.domainNames({
      filter: { platform: { values: [platform] } },
      orderBy: [{ field: "ESTIMATED_SALES", direction: "DESC" }],
    });
    const pages = await pageThrough((cursor) =>
      post({
        "f:p": platform,
        sort: "-er",
        fields: "name,rank",
        page_size: PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
      }),
    );
    for (const d of pages.flatMap((p) => p.domains)) expect(Object.keys(d).sort()).toEqual(["name", "rank"]);
    expectExactly(namesOf(pages), expected);
  });

  it("pages through POST /domain with aq", async () => {
    const platform = ranked((d) => d.platform)[0];
    const countries = ranked((d) => d.country_code).slice(0, 4);
    const expected = oracle.domainNames({
      filter: {
        and: [
          { platform: { values: [platform] } },
          { countryCode: { values: countries, op: "OR" } },
          { state: { values: ["Inactive", "Password Protected"], op: "NOT" } },
        ],
      },
    });
    expect(expected.length).toBeGreaterThan(3 * PAGE_SIZE);
    expect(expected.length).toBeLessThan(
      oracle.domainNames({ filter: { platform: { values: [platform] } } }).length,
    );

    const pages = await pageThrough((cursor) =>
      post({
        aq: [
          { field: "p", value: platform },
          { field: "cc", value: countries.join(","), operator: "or" },
          { field: "ds", value: "Inactive,Password Protected", operator: "nor" },
        ],
        fields: "name,rank,state",
        page_size: PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
      }),
    );
    for (const d of pages.flatMap((p) => p.domains)) {
      expect(Object.keys(d).sort()).toEqual(["name", "rank", "state"]);
      expect(["Inactive", "Password Protected"]).not.toContain(d.state);
    }
    expectExactly(namesOf(pages), expected);
  });

  it("refuses a cursor used with another filter, sort or search (400)", async () => {
    const platform = ranked((d) => d.platform)[0];
    const other = ranked((d) => d.platform)[1];
    const options = { "f:p": platform, page_size: String(PAGE_SIZE) };
    const first = (await (await get(options)).json()) as Page;
    expect(first.has_next_page).toBe(true);
    const cursor = first.next_cursor as string;

    // The same query goes on.
    const second = await get({ ...options, cursor });
    expect(second.status).toBe(200);

    for (const changed of [
      { ...options, "f:p": other },
      { ...options, sort: "-er" },
      { ...options, sort: "name" },
      { ...options, "f:cc": "US" },
      { ...options, q: "shop" },
    ]) {
      const res = await get({ ...changed, cursor });
      const body = (await res.json()) as { error: string; code: string };
      expect(res.status, JSON.stringify(changed)).toBe(400);
      expect(body.code).toBe("BAD_USER_INPUT");
      expect(body.error).toMatch(/cursor/);
    }
    // Through the body too.
    const res = await post({ "f:p": other, page_size: PAGE_SIZE, cursor });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe("BAD_USER_INPUT");

    // Not a cursor at all.
    const bad = await get({ ...options, cursor: "not-a-cursor" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe("BAD_USER_INPUT");
  });

  // Last: it replaces the served snapshot.
  it("answers 410 CURSOR_EXPIRED to a cursor from before a data refresh", async () => {
    const platform = ranked((d) => d.platform)[0];
    const options = { "f:p": platform, page_size: String(PAGE_SIZE), fields: "name" };
    const first = (await (await get(options)).json()) as Page;
    const cursor = first.next_cursor as string;
    expect(typeof cursor).toBe("string");
    const bodyFirst = (await (
      await post({ "f:p": platform, page_size: PAGE_SIZE, sort: "-er", fields: "name" })
    ).json()) as Page;
    const bodyCursor = bodyFirst.next_cursor as string;

    await api.load(dirB);

    const res = await get({ ...options, cursor });
    const body = (await res.json()) as { error: string; code: string };
    expect(res.status).toBe(410);
    expect(body.code).toBe("CURSOR_EXPIRED");
    expect(typeof body.error).toBe("string");
    expect(body.error).toMatch(/refresh|expired/i);

    const resPost = await post({
      "f:p": platform,
      page_size: PAGE_SIZE,
      sort: "-er",
      fields: "name",
      cursor: bodyCursor,
    });
    expect(resPost.status).toBe(410);
    expect(((await resPost.json()) as { code: string }).code).toBe("CURSOR_EXPIRED");

    // Starting again without a cursor pages the new data.
    const pages = await pageThrough((c) => get({ ...options, ...(c ? { cursor: c } : {}) }));
    expectExactly(namesOf(pages), oracleB.domainNames({ filter: { platform: { values: [platform] } } }));
  });
});
