import type { Config } from "./config.ts";
import type { LoadOptions } from "./dataset/load/load.ts";
import type { SnapshotStore } from "./db/store.ts";
import type { Logger } from "./logger.ts";
import { renderSnapshot } from "./render.ts";
import { evaluateSegments } from "./segments.ts";

/**
 * What a load does beyond its rows (src/dataset/load/load.ts), the same for every loader (npm run
 * load, the demo, the benchmarks, the tests): the new snapshot's records rendered with the default
 * fields (src/render.ts), and the accounts' segments compared with the snapshot before
 * (src/segments.ts), both before it is published.
 */
export function loadSteps(
  config: Pick<Config, "database" | "timeouts">,
  store: SnapshotStore,
  logger: Logger,
): Pick<LoadOptions, "render" | "segments"> {
  return {
    render: (snapshot, signal) => renderSnapshot(config, snapshot, logger, { signal }),
    segments: (snapshot, previous) => evaluateSegments(config, store, snapshot, previous),
  };
}
