import { LRUCache } from "lru-cache";
import { perReader } from "../db/per-reader.ts";
import type { SqlReader } from "../db/reader.ts";

/**
 * The counts of facets and histograms kept per snapshot reader (src/query/facet-counts.ts,
 * src/query/histograms.ts).
 */

/**
 * Counts kept per snapshot reader (a new snapshot has a new reader, so nothing counted over an
 * older one is ever served for it), bounded by memory: entries are a few hundred bytes and their
 * statement's text. A count that failed is asked again.
 */
const CACHE_BYTES = 32 * 1024 * 1024;
const caches = perReader<"facets", LRUCache<string, Promise<never>>>(
  () => new LRUCache<string, Promise<never>>({ maxSize: CACHE_BYTES }),
);

export function cached<T>(sql: SqlReader, key: string, items: number, compute: () => Promise<T>): Promise<T> {
  const cache = caches(sql, "facets") as unknown as LRUCache<string, Promise<T>>;
  let answer = cache.get(key);
  if (!answer) {
    answer = compute();
    cache.set(key, answer, { size: 2 * key.length + 200 + 100 * items });
    answer.catch(() => cache.delete(key));
  }
  return answer;
}
