import { COUNTRIES } from "./countries.ts";
import { pools } from "./pools.ts";
import { hashKeys, pickerOf, Rng, WeightedPicker } from "./rng.ts";
import { SALT } from "./salt.ts";
import type { Identity } from "./shapes.ts";
import { SHOWCASE_DOMAINS } from "./showcase.ts";
import { BRAND_SUFFIXES, BRAND_WORDS, capitalize, prefixFree } from "./words.ts";

const SUFFIX_TEXT: Record<string, string> = { co: "Co.", hq: "HQ", lab: "Lab" };
const PREFIXES = ["shop", "store", "us", "en", "eu"] as const;
const US_TLDS = pickerOf<string>([
  ["com", 82],
  ["co", 4],
  ["store", 4],
  ["shop", 4],
  ["net", 3],
  ["us", 3],
]);
const NO_COUNTRY_TLDS = pickerOf<string>([
  ["com", 80],
  ["co", 5],
  ["shop", 5],
  ["store", 5],
  ["net", 5],
]);

/**
 * Names Domains by index. The first indices are the showcase Domains (showcase.ts, `*.example.com`,
 * names no other index can take). Index i maps to parts (first word, second word, suffix, counter) through a
 * bijection, and both word lists are prefix-free, so every index gets a distinct `base`: Domain
 * names never collide, and `i >= domains` yields names that are certainly not in the dataset (used
 * for redirect targets and review stores outside it).
 */
export class Namer {
  private readonly first = prefixFree(BRAND_WORDS);
  private readonly second = pools().nouns;
  private readonly block: number;
  private readonly multiplier: number;
  private readonly offset: number;
  private readonly countryPicker = new WeightedPicker(COUNTRIES.map((c) => c.weight));

  constructor(private readonly seed: number) {
    this.block = this.first.length * this.second.length;
    const h = hashKeys([seed, SALT.names]);
    this.offset = h % this.block;
    let m = (h % 7919) * 104729 + 1_000_003;
    while (gcd(m, this.block) !== 1) m++;
    this.multiplier = m % this.block;
  }

  identity(index: number): Identity {
    const show = SHOWCASE_DOMAINS[index];
    if (show) return show.identity;
    const perSuffix = this.block;
    const round = Math.floor(index / (perSuffix * BRAND_SUFFIXES.length));
    const withinRound = index % (perSuffix * BRAND_SUFFIXES.length);
    const suffix = BRAND_SUFFIXES[Math.floor(withinRound / perSuffix)];
    const j = ((((withinRound % perSuffix) * this.multiplier) % perSuffix) + this.offset) % perSuffix;
    const w1 = this.first[j % this.first.length];
    const w2 = this.second[Math.floor(j / this.first.length)];
    const counter = round > 0 ? String(round + 1) : "";
    const base = `${w1}${w2}${suffix}${counter}`;
    const handle = [w1, w2, suffix, counter].filter((p) => p !== "").join("-");
    const merchantName = [w1, w2, suffix]
      .filter((p) => p !== "")
      .map((p) => SUFFIX_TEXT[p] ?? capitalize(p))
      .join(" ");

    const rng = Rng.of(this.seed, SALT.identity, index);
    const country = rng.chance(0.85) ? COUNTRIES[this.countryPicker.pick(rng)] : undefined;
    let tld: string;
    if (country === undefined) tld = NO_COUNTRY_TLDS.pick(rng);
    else if (country.code === "US") tld = US_TLDS.pick(rng);
    else
      tld = rng.chance(0.5)
        ? rng.pick(country.tlds)
        : rng.chance(0.85)
          ? "com"
          : rng.pick(["shop", "store", "net"]);
    const tld1 = `${base}.${tld}`;
    const name = rng.chance(0.03) ? `${rng.pick(PREFIXES)}.${tld1}` : tld1;
    return { name, tld1, base, handle, merchantName, country };
  }

  name(index: number): string {
    return this.identity(index).name;
  }
}

function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}
