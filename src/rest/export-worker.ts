import { parentPort, workerData } from "node:worker_threads";
import { openSnapshotReader, type SqlReader } from "../db/reader.ts";
import { EXIT, HOLD, holdRead } from "./export-hold.ts";
import { domainLines } from "./export-page.ts";
import type { PageAnswer, PageRequest, ReaderData } from "./export-reader.ts";

// The thread of export-reader.ts: reads and writes the pages of exports and cursor=all jobs.

const { database, timeouts, hold } = workerData as ReaderData;
/** Readers by snapshot location, with the pages they are reading. */
const readers = new Map<string, { sql: SqlReader; reading: number }>();
/** The snapshot of the latest page: the served one, so an older one's reader goes when idle. */
let latest = "";

const encoder = new TextEncoder();

async function answer({ id, location, fields, names, format }: PageRequest): Promise<PageAnswer> {
  latest = location;
  let reader = readers.get(location);
  try {
    if (!reader) {
      reader = { sql: openSnapshotReader({ database, timeouts }, { location }), reading: 0 };
      readers.set(location, reader);
    }
    reader.reading++;
    holdRead(hold);
    if (hold && Atomics.load(hold, HOLD) === EXIT) process.exit(1);
    const lines = await domainLines(reader.sql, fields, names);
    const text = format === "jsonl" ? `${lines.join("\n")}\n` : lines.join(",");
    return { id, count: lines.length, bytes: encoder.encode(text) };
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    const { code } = err as { code?: unknown };
    return {
      id,
      error: { message: err.message, stack: err.stack, ...(typeof code === "string" ? { code } : {}) },
    };
  } finally {
    if (reader) reader.reading--;
    for (const [at, r] of readers) {
      if (at === latest || r.reading) continue;
      readers.delete(at);
      void r.sql.close();
    }
  }
}

parentPort?.on("message", (request: PageRequest) => {
  // The page's bytes are moved to the server's thread, not copied.
  void answer(request).then((a) =>
    parentPort?.postMessage(a, "bytes" in a ? [a.bytes.buffer as ArrayBuffer] : []),
  );
});
