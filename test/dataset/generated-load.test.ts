import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { openSnapshotStore } from "../../src/db/open-store.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { ensureDemoData } from "../../src/demo.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { createLogger } from "../../src/logger.ts";
import { tempDir, testLoadSteps } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { openSnapshotClient } from "../support/prisma.ts";

// The generator and the loader meet here: whatever the seed and size, generated data must pass
// every rule of the loader, and what is loaded must be what was generated.
describe.each(databaseKinds())("generated datasets load on %s", (kind) => {
  let db: TestDatabase;
  let store: SnapshotStore;
  const tmp = tempDir("storegraph-genload-");
  const scratch = tmp.dir;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    store = await openSnapshotStore(db.config);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
    tmp.remove();
  });

  it("loads datasets of any seed and size without a single problem", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 60 }),
        async (seed, domains, apps) => {
          const dir = join(scratch, `p${++n}`);
          const generated = await generateDataset({ domains, apps, seed, outDir: dir, gzip: n % 2 === 0 });
          const loaded = await loadSnapshot(store, dir, {
            ...testLoadSteps(db.config, store),
            keep: 0,
            workers: n % 2,
          });
          expect(loaded).toMatchObject({
            apps: generated.apps,
            domains: generated.domains,
            reviews: generated.reviews,
          });
        },
      ),
      { numRuns: 4 },
    );
  });

  it("keeps what was generated: counts per table agree with the files", async () => {
    const dir = join(scratch, "counts");
    const generated = await generateDataset({ domains: 1500, apps: 120, seed: 11, outDir: dir });
    await loadSnapshot(store, dir, { ...testLoadSteps(db.config, store), keep: 0 });
    const current = await store.current();
    const prisma = openSnapshotClient(db.config, current ?? { location: "" });
    try {
      expect(await prisma.domain.count()).toBe(generated.domains);
      expect(await prisma.app.count()).toBe(generated.apps);
      expect(await prisma.appReview.count()).toBe(generated.reviews);
      // Every App's installs equals its Active, not-removed installs (the loader checked it; this
      // checks it survived storage).
      const apps = await prisma.app.findMany({
        where: { installs: { not: null } },
        select: { pk: true, installs: true },
      });
      const active = await prisma.domainApp.groupBy({
        by: ["appPk"],
        where: { removedAt: null, domain: { state: "Active" } },
        _count: { _all: true },
      });
      const byApp = new Map(active.map((a) => [a.appPk, a._count._all]));
      for (const a of apps) expect(byApp.get(a.pk) ?? 0).toBe(a.installs);
    } finally {
      await prisma.$disconnect();
    }
  });

  it("the first start generates and loads the demo dataset and its next week; later starts reuse them", async () => {
    const demo = await createTestDatabase(kind);
    const demoStore = await openSnapshotStore(demo.config);
    try {
      const config = { ...demo.config, demo: { domains: 300, apps: 40, seed: 5 } };
      const log = createLogger({ logLevel: "silent" });
      await ensureDemoData(config, demoStore, log);
      // Week 0, then the week after it: the feed has a week of changes.
      expect((await demoStore.list()).map((s) => [s.version, s.status])).toEqual([
        [1, "ready"],
        [2, "ready"],
      ]);
      const [week0] = await demoStore.list();
      expect(week0).toMatchObject({ domains: 300, apps: 40 });
      const [{ n }] = await demoStore.metaQuery(
        "SELECT count(*) AS n FROM {meta}.change_event WHERE version = 2",
      );
      expect(Number(n)).toBeGreaterThan(0);
      await ensureDemoData(config, demoStore, log);
      expect((await demoStore.current())?.version).toBe(2);
    } finally {
      await demoStore.close();
      await demo.drop();
    }
  });
});
