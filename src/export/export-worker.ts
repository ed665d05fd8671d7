import { parentPort, workerData } from "node:worker_threads";
import { checkedReader } from "../db/catalogue-check.ts";
import { openSnapshotReader, type SqlReader } from "../db/reader.ts";
import { TextBytes } from "../rest/text-bytes.ts";
import { type CsvPlan, domainCsvPlan } from "./csv.ts";
import { EXIT, HOLD, holdRead } from "./export-hold.ts";
import { type Batch, domainStream } from "./export-page.ts";
import type { PageAnswer, PageFormat, ReaderData, StreamMessage } from "./export-reader.ts";

// The thread of export-reader.ts: reads and writes the Domains of exports and cursor=all jobs.

const { timeouts, hold } = workerData as ReaderData;
/** This thread is off the server's already: it reads SQLite on itself, not on read threads. */
const database =
  (workerData as ReaderData).database.kind === "sqlite"
    ? { ...(workerData as ReaderData).database, readThreads: 0 }
    : (workerData as ReaderData).database;
/** Readers by snapshot location (and server, on PostgreSQL), with the streams reading them. */
const readers = new Map<string, { sql: SqlReader; streams: number }>();
/** The snapshot of the latest stream: the served one, so an older one's reader goes when idle. */
let latest = "";

interface Stream {
  location: string;
  pages: AsyncGenerator<Batch>;
  format: PageFormat;
  /** csv: the records of the stream's `fields`, written from each Domain's JSON line. */
  csv: CsvPlan | null;
  /** The stream's requests, in turn: a page is read only once the one before it is. */
  turn: Promise<void>;
}
const streams = new Map<number, Stream>();

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
  const { id, fields, query, format, skip, url, snapshot, readFrom, catalogue } = message;
  // A snapshot is read where the server's thread reads it: a replica, or the primary.
  const location = url ? `${url} ${snapshot.location}` : snapshot.location;
  latest = location;
  let reader = readers.get(location);
  if (!reader) {
    const sql = openSnapshotReader({ database, timeouts }, { location: snapshot.location, url });
    // Read as the server's thread reads it: what an older snapshot lacks, as absent.
    reader = { sql: catalogue ? checkedReader(sql, catalogue) : sql, streams: 0 };
    readers.set(location, reader);
  }
  reader.streams++;
  streams.set(id, {
    location,
    // The snapshot as this thread serves it: its row, and its reads here.
    pages: domainStream(
      { snapshot, sql: reader.sql, source: readFrom ?? { name: "primary", role: "primary", url: url ?? "" } },
      fields,
      query,
      undefined,
      skip,
    ),
    format,
    csv: format === "csv" ? domainCsvPlan(fields) : null,
    turn: Promise.resolve(),
  });
}

/**
 * A page is batches of the stream up to about PAGE_BYTES: a batch's rows die young (see
 * WIDE_BATCH), while each message to the server's thread costs about half a millisecond on this
 * thread whatever its size (13% of an export of name,rank in pages of a batch, 45 KB each). Each
 * line is written into the page's bytes as it is: joining a batch's lines into one string first
 * copied every line once more (16% of a default-fields export, with encoding the joined text).
 */
const PAGE_BYTES = 256 * 1024;
const NEWLINE = 0x0a;
const COMMA = 0x2c;

/** The stream's next page, or its end. */
async function next(id: number, stream: Stream): Promise<PageAnswer> {
  try {
    holdRead(hold);
    if (hold && Atomics.load(hold, HOLD) === EXIT) process.exit(1);
    const page = new TextBytes(PAGE_BYTES + 64 * 1024);
    const jsonl = stream.format === "jsonl";
    let count = 0;
    let fallbacks = 0;
    let done = false;
    while (page.size < PAGE_BYTES) {
      const batch = await stream.pages.next();
      if (batch.done) {
        done = true;
        break;
      }
      // JSON Lines end each line; JSON pages join their lines with a comma, as a job joins its
      // pages; a CSV record ends with its own CRLF.
      const { csv } = stream;
      if (batch.value.fallback) fallbacks++;
      for (const line of batch.value.lines) {
        if (csv) page.write(csv.row(JSON.parse(line)), null);
        else if (jsonl) page.write(line, count ? NEWLINE : null);
        else page.write(line, count ? COMMA : null);
        count++;
      }
    }
    if (done) end(id);
    if (!count) return over(id);
    if (jsonl) page.write("", NEWLINE);
    return { id, count, bytes: page.done(), done: false, fallbacks };
  } catch (e) {
    end(id);
    return failure(id, e);
  }
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
