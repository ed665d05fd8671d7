import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { isDatabaseUnavailable, isPoolBusy } from "./db/unavailable.ts";

/**
 * The error codes of the API, each with the HTTP status it is answered with: the one mapping of
 * errors to HTTP. errorResponse below answers an error with its code's status (the REST API,
 * authentication, HTTPS, /metrics), the HTTP server's own answers take theirs from statusOf
 * (src/http.ts), and apiError gives GraphQL the status of the few codes a GraphQL answer carries
 * too (those with a Retry-After, and QUERY_TOO_COMPLEX: nothing was executed). Everything else a
 * resolver throws is masked (createMaskError) and logged.
 */
export const STATUS = {
  BAD_USER_INPUT: 400,
  BAD_REQUEST: 400,
  QUERY_TOO_COMPLEX: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  GRAPHQL_PARSE_FAILED: 400,
  MALFORMED_REQUEST: 400,
  INVALID_REQUEST_TARGET: 400,
  INVALID_HOST: 400,
  UNAUTHENTICATED: 401,
  HTTPS_REQUIRED: 403,
  /** An MCP request from an Origin or to a Host not allowed (DNS rebinding: src/mcp/http.ts). */
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  CURSOR_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** A byte range outside a snapshot file (GET /snapshots/{version}/{file}: src/files/routes.ts). */
  RANGE_NOT_SATISFIABLE: 416,
  EXPECTATION_FAILED: 417,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  INTERNAL_SERVER_ERROR: 500,
  NOT_READY: 503,
  DATABASE_UNAVAILABLE: 503,
  /**
   * The gateway is at a limit of its own, not the database down: it runs its maximum of exports
   * at once (EXPORT_CONCURRENCY), or every connection of a pool stayed in use while a request
   * waited for one. The message says which.
   */
  BUSY: 503,
} as const;

export type ErrorCode = keyof typeof STATUS;

/** The HTTP status of a code; an unknown one is a fault of ours. */
export const statusOf = (code: string | undefined): number =>
  (STATUS as Record<string, number>)[code ?? ""] ?? 500;

/**
 * What an error may carry besides its code and message: `retryAfter` (seconds; sent as
 * Retry-After and `retry_after`), `endpoint` (the rate limit a 429 is of), `headers` (HTTP headers
 * the answer needs, such as a 405's Allow), `requestId`, and anything else for GraphQL clients.
 */
export interface ErrorExtensions {
  retryAfter?: number;
  endpoint?: string;
  headers?: Record<string, string>;
  requestId?: string;
  [key: string]: unknown;
}

/**
 * Codes that refuse the GraphQL request as a whole, before anything ran: a GraphQL answer carries
 * their HTTP status, whatever the Accept header.
 */
const REQUEST_ERRORS: ReadonlySet<ErrorCode> = new Set([
  "QUERY_TOO_COMPLEX",
  "BAD_REQUEST",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
]);

export function apiError(code: ErrorCode, message: string, extensions: ErrorExtensions = {}): GraphQLError {
  const { headers, ...rest } = extensions;
  const retry: Record<string, string> =
    typeof rest.retryAfter === "number" ? { "retry-after": String(rest.retryAfter) } : {};
  // yoga answers a GraphQL request with the status of `http` (and leaves `http` out of the body);
  // `spec: false` keeps that status under Accept: application/json too, where yoga answers the
  // validation errors it marks as the spec's with 200.
  const http =
    headers || rest.retryAfter !== undefined || REQUEST_ERRORS.has(code)
      ? { http: { status: statusOf(code), spec: false, headers: { ...retry, ...headers } } }
      : {};
  return new GraphQLError(message, { extensions: { code, ...rest, ...http } });
}

/** An expected error of the API (one apiError made), as opposed to a fault to mask. */
export const isApiError = (e: unknown): e is GraphQLError => e instanceof GraphQLError && !!e.extensions.code;

/** The JSON body of an error: `{error, code}`, with `request_id`, `retry_after` and `endpoint` when known. */
export function errorBody(error: GraphQLError, requestId?: string): Record<string, unknown> {
  const {
    code,
    requestId: own,
    retryAfter,
    endpoint,
  } = error.extensions as ErrorExtensions & {
    code?: string;
  };
  const id = own || requestId;
  return {
    error: boundEchoes(error.message),
    code: code ?? "INTERNAL_SERVER_ERROR",
    ...(id ? { request_id: id } : {}),
    ...(typeof retryAfter === "number" ? { retry_after: retryAfter } : {}),
    ...(typeof endpoint === "string" ? { endpoint } : {}),
  };
}

/** An error as the JSON answer of its own: the status of its code, with the headers it asks for. */
export function errorResponse(error: GraphQLError, requestId?: string): Response {
  const http = error.extensions.http as { headers?: Record<string, string> } | undefined;
  return Response.json(errorBody(error, requestId), {
    status: statusOf(error.extensions.code as string | undefined),
    headers: { "cache-control": "no-store", ...http?.headers },
  });
}

/** The JSON answer of an error made here: `errorResponse(apiError(...))`. */
export const jsonError = (
  code: ErrorCode,
  message: string,
  requestId?: string,
  extensions: ErrorExtensions = {},
): Response => errorResponse(apiError(code, message, extensions), requestId);

/**
 * A bad argument value. `argument` is the dotted path of the argument that was wrong, as the
 * client wrote it (e.g. `filter.countryCode`), so the message and the REST layer can name it.
 */
export class InputError extends Error {
  override name = "InputError";
  constructor(
    readonly argument: string,
    readonly problem: string,
  ) {
    super(`${argument}: ${problem}`);
  }
}

/** `what` not found, and what was most likely meant (`hint`: src/query/suggest.ts's meant). */
export function notFound(what: string, extensions: Record<string, unknown> = {}, hint = ""): GraphQLError {
  return apiError("NOT_FOUND", `${what} not found${hint}`, extensions);
}

/** Where faults are reported: a pino logger, or anything with its warn and error. */
export interface FaultLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * yoga's maskError: expected errors pass with their code; an InputError becomes BAD_USER_INPUT
 * naming its argument; anything else is masked by maskFault.
 */
export function createMaskError(log: FaultLog) {
  return (error: unknown): Error => {
    if (error instanceof GraphQLError) {
      const original = error.originalError;
      if (original instanceof InputError) {
        return new GraphQLError(original.message, {
          nodes: error.nodes,
          path: error.path,
          extensions: { code: "BAD_USER_INPUT", argument: original.argument },
        });
      }
      if (!original || original instanceof GraphQLError) return error;
      if (original.name === "GraphQLError") return error;
    }
    const masked = faultOf(error, "");
    unsettled.set(masked, { error, log });
    return masked;
  };
}

export { isDatabaseUnavailable, isPoolBusy };

/** Seconds a client is asked to wait (Retry-After) when the database did not answer. */
export const DATABASE_RETRY_AFTER_S = 5;

/**
 * An error that is not the client's, as the client sees it: DATABASE_UNAVAILABLE (HTTP 503 with
 * Retry-After, in GraphQL too) when the database did not answer, BUSY (503 with Retry-After too)
 * when a pool of the gateway had no free connection in time, INTERNAL_SERVER_ERROR otherwise. It
 * carries the id of the request it happened in (src/ops/request-id.ts), and is logged once with
 * it (warn for an outage or an overload, error for a bug), so that the id a client quotes finds
 * the cause. Used by the REST and auth layers for what they catch themselves.
 */
export function maskFault(error: unknown, log: FaultLog, requestId: string): GraphQLError {
  logFault(error, log, requestId);
  return faultOf(error, requestId);
}

type FaultCode = "DATABASE_UNAVAILABLE" | "BUSY" | "INTERNAL_SERVER_ERROR";

/** A pool's wait is told apart first: it times out as the database's own timeouts do. */
const faultCodeOf = (error: unknown): FaultCode =>
  isPoolBusy(error)
    ? "BUSY"
    : isDatabaseUnavailable(error)
      ? "DATABASE_UNAVAILABLE"
      : "INTERNAL_SERVER_ERROR";

function faultOf(error: unknown, requestId: string): GraphQLError {
  const path = error instanceof GraphQLError ? error.path : undefined;
  const code = faultCodeOf(error);
  const fault = apiError(code, faultMessage(code, requestId), {
    requestId,
    ...(code === "INTERNAL_SERVER_ERROR" ? {} : { retryAfter: DATABASE_RETRY_AFTER_S }),
  });
  return path ? new GraphQLError(fault.message, { path, extensions: fault.extensions }) : fault;
}

const faultMessage = (code: string, requestId: string) =>
  code === "DATABASE_UNAVAILABLE"
    ? `The database did not answer; retry in ${DATABASE_RETRY_AFTER_S} s (request id ${requestId}).`
    : code === "BUSY"
      ? `The gateway is busy: every connection it keeps to the database stayed in use while this request waited for one; retry in ${DATABASE_RETRY_AFTER_S} s (request id ${requestId}).`
      : `Unexpected error (request id ${requestId}).`;

function logFault(error: unknown, log: FaultLog, requestId: string): void {
  if (isPoolBusy(error)) log.warn({ err: error, requestId }, "no free database connection in time");
  else if (isDatabaseUnavailable(error)) log.warn({ err: error, requestId }, "database unavailable");
  else log.error({ err: error, requestId }, "unexpected error");
}

/**
 * Faults masked by yoga's maskError, which is not told the request: each is logged, and given
 * its request's id, by settleFaults once the request is known (useRequestIds for GraphQL over
 * HTTP, executeInternally for REST).
 */
const unsettled = new WeakMap<object, { error: unknown; log: FaultLog }>();

/** Gives the faults among `errors` the id of the request they happened in, and logs each once. */
export function settleFaults(errors: readonly unknown[], requestId: string): void {
  for (const e of errors) {
    const fault = typeof e === "object" && e !== null ? unsettled.get(e) : undefined;
    if (!fault) continue;
    unsettled.delete(e as object);
    const masked = e as GraphQLError;
    const extensions = masked.extensions as Record<string, unknown>;
    extensions.requestId = requestId;
    masked.message = faultMessage(String(extensions.code), requestId);
    logFault(fault.error, fault.log, requestId);
  }
}

/** The longest a value of the client's is quoted in an error message, in characters. */
export const MAX_ECHO = 100;

/** A quoted string of JSON, as messages quote a client's value (escapes included). */
const QUOTED = /"(?:[^"\\]|\\.)*"/g;

/**
 * An error message with every quoted value longer than MAX_ECHO cut to its first MAX_ECHO
 * characters and an ellipsis, with how long it was: a 1 MB argument is named, not echoed back
 * whole. Messages are built in many places (graphql-js' coercion errors among them), so they are
 * bounded where they leave: errorBody for REST, useErrorCodes for GraphQL.
 */
export function boundEchoes(message: string): string {
  if (message.length <= MAX_ECHO * 2) return message;
  return message.replace(QUOTED, (quoted) => {
    const inner = quoted.slice(1, -1);
    if (inner.length <= MAX_ECHO) return quoted;
    // Not in the middle of an escape or of a surrogate pair.
    let cut = MAX_ECHO;
    const backslash = inner.lastIndexOf("\\", cut);
    if (backslash > cut - 12) cut = backslash;
    if (/[\uD800-\uDBFF]/.test(inner[cut - 1] ?? "")) cut--;
    return `"${inner.slice(0, cut)}…" (${inner.length.toLocaleString("en-US")} characters)`;
  });
}

/**
 * Gives request errors that graphql-js raises before execution a code too: a variable value that
 * does not fit its type is BAD_USER_INPUT, like every other bad argument.
 */
export function useErrorCodes(): Plugin {
  return {
    onResultProcess({ result }) {
      const results = Array.isArray(result) ? result : [result];
      for (const r of results) {
        const errors = withInputCodes((r as { errors?: GraphQLError[] }).errors ?? []);
        errors.forEach((e, i) => {
          if (e.message.length > MAX_ECHO * 2) errors[i] = withMessage(e, boundEchoes(e.message));
        });
      }
    },
  };
}

/**
 * The error with another message: a new one, since an error located by graphql-jit keeps its
 * message read-only (assigning it threw a TypeError, and the client's long-messaged mistake, an
 * unknown field listing the known ones, was masked as a fault).
 */
function withMessage(e: GraphQLError, message: string): GraphQLError {
  return new GraphQLError(message, {
    nodes: e.nodes,
    source: e.source,
    positions: e.positions,
    path: e.path,
    originalError: e.originalError,
    extensions: e.extensions,
  });
}

/** Gives a variable's coercion error (a bad value of the client's) the code BAD_USER_INPUT. */
export function withInputCodes<E>(errors: E[]): E[] {
  for (const e of errors) {
    if (e instanceof GraphQLError && !e.extensions.code && e.message.startsWith('Variable "$')) {
      (e.extensions as Record<string, unknown>).code = "BAD_USER_INPUT";
    }
  }
  return errors;
}
