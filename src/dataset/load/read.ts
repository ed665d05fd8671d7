import { createReadStream, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
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
 * Streams the non-blank lines of a file; onBytes reports bytes read from disk (compressed for .gz).
 * Pull-based: the stream's own async iterator reads the next chunk only when the caller asks for
 * more (readline's iterator reads ahead without limit when the consumer is the slower side).
 */
export async function* readLines(file: LocatedFile, onBytes?: (n: number) => void): AsyncGenerator<Line> {
  const raw = createReadStream(file.path, { highWaterMark: 1 << 20 });
  if (onBytes) raw.on("data", (chunk) => onBytes(chunk.length));
  const input = file.path.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  const decoder = new StringDecoder("utf8");
  let rest = "";
  let line = 0;
  try {
    for await (const chunk of input) {
      const text = rest + decoder.write(chunk as Buffer);
      let start = 0;
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
        line++;
        const l = text.slice(start, nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl);
        if (l.trim() !== "") yield { line, text: l };
        start = nl + 1;
      }
      rest = text.slice(start);
    }
    rest += decoder.end();
    if (rest.trim() !== "") yield { line: line + 1, text: rest.endsWith("\r") ? rest.slice(0, -1) : rest };
  } finally {
    raw.destroy();
  }
}
