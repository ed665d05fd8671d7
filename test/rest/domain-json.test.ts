import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { GraphQLObjectType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { legacyFields } from "../../src/rest/fields.ts";
import { schema } from "../../src/schema/index.ts";
import { startApi, type TestApi, tempDir, withKey } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

/**
 * Export Domains, List Domains, Retrieve a Domain and Bulk retrieve write Domains without running
 * GraphQL field by field (src/rest/domain-json.ts). What they answer must be, byte for byte, what
 * the same routes answer through GraphQL (the app with writeDomains: false, which runs the
 * resolvers field by field and reshapes the result): for the defaults, every Domain field alone
 * and nested selections, over a generated dataset (Apps, plans, technologies, contacts,
 * products), on both databases.
 */
const BASE = "http://localhost/json/api/v1/all/domain";
const scratch = tempDir("storegraph-domain-json-");
const dir = join(scratch.dir, "data");

const domainFields = [...legacyFields(schema.getType("Domain") as GraphQLObjectType).keys()];
const NESTED = [
  "",
  "*",
  "*,most_recently_published_product",
  "name,apps.name,apps.installed_at,apps.removed_at,apps.plans.monthly_cost_cents",
  "apps.description_long,apps.id,apps.categories,apps.integrates_with,apps.created_at",
  "apps.*,apps.description_long",
  "technologies.installed_at,technologies.categories,technologies.name",
  "contact_info.followers_30d,contact_info.type,name",
  "theme.cost,theme.name,trustpilot.avg_rating,yotpo",
  "most_recently_published_product.published_at,most_recently_published_product.product_id",
  "rank,name,tld1,rank",
];

beforeAll(async () => {
  await generateDataset({ domains: 1300, apps: 60, seed: 77, outDir: dir });
});
afterAll(() => scratch.remove());

describe.each(databaseKinds())("Domains written without GraphQL equal GraphQL's answers (%s)", (kind) => {
  let api: TestApi;
  /** The same snapshot, answered through GraphQL field by field: the reference. */
  let reference: App;
  beforeAll(async () => {
    const rateLimits = { enabled: false, redisUrl: null };
    api = await startApi(kind, dir, { rateLimits });
    reference = withKey(
      createApp({ ...api.db.config, rateLimits }, api.snapshots, { writeDomains: false }),
      api.key,
    );
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  /** A response's status, content type and body text. */
  async function answer(app: App, path: string, init?: RequestInit) {
    const res = await app.fetch(`${BASE}${path}`, init ?? {});
    return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
  }

  /** The bodies of every page of List Domains, through `app`. */
  async function pages(app: App, query: Record<string, string>, pageSize = "50"): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const params = new URLSearchParams({ ...query, page_size: pageSize, ...(cursor ? { cursor } : {}) });
      const { status, body } = await answer(app, `?${params}`);
      expect(status, body).toBe(200);
      out.push(body);
      cursor = (JSON.parse(body) as { next_cursor?: string }).next_cursor;
      if (!cursor) return out;
    }
  }

  /** Every Domain of the reference's List Domains pages, as JSON text. */
  const items = (bodies: string[]) =>
    bodies.flatMap((b) => (JSON.parse(b) as { domains: unknown[] }).domains.map((d) => JSON.stringify(d)));

  async function exported(query: Record<string, string>): Promise<string[]> {
    const res = await api.app.fetch(`${BASE}/export?${new URLSearchParams(query)}`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.endsWith("\n")).toBe(true);
    return text.slice(0, -1).split("\n");
  }

  it.each(NESTED)("fields=%s: List Domains pages and the export, over several pages", async (fields) => {
    const query = { fields, sort: "-rank" };
    const expected = await pages(reference, query);
    expect(await pages(api.app, query)).toEqual(expected);
    const lines = await exported(query);
    expect(lines).toHaveLength(1300);
    expect(lines).toEqual(items(expected));
  });

  it("writes every Domain field alone as GraphQL does", async () => {
    const query = (fields: string) => ({ fields, "f:ds": "Active", sort: "rank" });
    let nonEmpty = 0;
    for (const field of domainFields) {
      const expected = await pages(reference, query(field), "1000");
      expect(await pages(api.app, query(field), "1000"), field).toEqual(expected);
      const lines = await exported(query(field));
      expect(lines, field).toEqual(items(expected));
      if (lines.some((l) => l !== "{}")) nonEmpty++;
    }
    // Most fields have values somewhere in the data: the comparison is not of empty objects.
    expect(nonEmpty).toBeGreaterThan(domainFields.length * 0.9);
  }, 300_000);

  it("keeps filters: the same Domains as GraphQL", async () => {
    const query = { "f:cc": "US,GB", "f:cc:op": "or", "f:features": "Contact Page", sort: "-rank" };
    const expected = await pages(reference, query);
    expect(items(expected).length).toBeGreaterThan(0);
    expect(await pages(api.app, query)).toEqual(expected);
    expect(await exported(query)).toEqual(items(expected));
  });

  it("takes the writer for selections with a relation, and GraphQL for the others", async () => {
    // The writer reads the rows of the Domains the operation named, by name (without the
    // platform-domain match of a lookup), on PostgreSQL with its child tables (readDomainPage);
    // GraphQL reads a page's rows by key.
    const writerRead = /"domain"(?: d)? WHERE (?:d\.)?"name" (?:IN |= ANY|= \$1(?! OR))/;
    const [name] = named("Active", 1);
    const cases: [string, RequestInit | undefined, boolean][] = [
      [`/${name}`, undefined, true],
      [`/${name}?fields=name,apps.name`, undefined, true],
      [`/${name}?fields=name,rank`, undefined, false],
      ["?page_size=5", undefined, true],
      ["?page_size=5&fields=contact_info.type", undefined, true],
      ["?page_size=5&fields=name,rank,theme.name", undefined, false],
      ["/bulk", { method: "POST", body: JSON.stringify({ domains: [name] }) }, true],
      ["/bulk", { method: "POST", body: JSON.stringify({ domains: [name], fields: "name" }) }, false],
    ];
    for (const [path, init, written] of cases) {
      api.resetQueries();
      expect((await answer(api.app, path, init)).status).toBe(200);
      expect(
        api.queries.some((q) => writerRead.test(q)),
        `${path} ${init?.body ?? ""}`,
      ).toBe(written);
    }
  });

  /** The first `n` Domains of the dataset in `state` (List Domains does not list Redirect ones). */
  function named(state: string, n: number): string[] {
    return readFileSync(join(dir, "domains.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { name: string; state: string })
      .filter((d) => d.state === state)
      .slice(0, n)
      .map((d) => d.name);
  }

  it.each(NESTED)("fields=%s: Retrieve a Domain, redirects followed or not", async (fields) => {
    const names = [...named("Active", 5), ...named("Redirect", 3)];
    expect(names).toHaveLength(8);
    for (const name of [...names, "nope.example.com"]) {
      for (const follow of ["false", "true"]) {
        const path = `/${encodeURIComponent(name)}?${new URLSearchParams({ fields, follow_redirects: follow })}`;
        const expected = await answer(reference, path);
        expect(expected.status).toBe(name === "nope.example.com" ? 404 : 200);
        expect(await answer(api.app, path), `${name} ${follow}`).toEqual(expected);
      }
    }
  });

  it.each(NESTED)(
    "fields=%s: Bulk retrieve, with unknown, repeated and redirecting names",
    async (fields) => {
      const active = named("Active", 40);
      const redirects = named("Redirect", 3);
      const domains = [...active, active[3], "nope.example.com", ...redirects, active[0]];
      for (const follow of [false, true]) {
        const init = {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ domains, fields, follow_redirects: follow }),
        };
        const expected = await answer(reference, "/bulk", init);
        expect(expected.status).toBe(200);
        expect(JSON.parse(expected.body).not_found).toEqual(["nope.example.com"]);
        expect(await answer(api.app, "/bulk", init)).toEqual(expected);
      }
    },
  );
});
