import { join } from "node:path";
import type { GraphQLObjectType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { legacyFields } from "../../src/rest/fields.ts";
import { schema } from "../../src/schema/index.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

/**
 * Export Domains writes Domains without running GraphQL (src/rest/domain-json.ts). Its lines must
 * be List Domains' items, byte for byte: for the defaults, every Domain field alone, and nested
 * selections, over a generated dataset (Apps, plans, technologies, contacts, products), on both
 * databases. List Domains runs the GraphQL resolvers, so this holds the writer to them.
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

describe.each(databaseKinds())("Export Domains writes what List Domains answers (%s)", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi(kind, dir, { rateLimits: { enabled: false, redisUrl: null } });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  /** Every item of List Domains, page after page, as JSON text. */
  async function listed(query: Record<string, string>): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const params = new URLSearchParams({ ...query, page_size: "50", ...(cursor ? { cursor } : {}) });
      const res = await api.app.fetch(`${BASE}?${params}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { domains: unknown[]; next_cursor?: string };
      out.push(...body.domains.map((d) => JSON.stringify(d)));
      if (!body.next_cursor) return out;
      cursor = body.next_cursor;
    }
  }

  async function exported(query: Record<string, string>): Promise<string[]> {
    const res = await api.app.fetch(`${BASE}/export?${new URLSearchParams(query)}`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.endsWith("\n")).toBe(true);
    return text.slice(0, -1).split("\n");
  }

  it.each(NESTED)("fields=%s: the same lines as List Domains, over several pages", async (fields) => {
    const query = { fields, sort: "-rank" };
    const lines = await exported(query);
    expect(lines).toHaveLength(1300);
    expect(lines).toEqual(await listed(query));
  });

  it("writes every Domain field alone as List Domains does", async () => {
    const query = (fields: string) => ({ fields, "f:ds": "Active", sort: "rank" });
    let nonEmpty = 0;
    for (const field of domainFields) {
      const lines = await exported(query(field));
      expect(lines, field).toEqual(await listed(query(field)));
      if (lines.some((l) => l !== "{}")) nonEmpty++;
    }
    // Most fields have values somewhere in the data: the comparison is not of empty objects.
    expect(nonEmpty).toBeGreaterThan(domainFields.length * 0.9);
  }, 300_000);

  it("keeps filters: the same Domains as List Domains", async () => {
    const query = { "f:cc": "US,GB", "f:cc:op": "or", "f:features": "Contact Page", sort: "-rank" };
    const lines = await exported(query);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines).toEqual(await listed(query));
  });
});
