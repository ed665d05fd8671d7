import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One POST a receiver took. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status it answered. */
  status: number;
}

/**
 * A webhook receiver for tests, on a loopback port: it keeps every POST it takes, and answers each
 * with `answer(n)` (n counts from 0; default 200).
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (n: number, body: string) => number | { status: number; headers?: Record<string, string> } = () =>
    200;
  /** How long it takes to answer. */
  delayMs = 0;
  private server: Server | null = null;
  url = "";

  async start(path = "/hook"): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const a = this.answer(this.received.length, body);
        const { status, headers } = typeof a === "number" ? { status: a, headers: {} } : a;
        this.received.push({ headers: req.headers, body, status });
        setTimeout(() => {
          res.writeHead(status, headers);
          res.end("ok");
        }, this.delayMs);
      });
    });
    await new Promise<void>((r) => this.server?.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }

  /** What came with a 2xx answer, by body. */
  accepted(): Received[] {
    return this.received.filter((r) => r.status >= 200 && r.status < 300);
  }

  async until(done: (r: this) => boolean, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done(this)) {
      if (Date.now() > deadline)
        throw new Error(`the receiver waited ${ms} ms (took ${this.received.length})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }
}
