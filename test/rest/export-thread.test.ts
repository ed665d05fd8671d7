import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { readContext } from "../../src/context.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import type { SnapshotRow } from "../../src/db/store.ts";
import { isDatabaseUnavailable } from "../../src/errors.ts";
import { ENTERED, EXIT, HOLD, LEFT } from "../../src/export/export-hold.ts";
import { domainStream, type ExportVariables, exportQueryOf } from "../../src/export/export-page.ts";
import type { PageFormat } from "../../src/export/export-reader.ts";
import { ExportReader } from "../../src/export/export-reader.ts";
import { createLogger } from "../../src/logger.ts";
import { type Oracle, oracleOf } from "../graphql/oracle.ts";
import { startApi, type TestApi, tempDir, withKey } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

// A cursor=all job reads and writes its Domains off the server's thread: better-sqlite3 reads
// synchronously, so a job read in process held every other request up for as long as a page
// took. The reads are held, synchronously, where they run (src/export/export-hold.ts), and the
// server must answer meanwhile.

const BASE = "http://localhost/json/api/v1/all/domain";
const scratch = tempDir("storegraph-export-thread-");
let oracle: Oracle;

beforeAll(async () => {
  await generateDataset({ domains: 150, apps: 20, seed: 16, outDir: scratch.dir });
  oracle = oracleOf(scratch.dir);
});

afterAll(() => scratch.remove());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function control(hold: 0 | 1): Int32Array {
  const c = new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT));
  Atomics.store(c, HOLD, hold);
  return c;
}

function release(c: Int32Array, to = 0): void {
  Atomics.store(c, HOLD, to);
  Atomics.notify(c, HOLD);
}

/** Until a read has reached the hold. */
const held = (c: Int32Array) =>
  vi.waitFor(() => expect(Atomics.load(c, ENTERED)).toBeGreaterThan(0), { timeout: 30_000, interval: 5 });

/** Polls a cursor=all request until it answers something other than 202. */
async function poll(app: App, target: string): Promise<Response> {
  for (let started = Date.now(); Date.now() - started < 30_000; await sleep(50)) {
    const res = await app.fetch(target);
    if (res.status !== 202) return res;
    await res.body?.cancel();
  }
  throw new Error(`${target} still 202 after 30 s`);
}

describe.each(databaseKinds())("cursor=all reads off the server's thread (%s)", (kind) => {
  let api: TestApi;
  const apps: App[] = [];
  /** An app over the test database whose export reads are held by `c`. */
  const appHeldBy = (c: Int32Array) => {
    const app = withKey(createApp(api.db.config, api.snapshots, { holdExportReads: c }), api.key);
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    api = await startApi(kind, scratch.dir);
  });

  afterAll(async () => {
    for (const app of apps) await app.dispose();
    await api?.close();
  });

  /** List Domains' `variables` resolved as an export's check resolves them, on the served snapshot. */
  async function resolved(variables: ExportVariables = {}) {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    return exportQueryOf(readContext(served), variables);
  }

  /** Every Domain `query` matches, as the in-process stream writes them, in batches of `batch`. */
  async function linesInProcess(
    fields: string,
    query: ExportVariables = {},
    batch = 1000,
  ): Promise<string[]> {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    const lines: string[] = [];
    for await (const page of domainStream(served, fields, await resolved(query), batch))
      lines.push(...page.lines);
    return lines;
  }

  /** What the in-process writer gives for every Domain in rank order, as a cursor=all result. */
  async function expectedResult(fields: string): Promise<string> {
    const lines = await linesInProcess(fields);
    expect(lines.map((l) => (JSON.parse(l) as { name: string }).name)).toEqual(oracle.domainNames());
    return `{"domains":[${lines.join(",")}]}`;
  }

  it("answers a one-Domain request while the job's read is held, and the result is the writer's", async () => {
    const c = control(1);
    const app = appHeldBy(c);
    const target = `${BASE}?cursor=all`;
    try {
      const started = await app.fetch(target);
      expect(started.status).toBe(202);
      await started.text();
      await held(c);

      const name = oracle.domainNames()[7];
      const one = await app.fetch(`${BASE}/${name}`);
      expect(one.status).toBe(200);
      expect(((await one.json()) as { domain: { name: string } }).domain.name).toBe(name);
      expect(Atomics.load(c, LEFT), "the job's read was still held when the Domain was answered").toBe(0);
    } finally {
      release(c);
    }
    const done = await poll(app, target);
    expect(done.status).toBe(200);
    expect(await done.text()).toBe(await expectedResult(""));
  });

  it("fails the job with a JSON error when the reading thread dies mid-read, and the next job runs", async () => {
    const c = control(1);
    const app = appHeldBy(c);
    const target = `${BASE}?cursor=all&fields=name,rank`;
    const started = await app.fetch(target);
    expect(started.status).toBe(202);
    await started.text();
    await held(c);
    release(c, EXIT);
    const failed = await poll(app, target);
    expect(failed.status).toBe(500);
    expect(failed.headers.get("content-type")).toMatch(/^application\/json/);
    // A fault of ours: masked, with the request id the log has the cause under.
    expect(await failed.json()).toEqual({
      error: expect.stringMatching(/^Unexpected error \(request id [\w-]+\)\.$/),
      code: "INTERNAL_SERVER_ERROR",
      request_id: failed.headers.get("x-request-id"),
    });

    // Reported once; asked again, the job starts afresh on a new thread.
    release(c);
    const again = await app.fetch(target);
    expect(again.status).toBe(202);
    await again.text();
    const done = await poll(app, target);
    expect(done.status).toBe(200);
    expect(await done.text()).toBe(await expectedResult("name,rank"));
  });

  it("answers an export whose reading thread dies with 500 JSON, not a hang", async () => {
    const c = control(1);
    const app = appHeldBy(c);
    const answer = app.fetch(`${BASE}/export?fields=name`);
    await held(c);
    release(c, EXIT);
    const res = await answer;
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; code: string; request_id: string };
    expect(body.code).toBe("INTERNAL_SERVER_ERROR");
    expect(body.error).toMatch(/request id/);
  });

  it("fails a job whose read is held when the app is disposed, stopping the thread at once", async () => {
    const c = control(1);
    const app = withKey(createApp(api.db.config, api.snapshots, { holdExportReads: c }), api.key);
    const before = new Set((await jobRows()).map((j) => j.id));
    const started = await app.fetch(`${BASE}?cursor=all&fields=name,state`);
    expect(started.status).toBe(202);
    await started.text();
    await held(c);
    await app.dispose();
    // Terminated inside the hold, not let out of it.
    expect(Atomics.load(c, LEFT)).toBe(0);
    await vi.waitFor(
      async () => {
        const mine = (await jobRows()).filter((j) => !before.has(j.id));
        expect(mine.map((j) => [j.status, j.error])).toEqual([
          ["failed", expect.stringMatching(/^Unexpected error \(request id /)],
        ]);
      },
      { timeout: 10_000, interval: 20 },
    );
    release(c);
  });

  const jobRows = async () =>
    (await api.snapshots.store.metaQuery("SELECT id, status, error FROM {meta}.export_job")) as {
      id: string;
      status: string;
      error: string | null;
    }[];

  describe("ExportReader", () => {
    let reader: ExportReader;
    beforeAll(() => {
      reader = new ExportReader(
        { database: api.db.config.database, timeouts: api.db.config.timeouts },
        createLogger(api.db.config),
        200,
      );
    });
    afterAll(() => reader.close());

    const served = async () => {
      const s = await api.snapshots.current();
      if (!s) throw new Error("no snapshot");
      return s;
    };

    /** A stream's text, and its count of Domains. */
    const read = async (
      snapshot: SnapshotRow,
      fields: string,
      variables: ExportVariables,
      format: PageFormat,
    ) => {
      let count = 0;
      const texts: string[] = [];
      const decoder = new TextDecoder();
      for await (const page of reader.stream(snapshot, fields, await resolved(variables), format)) {
        count += page.count;
        texts.push(decoder.decode(page.bytes));
      }
      // JSON pages are joined by commas (as a cursor=all result joins them), JSON Lines end lines.
      return { count, text: texts.join(format === "json" ? "," : "") };
    };

    const QUERIES: ExportVariables[] = [
      {},
      // A nullable sort key (read in two phases: known values, then unknown ones) and a filter.
      {
        orderBy: [{ field: "ESTIMATED_SALES", direction: "DESC" }],
        filter: { countryCode: { op: "OR", values: ["US", "DE", "GB"] } },
      },
      { orderBy: [{ field: "NAME", direction: "DESC" }], search: "shop" },
    ];

    it("writes what domainStream writes in process, in any batches, nested selections too, in either format", async () => {
      const s = await served();
      for (const query of QUERIES) {
        for (const fields of [
          "",
          "*,most_recently_published_product",
          "name,apps.name,apps.plans.name,technologies",
        ]) {
          const lines = await linesInProcess(fields, query);
          expect(lines.length, JSON.stringify(query)).toBeGreaterThan(0);
          // Batches of 7 read and write what one batch does.
          expect(await linesInProcess(fields, query, 7)).toEqual(lines);
          expect(await read(s.snapshot, fields, query, "jsonl")).toEqual({
            count: lines.length,
            text: lines.map((l) => `${l}\n`).join(""),
          });
          expect(await read(s.snapshot, fields, query, "json")).toEqual({
            count: lines.length,
            text: lines.join(","),
          });
        }
      }
      expect(
        await read(s.snapshot, "name", { filter: { countryCode: { values: ["ZZ"] } } }, "jsonl"),
      ).toEqual({
        count: 0,
        text: "",
      });
    });

    it("hands pages through the stream's ring while a slot is free, moves them while none is, and loses no byte", async () => {
      const s = await served();
      // Wide lines, so that the stream takes several pages (of about 256 KB).
      const fields =
        "*,most_recently_published_product,apps.name,apps.plans.name,apps.categories,technologies";
      const plain = await read(s.snapshot, fields, {}, "jsonl");
      const ringed = new ExportReader(
        { database: api.db.config.database, timeouts: api.db.config.timeouts },
        createLogger(api.db.config),
        200,
        1,
      );
      const decoder = new TextDecoder();
      try {
        // Nothing released: the one slot holds the first page, and the rest are moved.
        const kept: { text: string; release?: () => void }[] = [];
        for await (const page of ringed.stream(s.snapshot, fields, await resolved(), "jsonl", 0, {
          ring: true,
        }))
          kept.push({ text: decoder.decode(page.bytes), release: page.release });
        expect(kept.length).toBeGreaterThan(1);
        expect(kept.map((p) => p.release !== undefined)).toEqual(kept.map((_p, i) => i === 0));
        expect(kept.map((p) => p.text).join("")).toBe(plain.text);
        // Each page released once read: every page is still its own.
        const texts: string[] = [];
        let through = 0;
        for await (const page of ringed.stream(s.snapshot, fields, await resolved(), "jsonl", 0, {
          ring: true,
        })) {
          texts.push(decoder.decode(page.bytes));
          if (page.release) through++;
          page.release?.();
        }
        expect(texts.join("")).toBe(plain.text);
        expect(through).toBeGreaterThan(0);
      } finally {
        await ringed.close();
      }
    });

    it("streams the Domains in the order List Domains pages them, for every sort", async () => {
      const app = withKey(createApp(api.db.config, api.snapshots), api.key);
      apps.push(app);
      for (const sort of ["rank", "-er", "estimated_visits", "-pc", "name", "-last_plan_change_at"]) {
        const res = await app.fetch(`${BASE}?sort=${sort}&page_size=1000&fields=name`);
        expect(res.status).toBe(200);
        const listed = ((await res.json()) as { domains: { name: string }[] }).domains.map((d) => d.name);
        const [field, direction] = sort.startsWith("-") ? [sort.slice(1), "DESC"] : [sort, "ASC"];
        const enumValue = {
          rank: "RANK",
          er: "ESTIMATED_SALES",
          estimated_visits: "ESTIMATED_VISITS",
          pc: "PRODUCT_COUNT",
          name: "NAME",
          last_plan_change_at: "LAST_PLAN_CHANGE_AT",
        }[field];
        const lines = await linesInProcess("name", { orderBy: [{ field: enumValue, direction }] }, 13);
        expect(
          lines.map((l) => (JSON.parse(l) as { name: string }).name),
          sort,
        ).toEqual(listed);
      }
    });

    it("reads each Domain once, through one statement per phase, and nothing by name", async () => {
      const s = await served();
      const { openSnapshotReader } = await import("../../src/db/reader.ts");
      const seen: string[] = [];
      const sql = openSnapshotReader(api.db.config, s.snapshot, { onQuery: (text) => seen.push(text) });
      try {
        let count = 0;
        const query = { orderBy: [{ field: "ESTIMATED_SALES", direction: "DESC" }] };
        for await (const page of domainStream(
          { ...s, sql },
          "name,rank,apps.name",
          await resolved(query),
          10,
        ))
          count += page.lines.length;
        expect(count).toBe(oracle.domainNames().length);
        const domainReads = seen.filter(
          (t) => /FROM "?[\w.]*"?\.?"domain" /.test(t) || t.includes('"domain" r'),
        );
        // Two phases (known sales, then unknown), each one cursor; Apps are read as rows of their own.
        expect(domainReads).toHaveLength(2);
        expect(seen.some((t) => /"name" = ANY|json_each\(\$1\)\) OR/.test(t))).toBe(false);
      } finally {
        await sql.close();
      }
    });

    it("rejects a stream it cannot read with the reason, and goes on reading", async () => {
      const s = await served();
      await expect(
        read({ ...s.snapshot, location: "snapshots/no-such-file.db" }, "name", {}, "jsonl"),
      ).rejects.toThrow();
      // A sort it does not know is refused where the export is resolved, before a thread reads.
      await expect(resolved({ orderBy: [{ field: "NOPE" }] })).rejects.toThrow(/NOPE/);
      expect((await read(s.snapshot, "name", {}, "json")).text).toBe(
        oracle
          .domainNames()
          .map((name) => JSON.stringify({ name }))
          .join(","),
      );
    });

    it.runIf(kind === "postgresql")(
      "keeps a failed read's code, so that the database not answering stays DATABASE_UNAVAILABLE",
      async () => {
        const database = api.db.config.database;
        if (database.kind !== "postgresql") return;
        // Nothing listens on port 9: the thread's connection is refused (ECONNREFUSED).
        const down = new ExportReader(
          {
            database: { ...database, url: "postgres://postgres@127.0.0.1:9/none" },
            timeouts: api.db.config.timeouts,
          },
          createLogger(api.db.config),
          200,
        );
        try {
          const sel = "name";
          const pages = down.stream((await served()).snapshot, sel, await resolved(), "jsonl");
          const err = await pages.next().catch((e: unknown) => e);
          expect(err).toBeInstanceOf(Error);
          expect(isDatabaseUnavailable(err), String(err)).toBe(true);
        } finally {
          await down.close();
        }
      },
    );

    it("stops its thread when idle, and starts one again when asked", async () => {
      const s = await served();
      const sel = "name";
      const names = oracle.domainNames();
      const pages = reader.stream(s.snapshot, sel, await resolved(), "json");
      await pages.next();
      expect(reader.running).toBe(true);
      await pages.return(undefined);
      await vi.waitFor(() => expect(reader.running).toBe(false), { timeout: 10_000, interval: 20 });
      expect((await read(s.snapshot, sel, {}, "json")).text).toBe(
        names.map((name) => JSON.stringify({ name })).join(","),
      );
    });
  });
});
