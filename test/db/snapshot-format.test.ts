import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PART_TABLE, PART_VERSIONS, SnapshotFormatError } from "../../src/db/snapshot-format.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { createLogger } from "../../src/logger.ts";
import { upgradeSnapshot } from "../../src/snapshot-upgrade.ts";
import { startApi, type TestApi, tempDir, testLoadSteps } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { logged } from "../support/logs.ts";

vi.mock("../../src/logger.ts", async (original) =>
  (await import("../support/logs.ts")).capturingLogger(await original(), "warn"),
);

/**
 * One snapshot format (docs/decisions.md, "One snapshot format"): a copy records the version of
 * each of its parts (src/db/snapshot-format.ts). A gateway serves only a copy of its own code's
 * format: an older one is refused with one line naming `npm run load -- --upgrade`, which builds
 * what it lacks; a newer one (a load by newer code) is refused while the one served before goes on
 * being served. A load refuses to compute its changes against a served copy of another format.
 */
const BASE = "http://localhost/json/api/v1/all";
const LAST_MIGRATION = "0006_cluster_of_one.sql";

describe.each(databaseKinds())("one snapshot format on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-format-");

  /** Runs statements on the served copy, its tables named by `t`. */
  async function onCopy(location: string, statements: (t: (name: string) => string) => string[]) {
    const { database } = api.db.config;
    if (database.kind === "sqlite") {
      const db = new Database(join(database.dataDir, location));
      try {
        for (const s of statements((n) => `"${n}"`)) db.exec(s);
      } finally {
        db.close();
      }
      return;
    }
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      for (const s of statements((n) => `"${location}"."${n}"`)) await client.query(s);
    } finally {
      await client.end();
    }
  }

  const fresh = () => Snapshots.open(api.db.config, { refreshMs: 0, graceMs: 0 });
  const body = async (snapshots: Snapshots | null, path: string) => {
    const app = snapshots ? (await import("../../src/app.ts")).createApp(api.db.config, snapshots) : api.app;
    try {
      const url = path === "/readyz" ? `http://localhost${path}` : `${BASE}${path}`;
      const res = await app.fetch(url, {
        headers: { authorization: `Bearer ${api.key}`, "accept-encoding": "identity" },
      });
      return { status: res.status, text: await res.text() };
    } finally {
      if (snapshots) await app.dispose();
    }
  };

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("records every part of a loaded copy at this code's version", async () => {
    const row = await api.snapshots.store.current();
    if (!row) throw new Error("nothing loaded");
    expect(await api.snapshots.store.format(row.location)).toEqual({ older: [], newer: [] });
    const served = await api.snapshots.current();
    const parts = await served?.sql.all(
      `SELECT p."name", p."version" FROM ${served.sql.table(PART_TABLE)} p`,
      [],
    );
    expect(Object.fromEntries((parts ?? []).map(([n, v]) => [String(n), Number(v)]))).toEqual(PART_VERSIONS);
  });

  it("refuses a copy of an older format with one line naming the upgrade, which serves it as it was", async () => {
    const before = await body(null, "/domain/shop.example.com");
    const list = await body(null, "/domain/facets?f:cc=US&facets=p,plan");
    expect(before.status).toBe(200);
    const row = await api.snapshots.store.current();
    if (!row) throw new Error("nothing loaded");
    // As a copy written before parts were recorded, by code a migration behind.
    await onCopy(row.location, (t) => [
      `DROP TABLE ${t(PART_TABLE)}`,
      `DELETE FROM ${t("_migration")} WHERE "name" = '${LAST_MIGRATION}'`,
    ]);
    expect(await api.snapshots.store.format(row.location)).toEqual({
      older: ["tables", "child_rows", "facets", "count_index", "gone", "related", "rendered"],
      newer: [],
    });
    logged.length = 0;
    const refused = await fresh();
    try {
      expect(await refused.current()).toBeNull();
      const line = `snapshot ${row.version} is of an older format than this code (its tables, child_rows, facets, count_index, gone, related, rendered): upgrade it with npm run load -- --upgrade`;
      expect(refused.refusal()).toBe(line);
      await refused.current();
      expect(logged.filter((l) => l.level === 40 && l.msg === line)).toHaveLength(1);
      const ready = await body(refused, "/readyz");
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.text)).toMatchObject({ status: "not ready", reason: line });
      const answer = await body(refused, "/domain/shop.example.com");
      expect(answer.status).toBe(503);
    } finally {
      await refused.close();
    }
    // A load computes its changes against the served copy: it refuses too, naming the same.
    const load = loadSnapshot(api.snapshots.store, writeSnapshotDir(join(tmp.dir, "b"), validFixture()), {
      keep: 1,
      ...testLoadSteps(api.db.config, api.snapshots.store),
    });
    await expect(load).rejects.toBeInstanceOf(SnapshotFormatError);
    await expect(load).rejects.toThrow("upgrade it with npm run load -- --upgrade");
    // The upgrade builds every part again, from the copy's own tables.
    const release = await api.snapshots.store.lockForLoad();
    try {
      const r = await upgradeSnapshot(
        api.db.config,
        api.snapshots.store,
        row,
        createLogger({ logLevel: "warn" }),
      );
      expect(r.built).toEqual([
        "tables",
        "child_rows",
        "facets",
        "count_index",
        "gone",
        "related",
        "rendered",
      ]);
      const again = await upgradeSnapshot(
        api.db.config,
        api.snapshots.store,
        row,
        createLogger({ logLevel: "warn" }),
      );
      expect(again.built).toEqual([]);
    } finally {
      await release();
    }
    const upgraded = await fresh();
    try {
      expect((await upgraded.current())?.snapshot.version).toBe(row.version);
      expect(upgraded.refusal()).toBeNull();
      expect(await body(upgraded, "/domain/shop.example.com")).toEqual(before);
      expect(await body(upgraded, "/domain/facets?f:cc=US&facets=p,plan")).toEqual(list);
    } finally {
      await upgraded.close();
    }
  }, 120_000);

  it("goes on serving the copy it served when a newer format's copy is published, and says so", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    await loadSnapshot(api.snapshots.store, writeSnapshotDir(join(tmp.dir, "c"), validFixture()), {
      keep: 1,
      ...testLoadSteps(api.db.config, api.snapshots.store),
    });
    const newer = await api.snapshots.store.current();
    if (!newer || newer.version === served.snapshot.version) throw new Error("no newer load");
    // As a load of newer code, whose rendered records are of a version this code does not read.
    await onCopy(newer.location, (t) => [
      `UPDATE ${t(PART_TABLE)} SET "version" = ${PART_VERSIONS.rendered + 1} WHERE "name" = 'rendered'`,
    ]);
    expect((await api.snapshots.current())?.snapshot.version).toBe(served.snapshot.version);
    const line = `snapshot ${newer.version} was written by newer code (its rendered): this gateway does not serve it; run that code`;
    expect(api.snapshots.refusal()).toBe(line);
    const ready = await api.app.fetch("http://localhost/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: "ready",
      snapshot: { version: served.snapshot.version },
      refused: line,
    });
    // The upgrade does not write a newer code's copy back.
    await expect(
      upgradeSnapshot(api.db.config, api.snapshots.store, newer, createLogger({ logLevel: "warn" })),
    ).rejects.toThrow(line);
  }, 120_000);
});
