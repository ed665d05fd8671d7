import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

/**
 * A page of 1000 Domains (the cap) with every relation: Prisma binds at most 999 parameters per
 * SQLite statement, so the loaders must batch below that, and the query count stays constant.
 */
describe.each(databaseKinds())("a page of 1000 Domains on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-bigpage-");

  beforeAll(async () => {
    await generateDataset({ domains: 1100, apps: 80, seed: 11, outDir: join(tmp.dir, "s") });
    api = await startApi(kind, join(tmp.dir, "s"));
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("loads every relation without errors, in a constant number of queries", async () => {
    api.resetQueries();
    const res = await api.gql(`{ domains(first: 1000) { edges { node {
      name categories features tags salesChannels shipsToCountries contactInfo { type }
      technologies { name installs } apps { installedAt app { name categories plans { name } } }
    } } } }`);
    expect(res.errors).toBeUndefined();
    const edges = (res.data as { domains: { edges: { node: { technologies: unknown[] | null } }[] } }).domains
      .edges;
    expect(edges).toHaveLength(1000);
    expect(edges.some((e) => (e.node.technologies?.length ?? 0) > 0)).toBe(true);
    // The page's keys from the snapshot's count index (src/query/index-page.ts: its parts, one
    // statement a part, once per snapshot) + 1 planned read of the rows with all 8 Domain relations (categories,
    // features, tags, sales channels, ships-to, contacts, technologies, apps), + the Apps and
    // technologies they name, + app categories and app plans, each by distinct key (read once per
    // snapshot): keys are bound as one parameter (src/db/reader.ts), so no batch is split by the
    // database's parameter limit; + once per snapshot, before it is served, its format (its
    // migrations, then its parts' versions: src/db/snapshot-format.ts).
    const parts = api.queries.filter((q) => q.includes("count_index") && q.includes('"name" = ')).length;
    expect(parts).toBeGreaterThan(10);
    expect(api.queries.length - parts).toBe(1 + 4 + 2);
  });
});
