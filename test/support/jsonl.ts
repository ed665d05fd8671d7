import { readFileSync } from "node:fs";

/** The records of a JSON Lines file (a generated dataset's domains.jsonl, apps.jsonl, …). */
export function readJsonl<T>(file: string): T[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);
}
