import type { LoadOptions, LoadResult } from "../dataset/load/load.ts";
import type { SnapshotStore } from "../db/store.ts";

/**
 * A benchmark's loads in its own process, made as npm run load makes them (src/load-steps.ts:
 * rendered, the segments compared), on the database `env` names; a database kept from a run of
 * older code is upgraded first (a load refuses to compare with a snapshot of another format:
 * src/db/snapshot-format.ts). Imported when a benchmark runs, as the modules it loads.
 */
export async function benchLoader(env: NodeJS.ProcessEnv): Promise<{
  store: SnapshotStore;
  load: (dir: string, options: Pick<LoadOptions, "keep" | "changesRetention">) => Promise<LoadResult>;
}> {
  const { loadConfig } = await import("../config.ts");
  const { openSnapshotStore } = await import("../db/open-store.ts");
  const { loadSnapshot } = await import("../dataset/load/load.ts");
  const { loadSteps } = await import("../load-steps.ts");
  const { createLogger } = await import("../logger.ts");
  const { upgradeServedSnapshot } = await import("../snapshot-upgrade.ts");
  const config = loadConfig(env);
  const store = await openSnapshotStore(config);
  const logger = createLogger({ logLevel: "warn" });
  const steps = loadSteps(config, store, logger);
  await upgradeServedSnapshot(config, store, logger);
  return { store, load: (dir, options) => loadSnapshot(store, dir, { ...options, ...steps }) };
}
