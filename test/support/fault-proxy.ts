import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy between the gateway and PostgreSQL or Redis that a test controls:
 * - `pass`: forwards both ways (the start state, and what `restore` returns to);
 * - `stall`: stops forwarding in both directions but keeps every socket open, new ones included
 *   (a peer that stops answering: bytes wait in the proxy, as in a network that drops packets);
 * - `cut`: destroys every connection and refuses new ones (the listening socket is closed).
 * `restore` goes back to `pass`: what a stall held is delivered, as TCP would after a partition.
 */
export type FaultMode = "pass" | "stall" | "cut";

interface Pair {
  client: Socket;
  upstream: Socket;
  /** What each side sent while stalled, delivered on restore. */
  held: { toUpstream: Buffer[]; toClient: Buffer[] };
}

export class FaultProxy {
  private mode: FaultMode = "pass";
  private server: Server;
  private readonly pairs = new Set<Pair>();
  /** Connections accepted so far (tests check that a client reconnected). */
  accepted = 0;

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {
    this.server = this.listener();
  }

  /** A proxy on a free port of 127.0.0.1 to `target` (a URL's host and port). */
  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    const probe = createServer();
    const port = await new Promise<number>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen(0, "127.0.0.1", () => {
        const a = probe.address();
        resolve(typeof a === "object" && a ? a.port : 0);
      });
    });
    await new Promise((r) => probe.close(r));
    const proxy = new FaultProxy(port, target);
    await proxy.listen();
    return proxy;
  }

  /** `url` with its host and port replaced by this proxy's. */
  urlFor(url: string): string {
    const u = new URL(url);
    u.hostname = "127.0.0.1";
    u.port = String(this.port);
    return u.toString();
  }

  get state(): FaultMode {
    return this.mode;
  }

  stall(): void {
    this.mode = "stall";
  }

  async cut(): Promise<void> {
    this.mode = "cut";
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    await new Promise((r) => this.server.close(r));
  }

  async restore(): Promise<void> {
    const was = this.mode;
    this.mode = "pass";
    if (was === "cut") {
      this.server = this.listener();
      await this.listen();
    }
    for (const { client, upstream, held } of this.pairs) {
      for (const b of held.toUpstream.splice(0)) upstream.write(b);
      for (const b of held.toClient.splice(0)) client.write(b);
    }
  }

  async close(): Promise<void> {
    if (this.mode !== "cut") await this.cut();
    this.mode = "cut";
  }

  private listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.port, "127.0.0.1", () => {
        this.server.off("error", reject);
        resolve();
      });
    });
  }

  private listener(): Server {
    return createServer((client) => {
      this.accepted++;
      const upstream = createConnection(this.target);
      const pair: Pair = { client, upstream, held: { toUpstream: [], toClient: [] } };
      this.pairs.add(pair);
      const end = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on("error", end).on("close", end);
      upstream.on("error", end).on("close", end);
      // Not pipe(): a stall must hold every byte, and pipe() resumes a paused source on drain.
      client.on("data", (b: Buffer) =>
        this.mode === "pass" ? upstream.write(b) : pair.held.toUpstream.push(b),
      );
      upstream.on("data", (b: Buffer) =>
        this.mode === "pass" ? client.write(b) : pair.held.toClient.push(b),
      );
    });
  }
}
