import { join } from "node:path";
import { gunzipSync, constants as zlibConstants } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { pieceOf } from "../../src/codec/deflate.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { keptPiece, RENDERED_TABLE } from "../../src/db/rendered.ts";
import { pgRenderedSink } from "../../src/db/rendered-pg-sink.ts";
import { type RenderedSink, sqliteRenderedSink } from "../../src/db/rendered-sink.ts";
import { Metrics } from "../../src/ops/metrics.ts";
import { startApi, type TestApi, tempDir, withKey } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { connect, textOf } from "../support/mcp.ts";

// Rendered records that are not what their stamp promises (issue 70, item 4): a snapshot whose
// domain_rendered lost rows, or holds a Domain's row with another Domain's piece, under this
// code's stamp. Every face that reads the pieces (one Domain, bulk, a list page, the export as
// JSON Lines and gzip, cursor=all, MCP get_domain) answers those Domains as the resolver path
// does, never a 404, a 500, a short export or another Domain's record; each is counted
// (storegraph_rendered_domains_total{state="broken"}). And a render that is not complete is not
// published (src/db/rendered.ts: checkComplete).

const BASE = "http://localhost/json/api/v1/all";

describe.each(databaseKinds())("rendered records lost or another's on %s", (kind) => {
  let api: TestApi;
  let resolvers: App;
  let metrics: Metrics;
  /** By rank: each Domain's name and key. */
  let domains: { name: string; pk: number }[] = [];
  const tmp = tempDir("storegraph-rendered-broken-");

  /** Runs statements on the served snapshot's own database, as an operator or a fault would. */
  async function onSnapshot(statements: (table: (n: string) => string) => string[]): Promise<void> {
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    const db = api.db.config.database;
    if (db.kind === "sqlite") {
      const { default: Database } = await import("better-sqlite3");
      const file = new Database(join(db.dataDir, served.snapshot.location), { timeout: 10_000 });
      try {
        for (const s of statements((n) => `"${n}"`)) file.exec(s);
      } finally {
        file.close();
      }
      return;
    }
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      for (const s of statements((n) => `"${served.snapshot.location}"."${n}"`)) await client.query(s);
    } finally {
      await client.end();
    }
  }

  const broken = async (path: string) =>
    (await metrics.registry.getSingleMetric("storegraph_rendered_domains_total")?.get())?.values.find(
      (v) => v.labels.path === path && v.labels.state === "broken",
    )?.value ?? 0;

  beforeAll(async () => {
    const dir = join(tmp.dir, "a");
    await generateDataset({ domains: 300, apps: 30, seed: 70, outDir: dir });
    api = await startApi(kind, dir);
    metrics = new Metrics(api.snapshots);
    await api.app.dispose();
    api.app = withKey(createApp(api.db.config, api.snapshots, { metrics }), api.key);
    resolvers = withKey(createApp(api.db.config, api.snapshots, { restWriter: "resolvers" }), api.key);
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    domains = (
      await served.sql.all(`SELECT "name", "pk" FROM ${served.sql.table("domain")} ORDER BY "rank", "pk"`, [])
    ).map((r) => ({ name: String(r[0]), pk: Number(r[1]) }));
    expect(domains).toHaveLength(300);
  }, 180_000);
  afterAll(async () => {
    await resolvers?.dispose();
    await api?.close();
    tmp.remove();
  });

  /** A body's JSON; {} where it is none (an error's, its request id taken out). */
  const parsed = (text: string): Record<string, unknown> => {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return {};
    }
  };

  /** The same request to the gateway and to the resolver path: the same status and body. */
  async function same(path: string, init?: RequestInit): Promise<string> {
    const a = await api.app.fetch(`${BASE}${path}`, init as never);
    const b = await resolvers.fetch(`${BASE}${path}`, init as never);
    const id = /"request_id":"[^"]*"/;
    const gz = (r: Response, raw: Buffer) =>
      r.headers.get("content-encoding") === "gzip" ? gunzipSync(raw).toString("utf8") : raw.toString("utf8");
    const ta = gz(a, Buffer.from(await a.arrayBuffer())).replace(id, "");
    const tb = gz(b, Buffer.from(await b.arrayBuffer())).replace(id, "");
    // Soft: each face that fails is reported, not only the first.
    expect.soft({ status: a.status, body: ta }, `${path} ${JSON.stringify(init?.headers ?? {})}`).toEqual({
      status: b.status,
      body: tb,
    });
    return ta;
  }

  it("Domains whose piece is lost or another's are answered by the writer on every face, and counted", async () => {
    // The answers read the pieces before they are broken.
    api.resetQueries();
    await same(`/domain/${encodeURIComponent(domains[0].name)}`);
    expect(api.queries.some((q) => q.includes(RENDERED_TABLE))).toBe(true);
    const lost = domains[0];
    const [wrong, other] = domains.filter((d) => d.pk % 3 !== lost.pk % 3);
    await onSnapshot((t) => [
      // A third of the pieces lost, the first Domain's among them…
      `DELETE FROM ${t(RENDERED_TABLE)} WHERE "domain_pk" % 3 = ${lost.pk % 3}`,
      // …and one Domain's row holding another Domain's piece, CRC-32 and length.
      ...["crc", "len", "body"].map(
        (c) =>
          `UPDATE ${t(RENDERED_TABLE)} SET "${c}" = (SELECT "${c}" FROM ${t(RENDERED_TABLE)} WHERE "domain_pk" = ${other.pk}) WHERE "domain_pk" = ${wrong.pk}`,
      ),
    ]);
    const gz = { headers: { "accept-encoding": "gzip" } };
    for (const init of [undefined, gz]) {
      // One Domain: not a 404, not another Domain's record under its name.
      for (const d of [lost, wrong, other]) {
        const one = await same(`/domain/${encodeURIComponent(d.name)}`, init);
        expect.soft((parsed(one) as { domain?: { name: string } }).domain?.name).toBe(d.name);
      }
      await same("/domain/bulk", {
        method: "POST",
        ...init,
        headers: { "content-type": "application/json", ...init?.headers },
        body: JSON.stringify({ domains: domains.slice(0, 60).map((d) => d.name) }),
      });
      // A page of every Domain (not a 500), and a page after a cursor.
      const page = parsed(await same("/domain?page_size=300", init)) as { domains?: { name: string }[] };
      expect.soft(page.domains?.map((d) => d.name)).toEqual(domains.map((d) => d.name));
      const first = parsed(await same("/domain?page_size=7&f:cc=US", init)) as { next_cursor?: string };
      if (first.next_cursor) await same(`/domain?page_size=7&f:cc=US&cursor=${first.next_cursor}`, init);
      // The export, whole: every Domain, as JSON Lines and in one gzip member.
      const exported = await same("/domain/export", init);
      expect.soft(exported.split("\n")).toHaveLength(301);
      await same("/domain/export?f:cc=US&sort=-er", init);
    }
    expect.soft(await broken("rest")).toBeGreaterThan(0);
    expect.soft(await broken("export")).toBeGreaterThanOrEqual(2 * 100);
    // cursor=all.
    const poll = async (app: App) => {
      for (let i = 0; i < 600; i++) {
        const res = await app.fetch(`${BASE}/domain?cursor=all`);
        if (res.status !== 202) return res.text();
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("cursor=all still running");
    };
    const all = parsed(await poll(api.app)) as { domains?: { name: string }[] };
    expect.soft(all.domains).toHaveLength(300);
    expect.soft(all).toEqual(parsed(await poll(resolvers)));
    expect.soft(await broken("job")).toBeGreaterThanOrEqual(100);
    // MCP get_domain with the API's own defaults (*) answers as REST does.
    const client = await connect(api, api.key);
    try {
      for (const d of [lost, wrong]) {
        const r = (await client.callTool({
          name: "get_domain",
          arguments: { name: d.name, fields: "*" },
        })) as Parameters<typeof textOf>[0] & { structuredContent?: unknown };
        expect.soft(r.isError, textOf(r)).toBeFalsy();
        const expected = await (await resolvers.fetch(`${BASE}/domain/${encodeURIComponent(d.name)}`)).json();
        expect.soft(r.structuredContent).toEqual(expected);
      }
    } finally {
      await client.close();
    }
  });

  it("a piece whose header is right but whose DEFLATE is not its text is answered by the writer, not a 500 or another's text", async () => {
    const lost = domains[0];
    // Domains the test before left their pieces (another residue of 3 than the lost ones'), not
    // the two it swapped.
    const [, , swapped, garbled, other] = domains.filter((d) => d.pk % 3 !== lost.pk % 3);
    const before = await broken("rest");
    const damaged = `${swapped.pk}, ${garbled.pk}`;
    // Kept to be put back: the tests after read the export, which copies the pieces as they are
    // (their gzip trailer's CRC-32, made of the pieces', tells a client of a body that is not its text).
    await onSnapshot((t) => [
      `CREATE TABLE ${t("kept_body")} AS SELECT "domain_pk", "body" FROM ${t(RENDERED_TABLE)} WHERE "domain_pk" IN (${damaged})`,
    ]);
    await onSnapshot((t) =>
      kind === "sqlite"
        ? [
            // Its own header (key, CRC-32, length), another Domain's DEFLATE: inflates, to another text.
            `UPDATE ${t(RENDERED_TABLE)} SET "body" = CAST(substr("body", 1, 16) || (SELECT substr("body", 17) FROM ${t(RENDERED_TABLE)} WHERE "domain_pk" = ${other.pk}) AS BLOB) WHERE "domain_pk" = ${swapped.pk}`,
            // Its own header, bytes that are no DEFLATE stream: inflating fails.
            `UPDATE ${t(RENDERED_TABLE)} SET "body" = CAST(substr("body", 1, 16) || randomblob(64) AS BLOB) WHERE "domain_pk" = ${garbled.pk}`,
          ]
        : [
            `UPDATE ${t(RENDERED_TABLE)} SET "body" = substring("body" from 1 for 16) || (SELECT substring("body" from 17) FROM ${t(RENDERED_TABLE)} WHERE "domain_pk" = ${other.pk}) WHERE "domain_pk" = ${swapped.pk}`,
            `UPDATE ${t(RENDERED_TABLE)} SET "body" = substring("body" from 1 for 16) || decode(repeat('ff', 64), 'hex') WHERE "domain_pk" = ${garbled.pk}`,
          ],
    );
    for (const d of [swapped, garbled]) {
      const one = await same(`/domain/${encodeURIComponent(d.name)}`);
      expect.soft((parsed(one) as { domain?: { name: string } }).domain?.name).toBe(d.name);
    }
    const page = parsed(await same("/domain?page_size=300")) as { domains?: { name: string }[] };
    expect.soft(page.domains?.map((d) => d.name)).toEqual(domains.map((d) => d.name));
    expect.soft(await broken("rest")).toBeGreaterThan(before);
    // A plain export inflates a page at once, which its bad pieces fail or give another text: the
    // page is written by the writer instead (every Domain of it counted), not a 500 mid-stream.
    const exported = await broken("export");
    const lines = (await same("/domain/export", { headers: { "accept-encoding": "identity" } }))
      .trim()
      .split("\n");
    expect
      .soft(lines.map((l) => (JSON.parse(l) as { name: string }).name))
      .toEqual(domains.map((d) => d.name));
    expect.soft(await broken("export")).toBeGreaterThanOrEqual(exported + domains.length);
    await onSnapshot((t) => [
      `UPDATE ${t(RENDERED_TABLE)} SET "body" = (SELECT k."body" FROM ${t("kept_body")} k WHERE k."domain_pk" = ${t(RENDERED_TABLE)}."domain_pk") WHERE "domain_pk" IN (${damaged})`,
      `DROP TABLE ${t("kept_body")}`,
    ]);
  });

  /** A render's sink for the served copy, as a load's render opens it. */
  const sinkOf = (served: { snapshot: { location: string } }) => {
    const db = api.db.config.database;
    return db.kind === "sqlite"
      ? sqliteRenderedSink(join(db.dataDir, served.snapshot.location))
      : pgRenderedSink(db.url, served.snapshot.location);
  };

  /** A page of pieces to `sink`, one for each of `page`'s Domains, as a render's thread sends it. */
  async function writePage(sink: RenderedSink, page: { pk: number; name: string }[]): Promise<void> {
    const kept = page.map((d) => keptPiece(d.pk, pieceOf(Buffer.from(`{"name":"${d.name}"}`))));
    const ends = new Uint32Array(kept.length);
    kept.reduce((at, k, i) => {
      ends[i] = at + k.length;
      return ends[i];
    }, 0);
    await sink.write({
      bytes: Buffer.concat(kept),
      pks: Float64Array.from(page.map((d) => d.pk)),
      crcs: new Uint32Array(kept.length),
      lens: new Uint32Array(kept.length),
      ends,
    });
  }

  it("a render missing a Domain's piece is refused before it is published, and what was served stays", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    const countOf = async () =>
      Number((await served.sql.all(`SELECT count(*) FROM ${served.sql.table(RENDERED_TABLE)}`, []))[0][0]);
    const before = await countOf();
    const sink = await sinkOf(served);
    // Every Domain but the last two, each with a piece of its own.
    await writePage(sink, domains.slice(0, -2));
    await expect(sink.finish()).rejects.toThrow(/298 of the snapshot's 300 Domains.*not published/);
    await sink.abort();
    // The served records are as they were: the same pieces.
    expect(await countOf()).toBe(before);
    expect((await same("/domain/export")).split("\n")).toHaveLength(301);
  });

  it("a render with a Domain's piece twice (and so as many pieces as Domains) is refused before it is published", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    const sink = await sinkOf(served);
    // Every Domain but the last, and the first again, in pages as the threads send them.
    const written = [...domains.slice(0, -1), domains[0]];
    for (const page of [written.slice(0, 150), written.slice(150)]) await writePage(sink, page);
    await expect(sink.finish()).rejects.toThrow(/wrote 1 pieces of Domains already written: not published/);
    await sink.abort();
    expect((await same("/domain/export")).split("\n")).toHaveLength(301);
  });
});

describe.each(databaseKinds())("an export of rendered pieces that fails midway on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-rendered-midway-");
  beforeAll(async () => {
    const dir = join(tmp.dir, "a");
    // More Domains than a page of pieces holds (1,000): the export's second page is read after
    // its first is sent.
    await generateDataset({ domains: 1100, apps: 30, seed: 71, outDir: dir });
    api = await startApi(kind, dir);
  }, 300_000);
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("ends with the export contract's error line inside its gzip member, where a client inflating it reads it", async () => {
    let pages = 0;
    const failing = withKey(
      createApp(api.db.config, api.snapshots, {
        beforeExportPage: async () => {
          if (++pages === 2) throw new Error("the database went away");
        },
      }),
      api.key,
    );
    try {
      const res = await failing.fetch(`${BASE}/domain/export`, { headers: { "accept-encoding": "gzip" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-encoding")).toBe("gzip");
      // Read until the stream breaks.
      const chunks: Uint8Array[] = [];
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await expect(
        (async () => {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            chunks.push(value);
          }
        })(),
      ).rejects.toBeDefined();
      // The member has no end (the stream is broken): what it holds, inflated as far as it goes.
      const text = gunzipSync(Buffer.concat(chunks), { finishFlush: zlibConstants.Z_SYNC_FLUSH }).toString(
        "utf8",
      );
      const lines = text.split("\n");
      expect(lines.at(-1)).toBe("");
      expect(lines).toHaveLength(1000 + 2);
      expect(JSON.parse(lines.at(-2) as string)).toEqual({
        error: expect.stringMatching(/^Unexpected error \(request id [\w-]+\)\.$/),
        code: "INTERNAL_SERVER_ERROR",
        request_id: res.headers.get("x-request-id"),
      });
    } finally {
      await failing.dispose();
    }
  });
});
