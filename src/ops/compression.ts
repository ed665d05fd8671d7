import { useContentEncoding } from "@whatwg-node/server";
import type { Plugin } from "graphql-yoga";

/**
 * gzip or deflate, when the client accepts it, for every answer: JSON, and the JSON Lines of
 * Export Domains and of cursor=all results, compressed as they stream (whatwg-node's
 * useContentEncoding). Only its answers are used: it would also decode request bodies, but with
 * no bound on the decoded size, for GraphQL only, and with a plain-text 415; request bodies are
 * decoded where both faces read them (readBodyBytes, src/request-body.ts). Two things are mended
 * around it: it takes the first Accept-Encoding token as written (`gzip;q=0.5, br` or
 * `br, gzip` chose nothing), so the client's best choice by q-value is handed to it; and answers
 * built with Node's own Response (the REST layer's) are compressed by Node's own
 * CompressionStream, since a native stream pipes only through a native transform. Server-Sent
 * Events and files sent by ranges are sent as they are.
 */
export function useCompression(): Plugin {
  const inner = useContentEncoding();
  return {
    onResponse(payload) {
      const encoding = chooseEncoding(payload.request.headers.get("accept-encoding"));
      if (!encoding || !payload.response.body) return;
      // An answer compressed already (an export of rendered records: src/export/export.ts).
      if (payload.response.headers.has("content-encoding")) return;
      // A live stream's events go out as they come: a compressor would hold them for its block.
      if (payload.response.headers.get("content-type")?.startsWith("text/event-stream")) return;
      // A file sent by byte ranges (a snapshot's Parquet, src/files/routes.ts): its ranges and its
      // ETag are of its own bytes, which are compressed already.
      if (payload.response.headers.has("accept-ranges")) return;
      // The answer now depends on Accept-Encoding: a cache must not hand it to another client.
      try {
        if (!/accept-encoding/i.test(payload.response.headers.get("vary") ?? ""))
          payload.response.headers.append("vary", "Accept-Encoding");
      } catch {
        // A response whose headers are immutable (fetched) keeps them.
      }
      const fetchAPI =
        payload.response.body instanceof ReadableStream ? nativeOf(payload.fetchAPI) : payload.fetchAPI;
      const request = { headers: { get: () => encoding } } as unknown as Request;
      return inner.onResponse?.({ ...payload, request, fetchAPI } as Parameters<
        NonNullable<typeof inner.onResponse>
      >[0]);
    },
  };
}

type FetchAPI = Parameters<NonNullable<Plugin["onResponse"]>>[0]["fetchAPI"];
/** whatwg-node's fetch API with Node's own streams and Response: one object (its encodings are cached by it). */
const natives = new WeakMap<FetchAPI, FetchAPI>();
function nativeOf(fetchAPI: FetchAPI): FetchAPI {
  let native = natives.get(fetchAPI);
  if (!native) {
    native = { ...fetchAPI, CompressionStream, Response, Headers, ReadableStream } as FetchAPI;
    natives.set(fetchAPI, native);
  }
  return native;
}

const OFFERED = ["gzip", "deflate"] as const;

/** The encoding to answer with, by the client's q-values (RFC 9110 12.5.3); null: none. */
export function chooseEncoding(header: string | null): (typeof OFFERED)[number] | null {
  if (!header) return null;
  let best: (typeof OFFERED)[number] | null = null;
  let bestQ = 0;
  const q = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) weight = Number(m[1]);
    }
    if (Number.isFinite(weight)) q.set(name, weight);
  }
  for (const name of OFFERED) {
    const weight = q.get(name) ?? q.get("*") ?? 0;
    if (weight > bestQ) {
      best = name;
      bestQ = weight;
    }
  }
  return best;
}
