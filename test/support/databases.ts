import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Config, Switches } from "../../src/config.ts";
import { loadConfig } from "../../src/config.ts";

/**
 * The switches of a test's gateway: no rate limits (the suites of the limits turn them on), and
 * webhooks to receivers on loopback, where the tests' receivers listen.
 */
export const TEST_SWITCHES: Switches = { rateLimits: false, allowPrivateWebhookTargets: true };

/**
 * The databases every integration suite runs on: SQLite always, PostgreSQL when
 * TEST_DATABASE_URL points at a server (CI sets it). Use with describe.each(databaseKinds()).
 */
export type DatabaseKind = "sqlite" | "postgresql";

export function databaseKinds(): DatabaseKind[] {
  return process.env.TEST_DATABASE_URL ? ["sqlite", "postgresql"] : ["sqlite"];
}

export interface TestDatabase {
  config: Config;
  /** Drops the database (PostgreSQL) and removes the data directory. */
  drop(): Promise<void>;
}

/** A fresh, empty database of the given kind with its own data directory. */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "storegraph-test-"));
  if (kind === "sqlite") {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent" }, TEST_SWITCHES);
    return { config, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
  const name = `storegraph_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const config = loadConfig(
    { DATABASE_URL: url.toString(), DATA_DIR: dataDir, LOG_LEVEL: "silent" },
    TEST_SWITCHES,
  );
  return {
    config,
    drop: async () => {
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
