import { createReadStream, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { createGunzip } from "node:zlib";

export const SNAPSHOT_FILES = ["apps", "domains", "reviews"] as const;
export type SnapshotFile = (typeof SNAPSHOT_FILES)[number];

export interface LocatedFile {
  kind: SnapshotFile;
  path: string;
  /** Name used in messages: apps.jsonl or apps.jsonl.gz. */
  name: string;
  bytes: number;
}

export class SnapshotDirError extends Error {
  override name = "SnapshotDirError";
}

/** Finds apps/domains/reviews .jsonl or .jsonl.gz in dir; every file must be there exactly once. */
export function locateSnapshotFiles(dir: string): LocatedFile[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new SnapshotDirError(`${dir}: not a directory`);
  const problems: string[] = [];
  const found: LocatedFile[] = [];
  for (const kind of SNAPSHOT_FILES) {
    const candidates = [`${kind}.jsonl`, `${kind}.jsonl.gz`].filter((n) => existsSync(join(dir, n)));
    if (candidates.length === 0) problems.push(`${dir}: ${kind}.jsonl (or ${kind}.jsonl.gz) is missing`);
    else if (candidates.length > 1) problems.push(`${dir}: both ${candidates.join(" and ")} exist; keep one`);
    else {
      const path = join(dir, candidates[0]);
      found.push({ kind, path, name: candidates[0], bytes: statSync(path).size });
    }
  }
  if (problems.length) throw new SnapshotDirError(problems.join("\n"));
  return found;
}

export interface Line {
  line: number;
  text: string;
}

/**
 * A run of whole lines of a file: its bytes (ending with a newline, or at the file's end), the
 * number of its first line, and how many lines it holds. Its bytes own their ArrayBuffer, so the
 * batch can be transferred to a worker thread rather than copied, and are decoded there: a newline
 * byte is never part of a multi-byte UTF-8 character, so a batch cut after one decodes alone.
 */
export interface LineBatch {
  firstLine: number;
  lines: number;
  bytes: Uint8Array;
}

/** Bytes a batch holds at least (but whole lines: a longer line makes a longer batch). */
const BATCH_BYTES = 1 << 20;

/**
 * Streams a file as batches of whole lines; onBytes reports bytes read from disk (compressed for
 * .gz). Pull-based: the stream's own async iterator reads the next chunk only when the caller
 * asks for more (readline's iterator reads ahead without limit when the consumer is the slower
 * side).
 */
export async function* readBatches(
  file: LocatedFile,
  onBytes?: (n: number) => void,
): AsyncGenerator<LineBatch> {
  const raw = createReadStream(file.path, { highWaterMark: BATCH_BYTES });
  if (onBytes) raw.on("data", (chunk) => onBytes(chunk.length));
  const input = file.path.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  let held: Buffer[] = [];
  let heldBytes = 0;
  let line = 1;
  const cut = (end: number, tail: Buffer): LineBatch => {
    // One new buffer of exactly the batch (not a view of the stream's), to transfer.
    const bytes = new Uint8Array(new ArrayBuffer(end));
    let at = 0;
    for (const b of held) {
      const n = Math.min(b.length, end - at);
      bytes.set(n === b.length ? b : b.subarray(0, n), at);
      at += n;
      if (at === end) break;
    }
    held = tail.length ? [tail] : [];
    heldBytes = tail.length;
    const batch = { firstLine: line, lines: countNewlines(bytes), bytes };
    line += batch.lines;
    return batch;
  };
  try {
    for await (const chunk of input) {
      held.push(chunk as Buffer);
      heldBytes += (chunk as Buffer).length;
      if (heldBytes < BATCH_BYTES) continue;
      const last = (chunk as Buffer).lastIndexOf(10);
      if (last === -1) continue; // the line goes on: read on
      yield cut(heldBytes - (chunk as Buffer).length + last + 1, (chunk as Buffer).subarray(last + 1));
    }
    if (heldBytes > 0) {
      const batch = cut(heldBytes, Buffer.alloc(0));
      // A last line without its newline is a line all the same.
      if (batch.bytes[batch.bytes.length - 1] !== 10) batch.lines++;
      yield batch;
    }
  } finally {
    raw.destroy();
  }
}

function countNewlines(bytes: Uint8Array): number {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let n = 0;
  for (let at = b.indexOf(10); at !== -1; at = b.indexOf(10, at + 1)) n++;
  return n;
}

/**
 * The non-blank lines of a batch, numbered as an editor does (a CRLF's CR dropped). The decoding
 * replaces bytes that are not UTF-8 with U+FFFD, as a streaming decoder does. Each line is decoded
 * on its own (a newline byte is never inside a UTF-8 character, so the text is the same as the
 * batch's decoded whole, cut): a line of ASCII alone becomes a one-byte string, where a batch
 * decoded whole is a two-byte string as soon as one of its lines holds a "€", and so is every line
 * cut from it (decoding a batch whole took 16× as long, and JSON.parse and the record's checks
 * read two-byte strings more slowly; docs/performance-history.md, 2026-12-07).
 */
export function linesOf(batch: LineBatch): Line[] {
  const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.length);
  const out: Line[] = [];
  let line = batch.firstLine;
  let start = 0;
  while (start < bytes.length) {
    let nl = bytes.indexOf(10, start);
    if (nl === -1) nl = bytes.length;
    const end = nl > start && bytes[nl - 1] === 13 ? nl - 1 : nl;
    const l = bytes.toString("utf8", start, end);
    if (l.trim() !== "") out.push({ line, text: l });
    line++;
    start = nl + 1;
  }
  return out;
}

/** Streams the non-blank lines of a file (readBatches, each split by linesOf). */
export async function* readLines(file: LocatedFile, onBytes?: (n: number) => void): AsyncGenerator<Line> {
  for await (const batch of readBatches(file, onBytes)) yield* linesOf(batch);
}
