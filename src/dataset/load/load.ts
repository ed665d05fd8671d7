import { resolve } from "node:path";
import type { SegmentOutcome, SnapshotCounts, SnapshotRow, SnapshotStore } from "../../db/store.ts";
import { TABLES } from "../../db/tables.ts";
import { Ingest } from "./ingest.ts";
import { LoadValidationError, Problems } from "./problems.ts";
import { locateSnapshotFiles } from "./read.ts";
import { defaultWorkerCount } from "./validate.ts";

const WORKERS_FROM_BYTES = 16 * 1024 * 1024;

export interface LoadOptions {
  /** How many older ready snapshots to keep beside the new one. */
  keep: number;
  /** Loads whose change events the feed keeps (CHANGES_RETENTION; default 52). */
  changesRetention?: number;
  /** Bytes read so far and in all, across the three files. */
  onProgress?: (done: number, total: number) => void;
  /** Aborting stops the load; the partial copy is dropped and the served snapshot stays. */
  signal?: AbortSignal;
  /**
   * Worker threads that parse and check records (default: one per core for inputs of 16 MB and
   * more, where they pay for their ~0.5 s start; none below). 0 does it in the loading thread.
   */
  workers?: number;
  /**
   * Renders the new copy's records with the default fields before it is published
   * (src/render.ts, given by the caller: the loader does not write answers itself). A part of the
   * snapshot's format (src/db/snapshot-format.ts): a copy without it is not served.
   */
  render: (
    snapshot: SnapshotRow,
    signal?: AbortSignal,
  ) => Promise<{ records: number; bytes: number; ms: number }>;
  /**
   * Evaluates the accounts' segments on the new copy and on the snapshot served before it
   * (src/segments.ts, given by the caller), before it is published: their events and sizes are
   * published with it. Without it no segment is compared at this load.
   */
  segments?: (
    snapshot: SnapshotRow,
    previous: SnapshotRow | null,
  ) => Promise<SegmentOutcome & { ms: number }>;
}

export interface LoadResult extends SnapshotCounts {
  version: number;
  /**
   * Seconds spent reading, validating and writing rows; building indexes and publishing; and,
   * within finish, computing the change events and building the count index.
   */
  timings: {
    ingest: number;
    finish: number;
    changes: number;
    countIndex: number;
    render: number;
    /** Evaluating the segments (0 without them). */
    segments: number;
  };
  /** Bytes the snapshot's count index takes (src/db/count-index.ts). */
  countIndexBytes: number;
  /** Bytes its rendered records take (src/db/rendered.ts). */
  renderedBytes: number;
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
  const release = await store.lockForLoad();
  try {
    const previous = await store.current();
    const { version, writer } = await store.begin(resolve(dir), options.changesRetention ?? 52);
    try {
      const started = performance.now();
      const problems = new Problems();
      const counts = await new Ingest(writer, problems, {
        onBytes,
        signal: options.signal,
        workers: options.workers ?? (total >= WORKERS_FROM_BYTES ? defaultWorkerCount() : 0),
      }).run(files);
      if (problems.total > 0) throw new LoadValidationError(problems);
      options.signal?.throwIfAborted();
      // The copy records its own version, so a reader can check that the copy it opened is the one
      // the registry names.
      await writer.write(TABLES.snapshotInfo, [[version, Date.now(), resolve(dir)]]);
      const ingested = performance.now();
      await writer.finish();
      options.signal?.throwIfAborted();
      const row = (await store.list()).find((r) => r.version === version);
      if (!row) throw new Error(`snapshot ${version} is not in the registry`);
      const rendered = await options.render(row, options.signal);
      options.signal?.throwIfAborted();
      const segments = options.segments ? await options.segments(row, previous) : undefined;
      options.signal?.throwIfAborted();
      await store.publish(version, counts, {
        keep: options.keep,
        changesRetention: options.changesRetention ?? 52,
        ...(segments ? { segments } : {}),
      });
      const seconds = (a: number, b: number) => Math.round(b - a) / 1000;
      return {
        version,
        ...counts,
        timings: {
          ingest: seconds(started, ingested),
          finish: seconds(ingested, performance.now()),
          changes: Math.round(writer.changesMs) / 1000,
          countIndex: Math.round(writer.countIndex?.ms ?? 0) / 1000,
          render: Math.round(rendered.ms) / 1000,
          segments: Math.round(segments?.ms ?? 0) / 1000,
        },
        countIndexBytes: writer.countIndex?.bytes ?? 0,
        renderedBytes: rendered.bytes,
      };
    } catch (e) {
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
