import { Worker } from "node:worker_threads";
import type { Database, Timeouts } from "../config.ts";
import type { SnapshotRow } from "../db/store.ts";
import type { Logger } from "../logger.ts";
import { fromRoot } from "../root.ts";

/**
 * The Domains of exports and cursor=all jobs, read and written (domainLines: their GraphQL
 * operation, src/rest/export-page.ts) on a worker thread.
 * better-sqlite3 reads synchronously, so a job read in process held every other request up for
 * as long as a page took (up to 195 ms); on PostgreSQL the reads are async, but writing the pages
 * held the server's thread too. The worker opens its own read-only connection to the snapshot (a
 * file, or a schema) and hands back each page as UTF-8 bytes, moved rather than copied (a
 * transferred ArrayBuffer), so this thread neither copies, joins nor encodes a page's text. It
 * starts with the first page asked for and stops after IDLE_MS without one, so a server that
 * exports nothing pays nothing for it.
 */
export interface PageRequest {
  id: number;
  /** The snapshot that named the Domains (its file or schema). */
  location: string;
  /** The `fields` option as given ("" for the defaults). */
  fields: string;
  names: readonly string[];
  format: PageFormat;
}

/** jsonl: a line per Domain, each ending with a newline; json: the Domains joined by commas. */
export type PageFormat = "json" | "jsonl";

/** A page of Domains, written. */
export interface Page {
  count: number;
  bytes: Uint8Array;
}

/**
 * A failed page: the error's message and stack, and its `code` (a SQLSTATE or a socket error's),
 * so that the database not answering is still told apart from a fault of ours on this side.
 */
export type PageAnswer =
  | ({ id: number } & Page)
  | { id: number; error: { message: string; stack?: string; code?: string } };

export interface ReaderData {
  database: Database;
  /** The serving pools' bounds (PostgreSQL), as the main thread's reader has them. */
  timeouts: Timeouts;
  /** A test hook (src/rest/export-hold.ts). */
  hold?: Int32Array;
}

const IDLE_MS = 30_000;

/** The worker's entry: the bundle's own beside dist/server.js, else the source through tsx. */
const ENTRY = import.meta.url.endsWith(".ts")
  ? fromRoot("src/rest/export-worker.mjs")
  : fromRoot("dist/export-worker.js");

interface Waiting {
  resolve: (page: Page) => void;
  reject: (e: Error) => void;
}

export class ExportReader {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private seq = 0;
  private idle: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly data: ReaderData,
    private readonly logger: Logger,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** Whether a worker thread is running (tests). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** The Domains `names` of `snapshot`, as domainLines writes them, in `format`. */
  page(
    snapshot: Pick<SnapshotRow, "location">,
    fields: string,
    names: readonly string[],
    format: PageFormat,
  ): Promise<Page> {
    if (!names.length) return Promise.resolve({ count: 0, bytes: new Uint8Array() });
    if (this.closed) return Promise.reject(new Error("the export reader is closed"));
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const worker = this.worker ?? this.start();
    const id = this.seq++;
    const request: PageRequest = { id, location: snapshot.location, fields, names, format };
    return new Promise<Page>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // A thread with nothing to do must not keep the process alive; one reading must.
      worker.ref();
      worker.postMessage(request);
    });
  }

  private start(): Worker {
    const worker = new Worker(ENTRY, { workerData: this.data satisfies ReaderData });
    worker.on("message", (answer: PageAnswer) => {
      if (this.worker !== worker) return;
      const waiting = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if (!this.waiting.size) this.rest(worker);
      if (!waiting) return;
      if ("bytes" in answer) waiting.resolve({ count: answer.count, bytes: answer.bytes });
      else waiting.reject(Object.assign(new Error(answer.error.message), answer.error));
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
    for (const waiting of this.waiting.values()) waiting.reject(e);
    this.waiting.clear();
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
