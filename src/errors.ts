import { STATUS_CODES } from "node:http";
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { isDatabaseUnavailable } from "./db/unavailable.ts";

/**
 * The expected errors of the API. Each is a GraphQLError with `extensions.code` and the HTTP status
 * the REST layer answers with; everything else is masked by yoga and logged.
 */
export type ErrorCode =
  | "BAD_USER_INPUT"
  | "NOT_FOUND"
  | "CURSOR_EXPIRED"
  | "NOT_READY"
  | "RATE_LIMITED"
  | "QUERY_TOO_COMPLEX"
  | "DATABASE_UNAVAILABLE";

/**
 * The HTTP status of each code, for the REST layer. GraphQL responses stay 200 with errors, but
 * for RATE_LIMITED (429, with Retry-After), QUERY_TOO_COMPLEX (400, nothing was executed) and
 * DATABASE_UNAVAILABLE (503, with Retry-After).
 */
export const STATUS: Record<ErrorCode | "INTERNAL_SERVER_ERROR", number> = {
  BAD_USER_INPUT: 400,
  NOT_FOUND: 404,
  CURSOR_EXPIRED: 410,
  NOT_READY: 503,
  RATE_LIMITED: 429,
  QUERY_TOO_COMPLEX: 400,
  DATABASE_UNAVAILABLE: 503,
  INTERNAL_SERVER_ERROR: 500,
};

export function apiError(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}) {
  return new GraphQLError(message, {
    extensions: { code, ...extensions },
  });
}

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

export function notFound(what: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return apiError("NOT_FOUND", `${what} not found`, extensions);
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

export { isDatabaseUnavailable };

/** Seconds a client is asked to wait (Retry-After) when the database did not answer. */
export const DATABASE_RETRY_AFTER_S = 5;

/**
 * An error that is not the client's, as the client sees it: DATABASE_UNAVAILABLE (HTTP 503 with
 * Retry-After, in GraphQL too) when the database did not answer, INTERNAL_SERVER_ERROR otherwise.
 * It carries the id of the request it happened in (src/ops/request-id.ts), and is logged once
 * with it (warn for an outage, error for a bug), so that the id a client quotes finds the cause.
 * Used by the REST and auth layers for what they catch themselves.
 */
export function maskFault(error: unknown, log: FaultLog, requestId: string): GraphQLError {
  logFault(error, log, requestId);
  return faultOf(error, requestId);
}

function faultOf(error: unknown, requestId: string): GraphQLError {
  const path = error instanceof GraphQLError ? error.path : undefined;
  if (isDatabaseUnavailable(error)) {
    return new GraphQLError(faultMessage("DATABASE_UNAVAILABLE", requestId), {
      path,
      extensions: {
        code: "DATABASE_UNAVAILABLE",
        requestId,
        retryAfter: DATABASE_RETRY_AFTER_S,
        http: { status: 503, headers: { "retry-after": String(DATABASE_RETRY_AFTER_S) } },
      },
    });
  }
  return new GraphQLError(faultMessage("INTERNAL_SERVER_ERROR", requestId), {
    path,
    extensions: { code: "INTERNAL_SERVER_ERROR", requestId },
  });
}

const faultMessage = (code: string, requestId: string) =>
  code === "DATABASE_UNAVAILABLE"
    ? `The database did not answer; retry in ${DATABASE_RETRY_AFTER_S} s (request id ${requestId}).`
    : `Unexpected error (request id ${requestId}).`;

function logFault(error: unknown, log: FaultLog, requestId: string): void {
  if (isDatabaseUnavailable(error)) log.warn({ err: error, requestId }, "database unavailable");
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

/** A masked fault as a JSON answer of its own, `{error, code, request_id}`, with its status and headers. */
export function faultResponse(fault: GraphQLError): Response {
  const { code, requestId, retryAfter, http } = fault.extensions as {
    code: keyof typeof STATUS;
    requestId: string;
    retryAfter?: number;
    http?: { status?: number; headers?: Record<string, string> };
  };
  return Response.json(
    { error: fault.message, code, request_id: requestId, ...(retryAfter ? { retry_after: retryAfter } : {}) },
    {
      status: http?.status ?? STATUS[code] ?? 500,
      headers: { "cache-control": "no-store", ...http?.headers },
    },
  );
}

/**
 * Gives request errors that graphql-js raises before execution a code too: a variable value that
 * does not fit its type is BAD_USER_INPUT, like every other bad argument.
 */
export function useErrorCodes(): Plugin {
  return {
    onResultProcess({ result }) {
      const results = Array.isArray(result) ? result : [result];
      for (const r of results) withInputCodes((r as { errors?: GraphQLError[] }).errors ?? []);
    },
  };
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

/**
 * yoga answers a POST /graphql body it cannot read (415) and an Accept header it cannot satisfy
 * (406) with no body at all; every error of the API is JSON `{error, code}`, so these are too.
 */
export function useJsonErrorBodies(): Plugin {
  return {
    onResponse({ request, response, setResponse, fetchAPI }) {
      if (response.status < 400 || response.body !== null) return;
      const [code, error] = describeEmptyError(request, response);
      const headers = new fetchAPI.Headers(response.headers);
      headers.set("content-type", "application/json; charset=utf-8");
      headers.set("cache-control", "no-store");
      setResponse(
        new fetchAPI.Response(JSON.stringify({ error, code }), { status: response.status, headers }),
      );
    },
  };
}

function describeEmptyError(request: Request, response: Response): [code: string, message: string] {
  if (response.status === 415) {
    const type = request.headers.get("content-type") ?? "none";
    return [
      "UNSUPPORTED_MEDIA_TYPE",
      `the body's content type (${type}) is not one GraphQL reads: send application/json ({"query": "..."}), application/graphql, application/x-www-form-urlencoded or multipart/form-data`,
    ];
  }
  if (response.status === 406) {
    const accept = request.headers.get("accept") ?? "";
    const offered = response.headers.get("accept") ?? "application/json";
    return [
      "NOT_ACCEPTABLE",
      `the Accept header (${accept}) allows none of the types this answer comes in: ${offered}`,
    ];
  }
  const name = STATUS_CODES[response.status] ?? "Error";
  return [name.toUpperCase().replace(/[^A-Z0-9]+/g, "_"), name];
}
