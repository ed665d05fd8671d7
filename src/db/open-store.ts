import type { Config, Timeouts } from "../config.ts";
import type { SnapshotStore } from "./store.ts";

/**
 * Opens the state store of the configured database. Kept apart from src/db/store.ts, whose
 * interfaces both stores implement, so that neither store imports the module that imports it.
 * `timeouts`: the bounds of a serving process (see PgSnapshotStore.open); none for loads.
 */
export async function openSnapshotStore(
  config: Config,
  timeouts: Timeouts | null = null,
): Promise<SnapshotStore> {
  if (config.database.kind === "sqlite") {
    const { SqliteSnapshotStore } = await import("./sqlite-store.ts");
    return SqliteSnapshotStore.open(config.database.dataDir);
  }
  const { PgSnapshotStore } = await import("./pg-store.ts");
  return PgSnapshotStore.open(config.database.url, timeouts);
}
