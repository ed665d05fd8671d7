import { STATUS_CODES } from "node:http";
import type { Plugin } from "graphql-yoga";
import { requestIdOf } from "./request-id.ts";

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
      const body = { error, code, request_id: requestIdOf(request) };
      setResponse(new fetchAPI.Response(JSON.stringify(body), { status: response.status, headers }));
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
