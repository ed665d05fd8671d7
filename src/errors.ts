import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";

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
  | "QUERY_TOO_COMPLEX";

/**
 * The HTTP status of each code, for the REST layer. GraphQL responses stay 200 with errors, but
 * for RATE_LIMITED (429, with Retry-After) and QUERY_TOO_COMPLEX (400, nothing was executed).
 */
export const STATUS: Record<ErrorCode | "INTERNAL_SERVER_ERROR", number> = {
  BAD_USER_INPUT: 400,
  NOT_FOUND: 404,
  CURSOR_EXPIRED: 410,
  NOT_READY: 503,
  RATE_LIMITED: 429,
  QUERY_TOO_COMPLEX: 400,
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

/**
 * yoga's maskError: expected errors pass with their code; an InputError becomes BAD_USER_INPUT
 * naming its argument; anything else is replaced by a generic message carrying a request id, and
 * reported through `log` with that id.
 */
export function createMaskError(log: (err: unknown, requestId: string) => void) {
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
    const requestId = randomUUID();
    log(error, requestId);
    return new GraphQLError(`Unexpected error (request id ${requestId}).`, {
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: { code: "INTERNAL_SERVER_ERROR", requestId },
    });
  };
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
