import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { ConfigError, loadConfig } from "../config.ts";
import { LoadValidationError } from "../dataset/load/problems.ts";
import { SnapshotDirError } from "../dataset/load/read.ts";
import { openSnapshotStore } from "../db/open-store.ts";
import { type Part, SnapshotFormatError, UPGRADE_COMMAND } from "../db/snapshot-format.ts";
import { LoadInProgressError, type SnapshotRow, type SnapshotStore } from "../db/store.ts";
import { loadSnapshot, STEP_TITLES } from "../load-pipeline.ts";
import { createLogger } from "../logger.ts";
import { partsOf, upgradeSnapshot } from "../snapshot-upgrade.ts";

const USAGE = `usage: npm run load -- [--report FILE] <snapshot-dir>   (apps, domains and reviews .jsonl or .jsonl.gz)
       npm run load -- --upgrade [--rebuild <parts>]

Checks the snapshot in <snapshot-dir> (docs/dataset.md) and loads it as a new version into the
database that DATABASE_URL names (SQLite under DATA_DIR when it is unset), served once complete.
If any record has a problem, every problem is listed as file:line: field: problem and the served
snapshot stays.

  --report FILE  also write what the load did as JSON to FILE: its version, counts, each step's
                 seconds and peak RSS (the bench reads it)
  --upgrade      bring the served snapshot to this code's format (docs/decisions.md, "One
                 snapshot format"): the parts of it an older code built are built again from
                 its own tables; gateways of this code serve it within seconds
  --rebuild      with --upgrade, build these parts again even where they are of this code's
                 version: a comma list of tables, child_rows, facets, count_index, gone, rendered
                 (rendered: after a warning of rendered records lost or another Domain's)
  -h, --help     show this help

Exit status: 0 loaded, 1 not loaded (the reason is printed), 2 bad usage, 130 interrupted.`;

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (e) {
    console.error(`load: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  for (const gone of ["count-index", "render"] as const)
    if (values[gone]) {
      console.error(
        `load: --${gone} is no more: ${UPGRADE_COMMAND} builds what the served snapshot lacks\n\n${USAGE}`,
      );
      return 2;
    }
  if (values.rebuild !== undefined && !values.upgrade) {
    console.error(`load: --rebuild goes with --upgrade\n\n${USAGE}`);
    return 2;
  }
  if (values.report !== undefined && values.upgrade) {
    console.error(`load: --report goes with a snapshot directory, not --upgrade\n\n${USAGE}`);
    return 2;
  }
  if (values.upgrade) {
    if (positionals.length) {
      console.error(`load: --upgrade takes no snapshot directory\n\n${USAGE}`);
      return 2;
    }
    let rebuild: Part[] = [];
    try {
      if (values.rebuild !== undefined) rebuild = partsOf(values.rebuild);
    } catch (e) {
      console.error(`load: ${(e as Error).message}\n\n${USAGE}`);
      return 2;
    }
    return upgradeServed(rebuild);
  }
  if (positionals.length !== 1) {
    console.error(`load: name one snapshot directory (got ${positionals.length})\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig();
  const store = await openSnapshotStore(config);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const progress = createProgress();
  const started = Date.now();
  try {
    const r = await loadSnapshot(store, positionals[0], {
      keep: config.keepSnapshots,
      changesRetention: config.changesRetention,
      signal: controller.signal,
      onProgress: progress.update,
      // Each step as it ends, on stderr beside the progress: its time and the loader's peak memory.
      onStep: (s) => {
        if (s.step === "ingest") progress.stop();
        console.error(`load: ${STEP_TITLES[s.step]}: ${s.seconds.toFixed(1)} s, peak RSS ${s.peakRssMb} MB`);
      },
      config,
      logger: createLogger(config),
    });
    progress.stop();
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (values.report)
      writeFileSync(
        values.report,
        `${JSON.stringify({ database: config.database.kind, ...r, seconds: Number(secs) }, null, 2)}\n`,
      );
    console.log(
      `loaded snapshot version ${r.version}: ${r.apps} apps, ${r.domains} domains, ${r.reviews} reviews in ${secs} s ` +
        `(${config.database.kind}; peak RSS ${r.peakRssMb} MB; a count index of ${(r.countIndexBytes / 1e6).toFixed(1)} MB; ${r.domains} records rendered with the default fields into ${piecesOf(r.renderedBytes)})`,
    );
    return 0;
  } catch (e) {
    progress.stop();
    if (e instanceof LoadValidationError) {
      console.error(e.message);
      return 1;
    }
    if (e instanceof SnapshotDirError || e instanceof LoadInProgressError) {
      console.error(e.message);
      return 1;
    }
    if (e instanceof SnapshotFormatError) {
      // The served snapshot is read by the load (its changes, its segments): of this code's format.
      console.error(`load: ${e.message}, then load again`);
      console.error(e.message);
      return 1;
    }
    if (controller.signal.aborted) {
      console.error("load interrupted; the served snapshot is unchanged");
      return 130;
    }
    throw e;
  } finally {
    await store.close();
  }
}

const parse = () =>
  parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: "boolean", short: "h" },
      upgrade: { type: "boolean" },
      rebuild: { type: "string" },
      report: { type: "string" },
      // Retired (src/snapshot-upgrade.ts does what they did): named, not "unknown option".
      "count-index": { type: "boolean" },
      render: { type: "boolean" },
    },
  });

/** What the rendered records take: their pieces' bytes. */
const piecesOf = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB of DEFLATE pieces`;

/** --upgrade: the served snapshot brought to this code's format, under the load lock. */
const upgradeServed = (rebuild: Part[]) =>
  onServed("it is of this code's format", async (config, served, store) => {
    const r = await upgradeSnapshot(config, store, served, createLogger(config, 2), rebuild, (s) =>
      console.error(`load: building ${s.step} again: ${s.seconds.toFixed(1)} s, peak RSS ${s.peakRssMb} MB`),
    );
    if (!r.built.length)
      return `snapshot version ${served.version} is of this code's format: nothing to build`;
    return `upgraded snapshot version ${served.version}: built ${r.built.join(", ")} in ${(r.ms / 1000).toFixed(1)} s`;
  });

/** Runs `work` on the served snapshot under the load lock, and prints what it says. */
async function onServed(
  withLoad: string,
  work: (config: ReturnType<typeof loadConfig>, served: SnapshotRow, store: SnapshotStore) => Promise<string>,
): Promise<number> {
  const config = loadConfig();
  const store = await openSnapshotStore(config);
  try {
    const release = await store.lockForLoad();
    try {
      const served = await store.current();
      if (!served) {
        console.error(`load: no snapshot is served: load one (${withLoad})`);
        return 1;
      }
      console.log(await work(config, served, store));
      return 0;
    } finally {
      await release();
    }
  } catch (e) {
    if (e instanceof LoadInProgressError || e instanceof SnapshotFormatError) {
      console.error(`load: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await store.close();
  }
}

/** A bar on a terminal; otherwise a plain line every 5% (logs and CI). */
function createProgress(): { update: (done: number, total: number) => void; stop: () => void } {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { stream: process.stderr, format: "loading [{bar}] {percentage}% | {value}/{total} MB | eta {eta}s" },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update: (done, total) => {
        const mb = (n: number) => Math.round(n / 1e6);
        if (!started) bar.start(mb(total), 0);
        started = true;
        bar.update(mb(done));
      },
      stop: () => bar.stop(),
    };
  }
  let lastStep = -1;
  return {
    update: (done, total) => {
      const step = Math.floor((done / Math.max(total, 1)) * 20);
      if (step > lastStep) {
        lastStep = step;
        console.error(
          `loading: ${step * 5}% (${Math.round(done / 1e6)} of ${Math.round(total / 1e6)} MB read)`,
        );
      }
    },
    stop: () => {},
  };
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e instanceof ConfigError ? e.message : e);
    process.exit(1);
  },
);
