import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { logged } from "../support/logs.ts";

vi.mock("../../src/logger.ts", async (original) =>
  (await import("../support/logs.ts")).capturingLogger(await original(), "warn"),
);

/**
 * A snapshot written before the code's catalogue (src/db/tables.ts) grew: a column added to the
 * model and deployed, while the served snapshot was loaded by the version before. It is read with
 * what it lacks as absent (docs/decisions.md, "A snapshot older than its code"): every answer
 * 200, the missing fields left out as any null field is, filters and sorts on them as on unknown
 * values, one warning per snapshot, and /readyz naming what it lacks.
 *
 * Simulated on a snapshot loaded as usual: `domain.employee_count` (a default field, filtered and
 * sorted on) and `domain_contact.followers` (a child row's column, before others of its row) are
 * dropped, and so is the table `domain_tag` (a newer table the older snapshot would not have).
 */
const BASE = "http://localhost/json/api/v1/all";

describe.each(databaseKinds())("a snapshot older than the code's catalogue on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-older-");

  /** Drops the column, table and indexes an older snapshot would not have. */
  async function makeOlder(): Promise<void> {
    const row = await api.snapshots.store.current();
    if (!row) throw new Error("no snapshot loaded");
    if (kind === "sqlite") {
      const db = new Database(join(api.db.config.database.dataDir, row.location));
      try {
        // SQLite refuses to drop an indexed column: its indexes go first.
        const indexes = db
          .prepare(
            `SELECT l.name FROM pragma_index_list('domain') l JOIN pragma_index_info(l.name) i
             WHERE i.name = 'employee_count'`,
          )
          .pluck()
          .all() as string[];
        for (const index of indexes) db.exec(`DROP INDEX "${index}"`);
        db.exec(`ALTER TABLE "domain" DROP COLUMN "employee_count"`);
        db.exec(`ALTER TABLE "domain_contact" DROP COLUMN "followers"`);
        db.exec(`DROP TABLE "domain_tag"`);
      } finally {
        db.close();
      }
      return;
    }
    const client = new pg.Client({
      connectionString: (api.db.config.database as { url: string }).url,
    });
    await client.connect();
    try {
      const s = `"${row.location}"`;
      await client.query(`ALTER TABLE ${s}."domain" DROP COLUMN "employee_count"`);
      await client.query(`ALTER TABLE ${s}."domain_contact" DROP COLUMN "followers"`);
      await client.query(`DROP TABLE ${s}."domain_tag" CASCADE`);
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
    await makeOlder();
    logged.length = 0;
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  const get = async (path: string, init?: RequestInit) => {
    const res = await api.app.fetch(`${BASE}${path}`, init as never);
    const text = await res.text();
    expect(res.status, `${path}: ${text}`).toBe(200);
    return text;
  };
  type Rec = { name: string; [field: string]: unknown };
  const shop = (domains: Rec[]) => domains.find((d) => d.name === "shop.example.com") as Rec;

  /** The fields an older snapshot lacks are left out; the rest of each record is as loaded. */
  function checkShop(d: Rec): void {
    expect(d.name).toBe("shop.example.com");
    expect(d).not.toHaveProperty("employee_count");
    expect(d).not.toHaveProperty("tags");
    // Every other column is read as loaded, after the missing one too.
    expect(d.product_count).toBe(340);
    expect(d.monthly_app_spend).toBe(150_000);
    expect(d.categories).toEqual(["/Sports/Outdoor"]);
    expect(d.features).toEqual(["Contact Page", "Shopify POS"]);
    const contacts = d.contact_info as Rec[];
    expect(contacts).toHaveLength(2);
    expect(contacts[1]).not.toHaveProperty("followers");
    expect(contacts[1]).toMatchObject({
      type: "instagram",
      followers_30d: 150,
      followers_90d: 400,
      posts: 300,
      likes: 5000,
    });
  }

  it("REST: one, bulk, a list page and the export answer 200 without the missing fields", async () => {
    checkShop(JSON.parse(await get("/domain/shop.example.com")).domain);
    const bulk = JSON.parse(
      await get("/domain/bulk", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ domains: ["shop.example.com", "woo.example.org"] }),
      }),
    );
    expect(bulk.domains).toHaveLength(2);
    checkShop(shop(bulk.domains));
    const list = JSON.parse(await get("/domain?page_size=50"));
    expect(list.domains.length).toBeGreaterThan(1);
    checkShop(shop(list.domains));
    const lines = (await get("/domain/export")).trim().split("\n");
    checkShop(shop(lines.map((l) => JSON.parse(l))));
    // A selection naming only the missing fields still answers: the record has its name alone.
    const only = JSON.parse(await get("/domain/shop.example.com?fields=name,employee_count,tags"));
    expect(only.domain).toEqual({ name: "shop.example.com" });
  });

  it("GraphQL answers null for the missing fields, and an empty list for a missing table", async () => {
    const selection =
      "name employeeCount productCount tags features contactInfo { type followers followers30d }";
    const res = await api.gql(`{
      domain(name: "shop.example.com") { ${selection} }
      domainsByName(names: ["shop.example.com"]) { domains { ${selection} } }
      domains(first: 10) { edges { node { ${selection} } } }
    }`);
    expect(res.status).toBe(200);
    expect(res.errors).toBeUndefined();
    const data = res.data as {
      domain: Rec;
      domainsByName: { domains: Rec[] };
      domains: { edges: { node: Rec }[] };
    };
    for (const d of [
      data.domain,
      data.domainsByName.domains[0],
      shop(data.domains.edges.map((e) => e.node)),
    ]) {
      expect(d).toMatchObject({
        name: "shop.example.com",
        employeeCount: null,
        productCount: 340,
        features: ["Contact Page", "Shopify POS"],
        contactInfo: [
          { type: "email", followers: null, followers30d: null },
          { type: "instagram", followers: null, followers30d: 150 },
        ],
      });
      expect(d.tags ?? []).toEqual([]);
    }
  });

  it("a filter on a missing column matches as on unknown values: nothing, or everything under NOT", async () => {
    const filtered = JSON.parse(await get("/domain?f:empcmin=1"));
    expect(filtered.domains).toEqual([]);
    const tag = encodeURIComponent("Trending on TikTok");
    const tagged = JSON.parse(await get(`/domain?f:tags=${tag}`));
    expect(tagged.domains).toEqual([]);
    const untagged = JSON.parse(await get(`/domain?f:tags=${tag}&f:tags:op=not&fields=name`));
    expect(untagged.domains.map((d: Rec) => d.name)).toContain("shop.example.com");
    const res = await api.gql(`{
      min: domains(filter: { employeeCount: { min: 1 } }) { totalCount edges { node { name } } }
      tags: domains(filter: { tags: { values: ["Trending on TikTok"] } }) { totalCount }
      notTags: domains(filter: { tags: { values: ["Trending on TikTok"], op: NOT } }) { totalCount }
      all: domains { totalCount }
    }`);
    expect(res.errors).toBeUndefined();
    const data = res.data as Record<string, { totalCount: number }>;
    expect(data.min.totalCount).toBe(0);
    expect(data.tags.totalCount).toBe(0);
    expect(data.all.totalCount).toBeGreaterThan(1);
    expect(data.notTags.totalCount).toBe(data.all.totalCount);
    const lines = (await get("/domain/export?f:empcmin=1")).trim();
    expect(lines).toBe("");
  });

  it("a sort on a missing column treats every value as unknown: the pages hold every Domain once", async () => {
    const all = JSON.parse(await get("/domain?page_size=50&fields=name")).domains.map((d: Rec) => d.name);
    for (const sort of ["employee_count", "-employee_count"]) {
      const names: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const body = JSON.parse(
          await get(`/domain?page_size=1&fields=name&sort=${sort}${cursor ? `&cursor=${cursor}` : ""}`),
        );
        names.push(...body.domains.map((d: Rec) => d.name));
        if (!body.has_next_page) break;
        cursor = body.next_cursor;
      }
      expect([...names].sort(), sort).toEqual([...all].sort());
      expect(new Set(names).size).toBe(names.length);
    }
    const res = await api.gql<{ domains: { edges: { node: Rec }[]; pageInfo: { hasNextPage: boolean } } }>(`{
      domains(orderBy: [{ field: EMPLOYEE_COUNT, direction: DESC }], first: 2) {
        edges { node { name employeeCount } } pageInfo { hasNextPage }
      }
    }`);
    expect(res.errors).toBeUndefined();
    expect(res.data?.domains.edges.map((e) => e.node.employeeCount)).toEqual([null, null]);
    expect(res.data?.domains.pageInfo.hasNextPage).toBe(true);
    const lines = (await get("/domain/export?sort=-employee_count&fields=name")).trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).name).sort()).toEqual([...all].sort());
  });

  it("logs one warning for the snapshot, naming its version and what it lacks", async () => {
    await get("/domain/shop.example.com");
    const warnings = logged.filter((l) => l.level === 40 && /older than/.test(String(l.msg)));
    expect(warnings).toHaveLength(1);
    const row = await api.snapshots.store.current();
    expect(warnings[0]).toMatchObject({
      snapshot: row?.version,
      missingColumns: ["domain.employee_count", "domain_contact.followers"],
      missingTables: ["domain_tag"],
    });
  });

  it("/readyz stays ready and names what the snapshot lacks", async () => {
    const res = await api.app.fetch("http://localhost/readyz");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: "ready",
      snapshot: {
        missing_columns: ["domain.employee_count", "domain_contact.followers"],
        missing_tables: ["domain_tag"],
      },
    });
  });
});

describe.each(databaseKinds())("an up-to-date snapshot on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-current-");
  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("is served as loaded: no warning, nothing missing in /readyz", async () => {
    logged.length = 0;
    const res = await api.app.fetch(`${BASE}/domain/shop.example.com`);
    expect((await res.json()).domain).toMatchObject({ employee_count: 120, tags: ["Trending on TikTok"] });
    const ready = (await (await api.app.fetch("http://localhost/readyz")).json()) as {
      snapshot: Record<string, unknown>;
    };
    expect(ready.snapshot).not.toHaveProperty("missing_columns");
    expect(ready.snapshot).not.toHaveProperty("missing_tables");
    expect(logged.filter((l) => l.level >= 40)).toEqual([]);
  });
});
