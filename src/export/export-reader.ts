import { Worker } from "node:worker_threads";
import type { Database, Timeouts } from "../config.ts";
import type { ResultFormat } from "../db/export-jobs.ts";
import { POOL_SIZE } from "../db/reader.ts";
import type { RenderedPage } from "../db/rendered-sink.ts";
import type { ReadSource } from "../db/replicas.ts";
import type { SnapshotRow } from "../db/store.ts";
import type { Logger } from "../logger.ts";
import { fromRoot } from "../root.ts";
import type { ExportQuery } from "./export-page.ts";
import { fromRing, newRing, RING_SLOTS } from "./page-ring.ts";

/**
 * The Domains of exports and cursor=all jobs, read and written (domainStream: one database cursor,
 * and List Domains' GraphQL operation, src/export/export-page.ts) on a worker thread.
 * better-sqlite3 reads synchronously, so a job read in process held every other request up for
 * as long as a page took (up to 195 ms); on PostgreSQL the reads are async, but writing the pages
 * held the server's thread too. The worker opens its own read-only connection to the snapshot (a
 * file, or a schema) and hands back each page as UTF-8 bytes, moved rather than copied (a
 * transferred ArrayBuffer), so this thread neither copies, joins nor encodes a page's text. It
 * starts with the first stream asked for and stops after IDLE_MS without one, so a server that
 * exports nothing pays nothing for it.
 */
export type StreamMessage =
  | {
      type: "open";
      id: number;
      /** The snapshot to read (its row: its file or schema is its location). */
      snapshot: SnapshotRow;
      /** PostgreSQL: the server to read it on (the served snapshot's replica, or the primary). */
      url?: string;
      /** Where the server's thread reads it (the primary when not given). */
      readFrom?: ReadSource;
      /** The `fields` option as given ("" for the defaults). */
      fields: string;
      /** Which Domains, in which order: the set of Domains resolved on this thread, and the sort. */
      query: ExportQuery;
      format: PageFormat;
      /** Domains to pass over first (a job resumed where another gateway left it). */
      skip?: number;
      /**
       * The client takes gzip: a stream of rendered records (src/db/rendered.ts) then hands on
       * its pieces as they are (each page's `gzip`), for the caller to frame as one gzip member.
       */
      gzip?: boolean;
      /** Pages come through this ring where they fit (src/export/page-ring.ts). */
      ring?: SharedArrayBuffer;
    }
  /**
   * The rendered pieces of the Domains `pks`, in that order, for a load (src/render.ts).
   */
  | {
      type: "render";
      id: number;
      snapshot: SnapshotRow;
      url?: string;
      pks: Float64Array;
      /** Where the Domains' export records for the Parquet files go, when written (renderStream). */
      records?: string;
    }
  /** The stream's next page (answered in turn). */
  | { type: "next"; id: number }
  /** The stream is no longer wanted: its cursor closes. */
  | { type: "close"; id: number };

/**
 * jsonl: a line per Domain, each ending with a newline; json: the Domains joined by commas; csv: a
 * record per Domain, each ending with CRLF (its header is the caller's: src/export/csv.ts).
 */
export type PageFormat = ResultFormat;

/** A page of Domains, written. */
export interface Page {
  count: number;
  bytes: Uint8Array;
  /** Batches the row writer left to the resolver path (src/rest/row-writer.ts). */
  fallbacks?: number;
  /** Whether the Domains came from rendered records. */
  rendered?: "fresh";
  /** Domains of the page whose rendered piece was lost or another's: written instead, and counted. */
  broken?: number;
  /** The bytes are raw DEFLATE of a text of `len` bytes whose CRC-32 is `crc` (a stream asked with gzip). */
  gzip?: { crc: number; len: number };
  /** A render stream's page: its pieces' keys, CRC-32s, lengths and ends in `bytes`. */
  pieces?: Omit<RenderedPage, "bytes">;
  /**
   * The page is a view of a slot of the stream's ring (src/export/page-ring.ts): called once the
   * bytes are written (src/ops/access-log.ts, whenWritten), it frees the slot for a later page.
   */
  release?: () => void;
}

/**
 * A page, or the end of its stream (done), or its failure: the error's message and stack, and its
 * `code` (a SQLSTATE or a socket error's), so that the database not answering is still told apart
 * from a fault of ours on this side. A failed stream is over.
 */
export type PageAnswer =
  | ({ id: number; done: boolean; ringed?: { slot: number; length: number } } & Page)
  | { id: number; error: { message: string; stack?: string; code?: string } };

/**
 * How a stream's pages go to the client: `gzip`, the client takes gzip (rendered records then come
 * compressed, each page's `gzip`); `ring`, each page is written to the socket as it is, so that it
 * can come through a ring (src/export/page-ring.ts) and be released once written.
 */
export interface PageWire {
  gzip?: boolean;
  ring?: boolean;
}

export interface ReaderData {
  database: Database;
  /** The serving pools' bounds (PostgreSQL), as the main thread's reader has them. */
  timeouts: Timeouts;
  /**
   * PostgreSQL: the connections of each snapshot's pool on the thread (src/db/reader.ts's own
   * default when not given): exportPoolSize of the exports run at once.
   */
  poolSize?: number;
  /** A test hook (src/export/export-hold.ts). */
  hold?: Int32Array;
}

const IDLE_MS = 30_000;

/**
 * The connections the export thread's pool needs for `exports` run at once: a cursor each, held
 * for the whole export, and a read beside it (a batch's Apps and shared texts), and never fewer
 * than a serving pool has. Fewer, and exports waited out the pool's connection timeout.
 */
export const exportPoolSize = (exports: number): number => Math.max(POOL_SIZE, 2 * exports);
/**
 * Pages asked for ahead of the one handed on: two, so that the thread reads one while the page
 * before it is inflated (src/export/export-worker.ts, piecesPage) and this thread writes a third.
 */
const AHEAD = 2;

/** The worker's entry: the bundle's own beside dist/server.js, else the source through tsx. */
const ENTRY = import.meta.url.endsWith(".ts")
  ? fromRoot("src/export/export-worker.mjs")
  : fromRoot("dist/export-worker.js");

interface Waiting {
  resolve: (page: Page | null) => void;
  reject: (e: Error) => void;
}

export class ExportReader {
  private worker: Worker | null = null;
  /** Per open stream, the pages asked for and not yet answered, in order. */
  private readonly waiting = new Map<number, Waiting[]>();
  /** Per open stream with one, its ring of pages (src/export/page-ring.ts). */
  private readonly rings = new Map<number, SharedArrayBuffer>();
  private seq = 0;
  private idle: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly data: ReaderData,
    private readonly logger: Logger,
    private readonly idleMs = IDLE_MS,
    /** Slots of each stream's ring (src/export/page-ring.ts). */
    private readonly ringSlots = RING_SLOTS,
  ) {}

  /** Whether a worker thread is running (tests). */
  get running(): boolean {
    return this.worker !== null;
  }

  /**
   * Every Domain of `query`'s set (resolved on this thread) in `snapshot`, in its order, as pages of
   * `format`. The next pages are read while this one is handed on (AHEAD); stopping early
   * closes the stream's cursor.
   */
  async *stream(
    snapshot: SnapshotRow & { url?: string; readFrom?: ReadSource },
    fields: string,
    query: ExportQuery,
    format: PageFormat,
    skip = 0,
    { gzip = false, ring = false }: PageWire = {},
  ): AsyncGenerator<Page> {
    yield* this.pages({
      type: "open",
      id: 0,
      snapshot: rowOf(snapshot),
      url: snapshot.url,
      readFrom: snapshot.readFrom,
      fields,
      query,
      format,
      skip,
      gzip,
      ...(ring ? { ring: newRing(this.ringSlots) } : {}),
    });
  }

  /**
   * The rendered pieces of the Domains `pks` of `snapshot`, in that order (a load's rendering);
   * with `records`, their export records for the Parquet files written there, in that order.
   */
  render(
    snapshot: SnapshotRow & { url?: string },
    pks: Float64Array,
    records?: string,
  ): AsyncGenerator<Page> {
    return this.pages({
      type: "render",
      id: 0,
      snapshot: rowOf(snapshot),
      url: snapshot.url,
      pks,
      ...(records ? { records } : {}),
    });
  }

  private async *pages(message: Extract<StreamMessage, { type: "open" | "render" }>): AsyncGenerator<Page> {
    if (this.closed) throw new Error("the export reader is closed");
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const worker = this.worker ?? this.start();
    const id = this.seq++;
    const queue: Waiting[] = [];
    this.waiting.set(id, queue);
    if (message.type === "open" && message.ring) this.rings.set(id, message.ring);
    // A thread with nothing to do must not keep the process alive; one reading must.
    worker.ref();
    worker.postMessage({ ...message, id } satisfies StreamMessage);
    const ask = () =>
      handled(
        new Promise<Page | null>((resolve, reject) => {
          queue.push({ resolve, reject });
          worker.postMessage({ type: "next", id } satisfies StreamMessage);
        }),
      );
    let done = false;
    try {
      const ahead = Array.from({ length: AHEAD }, ask);
      for (;;) {
        const page = await ahead.shift();
        if (!page) {
          done = true;
          return;
        }
        ahead.push(ask());
        yield page;
      }
    } catch (e) {
      done = true;
      throw e;
    } finally {
      this.waiting.delete(id);
      this.rings.delete(id);
      if (!done && this.worker === worker) worker.postMessage({ type: "close", id } satisfies StreamMessage);
      if (!this.waiting.size && this.worker === worker) this.rest(worker);
    }
  }

  private start(): Worker {
    const worker = new Worker(ENTRY, { workerData: this.data satisfies ReaderData });
    worker.on("message", (answer: PageAnswer) => {
      if (this.worker !== worker) return;
      const waiting = this.waiting.get(answer.id)?.shift();
      if (!waiting) return;
      if ("error" in answer) waiting.reject(Object.assign(new Error(answer.error.message), answer.error));
      else if (answer.done) waiting.resolve(null);
      else {
        const { id: _id, done: _done, ringed, ...page } = answer;
        const ring = ringed && this.rings.get(answer.id);
        if (ringed && !ring)
          waiting.reject(new Error("a page came through the ring of a stream that has none"));
        else {
          if (ring && ringed) Object.assign(page, fromRing(ring, ringed.slot, ringed.length));
          waiting.resolve(page);
        }
      }
    });
    worker.on("error", (err) => {
      this.logger.error({ err }, "the export reader thread failed");
      this.lost(worker, err);
    });
    worker.on("exit", (code) =>
      this.lost(worker, new Error(`the export reader thread exited (code ${code})`)),
    );
    this.worker = worker;
    return worker;
  }

  /** Nothing waiting: let the process exit, and stop the thread if nothing more comes. */
  private rest(worker: Worker): void {
    worker.unref();
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = null;
      if (this.worker === worker && !this.waiting.size) {
        this.worker = null;
        void worker.terminate();
      }
    }, this.idleMs).unref();
  }

  /** The thread is gone: whatever it was reading fails (the next page starts another thread). */
  private lost(worker: Worker, e: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const queue of this.waiting.values()) for (const waiting of queue.splice(0)) waiting.reject(e);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.idle) clearTimeout(this.idle);
    const worker = this.worker;
    if (worker) {
      this.lost(worker, new Error("the server is shutting down"));
      await worker.terminate();
    }
  }
}

/**
 * `promise`, marked as handled: a page read ahead is awaited in its turn or, if the stream ends
 * first, dropped unread, and its failure then must not end the process as an unhandled rejection.
 */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** The snapshot's row alone (readAt gives it with where it is read). */
function rowOf({
  url: _url,
  readFrom: _readFrom,
  ...row
}: SnapshotRow & { url?: string; readFrom?: ReadSource }): SnapshotRow {
  return row satisfies SnapshotRow;
}
