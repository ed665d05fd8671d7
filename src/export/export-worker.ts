import { promisify } from "node:util";
import { parentPort, workerData } from "node:worker_threads";
import { constants, crc32, inflateRaw } from "node:zlib";
import { COMMA as COMMA_JOINT, joinPieces, NEWLINE as NEWLINE_JOINT } from "../codec/deflate.ts";
import { openSnapshotReader, type SqlReader } from "../db/reader.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import { TextBytes } from "../rest/text-bytes.ts";
import { type CsvPlan, domainCsvPlan } from "./csv.ts";
import { EXIT, HOLD, holdRead } from "./export-hold.ts";
import { type Batch, domainStream } from "./export-page.ts";
import type { PageAnswer, PageFormat, ReaderData, StreamMessage } from "./export-reader.ts";
import { type Pieces, type ReadPieces, renderedPieces, renderStream, writtenOf } from "./export-rendered.ts";
import { intoRing } from "./page-ring.ts";

// The thread of export-reader.ts: reads and writes the Domains of exports and cursor=all jobs.

const { timeouts, hold, poolSize } = workerData as ReaderData;
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
  /** Batches written here, or rendered pieces (src/db/rendered.ts) read as they are kept. */
  pages: AsyncGenerator<Batch | Pieces | ReadPieces>;
  format: PageFormat;
  /** The client takes gzip: rendered pieces are handed on compressed. */
  gzip: boolean;
  /** The stream's ring (src/export/page-ring.ts): its pages go through it where they fit. */
  ring?: SharedArrayBuffer;
  /** Whether the snapshot's rendered records served this stream. */
  rendered?: "fresh";
  /** The snapshot as this thread reads it: what writes a page of pieces that does not inflate. */
  served?: ServedSnapshot;
  /** csv: the records of the stream's `fields`, written from each Domain's JSON line. */
  csv: CsvPlan | null;
  /** The stream's requests, in turn: a page is read only once the one before it is. */
  turn: Promise<void>;
  /**
   * The stream's answers, in turn: a page of pieces is inflated off this thread (zlib's pool)
   * while the next is read, and posted only after the one before it.
   */
  posted: Promise<void>;
}
const streams = new Map<number, Stream>();

/** What a stream that is over answers to any further `next`. */
const over = (id: number): PageAnswer => ({ id, count: 0, bytes: new Uint8Array(), done: true });

function post(answer: PageAnswer, ring?: SharedArrayBuffer): void {
  if (!("bytes" in answer)) {
    parentPort?.postMessage(answer);
    return;
  }
  // Through the stream's ring where a slot is free and the page fits (src/export/page-ring.ts);
  // else the page's bytes are moved to the server's thread, not copied.
  const slot = ring && answer.bytes.byteLength ? intoRing(ring, answer.bytes) : null;
  if (slot !== null) {
    const { bytes, ...rest } = answer;
    parentPort?.postMessage({ ...rest, bytes: EMPTY, ringed: { slot, length: bytes.byteLength } });
  } else parentPort?.postMessage(answer, [answer.bytes.buffer as ArrayBuffer]);
}
const EMPTY = new Uint8Array(0);

function failure(id: number, e: unknown): PageAnswer {
  const err = e instanceof Error ? e : new Error(String(e));
  const { code } = err as { code?: unknown };
  return {
    id,
    error: { message: err.message, stack: err.stack, ...(typeof code === "string" ? { code } : {}) },
  };
}

function open(message: Extract<StreamMessage, { type: "open" | "render" }>): void {
  const { id, url, snapshot } = message;
  const readFrom = message.type === "open" ? message.readFrom : undefined;
  // A snapshot is read where the server's thread reads it: a replica, or the primary.
  const location = url ? `${url} ${snapshot.location}` : snapshot.location;
  latest = location;
  let reader = readers.get(location);
  if (!reader) {
    const sql = openSnapshotReader(
      { database, timeouts },
      { location: snapshot.location, url },
      { poolSize },
    );
    reader = { sql, streams: 0 };
    readers.set(location, reader);
  }
  reader.streams++;
  // The snapshot as this thread serves it: its row, and its reads here.
  const served = {
    snapshot,
    sql: reader.sql,
    source: readFrom ?? { name: "primary" as const, role: "primary" as const, url: url ?? "" },
  };
  if (message.type === "render") {
    streams.set(id, {
      location,
      pages: renderStream(served, message.pks, message.records),
      format: "jsonl",
      gzip: false,
      csv: null,
      turn: Promise.resolve(),
      posted: Promise.resolve(),
    });
    return;
  }
  const { fields, query, format, skip } = message;
  const stream: Stream = {
    location,
    pages: undefined as unknown as Stream["pages"],
    format,
    gzip: message.gzip === true,
    ...(message.ring ? { ring: message.ring } : {}),
    csv: format === "csv" ? domainCsvPlan(fields) : null,
    turn: Promise.resolve(),
    posted: Promise.resolve(),
  };
  stream.pages = (async function* () {
    // The default fields, written as JSON: copied from the snapshot's rendered records (a client
    // that takes gzip gets the pieces as they are; any other, the pieces inflated); anything else
    // is written here.
    if (fields === "" && format !== "csv") {
      stream.rendered = "fresh";
      stream.served = served;
      yield* renderedPieces(served, query, skip);
      return;
    }
    yield* domainStream(served, fields, query, undefined, skip);
  })();
  streams.set(id, stream);
}

/** `bytes` in a buffer of its own (a page's buffer is moved to the server's thread: never a pooled one). */
function own(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const out = Buffer.allocUnsafeSlow(bytes.byteLength);
  out.set(bytes);
  return out;
}

const inflating = promisify(inflateRaw);

/**
 * A page of rendered pieces: as they are (gzip, render), or inflated into the stream's format. The
 * inflation runs on zlib's thread pool, not this thread: the page after is read meanwhile (an
 * export's pieces are a quarter of its time to inflate, the rest reading them), so that on a
 * machine of more than one core an export is bound by the slower of the two, not their sum.
 */
function piecesPage(id: number, stream: Stream, p: Pieces | ReadPieces): PageAnswer | Promise<PageAnswer> {
  if (!("bodies" in p)) {
    // A render stream's page: the pieces as they are, with their keys.
    const { bytes, count, ...pieces } = p;
    return { id, count, done: false, bytes: own(bytes), pieces };
  }
  const base = { id, count: p.bodies.length, done: false, rendered: stream.rendered, broken: p.broken };
  // JSON Lines end each record with a newline; a JSON page joins them with a comma (a job joins
  // its pages). The joints are stored blocks between the pieces: one DEFLATE stream still.
  const json = stream.format === "json";
  const joined = joinPieces(p.bodies, p.crcs, p.lens, json ? COMMA_JOINT : NEWLINE_JOINT, !json);
  if (stream.gzip) return { ...base, bytes: own(joined.body), gzip: { crc: joined.crc, len: joined.len } };
  // A page whose pieces do not inflate to the text they were kept for (a body damaged under its
  // header, which checkedPiece cannot see): written by the writer instead, every Domain of it
  // counted broken, as a lost piece is (src/db/rendered.ts). Inflating checks nothing itself.
  const rewritten = async (): Promise<PageAnswer> => {
    const { served } = stream;
    if (!served) throw new Error("a page of rendered pieces on a stream without its snapshot");
    const lines = await writtenOf(served, p.pks);
    const text = Buffer.concat(
      lines.flatMap((l, i) => (i < lines.length - 1 || !json ? [l, JOINT[stream.format]] : [l])),
    );
    return { ...base, broken: p.pks.length, bytes: own(text) };
  };
  // One inflation for the whole page. Its length is known: one output chunk, not chunks joined by
  // a copy. Then its CRC-32 against the pieces' own, combined (about 2 ms for a page of 1000).
  return inflating(joined.body, {
    finishFlush: constants.Z_SYNC_FLUSH,
    chunkSize: Math.max(constants.Z_MIN_CHUNK, joined.len),
  })
    .then(
      (text): PageAnswer | Promise<PageAnswer> =>
        text.length === joined.len && crc32(text) === joined.crc
          ? { ...base, bytes: own(text) }
          : rewritten(),
      () => rewritten(),
    )
    .catch((e: unknown) => {
      end(id);
      return failure(id, e);
    });
}
const JOINT: Record<PageFormat, Buffer> = {
  json: Buffer.from(","),
  jsonl: Buffer.from("\n"),
  csv: Buffer.from(""),
};

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

/** The stream's next page, or its end (a page of pieces still being inflated: its promise). */
async function next(id: number, stream: Stream): Promise<PageAnswer | Promise<PageAnswer>> {
  try {
    holdRead(hold);
    if (hold && Atomics.load(hold, HOLD) === EXIT) process.exit(1);
    const page = TextBytes.fresh(PAGE_BYTES + 64 * 1024);
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
      if ("ends" in batch.value || "bodies" in batch.value) {
        // Rendered pieces come as pages of their own (a batch of them, never mixed with written ones).
        if (!count) return piecesPage(id, stream, batch.value);
        throw new Error("rendered pieces after written Domains in one stream");
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
    return { id, count, bytes: page.done(), done: false, fallbacks, rendered: stream.rendered };
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
  if (message.type === "open" || message.type === "render") {
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
    // Every answer of a stream is posted after the ones before it (a page may be inflating).
    const send = (answer: PageAnswer | Promise<PageAnswer>) => {
      stream.posted = stream.posted.then(async () => post(await answer, stream.ring));
    };
    // The page before may have ended the stream (its last batch): what is asked after it is over.
    if (!streams.has(message.id)) {
      if (message.type === "next") send(over(message.id));
    } else if (message.type === "close") end(message.id);
    else send(await next(message.id, stream));
  });
});
