import { randomBytes } from "node:crypto";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/http.ts";
import { writeEnvelope } from "../../src/rest/envelope.ts";
import { BufferPool, TextBytes } from "../../src/rest/text-bytes.ts";

// A REST answer's buffer (src/rest/text-bytes.ts): taken from a small pool, and back in it only
// once the socket has taken the answer (src/ops/access-log.ts, whenWritten). The answers
// themselves, many at once over real sockets, are checked in test/rest/rendered.test.ts.

describe("the answers' buffer pool", () => {
  it("keeps the largest buffers up to its count and size, and hands the largest back when it fits", () => {
    const pool = new BufferPool(2, 1000);
    const a = Buffer.alloc(100);
    const b = Buffer.alloc(300);
    const c = Buffer.alloc(200);
    pool.give(a);
    pool.give(b);
    pool.give(b); // given twice: kept once
    expect(pool.held).toEqual({ buffers: 2, bytes: 400 });
    pool.give(c); // larger than the smallest kept (a): replaces it
    expect(pool.held).toEqual({ buffers: 2, bytes: 500 });
    pool.give(Buffer.alloc(50)); // smaller than both: not kept
    pool.give(Buffer.alloc(1001)); // over the size kept
    expect(pool.held).toEqual({ buffers: 2, bytes: 500 });
    // The largest when it holds what is asked; a new buffer when none does.
    expect(pool.take(250)).toBe(b);
    expect(pool.reused).toBe(1);
    const fresh = pool.take(250);
    expect(fresh).not.toBe(c);
    expect(fresh.length).toBe(250);
    expect(pool.take(10)).toBe(c);
    expect(pool.held.buffers).toBe(0);
    expect(pool.reused).toBe(2);
  });

  it("grows a pooled text through the pool, and gives back the outgrown buffer at once", () => {
    const pool = new BufferPool(4, 1 << 20);
    const out = TextBytes.pooled(16, pool);
    const text = "é".repeat(100);
    out.write(text);
    out.write(text, 0x2c);
    const bytes = out.done();
    expect(bytes.toString("utf8")).toBe(`${text},${text}`);
    // The buffers it outgrew are free; the one it ended in is not (it is not yet written).
    expect(pool.held.buffers).toBeGreaterThan(0);
    for (let i = 0; i < 4; i++) expect(pool.take(1).length).toBeLessThan(bytes.length);
  });

  it("writes a rendered record's UTF-8 bytes as they are, between texts written as strings", () => {
    const pool = new BufferPool(1, 1 << 20);
    const out = TextBytes.pooled(4, pool);
    const bytes = Buffer.from('{"name":"café.de","emoji":"🛒"}', "utf8");
    out.write("[");
    out.write(bytes);
    out.write('{"name":"a"}', 0x2c);
    out.write(bytes.subarray(0, bytes.length), 0x2c);
    out.write("]");
    const text = `[${bytes.toString("utf8")},{"name":"a"},${bytes.toString("utf8")}]`;
    expect(out.done().toString("utf8")).toBe(text);
  });

  it("takes an envelope's buffer back at once when a record cannot be written", () => {
    const pool = new BufferPool(2, 1 << 20);
    const members = [{ prefix: '"d":', kind: "record" as const, path: ["d"], when: null }];
    expect(writeEnvelope(members, () => undefined, { d: {} }, TextBytes.pooled(1000, pool))).toBeUndefined();
    expect(pool.held).toEqual({ buffers: 1, bytes: 1000 });
  });

  it("takes an envelope's buffer back only once a response's socket has taken the answer", async () => {
    const pool = new BufferPool(2, 1 << 24);
    const payload = randomBytes(3 << 20).toString("base64");
    let heldWhenWritten = -1;
    const server = createHttpServer((_req, res) => {
      // A REST envelope, as answers are written (src/rest/envelope.ts), into a buffer of this pool.
      const members = [{ prefix: '"v":', kind: "value" as const, path: ["v"], when: null }];
      const body = writeEnvelope(members, () => undefined, { v: payload }, TextBytes.pooled(16, pool));
      if (!body) throw new Error("the envelope was not written");
      res.setHeader("content-length", body.length);
      // Not yet written: the buffer holding the answer is not kept.
      heldWhenWritten = pool.held.bytes >= body.length ? 1 : 0;
      res.write(body);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const got = await new Promise<string>((resolve, reject) => {
        request({ port, host: "127.0.0.1", path: "/" }, (res) => {
          const parts: Buffer[] = [];
          res.on("data", (c) => parts.push(c));
          res.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
          res.on("error", reject);
        })
          .on("error", reject)
          .end();
      });
      expect(got).toBe(JSON.stringify({ v: payload }));
      expect(heldWhenWritten).toBe(0);
      // Written: the buffer (at least the answer's size) is back in the pool.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(pool.held.bytes).toBeGreaterThanOrEqual(payload.length);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
