import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHURN, evolveDataset } from "../../src/dataset/evolve.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { FILES } from "../../src/parquet/columns.ts";
import { fromRoot } from "../../src/root.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { compressors, plain } from "../support/parquet.ts";

// changes.parquet (docs/parquet.md): the load's change events, each row the change as
// GET /changes/export writes it but for loaded_at (the manifest's) and segment (an account's own
// events are never in a shared file); before/after as one struct whose fields the kind sets. The
// expectations come from the export of the same load, never from the code that writes the file.

const scratch = tempDir("storegraph-changes-parquet-");
const BASE = "http://localhost/json/api/v1/all";
const weeks = [0, 1].map((w) => join(scratch.dir, `w${w}`));
const churn = Object.fromEntries(Object.entries(DEFAULT_CHURN).map(([k, v]) => [k, Math.min(1, v * 15)]));

/** The kinds whose value is one value, and the struct field docs/parquet.md puts it in. */
const ONE_VALUE: Record<string, string> = {
  state_changed: "state",
  platform_changed: "platform",
  plan_changed: "plan",
  country_changed: "country_code",
  theme_changed: "theme",
  rank_changed: "rank",
  app_removed: "state",
  app_plans_changed: "plans",
};

type Change = Record<string, unknown> & { id: string; kind: string; version: number };
interface Listed {
  version: number;
  loaded_at: string;
  files: { name: string; url: string; rows?: number; bytes?: number; sha256?: string }[];
}

beforeAll(async () => {
  await generateDataset({ domains: 400, apps: 50, seed: 11, outDir: weeks[0] });
  await evolveDataset({ from: weeks[0], outDir: weeks[1], seed: 3, churn });
}, 60_000);
afterAll(() => scratch.remove());

describe.each(databaseKinds())("changes.parquet (%s)", (kind) => {
  let api: TestApi;
  const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    api.app.fetch(path.startsWith("http") ? path : `${BASE}${path}`, { method, headers });
  const newest = async (): Promise<Listed> => {
    const res = await get("/snapshots");
    expect(res.status).toBe(200);
    const { snapshots } = (await res.json()) as { snapshots: Listed[] };
    // Newest first.
    return snapshots[0];
  };
  /** The rows of a file read by ranges through the API, as a remote reader reads it. */
  const rowsOf = async (file: Listed["files"][number]) => {
    const size = file.bytes as number;
    return (await parquetReadObjects({
      file: {
        byteLength: size,
        async slice(start: number, end?: number) {
          const res = await get(file.url, { range: `bytes=${start}-${(end ?? size) - 1}` });
          expect(res.status).toBe(206);
          return await res.arrayBuffer();
        },
      },
      compressors,
    })) as Record<string, unknown>[];
  };
  /** A row as the export writes the change: before/after taken out of their structs. */
  const changeOf = (row: Record<string, unknown>): Record<string, unknown> => {
    const out = plain(row) as Record<string, unknown>;
    const field = ONE_VALUE[row.kind as string];
    for (const side of ["before", "after"])
      if (field && out[side] !== undefined) out[side] = (out[side] as Record<string, unknown>)[field];
    return out;
  };

  /** Every file of the newest snapshot into `dir`. */
  const download = async (dir: string) => {
    mkdirSync(dir, { recursive: true });
    for (const f of (await newest()).files) {
      const res = await get(f.url);
      expect(res.status).toBe(200);
      writeFileSync(join(dir, f.name), new Uint8Array(await res.arrayBuffer()));
    }
  };
  const files = join(scratch.dir, `docs-${kind}`);

  beforeAll(async () => {
    api = await startApi(kind, weeks[0]);
    // Last week's files, for docs/parquet.md's upserts (the snapshot goes at the next load).
    await download(join(files, "week-11"));
  }, 120_000);
  afterAll(() => api?.close());

  it("a first load's has every column and no row", async () => {
    const snapshot = await newest();
    const file = snapshot.files.find((f) => f.name === "changes.parquet");
    expect(file).toMatchObject({ rows: 0 });
    const columns = (await (await get(`/snapshots/${snapshot.version}/manifest.json`)).json()).files.find(
      (f: { name: string }) => f.name === "changes.parquet",
    ).columns;
    expect(columns.map((c: { name: string }) => c.name)).toEqual(FILES.changes.columns.map((c) => c.name));
    expect(await rowsOf(file as Listed["files"][number])).toEqual([]);
  });

  it("holds every change of the next load as /changes/export gives it, numbered as the feed numbers them; a segment's events left out", async () => {
    const before = await newest();
    // A segment of the key's account: its events of the load are the account's, not the file's.
    const put = await api.app.fetch(`${BASE}/segment/shopify`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ "f:p": "shopify" }),
    });
    expect(put.status, await put.text()).toBeLessThan(300);
    await api.load(weeks[1]);
    const snapshot = await newest();
    expect(snapshot.version).toBeGreaterThan(before.version);
    const res = await get(`/changes/export?since=${before.version}`);
    expect(res.status).toBe(200);
    const exported = (await res.text())
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Change);
    expect(exported.some((c) => c.segment !== undefined)).toBe(true);
    const shared = exported.filter((c) => c.segment === undefined);
    expect(shared.length).toBeGreaterThan(50);
    for (const c of exported) expect(c.loaded_at).toBe(snapshot.loaded_at);
    const expected = shared.map(({ loaded_at: _, ...c }) => plain(c));

    const file = snapshot.files.find((f) => f.name === "changes.parquet") as Listed["files"][number];
    expect(file.rows).toBe(shared.length);
    const rows = await rowsOf(file);
    expect(rows.map(changeOf)).toEqual(expected);
    // One value goes in the field named for it: a plan change's plans under `plan`.
    const plan = rows.find((r) => r.kind === "plan_changed") as
      | { before: Record<string, unknown> }
      | undefined;
    // (The churned week holds plan changes: a file without one would not test the rule.)
    expect(plan, "a plan_changed in the load").toBeDefined();
    expect(Object.keys(plain(plan?.before) as object)).toEqual(["plan"]);

    // DuckDB reads the same: its counts by kind are the export's, and a Domain's struct fields are columns.
    const bytes = new Uint8Array(await (await get(file.url)).arrayBuffer());
    const path = join(scratch.dir, `changes-${kind}.parquet`);
    writeFileSync(path, bytes);
    const db = await DuckDBInstance.create(":memory:");
    const con = await db.connect();
    try {
      const counts = Object.fromEntries(
        (
          await con.runAndReadAll(`SELECT kind, count(*)::INTEGER FROM '${path}' GROUP BY kind ORDER BY kind`)
        ).getRows(),
      );
      const byKind: Record<string, number> = {};
      for (const c of shared) byKind[c.kind] = (byKind[c.kind] ?? 0) + 1;
      expect(counts).toEqual(byKind);
      const added = (
        await con.runAndReadAll(
          `SELECT count(*)::INTEGER FROM '${path}' WHERE kind = 'domain_added' AND after.platform = 'shopify'`,
        )
      ).getRows()[0][0];
      expect(added).toBe(
        shared.filter(
          (c) => c.kind === "domain_added" && (c.after as { platform: string }).platform === "shopify",
        ).length,
      );
    } finally {
      con.closeSync();
      db.closeSync();
    }
  });

  it("docs/parquet.md's DuckDB statements run as written, and its upserts make last week's table this week's", async () => {
    await download(join(files, "week-12"));
    writeFileSync(join(files, "domains.parquet"), readFileSync(join(files, "week-12", "domains.parquet")));
    // Every ```sql block of the page but the remote one (no server to reach by httpfs here).
    const blocks = [...readFileSync(fromRoot("docs/parquet.md"), "utf8").matchAll(/```sql\n([\s\S]*?)```/g)]
      .map((m) => m[1])
      .filter((b) => !b.includes("http"));
    expect(blocks.length).toBe(2);
    const db = await DuckDBInstance.create(":memory:");
    const con = await db.connect();
    try {
      await con.run(`SET file_search_path = '${files}'`);
      for (const block of blocks)
        for (const statement of block.split(/;\s*\n/).filter((t) => t.replace(/--.*$/gm, "").trim()))
          await con.runAndReadAll(statement);
      // The upserts' table is this week's: its Domains, and the rows of those the changes name.
      const rows = async (query: string) => (await con.runAndReadAll(query)).getRowObjectsJson();
      const names = (await rows("SELECT name FROM domains ORDER BY name")).map((r) => r.name);
      const week = (await rows("SELECT name FROM 'week-12/domains.parquet' ORDER BY name")).map(
        (r) => r.name,
      );
      expect(names).toEqual(week);
      const changed =
        "SELECT * FROM %s WHERE name IN (SELECT domain FROM 'week-12/changes.parquet') ORDER BY name";
      expect(await rows(changed.replace("%s", "domains"))).toEqual(
        await rows(changed.replace("%s", "'week-12/domains.parquet'")),
      );
      expect((await rows(changed.replace("%s", "domains"))).length).toBeGreaterThan(10);
    } finally {
      con.closeSync();
      db.closeSync();
    }
  });
});
