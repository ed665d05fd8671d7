import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Config } from "./config.ts";
import { openSnapshotReader } from "./db/reader.ts";
import { pgRenderedSink } from "./db/rendered-pg-sink.ts";
import { type RenderedSink, sqliteRenderedSink } from "./db/rendered-sink.ts";
import type { SnapshotRow } from "./db/store.ts";
import { ExportReader } from "./export/export-reader.ts";
import { renderStream } from "./export/export-rendered.ts";
import type { Logger } from "./logger.ts";

/**
 * A load's rendered records (src/db/rendered.ts): every Domain of the new snapshot written with
 * the default fields by the export's own writer (src/export/export-rendered.ts: renderStream), on
 * worker threads (one per core, each a range of keys; a snapshot of ON_THIS_THREAD Domains or
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
     * A directory where each thread writes its Domains' export records for the Parquet files
     * (src/export/export-rendered.ts), from the same reads: `records-<n>.jsonl`.
     */
    records?: string;
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
    const range = await keyRange(config, snapshot);
    const recordsOf = (n: number) =>
      options.records ? join(options.records, `records-${n}.jsonl`) : undefined;
    if (range.count <= ON_THIS_THREAD) {
      await renderHere(config, snapshot, range, sink, options.signal, recordsOf(0));
      const { records, bytes } = await sink.finish();
      return { records, bytes, ms: performance.now() - started };
    }
    const threads = Math.max(1, options.threads ?? Math.min(4, availableParallelism()));
    const step = Math.ceil((range.to - range.from) / threads) || 1;
    const parts: Promise<void>[] = [];
    for (let from = range.from, n = 0; from < range.to; from += step, n++) {
      const reader = new ExportReader({ database: config.database, timeouts: config.timeouts }, logger, 1000);
      readers.push(reader);
      const to = Math.min(range.to, from + step);
      const records = recordsOf(n);
      parts.push(
        (async () => {
          for await (const page of reader.render(snapshot, from, to, records)) {
            options.signal?.throwIfAborted();
            if (!page.pieces) throw new Error("a render page came without its pieces");
            await sink.write({ bytes: page.bytes, ...page.pieces });
          }
        })(),
      );
    }
    await Promise.all(parts);
    // The readers go first: none holds the snapshot's file while the sink writes it (SQLite).
    await Promise.all(readers.splice(0).map((r) => r.close()));
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

/** The pieces of the Domains of `range`, written on this thread (its reader closed when done). */
async function renderHere(
  config: Pick<Config, "database" | "timeouts">,
  snapshot: SnapshotRow,
  range: { from: number; to: number },
  sink: RenderedSink,
  signal?: AbortSignal,
  records?: string,
): Promise<void> {
  const sql = openSnapshotReader(config, snapshot);
  try {
    const served = { snapshot, sql, source: { name: "primary" as const, role: "primary" as const, url: "" } };
    for await (const { count: _count, ...page } of renderStream(served, range.from, range.to, records)) {
      signal?.throwIfAborted();
      await sink.write(page);
    }
  } finally {
    await sql.close();
  }
}

/** The snapshot's Domain keys: [from, to) and how many. */
async function keyRange(
  config: Pick<Config, "database" | "timeouts">,
  snapshot: SnapshotRow,
): Promise<{ from: number; to: number; count: number }> {
  const sql = openSnapshotReader(config, snapshot);
  try {
    const [row] = await sql.all(`SELECT min("pk"), max("pk"), count(*) FROM ${sql.table("domain")}`, []);
    const count = Number(row?.[2] ?? 0);
    if (!count) return { from: 0, to: 0, count };
    return { from: Number(row[0]), to: Number(row[1]) + 1, count };
  } finally {
    await sql.close();
  }
}
