import { join } from "node:path";
import fc from "fast-check";
import type { GraphQLObjectType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { Metrics } from "../../src/ops/metrics.ts";
import { schema } from "../../src/schema/index.ts";
import { startApi, type TestApi, tempDir, withKey } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { legacyPaths } from "../support/legacy-paths.ts";

// REST Domain answers (one, bulk, list pages) written from their rows by the generated row writer
// (src/rest/row-writer.ts, read through the query layer as src/rest/records.ts describes) against the
// same requests answered through the resolvers: status and body, byte for byte, on both
// databases, for random `fields`, names (unknown ones, platform domains, any letter case,
// redirects followed or not), filters, sorts, page sizes and the next page by cursor.

const BASE = "http://localhost/json/api/v1/all";
const DOMAIN = schema.getType("Domain") as GraphQLObjectType;

const FIELD_PATHS = ["*", ...legacyPaths(DOMAIN)];
const fieldsArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  {
    weight: 5,
    arbitrary: fc
      .uniqueArray(fc.constantFrom(...FIELD_PATHS), { minLength: 1, maxLength: 10 })
      .map((f) => f.join(",")),
  },
);

describe.each(databaseKinds())("REST records from rows against the resolvers on %s", (kind) => {
  let api: TestApi;
  let rows: App;
  let resolvers: App;
  let metrics: Metrics;
  let names: string[] = [];
  const tmp = tempDir("storegraph-records-");
  beforeAll(async () => {
    const dir = join(tmp.dir, "a");
    await generateDataset({ domains: 300, apps: 30, seed: 35, outDir: dir });
    // Rendered at load, as npm run load does: the default fields are copied from the rendered records.
    api = await startApi(kind, dir);
    metrics = new Metrics(api.snapshots);
    rows = withKey(createApp(api.db.config, api.snapshots, { metrics }), api.key);
    resolvers = withKey(createApp(api.db.config, api.snapshots, { restWriter: "resolvers" }), api.key);
    const res = await resolvers.fetch(`${BASE}/domain?page_size=1000&fields=name,platform_domain,state`);
    const body = (await res.json()) as { domains: { name: string; platform_domain?: string }[] };
    names = body.domains.flatMap((d) => [d.name, ...(d.platform_domain ? [d.platform_domain] : [])]);
  }, 120_000);
  afterAll(async () => {
    await rows?.dispose();
    await resolvers?.dispose();
    await api?.close();
    tmp.remove();
  });

  /** The same request to both apps: the same status and body. */
  async function same(path: string, init?: RequestInit): Promise<{ status: number; body: string }> {
    const a = await rows.fetch(`${BASE}${path}`, init as never);
    const b = await resolvers.fetch(`${BASE}${path}`, init as never);
    // Error bodies carry each request's own id.
    const id = /"request_id":"[^"]*"/;
    const [ta, tb] = [(await a.text()).replace(id, ""), (await b.text()).replace(id, "")];
    expect({ status: a.status, body: ta }, path).toEqual({ status: b.status, body: tb });
    return { status: a.status, body: ta };
  }

  const nameArb = () =>
    fc.oneof(
      fc.constantFrom(...names),
      fc.constantFrom(...names).map((n) => n.toUpperCase()),
      fc.constant("unknown-shop.example"),
    );
  const query = (o: Record<string, string | undefined>) =>
    new URLSearchParams(
      Object.entries(o).filter((e): e is [string, string] => e[1] !== undefined),
    ).toString();

  it("one Domain: any name and fields, redirects followed or not", async () => {
    let found = 0;
    await fc.assert(
      fc.asyncProperty(nameArb(), fieldsArb, fc.boolean(), async (name, fields, follow) => {
        const q = query({ fields, follow_redirects: follow ? "true" : undefined });
        const { status } = await same(`/domain/${encodeURIComponent(name)}${q ? `?${q}` : ""}`);
        if (status === 200) found++;
      }),
      { numRuns: 80 },
    );
    expect(found).toBeGreaterThan(25);
  });

  it("bulk: up to 100 names, known and not, any fields", async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(nameArb(), { minLength: 1, maxLength: 100 }),
        fieldsArb,
        fc.boolean(),
        async (list, fields, follow) => {
          const body = JSON.stringify({ domains: list, fields, follow_redirects: follow });
          const { status } = await same("/domain/bulk", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          });
          if (status === 200) answered++;
        },
      ),
      { numRuns: 40 },
    );
    // A selection bulk refuses (a field of single Apps only) is a 400 on both.
    expect(answered).toBeGreaterThan(10);
  });

  it("list pages: any fields, filter, sort and page size, and the next page by cursor", async () => {
    let written = 0;
    await fc.assert(
      fc.asyncProperty(
        fieldsArb,
        fc.record(
          {
            sort: fc.constantFrom("rank", "-estimated_sales", "name", "-last_plan_change_at", "created_at"),
            "f:p": fc.constantFrom("shopify", "woocommerce"),
            "f:cc": fc.constantFrom("US", "DE"),
            "f:ds": fc.constantFrom("Active", "Inactive"),
            q: fc.constantFrom("shop", "a"),
          },
          { requiredKeys: [] },
        ),
        fc.integer({ min: 1, max: 400 }),
        async (fields, options, pageSize) => {
          const q = query({ ...options, fields, page_size: String(pageSize) });
          const first = await same(`/domain?${q}`);
          if (first.status !== 200) return;
          const page = JSON.parse(first.body) as { domains: unknown[]; next_cursor?: string };
          if (page.domains.length) written++;
          if (page.next_cursor) await same(`/domain?${query({ fields, cursor: page.next_cursor })}`);
        },
      ),
      { numRuns: 40 },
    );
    // Not vacuous: pages of Domains were compared (a count of Domains depended on the draw: 195 of
    // a required 200 once, when the filters drawn matched few).
    expect(written).toBeGreaterThan(10);
  });

  it("a field read on request (the newest product) is written from the row too, as the resolvers write it, and no fallback is counted", async () => {
    const count = async () =>
      (await metrics.registry.getSingleMetric("storegraph_writer_fallbacks_total")?.get())?.values.find(
        (v) => v.labels.path === "rest",
      )?.value ?? 0;
    const before = await count();
    for (let i = 0; i < 3; i++) await same(`/domain/${names[i]}?fields=name,most_recently_published_product`);
    await same(`/domain/${names[0]}`);
    expect(await count()).toBe(before);
  });
});
