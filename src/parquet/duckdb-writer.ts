import { DuckDBInstance } from "@duckdb/node-api";
import { type Column, FILES, quoted } from "./columns.ts";
import type { ParquetJob } from "./files.ts";

/**
 * Writes a snapshot's Parquet files with DuckDB, in a process of its own (files.ts starts it): it
 * reads the snapshot's JSON Lines as the columns of columns.ts, sorts them (or keeps the order they
 * come in: `inOrder`) and writes ZSTD Parquet in row groups with statistics. DuckDB was measured against hyparquet-writer at a million Domains
 * (docs/parquet-prototype.md): 72 against 215 CPU-seconds, the same bytes. Its memory (gigabytes
 * for the sort at a million Domains) goes back to the system with the process.
 */

const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * The statement that writes one file: its rows read from `inputs`, sorted by `orderBy` (none: in
 * the order they are read, file after file), to `output`.
 */
export function copyStatement(
  columns: readonly Column[],
  orderBy: readonly string[] | null,
  inputs: readonly string[],
  output: string,
  rowGroup: number,
): string {
  const read = columns
    .filter((c) => c.read || !c.select)
    .map((c) => `${lit(c.read?.name ?? c.name)}: ${lit(c.read?.type ?? c.type)}`);
  const select = columns.map((c) => (c.select ? `${c.select} AS ${quoted(c.name)}` : quoted(c.name)));
  const order = orderBy ? ` ORDER BY ${orderBy.join(", ")}` : "";
  return `COPY (SELECT ${select.join(", ")} FROM read_json([${inputs.map(lit).join(", ")}], format = 'newline_delimited', columns = {${read.join(", ")}}, maximum_object_size = 67108864)${order}) TO ${lit(output)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroup})`;
}

/** Writes every file of `job`; returns each one's rows. */
export async function writeWithDuckDb(job: ParquetJob): Promise<Record<string, number>> {
  const db = await DuckDBInstance.create(":memory:", {
    threads: String(job.threads),
    memory_limit: job.memoryLimit,
    temp_directory: job.tempDir,
  });
  const con = await db.connect();
  try {
    const rows: Record<string, number> = {};
    for (const f of job.files) {
      const { columns, orderBy, inOrder } = FILES[f.kind];
      // Records in order are read and written on one thread: DuckDB keeps the order of what it
      // reads (preserve_insertion_order, its default), and on several threads it holds the rows read
      // ahead until their turn (40 s and 3.4 GB at a million Domains, against 26 s and 1.2 GB).
      await con.run(`SET threads = ${inOrder ? 1 : job.threads}`);
      const result = await con.runAndReadAll(
        copyStatement(columns, inOrder ? null : orderBy, f.inputs, f.output, job.rowGroup),
      );
      rows[f.kind] = Number(result.getRows()[0]?.[0] ?? 0);
    }
    return rows;
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

/** The process's work (duckdb-process.mjs): the job in argv, the rows (or the error) on stdout as JSON. */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    const rows = await writeWithDuckDb(JSON.parse(argv[0]) as ParquetJob);
    process.stdout.write(JSON.stringify({ rows }));
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: (e as Error).message }));
    process.exitCode = 1;
  }
}
