import type { Plugin } from "graphql-yoga";
import { apiError } from "./errors.ts";
import type { Logger } from "./logger.ts";

/**
 * The largest request body either face reads: 1 MB. The REST API's largest useful body (a bulk of
 * 100 names with fields, or a List Domains search with aq) is a few KB, and so is the largest
 * GraphQL document the limits let through (docs/decisions.md, Errors). Above it: 413
 * PAYLOAD_TOO_LARGE, refused as soon as the size is known, before the rest is read.
 */
export const MAX_BODY_BYTES = 1_000_000;

const tooLarge = () => apiError("PAYLOAD_TOO_LARGE", `the body is larger than ${MAX_BODY_BYTES} bytes`);

/**
 * The body as text, refusing it (413) as soon as it passes MAX_BODY_BYTES bytes. A body that
 * cannot be read to its end is the client's doing (it aborted, or its connection broke): a 400,
 * logged at info rather than as a fault of ours.
 */
export async function readBody(request: Request, logger: Logger): Promise<string> {
  if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch (e) {
      const path = new URL(request.url).pathname;
      logger.info(
        { method: request.method, path, reason: (e as Error).message },
        "request body aborted by the client",
      );
      throw apiError("BAD_REQUEST", "the request body ended before it was complete");
    }
    const { done, value } = read;
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The GraphQL request's own refusals, made where yoga reads it (its request parser):
 * - a body over MAX_BODY_BYTES: 413, as REST (yoga's own limit would be 50 MB). A body of a
 *   declared length is refused by that length; one sent in chunks is read here with the limit,
 *   and handed to yoga's parser as it was read;
 * - `variables` or `extensions` that are not JSON, in a GET's query string or a form body: 400
 *   BAD_REQUEST naming the parameter, as yoga answers a POST body that is not JSON. yoga's GET
 *   parser let JSON.parse's SyntaxError through, which was answered and logged as a fault.
 */
export function useGraphQLRequestLimits(logger: Logger): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      const parse = requestParser;
      setRequestParser(async (req: Request) => {
        let readable = req;
        if (req.method === "POST") {
          const length = req.headers.get("content-length");
          if (length === null) {
            const text = await readBody(req, logger);
            readable = new Request(req.url, { method: req.method, headers: req.headers, body: text });
          } else if (Number(length) > MAX_BODY_BYTES) {
            throw tooLarge();
          }
        }
        try {
          return await parse(readable);
        } catch (e) {
          if (e instanceof SyntaxError) throw notJson(req, e);
          throw e;
        }
      });
    },
  };
}

/** The parameter whose JSON did not parse: yoga's parser does not say which. */
function notJson(request: Request, error: SyntaxError) {
  const params = new URL(request.url).searchParams;
  const bad = ["variables", "extensions"].find((name) => {
    const value = params.get(name);
    if (!value) return false;
    try {
      JSON.parse(value);
      return false;
    } catch {
      return true;
    }
  });
  const what = bad ? `the ${bad} parameter` : "a parameter";
  return apiError("BAD_REQUEST", `${what} is not valid JSON: ${error.message}`);
}
