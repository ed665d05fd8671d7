import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { crc32, gunzipSync, inflateRawSync, constants as zlibConstants } from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { crc32Combine } from "../../src/codec/crc32.ts";
import { joinPieces, jointOf, pieceOf } from "../../src/codec/deflate.ts";
import { GZIP_HEADER, gzipTrailer } from "../../src/codec/gzip.ts";
import { loadConfig } from "../../src/config.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { PIECE_HEADER, RENDERED_TABLE } from "../../src/db/rendered.ts";
import { createHttpServer } from "../../src/http.ts";
import { createLogger } from "../../src/logger.ts";
import { Metrics } from "../../src/ops/metrics.ts";
import { renderSnapshot } from "../../src/render.ts";
import { ANSWERS } from "../../src/rest/text-bytes.ts";
import { startApi, type TestApi, tempDir, withKey } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { slowGet } from "../support/raw-http.ts";

// Rendered records (src/db/rendered.ts, docs/decisions.md "Rendered records"): every answer with
// the default fields copied from the text rendered at load, held byte for byte to the resolver
// path on both databases (exports, gzip exports, cursor=all, one Domain, bulk, list pages and
// their next pages), and the CRC-32 combination the gzip answers rest on. Every load renders them:
// they are a part of the snapshot's format (test/db/snapshot-format.test.ts); what renders them is
// pinned to the part's version in test/rest/rendered-stamp.test.ts.

const BASE = "http://localhost/json/api/v1/all";

describe("crc32Combine", () => {
  it("gives the CRC-32 of two texts joined, from each one's", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ maxLength: 3000 }), (a, b) => {
        const joined = Buffer.concat([a, b]);
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(joined));
      }),
      { numRuns: 200 },
    );
    const big = randomBytes(1 << 20);
    expect(crc32Combine(crc32(big.subarray(0, 7)), crc32(big.subarray(7)), big.length - 7)).toBe(crc32(big));
  });
});

describe("pieces joined by stored blocks", () => {
  it("inflate to the texts and joints in order, with the CRC-32 and length of that text", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme", maxLength: 300 }), { maxLength: 12 }),
        fc.string({ maxLength: 70_000 }),
        fc.boolean(),
        (texts, between, last) => {
          const pieces = texts.map((t) => pieceOf(Buffer.from(t, "utf8")));
          const joint = jointOf(Buffer.from(between, "utf8"));
          const joined = joinPieces(
            pieces.map((p) => p.body),
            pieces.map((p) => p.crc),
            pieces.map((p) => p.len),
            joint,
            last,
          );
          const expected = Buffer.from(
            texts.map((t, i) => t + (i < texts.length - 1 || last ? between : "")).join(""),
            "utf8",
          );
          const text = inflateRawSync(joined.body, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
          expect(text.equals(expected)).toBe(true);
          expect(joined.len).toBe(expected.length);
          expect(joined.crc).toBe(crc32(expected));
          // Framed as one gzip member, the same text comes out.
          const member = Buffer.concat([GZIP_HEADER, joined.body, gzipTrailer(joined.crc, joined.len)]);
          expect(gunzipSync(member).equals(expected)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
    // A joint longer than one stored block holds (65,535 bytes) takes several, and no piece at all
    // is an empty stored block: still one stream.
    const long = randomBytes(140_000);
    const one = pieceOf(Buffer.from("{}"));
    const joined = joinPieces([one.body], [one.crc], [one.len], jointOf(long), true);
    const text = inflateRawSync(joined.body, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    expect(text.equals(Buffer.concat([Buffer.from("{}"), long]))).toBe(true);
    expect(
      inflateRawSync(jointOf(new Uint8Array(0)).body, { finishFlush: zlibConstants.Z_SYNC_FLUSH }).length,
    ).toBe(0);
  });
});

describe("RENDERED_TEXTS", () => {
  it("is retired: set, it stops the start with a line saying the pieces alone are kept", () => {
    expect(() => loadConfig({ RENDERED_TEXTS: "on" })).toThrow(
      /RENDERED_TEXTS: no longer read; a snapshot keeps its rendered records as DEFLATE pieces alone/,
    );
  });
});

describe.each(databaseKinds())("rendered records on %s", (kind) => {
  let api: TestApi;
  let resolvers: App;
  let metrics: Metrics;
  let names: string[] = [];
  const tmp = tempDir("storegraph-rendered-");
  beforeAll(async () => {
    const dir = join(tmp.dir, "a");
    await generateDataset({ domains: 300, apps: 30, seed: 55, outDir: dir });
    metrics = null as unknown as Metrics;
    api = await startApi(kind, dir);
    metrics = new Metrics(api.snapshots);
    await api.app.dispose();
    api.app = withKey(createApp(api.db.config, api.snapshots, { metrics }), api.key);
    resolvers = withKey(createApp(api.db.config, api.snapshots, { restWriter: "resolvers" }), api.key);
    const res = await resolvers.fetch(`${BASE}/domain?page_size=1000&fields=name,platform_domain`);
    const body = (await res.json()) as { domains: { name: string; platform_domain?: string }[] };
    names = body.domains.flatMap((d) => [d.name, ...(d.platform_domain ? [d.platform_domain] : [])]);
  }, 180_000);
  afterAll(async () => {
    await resolvers?.dispose();
    await api?.close();
    tmp.remove();
  });

  const counted = async (path: string, state: "fresh" | "broken") =>
    (await metrics.registry.getSingleMetric("storegraph_rendered_domains_total")?.get())?.values.find(
      (v) => v.labels.path === path && v.labels.state === state,
    )?.value ?? 0;

  /** The same request to the gateway and to the resolver path: the same status and body. */
  async function same(path: string, init?: RequestInit): Promise<string> {
    const a = await api.app.fetch(`${BASE}${path}`, init as never);
    const b = await resolvers.fetch(`${BASE}${path}`, init as never);
    const id = /"request_id":"[^"]*"/;
    const [ta, tb] = [(await a.text()).replace(id, ""), (await b.text()).replace(id, "")];
    expect({ status: a.status, body: ta }, path).toEqual({ status: b.status, body: tb });
    return ta;
  }

  const filterArb = fc.record(
    {
      "f:cc": fc.constantFrom("US", "DE", "GB", "FR"),
      "f:p": fc.constantFrom("shopify", "woocommerce", "bigcommerce"),
      "f:ds": fc.constantFrom("Active", "Inactive"),
      sort: fc.constantFrom("rank", "-er", "platform_rank", "-last_plan_change_at", "name", "-created_at"),
    },
    { requiredKeys: [] },
  );
  const query = (o: Record<string, string | undefined>) =>
    new URLSearchParams(
      Object.entries(o).filter((e): e is [string, string] => e[1] !== undefined),
    ).toString();

  it("exports: the default fields are the resolver path's, byte for byte, and read from the rendered records", async () => {
    const before = await counted("export", "fresh");
    await fc.assert(
      fc.asyncProperty(filterArb, async (f) => {
        await same(`/domain/export?${query(f)}`);
      }),
      { numRuns: 12 },
    );
    const whole = await same("/domain/export");
    expect(whole.split("\n").length).toBe(301);
    expect(await counted("export", "fresh")).toBeGreaterThan(before + 299);
  });

  it.runIf(kind === "postgresql")(
    "PostgreSQL keeps the pieces in rank order, each within its row, and nothing of the load's copy",
    async () => {
      const served = await api.snapshots.current();
      const db = api.db.config.database;
      if (!served || db.kind !== "postgresql") throw new Error("nothing served on PostgreSQL");
      const s = `"${served.snapshot.location}"`;
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const q = async (text: string) => (await client.query({ text, rowMode: "array" })).rows;
        // The table's own order (its rows' places), against List Domains' default order.
        const laid = (await q(`SELECT "domain_pk" FROM ${s}."domain_rendered" ORDER BY ctid`)).map(Number);
        const ranked = (await q(`SELECT "pk" FROM ${s}."domain" ORDER BY "rank", "pk"`)).map(Number);
        expect(laid).toHaveLength(300);
        expect(laid).toEqual(ranked);
        // Pieces longer than PostgreSQL's usual 2 KB threshold are in the test's data, and none
        // went to the TOAST relation.
        const [[longest, toast]] = await q(
          `SELECT max(length("body")), pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE oid = '${s}."domain_rendered"'::regclass)) FROM ${s}."domain_rendered"`,
        );
        expect(Number(longest)).toBeGreaterThan(2100);
        expect(Number(toast)).toBe(0);
        expect((await q(`SELECT to_regclass('${s}."domain_rendered_staging"')`))[0][0]).toBeNull();
        expect((await q(`SELECT to_regclass('${s}."domain_rendered_text"')`))[0][0]).toBeNull();
      } finally {
        await client.end();
      }
    },
  );

  it("an export over a real socket to a slow client (its pages through the ring, each slot freed once written) is the same text", async () => {
    const server = createHttpServer(api.app.listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const slow = (path: string, headers: Record<string, string> = {}) =>
        slowGet(port, `/json/api/v1/all${path}`, headers);
      const auth = { authorization: `Bearer ${api.key}` };
      // The default fields (rendered pieces, inflated or as gzip) and a wide selection (written pages).
      for (const path of [
        "/domain/export",
        "/domain/export?fields=*,most_recently_published_product,apps.name,apps.plans.name,technologies",
      ]) {
        const expected = await (await api.app.fetch(`${BASE}${path}`)).text();
        expect((await slow(path, auth)).toString("utf8")).toBe(expected);
      }
      const gz = await slow("/domain/export", { ...auth, "accept-encoding": "gzip" });
      expect(gunzipSync(gz).toString("utf8")).toBe(
        await (await api.app.fetch(`${BASE}/domain/export`)).text(),
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("REST answers over real sockets, many at once and some read slowly, are each the resolver path's, their buffers reused once written", async () => {
    const server = createHttpServer(api.app.listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const auth = { authorization: `Bearer ${api.key}` };
      const reusedBefore = ANSWERS.reused;
      type Ask = { path: string; bulk?: string[] };
      const asks: Ask[] = [];
      for (let i = 0; i < 24; i++) {
        const at = (i * 37) % names.length;
        if (i % 4 === 0) asks.push({ path: "/domain/bulk", bulk: names.slice(at, at + 5 + (i % 30)) });
        else if (i % 4 === 1)
          asks.push({
            path: `/domain?page_size=${[1000, 50, 300][i % 3]}&sort=${["rank", "-er", "name"][i % 3]}`,
          });
        else if (i % 4 === 2) asks.push({ path: `/domain?page_size=200&fields=name,rank&sort=-rank` });
        else asks.push({ path: `/domain/${encodeURIComponent(names[at])}` });
      }
      const init = (a: Ask) =>
        a.bulk
          ? {
              method: "POST",
              body: JSON.stringify({ domains: a.bulk }),
              headers: { "content-type": "application/json" },
            }
          : {};
      const expected = await Promise.all(
        asks.map(async (a) => (await resolvers.fetch(`${BASE}${a.path}`, init(a))).text()),
      );
      for (let round = 0; round < 3; round++) {
        const got = await Promise.all(
          asks.map(async (a, i) => {
            // Every third GET read slowly: its buffer stays out of the pool while the others are answered.
            if (!a.bulk && i % 3 === 0)
              return (await slowGet(port, `/json/api/v1/all${a.path}`, auth)).toString("utf8");
            const res = await fetch(`http://127.0.0.1:${port}/json/api/v1/all${a.path}`, {
              ...init(a),
              headers: { ...auth, ...(init(a).headers ?? {}) },
            });
            return res.text();
          }),
        );
        for (let i = 0; i < asks.length; i++) expect(got[i], asks[i].path).toBe(expected[i]);
      }
      // The pool was used: later answers were written into buffers earlier ones had been sent from.
      expect(ANSWERS.reused).toBeGreaterThan(reusedBefore);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("an export asked with gzip is the rendered pieces in one gzip member, the same text inflated", async () => {
    for (const q of ["", "f:cc=US&sort=-er", "f:cc=ZZ"]) {
      const plain = await (await api.app.fetch(`${BASE}/domain/export?${q}`)).text();
      const res = await api.app.fetch(`${BASE}/domain/export?${q}`, {
        headers: { "accept-encoding": "gzip" },
      });
      expect(res.status).toBe(200);
      const body = Buffer.from(await res.arrayBuffer());
      if (plain.length) {
        expect(res.headers.get("content-encoding")).toBe("gzip");
        // One member: gunzip checks its CRC-32 and length.
        expect(gunzipSync(body).toString("utf8")).toBe(plain);
      }
    }
  });

  it("cursor=all with the default fields gives the resolver path's records", async () => {
    const target = "/domain?f:cc=US&cursor=all";
    const poll = async (app: App) => {
      for (let i = 0; i < 600; i++) {
        const res = await app.fetch(`${BASE}${target}`);
        if (res.status !== 202) return res.text();
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("cursor=all still running");
    };
    const a = JSON.parse(await poll(api.app)) as { domains: unknown[] };
    const b = JSON.parse(await poll(resolvers)) as { domains: unknown[] };
    expect(a.domains.length).toBeGreaterThan(0);
    expect(a).toEqual(b);
  });

  it("REST one Domain, bulk and list pages with the default fields, and their next pages", async () => {
    api.resetQueries();
    for (const name of names.slice(0, 20)) await same(`/domain/${encodeURIComponent(name)}`);
    await same(`/domain/${encodeURIComponent(names[3].toUpperCase())}`);
    await same("/domain/unknown-shop.example");
    await same("/domain/bulk", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ domains: names.slice(0, 100) }),
    });
    await fc.assert(
      fc.asyncProperty(filterArb, fc.constantFrom(1, 7, 50, 1000), async (f, size) => {
        const first = JSON.parse(await same(`/domain?${query({ ...f, page_size: String(size) })}`)) as {
          next_cursor?: string;
        };
        if (first.next_cursor)
          await same(`/domain?${query({ ...f, page_size: String(size), cursor: first.next_cursor })}`);
      }),
      { numRuns: 15 },
    );
    // The texts came from the rendered records: their table was read.
    expect(api.queries.some((q) => q.includes("domain_rendered"))).toBe(true);
    // Any other selection is written per request, as before.
    api.resetQueries();
    await same(`/domain/${encodeURIComponent(names[0])}?fields=name,rank`);
    expect(api.queries.some((q) => q.includes("domain_rendered"))).toBe(false);
  });

  it("REST answers with the default fields to a client that takes gzip: the kept pieces as they are, the resolver path's text", async () => {
    const gz = { "accept-encoding": "gzip" };
    const inflated = async (res: Response) =>
      gunzipSync(Buffer.from(await res.arrayBuffer())).toString("utf8");
    const sameGzip = async (path: string, init: RequestInit = {}) => {
      const headers = { ...(init.headers as Record<string, string> | undefined), ...gz };
      const a = await api.app.fetch(`${BASE}${path}`, { ...init, headers } as never);
      const b = await resolvers.fetch(`${BASE}${path}`, { ...init, headers } as never);
      expect(a.headers.get("content-encoding"), path).toBe("gzip");
      expect(a.headers.get("vary") ?? "", path).toMatch(/accept-encoding/i);
      const raw = Buffer.from(await a.arrayBuffer());
      const id = /"request_id":"[^"]*"/;
      const [ta, tb] = [
        gunzipSync(raw).toString("utf8").replace(id, ""),
        (await inflated(b)).replace(id, ""),
      ];
      expect({ status: a.status, body: ta }, path).toEqual({ status: b.status, body: tb });
      return { text: ta, raw };
    };
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    const pieceOfName = async (name: string) => {
      const [row] = await served.sql.all(
        `SELECT x."body" FROM ${served.sql.table("domain_rendered")} x JOIN ${served.sql.table("domain")} d ON d."pk" = x."domain_pk" WHERE d."name" = $1`,
        [name],
      );
      // Its DEFLATE, past the header that names its Domain (src/db/rendered.ts: PIECE_HEADER).
      return Buffer.from(row[0] as Uint8Array).subarray(PIECE_HEADER);
    };
    // Names and aliases (a platform domain answers its Domain).
    for (const name of names.slice(0, 6)) {
      const { text, raw } = await sameGzip(`/domain/${encodeURIComponent(name)}`);
      const found = (JSON.parse(text) as { domain: { name: string } }).domain.name;
      // The record's kept piece is in the answer byte for byte: passed on, not compressed again.
      expect(raw.includes(await pieceOfName(found)), name).toBe(true);
      const plain = await api.app.fetch(`${BASE}/domain/${encodeURIComponent(name)}`);
      expect(text).toBe((await plain.text()).replace(/"request_id":"[^"]*"/, ""));
    }
    await sameGzip("/domain/bulk", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ domains: [...names.slice(0, 30), "unknown-shop.example"] }),
    });
    await fc.assert(
      fc.asyncProperty(filterArb, fc.constantFrom(1, 7, 50, 1000), async (f, size) => {
        const { text, raw } = await sameGzip(`/domain?${query({ ...f, page_size: String(size) })}`);
        const first = JSON.parse(text) as { next_cursor?: string; domains: { name: string }[] };
        // The first record's kept piece is in the answer as it is.
        if (first.domains.length)
          expect(raw.includes(await pieceOfName(first.domains[0].name)), first.domains[0].name).toBe(true);
        if (first.next_cursor)
          await sameGzip(`/domain?${query({ ...f, page_size: String(size), cursor: first.next_cursor })}`);
      }),
      { numRuns: 10 },
    );
    // No record is found: the envelope alone, one gzip member still.
    await sameGzip(`/domain?f:cc=ZZ&page_size=5`);
    // A client that prefers no compression, or another selection, gets what it got before.
    const identity = await api.app.fetch(`${BASE}/domain/${encodeURIComponent(names[0])}`, {
      headers: { "accept-encoding": "gzip;q=0, identity" },
    } as never);
    expect(identity.headers.get("content-encoding")).toBeNull();
    await sameGzip(`/domain/${encodeURIComponent(names[0])}?fields=name,rank`);
  });

  it("a served snapshot rendered again is answered from its records throughout, and nothing of the render is left", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    const expected = await (await resolvers.fetch(`${BASE}/domain/export?f:cc=US`)).text();
    const lines = expected.split("\n").length - 1;
    expect(lines).toBeGreaterThan(0);
    const before = await counted("export", "fresh");
    let rendering = true;
    const render = renderSnapshot(api.db.config, served.snapshot, createLogger({ logLevel: "warn" })).finally(
      () => {
        rendering = false;
      },
    );
    let asked = 0;
    while (rendering) {
      const res = await api.app.fetch(`${BASE}/domain/export?f:cc=US`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(expected);
      asked++;
    }
    expect((await render).records).toBe(300);
    expect(asked).toBeGreaterThan(1);
    // Every one of them copied rendered records (none was written by the row writer).
    expect((await counted("export", "fresh")) - before).toBe(asked * lines);
    const db = api.db.config.database;
    if (db.kind === "sqlite") {
      const path = join(db.dataDir, served.snapshot.location);
      // The pieces are in rank order (the table's rowid order is the Domains' (rank, pk) order),
      // found by domain_pk through its unique index; the file they were written to is gone.
      const { default: Database } = await import("better-sqlite3");
      const file = new Database(path, { readonly: true });
      try {
        const ordered = file
          .prepare(`SELECT "domain_pk" FROM "${RENDERED_TABLE}" ORDER BY "ord"`)
          .pluck()
          .all();
        expect(ordered).toEqual(
          file.prepare(`SELECT "pk" FROM "domain" ORDER BY "rank", "pk"`).pluck().all(),
        );
        expect(ordered).toHaveLength(300);
        const indexes = file
          .prepare(`SELECT "unique" FROM pragma_index_list('${RENDERED_TABLE}')`)
          .pluck()
          .all();
        expect(indexes).toEqual([1]);
      } finally {
        file.close();
      }
      expect(existsSync(`${path}.rendering`)).toBe(false);
      return;
    }
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND relname LIKE 'domain_rendered%' ORDER BY relname",
        [served.snapshot.location],
      );
      expect(rows.map((r: { relname: string }) => r.relname)).toEqual([
        "domain_rendered",
        "domain_rendered_pkey",
      ]);
    } finally {
      await client.end();
    }
  });

  it("on several threads, writes each Domain's export record once: the runs' files one after another in domains.parquet's order", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    const expected = await (await resolvers.fetch(`${BASE}/domain/export`)).text();
    const dir = join(tmp.dir, "records");
    mkdirSync(dir, { recursive: true });
    const rendered = await renderSnapshot(
      api.db.config,
      served.snapshot,
      createLogger({ logLevel: "warn" }),
      {
        threads: 3,
        records: dir,
        run: 40,
      },
    );
    expect(rendered.records).toBe(300);
    // Runs of 40 Domains: 8 files, each taken by whichever of the 3 threads was free.
    const runs = Array.from({ length: 8 }, (_, n) => `records-${n}.jsonl`);
    expect(readdirSync(dir).sort()).toEqual([...runs].sort());
    const records = runs.flatMap((run) =>
      readFileSync(join(dir, run), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { name: string; platform: string; rank: number }),
    );
    // Platform, rank, name; strings byte by byte (as DuckDB and SQLite compare them).
    const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    const sorted = [...records].sort(
      (a, b) => bytes(a.platform, b.platform) || a.rank - b.rank || bytes(a.name, b.name),
    );
    expect(records.map((r) => r.name)).toEqual(sorted.map((r) => r.name));
    expect(new Set(records.map((r) => r.name)).size).toBe(300);
    expect(new Set(records.map((r) => r.platform)).size).toBeGreaterThan(3);
    // The pieces the threads wrote answer as before.
    expect(await (await api.app.fetch(`${BASE}/domain/export`)).text()).toBe(expected);
  });
});
