import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/databases.ts";
import { freePort, startServer } from "../support/server.ts";

// A restart (npm start on data already loaded) loads only what serving needs (issue 35: a restart
// took 4.4 s where the README says a second or two, and module loading was most of it). The demo
// data generator (faker), the PostgreSQL driver on SQLite, ioredis without REDIS_URL and
// prom-client without metrics are loaded when used, not at every start: the bundle keeps each
// dynamic import in a chunk of its own (esbuild --splitting), and the drivers are required where a
// pool or a client is made. Checked on the bundle npm start runs, by the packages it loaded.

const PRELOAD = join(import.meta.dirname, "../support/loaded-packages.mjs");
/** Needed only for a first start, another database, Redis or metrics. */
const NOT_ON_RESTART = [
  "@faker-js/faker",
  // The MCP SDK: loaded with the first /mcp request (src/mcp/http.ts).
  "@modelcontextprotocol/sdk",
  "pure-rand",
  "pg",
  "pg-copy-streams",
  "ioredis",
  "prom-client",
  "@graphql-yoga/plugin-prometheus",
];

describe("a restart of dist/server.js (sqlite, demo data loaded)", () => {
  let db: TestDatabase;
  const tmp = tempDir("storegraph-startup-");

  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    // The first start generates and loads the demo data (and may load anything).
    const first = startServer(db, await freePort());
    await first.waitFor(/More keys:/, 150_000);
    await first.stop();
  }, 180_000);
  afterAll(async () => {
    await db?.drop();
    tmp.remove();
  });

  async function packagesOfRestart(env: Record<string, string> = {}): Promise<string[]> {
    const file = join(tmp.dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
    const port = await freePort();
    const server = startServer(db, port, {
      NODE_OPTIONS: `--import=${PRELOAD}`,
      LOADED_PACKAGES_FILE: file,
      ...env,
    });
    try {
      await server.waitFor(/Every request needs Authorization/, 60_000);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    return readFileSync(file, "utf8").split("\n");
  }

  it("loads neither the generator nor the other database's driver, and Redis's client and the metrics only when used", async () => {
    const loaded = await packagesOfRestart();
    // What serving needs is recorded: the recorder works.
    expect(loaded).toEqual(expect.arrayContaining(["graphql", "graphql-yoga", "better-sqlite3"]));
    expect(loaded.filter((p) => NOT_ON_RESTART.includes(p))).toEqual([]);
    // With metrics (and Redis, when the tests have one), their packages are loaded.
    const withBoth = await packagesOfRestart({
      METRICS_PORT: String(await freePort()),
      ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
    });
    expect(withBoth).toContain("prom-client");
    if (process.env.TEST_REDIS_URL) expect(withBoth).toContain("ioredis");
    expect(withBoth.filter((p) => ["@faker-js/faker", "pg"].includes(p))).toEqual([]);
  });
});
