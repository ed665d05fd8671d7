import { once } from "node:events";
import { createWriteStream, mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config.ts";
import { readContext } from "./context.ts";
import type { LocatedFile } from "./dataset/load/read.ts";
import { storeSnapshotFiles } from "./db/snapshot-files.ts";
import { servedOnPrimary } from "./db/snapshots.ts";
import type { SnapshotRow } from "./db/store.ts";
import { domainStream, exportQueryOf } from "./export/export-page.ts";
import { type FilesOptions, writeParquetFiles } from "./parquet/files.ts";
import type { Manifest } from "./parquet/manifest.ts";
import { DOMAIN_RECORD_FIELDS } from "./parquet/records.ts";

/**
 * The load's step (src/load-pipeline.ts): the files of the snapshot `row`, written in a directory
 * beside the data that goes once they are stored in the copy. The Domains' rows are their export
 * records, read from the copy (records.ts); the Apps' and reviews' are the lines they were loaded
 * from (checked whole by then).
 */
/** The directory a load's files are written in, beside the data (its version and pid follow). */
const FILES_DIR = ".files-";

export async function buildSnapshotFiles(
  config: Pick<Config, "database" | "timeouts">,
  row: SnapshotRow,
  inputs: readonly LocatedFile[],
  options: FilesOptions,
): Promise<Manifest> {
  const { database } = config;
  // What a load killed during this step left (loads run one at a time: the load lock).
  for (const name of readdirSync(database.dataDir))
    if (name.startsWith(FILES_DIR)) rmSync(join(database.dataDir, name), { recursive: true, force: true });
  const dir = join(database.dataDir, `${FILES_DIR}${options.version}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const records = join(dir, "domain-records.jsonl");
    await writeDomainRecords(config, row, records, options.signal);
    // DuckDB reads a path as a glob: the inputs by names of this directory's own.
    const sources = inputs.map((f) => {
      if (f.kind === "domains") return { ...f, path: records };
      const path = join(dir, `${f.kind}-input${f.path.endsWith(".gz") ? ".jsonl.gz" : ".jsonl"}`);
      symlinkSync(f.path, path);
      return { ...f, path };
    });
    const manifest = await writeParquetFiles(sources, dir, options);
    rmSync(records, { force: true });
    options.signal?.throwIfAborted();
    await storeSnapshotFiles(database, row.location, dir, manifest, options.signal);
    return manifest;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes every Domain of the copy `row` to `path` as JSON Lines of its export record; returns how many. */
export async function writeDomainRecords(
  config: Pick<Config, "database" | "timeouts">,
  row: SnapshotRow,
  path: string,
  signal?: AbortSignal,
): Promise<number> {
  const served = servedOnPrimary(config, row);
  const out = createWriteStream(path);
  let records = 0;
  try {
    const query = await exportQueryOf(readContext(served), {});
    for await (const batch of domainStream(served, DOMAIN_RECORD_FIELDS, query)) {
      signal?.throwIfAborted();
      records += batch.lines.length;
      if (!out.write(`${batch.lines.join("\n")}\n`)) await once(out, "drain");
    }
    out.end();
    await once(out, "finish");
    return records;
  } finally {
    out.destroy();
    await served.sql.close();
  }
}
