import { randomUUID } from "node:crypto";
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { settleFaults } from "../errors.ts";

/**
 * Every request has an id: the `X-Request-Id` a proxy in front of the gateway sent, when it is a
 * plain token, or a new UUID. It is on every response (X-Request-Id), in every JSON error body
 * (`request_id`, written by whatever writes the body), on the request's access-log line and on any fault logged while answering it,
 * so that the id a client quotes finds every line about its request.
 */
export const REQUEST_ID_HEADER = "x-request-id";

/** What a proxy may set: a token of at most 128 characters, nothing that could forge a log line. */
const TOKEN = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The id a request arrives with, when it is a usable one. */
export function requestIdFrom(header: string | null | undefined): string | null {
  return header && TOKEN.test(header) ? header : null;
}

export const newRequestId = (): string => randomUUID();

const ids = new WeakMap<Request, string>();

/**
 * The request's id: the one it arrived with (the HTTP server sets it), or one given now; a caller
 * without an HTTP request of its own (src/auth/plugin.ts's Caller) carries its own.
 */
export function requestIdOf(request: Request | { readonly requestId: string }): string {
  if (!("headers" in request)) return request.requestId;
  let id = ids.get(request);
  if (id === undefined) {
    id = requestIdFrom(request.headers.get(REQUEST_ID_HEADER)) ?? newRequestId();
    ids.set(request, id);
  }
  return id;
}

/**
 * Puts the request's id on its response (X-Request-Id) and in its GraphQL errors: a masked
 * fault's (logged then, with it: settleFaults) and each error's `extensions.requestId`. JSON error
 * bodies `{error, code}` are given it by whatever writes them (errorResponse in src/errors.ts).
 */
export function useRequestIds(): Plugin {
  return {
    onResultProcess({ request, result, setResult }) {
      const id = requestIdOf(request);
      let changed = false;
      const results = (Array.isArray(result) ? result : [result]).map((r) => {
        const errors = (r as { errors?: readonly GraphQLError[] }).errors;
        if (!errors?.length) return r;
        settleFaults(errors, id);
        changed = true;
        // Copies: an error may be shared between requests (yoga caches a document's validation
        // errors), so the id written into it would be the first request's for every later one.
        return {
          ...r,
          errors: errors.map((e) =>
            e instanceof GraphQLError && e.extensions.requestId === undefined
              ? new GraphQLError(e.message, {
                  nodes: e.nodes,
                  source: e.source,
                  positions: e.positions,
                  path: e.path,
                  originalError: e.originalError,
                  extensions: { ...e.extensions, requestId: id },
                })
              : e,
          ),
        };
      });
      if (changed) setResult((Array.isArray(result) ? results : results[0]) as typeof result);
    },
    onResponse({ request, response }) {
      response.headers.set(REQUEST_ID_HEADER, requestIdOf(request));
    },
  };
}
