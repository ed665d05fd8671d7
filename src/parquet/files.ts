import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createReadStream, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Manifest, ManifestFile } from "../db/snapshot-manifest.ts";
import { fromRoot } from "../root.ts";
import { FILES, type ParquetKind, SCHEMA_VERSION } from "./columns.ts";

/**
 * A snapshot's files for data teams (docs/parquet.md): one Parquet file per record file, written
 * by DuckDB in a process of its own (duckdb-writer.ts), and a manifest naming each file's rows,
 * bytes, SHA-256 and columns.
 */

export interface ParquetJob {
  /** Each file: its JSON Lines (several, read as one in this order: `inOrder` files keep it), and where it goes. */
  files: { kind: ParquetKind; inputs: string[]; output: string }[];
  threads: number;
  memoryLimit: string;
  tempDir: string;
  rowGroup: number;
}

export interface FilesOptions {
  version: number;
  signal?: AbortSignal;
  /** DuckDB's memory before it spills its sort to disk (default 3GB: less doubles its CPU at 1M). */
  memoryLimit?: string;
  /** Rows per row group (default 100,000: a rank range reads one, a remote reader few ranges). */
  rowGroup?: number;
}

/** SHA-256 of a file, hex. */
export async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * Runs `job` in DuckDB's process; its rows by kind, or an error saying what DuckDB said. An abort
 * kills the process, and this returns once it has ended (nothing then writes in the directory).
 */
async function runDuckDb(job: ParquetJob, signal?: AbortSignal): Promise<{ rows: Record<string, number> }> {
  signal?.throwIfAborted();
  const child = spawn(
    process.execPath,
    [fileURLToPath(fromRoot("src/parquet/duckdb-process.mjs")), JSON.stringify(job)],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const kill = () => child.kill("SIGKILL");
  signal?.addEventListener("abort", kill, { once: true });
  const [code] = (await once(child, "close")) as [number | null];
  signal?.removeEventListener("abort", kill);
  signal?.throwIfAborted();
  let said: { rows?: Record<string, number>; error?: string } = {};
  try {
    said = JSON.parse(stdout);
  } catch {
    // A process that ended without its answer (killed, out of memory): its stderr says why.
  }
  if (code === 0 && said.rows) return { rows: said.rows };
  const why = said.error ?? (stderr.trim().split("\n").at(-1) || `DuckDB's process ended with ${code}`);
  throw new Error(`writing the Parquet files: ${why}`);
}

/** Writes `<kind>.parquet` for each input into `outDir` and returns their manifest. */
export async function writeParquetFiles(
  inputs: readonly { kind: ParquetKind; paths: readonly string[] }[],
  outDir: string,
  options: FilesOptions,
): Promise<Manifest> {
  mkdirSync(outDir, { recursive: true });
  // A directory of its own: two writes may run at once in one directory (src/snapshot-files.ts).
  const tempDir = join(outDir, `.duckdb-tmp-${inputs.map((f) => f.kind).join("-")}`);
  const job: ParquetJob = {
    files: inputs.map((f) => ({
      kind: f.kind,
      inputs: [...f.paths],
      output: join(outDir, `${f.kind}.parquet`),
    })),
    threads: 2,
    memoryLimit: options.memoryLimit ?? "3GB",
    tempDir,
    rowGroup: options.rowGroup ?? 100_000,
  };
  const { rows } = await runDuckDb(job, options.signal).finally(() =>
    rmSync(tempDir, { recursive: true, force: true }),
  );
  const files: ManifestFile[] = [];
  for (const f of job.files) {
    files.push({
      name: `${f.kind}.parquet`,
      rows: rows[f.kind],
      bytes: statSync(f.output).size,
      sha256: await sha256Of(f.output),
      columns: FILES[f.kind].columns.map(({ name, type, required }) => ({ name, type, required })),
    });
  }
  const manifest: Manifest = {
    version: options.version,
    schema_version: SCHEMA_VERSION,
    files,
  };
  return manifest;
}
