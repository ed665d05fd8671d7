import type { VocabularyEntry } from "./vocabularies.ts";

/**
 * How near a free text is to each value of a vocabulary, as a score from 0 to 1, for the agents'
 * look-up (the MCP tool lookup with text): the whole value, an App's token or name, a country's
 * names in English and in its own languages (Germany, Deutschland: DE), each compared as a person
 * writes it (letter case, accents, punctuation and the vocabulary's hyphens aside). The REST
 * refusals' "did you mean" stays graphql-js's (src/query/suggest.ts): a suggestion after an error
 * needs no score.
 *
 *   1     the text is the value (or a name of it)
 *   ≥0.6  the value begins with the text (more as the text covers more of it)
 *   ≥0.5  every word of the text begins a word of the value (shopify plus: Shopify Plus (Legacy))
 *   ≥0.55 a typo: one edit in 4 letters (klavio: klaviyo)
 *   ≥0.3  the text is inside a word of the value
 *
 * So a value that is what was asked ranks above one that merely mentions it: "google analytics"
 * finds the technology Google Analytics at 1, an App "Google Analytics 4 by Elevar" at about 0.6,
 * and no App whose name has only "analytics".
 */

export interface ScoredEntry extends VocabularyEntry {
  score: number;
}

/** Below this, a value is not a match. */
const FLOOR = 0.3;

/** Lower case, accents off, anything but letters and digits a single space (e-commerce: e commerce). */
export function normalized(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The texts a value is known by: the value, an App's token, its name, a country's other names. */
function textsOf(e: VocabularyEntry): string[] {
  const texts = [e.value];
  const dot = e.value.indexOf(".");
  if (dot > 0 && e.name !== undefined) texts.push(e.value.slice(dot + 1));
  if (e.name !== undefined) texts.push(e.name);
  if (e.aliases) texts.push(...e.aliases);
  return texts;
}

/** The score of a normalized text `t` for the normalized query `q` (words `qw`). */
function scoreOf(q: string, qw: readonly string[], t: string): number {
  if (!t) return 0;
  if (t === q) return 1;
  const cover = q.length / t.length;
  if (t.startsWith(q) && q.length >= 2) return 0.6 + 0.3 * cover;
  let best = 0;
  const tw = t.split(" ");
  // A word of one letter ("analytics 4") does not stop the others from counting: it lowers the
  // score of a value that does not have it as a word of its own.
  const words = qw.filter((w) => w.length >= 2);
  if (words.length && words.every((w) => tw.some((x) => x.startsWith(w)))) {
    const missing = qw.filter((w) => w.length < 2 && !tw.includes(w)).length;
    best = (0.5 + 0.3 * Math.min(1, cover)) * 0.8 ** missing;
  }
  // One edit in 4 letters at most: "chile" is not "china".
  const edits = Math.max(1, Math.floor(q.length / 4));
  const d = Math.abs(q.length - t.length) <= edits && q.length >= 4 ? distance(q, t, edits) : null;
  if (d !== null && d > 0) best = Math.max(best, 0.85 - 0.15 * d);
  if (q.length >= 3 && t.includes(q)) best = Math.max(best, 0.3 + 0.3 * cover);
  return best;
}

/**
 * Levenshtein distance of `a` and `b`, or null past `max` (the rows stop as soon as every cell of
 * one is past it: the look-up compares a text with tens of thousands of values).
 */
function distance(a: string, b: string, max: number): number | null {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      row.push(v);
      if (v < least) least = v;
    }
    if (least > max) return null;
    prev = row;
  }
  const d = prev[b.length];
  return d <= max ? d : null;
}

/** Each vocabulary's texts, normalized once (a vocabulary is kept while its snapshot is served). */
const prepared = new WeakMap<readonly VocabularyEntry[], string[][]>();

/** The values of `entries` that match `text`, best first (at most `limit`), each with its score. */
export function matchEntries(
  entries: readonly VocabularyEntry[],
  text: string,
  limit: number,
): ScoredEntry[] {
  const q = normalized(text);
  if (!q) return [];
  const qw = q.split(" ");
  let texts = prepared.get(entries);
  if (!texts) {
    texts = entries.map((e) => textsOf(e).map(normalized));
    prepared.set(entries, texts);
  }
  const scored: ScoredEntry[] = [];
  for (const [i, e] of entries.entries()) {
    let score = 0;
    for (const t of texts[i]) {
      score = Math.max(score, scoreOf(q, qw, t));
      if (score === 1) break;
    }
    if (score >= FLOOR) scored.push({ ...e, score: Math.round(score * 100) / 100 });
  }
  // Best first; of equal scores, the shorter value (the more exact), then the vocabulary's order.
  return scored
    .map((e, i) => ({ e, i }))
    .sort((x, y) => y.e.score - x.e.score || x.e.value.length - y.e.value.length || x.i - y.i)
    .slice(0, limit)
    .map(({ e }) => e);
}
