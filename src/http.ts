import {
  createServer,
  type IncomingMessage,
  maxHeaderSize,
  type RequestListener,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { isIPv6 } from "node:net";
import type { Duplex } from "node:stream";
import { type ErrorCode, statusOf } from "./errors.ts";
import { CountingResponse, type RequestWatch, tookFailedMidway, watchRequest } from "./ops/access-log.ts";
import { newRequestId, REQUEST_ID_HEADER, requestIdFrom } from "./ops/request-id.ts";

/**
 * The host of the URLs the start banner prints for a server listening on `host`: the address
 * itself when it is one (HOST=127.0.0.1 answers on that address only, so `localhost`, which may
 * resolve to ::1 first, may not reach it), `localhost` for the wildcard addresses.
 *
 * @example urlHost("0.0.0.0") // → "localhost"; urlHost("127.0.0.1") // → "127.0.0.1"; urlHost("::1") // → "[::1]"
 */
export function urlHost(host: string): string {
  if (host === "" || host === "0.0.0.0" || host === "::" || host === "[::]") return "localhost";
  return isIPv6(host) ? `[${host}]` : host;
}

/**
 * The HTTP front of the app: whatever arrives on a socket gets a complete JSON answer. The app
 * (yoga) builds each request's URL from the Host header and the request target, and a value
 * that does not make a URL became a 500 with a stack trace; requests Node's own parser refuses
 * got a status line and no body. Both are answered here, before the app, with
 * `{"error": "...", "code": "..."}`.
 */
export function createHttpServer(
  app: RequestListener,
  tls?: { cert: Buffer; key: Buffer },
  watch: RequestWatch = {},
): Server | HttpsServer {
  // Node's own check of a missing Host answers 400 without a body: checkRequest answers it instead.
  const options = { requireHostHeader: false, ServerResponse: CountingResponse };
  const listener: RequestListener = (req, res) => {
    responses.set(req.socket, res);
    // The request's id (src/ops/request-id.ts): the app reads it from the header set here.
    const header = req.headers[REQUEST_ID_HEADER];
    const id = requestIdFrom(typeof header === "string" ? header : null) ?? newRequestId();
    // The app reads it from the header; the response carries it whoever writes it.
    req.headers[REQUEST_ID_HEADER] = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    watchRequest(req, res, id, watch);
    const refused = checkRequest(req);
    if (refused) sendJson(res, refused, id);
    else breakOffUnfinished(app(req, res), id, req, res);
  };
  const server = tls ? createHttpsServer({ ...tls, ...options }, listener) : createServer(options, listener);
  // A client may close its sending side once its request is whole (a half-close, legal in
  // HTTP/1.1: `curl` over some proxies, `nc -N`). Node then ends the socket at once unless told
  // to allow it, and an answer still being read from the database was never sent (20 of 20 on
  // PostgreSQL, where every read waits for the network). With it, the socket ends after the last
  // answer owed. Node has no option for it, only this property of its server.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.on("clientError", (err: Error & { code?: string; reason?: unknown }, socket: Duplex) =>
    answerClientError(err, socket, maxHeaderSize, watch),
  );
  // Without a listener Node closes a CONNECT's socket without a word.
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    endSocket(
      socket,
      {
        code: "METHOD_NOT_ALLOWED",
        message: "CONNECT is not served: this server is not a proxy",
        headers: { allow: "GET, HEAD, POST" },
      },
      watch,
    );
  });
  // Expect: 100-continue is Node's to answer; any other expectation would get an empty 417.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const id = newRequestId();
    res.setHeader(REQUEST_ID_HEADER, id);
    watchRequest(req, res, id, watch);
    sendJson(
      res,
      {
        code: "EXPECTATION_FAILED",
        message: `Expect: ${quote(req.headers.expect ?? "")} is not supported (only 100-continue is)`,
      },
      id,
    );
  });
  return server;
}

/**
 * Once the app is done with a response whose streamed body failed midway (failMidStream,
 * src/rest/errors.ts: an export whose read failed writes its error line and errors its stream),
 * the response is broken off: its connection ends without the last chunk of the chunked encoding.
 * The adapter that writes the body here stops at the error, logs it, and left the socket open,
 * so the client waited for more until shutdown cut it. Broken off, the client sees the answer
 * end at once, and cannot take what came for the whole (docs/api.md, Export Domains).
 *
 * The adapter cancels the body when the request errors, as it does when its connection closes
 * before the answer ended: the body is errored by then, its cancel rejects, nobody handles that,
 * and Node ends the process on an unhandled rejection. So its listener goes before the end.
 */
function breakOffUnfinished(
  done: unknown,
  requestId: string,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  if (typeof (done as Promise<unknown> | undefined)?.then !== "function") return;
  const breakOff = () => {
    if (!tookFailedMidway(requestId) || res.writableEnded || res.destroyed) return;
    req.removeAllListeners("error");
    req.on("error", () => {});
    // The socket's end, not its destroy: what was written (the error line) is sent first.
    if (res.socket) res.socket.end();
    else res.destroy();
  };
  (done as Promise<unknown>).then(breakOff, breakOff);
}

/** An error answered before the app: its status is its code's (src/errors.ts). */
interface HttpError {
  code: ErrorCode;
  message: string;
  headers?: Record<string, string>;
}

/** The latest response on each socket, so that a parse error is answered after it. */
const responses = new WeakMap<Duplex, ServerResponse>();
/** Sockets already answered by answerClientError (the parser may report its error again). */
const answered = new WeakSet<Duplex>();

function checkRequest(req: IncomingMessage): HttpError | null {
  // Node closes the connection of a PRI request (HTTP/2's preface) once this listener returns,
  // so it is answered now, while the answer can still be written.
  if (req.method === "PRI") {
    return {
      code: "MALFORMED_REQUEST",
      message: "PRI is HTTP/2's connection preface: this server speaks HTTP/1.1",
    };
  }
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].length === 4 && req.rawHeaders[i].toLowerCase() === "host") hosts++;
  }
  if (hosts > 1) return invalidHost("the request has more than one Host header");
  const host = req.headers.host;
  if (host === undefined) {
    return req.httpVersionMajor === 1 && req.httpVersionMinor >= 1
      ? invalidHost("the request has no Host header, which HTTP/1.1 requires (Host: <name>[:<port>])")
      : null;
  }
  // An empty Host is what a client sends when the target has no authority (RFC 9112 §3.2).
  if (host !== "" && !isValidHost(host)) {
    return invalidHost(
      `the Host header ${quote(host)} is not a host name or IP address with an optional port`,
    );
  }
  return takeTarget(req);
}

/**
 * An origin-form target (/path?query) is served as it is. An absolute-form one
 * (http://host/path), legal for any HTTP/1.1 request though clients send it to proxies, is
 * served by its path as RFC 9112 §3.2.2 asks of a server, with its authority in place of Host:
 * refusing it would refuse a valid request. Any other form (*, host:port) is a 400.
 */
function takeTarget(req: IncomingMessage): HttpError | null {
  const target = req.url ?? "";
  if (target.startsWith("/")) return null;
  const url = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(target) && URL.canParse(target) ? new URL(target) : null;
  if (url && (url.protocol === "http:" || url.protocol === "https:") && isValidHost(url.host)) {
    // Only the path is taken from it: whether the request came over TLS is the socket's to say.
    req.url = `${url.pathname}${url.search}`;
    req.headers.host = url.host;
    return null;
  }
  return {
    code: "INVALID_REQUEST_TARGET",
    message: `the request target ${quote(target)} is neither a path (/...) nor an absolute http(s) URL`,
  };
}

// A DNS name, an IPv4 address or a bracketed IPv6 address, and an optional port. The rest of
// RFC 3986's reg-name (percent-escapes, sub-delims) names no host anyone can reach.
const HOST = /^(?:\[([0-9A-Fa-f:.]+)\]|[A-Za-z0-9._~-]+)(?::(\d{0,5}))?$/;

/** Nearly every request names the same host: the last one found valid is not checked again. */
let lastValidHost = "";

function isValidHost(value: string): boolean {
  if (value === lastValidHost) return true;
  const m = HOST.exec(value);
  if (!m || (m[1] !== undefined && !isIPv6(m[1])) || Number(m[2] ?? 0) > 65535) return false;
  // The app's URL is built from it: a name URL refuses (x.1 reads as an IPv4 address) is a 400 here.
  if (!URL.canParse(`http://${value}/`)) return false;
  lastValidHost = value;
  return true;
}

function invalidHost(message: string): HttpError {
  return { code: "INVALID_HOST", message };
}

/** A client's text in a message: quoted and escaped, and cut short. */
function quote(s: string): string {
  return JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);
}

function bodyOf(e: HttpError, requestId: string): string {
  return JSON.stringify({ error: e.message, code: e.code, request_id: requestId });
}

function sendJson(res: ServerResponse, e: HttpError, requestId: string): void {
  const body = bodyOf(e, requestId);
  res.writeHead(statusOf(e.code), {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    connection: "close",
    [REQUEST_ID_HEADER]: requestId,
    ...e.headers,
  });
  res.end(body);
}

/**
 * A whole response written on the socket itself (the parser has no request to answer), then
 * the end of the connection: end rather than destroy, so the answer is sent before the close.
 */
function endSocket(socket: Duplex, e: HttpError, watch?: RequestWatch): void {
  // Not a request the parser could read, but still a response with an id, and a line in the log.
  const requestId = newRequestId();
  const body = bodyOf(e, requestId);
  const line = {
    method: "",
    path: "",
    status: statusOf(e.code),
    ms: 0,
    bytes: Buffer.byteLength(body),
    requestId,
    route: "malformed",
  };
  watch?.log?.info({ ...line, code: e.code }, "request");
  watch?.observe?.(line);
  const head = [
    `HTTP/1.1 ${statusOf(e.code)} ${STATUS_CODES[statusOf(e.code)]}`,
    `X-Request-Id: ${requestId}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Cache-Control: no-store",
    "Connection: close",
    ...Object.entries(e.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}

function answerClientError(
  err: Error & { code?: string; reason?: unknown },
  socket: Duplex,
  headerBytes: number,
  watch?: RequestWatch,
) {
  if (answered.has(socket)) {
    // The parser reports its error again as more bytes come; close once the client has read and gone.
    if (socket.readableEnded) socket.destroy();
    return;
  }
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  answered.add(socket);
  const answer = () => {
    if (!socket.writable) return void socket.destroy();
    endSocket(socket, clientErrorOf(err, headerBytes), watch);
    // A client that never closes its side would hold the socket open.
    setTimeout(() => socket.destroy(), 5_000).unref();
  };
  // Pipelined requests before the bad one are owed their answers first, in order: the answer
  // is written after the last of them, never into it or ahead of it.
  const inFlight = responses.get(socket);
  if (inFlight && !inFlight.writableFinished && inFlight.req?.complete === false) {
    // The bad bytes are the in-flight request's own body (a bad chunk): the app is still reading
    // it and would wait for the rest forever. That request is answered here, unless the app has
    // begun its answer already, and its reading is then ended so that the app lets go of it.
    const release = () => inFlight.req.destroy();
    if (inFlight.headersSent) release();
    else {
      endSocket(socket, clientErrorOf(err, headerBytes));
      socket.once("finish", release);
    }
    setTimeout(() => socket.destroy(), 5_000).unref();
    return;
  }
  if (inFlight && !inFlight.writableFinished) {
    inFlight.once("finish", answer);
    inFlight.once("close", () => setImmediate(() => inFlight.writableFinished || socket.destroy()));
  } else {
    answer();
  }
}

function clientErrorOf(err: Error & { code?: string; reason?: unknown }, headerBytes: number): HttpError {
  switch (err.code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        code: "HEADERS_TOO_LARGE",
        message: `the request's headers are larger than ${Math.round(headerBytes / 1024)} KB`,
      };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return {
        code: "PAYLOAD_TOO_LARGE",
        message: "the request's chunk extensions are too large",
      };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { code: "REQUEST_TIMEOUT", message: "the request did not arrive in time" };
    case "HPE_INVALID_METHOD":
      return {
        code: "MALFORMED_REQUEST",
        message: "the request's method is not an HTTP method (GET, HEAD and POST are served)",
      };
    default: {
      // llhttp's reasons are fixed phrases ("Invalid header value char"), never the client's bytes.
      const reason = typeof err.reason === "string" ? `: ${err.reason}` : "";
      return {
        code: "MALFORMED_REQUEST",
        message: `the request is not valid HTTP/1.1${reason}`,
      };
    }
  }
}
