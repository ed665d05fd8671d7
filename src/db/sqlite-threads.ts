import { Worker } from "node:worker_threads";
import { fromRoot } from "../root.ts";

/**
 * SQLite's reads of snapshot files, run on threads of their own (SQLITE_READ_THREADS).
 *
 * better-sqlite3 runs a statement synchronously on the thread that calls it: on the server's
 * thread, every lookup's search of its pages was CPU the request path could not use, while the
 * machine's other cores served nothing (at 1M Domains, a lookup by name cost the server's thread
 * 0.25 ms on SQLite against 0.18 ms on PostgreSQL, whose server works on another core). Here the
 * reads that requests make in one turn of the event loop are sent together, as one message, to a
 * read thread, which runs them one after the other on its own connection of the file and answers
 * with one message: the server's thread pays a message per turn instead of the statements.
 *
 * Snapshot files are read-only and immutable, so a thread's connection sees what the server's
 * would. A file is opened by each thread on its first read of it, and closed on every thread once
 * the last reader of it closes (release).
 */

/** A read: the file, the reader's SQL text (`$1`…), its values. */
export type Read = [file: string, sql: string, params: readonly unknown[]];

export type ReadMessage =
  | { type: "read"; id: number; reads: Read[] }
  | { type: "close"; id: number; file: string };

/** A failed read: what the thread's error said. */
export interface ReadError {
  message: string;
  name: string;
  code?: string;
}

export type ReadAnswer =
  | { type: "read"; id: number; answers: (unknown[][] | ReadError)[] }
  | { type: "closed"; id: number };

interface Waiting {
  resolve: (rows: unknown[][]) => void;
  reject: (e: Error) => void;
}

interface Thread {
  worker: Worker;
  /** Messages sent and not answered: a batch's reads, or a close. */
  batches: Map<number, Waiting[] | (() => void)>;
  /** Reads sent and not answered. */
  reads: number;
}

/** The thread's entry: the bundle's own beside dist/server.js, else the source through tsx. */
const ENTRY = import.meta.url.endsWith(".ts")
  ? fromRoot("src/db/sqlite-read-thread.mjs")
  : fromRoot("dist/sqlite-read-thread.js");

/** The most reads in one message: a turn with more sends several. */
const BATCH = 256;

export class SqliteReadThreads {
  private readonly threads: Thread[] = [];
  /** Reads asked for in this turn, sent when its I/O callbacks have run. */
  private queue: { read: Read; waiting: Waiting }[] = [];
  private scheduled = false;
  private seq = 0;
  /** Readers open per file. */
  private readonly users = new Map<string, number>();
  private closed = false;
  /** Messages of reads sent, and the reads they held (tests, and how well turns batch). */
  readonly sent = { messages: 0, reads: 0 };

  constructor(private readonly count: number) {
    if (!Number.isInteger(count) || count < 1) throw new Error("SqliteReadThreads needs at least one thread");
  }

  /** A reader of `file` opens: its reads may follow. */
  acquire(file: string): void {
    this.users.set(file, (this.users.get(file) ?? 0) + 1);
  }

  /** A reader of `file` closed: the last one closes the file on every thread (once its reads are done). */
  async release(file: string): Promise<void> {
    const left = (this.users.get(file) ?? 1) - 1;
    if (left > 0) {
      this.users.set(file, left);
      return;
    }
    this.users.delete(file);
    this.flush();
    await Promise.all(
      this.threads.map(
        (t) =>
          new Promise<void>((resolve) => {
            const id = this.seq++;
            t.batches.set(id, resolve);
            t.worker.ref();
            t.worker.postMessage({ type: "close", id, file } satisfies ReadMessage);
          }),
      ),
    );
  }

  /** The rows of `sql` (the reader's text, `$1`…) on `file`, in raw mode. */
  all(file: string, sql: string, params: readonly unknown[]): Promise<unknown[][]> {
    if (this.closed) return Promise.reject(new Error("the SQLite read threads are closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({ read: [file, sql, params], waiting: { resolve, reject } });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Sends the turn's reads: split across the threads, the least busy first. */
  private flush(): void {
    this.scheduled = false;
    const queue = this.queue;
    if (!queue.length) return;
    this.queue = [];
    while (this.threads.length < this.count) this.threads.push(this.start());
    const threads = [...this.threads].sort((a, b) => a.reads - b.reads);
    const parts = Math.max(Math.min(threads.length, queue.length), Math.ceil(queue.length / BATCH));
    const size = Math.ceil(queue.length / parts);
    for (let p = 0, at = 0; at < queue.length; p++, at += size) {
      const slice = queue.slice(at, at + size);
      const t = threads[p % threads.length];
      const id = this.seq++;
      t.batches.set(
        id,
        slice.map((q) => q.waiting),
      );
      t.reads += slice.length;
      this.sent.messages++;
      this.sent.reads += slice.length;
      t.worker.ref();
      t.worker.postMessage({ type: "read", id, reads: slice.map((q) => q.read) } satisfies ReadMessage);
    }
  }

  private start(): Thread {
    const worker = new Worker(ENTRY);
    const thread: Thread = { worker, batches: new Map(), reads: 0 };
    worker.on("message", (answer: ReadAnswer) => {
      const waiting = thread.batches.get(answer.id);
      thread.batches.delete(answer.id);
      if (!thread.batches.size) worker.unref();
      if (!waiting) return;
      if (answer.type === "closed") {
        if (typeof waiting === "function") waiting();
        return;
      }
      if (typeof waiting === "function") return;
      thread.reads -= waiting.length;
      for (let i = 0; i < waiting.length; i++) {
        const a = answer.answers[i];
        if (Array.isArray(a)) waiting[i].resolve(a);
        else waiting[i].reject(Object.assign(new Error(a.message), { name: a.name, code: a.code }));
      }
    });
    const lost = (e: Error) => {
      const at = this.threads.indexOf(thread);
      if (at < 0) return;
      this.threads.splice(at, 1);
      for (const waiting of thread.batches.values()) {
        if (typeof waiting === "function") waiting();
        else for (const w of waiting) w.reject(e);
      }
      thread.batches.clear();
    };
    worker.on("error", (e) => lost(e));
    worker.on("exit", (code) => lost(new Error(`a SQLite read thread exited (code ${code})`)));
    worker.unref();
    return thread;
  }

  /** Stops the threads as a crash would (tests): their reads fail, and the next start new threads. */
  async stopThreads(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }

  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads.splice(0);
    for (const q of this.queue.splice(0)) q.waiting.reject(new Error("the SQLite read threads are closed"));
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }
}

/** The process's read threads, per count asked for (a process's gateways share them). */
const shared = new Map<number, SqliteReadThreads>();
export function sqliteReadThreads(count: number): SqliteReadThreads {
  let threads = shared.get(count);
  if (!threads) {
    threads = new SqliteReadThreads(count);
    shared.set(count, threads);
  }
  return threads;
}
