import type { Plugin } from "graphql-yoga";
import { LRUCache } from "lru-cache";
import { errorResponse, type FaultLog, jsonError, maskFault } from "../errors.ts";
import { requestIdOf } from "../ops/request-id.ts";
import type { ApiKey, ApiKeys } from "./keys.ts";

/**
 * `Authorization: Bearer <key>` on every request but the open ones (/healthz, /readyz, the OpenAPI
 * document): missing, malformed, unknown or revoked keys get a 401 JSON body and a
 * `WWW-Authenticate` header (RFC 6750). GraphiQL, opened in a browser that cannot send headers,
 * also accepts the key as `?key=` on its page and then sends it as the header itself.
 */
const authenticated = new WeakMap<Request, ApiKey>();

/**
 * Who asks, where no HTTP request of theirs is answered (an MCP tool call: src/mcp/): the key
 * they were authenticated with, and the id their faults are logged and reported under. It stands
 * where a Request stands in the REST layer's answers (the budgets drawn, the account read), as an
 * identity of its own (one per call), so nothing is forged.
 */
export interface Caller {
  readonly apiKey: ApiKey;
  readonly requestId: string;
}

/** A client's HTTP request, or a caller without one. */
export type Asker = Request | Caller;

/** Whether `asker` is an HTTP request (a caller carries its key itself). */
export const isRequest = (asker: Asker): asker is Request => !("apiKey" in asker);

/** The key a request was authenticated with (set by useAuth), or a caller's own. */
export function apiKeyOf(request: Asker): ApiKey | null {
  if (!isRequest(request)) return request.apiKey;
  return authenticated.get(request) ?? null;
}

/** Verified keys are remembered briefly, so a busy client costs no lookup per request. */
const CACHE_MS = 5_000;

export type Verify = (secret: string) => Promise<ApiKey | null>;

/** keys.verify with a short memory (a revoked key stops working within CACHE_MS). */
export function createVerifier(keys: ApiKeys): Verify {
  const cache = new LRUCache<string, { key: ApiKey | null }>({ max: 10_000, ttl: CACHE_MS });
  return async (secret) => {
    const hit = cache.get(secret);
    if (hit) return hit.key;
    const key = await keys.verify(secret);
    cache.set(secret, { key });
    return key;
  };
}

/** The GraphiQL page's key: the Authorization header, or ?key= on the page's URL. */
export async function graphiqlKey(request: Request, verify: Verify): Promise<string | null> {
  const header = /^Bearer +(\S+) *$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  const secret = header ?? new URL(request.url).searchParams.get("key");
  // A key that cannot be checked now opens no page; useAuth then answers the request itself.
  return secret && (await verify(secret).catch(() => null)) ? secret : null;
}

/**
 * A key check that fails (the database does not answer) is answered here as JSON, 503 with
 * Retry-After, and logged once with the request id the body carries: thrown on, it would reach
 * yoga's own handler, which answers 500 text/plain with a stack trace.
 */
export function useAuth(verify: Verify, open: readonly string[], log: FaultLog = console): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if (open.includes(url.pathname)) return;
      const header = request.headers.get("authorization");
      const pageKey = isGraphiQLPage(request, url) ? url.searchParams.get("key") : null;
      if (header === null && pageKey === null) {
        return endResponse(
          unauthorized(request, "missing Authorization header: send Authorization: Bearer <API key>", false),
        );
      }
      const match = header === null ? null : /^Bearer +(\S+) *$/i.exec(header);
      if (header !== null && !match) {
        return endResponse(
          unauthorized(request, "malformed Authorization header: expected Bearer <API key>", true),
        );
      }
      let key: ApiKey | null;
      try {
        key = await verify(match ? match[1] : (pageKey as string));
      } catch (e) {
        const id = requestIdOf(request);
        return endResponse(errorResponse(maskFault(e, log, id), id));
      }
      if (!key) return endResponse(unauthorized(request, "unknown or revoked API key", true));
      authenticated.set(request, key);
    },
  };
}

function isGraphiQLPage(request: Request, url: URL): boolean {
  return (
    url.pathname === "/graphql" &&
    request.method === "GET" &&
    (request.headers.get("accept") ?? "").includes("text/html")
  );
}

function unauthorized(request: Request, message: string, invalid: boolean): Response {
  const challenge = invalid
    ? `Bearer realm="storegraph", error="invalid_token", error_description="${message}"`
    : 'Bearer realm="storegraph"';
  return jsonError("UNAUTHENTICATED", message, requestIdOf(request), {
    headers: { "www-authenticate": challenge },
  });
}
