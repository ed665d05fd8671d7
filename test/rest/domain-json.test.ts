import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { GraphQLObjectType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { legacyFields } from "../../src/rest/fields.ts";
import { schema } from "../../src/schema/index.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

/**
 * Export Domains (and cursor=all) write their Domains with src/rest/domain-json.ts on the export
 * thread; List Domains, Retrieve a Domain and Bulk retrieve answer through GraphQL. Both must
 * answer the same Domains byte for byte: for the defaults, every Domain field alone and nested
 * selections, over a generated dataset (Apps, plans, technologies, contacts, products), on both
 * databases. A Domain retrieved by name (a lookup) is the same as on a page (a read by key).
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

describe.each(databaseKinds())("Exported Domains equal GraphQL's answers (%s)", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi(kind, dir, { rateLimits: { enabled: false, redisUrl: null } });
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

  /** Every Domain of List Domains pages, as JSON text. */
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
    const expected = await pages(api.app, query);
    const lines = await exported(query);
    expect(lines).toHaveLength(1300);
    expect(lines).toEqual(items(expected));
  });

  it("writes every Domain field alone as GraphQL does", async () => {
    const query = (fields: string) => ({ fields, "f:ds": "Active", sort: "rank" });
    let nonEmpty = 0;
    for (const field of domainFields) {
      const expected = await pages(api.app, query(field), "1000");
      const lines = await exported(query(field));
      expect(lines, field).toEqual(items(expected));
      if (lines.some((l) => l !== "{}")) nonEmpty++;
    }
    // Most fields have values somewhere in the data: the comparison is not of empty objects.
    expect(nonEmpty).toBeGreaterThan(domainFields.length * 0.9);
  }, 300_000);

  it("keeps filters: the same Domains as GraphQL", async () => {
    const query = { "f:cc": "US,GB", "f:cc:op": "or", "f:features": "Contact Page", sort: "-rank" };
    const expected = await pages(api.app, query);
    expect(items(expected).length).toBeGreaterThan(0);
    expect(await exported(query)).toEqual(items(expected));
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

  /** The export's line of each Domain of the dataset, by name, for `fields`. */
  async function linesByName(fields: string): Promise<Map<string, string>> {
    const lines = await exported({ fields: fields ? `name,${fields}` : "" });
    const withName = await exported({ fields: "name" });
    return new Map(withName.map((l, i) => [(JSON.parse(l) as { name: string }).name, lines[i]]));
  }

  it.each(NESTED)(
    "fields=%s: Retrieve a Domain and Bulk retrieve answer the export's Domains",
    async (fields) => {
      const active = named("Active", 40);
      const byName = await linesByName(fields);
      for (const name of active.slice(0, 5)) {
        const path = `/${encodeURIComponent(name)}?${new URLSearchParams({ fields: fields ? `name,${fields}` : "" })}`;
        expect(await answer(api.app, path), name).toEqual({
          status: 200,
          type: "application/json",
          body: `{"domain":${byName.get(name)}}`,
        });
      }
      const domains = [...active, active[3], "nope.example.com", active[0]];
      const init = {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ domains, fields: fields ? `name,${fields}` : "" }),
      };
      const found = domains.filter((n) => byName.has(n));
      expect(await answer(api.app, "/bulk", init)).toEqual({
        status: 200,
        type: "application/json",
        body: `{"domains":[${found.map((n) => byName.get(n)).join(",")}],"not_found":["nope.example.com"]}`,
      });
    },
  );
});
