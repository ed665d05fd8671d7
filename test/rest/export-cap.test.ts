import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import type { RawRow } from "../../src/db/reader.ts";
import { POOL_SIZE } from "../../src/db/reader.ts";
import { ENTERED, HOLD } from "../../src/export/export-hold.ts";
import { type Oracle, oracleOf } from "../graphql/oracle.ts";
import { startApi, type TestApi, tempDir, withKey } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { connect, textOf } from "../support/mcp.ts";

/**
 * A gateway runs at most EXPORT_CONCURRENCY exports at once (Export Domains' streams and
 * cursor=all jobs, the MCP export tool's included): one more is refused at once with 503 BUSY,
 * Retry-After and a message that names the limit, and a wait for a pooled connection that times
 * out is BUSY too, never DATABASE_UNAVAILABLE. Fifty exports at once took 3.5 GB on SQLite, and on
 * PostgreSQL 40 of 50 waited out the export thread's pool and were told the database was down.
 */

const BASE = "http://localhost/json/api/v1/all";
const MAX = 2;
const scratch = tempDir("storegraph-export-cap-");
let oracle: Oracle;

beforeAll(async () => {
  await generateDataset({ domains: 150, apps: 20, seed: 21, outDir: scratch.dir });
  oracle = oracleOf(scratch.dir);
});

afterAll(() => scratch.remove());

type Json = Record<string, unknown>;

/** An export's reads held where they are read (src/export/export-hold.ts), until released. */
function control(): Int32Array {
  const c = new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT));
  Atomics.store(c, HOLD, 1);
  return c;
}

function release(c: Int32Array): void {
  Atomics.store(c, HOLD, 0);
  Atomics.notify(c, HOLD);
}

async function expectBusy(res: Response, what: RegExp): Promise<Json> {
  expect(res.status).toBe(503);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  const body = (await res.json()) as Json;
  expect(body).toMatchObject({ code: "BUSY", error: expect.stringMatching(what) });
  expect(body.retry_after).toBe(Number(res.headers.get("retry-after")));
  return body;
}

describe.each(databaseKinds())("exports run at once, at most EXPORT_CONCURRENCY (%s)", (kind) => {
  let api: TestApi;
  const apps: App[] = [];

  beforeAll(async () => {
    api = await startApi(kind, scratch.dir);
  });

  afterAll(async () => {
    for (const app of apps) await app.dispose();
    await api?.close();
  });

  it("refuses the exports past the limit with 503 BUSY through each face, and runs the rest whole", async () => {
    const c = control();
    const app = withKey(
      createApp({ ...api.db.config, exportConcurrency: MAX }, api.snapshots, { holdExportReads: c }),
      api.key,
    );
    apps.push(app);
    const limit = new RegExp(`maximum of ${MAX} exports and cursor=all jobs at once; retry in \\d+ s`);
    try {
      // MAX + 2 exports at once: MAX run (their reads held), 2 are refused at once.
      const settled: { index: number; res: Response }[] = [];
      const exports = Array.from({ length: MAX + 2 }, (_, index) =>
        Promise.resolve(app.fetch(`${BASE}/domain/export?fields=name`)).then((res) => {
          settled.push({ index, res });
          return res;
        }),
      );
      await vi.waitFor(() => expect(settled.length).toBe(2), { timeout: 30_000, interval: 10 });
      for (const { res } of settled) await expectBusy(res, limit);
      await vi.waitFor(
        () => expect(Atomics.load(c, ENTERED), "an export's read is held").toBeGreaterThan(0),
        {
          timeout: 30_000,
          interval: 10,
        },
      );

      // A cursor=all job is one of them: refused before it starts (no job, no budget drawn).
      const job = await app.fetch(`${BASE}/domain?cursor=all&fields=name`);
      await expectBusy(job, limit);
      const jobs = await api.snapshots.store.metaQuery("SELECT id FROM {meta}.export_job");
      expect(jobs).toEqual([]);

      // The MCP tool that starts a job: a tool error with the API's code and message.
      const client = await connect({ ...api, app }, api.key);
      try {
        const r = (await client.callTool({
          name: "export_segment",
          arguments: { fields: "name" },
        })) as CallToolResult;
        expect(r.isError).toBe(true);
        expect(textOf(r)).toMatch(new RegExp(`^BUSY: .*${limit.source}`));
      } finally {
        await client.close();
      }

      // Those running finish whole once their reads go on.
      release(c);
      const running = (await Promise.all(exports)).filter((res) => res.status === 200);
      expect(running).toHaveLength(MAX);
      for (const res of running) {
        const names = (await res.text())
          .trimEnd()
          .split("\n")
          .map((l) => (JSON.parse(l) as { name: string }).name);
        expect(names).toEqual(oracle.domainNames());
      }
    } finally {
      release(c);
    }

    // Their slots are free again: an export and a job run.
    const again = await app.fetch(`${BASE}/domain/export?fields=name`);
    expect(again.status).toBe(200);
    expect((await again.text()).trimEnd().split("\n")).toHaveLength(oracle.domainNames().length);
    const started = await app.fetch(`${BASE}/domain?cursor=all&fields=name`);
    expect(started.status).toBe(202);
    await started.text();
  });

  it("frees the slot of an export refused for its options, and of one its client dropped", async () => {
    const app = withKey(createApp({ ...api.db.config, exportConcurrency: 1 }, api.snapshots), api.key);
    apps.push(app);
    for (let i = 0; i < 3; i++) {
      const bad = await app.fetch(`${BASE}/domain/export?fields=nope`);
      expect(bad.status).toBe(400);
      await bad.text();
    }
    const dropped = await app.fetch(`${BASE}/domain/export`);
    expect(dropped.status).toBe(200);
    await dropped.body?.cancel();
    await vi.waitFor(
      async () => {
        const res = await app.fetch(`${BASE}/domain/export?fields=name`);
        const text = await res.text();
        expect(res.status, text).toBe(200);
      },
      { timeout: 10_000, interval: 50 },
    );
  });
});

describe.skipIf(!databaseKinds().includes("postgresql"))("a busy pool is not a dead database", () => {
  let api: TestApi;
  const tmp = tempDir("storegraph-busy-pool-");

  beforeAll(async () => {
    api = await startApi("postgresql", scratch.dir);
  });

  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("a request that waits out the pool's connection timeout is 503 BUSY, on REST and GraphQL", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    // Every connection of the served snapshot's pool held (each stream keeps its cursor open).
    const held: AsyncGenerator<RawRow[]>[] = [];
    try {
      for (let i = 0; i < POOL_SIZE; i++) {
        const stream = served.sql.stream(`SELECT 1 FROM generate_series(1, 10)`, [], 1);
        await stream.next();
        held.push(stream);
      }
      const name = oracle.domainNames()[3];
      const rest = await api.app.fetch(`${BASE}/domain/${name}?fields=name`);
      const body = await expectBusy(rest, /every connection it keeps to the database stayed in use/);
      expect(body.request_id).toEqual(expect.any(String));

      const graphql = await api.app.fetch("http://localhost/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: `{ domain(name: "${name}") { name } }` }),
      });
      expect(graphql.status).toBe(503);
      expect(Number(graphql.headers.get("retry-after"))).toBeGreaterThan(0);
      const { errors } = (await graphql.json()) as { errors: { extensions: Json }[] };
      expect(errors[0].extensions).toMatchObject({ code: "BUSY" });
    } finally {
      for (const stream of held) await stream.return(undefined);
    }
    const after = await api.app.fetch(`${BASE}/domain/${oracle.domainNames()[3]}?fields=name`);
    expect(after.status).toBe(200);
  });
});
