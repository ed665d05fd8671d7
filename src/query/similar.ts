import { type Bitmap, type CountIndex, RoaringBitmap32 } from "../db/count-index.ts";
import { type NumberColumn, valueAt } from "../db/number-column.ts";
import { type Feature, featuresOf } from "../db/similar-features.ts";
import { InputError } from "../errors.ts";

/**
 * Lookalikes (POST /domain/similar, GET /domain/{name}/similar, GraphQL similarDomains and
 * Domain.similar, the MCP tool similar_domains): the Domains most like a set of seed Domains, scored
 * over the count index (src/db/count-index.ts) by the features of src/query/similar-features.ts.
 * docs/decisions.md, "Lookalikes", gives the formula; test/query/similar.test.ts holds every page to
 * a brute force of it over every Domain.
 *
 * For a feature f of weight w_f held by k_f of the S seeds found, a Domain's raw score is
 * Σ k_f × w_f over the features it holds; its score is that over 1000 × S: the mean, over the seeds,
 * of the weight (ln(N / n_f)) of the features it shares with each. The seeds are left out, and so is
 * every Domain sharing nothing (score 0). Ranked by score, then rank (unranked last), then name.
 *
 * One request: the seeds' profile (each feature's k_f: one intersection count a feature), then each
 * profile feature's holders add k_f × w_f to an array of scores by ordinal, then one pass over the
 * candidates keeps the best `first` after the cursor; each of those is explained by the profile
 * features it holds.
 */

export const MAX_SEEDS = 1000;
export const MAX_SIMILAR = 1000;
export const DEFAULT_SIMILAR = 50;
/** How many of the shared features each result names, those weighing most. */
export const WHY = 5;

export interface SharedFeature {
  type: string;
  value: string;
  /** How many seeds hold it. */
  seeds: number;
  /** What it adds to the score: seeds × its weight / (1000 × seeds found), to 4 decimals. */
  weight: number;
}

export interface SimilarDomain {
  ord: number;
  pk: number;
  /** The raw score: Σ k_f × w_f (an integer). */
  raw: number;
  /** raw / (1000 × seeds found), to 4 decimals. */
  score: number;
  /** How many of the seeds' features it holds. */
  shared: number;
  /** The WHY shared features that weigh most, heaviest first (then by type, then value). */
  why: SharedFeature[];
}

export interface Similar {
  domains: SimilarDomain[];
  /** Every Domain scoring above nought among the candidates. */
  total: number;
  hasNextPage: boolean;
}

/** A score or weight as answered: 4 decimals (the ranking is by the exact raw score). */
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** A position in the ranking: the raw score and ordinal of the last Domain of a page. */
export type SimilarPosition = readonly [raw: number, ord: number];

interface ProfileEntry {
  feature: Feature;
  /** How many seeds hold it. */
  seeds: number;
}

/** The seeds' features (those any seed holds), with how many seeds hold each. */
function profileOf(index: CountIndex, seeds: Bitmap): ProfileEntry[] {
  const out: ProfileEntry[] = [];
  if (seeds.size === 0) return out;
  for (const feature of featuresOf(index)) {
    const k = feature.holders.andCardinality(seeds);
    if (k > 0) out.push({ feature, seeds: k });
  }
  return out;
}

/**
 * The best `first` Domains like `seeds` (ordinals of `index`) among `candidates` (ordinals: a List
 * Domains filter's matches), after `after` in the ranking.
 */
export function rankSimilar(
  index: CountIndex,
  seeds: Bitmap,
  candidates: Bitmap,
  first: number,
  after: SimilarPosition | null,
): Similar {
  if (!Number.isInteger(first) || first < 1 || first > MAX_SIMILAR)
    throw new InputError("first", `must be 1 to ${MAX_SIMILAR}; got ${first}`);
  const profile = profileOf(index, seeds);
  const pool = RoaringBitmap32.andNot(candidates, seeds);
  if (profile.length === 0 || pool.size === 0) return { domains: [], total: 0, hasNextPage: false };
  const { score, ords: buffer } = scratchOf(index.n);
  // Cleared whole (a memset: 1 to 2 ms at a million), whatever the request before left in it.
  score.fill(0);
  // A narrow filter's candidates are few: each feature's holders among them alone are added.
  const narrow = pool.size * 4 < index.n;
  for (const { feature, seeds: k } of profile) {
    const add = k * feature.weight;
    const members = narrow
      ? RoaringBitmap32.and(feature.holders, pool).toUint32Array()
      : feature.holders.toUint32Array(buffer);
    for (let i = 0; i < members.length; i++) score[members[i]] += add;
  }
  const order = tieOrder(index, score);
  const heap = new Worst(first, order.before, score);
  let total = 0;
  let following = 0;
  let floor = heap.floor;
  const ords = pool.toUint32Array(buffer);
  for (let i = 0; i < ords.length; i++) {
    const m = ords[i];
    const s = score[m];
    if (s <= 0) continue;
    total++;
    if (after && s >= after[0] && (s > after[0] || !order.before(after, m))) continue;
    following++;
    // Below the worst kept of a full page: not kept (a tie is compared in full).
    if (s >= floor) {
      heap.offer(m);
      floor = heap.floor;
    }
  }
  const page = heap.sorted();
  const S = seeds.size;
  const explained = explain(profile, page, S);
  const domains = page.map((ord, i) => ({
    ord,
    pk: index.ordToPk[ord],
    raw: score[ord],
    score: round4(score[ord] / (1000 * S)),
    ...explained[i],
  }));
  return { domains, total, hasNextPage: following > page.length };
}

/**
 * The array of scores by ordinal and a buffer of ordinals, one of each per gateway (8 and 4 bytes a
 * Domain: 12 MB at a million), reused by every request: a request is scored synchronously from
 * start to end, so no two use them at once, and allocating them per request cost a tenth of its
 * time in garbage collection at a million Domains (the profile of docs/performance-history.md).
 */
let scratch: { score: Float64Array; ords: Uint32Array } | null = null;
function scratchOf(n: number) {
  if (!scratch || scratch.score.length !== n)
    scratch = { score: new Float64Array(n), ords: new Uint32Array(n) };
  return scratch;
}

/** The ranking's order: raw score descending, then rank (unranked last), then name. */
function tieOrder(index: CountIndex, score: Float64Array) {
  const rank = index.numbers.get("rank");
  const names = index.sorts.get("name")?.values;
  if (!rank || !names) throw new Error("lookalikes: the count index has no rank or name order");
  const rankOf = (c: NumberColumn, ord: number) => {
    const v = valueAt(c, ord);
    return Number.isNaN(v) ? Number.POSITIVE_INFINITY : v;
  };
  const tie = (a: number, b: number) => {
    const ra = rankOf(rank, a);
    const rb = rankOf(rank, b);
    if (ra !== rb) return ra < rb;
    const na = valueAt(names, a);
    const nb = valueAt(names, b);
    return na !== nb ? na < nb : a < b;
  };
  return {
    /** Whether `a` (an ordinal, or a position: raw score and ordinal) comes before the ordinal `b`. */
    before(a: number | SimilarPosition, b: number): boolean {
      const [sa, oa] = typeof a === "number" ? [score[a], a] : a;
      const sb = score[b];
      if (sa !== sb) return sa > sb;
      return oa !== b && tie(oa, b);
    },
  };
}

/** The best `size` of the ordinals offered: a heap whose top is the worst kept. */
class Worst {
  readonly #items: number[] = [];
  constructor(
    readonly size: number,
    readonly before: (a: number, b: number) => boolean,
    readonly score: Float64Array,
  ) {}

  /** The score below which nothing is kept: the worst kept's once the page is full. */
  get floor(): number {
    return this.#items.length < this.size ? Number.NEGATIVE_INFINITY : this.score[this.#items[0]];
  }

  offer(x: number) {
    const h = this.#items;
    if (h.length < this.size) {
      h.push(x);
      let i = h.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.before(h[p], h[i])) break;
        [h[p], h[i]] = [h[i], h[p]];
        i = p;
      }
      return;
    }
    if (!this.before(x, h[0])) return;
    h[0] = x;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < h.length && this.before(h[worst], h[l])) worst = l;
      if (r < h.length && this.before(h[worst], h[r])) worst = r;
      if (worst === i) break;
      [h[worst], h[i]] = [h[i], h[worst]];
      i = worst;
    }
  }

  sorted(): number[] {
    return [...this.#items].sort((a, b) => (this.before(a, b) ? -1 : this.before(b, a) ? 1 : 0));
  }
}

/** Each Domain's shared features: how many, and the WHY heaviest. */
function explain(
  profile: ProfileEntry[],
  page: number[],
  S: number,
): Pick<SimilarDomain, "shared" | "why">[] {
  const at = new Map(page.map((ord, i) => [ord, i]));
  const lists: ProfileEntry[][] = page.map(() => []);
  const onPage = new RoaringBitmap32(page);
  for (const entry of profile) {
    if (!entry.feature.holders.intersects(onPage)) continue;
    for (const ord of RoaringBitmap32.and(entry.feature.holders, onPage).toUint32Array())
      lists[at.get(ord) as number].push(entry);
  }
  const heavier = (a: ProfileEntry, b: ProfileEntry) =>
    b.seeds * b.feature.weight - a.seeds * a.feature.weight ||
    (a.feature.type < b.feature.type ? -1 : a.feature.type > b.feature.type ? 1 : 0) ||
    (a.feature.value < b.feature.value ? -1 : a.feature.value > b.feature.value ? 1 : 0);
  return lists.map((list) => ({
    shared: list.length,
    why: list
      .sort(heavier)
      .slice(0, WHY)
      .map((e) => ({
        type: e.feature.type,
        value: e.feature.value,
        seeds: e.seeds,
        weight: round4((e.seeds * e.feature.weight) / (1000 * S)),
      })),
  }));
}
