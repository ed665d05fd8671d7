import type { IncomingMessage, ServerResponse } from "node:http";
import type { Plugin } from "graphql-yoga";
import { apiKeyOf } from "../auth/plugin.ts";
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
const learned = new WeakMap<IncomingMessage, { keyId?: string; route: string }>();

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

/** Counts the body bytes of `res`, and logs and observes its line once it is over. */
export function watchRequest(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  { log, observe }: RequestWatch,
): void {
  const start = process.hrtime.bigint();
  // The target as it arrived: the app may rewrite req.url (an absolute-form target).
  const path = redactPath(req.url ?? "");
  let bytes = 0;
  const write = res.write;
  const end = res.end;
  const count = (chunk: unknown, encoding?: unknown) => {
    if (typeof chunk === "string")
      bytes += Buffer.byteLength(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
    else if (chunk instanceof Uint8Array) bytes += chunk.byteLength;
  };
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    count(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (typeof chunk !== "function") count(chunk, rest[0]);
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
  res.once("close", () => {
    const line: AccessLine = {
      method: req.method ?? "",
      path,
      status: res.statusCode,
      ms: Math.round(Number(process.hrtime.bigint() - start) / 1e4) / 100,
      bytes,
      requestId,
      route: learned.get(req)?.route ?? "unmatched",
    };
    const keyId = learned.get(req)?.keyId;
    if (keyId) line.keyId = keyId;
    if (!res.writableFinished) line.aborted = true;
    log?.info(line, "request");
    observe?.(line);
  });
}

/** Tells the access log whose request it was (the authenticated key's id). */
export function useAccessLog(): Plugin<{ req?: IncomingMessage }> {
  return {
    onResponse({ request, serverContext }) {
      const req = (serverContext as { req?: IncomingMessage } | undefined)?.req;
      if (!req) return;
      const route = routes.get(request) ?? PATH_ROUTES[new URL(request.url).pathname] ?? "unmatched";
      learned.set(req, { route, keyId: apiKeyOf(request)?.id });
    },
  };
}
