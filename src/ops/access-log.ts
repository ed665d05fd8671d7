import { type IncomingMessage, ServerResponse, STATUS_CODES } from "node:http";
import type { Plugin } from "graphql-yoga";
import { LRUCache } from "lru-cache";
import type { Logger } from "../logger.ts";

/**
 * One line per request, written when its response is over (finished, or cut off):
 * `{"msg":"request","method","path","status","ms","bytes","requestId","keyId"}`. The path's query
 * parameters that can carry a secret (`key`, as GraphiQL's page takes it, and their usual
 * spellings) are redacted; the key's id, never the key, says whose request it was.
 */
export interface AccessLine {
  method: string;
  path: string;
  status: number;
  ms: number;
  bytes: number;
  requestId: string;
  /** The REST route's id (listDomains...), or graphql, healthz, readyz, openapi, metrics, unmatched. */
  route: string;
  keyId?: string;
  /** The response was cut off before its end (the client left, or the server shut down). */
  aborted?: boolean;
}

/** What the app learns of a request that the HTTP server cannot see (set by useAccessLog). */
const learned = new WeakMap<IncomingMessage, { keyId?: string; route?: string }>();

/** The REST route a request matched (the REST handler says so). */
const routes = new WeakMap<Request, string>();

export function noteRoute(request: Request, route: string): void {
  routes.set(request, route);
}

const PATH_ROUTES: Record<string, string> = {
  "/graphql": "graphql",
  "/healthz": "healthz",
  "/readyz": "readyz",
  "/metrics": "metrics",
  "/json/api/v1/openapi.json": "openapi",
};

const SECRET_PARAMS = new Set(["key", "api_key", "apikey", "access_token", "token"]);

/** The request target with any secret-bearing query parameter's value replaced. */
export function redactPath(target: string): string {
  const q = target.indexOf("?");
  if (q < 0) return target;
  const params = target.slice(q + 1).split("&");
  let changed = false;
  for (let i = 0; i < params.length; i++) {
    const eq = params[i].indexOf("=");
    const rawName = eq < 0 ? params[i] : params[i].slice(0, eq);
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, " "));
    } catch {}
    if (eq >= 0 && SECRET_PARAMS.has(name.toLowerCase())) {
      params[i] = `${rawName}=REDACTED`;
      changed = true;
    }
  }
  return changed ? `${target.slice(0, q)}?${params.join("&")}` : target;
}

export interface RequestWatch {
  log?: Logger;
  /** Told of each request once it is over (src/ops/metrics.ts). */
  observe?: (line: AccessLine) => void;
}

/**
 * The server's responses count the body bytes they write (the HTTP server is made with it:
 * createServer's ServerResponse option), so that counting costs no closures per request.
 */
export class CountingResponse<R extends IncomingMessage = IncomingMessage> extends ServerResponse<R> {
  bytesSent = 0;

  /**
   * Every status line carries its standard reason phrase (`HTTP/1.1 404 Not Found`). A fetch
   * Response made with `new Response(body, { status })` has an empty statusText, and the adapter
   * that writes it here passes that on as the reason, where Node would otherwise have filled it
   * in: clients show the phrase (Python's "HTTP Error 404: Not Found"), and some read their error
   * text from it. A reason given (not empty) is kept.
   */
  // biome-ignore lint/suspicious/noExplicitAny: ServerResponse.writeHead's overloads
  override writeHead(statusCode: number, ...rest: any[]): this {
    if (rest[0] === "") rest[0] = STATUS_CODES[statusCode] ?? "Unknown";
    return (super.writeHead as (...a: unknown[]) => this)(statusCode, ...rest);
  }

  // biome-ignore lint/suspicious/noExplicitAny: ServerResponse.write's overloads
  override write(chunk: any, ...rest: any[]): boolean {
    this.bytesSent += byteLength(chunk, rest[0]);
    const done = chunk instanceof Uint8Array ? written.get(chunk) : undefined;
    if (done) {
      written.delete(chunk);
      // Called by Node once the socket has taken the bytes, or with an error if it never will.
      const at = rest.findIndex((a) => typeof a === "function");
      const callback = at === -1 ? undefined : (rest[at] as (err?: Error | null) => void);
      const wrapped = (err?: Error | null) => {
        done();
        callback?.(err);
      };
      if (at === -1) rest.push(wrapped);
      else rest[at] = wrapped;
    }
    return (super.write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }

  // biome-ignore lint/suspicious/noExplicitAny: ServerResponse.end's overloads
  override end(chunk?: any, ...rest: any[]): this {
    if (typeof chunk !== "function") this.bytesSent += byteLength(chunk, rest[0]);
    return (super.end as (...a: unknown[]) => this)(chunk, ...rest);
  }
}

/**
 * The requests (by id) whose streamed answer failed midway, its error line written
 * (failMidStream, src/rest/errors.ts): the server breaks their connection off once the app is
 * done with them (src/http.ts). Bounded: an answer made through app.fetch, with no server, is
 * never looked up.
 */
const failedMidway = new LRUCache<string, true>({ max: 1000 });

/** The answer to request `requestId` failed midway: its connection is to be broken off. */
export function markFailedMidway(requestId: string): void {
  failedMidway.set(requestId, true);
}

/** Whether the answer to `requestId` failed midway (asked once, by the server). */
export function tookFailedMidway(requestId: string): boolean {
  return failedMidway.delete(requestId);
}

/** What to call once a chunk is written to its socket (whenWritten). */
const written = new WeakMap<Uint8Array, () => void>();

/**
 * `done` is called once `chunk`, written to a response of this server, has been taken by its socket
 * (or never will be: the connection failed): the moment its buffer may be used again
 * (src/export/page-ring.ts). A chunk never written to a response (the answer was dropped, or
 * compressed on the way) never calls it.
 */
export function whenWritten(chunk: Uint8Array, done: () => void): void {
  written.set(chunk, done);
}

function byteLength(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === "string")
    return Buffer.byteLength(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
  return chunk instanceof Uint8Array ? chunk.byteLength : 0;
}

/** Logs and observes the line of `res` once it is over. */
export function watchRequest(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  { log, observe }: RequestWatch,
): void {
  if (!log && !observe) return;
  const start = performance.now();
  // The target as it arrived: the app may rewrite req.url (an absolute-form target).
  const target = req.url ?? "";
  res.once("close", () => {
    const known = learned.get(req);
    const q = target.indexOf("?");
    const line: AccessLine = {
      method: req.method ?? "",
      path: redactPath(target),
      status: res.statusCode,
      ms: Math.round((performance.now() - start) * 100) / 100,
      bytes: (res as Partial<CountingResponse>).bytesSent ?? 0,
      requestId,
      route: known?.route ?? PATH_ROUTES[q < 0 ? target : target.slice(0, q)] ?? "unmatched",
    };
    if (known?.keyId) line.keyId = known.keyId;
    if (!res.writableFinished) line.aborted = true;
    log?.info(line, "request");
    observe?.(line);
  });
}

/** Tells the access log whose request it was: `keyIdOf` gives the authenticated key's id. */
export function useAccessLog(
  keyIdOf: (request: Request) => string | undefined,
): Plugin<{ req?: IncomingMessage }> {
  return {
    onResponse({ request, serverContext }) {
      const req = (serverContext as { req?: IncomingMessage } | undefined)?.req;
      if (req) learned.set(req, { route: routes.get(request), keyId: keyIdOf(request) });
    },
  };
}
