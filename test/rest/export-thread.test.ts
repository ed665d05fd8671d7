import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { isDatabaseUnavailable } from "../../src/errors.ts";
import { createLogger } from "../../src/logger.ts";
import { ENTERED, EXIT, HOLD, LEFT } from "../../src/rest/export-hold.ts";
import { domainLines } from "../../src/rest/export-page.ts";
import { ExportReader } from "../../src/rest/export-reader.ts";
import { type Oracle, oracleOf } from "../graphql/oracle.ts";
import { startApi, type TestApi, tempDir, withKey } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

// A cursor=all job reads and writes its Domains off the server's thread: better-sqlite3 reads
// synchronously, so a job read in process held every other request up for as long as a page
// took. The reads are held, synchronously, where they run (src/rest/export-hold.ts), and the
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

  /** What the in-process writer gives for every Domain in name order, as a cursor=all result. */
  async function expectedResult(fields: string): Promise<string> {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    return `{"domains":[${(await domainLines(served.sql, fields, oracle.domainNames())).join(",")}]}`;
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

    /** A page's text, and its count of Domains. */
    const read = async (...args: Parameters<ExportReader["page"]>) => {
      const page = await reader.page(...args);
      return { count: page.count, text: new TextDecoder().decode(page.bytes) };
    };

    it("writes what domainLines writes in process, nested selections too, in either format", async () => {
      const s = await served();
      const names = oracle.domainNames().slice(20, 80).reverse();
      for (const fields of [
        "",
        "*,most_recently_published_product",
        "name,apps.name,apps.plans.name,technologies",
      ]) {
        const lines = await domainLines(s.sql, fields, names);
        expect(await read(s.snapshot, fields, names, "jsonl")).toEqual({
          count: 60,
          text: lines.map((l) => `${l}\n`).join(""),
        });
        expect(await read(s.snapshot, fields, names, "json")).toEqual({ count: 60, text: lines.join(",") });
      }
      expect(await read(s.snapshot, "name", [], "jsonl")).toEqual({
        count: 0,
        text: "",
      });
    });

    it("rejects a page it cannot read with the reason, and goes on reading", async () => {
      const s = await served();
      const sel = "name";
      await expect(reader.page(s.snapshot, sel, ["no-such-domain.example"], "jsonl")).rejects.toThrow(
        /no-such-domain\.example vanished/,
      );
      await expect(
        reader.page({ location: "snapshots/no-such-file.db" }, sel, ["a.example"], "jsonl"),
      ).rejects.toThrow();
      const [name] = oracle.domainNames();
      expect((await read(s.snapshot, sel, [name], "json")).text).toBe(JSON.stringify({ name }));
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
          const err = await down
            .page({ location: "storegraph_snapshot_1" }, sel, ["a.example"], "jsonl")
            .catch((e) => e);
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
      const [name] = oracle.domainNames();
      await reader.page(s.snapshot, sel, [name], "json");
      expect(reader.running).toBe(true);
      await vi.waitFor(() => expect(reader.running).toBe(false), { timeout: 10_000, interval: 20 });
      expect((await read(s.snapshot, sel, [name], "json")).text).toBe(JSON.stringify({ name }));
    });
  });
});
