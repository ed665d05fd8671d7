import { parentPort, workerData } from "node:worker_threads";
import { openSnapshotReader, type SqlReader } from "../db/reader.ts";
import { EXIT, HOLD, holdRead } from "./export-hold.ts";
import { domainStream } from "./export-page.ts";
import type { PageAnswer, ReaderData, StreamMessage } from "./export-reader.ts";

// The thread of export-reader.ts: reads and writes the Domains of exports and cursor=all jobs.

const { database, timeouts, hold } = workerData as ReaderData;
/** Readers by snapshot location, with the streams reading them. */
const readers = new Map<string, { sql: SqlReader; streams: number }>();
/** The snapshot of the latest stream: the served one, so an older one's reader goes when idle. */
let latest = "";

interface Stream {
  location: string;
  pages: AsyncGenerator<string[]>;
  format: "json" | "jsonl";
  /** The stream's requests, in turn: a page is read only once the one before it is. */
  turn: Promise<void>;
}
const streams = new Map<number, Stream>();

const encoder = new TextEncoder();

/** What a stream that is over answers to any further `next`. */
const over = (id: number): PageAnswer => ({ id, count: 0, bytes: new Uint8Array(), done: true });

function post(answer: PageAnswer): void {
  // A page's bytes are moved to the server's thread, not copied.
  parentPort?.postMessage(answer, "bytes" in answer ? [answer.bytes.buffer as ArrayBuffer] : []);
}

function failure(id: number, e: unknown): PageAnswer {
  const err = e instanceof Error ? e : new Error(String(e));
  const { code } = err as { code?: unknown };
  return {
    id,
    error: { message: err.message, stack: err.stack, ...(typeof code === "string" ? { code } : {}) },
  };
}

function open(message: Extract<StreamMessage, { type: "open" }>): void {
  const { id, location, fields, query, format } = message;
  latest = location;
  let reader = readers.get(location);
  if (!reader) {
    reader = { sql: openSnapshotReader({ database, timeouts }, { location }), streams: 0 };
    readers.set(location, reader);
  }
  reader.streams++;
  streams.set(id, {
    location,
    pages: domainStream(reader.sql, fields, query),
    format,
    turn: Promise.resolve(),
  });
}

/**
 * A page is batches of the stream up to about PAGE_BYTES: a batch's rows die young (see
 * WIDE_BATCH), while each message to the server's thread costs about half a millisecond on this
 * thread whatever its size (13% of an export of name,rank in pages of a batch, 45 KB each). Each
 * batch is encoded on its own and the bytes joined: joining a wide export's text into one string
 * of a megabyte and more, then encoding it, cost 25% more CPU (measured side by side).
 */
const PAGE_BYTES = 256 * 1024;

/** The stream's next page, or its end. */
async function next(id: number, stream: Stream): Promise<PageAnswer> {
  try {
    holdRead(hold);
    if (hold && Atomics.load(hold, HOLD) === EXIT) process.exit(1);
    const parts: Uint8Array[] = [];
    let count = 0;
    let size = 0;
    let done = false;
    while (size < PAGE_BYTES) {
      const batch = await stream.pages.next();
      if (batch.done) {
        done = true;
        break;
      }
      const lines = batch.value;
      const text = stream.format === "jsonl" ? `${lines.join("\n")}\n` : lines.join(",");
      // JSON pages join their batches with a comma, as a job joins its pages.
      const bytes = encoder.encode(stream.format === "json" && parts.length ? `,${text}` : text);
      parts.push(bytes);
      count += lines.length;
      size += bytes.length;
    }
    if (done) end(id);
    if (!count) return over(id);
    return { id, count, bytes: parts.length === 1 ? parts[0] : joined(parts, size), done: false };
  } catch (e) {
    end(id);
    return failure(id, e);
  }
}

function joined(parts: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The stream is over: its cursor closes, and a reader no stream reads any more goes. */
function end(id: number): void {
  const stream = streams.get(id);
  if (!stream) return;
  streams.delete(id);
  void stream.pages.return(undefined).catch(() => {});
  const reader = readers.get(stream.location);
  if (reader) reader.streams--;
  for (const [at, r] of readers) {
    if (at === latest || r.streams) continue;
    readers.delete(at);
    void r.sql.close();
  }
}

parentPort?.on("message", (message: StreamMessage) => {
  if (message.type === "open") {
    try {
      open(message);
    } catch (e) {
      post(failure(message.id, e));
    }
    return;
  }
  const stream = streams.get(message.id);
  if (!stream) {
    if (message.type === "next") post(over(message.id));
    return;
  }
  stream.turn = stream.turn.then(async () => {
    // The page before may have ended the stream (its last batch): what is asked after it is over.
    if (!streams.has(message.id)) {
      if (message.type === "next") post(over(message.id));
    } else if (message.type === "close") end(message.id);
    else post(await next(message.id, stream));
  });
});
