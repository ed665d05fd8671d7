import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, expect, it } from "vitest";
import { type Line, type LineBatch, readBatches, readLines } from "../../src/dataset/load/read.ts";
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

it("cuts batches only after a newline and numbers lines across them, gzip included", async () => {
  // About 3 MB of lines of varied lengths, blank ones and CRLFs among them: several batches.
  const want: Line[] = [];
  const parts: string[] = [];
  for (let line = 1; line <= 6000; line++) {
    if (line % 7 === 0) {
      parts.push(line % 14 === 0 ? "  \r\n" : "\n");
      continue;
    }
    const text = `{"n":${line},"pad":"${"é".repeat((line * 37) % 400)}"}`;
    want.push({ line, text });
    parts.push(line % 5 === 0 ? `${text}\r\n` : `${text}\n`);
  }
  const content = parts.join("");
  for (const [name, data] of [
    ["apps.jsonl", Buffer.from(content)],
    ["apps.jsonl.gz", gzipSync(content)],
  ] as const) {
    expect(await lines(name, data)).toEqual(want);
    const dir = mkdtempSync(join(tmp.dir, "batches-"));
    writeFileSync(join(dir, name), data);
    const batches: LineBatch[] = [];
    for await (const b of readBatches({ kind: "apps", path: join(dir, name), name, bytes: data.length }))
      batches.push(b);
    expect(batches.length).toBeGreaterThan(1);
    let next = 1;
    for (const b of batches) {
      expect(b.firstLine).toBe(next);
      expect(b.bytes[b.bytes.length - 1]).toBe(10); // the file ends with a newline: every batch does
      expect(b.bytes.byteOffset).toBe(0); // owns its buffer: transferable
      expect(b.bytes.buffer.byteLength).toBe(b.bytes.length);
      next += b.lines;
    }
    expect(next - 1).toBe(6000);
  }
});

it("decodes each line as the whole file decodes: bytes that are not UTF-8 as U+FFFD, at a line's end too", async () => {
  // A lone lead byte before a newline, a stray continuation byte, a truncated "€" at the file's
  // end after a CR: each line decoded on its own reads as the file decoded whole, cut at newlines.
  const content = Buffer.concat([
    Buffer.from('{"a":"x'),
    Buffer.from([0xe2]),
    Buffer.from('"}\n{"b":"'),
    Buffer.from([0xe2, 0x82]),
    Buffer.from("\n"),
    Buffer.from([0x80]),
    Buffer.from('{"c":"€"}\r\n{"d":1}\r'),
  ]);
  const whole = content.toString("utf8").split("\n");
  const got = await lines("apps.jsonl", content);
  expect(got).toEqual(whole.map((text, i) => ({ line: i + 1, text: text.replace(/\r$/, "") })));
  expect(got[1].text).toBe('{"b":"\uFFFD');
  expect(got[3].text).toBe('{"d":1}');
});
