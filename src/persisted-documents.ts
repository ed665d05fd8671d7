import { useAPQ } from "@graphql-yoga/plugin-apq";
import type { Plugin } from "graphql-yoga";
import { LRUCache } from "lru-cache";

/**
 * Persisted documents, the way Apollo's and urql's clients send them (automatic persisted
 * queries, @graphql-yoga/plugin-apq): a client sends `extensions.persistedQuery.sha256Hash`, by
 * GET or POST, without the document's text; a gateway that does not know the hash answers
 * PERSISTED_QUERY_NOT_FOUND (HTTP 404), and the client sends it once more with the text, which the
 * gateway checks against the hash (PERSISTED_QUERY_MISMATCH, HTTP 400, if it differs) and keeps.
 * A client that then asks by GET with the hash alone sends a short URL, which HTTP caches and CDNs
 * can key on (docs/graphql.md, "Persisted documents").
 *
 * Kept per gateway, in memory, bounded by count and by size: a document not kept is only sent
 * again, so nothing is shared between gateways or kept across restarts. A kept document is
 * parsed, validated, limited and costed like any other, each time it is run.
 */
export const PERSISTED = { documents: 5000, chars: 16 * 1024 * 1024 };

export function usePersistedDocuments(): Plugin {
  const kept = new LRUCache<string, string>({
    max: PERSISTED.documents,
    maxSize: PERSISTED.chars,
    sizeCalculation: (text) => Math.max(1, text.length),
  });
  return useAPQ({
    store: {
      get: (hash) => kept.get(hash),
      set: (hash, text) => {
        kept.set(hash, text);
      },
    },
  });
}
