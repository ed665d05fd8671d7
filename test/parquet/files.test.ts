import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from "hyparquet/src/node.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { generateDataset } from "../../src/dataset/generate.ts";
import { locateSnapshotFiles, type SnapshotFile } from "../../src/dataset/load/read.ts";
import type { Manifest } from "../../src/db/snapshot-manifest.ts";
import { columnsOf, FILES, SCHEMA_VERSION } from "../../src/parquet/columns.ts";
import { sha256Of, writeParquetFiles } from "../../src/parquet/files.ts";
import { filesDirOf, recordsIn, removeFilesDir, startDomainsFile } from "../../src/snapshot-files.ts";
import { tempDir } from "../support/api.ts";
import { compressors, domainOf, plain } from "../support/parquet.ts";

const scratch = tempDir("storegraph-parquet-");
const input = () => join(scratch.dir, "in");
const output = () => join(scratch.dir, "out");
let manifest: Manifest;
const records = {} as Record<SnapshotFile, Record<string, unknown>[]>;

/** An installed App in a Domain's record may carry more of the App than the file keeps (record.ts). */
function asStored(d: Record<string, unknown>): Record<string, unknown> {
  const apps = d.apps as Record<string, unknown>[] | undefined;
  const kept = ["id", "platform", "token", "name", "installed_at", "removed_at"];
  return apps
    ? { ...d, apps: apps.map((a) => Object.fromEntries(kept.filter((k) => k in a).map((k) => [k, a[k]]))) }
    : d;
}

/** Platform, rank, name; strings byte by byte: the order of domains.parquet's rows (src/render.ts: fileOrder). */
const bytes = (a: unknown, b: unknown) => Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
const inFileOrder = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  bytes(a.platform, b.platform) || (a.rank as number) - (b.rank as number) || bytes(a.name, b.name);

/** Lines in files of `sizes` lines each, one after another; their paths. */
function split(lines: string[], sizes: number[], name: string): string[] {
  let at = 0;
  return sizes.map((size, i) => {
    const path = join(scratch.dir, `${name}-${i}.jsonl`);
    writeFileSync(path, `${lines.slice(at, at + size).join("\n")}\n`);
    at += size;
    return path;
  });
}

/** The inputs, the Domains in file order in two files (as the render's threads write them), read as one. */
function sources() {
  const lines = readFileSync(join(input(), "domains.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => ({ l, d: JSON.parse(l) as Record<string, unknown> }))
    .sort((a, b) => inFileOrder(a.d, b.d))
    .map(({ l }) => l);
  const half = Math.floor(lines.length / 2);
  const parts = split(lines, [half, lines.length - half], "domains");
  return locateSnapshotFiles(input()).map((f) => ({
    kind: f.kind,
    paths: f.kind === "domains" ? parts : [f.path],
  }));
}

async function readRows(kind: SnapshotFile): Promise<Record<string, unknown>[]> {
  const file = await asyncBufferFromFile(join(output(), `${kind}.parquet`));
  return (await parquetReadObjects({ file, compressors })) as Record<string, unknown>[];
}

beforeAll(async () => {
  await generateDataset({ domains: 3000, apps: 80, seed: 7373, outDir: input() });
  for (const kind of ["domains", "apps", "reviews"] as const)
    records[kind] = readFileSync(join(input(), `${kind}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  // Small row groups, so that the order and the statistics across groups are seen at this size.
  manifest = await writeParquetFiles(sources(), output(), {
    version: 12,
    rowGroup: 500,
  });
}, 120_000);

afterAll(() => scratch.remove());

describe("the columns", () => {
  it("are every field of each record, typed by its form", () => {
    const names = FILES.domains.columns.map((c) => c.name);
    expect(names.slice(0, 3)).toEqual(["name", "platform_domain", "tld1"]);
    const type = (n: string) => FILES.domains.columns.find((c) => c.name === n)?.type;
    expect(type("rank")).toBe("BIGINT");
    expect(type("rank_percentile")).toBe("DOUBLE");
    expect(type("created_at")).toBe("DATE");
    expect(type("keywords")).toBe("VARCHAR[]");
    expect(type("keywords_text")).toBe("VARCHAR");
    expect(type("alternates")).toBe("MAP(VARCHAR, VARCHAR)");
    expect(type("technologies")).toMatch(/^STRUCT\(.*"installed_at" TIMESTAMPTZ.*\)\[\]$/);
    expect(FILES.apps.columns.find((c) => c.name === "created_at")?.type).toBe("TIMESTAMP");
    expect(FILES.domains.columns.filter((c) => c.required).map((c) => c.name)).toContain("rank");
  });

  it("refuse a field they have no type for, naming it", () => {
    expect(() => columnsOf(z.object({ odd: z.tuple([z.string(), z.number()]) }))).toThrow(/^odd/);
  });
});

describe("the files of a snapshot", () => {
  it("are one per record file, with a manifest that names each one's rows, bytes, SHA-256 and columns", async () => {
    expect(readdirSync(output()).sort()).toEqual(["apps.parquet", "domains.parquet", "reviews.parquet"]);
    expect(manifest.version).toBe(12);
    expect(manifest.schema_version).toBe(SCHEMA_VERSION);
    for (const f of manifest.files) {
      const kind = f.name.replace(".parquet", "") as SnapshotFile;
      const path = join(output(), f.name);
      expect(f.rows, f.name).toBe(records[kind].length);
      expect(f.bytes).toBe(readFileSync(path).length);
      expect(f.sha256).toBe(await sha256Of(path));
      expect(f.columns.map((c) => c.name)).toEqual(FILES[kind].columns.map((c) => c.name));
    }
  });

  it("hold every Domain as its record, field by field, in (platform, rank, name) order", async () => {
    const rows = await readRows("domains");
    const expected = [...records.domains].sort(inFileOrder);
    expect(rows.map((r) => r.name)).toEqual(expected.map((d) => d.name));
    let keywordsAsText = 0;
    rows.forEach((row, i) => {
      if (row.keywords_text !== null) keywordsAsText++;
      expect(domainOf(row), String(row.name)).toEqual(plain(asStored(expected[i])));
    });
    expect(keywordsAsText).toBeGreaterThan(0);
  });

  it("write the Domains as their files give them, one file after another (the render orders them)", async () => {
    // Three files of the Domains in another order (by name, descending): read as they come.
    const lines = readFileSync(join(input(), "domains.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .sort()
      .reverse();
    const paths = split(lines, [1000, 17, lines.length - 1017], "as-they-come");
    const out = join(scratch.dir, "as-they-come");
    await writeParquetFiles([{ kind: "domains", paths }], out, { version: 1, rowGroup: 500 });
    const file = await asyncBufferFromFile(join(out, "domains.parquet"));
    const rows = (await parquetReadObjects({ file, columns: ["name"], compressors })) as { name: string }[];
    expect(rows.map((r) => r.name)).toEqual(lines.map((l) => (JSON.parse(l) as { name: string }).name));
  });

  it("are made of the render's runs in their order: records-<n>.jsonl by n", () => {
    const dir = join(scratch.dir, "runs");
    mkdirSync(dir);
    for (const n of [10, 2, 0, 11, 1]) writeFileSync(join(dir, `records-${n}.jsonl`), "");
    writeFileSync(join(dir, "apps.jsonl"), "");
    expect(recordsIn(dir).map((p) => basename(p))).toEqual(
      [0, 1, 2, 10, 11].map((n) => `records-${n}.jsonl`),
    );
  });

  it("hold every App and every review as its record", async () => {
    const apps = await readRows("apps");
    const byId = new Map(records.apps.map((a) => [a.id, a]));
    expect(apps).toHaveLength(byId.size);
    for (const a of apps) expect(plain(a)).toEqual(plain(byId.get(a.id)));
    const reviews = (await readRows("reviews")).map(plain);
    const key = (r: unknown) => JSON.stringify(r);
    expect(reviews.map(key).sort()).toEqual(records.reviews.map((r) => key(plain(r))).sort());
  });

  it("have row groups with statistics, so a filter on platform or rank skips most of the file", async () => {
    const meta = await parquetMetadataAsync(await asyncBufferFromFile(join(output(), "domains.parquet")));
    // DuckDB rounds a row group up to its vectors of 2,048 rows.
    expect(meta.row_groups.length).toBeGreaterThan(1);
    for (const g of meta.row_groups) expect(Number(g.num_rows)).toBeLessThanOrEqual(2048);
    const ranges = meta.row_groups.map((g) => {
      const s = g.columns.find((c) => c.meta_data?.path_in_schema.join(".") === "platform")?.meta_data
        ?.statistics;
      expect(s?.min_value).toBeTypeOf("string");
      return [String(s?.min_value), String(s?.max_value)];
    });
    // Sorted by platform: each group's platforms start at or after where the last one's ended.
    for (let i = 1; i < ranges.length; i++) expect(ranges[i][0] >= ranges[i - 1][1]).toBe(true);
  });

  it("are read by DuckDB as typed, nested columns: counts by platform equal the records'", async () => {
    const db = await DuckDBInstance.create(":memory:");
    const con = await db.connect();
    try {
      const file = join(output(), "domains.parquet").replaceAll("'", "''");
      const counts = (
        await con.runAndReadAll(`SELECT platform, count(*)::INTEGER FROM '${file}' GROUP BY platform`)
      ).getRows();
      const expected = new Map<string, number>();
      for (const d of records.domains)
        expected.set(String(d.platform), (expected.get(String(d.platform)) ?? 0) + 1);
      expect(new Map(counts.map(([p, n]) => [String(p), Number(n)]))).toEqual(expected);
      const tech = String(
        (
          records.domains.find((d) => (d.technologies as unknown[])?.length) as {
            technologies: { name: string }[];
          }
        ).technologies[0].name,
      );
      const [[withTech]] = (
        await con.runAndReadAll(
          `SELECT count(*)::INTEGER FROM '${file}' WHERE list_contains(list_transform(technologies, t -> t.name), $1)`,
          [tech],
        )
      ).getRows();
      const has = records.domains.filter((d) =>
        (d.technologies as { name: string }[] | undefined)?.some((t) => t.name === tech),
      ).length;
      expect(Number(withTech)).toBe(has);
    } finally {
      con.closeSync();
      db.closeSync();
    }
  });
});

describe("the load's files directory", () => {
  it("is made with DATA_DIR where that is not yet (PostgreSQL writes nothing else there), and a killed load's is removed", () => {
    const dataDir = join(scratch.dir, "no-data-dir-yet", "data");
    const first = filesDirOf(dataDir, 3);
    expect(existsSync(first)).toBe(true);
    const next = filesDirOf(dataDir, 4);
    expect(existsSync(first)).toBe(false);
    expect(readdirSync(dataDir)).toEqual([basename(next)]);
    removeFilesDir(next);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe("a failed write", () => {
  it("says what DuckDB said, and leaves no temporary files", async () => {
    const out = join(scratch.dir, "failed");
    await expect(
      writeParquetFiles(sources(), out, {
        version: 1,
        memoryLimit: "1KB",
      }),
    ).rejects.toThrow(/^writing the Parquet files: .*(memory|Memory)/);
    expect(readdirSync(out).filter((n) => n.startsWith("."))).toEqual([]);
  });

  it("a domains.parquet begun at the render's end and stopped (the load failed meanwhile) ends DuckDB's process first", async () => {
    const dir = join(scratch.dir, "stopped");
    mkdirSync(dir);
    copyFileSync(join(input(), "domains.jsonl"), join(dir, "records-0.jsonl"));
    // Its process starts as it is begun; stopped at once, it is killed before it writes the file.
    const begun = startDomainsFile(dir, 1);
    await begun.stop();
    await expect(begun.done).rejects.toThrow();
    expect(existsSync(join(dir, "domains.parquet"))).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith(".duckdb-tmp"))).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
    // Run to its end, it is the file of the records, counted.
    mkdirSync(dir);
    copyFileSync(join(input(), "domains.jsonl"), join(dir, "records-0.jsonl"));
    const whole = startDomainsFile(dir, 1);
    const { files } = await whole.done;
    expect(files.map((f) => [f.name, f.rows])).toEqual([["domains.parquet", records.domains.length]]);
    await whole.stop();
    expect(existsSync(join(dir, "domains.parquet"))).toBe(true);
  });
});
