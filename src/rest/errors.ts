import type { GraphQLError } from "graphql";
import {
  apiError,
  type ErrorCode,
  type ErrorExtensions,
  errorBody,
  isApiError,
  maskFault,
} from "../errors.ts";
import type { Logger } from "../logger.ts";
import { markFailedMidway } from "../ops/access-log.ts";
import { requestIdOf } from "../ops/request-id.ts";

export interface GraphQLErrorJson {
  message: string;
  extensions?: { code?: string; argument?: string; requestId?: string; [k: string]: unknown };
}

const FAULTS = new Set([undefined, "INTERNAL_SERVER_ERROR", "DATABASE_UNAVAILABLE", "BUSY"]);

/**
 * The error a REST answer reports for the errors of its GraphQL operation: a fault of ours first
 * (never hidden behind a client error of the same response), its argument renamed to the REST
 * option it came from, and what it carries (request id, Retry-After, endpoint) kept.
 */
export function restErrorOf(errors: GraphQLErrorJson[], rename: (argument: string) => string): GraphQLError {
  const e = errors.find((x) => FAULTS.has(x.extensions?.code)) ?? errors[0];
  // A code this table lacks keeps its name, and is answered as a fault (500).
  const code = (e.extensions?.code ?? "INTERNAL_SERVER_ERROR") as ErrorCode;
  let message = e.message;
  const argument = e.extensions?.argument;
  if (argument && message.startsWith(`${argument}: `)) {
    message = `${rename(argument)}: ${message.slice(argument.length + 2)}`;
  }
  const { requestId, retryAfter, endpoint, http } = e.extensions ?? {};
  const extensions: ErrorExtensions = {};
  if (typeof requestId === "string") extensions.requestId = requestId;
  if (typeof retryAfter === "number") extensions.retryAfter = retryAfter;
  if (typeof endpoint === "string") extensions.endpoint = endpoint;
  const headers = (http as { headers?: Record<string, string> } | undefined)?.headers;
  if (headers) extensions.headers = headers;
  return apiError(code, message, extensions);
}

/**
 * Ends a streamed answer that failed midway: its status is sent, so a last line says what
 * happened (the error's body), and the stream is then broken so that the client cannot take the
 * partial result for a whole one. The line is enqueued here and the error returned: the caller
 * errors the stream with it at its next pull, once the line has been taken, since erroring a
 * stream drops what is still queued in it (a slow client's last line). Over HTTP, the server then
 * breaks the connection off (src/http.ts).
 * `frame`: how the line goes in the stream's own coding (a gzip member's stored blocks: the client
 * inflating it reads the line, then the member's broken end).
 */
export function failMidStream(
  controller: ReadableStreamDefaultController<Uint8Array>,
  e: unknown,
  request: Request,
  logger: Logger,
  frame: (line: Uint8Array) => Uint8Array = (line) => line,
): GraphQLError {
  const id = requestIdOf(request);
  const err = isApiError(e) ? e : maskFault(e, logger, id);
  controller.enqueue(frame(new TextEncoder().encode(`${JSON.stringify(errorBody(err, id))}\n`)));
  markFailedMidway(id);
  return err;
}
