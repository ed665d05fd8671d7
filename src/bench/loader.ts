import type { SnapshotStore } from "../db/store.ts";
import type { LoadOptions, LoadResult } from "../load-pipeline.ts";

/**
 * A benchmark's loads in its own process, made as npm run load makes them (src/load-pipeline.ts),
 * on the database `env` names; a database kept from a run of
 * older code is upgraded first (a load refuses to compare with a snapshot of another format:
 * src/db/snapshot-format.ts). Imported when a benchmark runs, as the modules it loads.
 */
export async function benchLoader(env: NodeJS.ProcessEnv): Promise<{
  store: SnapshotStore;
  load: (dir: string, options: Pick<LoadOptions, "keep" | "changesRetention">) => Promise<LoadResult>;
}> {
  const { loadConfig } = await import("../config.ts");
  const { openSnapshotStore } = await import("../db/open-store.ts");
  const { loadSnapshot } = await import("../load-pipeline.ts");
  const { createLogger } = await import("../logger.ts");
  const { upgradeServedSnapshot } = await import("../snapshot-upgrade.ts");
  const config = loadConfig(env);
  const store = await openSnapshotStore(config);
  const logger = createLogger({ logLevel: "warn" });
  await upgradeServedSnapshot(config, store, logger);
  return { store, load: (dir, options) => loadSnapshot(store, dir, { ...options, config, logger }) };
}
