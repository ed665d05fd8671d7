import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { loadSnapshot } from "../dataset/load/load.ts";
import { LoadValidationError } from "../dataset/load/problems.ts";
import { SnapshotDirError } from "../dataset/load/read.ts";
import { indexServedSnapshot } from "../db/count-index-build.ts";
import { openSnapshotStore } from "../db/open-store.ts";
import { LoadInProgressError, type SnapshotRow } from "../db/store.ts";
import { createLogger } from "../logger.ts";
import { renderSnapshot } from "../render.ts";
import { evaluateSegments } from "../segments.ts";

const USAGE = `usage: npm run load -- <snapshot-dir>   (apps, domains and reviews .jsonl or .jsonl.gz)
       npm run load -- --count-index    (build the served snapshot's count index)
       npm run load -- --render         (render the served snapshot's records again)

Checks the snapshot in <snapshot-dir> (docs/dataset.md) and loads it as a new version into the
database that DATABASE_URL names (SQLite under DATA_DIR when it is unset), served once complete.
If any record has a problem, every problem is listed as file:line: field: problem and the served
snapshot stays.

  --count-index  build the count index (docs/decisions.md, "Counting") into the served snapshot,
                 for one loaded before it existed; gateways use it within a minute
  --render       render the served snapshot's records with the default fields again
                 (docs/decisions.md, "Rendered records"): for one loaded before them, or
                 rendered by another version (its answers are written per request meanwhile)
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
  if (values["count-index"]) {
    if (positionals.length) {
      console.error(`load: --count-index takes no snapshot directory\n\n${USAGE}`);
      return 2;
    }
    return indexServed();
  }
  if (values.render) {
    if (positionals.length) {
      console.error(`load: --render takes no snapshot directory\n\n${USAGE}`);
      return 2;
    }
    return renderServed();
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
      render: (snapshot, signal) => renderSnapshot(config, snapshot, createLogger(config), { signal }),
      segments: (snapshot, previous) => evaluateSegments(config, store, snapshot, previous),
    });
    progress.stop();
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `loaded snapshot version ${r.version}: ${r.apps} apps, ${r.domains} domains, ${r.reviews} reviews in ${secs} s ` +
        `(${config.database.kind}: ${r.timings.ingest} s reading, checking and writing rows, ${r.timings.finish} s indexing, of which ${r.timings.changes} s computing change events and ${r.timings.countIndex} s building the count index of ${(r.countIndexBytes / 1e6).toFixed(1)} MB; ${r.timings.render} s rendering ${r.domains} records with the default fields into ${piecesOf(config, r.renderedBytes)}; ${r.timings.segments} s comparing segments)`,
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
      "count-index": { type: "boolean" },
      render: { type: "boolean" },
    },
  });

/** --count-index: the served snapshot's count index, built under the load lock. */
const indexServed = () =>
  onServed("its count index is built with it", async (config, served) => {
    const built = await indexServedSnapshot(config, served.location);
    return `built the count index of snapshot version ${served.version}: ${(built.bytes / 1e6).toFixed(1)} MB in ${(built.ms / 1000).toFixed(1)} s`;
  });

/** What the rendered records take: their pieces' bytes, and where PostgreSQL keeps the texts beside them (RENDERED_TEXTS). */
const piecesOf = (config: Config, bytes: number) =>
  `${(bytes / 1e6).toFixed(1)} MB of DEFLATE pieces${config.database.kind === "postgresql" && config.database.renderedTexts ? " (their texts kept beside them, compressed by PostgreSQL)" : ""}`;

/** --render: the served snapshot's rendered records, made again under the load lock. */
const renderServed = () =>
  onServed("its records are rendered with it", async (config, served) => {
    const r = await renderSnapshot(config, served, createLogger(config, 2));
    return `rendered ${r.records} records of snapshot version ${served.version} into ${piecesOf(config, r.bytes)} in ${(r.ms / 1000).toFixed(1)} s`;
  });

/** Runs `work` on the served snapshot under the load lock, and prints what it says. */
async function onServed(
  withLoad: string,
  work: (config: ReturnType<typeof loadConfig>, served: SnapshotRow) => Promise<string>,
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
      console.log(await work(config, served));
      return 0;
    } finally {
      await release();
    }
  } catch (e) {
    if (e instanceof LoadInProgressError) {
      console.error(e.message);
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
