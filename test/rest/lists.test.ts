import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiKeys } from "../../src/auth/keys.ts";
import { REST_BASE } from "../../src/rest/routes.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * The lists' REST paths (issue 38, docs/decisions.md "Lists"): `PUT /list/{name}/add-domains` as a
 * public client of the legacy API calls it, and the paths beside it, on both databases.
 */
describe.each(databaseKinds())("REST /list on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-rest-lists-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s1"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  async function call(method: string, path: string, body?: unknown, key?: string) {
    const res = await api.app.fetch(`http://localhost${REST_BASE}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
  }

  it("PUT /list/{name}/add-domains answers as the legacy client expects", async () => {
    const res = await call("PUT", "/list/leads/add-domains", {
      domains: ["shop.example.com", "WOO.example.org", "nowhere.example"],
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(["list", "count_domains_added", "unrecognized_domains"]);
    expect(res.json).toMatchObject({
      list: { name: "leads", count: 2 },
      count_domains_added: 2,
      unrecognized_domains: ["nowhere.example"],
    });
    expect(res.json.list.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(res.headers.get("etag")).toBeNull();
  });

  it("GET /list and GET /list/{name}: the lists, and a list's Domains paged with fields", async () => {
    const lists = await call("GET", "/list");
    expect(lists.status).toBe(200);
    expect(lists.json.lists.find((l: { name: string }) => l.name === "leads")).toMatchObject({ count: 2 });
    const page = await call("GET", "/list/leads?fields=name,platform&page_size=1&sort=name");
    expect(page.status).toBe(200);
    expect(page.json.domains).toEqual([{ name: "shop.example.com", platform: "shopify" }]);
    expect(page.json.has_next_page).toBe(true);
    const next = await call(
      "GET",
      `/list/leads?fields=name&page_size=1&sort=name&cursor=${encodeURIComponent(page.json.next_cursor)}`,
    );
    expect(next.json).toEqual({ domains: [{ name: "woo.example.org" }], has_next_page: false });
    // A list's answer changes without a new snapshot: never a 304 from an old tag.
    expect(page.headers.get("etag")).toBeNull();
  });

  it("POST remove-domains and DELETE; a list the account lacks is a 404 that names it", async () => {
    const removed = await call("POST", "/list/leads/remove-domains", { domains: ["woo.example.org"] });
    expect(removed.status).toBe(200);
    expect(removed.json).toMatchObject({ list: { name: "leads", count: 1 }, count_domains_removed: 1 });
    const deleted = await call("DELETE", "/list/leads");
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ list: { name: "leads", count: 1 } });
    for (const [method, path, body] of [
      ["DELETE", "/list/leads", undefined],
      ["GET", "/list/leads", undefined],
      ["POST", "/list/leads/remove-domains", { domains: ["shop.example.com"] }],
    ] as const) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.error, `${method} ${path}`).toMatch(/no list named "leads"/);
    }
  });

  it("bad requests are 400s that name what was wrong, and change nothing", async () => {
    const cases: [string, string, unknown, RegExp][] = [
      ["PUT", "/list/leads/add-domains", {}, /^domains: must be a list of 1 to 1000 domain names/],
      ["PUT", "/list/leads/add-domains", { domains: [] }, /^domains: must be a list of 1 to 1000/],
      ["PUT", "/list/leads/add-domains", { domains: [1] }, /^domains: must be a list/],
      ["PUT", "/list/leads/add-domains", "{not json", /the body is not valid JSON/],
      [
        "PUT",
        "/list/a%20b/add-domains",
        { domains: ["shop.example.com"] },
        /^list: "a b" is not a list name/,
      ],
      ["PUT", "/list/leads/add-domains", { domains: ["x.com"], color: "red" }, /color/],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.json.error, `${method} ${path}`).toMatch(message);
    }
    const wrong = await call("GET", "/list/leads/add-domains");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("PUT");
    expect((await call("GET", "/list")).json.lists.map((l: { name: string }) => l.name)).not.toContain(
      "leads",
    );
  });

  it("f:list filters List Domains, facets, the export, cursor=all and the change feed; an unknown list is a 400 naming f:list", async () => {
    await call("PUT", "/list/segment/add-domains", { domains: ["shop.example.com", "woo.example.org"] });
    const names = (j: { domains: { name: string }[] }) => j.domains.map((d) => d.name).sort();
    const page = await call("GET", "/domain?f:list=segment&fields=name");
    expect(page.status).toBe(200);
    // The list may change before the next load: its answers carry no ETag of the snapshot.
    expect(page.headers.get("etag")).toBeNull();
    expect((await call("GET", "/domain?fields=name")).headers.get("etag")).not.toBeNull();
    expect(names(page.json)).toEqual(["shop.example.com", "woo.example.org"]);
    // Nor do those leaving the list out (bq's must_not naming it), which change with it too.
    const bq = JSON.stringify({ must_not: { disjuncts: [{ field: "list", term: "segment" }] } });
    const others = await call("GET", `/domain?bq=${encodeURIComponent(bq)}&fields=name&page_size=1000`);
    expect(others.status).toBe(200);
    expect(others.headers.get("etag")).toBeNull();
    const listed = names(others.json);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).not.toContain("shop.example.com");
    expect(listed).not.toContain("woo.example.org");
    // With the list's other filters, ANDed.
    expect(names((await call("GET", "/domain?f:list=segment&f:p=shopify&fields=name")).json)).toEqual([
      "shop.example.com",
    ]);
    const posted = await call("POST", "/domain", { "f:list": "segment", fields: "name" });
    expect(names(posted.json)).toEqual(["shop.example.com", "woo.example.org"]);
    const facets = await call("GET", "/domain/facets?f:list=segment&facets=p");
    expect(facets.status).toBe(200);
    expect(JSON.stringify(facets.json)).toContain("woocommerce");
    const exported = await api.app.fetch(
      `http://localhost${REST_BASE}/domain/export?f:list=segment&fields=name`,
    );
    expect(exported.status).toBe(200);
    const lines = (await exported.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).name)
      .sort();
    expect(lines).toEqual(["shop.example.com", "woo.example.org"]);
    // The export resolves its filter once: its check reads the list, and the export thread gets
    // the set of Domains it resolved (it read the list a second time before).
    const reads = vi.spyOn(api.snapshots.store, "metaQuery");
    try {
      const again = await api.app.fetch(
        `http://localhost${REST_BASE}/domain/export?f:list=segment&fields=name`,
      );
      expect((await again.text()).trim().split("\n")).toHaveLength(2);
      expect(reads.mock.calls.filter(([text]) => String(text).includes("domain_list_item"))).toHaveLength(1);
    } finally {
      reads.mockRestore();
    }
    let job = await call("GET", "/domain?f:list=segment&fields=name&cursor=all");
    expect(job.status).toBe(202);
    for (let i = 0; i < 100 && job.status === 202; i++) {
      await new Promise((r) => setTimeout(r, 5100));
      job = await call("GET", "/domain?f:list=segment&fields=name&cursor=all");
    }
    expect(job.status).toBe(200);
    expect(names(job.json)).toEqual(["shop.example.com", "woo.example.org"]);
    for (const path of [
      "/domain?f:list=nope&fields=name",
      "/domain/facets?f:list=nope&facets=p",
      "/domain/export?f:list=nope",
      "/changes?f:list=nope",
    ]) {
      const res = await call("GET", path);
      expect(res.status, path).toBe(400);
      expect(res.json.error, path).toBe(
        "f:list: no list named \"nope\" (GET /list shows this key's account's lists)",
      );
    }
    const unknown = await api.gql(`{ domains(filter: { list: "nope" }) { totalCount } }`);
    expect(unknown.errors?.[0]?.message).toMatch(/^filter\.list: no list named "nope"/);
    const counted = await api.gql<{ domains: { totalCount: number } }>(
      `{ domains(filter: { list: "segment" }) { totalCount } }`,
    );
    expect(counted.data?.domains.totalCount).toBe(2);
  }, 120_000);

  it("lists are the account's: another account's key sees none of them", async () => {
    await call("PUT", "/list/private/add-domains", { domains: ["shop.example.com"] });
    const stranger = (await new ApiKeys(api.snapshots.store).create("stranger", "pro")).key;
    expect((await call("GET", "/list", undefined, stranger)).json).toEqual({ lists: [] });
    expect((await call("GET", "/list/private", undefined, stranger)).status).toBe(404);
    expect((await call("DELETE", "/list/private", undefined, stranger)).status).toBe(404);
    expect((await call("GET", "/list/private")).status).toBe(200);
  });
});
