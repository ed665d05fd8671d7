import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plusFromState } from "pure-rand/generator/xoroshiro128plus";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";

/** murmur3's finaliser: a bijection on 32-bit integers with good avalanche. */
export function mix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes a list of integers (seed, salt, index...) into one 32-bit value. */
export function hashKeys(keys: readonly number[]): number {
  let h = 0x2545f491;
  for (const k of keys) {
    h = mix32(h ^ mix32((k | 0) + 0x9e3779b9 * ((k / 4294967296) | 0)));
    h = (Math.imul(h, 0x27d4eb2d) + 0x165667b1) >>> 0;
  }
  return mix32(h);
}

/**
 * A seeded random source. Every record gets its own `Rng.of(seed, salt, index)`, so any record
 * can be regenerated on its own, in any order, without replaying the ones before it.
 */
export class Rng {
  private constructor(private readonly g: RandomGenerator) {}

  static of(...keys: number[]): Rng {
    const h = hashKeys(keys);
    const state = [
      mix32(h ^ 0x1b873593),
      mix32(h + 0x6b43a9b5),
      mix32(h ^ 0xcc9e2d51),
      mix32(h + 0x38b34ae5),
    ];
    if ((state[0] | state[1] | state[2] | state[3]) === 0) state[0] = 1;
    return new Rng(xoroshiro128plusFromState(state.map((s) => s | 0)));
  }

  /** Uniform in [0, 1), 32 bits of randomness (plenty for data generation, and one draw). */
  float(): number {
    return (this.g.next() >>> 0) / 4294967296;
  }

  /** Uniform integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return uniformInt(this.g, lo, hi);
  }

  between(lo: number, hi: number): number {
    return lo + (hi - lo) * this.float();
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[uniformInt(this.g, 0, items.length - 1)];
  }

  /** Standard normal (Box–Muller, one value per call). */
  normal(): number {
    const u = 1 - this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.float());
  }

  /** exp(N(mu, sigma)). */
  logNormal(mu: number, sigma: number): number {
    return Math.exp(mu + sigma * this.normal());
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.float()) * mean;
  }

  /** `count` distinct items, in random order (partial Fisher–Yates on a copy). */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = items.slice();
    const n = Math.min(count, copy.length);
    for (let i = 0; i < n; i++) {
      const j = uniformInt(this.g, i, copy.length - 1);
      const t = copy[i];
      copy[i] = copy[j];
      copy[j] = t;
    }
    return copy.slice(0, n);
  }
}

/** Weighted choice by binary search over cumulative weights. */
export class WeightedPicker {
  private readonly cum: Float64Array;
  readonly size: number;

  constructor(weights: ArrayLike<number>) {
    this.size = weights.length;
    this.cum = new Float64Array(weights.length);
    let total = 0;
    for (let i = 0; i < weights.length; i++) {
      total += weights[i];
      this.cum[i] = total;
    }
  }

  pick(rng: Rng): number {
    const cum = this.cum;
    const x = rng.float() * cum[cum.length - 1];
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cum[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Up to `count` distinct indices, by weighted draws with rejection of repeats. */
  pickDistinct(rng: Rng, count: number): number[] {
    const n = Math.min(count, this.size);
    const out: number[] = [];
    for (let attempts = 0; out.length < n && attempts < n * 8 + 8; attempts++) {
      const k = this.pick(rng);
      if (!out.includes(k)) out.push(k);
    }
    return out;
  }
}

/** Weighted picker over labelled items, e.g. `pickerOf([["Basic", 40], ["Plus", 3]])`. */
export function pickerOf<T>(entries: readonly (readonly [T, number])[]): { pick(rng: Rng): T } {
  const picker = new WeightedPicker(entries.map((e) => e[1]));
  return { pick: (rng) => entries[picker.pick(rng)][0] };
}
