import { LRUCache } from "lru-cache";
import { type Bitmap, RoaringBitmap32 } from "./bitmaps.ts";

/**
 * The searched text's words in the count index (src/db/count-index.ts): what `q` matches, answered
 * without a statement.
 *
 * A search word is a run of letters and digits (`searchWords`, src/query/filter.ts, reads the
 * query with WORD), and a Domain matches it when its searched text contains it (`LIKE '%word%'`
 * over the lower-cased text: src/dataset/load/rows.ts searchText). A run of letters and digits
 * found inside a text lies inside one of the text's own runs (its words, cut by WORD too), so the
 * Domains containing `word` are exactly those having a word that contains `word`: the index keeps
 * every distinct word of the snapshot once, and the Domains having it.
 *
 * - The words are one string, sorted, each ended by "\n" (never in a word): a search is
 *   `indexOf` over it, each hit resolved to its word by the words' starts.
 * - A word of BITMAP_FROM Domains or more keeps a roaring bitmap of them; a rarer one (most: a
 *   Domain's name is usually a word of its own) its ordinals in one shared array.
 */

/** The words of a text as `q` reads them (after lower-casing): runs of letters and digits. */
export const WORD = /[\p{L}\p{N}]+/gu;
const ONE_WORD = /^[\p{L}\p{N}]+$/u;

/** A word on fewer Domains than this keeps their ordinals in the shared array, not a bitmap. */
export const BITMAP_FROM = 32;

export interface SearchIndex {
  /** Every distinct word, sorted, each followed by "\n". */
  words: string;
  /** Where each word begins in `words`; one more, its length. */
  starts: Int32Array;
  /** A rare word's ordinals: small[smallFrom[i] … smallFrom[i + 1]). */
  smallFrom: Int32Array;
  small: Int32Array;
  /** A common word's Domains, by word number. */
  bitmaps: Map<number, Bitmap>;
}

/** How the parts are named and described in the index's meta. */
export interface StoredSearch {
  words: number;
  /** The word numbers with a bitmap, and each one's offsets in the `search.bitmaps` part. */
  common: number[];
  offsets: number[];
}

/** Collects each distinct word's Domains from (pk, searched text) rows, then writes the parts. */
export class SearchBuilder {
  private readonly lists = new Map<string, number[]>();

  add(ord: number, text: unknown): void {
    if (typeof text !== "string") return;
    const found = text.match(WORD);
    if (!found) return;
    for (const w of new Set(found)) {
      const list = this.lists.get(w);
      if (list) list.push(ord);
      else this.lists.set(w, [ord]);
    }
  }

  parts(): { meta: StoredSearch; parts: { name: string; body: Buffer }[] } {
    const words = [...this.lists.keys()].sort();
    const smallFrom = new Int32Array(words.length + 1);
    let smallCount = 0;
    for (let i = 0; i < words.length; i++) {
      const n = (this.lists.get(words[i]) as number[]).length;
      if (n < BITMAP_FROM) smallCount += n;
    }
    const small = new Int32Array(smallCount);
    const common: number[] = [];
    const pieces: Uint8Array[] = [];
    const offsets = [0];
    let k = 0;
    for (let i = 0; i < words.length; i++) {
      const list = this.lists.get(words[i]) as number[];
      list.sort((a, b) => a - b);
      smallFrom[i] = k;
      if (list.length < BITMAP_FROM) {
        for (const o of list) small[k++] = o;
        continue;
      }
      const b = new RoaringBitmap32(list);
      b.runOptimize();
      const piece = b.serialize(true);
      common.push(i);
      pieces.push(piece);
      offsets.push(offsets[offsets.length - 1] + piece.length);
    }
    smallFrom[words.length] = k;
    this.lists.clear();
    return {
      meta: { words: words.length, common, offsets },
      parts: [
        { name: "search.words", body: Buffer.from(words.length ? `${words.join("\n")}\n` : "", "utf8") },
        { name: "search.from", body: Buffer.from(smallFrom.buffer) },
        { name: "search.small", body: Buffer.from(small.buffer) },
        { name: "search.bitmaps", body: Buffer.concat(pieces) },
      ],
    };
  }
}

/** The search part of an index from its stored parts (`part` throws for one missing). */
export async function searchIndexFromParts(
  stored: StoredSearch,
  part: (name: string) => Promise<Uint8Array>,
  aligned: (p: Uint8Array) => ArrayBuffer,
): Promise<SearchIndex> {
  // One part at a time (a gateway reads each from the database as it is asked for): what is held
  // at once is the parts made so far and the one being read.
  const text = await part("search.words");
  const words = Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString("utf8");
  const starts = new Int32Array(stored.words + 1);
  let w = 0;
  for (let i = 0; i < words.length; i++) if (words.charCodeAt(i) === 10) starts[++w] = i + 1;
  if (w !== stored.words)
    throw new Error(`the count index's search part holds ${w} words of ${stored.words}`);
  const held = await part("search.bitmaps");
  const bitmaps = new Map<number, Bitmap>();
  stored.common.forEach((id, i) => {
    const start = stored.offsets[i];
    bitmaps.set(
      id,
      RoaringBitmap32.deserialize(
        Buffer.from(held.buffer, held.byteOffset + start, stored.offsets[i + 1] - start),
        true,
      ),
    );
  });
  const smallFrom = new Int32Array(aligned(await part("search.from")));
  const smallPart = await part("search.small");
  return { words, starts, smallFrom, small: new Int32Array(aligned(smallPart)), bitmaps };
}

/**
 * The Domains whose searched text contains `word`; null when `word` is not a search word (letters
 * and digits, lower-cased), which the database then answers. Kept by word while memory allows
 * (WORD_CACHE_BYTES an index), frozen: a word's Domains are a scan of every word of the snapshot
 * (15.5 MB of text at a million Domains: 8 ms for a word found nowhere, 26–33 ms for a common one,
 * whose Domains are gathered from many words), and company lookups and searches ask the same words
 * again ("shop", "goods").
 */
export function wordBitmap(index: SearchIndex, word: unknown): Bitmap | null {
  if (typeof word !== "string" || !ONE_WORD.test(word) || word !== word.toLowerCase()) return null;
  let cache = kept.get(index);
  if (!cache) {
    cache = new LRUCache({
      maxSize: WORD_CACHE_BYTES,
      sizeCalculation: (b) => Math.max(64, b.getSerializationSizeInBytes(true)),
    });
    kept.set(index, cache);
  }
  let found = cache.get(word);
  if (!found) {
    found = scan(index, word);
    found.freeze();
    cache.set(word, found);
  }
  return found;
}

/** The bytes of word bitmaps an index keeps (wordBitmap). */
export const WORD_CACHE_BYTES = 32 * 1024 * 1024;
const kept = new WeakMap<SearchIndex, LRUCache<string, Bitmap>>();

function scan(index: SearchIndex, word: string): Bitmap {
  const { words, starts, smallFrom, small } = index;
  const common: Bitmap[] = [];
  const rare: number[] = [];
  const last = starts.length - 2;
  let id = 0;
  for (let at = words.indexOf(word); at >= 0; ) {
    // The word holding the hit: the last start at or before it (hits come in order, so from `id`).
    let lo = id;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    id = lo;
    const bitmap = index.bitmaps.get(id);
    if (bitmap) common.push(bitmap);
    else for (let k = smallFrom[id]; k < smallFrom[id + 1]; k++) rare.push(small[k]);
    // The next hit in a later word: this one's other hits name the same Domains.
    at = words.indexOf(word, starts[id + 1]);
    id++;
  }
  const few = new RoaringBitmap32(rare);
  if (!common.length) return few;
  common.push(few);
  return RoaringBitmap32.orMany(common);
}
