import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, expect, it } from "vitest";
import { type Line, readLines } from "../../src/dataset/load/read.ts";
import { tempDir } from "../support/api.ts";

const tmp = tempDir("storegraph-read-");
afterAll(() => tmp.remove());

async function lines(name: string, content: Buffer): Promise<Line[]> {
  const dir = mkdtempSync(join(tmp.dir, "lines-"));
  writeFileSync(join(dir, name), content);
  const out: Line[] = [];
  for await (const l of readLines({ kind: "apps", path: join(dir, name), name, bytes: content.length }))
    out.push(l);
  return out;
}

it("numbers lines as an editor does, skipping blank ones, with CRLF and no final newline", async () => {
  const text = '{"a":1}\r\n\n   \n{"b":"é"}\n{"c":3}';
  expect(await lines("apps.jsonl", Buffer.from(text))).toEqual([
    { line: 1, text: '{"a":1}' },
    { line: 4, text: '{"b":"é"}' },
    { line: 5, text: '{"c":3}' },
  ]);
});

it("keeps multi-byte characters whole across read chunks, gzip included", async () => {
  const long = `{"t":"${"ü".repeat(700_000)}"}`; // 1.4 MB: split across 1 MiB chunks mid-character
  const content = `${long}\n{"x":1}\n`;
  for (const [name, data] of [
    ["apps.jsonl", Buffer.from(content)],
    ["apps.jsonl.gz", gzipSync(content)],
  ] as const) {
    const got = await lines(name, data);
    expect(got.map((l) => l.line)).toEqual([1, 2]);
    expect(got[0].text).toBe(long);
  }
});
