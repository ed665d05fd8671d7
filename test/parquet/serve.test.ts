import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { writeAppRecords } from "../../src/parquet/app-records.ts";
import { FILES } from "../../src/parquet/columns.ts";
import { DOMAIN_RECORD_FIELDS } from "../../src/parquet/records.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { compressors, domainOf, plain } from "../support/parquet.ts";

const scratch = tempDir("storegraph-files-");
const BASE = "http://localhost/json/api/v1/all";

interface Listed {
  version: number;
  loaded_at: string;
  domains: number;
  schema_version: string;
  files: { name: string; url: string; rows?: number; bytes?: number; sha256?: string; columns?: unknown[] }[];
}

beforeAll(async () => {
  await generateDataset({ domains: 1500, apps: 50, seed: 4242, outDir: `${scratch.dir}/a` });
  await generateDataset({ domains: 1200, apps: 40, seed: 4343, outDir: `${scratch.dir}/b` });
}, 120_000);

afterAll(() => scratch.remove());

describe.each(databaseKinds())("a snapshot's files through the API (%s)", (kind) => {
  let api: TestApi;
  const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    api.app.fetch(path.startsWith("http") ? path : `${BASE}${path}`, { method, headers });
  const listed = async (): Promise<Listed[]> => {
    const res = await get("/snapshots");
    expect(res.status).toBe(200);
    return ((await res.json()) as { snapshots: Listed[] }).snapshots;
  };
  const exportsOfMonth = async () => {
    const res = await api.app.fetch("http://localhost/json/api/v1/usage?fields=exports");
    return ((await res.json()) as { usage: { exports: number } }).usage.exports;
  };
  /** hyparquet's remote reader: every read a Range request to the API. */
  const remote = (url: string, size: number, ranges: string[]) => ({
    byteLength: size,
    async slice(start: number, end?: number) {
      const range = `bytes=${start}-${(end ?? size) - 1}`;
      ranges.push(range);
      const res = await get(url, { range });
      expect(res.status, range).toBe(206);
      expect(res.headers.get("content-range")).toBe(`bytes ${start}-${(end ?? size) - 1}/${size}`);
      return await res.arrayBuffer();
    },
  });

  beforeAll(async () => {
    api = await startApi(kind, `${scratch.dir}/a`);
  }, 120_000);
  afterAll(() => api?.close());

  it("lists the kept snapshot with its files, their rows, bytes, SHA-256, columns and URLs", async () => {
    const [snapshot, ...older] = await listed();
    expect(older).toEqual([]);
    expect(snapshot.domains).toBe(1500);
    expect(snapshot.schema_version).toMatch(/^[0-9a-f]{16}$/);
    expect(snapshot.files.map((f) => f.name)).toEqual([
      "apps.parquet",
      "domains.parquet",
      "reviews.parquet",
      "changes.parquet",
      "manifest.json",
    ]);
    const domains = snapshot.files[1];
    expect(domains).toMatchObject({
      rows: 1500,
      url: `${BASE}/snapshots/${snapshot.version}/domains.parquet`,
    });
    expect(domains.columns).toHaveLength(FILES.domains.columns.length);
    // GraphQL lists the same.
    const { data } = await api.gql("{ snapshots { version schemaVersion files { name url sha256 } } }");
    expect(data?.snapshots).toEqual([
      {
        version: snapshot.version,
        schemaVersion: snapshot.schema_version,
        files: snapshot.files.map(({ name, url, sha256 }) => ({ name, url, sha256: sha256 ?? null })),
      },
    ]);
  });

  it("sends a file whole with its ETag, and its bytes are the manifest's; the manifest as a file of its own", async () => {
    const [snapshot] = await listed();
    const before = await exportsOfMonth();
    for (const f of snapshot.files.filter((x) => x.sha256)) {
      const res = await get(f.url);
      expect(res.status).toBe(200);
      expect(res.headers.get("etag")).toBe(`"${f.sha256}"`);
      expect(res.headers.get("accept-ranges")).toBe("bytes");
      expect(res.headers.get("content-length")).toBe(String(f.bytes));
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(f.sha256);
    }
    // Each whole download counts as one of the month's exports.
    expect(await exportsOfMonth()).toBe(before + 4);
    const manifest = await (await get(`/snapshots/${snapshot.version}/manifest.json`)).json();
    expect(manifest).toEqual({
      version: snapshot.version,
      loaded_at: snapshot.loaded_at,
      schema_version: snapshot.schema_version,
      files: snapshot.files.filter((f) => f.sha256).map(({ url: _, ...f }) => f),
    });
  });

  it("is read by ranges as a remote Parquet reader reads it: every Domain, equal to its export record; the file counted once", async () => {
    const [snapshot] = await listed();
    const file = snapshot.files[1];
    const before = await exportsOfMonth();
    const ranges: string[] = [];
    const rows = (await parquetReadObjects({
      file: remote(file.url, file.bytes as number, ranges),
      compressors,
    })) as Record<string, unknown>[];
    expect(ranges.length).toBeGreaterThan(1);
    expect(rows).toHaveLength(1500);
    expect(await exportsOfMonth()).toBe(before + 1);
    // In the file's order, as the render wrote the records: platform, rank, name (byte by byte).
    const bytes = (a: unknown, b: unknown) => Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
    const ordered = [...rows].sort(
      (a, b) => bytes(a.platform, b.platform) || Number(a.rank) - Number(b.rank) || bytes(a.name, b.name),
    );
    expect(rows.map((r) => r.name)).toEqual(ordered.map((r) => r.name));
    // The export's records, with every field a column holds (of an installed App, those the file
    // keeps: the rest is in apps.parquet).
    const res = await get(`/domain/export?fields=${DOMAIN_RECORD_FIELDS}`);
    expect(res.status).toBe(200);
    const exported = new Map(
      (await res.text())
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .map((d) => [d.name, d]),
    );
    expect(exported.size).toBe(1500);
    for (const row of rows) expect(domainOf(row), String(row.name)).toEqual(plain(exported.get(row.name)));
    // Its platforms counted as the facets count them.
    const facetsRes = await get("/domain/facets?facets=p&facet_size=100");
    const facetsText = await facetsRes.text();
    expect(facetsRes.status, facetsText).toBe(200);
    const facets = JSON.parse(facetsText) as {
      facets: { p: { value: string; count: number }[] };
      other: { p: number };
    };
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(String(r.platform), (counts.get(String(r.platform)) ?? 0) + 1);
    for (const f of facets.facets.p) expect(counts.get(f.value), f.value).toBe(f.count);
    const top = facets.facets.p.reduce((n, f) => n + f.count, 0);
    expect(top + facets.other.p).toBe(rows.length);
  });

  it("holds every App as GET /app/<platform>.<token> answers it with every field, and every review as its App's review list does, with its App", async () => {
    const [snapshot] = await listed();
    const read = async (name: string) => {
      const file = snapshot.files.find((f) => f.name === name);
      if (!file) throw new Error(`${name} is not listed`);
      const res = await get(file.url);
      expect(res.status).toBe(200);
      const bytes = await res.arrayBuffer();
      return (await parquetReadObjects({ file: bytes, compressors })) as Record<string, unknown>[];
    };
    const page = async <T>(path: string, key: string): Promise<T[]> => {
      const out: T[] = [];
      for (let n = 0; ; n++) {
        const res = await get(`${path}${path.includes("?") ? "&" : "?"}page_size=50&page=${n}`);
        const body = await res.text();
        expect(res.status, body).toBe(200);
        const got = (JSON.parse(body) as Record<string, T[]>)[key];
        out.push(...got);
        if (got.length < 50) return out;
      }
    };
    // Every field a column holds, as the API answers one App (its installs over time included).
    const fields = [...new Set(FILES.apps.columns.map((c) => c.read?.name ?? c.name))].join(",");
    const apps = await page<Record<string, unknown>>("/app?fields=id,platform,token", "apps");
    expect(apps.length).toBeGreaterThan(10);
    const answered = new Map<unknown, Record<string, unknown>>();
    const reviews: unknown[] = [];
    let unsorted = 0;
    for (const { platform, token } of apps) {
      const res = await get(`/app/${platform}.${token}?fields=${fields}`);
      const body = await res.text();
      expect(res.status, body).toBe(200);
      const app = (JSON.parse(body) as { app: Record<string, unknown> }).app;
      answered.set(app.id, app);
      const categories = app.categories as string[];
      if (categories.join() !== [...categories].sort().join()) unsorted++;
      const of = {
        id: app.id,
        name: app.name,
        app_store_url: app.app_store_url,
        vendor_name: app.vendor_name,
      };
      for (const r of await page<Record<string, unknown>>(`/app/${platform}.${token}/reviews`, "reviews"))
        reviews.push(plain({ ...r, app: of }));
    }
    const rows = await read("apps.parquet");
    expect(rows).toHaveLength(answered.size);
    for (const row of rows) expect(plain(row), String(row.id)).toEqual(plain(answered.get(row.id)));
    // The rows are the API's, not the loaded lines: the generated data lists some Apps' categories
    // out of order, which the API answers sorted.
    expect(unsorted).toBe(0);
    // Each review as one text whatever its keys' order, to compare the two lists as sets.
    const canonical = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(canonical)
        : v && typeof v === "object"
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
            )
          : v;
    const key = (r: unknown) => JSON.stringify(canonical(r));
    const reviewRows = (await read("reviews.parquet")).map(plain);
    expect(reviewRows.length).toBeGreaterThan(10);
    expect(reviewRows.map(key).sort()).toEqual(reviews.map(key).sort());
  });

  it("writes the same Apps' and reviews' records whatever the page: the Apps and each App's reviews followed by their own cursors", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    const lines = async (size: number) => {
      const dir = mkdtempSync(join(scratch.dir, "app-records-"));
      const counts = await writeAppRecords(served, join(dir, "a"), join(dir, "r"), undefined, size);
      const read = (f: string) => readFileSync(join(dir, f), "utf8").split("\n").filter(Boolean).sort();
      return { counts, apps: read("a"), reviews: read("r") };
    };
    const whole = await lines(50);
    // Pages of 3: 17 pages of Apps, and the Apps with more than 3 reviews read on by their cursor.
    const paged = await lines(3);
    expect(whole.counts.apps).toBe(50);
    expect(whole.counts.reviews).toBeGreaterThan(3 * 10);
    expect(paged).toEqual(whole);
    expect(new Set(whole.reviews).size).toBe(whole.reviews.length);
  });

  it("answers 304 to its ETag, the whole file to an If-Range of another, and HEAD without a body or a count", async () => {
    const [snapshot] = await listed();
    const file = snapshot.files[0];
    const before = await exportsOfMonth();
    const notModified = await get(file.url, { "if-none-match": `"${file.sha256}"` });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe("");
    const head = await get(file.url, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(file.bytes));
    expect(await exportsOfMonth()).toBe(before);
    const stale = await get(file.url, { range: "bytes=0-9", "if-range": '"an-older-etag"' });
    expect(stale.status).toBe(200);
    expect((await stale.arrayBuffer()).byteLength).toBe(file.bytes);
    // Range is for GET alone; a unit other than bytes is not read (the whole file); bytes in any case.
    const headRange = await get(file.url, { range: "bytes=0-9" }, "HEAD");
    expect(headRange.status).toBe(200);
    expect(headRange.headers.get("content-length")).toBe(String(file.bytes));
    const items = await get(file.url, { range: "items=0-1" });
    expect(items.status).toBe(200);
    expect((await items.arrayBuffer()).byteLength).toBe(file.bytes);
    const upper = await get(file.url, { range: "Bytes=0-3" });
    expect(upper.status).toBe(206);
    expect(Buffer.from(await upper.arrayBuffer()).toString("latin1")).toBe("PAR1");
    const tail = await get(file.url, { range: "bytes=-8", "if-range": `"${file.sha256}"` });
    expect(tail.status).toBe(206);
    const last = new Uint8Array(await tail.arrayBuffer());
    expect(Buffer.from(last.subarray(4)).toString("latin1")).toBe("PAR1");
  });

  it("sends a file's bytes as they are to a client that accepts gzip: its ranges and ETag are of them", async () => {
    const [snapshot] = await listed();
    const file = snapshot.files[1];
    const res = await get(file.url, { range: "bytes=0-99", "accept-encoding": "gzip, deflate" });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-encoding")).toBeNull();
    expect((await res.arrayBuffer()).byteLength).toBe(100);
    const whole = await get(file.url, { "accept-encoding": "gzip" });
    expect(whole.headers.get("content-encoding")).toBeNull();
    expect(
      createHash("sha256")
        .update(new Uint8Array(await whole.arrayBuffer()))
        .digest("hex"),
    ).toBe(file.sha256);
  });

  it("counts a range of the whole file as a whole download, and the manifest never", async () => {
    const [snapshot] = await listed();
    const file = snapshot.files[2];
    const before = await exportsOfMonth();
    for (let i = 0; i < 2; i++) {
      const res = await get(file.url, { range: "bytes=0-" });
      expect(res.status).toBe(206);
      await res.arrayBuffer();
    }
    await (await get(`/snapshots/${snapshot.version}/manifest.json`)).arrayBuffer();
    expect(await exportsOfMonth()).toBe(before + 2);
  });

  it.each([
    ["/snapshots/abc/domains.parquet", {}, 400, /^version: must be a snapshot's version, a positive integer/],
    [
      "/snapshots/999999/domains.parquet",
      {},
      404,
      /^snapshot 999999 is not kept: the kept snapshots are \d+/,
    ],
    [
      "/snapshots/{v}/domain.parquet",
      {},
      404,
      /has no file "domain.parquet": its files are manifest.json, apps.parquet, domains.parquet, reviews.parquet, changes.parquet$/,
    ],
    ["/snapshots/{v}/domains.parquet", { range: "bytes=9-2" }, 400, /^Range: the end is before the start/],
    ["/snapshots/{v}/domains.parquet", { range: "bytes=0-1,5-6" }, 400, /^Range: one range per request/],
    ["/snapshots/{v}/domains.parquet", { range: "bytes=a-b" }, 400, /^Range: must be bytes=start-end/],
    [
      "/snapshots/{v}/domains.parquet",
      { range: "bytes=999999999-" },
      416,
      /^Range: bytes=999999999- is outside the file, which has \d+ bytes$/,
    ],
    ["/snapshots/{v}/domains.parquet?fields=name", {}, 400, /fields/],
  ])("refuses %s %j with %i, naming what was wrong", async (path, headers, status, message) => {
    const [snapshot] = await listed();
    const res = await get(path.replace("{v}", String(snapshot.version)), headers as Record<string, string>);
    const body = (await res.json()) as { error: string };
    expect(res.status, body.error).toBe(status);
    expect(body.error).toMatch(message);
    if (status === 416) expect(res.headers.get("content-range")).toMatch(/^bytes \*\/\d+$/);
  });

  it("serves a newer load's files, and an older snapshot's go when it is pruned", async () => {
    const [first] = await listed();
    await api.load(`${scratch.dir}/b`);
    const now = await listed();
    expect(now.map((s) => s.version)).toEqual([now[0].version, first.version]);
    expect(now[0].files[1].rows).toBe(1200);
    expect((await get(first.files[1].url, { range: "bytes=0-3" })).status).toBe(206);
    await api.load(`${scratch.dir}/a`);
    const res = await get(first.files[1].url);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toMatch(
      new RegExp(`^snapshot ${first.version} is not kept`),
    );
  });
});
