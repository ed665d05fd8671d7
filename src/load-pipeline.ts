import { resolve } from "node:path";
import type { Config } from "./config.ts";
import { Ingest } from "./dataset/load/ingest.ts";
import { LoadValidationError, Problems } from "./dataset/load/problems.ts";
import { locateSnapshotFiles } from "./dataset/load/read.ts";
import { defaultWorkerCount } from "./dataset/load/validate.ts";
import { servedOnPrimary } from "./db/snapshots.ts";
import { feedTail as readFeedTail } from "./db/staged-changes.ts";
import type {
  SegmentOutcome,
  SnapshotCounts,
  SnapshotRow,
  SnapshotStore,
  SnapshotWriter,
} from "./db/store.ts";
import { TABLES } from "./db/tables.ts";
import { createLogger, type Logger } from "./logger.ts";
import { renderSnapshot } from "./render.ts";
import { evaluateSegments } from "./segments.ts";
import {
  buildSnapshotFiles,
  type DomainsFile,
  filesDirOf,
  removeFilesDir,
  startDomainsFile,
} from "./snapshot-files.ts";

/**
 * The weekly load, as one pipeline that reads top to bottom as the job does (docs/structure.md,
 * "The load"): every loader (npm run load, the demo, the benchmarks, the tests) runs it whole.
 *
 *   ingest → indexes → derived tables → related values → change events → count index → seal → render → files →
 *   segments → publish (with the trends)
 *
 * Each step is a function of what the steps before made, timed, checked for an abort as it ends,
 * and reported with its seconds and the loader's peak RSS meanwhile (`onStep`). The new copy is
 * not served until the publish, one transaction: a failed or aborted step drops the copy, marks
 * its registry row failed, and leaves the served snapshot as it was.
 */

const WORKERS_FROM_BYTES = 16 * 1024 * 1024;

/** The steps, in the order they run. */
export const STEPS = [
  "ingest",
  "indexes",
  "derived",
  "related",
  "changes",
  "countIndex",
  "seal",
  "render",
  "files",
  "segments",
  "publish",
] as const;
export type StepName = (typeof STEPS)[number];

/** What each step says of itself as it ends. */
export const STEP_TITLES: Record<StepName, string> = {
  ingest: "reading, checking and writing rows",
  indexes: "building the tables' indexes",
  derived: "each Domain's child rows and the facet tables",
  related: "the values related stores share",
  changes: "the load's change events",
  countIndex: "the count index",
  seal: "sealing the copy",
  render: "rendering the default answers",
  files: "the Parquet files for data teams",
  segments: "comparing the accounts' segments",
  publish: "publishing (events, trends, segments)",
};

export interface StepReport {
  step: StepName;
  seconds: number;
  /** The loader's peak resident memory while the step ran, MB (its worker threads included). */
  peakRssMb: number;
}

export interface LoadOptions {
  /** How many older ready snapshots to keep beside the new one. */
  keep: number;
  /** Loads whose change events the feed keeps (CHANGES_RETENTION; default 52). */
  changesRetention?: number;
  /** What the render and the segments read with: the database and its timeouts. */
  config: Pick<Config, "database" | "timeouts">;
  logger?: Logger;
  /** Bytes read so far and in all, across the three files. */
  onProgress?: (done: number, total: number) => void;
  /** Told as each step ends. */
  onStep?: (report: StepReport) => void;
  /** Aborting stops the load; the partial copy is dropped and the served snapshot stays. */
  signal?: AbortSignal;
  /**
   * Worker threads that parse and check records (default: one per core for inputs of 16 MB and
   * more, where they pay for their ~0.5 s start; none below). 0 does it in the loading thread.
   */
  workers?: number;
}

export interface LoadResult extends SnapshotCounts {
  version: number;
  /** Each step's report, in order. */
  steps: StepReport[];
  /** Seconds by step. */
  timings: Record<StepName, number>;
  /** Bytes the snapshot's count index takes (src/db/count-index.ts). */
  countIndexBytes: number;
  /** Bytes its rendered records take (src/db/rendered.ts). */
  renderedBytes: number;
  /** Bytes its Parquet files take. */
  filesBytes: number;
  /** The loader's peak resident memory over the load, MB. */
  peakRssMb: number;
}

/**
 * Loads the snapshot in `dir` (docs/dataset.md) as a new version and serves it once complete.
 * On any problem (invalid records → LoadValidationError listing them all, I/O, interruption) the
 * new copy is dropped, its registry row is marked failed, and the served snapshot is unchanged.
 */
export async function loadSnapshot(
  store: SnapshotStore,
  dir: string,
  options: LoadOptions,
): Promise<LoadResult> {
  const files = locateSnapshotFiles(dir);
  const total = files.reduce((s, f) => s + f.bytes, 0);
  let done = 0;
  const onBytes = options.onProgress
    ? (n: number) => {
        done += n;
        options.onProgress?.(done, total);
      }
    : undefined;
  const logger = options.logger ?? createLogger({ logLevel: "warn" });
  const retention = options.changesRetention ?? 52;
  const release = await store.lockForLoad();
  try {
    const previous = await store.current();
    const { version, writer } = await store.begin(resolve(dir), retention);
    const steps: StepReport[] = [];
    let filesDir: string | null = null;
    // domains.parquet, begun at the render's end (startDomainsFile).
    const begun: { domains?: DomainsFile } = {};
    const step = async <T>(name: StepName, work: () => Promise<T>): Promise<T> => {
      const { value, report } = await measured(name, work);
      steps.push(report);
      options.onStep?.(report);
      options.signal?.throwIfAborted();
      return value;
    };
    try {
      const workers = options.workers ?? (total >= WORKERS_FROM_BYTES ? defaultWorkerCount() : 0);
      const counts = await step("ingest", () =>
        ingest(writer, files, version, dir, { ...options, workers }, onBytes),
      );
      await step("indexes", () => writer.buildIndexes());
      await step("derived", () => writer.buildDerived());
      await step("related", () => writer.buildRelated());
      await step("changes", () => writer.buildChanges());
      const countIndexBytes = await step("countIndex", () => writer.buildCountIndex());
      await step("seal", () => writer.seal());
      const row = (await store.list()).find((r) => r.version === version);
      if (!row) throw new Error(`snapshot ${version} is not in the registry`);
      // The Domains' export records for the Parquet files are written by the render, from its reads.
      const records = filesDirOf(options.config.database.dataDir, version);
      filesDir = records;
      // domains.parquet is begun once the records are written, while the render keeps its pieces.
      const onRecords = () => {
        begun.domains = startDomainsFile(records, version, options.signal);
      };
      const rendered = await step("render", () =>
        renderSnapshot(options.config, row, logger, { signal: options.signal, records, onRecords }),
      );
      const domains = begun.domains;
      if (!domains) throw new Error("the render ended without its records");
      // The load's events are numbered as the publish will number them, from where the feed ends.
      const feedTail = await readFeedTail(store);
      const manifest = await step("files", () =>
        buildSnapshotFiles(options.config, row, records, domains, {
          version,
          signal: options.signal,
          feedTail,
          counts,
        }),
      );
      const segments = await step("segments", () => compareSegments(options.config, store, row, previous));
      await step("publish", () =>
        store.publish(version, counts, {
          keep: options.keep,
          changesRetention: retention,
          segments,
          feedTail,
        }),
      );
      const timings = Object.fromEntries(STEPS.map((s) => [s, 0])) as Record<StepName, number>;
      for (const r of steps) timings[r.step] = r.seconds;
      return {
        version,
        ...counts,
        steps,
        timings,
        countIndexBytes,
        renderedBytes: rendered.bytes,
        filesBytes: manifest.files.reduce((n, f) => n + f.bytes, 0),
        peakRssMb: Math.max(...steps.map((r) => r.peakRssMb)),
      };
    } catch (e) {
      // DuckDB's process, where it runs, ends before its directory goes.
      await begun.domains?.stop();
      if (filesDir) removeFilesDir(filesDir);
      await writer.abort();
      const reason =
        e instanceof LoadValidationError ? e.problems.summary() : String((e as Error).message ?? e);
      await store.fail(version, reason);
      throw e;
    }
  } finally {
    await release();
  }
}

/** The rows: the three files read, checked and written; every problem found, or their counts. */
async function ingest(
  writer: SnapshotWriter,
  files: ReturnType<typeof locateSnapshotFiles>,
  version: number,
  dir: string,
  options: LoadOptions,
  onBytes: ((n: number) => void) | undefined,
): Promise<SnapshotCounts> {
  const problems = new Problems();
  const counts = await new Ingest(writer, problems, {
    onBytes,
    signal: options.signal,
    workers: options.workers,
  }).run(files);
  if (problems.total > 0) throw new LoadValidationError(problems);
  options.signal?.throwIfAborted();
  // The copy records its own version, so a reader can check that the copy it opened is the one
  // the registry names.
  await writer.write(TABLES.snapshotInfo, [[version, Date.now(), resolve(dir)]]);
  await writer.endRows();
  return counts;
}

/**
 * The accounts' segments on the new copy and on the one served before it, each read as a gateway
 * reads it (on the primary), their readers closed after.
 */
async function compareSegments(
  config: Pick<Config, "database" | "timeouts">,
  store: SnapshotStore,
  row: SnapshotRow,
  previous: SnapshotRow | null,
): Promise<SegmentOutcome> {
  const now = servedOnPrimary(config, row);
  const then = previous ? servedOnPrimary(config, previous) : null;
  try {
    const { events, loads } = await evaluateSegments(store, now, then);
    return { events, loads };
  } finally {
    await now.sql.close();
    await then?.sql.close();
  }
}

/** Runs a step, timing it and sampling the process's resident memory meanwhile. */
export async function measured<T, S extends string = StepName>(
  step: S,
  work: () => Promise<T>,
): Promise<{ value: T; report: Omit<StepReport, "step"> & { step: S } }> {
  // What the steps before left for the collector is collected first, where the process lets us
  // (node --expose-gc, as npm run load runs it), so that a step's peak is its own.
  (globalThis as { gc?: () => void }).gc?.();
  const started = performance.now();
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 100);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    const seconds = Math.round(performance.now() - started) / 1000;
    return { value, report: { step, seconds, peakRssMb: Math.round(peak / 2 ** 20) } };
  } finally {
    clearInterval(timer);
  }
}
