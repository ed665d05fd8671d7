import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

// A client that aborts its request body mid-way: that is the client's doing, so the answer is a
// 400 (as yoga answers on /graphql) and the log line is info, never an error with a stack.

/** Every line the app logs (createApp takes its logger from createLogger). */
const logged = vi.hoisted(() => [] as { level: number; msg?: string; [k: string]: unknown }[]);
vi.mock("../../src/logger.ts", () => ({
  createLogger: () =>
    pino(
      { level: "debug", base: undefined },
      { write: (line: string) => void logged.push(JSON.parse(line)) },
    ),
}));

const PATHS = ["/json/api/v1/all/domain", "/json/api/v1/all/app", "/json/api/v1/all/domain/bulk"];
const ABORTED = "request body aborted by the client";

describe.each(databaseKinds())("an aborted request body on %s", (kind) => {
  let api: TestApi;
  let server: Server;
  let port: number;
  const tmp = tempDir("storegraph-abort-");
  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
    server = createServer(api.app.listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await api?.close();
    tmp.remove();
  });

  it.each(PATHS)("POST %s cut off on a real socket: logged at info, no error", async (path) => {
    logged.length = 0;
    const received = new Promise<void>((resolve) => server.once("request", () => resolve()));
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"q":"ab`,
    );
    await received;
    socket.destroy();
    // The handler's outcome: our info line, or (before the fix) an error line.
    await vi.waitFor(() => expect(logged.some((l) => l.msg === ABORTED || l.level >= 40)).toBe(true), {
      timeout: 20_000,
    });
    expect(logged.filter((l) => l.level >= 40)).toEqual([]);
    const line = logged.find((l) => l.msg === ABORTED);
    expect(line).toMatchObject({ level: 30, method: "POST", path });
    expect(JSON.stringify(line)).not.toMatch(/stack/);
  });

  it.each(PATHS)("POST %s whose body stream errors: 400, not 500", async (path) => {
    logged.length = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"q":"ab'));
        controller.error(new Error("aborted"));
      },
    });
    const res = await api.app.fetch(`http://localhost${path}`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "the request body ended before it was complete",
      code: "BAD_REQUEST",
      request_id: expect.any(String),
    });
    expect(logged.filter((l) => l.level >= 40)).toEqual([]);
    expect(logged.find((l) => l.msg === ABORTED)).toMatchObject({ level: 30, reason: "aborted" });
  });
});
