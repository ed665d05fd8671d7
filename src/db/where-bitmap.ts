import { LRUCache } from "lru-cache";
import { type Bitmap, type CountIndex, countIndexOf } from "./count-index.ts";
import { perReader } from "./per-reader.ts";
import type { SqlReader } from "./reader.ts";
import { Evaluator, NeedsDatabase } from "./where-evaluator.ts";
import type { Where } from "./where-sql.ts";

/**
 * The bitmap of a filter's `where` over the snapshot's count index (src/db/count-index.ts): the
 * Domains it matches as their ordinals, evaluated with SQL's meaning by src/db/where-evaluator.ts
 * and kept per snapshot reader by their `where`, with the count of Domains it answers.
 */

/** The bitmaps of a snapshot, by their `where`, kept while memory allows (a few hundred KB each at most). */
const BITMAP_BYTES = 64 * 1024 * 1024;
const bitmaps = perReader<"whereBitmaps", LRUCache<string, Promise<Bitmap>>>(
  () =>
    new LRUCache<string, Promise<Bitmap>>({
      maxSize: BITMAP_BYTES,
      sizeCalculation: () => 256 * 1024,
    }),
);

/** A `where` as a cache key: a set of keys (DomainKeys) by its name, not its every key. */
export const whereKey = (where: unknown) =>
  JSON.stringify(where, (_k, v) => (typeof v === "bigint" ? `${v}n` : v));

/**
 * The Domains `where` matches, from the snapshot's count index, with the index; null when the
 * snapshot has none (it is counted by SQL then).
 */
export async function whereBitmapOf(
  sql: SqlReader,
  where: Where,
): Promise<{ index: CountIndex; bitmap: Bitmap } | null> {
  const found = await cachedBitmap(sql, where);
  if (!found) return null;
  const { index, cache, key } = found;
  let bitmap = found.cached;
  if (!bitmap) {
    const evaluating = new Evaluator(index, sql).bitmap(where);
    bitmap = evaluating;
    cache.set(key, evaluating);
    evaluating.then(
      () => settled.add(evaluating),
      () => cache.delete(key),
    );
  }
  return { index, bitmap: await bitmap };
}

/**
 * The bitmap of `where` when it costs no statement: cached and settled, or evaluated from the index
 * alone (then cached); null when it would ask the database (a search's text, a list's names…) or
 * the snapshot has no index. A page in another order than rank is read from it
 * (src/query/index-page.ts), where gathering a search's every key to read 50 would cost more than
 * the page's own statement.
 */
export async function localWhereBitmapOf(
  sql: SqlReader,
  where: Where,
): Promise<{ index: CountIndex; bitmap: Bitmap } | null> {
  const found = await cachedBitmap(sql, where);
  if (!found) return null;
  const { index, cache, key, cached } = found;
  if (cached && settled.has(cached)) return { index, bitmap: await cached };
  try {
    const bitmap = await new Evaluator(index, sql, false).bitmap(where);
    if (!cache.has(key)) {
      const done = Promise.resolve(bitmap);
      settled.add(done);
      cache.set(key, done);
    }
    return { index, bitmap };
  } catch (e) {
    if (e instanceof NeedsDatabase) return null;
    throw e;
  }
}
/** The snapshot's index, its bitmap cache, `where`'s key in it and what it holds there; null without an index. */
async function cachedBitmap(sql: SqlReader, where: Where) {
  const index = await countIndexOf(sql);
  if (!index) return null;
  const cache = bitmaps(sql, "whereBitmaps");
  const key = whereKey(where);
  return { index, cache, key, cached: cache.get(key) };
}

/** The cached bitmaps whose evaluation is done. */
const settled = new WeakSet<Promise<Bitmap>>();
