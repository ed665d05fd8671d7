import { createWriteStream, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { GraphQLObjectType } from "graphql";
import type { Config } from "./config.ts";
import type { SqlReader } from "./db/reader.ts";
import { storeSnapshotFiles } from "./db/snapshot-files.ts";
import type { Manifest } from "./db/snapshot-manifest.ts";
import { servedOnPrimary } from "./db/snapshots.ts";
import { stagedChanges } from "./db/staged-changes.ts";
import type { FeedTail, SnapshotCounts, SnapshotRow } from "./db/store.ts";
import { writeAppRecords } from "./parquet/app-records.ts";
import { asStruct, CHANGE_RECORD_FIELDS } from "./parquet/change-record.ts";
import { type FilesOptions, writeParquetFiles } from "./parquet/files.ts";
import { changeWriter } from "./rest/change-reading.ts";
import { parseFields } from "./rest/fields.ts";
import { schema } from "./schema/index.ts";

/**
 * The load's files for data teams (docs/parquet.md), in two steps of the pipeline
 * (src/load-pipeline.ts): the render, which reads every Domain of the new copy once, writes their
 * export records into the load's files directory beside its pieces (src/render.ts, `records`) in
 * the file's order, and DuckDB makes domains.parquet of them while the render's pieces are kept
 * (startDomainsFile); then `files` turns the Apps' and reviews' records (written here as the API answers them:
 * src/parquet/app-records.ts), and the load's change events (written here as GET /changes/export
 * writes them, numbered as the publish will number them: src/db/staged-changes.ts), into Parquet
 * with DuckDB, and keeps them in the copy. The directory goes when the files are kept, or when the load fails.
 */

/** The directory a load's files are written in, beside the data (its version and pid follow). */
const FILES_DIR = ".files-";

/**
 * The load's files directory, made empty (and DATA_DIR, where it is not yet); what a load killed
 * meanwhile left is removed first (loads run one at a time: the load lock).
 */
export function filesDirOf(dataDir: string, version: number): string {
  // On PostgreSQL nothing else writes under DATA_DIR: it may not exist yet.
  mkdirSync(dataDir, { recursive: true });
  for (const name of readdirSync(dataDir))
    if (name.startsWith(FILES_DIR)) rmSync(join(dataDir, name), { recursive: true, force: true });
  const dir = join(dataDir, `${FILES_DIR}${version}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export const removeFilesDir = (dir: string) => rmSync(dir, { recursive: true, force: true });

/**
 * domains.parquet from the render's records in `dir`, begun as soon as they are all written
 * (src/render.ts: onRecords), while the render's pieces are checked and kept: DuckDB's process
 * writes it on one core while the sink's finish runs on the other. `stop` ends it (killed if still
 * running) and returns once nothing of it writes in `dir`.
 */
export interface DomainsFile {
  done: Promise<Manifest>;
  stop(): Promise<void>;
}

export function startDomainsFile(dir: string, version: number, signal?: AbortSignal): DomainsFile {
  const controller = new AbortController();
  const stop = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", stop, { once: true });
  const done = (async () => {
    const records = recordsIn(dir);
    if (records.length === 0) throw new Error(`the render wrote no export records in ${dir}`);
    return await writeParquetFiles([{ kind: "domains", paths: records }], dir, {
      version,
      signal: controller.signal,
    });
  })().finally(() => signal?.removeEventListener("abort", stop));
  // Awaited by the files step, or stopped by the load's failure: never a rejection left unheard.
  done.catch(() => {});
  return {
    done,
    async stop() {
      controller.abort();
      await done.catch(() => {});
    },
  };
}

/**
 * The step: the Parquet files of the copy `row` from what `dir` holds and domains.parquet begun
 * at the render's end (`domains`), kept in the copy.
 */
export async function buildSnapshotFiles(
  config: Pick<Config, "database" | "timeouts">,
  row: SnapshotRow,
  dir: string,
  domains: DomainsFile,
  options: FilesOptions & {
    feedTail: FeedTail;
    counts: Pick<SnapshotCounts, "apps" | "reviews" | "domains">;
  },
): Promise<Manifest> {
  // One reader of the copy for the step: its changes, and its Apps and reviews as the API answers them.
  const served = servedOnPrimary(config, row);
  try {
    const changes = join(dir, "changes.jsonl");
    const events = await writeChanges(served.sql, row, options.feedTail, changes, options.signal);
    const apps = join(dir, "apps.jsonl");
    const reviews = join(dir, "reviews.jsonl");
    await writeAppRecords(served, apps, reviews, options.signal);
    const rest = await writeParquetFiles(
      [
        { kind: "apps", paths: [apps] },
        { kind: "reviews", paths: [reviews] },
        { kind: "changes", paths: [changes] },
      ],
      dir,
      options,
    );
    // In the manifest's order of files: apps, domains, reviews, changes.
    const files = [...rest.files, ...(await domains.done).files];
    const order = ["apps", "domains", "reviews", "changes"].map((k) => `${k}.parquet`);
    files.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
    const manifest: Manifest = { ...rest, files };
    // Each file holds every row of the copy (an App or review the API's reads left out fails the load).
    const rowsOf = (name: string) => manifest.files.find((f) => f.name === name)?.rows;
    for (const [name, want] of [
      ["changes.parquet", events],
      ["apps.parquet", options.counts.apps],
      ["domains.parquet", options.counts.domains],
      ["reviews.parquet", options.counts.reviews],
    ] as const) {
      if (rowsOf(name) !== want) throw new Error(`${name} holds ${rowsOf(name)} rows of the load's ${want}`);
    }
    for (const r of recordsIn(dir)) rmSync(r, { force: true });
    options.signal?.throwIfAborted();
    await storeSnapshotFiles(config.database, row.location, dir, manifest, options.signal);
    return manifest;
  } finally {
    await domains.stop();
    await served.sql.close();
    removeFilesDir(dir);
  }
}

/** The render's records in `dir` (src/render.ts): records-<n>.jsonl, the n-th run of the file's order, in that order. */
export function recordsIn(dir: string): string[] {
  return readdirSync(dir)
    .map((n) => /^records-(\d+)\.jsonl$/.exec(n))
    .filter((m) => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => join(dir, m[0]));
}

/**
 * The load's change events into `path` as JSON Lines: each as GET /changes/export writes it with
 * the fields of changes.parquet, by the same writer, its `before` and `after` as their structs.
 * Returns how many were written; a write that fails (the disk full) fails the step.
 */
async function writeChanges(
  sql: SqlReader,
  row: SnapshotRow,
  tail: FeedTail,
  path: string,
  signal?: AbortSignal,
): Promise<number> {
  const write = changeWriter(
    parseFields(CHANGE_RECORD_FIELDS, schema.getType("Change") as GraphQLObjectType),
  );
  let written = 0;
  async function* lines() {
    for await (const rows of stagedChanges(sql, tail, row.version)) {
      signal?.throwIfAborted();
      let text = "";
      for (const r of rows)
        text += `${write({ ...r, before: asStruct(r.kind, r.before), after: asStruct(r.kind, r.after) })}\n`;
      written += rows.length;
      yield text;
    }
  }
  // The file's errors (and the reads') end the pipeline, and are thrown here.
  await pipeline(Readable.from(lines()), createWriteStream(path));
  return written;
}
