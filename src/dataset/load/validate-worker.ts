import { parentPort } from "node:worker_threads";
import type { LineBatch, SnapshotFile } from "./read.ts";
import { prepareBatch } from "./validate.ts";

// A validation worker of validate.ts: decodes, JSON-parses and validates batches of lines.
parentPort?.on("message", ({ seq, kind, batch }: { seq: number; kind: SnapshotFile; batch: LineBatch }) => {
  parentPort?.postMessage({ seq, results: prepareBatch(kind, batch) });
});
