import { request } from "node:http";
import { connect } from "node:net";

/** One HTTP/1.1 response as it came off the socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything received, for failure messages. */
  raw: string;
}

/**
 * Sends `bytes` as they are on a new connection to 127.0.0.1:`port` and resolves with the first
 * final (non-1xx) response once it is complete, by Content-Length, chunked framing or the close
 * of the connection. Rejects if the connection closes before a complete response, or if none
 * comes within `patienceMs` (a hang; the limit is far above any answer's time, not a measurement).
 * `head`: the request was a HEAD, whose response has headers only.
 */
export function rawRequest(
  port: number,
  bytes: string | Buffer,
  { head = false, patienceMs = 20_000 }: { head?: boolean; patienceMs?: number } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(
      () =>
        settle(() => reject(new Error(`no complete response within ${patienceMs} ms: ${show(received)}`))),
      patienceMs,
    );
    socket.on("connect", () => socket.write(bytes));
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      const response = parseResponse(received, false, head);
      if (response) settle(() => resolve(response));
    });
    const closed = () => {
      const response = parseResponse(received, true, head);
      settle(() =>
        response
          ? resolve(response)
          : reject(new Error(`the connection closed mid-response: ${show(received)}`)),
      );
    };
    socket.on("end", closed);
    socket.on("close", closed);
    // The server may answer and close while the request is still being written (a huge header).
    socket.on("error", closed);
  });
}

function show(b: Buffer): string {
  return JSON.stringify(b.toString("latin1").slice(0, 500));
}

/** The first final response in `buf`, or null while it is incomplete. */
export function parseResponse(buf: Buffer, closed: boolean, head = false): RawResponse | null {
  let start = 0;
  for (;;) {
    const end = buf.indexOf("\r\n\r\n", start);
    if (end < 0) return null;
    const [statusLine, ...lines] = buf.toString("latin1", start, end).split("\r\n");
    const m = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine);
    if (!m) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify(statusLine)}`);
    const status = Number(m[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(":");
      headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    const bodyStart = end + 4;
    if (status < 200) {
      start = bodyStart;
      continue;
    }
    const raw = buf.toString("latin1");
    const done = (body: Buffer): RawResponse => ({ status, headers, body: body.toString("utf8"), raw });
    if (head || status === 204 || status === 304) return done(Buffer.alloc(0));
    if (headers["transfer-encoding"]?.toLowerCase() === "chunked") {
      const body = dechunk(buf.subarray(bodyStart));
      return body ? done(body) : null;
    }
    if (headers["content-length"] !== undefined) {
      const length = Number(headers["content-length"]);
      return buf.length - bodyStart >= length ? done(buf.subarray(bodyStart, bodyStart + length)) : null;
    }
    return closed ? done(buf.subarray(bodyStart)) : null;
  }
}

/** A chunked body, or null until its last chunk has arrived. */
function dechunk(buf: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf("\r\n", at);
    if (eol < 0) return null;
    const size = Number.parseInt(buf.toString("latin1", at, eol).split(";")[0], 16);
    if (Number.isNaN(size)) throw new Error(`bad chunk size: ${show(buf.subarray(at, eol))}`);
    if (size === 0) return buf.indexOf("\r\n", eol + 2) >= 0 ? Buffer.concat(parts) : null;
    if (buf.length < eol + 2 + size + 2) return null;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** Sends `bytes` and resolves with everything received once the server closes the connection. */
export function rawExchange(port: number, bytes: string | Buffer, patienceMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open after ${patienceMs} ms: ${show(received)}`));
    }, patienceMs);
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received.toString("latin1"));
    });
  });
}

/**
 * The body of a GET to 127.0.0.1:`port`, read by a slow client (64 KB every `everyMs`): the
 * server's socket cannot take what it writes at once, so its writes wait on the client.
 */
export function slowGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  everyMs = 2,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    request({ port, host: "127.0.0.1", path, headers }, (res) => {
      const got: Buffer[] = [];
      res.pause();
      const timer = setInterval(() => {
        for (let c = res.read(65536); c; c = res.read(65536)) got.push(c);
      }, everyMs);
      res.on("readable", () => {});
      res.on("end", () => {
        clearInterval(timer);
        resolve(Buffer.concat(got));
      });
      res.on("error", (e) => {
        clearInterval(timer);
        reject(e);
      });
    })
      .on("error", reject)
      .end();
  });
}
