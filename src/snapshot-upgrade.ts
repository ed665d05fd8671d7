import type { Config } from "./config.ts";
import { DERIVED_PARTS, type Part, SnapshotFormatError } from "./db/snapshot-format.ts";
import { type CopyPart, upgradeCopy } from "./db/snapshot-upgrade.ts";
import type { SnapshotRow, SnapshotStore } from "./db/store.ts";
import { measured, type StepReport } from "./load-pipeline.ts";
import type { Logger } from "./logger.ts";
import { renderSnapshot } from "./render.ts";

/**
 * `npm run load -- --upgrade`: the served snapshot brought to this code's format
 * (src/db/snapshot-format.ts), so that gateways of this code serve it. Its parts of an older
 * version are built again from its own tables (src/db/snapshot-upgrade.ts; the rendered records
 * by src/render.ts), and with its tables of an older version, every part (each is made of them).
 * `rebuild` builds named parts again even where they are of this code's version (rendered records
 * found lost or another Domain's). The caller holds the load lock. A snapshot of a newer format
 * than the code's is left as it is: SnapshotFormatError.
 */
export async function upgradeSnapshot(
  config: Pick<Config, "database" | "timeouts">,
  store: SnapshotStore,
  snapshot: SnapshotRow,
  logger: Logger,
  rebuild: readonly Part[] = [],
  /** Told as each part is built, as the load's steps are (src/load-pipeline.ts). */
  onStep?: (report: PartReport) => void,
): Promise<{ built: Part[]; ms: number }> {
  const started = performance.now();
  const check = await store.format(snapshot.location);
  if (check.newer.length) throw new SnapshotFormatError(snapshot.version, check);
  const wanted = new Set<Part>([...check.older, ...rebuild]);
  const built: Part[] = wanted.has("tables")
    ? ["tables", ...DERIVED_PARTS]
    : DERIVED_PARTS.filter((p) => wanted.has(p));
  // A partial run of the load's pipeline: each part built as its step builds it, timed and told.
  for (const part of built) {
    const { report } = await measured(part, async () => {
      if (part === "rendered") await renderSnapshot(config, snapshot, logger);
      else await upgradeCopy(config, snapshot.location, [part as CopyPart]);
    });
    onStep?.(report);
  }
  return { built, ms: performance.now() - started };
}

/** A part built again, reported as a load's step is. */
export type PartReport = Omit<StepReport, "step"> & { step: Part };

/** The parts `--rebuild` names, from its comma list; an unknown name is the caller's error. */
export function partsOf(list: string): Part[] {
  const known: readonly string[] = ["tables", ...DERIVED_PARTS];
  const parts = list
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const unknown = parts.filter((p) => !known.includes(p));
  if (unknown.length || !parts.length)
    throw new Error(
      `--rebuild takes a comma list of ${known.join(", ")}; got ${unknown.length ? unknown.map((p) => JSON.stringify(p)).join(", ") : "none"}`,
    );
  return parts as Part[];
}

/**
 * The served snapshot upgraded where it is not of this code's format, under the load lock (a
 * benchmark's database kept from a run of older code); null when there was nothing to do.
 */
export async function upgradeServedSnapshot(
  config: Pick<Config, "database" | "timeouts">,
  store: SnapshotStore,
  logger: Logger,
): Promise<{ built: Part[]; ms: number } | null> {
  const release = await store.lockForLoad();
  try {
    const served = await store.current();
    if (!served) return null;
    const check = await store.format(served.location);
    if (!check.older.length) return null;
    return await upgradeSnapshot(config, store, served, logger);
  } finally {
    await release();
  }
}
