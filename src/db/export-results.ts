import { once } from "node:events";
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  type WriteStream,
} from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { ExportJob } from "./export-jobs.ts";
import type { SnapshotStore } from "./store.ts";

/**
 * Where `cursor=all` results are written and read back. On PostgreSQL they are chunks in the
 * meta database (model ExportChunk), so any gateway answers a job and resumes one another
 * gateway handed over, whatever its disk. On SQLite, the single-machine default, they are files
 * in the data directory.
 */
export interface JobResults {
  /**
   * Opens a job's result for writing from its `from`-th Domain (0: afresh, dropping any earlier
   * part). Resolves with where writing really resumes: the Domains the stored part holds, which
   * is 0 when it is not there (the job then starts again).
   */
  open(job: Pick<ExportJob, "id" | "format">, from: number): Promise<ResultWriter>;
  /** The whole result of a finished job. */
  read(job: Pick<ExportJob, "id" | "format" | "location">): ReadableStream<Uint8Array>;
  /** Drops a dropped job's result, whole or partial. */
  remove(job: Pick<ExportJob, "id" | "format" | "location">): Promise<void>;
  /** Drops results of jobs that no longer exist (`live`: the ids of those that do). */
  sweep(live: () => Promise<Set<string>>, now: number, graceMs: number): Promise<void>;
}

export interface ResultWriter {
  /** The Domains already in the result: where the job goes on from. */
  readonly from: number;
  /** Appends a page: `pieces` in order, after which the result holds `domains` Domains. */
  write(pieces: (string | Uint8Array)[], domains: number): Promise<void>;
  /** Ends the result; returns its location (for the job's row). */
  finish(): Promise<string>;
  /** Stops writing, keeping what was written (the job is handed over). */
  pause(): Promise<void>;
  /** Stops writing and drops the result. */
  discard(): Promise<void>;
}

export function jobResults(store: SnapshotStore, dataDir: string): JobResults {
  return store.kind === "postgresql" ? new ChunkResults(store) : new FileResults(dataDir);
}

/** Results as files: `exports/<id>.<format>`, written as `.partial` until finished. */
export class FileResults implements JobResults {
  constructor(private readonly dataDir: string) {}

  private paths(job: Pick<ExportJob, "id" | "format">) {
    const location = join("exports", `${job.id}.${job.format}`);
    return {
      location,
      file: join(this.dataDir, location),
      partial: join(this.dataDir, `${location}.partial`),
    };
  }

  async open(job: Pick<ExportJob, "id" | "format">, from: number): Promise<ResultWriter> {
    mkdirSync(join(this.dataDir, "exports"), { recursive: true });
    const { location, file, partial } = this.paths(job);
    // A part handed over by a gateway whose data directory this is not: the job starts again.
    const resumed = from > 0 && existsSync(partial) ? from : 0;
    const out: WriteStream = createWriteStream(partial, { flags: resumed ? "a" : "w" });
    const failed = new Promise<never>((_resolve, reject) => out.once("error", reject));
    failed.catch(() => {});
    const ended = async () => {
      out.end();
      await Promise.race([once(out, "close"), failed]);
    };
    return {
      from: resumed,
      async write(pieces) {
        for (const piece of pieces) {
          if (!out.write(piece)) await Promise.race([once(out, "drain"), failed]);
        }
      },
      async finish() {
        await ended();
        renameSync(partial, file);
        return location;
      },
      pause: ended,
      async discard() {
        out.destroy();
        rmSync(partial, { force: true });
      },
    };
  }

  read(job: Pick<ExportJob, "id" | "format" | "location">): ReadableStream<Uint8Array> {
    return Readable.toWeb(
      createReadStream(join(this.dataDir, job.location as string)),
    ) as ReadableStream<Uint8Array>;
  }

  async remove(job: Pick<ExportJob, "id" | "format" | "location">): Promise<void> {
    const { file, partial } = this.paths(job);
    rmSync(file, { force: true });
    rmSync(partial, { force: true });
  }

  async sweep(live: () => Promise<Set<string>>, now: number, graceMs: number): Promise<void> {
    // A job can finish its file just after its row was dropped: files no job refers to go.
    const dir = join(this.dataDir, "exports");
    if (!existsSync(dir)) return;
    const ids = await live();
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (!ids.has(name.split(".")[0]) && now - statSync(file).mtimeMs > graceMs)
        rmSync(file, { force: true });
    }
  }
}

/** Chunks read back at a time when a result is answered (each about a page, 256 KB). */
const READ_CHUNKS = 4;

/**
 * Results as chunks in the meta database: each page one row, in order (model ExportChunk). They
 * go with their job row (ON DELETE CASCADE), and a chunk written after its job was dropped is
 * refused, so nothing is left to sweep. A finished result's location says how many chunks it has
 * (`database:<chunks>`): reading it back fails, rather than ending early, if some are gone.
 */
export class ChunkResults implements JobResults {
  constructor(private readonly store: SnapshotStore) {}

  async open(job: Pick<ExportJob, "id" | "format">, from: number): Promise<ResultWriter> {
    const { store } = this;
    let seq = 0;
    let resumed = 0;
    if (from > 0) {
      // The chunks say where the result ends, whatever the job's row last recorded.
      const [last] = await store.metaQuery(
        "SELECT seq, domains FROM {meta}.export_chunk WHERE job_id = ? ORDER BY seq DESC LIMIT 1",
        [job.id],
      );
      if (last) {
        seq = Number(last.seq) + 1;
        resumed = Number(last.domains);
      }
    }
    if (!resumed) {
      seq = 0;
      await store.metaQuery("DELETE FROM {meta}.export_chunk WHERE job_id = ?", [job.id]);
    }
    let domains = resumed;
    const insert = async (bytes: Buffer) => {
      await store.metaQuery(
        "INSERT INTO {meta}.export_chunk (job_id, seq, domains, bytes) VALUES (?, ?, ?, ?)",
        [job.id, seq, domains, bytes],
      );
      seq++;
    };
    return {
      from: resumed,
      async write(pieces, after) {
        domains = after;
        await insert(Buffer.concat(pieces.map((p) => (typeof p === "string" ? Buffer.from(p) : p))));
      },
      async finish() {
        return `database:${seq}`;
      },
      async pause() {},
      async discard() {
        await store.metaQuery("DELETE FROM {meta}.export_chunk WHERE job_id = ?", [job.id]);
      },
    };
  }

  read(job: Pick<ExportJob, "id" | "location">): ReadableStream<Uint8Array> {
    const { store } = this;
    const chunks = Number(/^database:(\d+)$/.exec(job.location ?? "")?.[1] ?? Number.NaN);
    let next = 0;
    // A client that leaves mid-download cancels the stream while chunks are being read: they are
    // then dropped, not written to the closed stream (which throws).
    let cancelled = false;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const rows = await store.metaQuery(
          "SELECT seq, bytes FROM {meta}.export_chunk WHERE job_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
          [job.id, next, READ_CHUNKS],
        );
        if (cancelled) return;
        for (const r of rows) {
          // The job expired while it was being read (a new snapshot, its TTL): break the stream.
          if (Number(r.seq) !== next)
            return controller.error(new Error(`chunk ${next} of ${job.id} is gone`));
          controller.enqueue(new Uint8Array(r.bytes as Buffer));
          next++;
        }
        if (next >= chunks) controller.close();
        else if (!rows.length) controller.error(new Error(`job ${job.id}: ${next} of ${chunks} chunks left`));
      },
      cancel() {
        cancelled = true;
      },
    });
  }

  async remove(): Promise<void> {
    // The job's row is gone, and its chunks with it.
  }

  async sweep(): Promise<void> {}
}
