import { parentPort } from "node:worker_threads";
import type { Line, SnapshotFile } from "./read.ts";
import { prepareLine } from "./validate.ts";

// A validation worker of validate.ts: JSON-parses and validates batches of lines.
parentPort?.on("message", ({ seq, kind, lines }: { seq: number; kind: SnapshotFile; lines: Line[] }) => {
  parentPort?.postMessage({ seq, results: lines.map((l) => prepareLine(kind, l)) });
});
