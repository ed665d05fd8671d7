import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ApiKeys } from "./auth/keys.ts";
import type { Config } from "./config.ts";
import type { SnapshotStore } from "./db/store.ts";
import type { Logger } from "./logger.ts";

/**
 * First start on an empty database, with npm start's --demo: generate the demo dataset
 * (deterministic from its seed) and the week after it (src/dataset/evolve.ts), and load both, so
 * `npm start` on a fresh clone serves data and its change feed has a week of changes. Later starts
 * find a snapshot and skip this, upgrading it first when an older code loaded it (the demo's data
 * directory is this process's own: src/snapshot-upgrade.ts); without --demo (config.demo null) it
 * does nothing.
 * The generator and the loader are imported only then: the generator's faker alone was a fifth of
 * a restart's module loading (the bundle keeps a dynamic import in a chunk of its own).
 */
export async function ensureDemoData(config: Config, store: SnapshotStore, log: Logger): Promise<void> {
  if (!config.demo) return;
  const served = await store.current();
  if (served) {
    // The upgrade (and what it imports: the renderer) only where there is one to make.
    if (!(await store.format(served.location)).older.length) return;
    const { upgradeServedSnapshot } = await import("./snapshot-upgrade.ts");
    const upgraded = await upgradeServedSnapshot(config, store, log);
    if (upgraded)
      log.info(
        { built: upgraded.built, ms: upgraded.ms },
        "the demo snapshot upgraded to this code's format",
      );
    return;
  }
  const { domains, apps, seed } = config.demo;
  const [{ GENERATOR_VERSION, generateDataset }, { evolveDataset }, { loadSnapshot }] = await Promise.all([
    import("./dataset/generate.ts"),
    import("./dataset/evolve.ts"),
    import("./load-pipeline.ts"),
  ]);
  // Named by the generator's version too: an older version's files may break today's rules.
  const dir = join(config.dataDir, "demo", `v${GENERATOR_VERSION}-${domains}-${apps}-${seed}`);
  const started = Date.now();
  if (!existsSync(join(dir, "domains.jsonl"))) {
    log.info({ domains, apps, seed, dir }, "no snapshot loaded yet: generating the demo dataset");
    await generateDataset({ domains, apps, seed, outDir: dir });
  }
  const next = `${dir}-week-1`;
  if (!existsSync(join(next, "domains.jsonl"))) {
    log.info({ dir: next }, "generating the demo dataset's next week");
    await evolveDataset({ from: dir, outDir: next, seed });
  }
  const options = {
    keep: config.keepSnapshots,
    changesRetention: config.changesRetention,
    config,
    logger: log,
  };
  for (const week of [dir, next]) {
    log.info({ dir: week }, "loading the demo dataset");
    const r = await loadSnapshot(store, week, options);
    log.info({ ...r, seconds: (Date.now() - started) / 1000 }, "demo dataset loaded");
  }
}

/** A fresh database gets one key, so the first `npm start` can be tried at once; null otherwise. */
export async function ensureDemoKey(keys: ApiKeys): Promise<string | null> {
  if ((await keys.list()).length > 0) return null;
  return (await keys.create("demo", "enterprise")).key;
}
