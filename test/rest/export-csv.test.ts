import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { csvObjects } from "../support/csv.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * `for=csv` on Export Domains and `cursor=all` (docs/api.md 4.7, "CSV"), on both databases: read
 * back with a strict RFC 4180 parser (test/support/csv.ts), and held to the JSON Lines of the same
 * request, column by column, through this file's own reading of the documented rules (`cellOf`).
 */

const BASE = "http://localhost/json/api/v1/all/domain";

/** A Domain whose text needs quoting: commas, quotes, CR, LF, and text beyond ASCII. */
function trickyFixture() {
  const f = validFixture();
  const shop = f.domains[0];
  shop.title = 'Tents, "Boots" & more\r\nOutdoor — ünïcødé 🏕';
  shop.description = "line one\nline two";
  shop.collections = ["Boots, hiking", 'Tents "4 season"', "Ünïcødé"];
  shop.alternates = { "de-DE": "de.example.com", "fr-FR": "fr.example.com" };
  return f;
}

/** A cell, per the documented rules, from a Domain's JSON object and the column's dotted path. */
function cellOf(value: unknown, path: string[], depth = 0): string {
  const v = (value as Record<string, unknown> | null | undefined)?.[path[0]];
  const sep = depth ? "|" : ";";
  if (path.length > 1) {
    if (v === null || v === undefined) return "";
    if (Array.isArray(v)) return v.map((e) => cellOf(e, path.slice(1), depth + 1)).join(sep);
    return cellOf(v, path.slice(1), depth);
  }
  const text = (x: unknown) =>
    x === null || x === undefined ? "" : typeof x === "object" ? JSON.stringify(x) : String(x);
  if (Array.isArray(v)) return v.map(text).join(sep);
  if (v && typeof v === "object")
    return Object.entries(v)
      .map(([k, x]) => `${k}=${text(x)}`)
      .join(sep);
  return text(v);
}

const jsonl = (text: string) =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe.each(databaseKinds())("for=csv (%s)", (kind) => {
  let small: TestApi;
  let large: TestApi;
  const tmp = tempDir("storegraph-csv-");

  beforeAll(async () => {
    small = await startApi(kind, writeSnapshotDir(join(tmp.dir, "small"), trickyFixture()));
    const dir = join(tmp.dir, "large");
    await generateDataset({ domains: 1200, apps: 60, seed: 35, outDir: dir });
    large = await startApi(kind, dir);
  }, 120_000);
  afterAll(async () => {
    await small?.close();
    await large?.close();
    tmp.remove();
  });

  /** A cursor=all request polled to its 200. */
  async function job(api: TestApi, query: string): Promise<Response> {
    for (let i = 0; i < 300; i++) {
      const res = await api.app.fetch(`${BASE}?cursor=all&${query}`);
      if (res.status !== 202) return res;
      await res.arrayBuffer();
      await sleep(100);
    }
    throw new Error("the job did not finish");
  }

  it("Export Domains: a header record, then one record per Domain, quoted as RFC 4180 says", async () => {
    const fields =
      "name,title,description,collections,alternates,rank,apps.name,apps.removed_at,contact_info.type,contact_info.followers,theme.name,trustpilot.avg_rating";
    const res = await small.app.fetch(`${BASE}/export?for=csv&fields=${fields}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="domains.csv"');
    const text = await res.text();
    expect(text.startsWith(`${fields}\r\n`)).toBe(true);
    const { header, rows } = csvObjects(text);
    expect(header).toEqual(fields.split(","));
    expect(rows.map((r) => r.name)).toEqual([
      "shop.example.com",
      "woo.example.org",
      "gone.example.net",
      "old-shop.example.com",
    ]);
    expect(rows[0]).toEqual({
      name: "shop.example.com",
      title: 'Tents, "Boots" & more\r\nOutdoor — ünïcødé 🏕',
      description: "line one\nline two",
      collections: 'Boots, hiking;Tents "4 season";Ünïcødé',
      alternates: "de-DE=de.example.com;fr-FR=fr.example.com",
      rank: "10",
      // Entries of one list of objects are aligned: the second App is the removed one.
      "apps.name": "Old Reviews;Klaviyo",
      "apps.removed_at": "2023-01-01T00:00:00Z;",
      "contact_info.type": "email;instagram",
      "contact_info.followers": ";12000",
      "theme.name": "Dawn",
      "trustpilot.avg_rating": "4.4",
    });
    // Unknown values are empty fields.
    expect(rows[3]).toMatchObject({ title: "", collections: "", "apps.name": "", "theme.name": "" });
    // The raw text quotes exactly where it must.
    expect(text).toContain(',"Tents, ""Boots"" & more\r\nOutdoor — ünïcødé 🏕","line one\nline two",');
  });

  it("cursor=all: the same text as the export, as a job's result", async () => {
    const fields = "name,title,collections,apps.name,apps.plans.name,technologies.categories";
    const exported = await (await small.app.fetch(`${BASE}/export?for=csv&fields=${fields}`)).text();
    const res = await job(small, `for=csv&fields=${fields}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="domains.csv"');
    expect(await res.text()).toBe(exported);
    const { rows } = csvObjects(exported);
    // A list inside an entry of a list of objects is joined with |: Old Reviews has no plan.
    expect(rows[0]["apps.name"]).toBe("Old Reviews;Klaviyo");
    expect(rows[0]["apps.plans.name"]).toBe(";Free|Pro");
    expect(rows[0]["technologies.categories"]).toBe("Analytics");
  });

  it("a result with no Domain is its header alone", async () => {
    const q = "for=csv&fields=name,rank&f:rankmin=999999";
    const exported = await small.app.fetch(`${BASE}/export?${q}`);
    expect(await exported.text()).toBe("name,rank\r\n");
    expect(await (await job(small, q)).text()).toBe("name,rank\r\n");
  });

  it("holds every Domain's record to its JSON Lines, every default column, over many pages", async () => {
    const query = "sort=-er&f:ds=Active";
    const text = async (target: string) => (await large.app.fetch(target)).text();
    const [csvText, linesText] = await Promise.all([
      text(`${BASE}/export?for=csv&${query}`),
      text(`${BASE}/export?${query}`),
    ]);
    const { header, rows } = csvObjects(csvText);
    const domains = jsonl(linesText);
    expect(domains.length).toBeGreaterThan(500);
    expect(csvText.length).toBeGreaterThan(1024 * 1024); // several pages of the export thread
    expect(rows).toHaveLength(domains.length);
    expect(header.length).toBeGreaterThan(100);
    let quoted = 0;
    domains.forEach((d, i) => {
      for (const column of header) {
        const expected = cellOf(d, column.split("."));
        if (/[",\r\n]/.test(expected)) quoted++;
        if (rows[i][column] !== expected) expect(rows[i][column], `${d.name} ${column}`).toBe(expected);
      }
    });
    // The generated text does need quoting somewhere.
    expect(quoted).toBeGreaterThan(0);
    // The job writes the same text.
    expect(await (await job(large, `for=csv&${query}`)).text()).toBe(csvText);
  }, 120_000);

  it("for=csv takes page_size no more than json does", async () => {
    const res = await small.app.fetch(`${BASE}?cursor=all&for=csv&page_size=10`);
    expect(res.status).toBe(400);
  });
});
