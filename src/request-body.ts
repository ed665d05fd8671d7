import type { NonSharedBuffer } from "node:buffer";
import { promisify } from "node:util";
import { brotliDecompress, gunzip, inflate } from "node:zlib";
import type { Plugin } from "graphql-yoga";
import { apiError } from "./errors.ts";
import type { Logger } from "./logger.ts";

/**
 * The largest request body either face reads: 1 MB. The REST API's largest useful body (a bulk of
 * 100 names with fields, or a List Domains search with aq) is a few KB, and so is the largest
 * GraphQL document the limits let through (docs/decisions.md, Errors). Above it: 413
 * PAYLOAD_TOO_LARGE, refused as soon as the size is known, before the rest is read. A compressed
 * body is held to it twice: as sent, and as decoded.
 */
export const MAX_BODY_BYTES = 1_000_000;

const tooLarge = (coding?: Coding) =>
  apiError(
    "PAYLOAD_TOO_LARGE",
    `the body is larger than ${MAX_BODY_BYTES} bytes${coding ? ` once decoded (Content-Encoding: ${coding})` : ""}`,
  );

/**
 * The content codings a request body is read in (docs/decisions.md, "Compressed request bodies"):
 * the three HTTP clients compress with (gzip and deflate, RFC 9110; br, RFC 7932), each decoded
 * by node:zlib with its output bounded, so that inflating stops (ERR_BUFFER_TOO_LARGE) as soon as
 * it passes the limit: a bomb costs at most MAX_BODY_BYTES of memory.
 */
const DECODERS = {
  gzip: promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};
type Coding = keyof typeof DECODERS;

/**
 * The request body's coding, by its Content-Encoding: null for none (no header, or identity).
 * Exactly one coding name is read, in any case; anything else, stacked codings included, is
 * refused with 415 naming what was sent.
 */
function codingOf(request: Request): Coding | null {
  const header = request.headers.get("content-encoding");
  if (header === null) return null;
  const name = header.trim().toLowerCase();
  if (name === "" || name === "identity") return null;
  if (Object.hasOwn(DECODERS, name)) return name as Coding;
  throw apiError(
    "UNSUPPORTED_MEDIA_TYPE",
    `the body's Content-Encoding ${JSON.stringify(header)} is not one this server reads: send the body as it is, or in one of gzip, deflate and br (one coding, not stacked)`,
  );
}

/**
 * The body as text: readBodyBytes, decoded as UTF-8. What the REST routes read their options from.
 */
export async function readBody(request: Request, logger: Logger): Promise<string> {
  return (await readBodyBytes(request, logger)).toString("utf8");
}

/**
 * The body's bytes, decoded from its Content-Encoding: the one door a request body comes in by, on
 * both faces. 415 for a coding not read (before anything is read), 413 as soon as the body passes
 * MAX_BODY_BYTES as sent or while it is inflated, 400 for a body that is not in its coding. An
 * empty body is empty, whatever its label.
 */
export async function readBodyBytes(request: Request, logger: Logger): Promise<NonSharedBuffer> {
  const coding = codingOf(request);
  const sent = await readSent(request, logger);
  if (!coding || sent.length === 0) return sent;
  try {
    return await DECODERS[coding](sent, { maxOutputLength: MAX_BODY_BYTES });
  } catch (e) {
    if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(coding);
    throw apiError(
      "BAD_REQUEST",
      `the body is not valid ${coding} (Content-Encoding: ${coding}): ${(e as Error).message}`,
    );
  }
}

/**
 * The body as sent, refusing it (413) as soon as it passes MAX_BODY_BYTES bytes. A body that
 * cannot be read to its end is the client's doing (it aborted, or its connection broke): a 400,
 * logged at info rather than as a fault of ours.
 */
async function readSent(request: Request, logger: Logger): Promise<NonSharedBuffer> {
  if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return Buffer.alloc(0);
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
  return Buffer.concat(chunks);
}

/**
 * The GraphQL request's own refusals, made where yoga reads it (its request parser):
 * - a body over MAX_BODY_BYTES: 413, as REST (yoga's own limit would be 50 MB). A body of a
 *   declared length and no coding is refused by that length and handed to yoga's parser as it
 *   is; one sent in chunks, or with a Content-Encoding, is read by readBodyBytes (decoded, with
 *   the limit, as REST reads its bodies), and handed to yoga's parser as read;
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
          if (length === null || req.headers.has("content-encoding")) {
            const body = await readBodyBytes(req, logger);
            const headers = new Headers(req.headers);
            headers.delete("content-encoding");
            headers.delete("content-length");
            readable = new Request(req.url, { method: req.method, headers, body });
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
