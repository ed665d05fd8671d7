import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BITMAP_FROM,
  SearchBuilder,
  searchIndexFromParts,
  WORD,
  wordBitmap,
} from "../../src/db/search-index.ts";
import { searchWords } from "../../src/query/filter.ts";

// The count index's words (src/db/search-index.ts) answer a search word exactly as `LIKE '%word%'`
// over the lower-cased searched text does: for random texts (unicode, separators, repeated words,
// words common enough to keep a bitmap) and random words (substrings of the texts' words, words of
// no text), the Domains found are those whose text contains the word.

async function indexOf(texts: string[]) {
  const builder = new SearchBuilder();
  for (const [ord, t] of texts.entries()) builder.add(ord, t);
  const { meta, parts } = builder.parts();
  // Through the stored bytes, as a gateway loads them.
  const byName = new Map(parts.map((p) => [p.name, new Uint8Array(p.body)]));
  return searchIndexFromParts(
    meta,
    async (n) => {
      const part = byName.get(n);
      if (!part) throw new Error(`no part ${n}`);
      return part;
    },
    (p) => p.slice().buffer,
  );
}

const bruteForce = (texts: string[], word: string) =>
  texts.flatMap((t, ord) => (t.includes(word) ? [ord] : []));

const piece = fc.oneof(
  fc.constantFrom("shop", "store", "blue", "tooth", "café", "straße", "日本", "ストア", "42", "x"),
  fc.string({ unit: "grapheme", maxLength: 6 }),
  fc.constantFrom(" ", " \u001f ", "-", ".", "_", "%", "\n"),
);
const text = fc.array(piece, { maxLength: 12 }).map((ps) => ps.join("").toLowerCase());

describe("the searched text's words in the count index", () => {
  it("finds exactly the Domains whose text contains a word", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 1, maxLength: 80 }),
        fc.array(fc.string({ unit: "grapheme", minLength: 1, maxLength: 4 }), { maxLength: 4 }),
        async (texts, extra) => {
          const index = await indexOf(texts);
          const words = new Set<string>(extra.flatMap((e) => searchWords(e)));
          // Substrings of the texts' own words: the searches that find something.
          for (const t of texts)
            for (const w of t.match(WORD) ?? []) {
              words.add(w);
              // By characters: a search word never holds half of a surrogate pair.
              const chars = [...w];
              if (chars.length > 2) words.add(chars.slice(1, -1).join(""));
            }
          for (const w of words)
            expect(wordBitmap(index, w)?.toArray() ?? null, w).toEqual(bruteForce(texts, w));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps a common word's Domains as a bitmap and a rare one's in the shared array, with the same answers", async () => {
    const texts = Array.from({ length: 200 }, (_, i) =>
      i % 3 === 0 ? `common shop ${i}` : `rare-${i} store${i % 50}`,
    );
    const index = await indexOf(texts);
    const common = index.words.split("\n").indexOf("common");
    expect(index.bitmaps.has(common)).toBe(true);
    expect(bruteForce(texts, "common").length).toBeGreaterThanOrEqual(BITMAP_FROM);
    for (const w of ["common", "shop", "rare", "store", "store4", "1", "99", "nothing"])
      expect(wordBitmap(index, w)?.toArray(), w).toEqual(bruteForce(texts, w));
  });

  it("keeps a word's Domains for the next ask, frozen, and the same answer", async () => {
    const texts = Array.from({ length: 100 }, (_, i) => `shop ${i} workshop${i % 7}`);
    const index = await indexOf(texts);
    const first = wordBitmap(index, "shop");
    expect(wordBitmap(index, "shop")).toBe(first);
    expect(first?.toArray()).toEqual(bruteForce(texts, "shop"));
    // No reader can change what another is answered from.
    expect(() => first?.add(1000)).toThrow();
    expect(wordBitmap(index, "shop")?.toArray()).toEqual(bruteForce(texts, "shop"));
    // Another index (another snapshot) keeps its own.
    const other = await indexOf(["shop"]);
    expect(wordBitmap(other, "shop")?.toArray()).toEqual([0]);
  });

  it("leaves to the database what is not one lower-cased search word", async () => {
    const index = await indexOf(["shop one", "Shop two"]);
    for (const w of ["", "Shop", "shop one", "a%", 3, null, undefined])
      expect(wordBitmap(index, w), String(w)).toBeNull();
  });
});
