import { get, type Server } from "node:http";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { ApiKeys } from "../../src/auth/keys.ts";
import type { Config } from "../../src/config.ts";
import { DEFAULT_CHURN, evolveDataset } from "../../src/dataset/evolve.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import { createHttpServer } from "../../src/http.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { tempDir, testLoadSteps } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { FaultProxy } from "../support/fault-proxy.ts";

/**
 * Exports when PostgreSQL stalls midway, on a real socket: the stream must end within the bound
 * every other request has (the statement timeout and its grace, short here), its last line the
 * JSON error, and its connection broken so that the part sent cannot pass for the whole. It was
 * left open (until shutdown cut it), the error logged and never sent on. test/server/faults.test.ts
 * holds the other requests to the same bound; SQLite has no connection to stall.
 */
const BOUND_MS = 10_000;
const TIMEOUTS: Config["timeouts"] = {
  databaseConnectMs: 1000,
  databaseStatementMs: 1000,
  redisConnectMs: 1000,
  redisCommandMs: 1000,
  readyzMs: 1500,
};
const REST = "/json/api/v1/all";

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
}

/** What a client read of an answer: its status, its body, and whether the answer came whole. */
interface Read {
  status: number;
  body: string;
  /** The chunked encoding's end came: the answer is whole. */
  complete: boolean;
  /** Milliseconds from the stall to the connection's end. */
  endedAfterMs: number;
}

describe.skipIf(!databaseKinds().includes("postgresql"))("exports while PostgreSQL stalls", () => {
  const tmp = tempDir("storegraph-export-faults-");
  let db: TestDatabase;
  let direct: Snapshots;
  let served: Snapshots;
  let proxy: FaultProxy;
  let app: App;
  let server: Server;
  let port: number;
  let keys: ApiKeys;
  const logs: LogLine[] = [];

  beforeAll(async () => {
    // Enough Domains, and changes, for an export of several pages (the feed's are 1,000 changes).
    const weeks = [join(tmp.dir, "w0"), join(tmp.dir, "w1")];
    await generateDataset({ domains: 2500, apps: 40, seed: 11, outDir: weeks[0] });
    const churn = Object.fromEntries(Object.entries(DEFAULT_CHURN).map(([k, v]) => [k, Math.min(1, v * 40)]));
    await evolveDataset({ from: weeks[0], outDir: weeks[1], seed: 3, churn });
    db = await createTestDatabase("postgresql");
    direct = await Snapshots.open(db.config);
    for (const week of weeks)
      await loadSnapshot(direct.store, week, { ...testLoadSteps(db.config, direct.store), keep: 1 });
    const database = db.config.database as Extract<Config["database"], { kind: "postgresql" }>;
    const u = new URL(database.url);
    proxy = await FaultProxy.start({ host: u.hostname, port: Number(u.port || 5432) });
    const config: Config = {
      ...db.config,
      timeouts: TIMEOUTS,
      database: { ...database, url: proxy.urlFor(database.url) },
    };
    const logger = pino(
      { level: "warn", base: undefined },
      { write: (s: string) => logs.push(JSON.parse(s)) },
    );
    served = await Snapshots.open(config, { refreshMs: 60_000, graceMs: 0 });
    app = createApp(config, served, { logger });
    server = createHttpServer(app.listener) as Server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
    keys = new ApiKeys(direct.store);
  }, 240_000);

  afterAll(async () => {
    await proxy?.restore();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await app?.dispose();
    await served?.close();
    await direct?.close();
    await proxy?.close();
    await db?.drop();
    tmp.remove();
  });

  const newKey = async () => (await keys.create("export faults", "enterprise")).key;

  /**
   * GETs `path` on the socket, stalls PostgreSQL once the first bytes of the body came, and reads
   * on until the connection ends (failing after BOUND_MS).
   */
  function readStalled(path: string, key: string): Promise<Read> {
    return new Promise<Read>((resolve, reject) => {
      let stalledAt = 0;
      const chunks: Buffer[] = [];
      const timer = setTimeout(
        () => reject(new Error(`${path}: still open ${BOUND_MS} ms after the stall`)),
        BOUND_MS + 30_000,
      );
      const request = get(
        { host: "127.0.0.1", port, path, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          const done = () => {
            clearTimeout(timer);
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString(),
              complete: res.complete,
              endedAfterMs: Date.now() - stalledAt,
            });
          };
          res.on("data", (b: Buffer) => {
            if (!stalledAt) {
              stalledAt = Date.now();
              proxy.stall();
            }
            chunks.push(b);
          });
          res.on("error", () => {});
          res.on("close", done);
        },
      );
      request.on("error", reject);
    });
  }

  /** The last line of a body: the JSON error that ended it. */
  const lastLine = (body: string) =>
    JSON.parse(body.trimEnd().split("\n").at(-1) ?? "") as Record<string, unknown>;

  async function expectEndedByTheStall(read: Read) {
    expect(read.status).toBe(200);
    expect(read.complete, "the answer is broken off, not ended as if whole").toBe(false);
    expect(read.endedAfterMs).toBeLessThan(BOUND_MS);
    const error = lastLine(read.body);
    expect(error).toMatchObject({
      code: "DATABASE_UNAVAILABLE",
      error: expect.stringMatching(/database did not answer/),
      request_id: expect.any(String),
    });
    // Logged once, with the id the line carries.
    const lines = logs.filter((l) => l.requestId === error.request_id);
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBeGreaterThanOrEqual(40);
    await proxy.restore();
  }

  it("Export Domains ends with the error line and a broken connection within the bound", async () => {
    try {
      const read = await readStalled(`${REST}/domain/export`, await newKey());
      // Lines before the error: Domains, each whole.
      const lines = read.body.trimEnd().split("\n").slice(0, -1);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(JSON.parse(line)).toHaveProperty("name");
      await expectEndedByTheStall(read);
    } finally {
      await proxy.restore();
    }
  });

  it("the change feed's export ends the same way", async () => {
    try {
      const read = await readStalled(`${REST}/changes/export`, await newKey());
      const lines = read.body.trimEnd().split("\n").slice(0, -1);
      expect(lines.length).toBeGreaterThanOrEqual(1000);
      await expectEndedByTheStall(read);
    } finally {
      await proxy.restore();
    }
  });
});
