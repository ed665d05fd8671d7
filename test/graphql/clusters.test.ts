import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snapshotFilePath } from "../../src/db/sqlite-store.ts";
import { createLogger } from "../../src/logger.ts";
import { upgradeSnapshot } from "../../src/snapshot-upgrade.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

// Every Domain belongs to a cluster, of one when alone, so cluster_domains (the Domain included) and
// cluster_best_ranked are always present, on both faces and both REST writers (public clients key
// bulk results by cluster_best_ranked). A snapshot loaded before the loader required them stores
// none: its upgrade (npm run load -- --upgrade, migration 0006) gives those Domains, which were
// alone, their clusters of one.

const REST = "http://localhost/json/api/v1/all";

describe.each(databaseKinds())("clusters on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-clusters-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
    // What an older snapshot holds for a Domain without a cluster: no values at all, and the
    // migration that gives it one not applied.
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    const statements = [
      `UPDATE ${served.sql.table("domain")} SET "cluster_domains" = NULL, "cluster_best_ranked" = NULL WHERE "name" = 'woo.example.org'`,
      `DELETE FROM ${served.sql.table("_migration")} WHERE "name" = '0006_cluster_of_one.sql'`,
    ];
    const db = api.db.config.database;
    if (db.kind === "sqlite") {
      const file = new Database(snapshotFilePath(db.dataDir, served.snapshot.location));
      for (const statement of statements) file.prepare(statement).run();
      file.close();
    } else {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      for (const statement of statements) await client.query(statement);
      await client.end();
    }
    expect((await api.snapshots.store.format(served.snapshot.location)).older).toContain("tables");
    // npm run load -- --upgrade: the migration applied, every part built again from the tables.
    const release = await api.snapshots.store.lockForLoad();
    try {
      await upgradeSnapshot(
        api.db.config,
        api.snapshots.store,
        served.snapshot,
        createLogger({ logLevel: "warn" }),
      );
    } finally {
      await release();
    }
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("GraphQL: non-null, the Domain itself when an older loader stored no cluster", async () => {
    const res = await api.gql(`{
      woo: domain(name: "woo.example.org") { clusterDomains clusterBestRanked cluster { name } }
      shop: domain(name: "shop.example.com") { clusterDomains clusterBestRanked cluster { name } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({
      woo: {
        clusterDomains: ["woo.example.org"],
        clusterBestRanked: "woo.example.org",
        cluster: [{ name: "woo.example.org" }],
      },
      shop: {
        clusterDomains: ["shop.example.com", "de.example.com"],
        clusterBestRanked: "shop.example.com",
        cluster: [{ name: "shop.example.com" }],
      },
    });
  });

  it.each([
    ["the default fields (written without GraphQL)", ""],
    ["fields without a relation (answered by GraphQL)", "?fields=name,cluster_domains,cluster_best_ranked"],
  ])("REST, %s: always present", async (_name, query) => {
    const res = await api.app.fetch(`${REST}/domain/woo.example.org${query}`);
    expect(res.status).toBe(200);
    const { domain } = (await res.json()) as { domain: Record<string, unknown> };
    expect(domain.cluster_domains).toEqual(["woo.example.org"]);
    expect(domain.cluster_best_ranked).toBe("woo.example.org");
  });

  it("REST bulk: every Domain can be keyed by cluster_best_ranked", async () => {
    const res = await api.app.fetch(`${REST}/domain/bulk`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ domains: ["woo.example.org", "gone.example.net", "shop.example.com"] }),
    });
    expect(res.status).toBe(200);
    const { domains } = (await res.json()) as { domains: Record<string, unknown>[] };
    expect(domains.map((d) => [d.name, d.cluster_best_ranked, d.cluster_domains])).toEqual([
      ["woo.example.org", "woo.example.org", ["woo.example.org"]],
      ["gone.example.net", "gone.example.net", ["gone.example.net"]],
      ["shop.example.com", "shop.example.com", ["shop.example.com", "de.example.com"]],
    ]);
  });
});
