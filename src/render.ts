import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Config } from "./config.ts";
import { byValue } from "./db/facet-sql.ts";
import { openSnapshotReader } from "./db/reader.ts";
import { pgRenderedSink } from "./db/rendered-pg-sink.ts";
import { type RenderedSink, sqliteRenderedSink } from "./db/rendered-sink.ts";
import type { SnapshotRow } from "./db/store.ts";
import { ExportReader } from "./export/export-reader.ts";
import { renderStream } from "./export/export-rendered.ts";
import type { Logger } from "./logger.ts";
import { FILES, quoted } from "./parquet/columns.ts";

/**
 * A load's rendered records (src/db/rendered.ts): every Domain of the new snapshot written with
 * the default fields by the export's own writer (src/export/export-rendered.ts: renderStream), on
 * worker threads (one per core, each taking the next run of the Domains in the order of
 * domains.parquet's rows: fileOrder; a snapshot of ON_THIS_THREAD Domains or
 * fewer on this thread, which costs less than starting one), and kept in the snapshot before it is
 * published, so the first request for it already copies bytes. Every load renders: the records
 * are a part of the snapshot's format (src/db/snapshot-format.ts), without which it is not served.
 */
export interface Rendered {
  records: number;
  /** Bytes the pieces take (before the database's own overhead). */
  bytes: number;
  ms: number;
}

export async function renderSnapshot(
  config: Pick<Config, "database" | "timeouts">,
  snapshot: SnapshotRow,
  logger: Logger,
  options: {
    threads?: number;
    signal?: AbortSignal;
    /**
     * A directory where the threads write the Domains' export records for the Parquet files
     * (src/export/export-rendered.ts), from the same reads: `records-<n>.jsonl`, the n-th run.
     */
    records?: string;
    /** Domains a thread renders at a time (RUN; a test's split). */
    run?: number;
    /**
     * Called once every record is written, before the pieces are checked and kept (the sink's
     * finish: tens of seconds at a million Domains, on this thread or the database's), so that
     * the load writes domains.parquet meanwhile (src/snapshot-files.ts: startDomainsFile).
     */
    onRecords?: () => void;
  } = {},
): Promise<Rendered> {
  const started = performance.now();
  const db = config.database;
  const sink: RenderedSink =
    db.kind === "sqlite"
      ? await sqliteRenderedSink(join(db.dataDir, snapshot.location))
      : await pgRenderedSink(db.url, snapshot.location);
  const readers: ExportReader[] = [];
  try {
    const order = await fileOrder(config, snapshot);
    const recordsOf = (n: number) =>
      options.records ? join(options.records, `records-${n}.jsonl`) : undefined;
    // Threads asked for are started (a test of the split); else a small snapshot stays here.
    if (options.threads === undefined && order.length <= ON_THIS_THREAD) {
      await renderHere(config, snapshot, order, sink, options.signal, recordsOf(0));
      options.onRecords?.();
      const { records, bytes } = await sink.finish();
      return { records, bytes, ms: performance.now() - started };
    }
    const threads = Math.max(1, options.threads ?? Math.min(4, availableParallelism()));
    // The order in runs, each thread taking the next when done: the n-th run's records are the
    // n-th part of domains.parquet. A thread per half of the order finished seconds apart (at
    // 200,000 Domains, 26.4 and 23.3 s): a platform's Domains carry more Apps than another's.
    const run = options.run ?? Math.max(RUN, Math.ceil(order.length / MAX_RUNS));
    let next = 0;
    const parts: Promise<void>[] = [];
    for (let n = 0; n < Math.min(threads, Math.ceil(order.length / run)); n++) {
      const reader = new ExportReader({ database: config.database, timeouts: config.timeouts }, logger, 1000);
      readers.push(reader);
      parts.push(
        (async () => {
          for (let r = next++; r * run < order.length; r = next++) {
            // A copy of the run alone: a view would send the whole order to the thread.
            const pks = order.slice(r * run, (r + 1) * run);
            for await (const page of reader.render(snapshot, pks, recordsOf(r))) {
              options.signal?.throwIfAborted();
              if (!page.pieces) throw new Error("a render page came without its pieces");
              await sink.write({ bytes: page.bytes, ...page.pieces });
            }
          }
        })(),
      );
    }
    await Promise.all(parts);
    // The readers go first: none holds the snapshot's file while the sink writes it (SQLite).
    await Promise.all(readers.splice(0).map((r) => r.close()));
    options.onRecords?.();
    // Checked complete (every Domain of the snapshot, once) before the part is recorded: else it throws.
    const { records, bytes } = await sink.finish();
    return { records, bytes, ms: performance.now() - started };
  } catch (e) {
    await sink.abort().catch(() => {});
    throw e;
  } finally {
    await Promise.all(readers.map((r) => r.close()));
  }
}

/** Domains a render writes on this thread: a worker's start (loading the schema) costs more. */
const ON_THIS_THREAD = 5_000;
/**
 * Domains of a run: a second or two of a thread's work, so that the threads end close together;
 * at most MAX_RUNS runs (their files' names go to DuckDB's process in its arguments).
 */
const RUN = 10_000;
const MAX_RUNS = 1_000;
/** How long PostgreSQL may take to sort every Domain's key for fileOrder (seconds at a million). */
const ORDER_STATEMENT_MS = 600_000;

/** The pieces of the Domains `pks`, written on this thread (its reader closed when done). */
async function renderHere(
  config: Pick<Config, "database" | "timeouts">,
  snapshot: SnapshotRow,
  pks: Float64Array,
  sink: RenderedSink,
  signal?: AbortSignal,
  records?: string,
): Promise<void> {
  const sql = openSnapshotReader(config, snapshot);
  try {
    const served = { snapshot, sql, source: { name: "primary" as const, role: "primary" as const, url: "" } };
    for await (const { count: _count, ...page } of renderStream(served, pks, records)) {
      signal?.throwIfAborted();
      await sink.write(page);
    }
  } finally {
    await sql.close();
  }
}

/**
 * The snapshot's Domain keys in the order of domains.parquet's rows (FILES.domains.orderBy:
 * platform, rank, name, strings byte by byte on both databases), so that the render writes the
 * records in that order and the files step writes them as they come, unsorted
 * (src/parquet/duckdb-writer.ts). SQLite sorts a scan of the table (0.9 s at a million Domains)
 * rather than walk the (platform, rank) index and look up each name (5 s).
 */
export async function fileOrder(
  config: Pick<Config, "database" | "timeouts">,
  snapshot: SnapshotRow,
): Promise<Float64Array> {
  // One statement over every Domain, the load's: not held to a gateway's limit for a request.
  const timeouts = { ...config.timeouts, databaseStatementMs: ORDER_STATEMENT_MS };
  const sql = openSnapshotReader({ database: config.database, timeouts }, snapshot);
  try {
    const { columns, orderBy } = FILES.domains;
    const by = orderBy.map((name) =>
      columns.find((c) => c.name === name)?.type === "VARCHAR"
        ? byValue(sql.kind, quoted(name))
        : quoted(name),
    );
    const scan = sql.kind === "sqlite" ? " NOT INDEXED" : "";
    const rows = await sql.all(
      `SELECT "pk" FROM ${sql.table("domain")}${scan} ORDER BY ${by.join(", ")}`,
      [],
    );
    return Float64Array.from(rows, (r) => Number(r[0]));
  } finally {
    await sql.close();
  }
}
