import { randomBytes } from "node:crypto";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { fillRing, fromRing, intoRing, newRing } from "../../src/export/page-ring.ts";
import { createHttpServer } from "../../src/http.ts";
import { whenWritten } from "../../src/ops/access-log.ts";
import { slowGet } from "../support/raw-http.ts";

// An export's pages through a ring of shared buffers (src/export/page-ring.ts), and the moment a
// slot may be used again: once the socket has taken its page (whenWritten, src/ops/access-log.ts).

describe("a ring of pages", () => {
  it("takes a page into a free slot, gives it back as written, and frees the slot only when released", () => {
    const ring = newRing(2, 64);
    const a = randomBytes(64);
    const b = randomBytes(10);
    const sa = intoRing(ring, a, 64);
    const sb = intoRing(ring, b, 64);
    expect([sa, sb].sort()).toEqual([0, 1]);
    // Both slots hold a page: a third finds none, and one longer than a slot never fits.
    expect(intoRing(ring, Buffer.of(1), 64)).toBeNull();
    const pa = fromRing(ring, sa as number, a.length, 64);
    const pb = fromRing(ring, sb as number, b.length, 64);
    expect(Buffer.from(pa.bytes).equals(a)).toBe(true);
    expect(Buffer.from(pb.bytes).equals(b)).toBe(true);
    pa.release();
    pa.release(); // twice: still one slot freed
    const c = randomBytes(33);
    expect(intoRing(ring, c, 64)).toBe(sa);
    expect(intoRing(ring, Buffer.of(2), 64)).toBeNull();
    // The other page was never overwritten.
    expect(Buffer.from(pb.bytes).equals(b)).toBe(true);
    expect(intoRing(newRing(1, 64), randomBytes(65), 64)).toBeNull();
  });

  it("lets a page be written straight into a slot, which a failed write leaves free", () => {
    const ring = newRing(1, 64);
    const parts = [randomBytes(20), randomBytes(30)];
    expect(() =>
      fillRing(
        ring,
        50,
        () => {
          throw new Error("the page could not be joined");
        },
        64,
      ),
    ).toThrow("could not be joined");
    const slot = fillRing(
      ring,
      50,
      (into) => {
        expect(into.length).toBe(50);
        into.set(parts[0], 0);
        into.set(parts[1], 20);
      },
      64,
    );
    expect(slot).toBe(0);
    expect(Buffer.from(fromRing(ring, 0, 50, 64).bytes).equals(Buffer.concat(parts))).toBe(true);
    // The one slot holds the page: nothing more is written until it is released.
    let wrote = false;
    expect(
      fillRing(
        ring,
        1,
        () => {
          wrote = true;
        },
        64,
      ),
    ).toBeNull();
    expect(
      fillRing(
        newRing(1, 64),
        65,
        () => {
          wrote = true;
        },
        64,
      ),
    ).toBeNull();
    expect(wrote).toBe(false);
  });
});

describe("whenWritten", () => {
  it("is called for each chunk written to a response, in order, once the socket has taken it", async () => {
    const chunks = Array.from({ length: 6 }, () => randomBytes(2 * 1024 * 1024));
    const order: string[] = [];
    let pending = 0;
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const next = (i: number) => {
        if (i === chunks.length) {
          res.end();
          return;
        }
        pending++;
        whenWritten(chunks[i], () => {
          pending--;
          order.push(`written ${i}`);
        });
        // A chunk of its own is copied by no one: the callback is the moment it is free.
        if (res.write(chunks[i])) next(i + 1);
        else res.once("drain", () => next(i + 1));
      };
      next(0);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      // A slow reader: the socket cannot take a chunk at once.
      const body = await slowGet(port, "/", {}, 5);
      expect(body.equals(Buffer.concat(chunks))).toBe(true);
      expect(order).toEqual(chunks.map((_c, i) => `written ${i}`));
      expect(pending).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("is called for a chunk the socket will never take (the client went away)", async () => {
    let called = 0;
    let wrote: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      wrote = resolve;
    });
    const server = createHttpServer((_req, res) => {
      res.writeHead(200);
      const chunk = randomBytes(32 * 1024 * 1024);
      whenWritten(chunk, () => {
        called++;
        wrote();
      });
      res.write(chunk);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await new Promise<void>((resolve) => {
        const req = request({ port, host: "127.0.0.1", path: "/" }, (res) => {
          // Read a little, then go away with most of the chunk unsent.
          res.once("data", () => {
            req.destroy();
            resolve();
          });
        });
        req.on("error", () => {});
        req.end();
      });
      await done;
      expect(called).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
