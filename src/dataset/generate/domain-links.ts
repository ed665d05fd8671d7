import type { Namer } from "./identity.ts";
import { hashKeys, type Rng } from "./rng.ts";
import { SALT } from "./salt.ts";
import type { Identity } from "./shapes.ts";
import { SHOWCASE_DOMAINS } from "./showcase.ts";

/** Names that point at other Domains (redirects, clusters) or other hosts of the same store. */

/** What naming other Domains needs: indices from `domains` on name stores outside the dataset. */
export interface DomainSet {
  seed: number;
  domains: number;
  namer: Namer;
  rankOf: Int32Array;
}

/** Mostly other Domains of the dataset, sometimes a store outside it; never the Domain itself. */
export function redirects(rng: Rng, ctx: DomainSet, index: number): string[] {
  const count = rng.chance(0.1) ? 2 : 1;
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    let target: number;
    if (ctx.domains > 1 && rng.chance(0.85)) {
      target = rng.int(0, ctx.domains - 2);
      if (target >= index) target++;
    } else {
      target = ctx.domains + rng.int(0, 4 * ctx.domains + 1000);
    }
    const name = ctx.namer.name(target);
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

export function aliases(rng: Rng, who: Identity): string[] {
  const ownTld = who.tld1.slice(who.base.length + 1);
  const out = [`www.${who.tld1}`];
  if (who.name !== who.tld1) out.push(who.tld1);
  const other = rng.pick(["com", "net", "co", "shop", "store"].filter((t) => t !== ownTld));
  if (rng.chance(0.5)) out.push(`${who.base}.${other}`);
  return rng.sample(out, rng.int(1, out.length));
}

export function alternates(rng: Rng, who: Identity): Record<string, string> {
  const out: Record<string, string> = {};
  for (const locale of rng.sample(
    ["en-ca", "fr-ca", "en-gb", "de-de", "fr-fr", "es-es", "en-au", "nl-nl"],
    rng.int(1, 3),
  )) {
    out[locale] = `${locale.slice(3)}.${who.tld1}`;
  }
  return out;
}

export function locales(rng: Rng, countryCode: string, withCountry: boolean): string[] {
  const langs = rng.sample(["en", "fr", "de", "es", "it", "nl", "pt", "ja", "sv", "da"], rng.int(1, 4));
  return withCountry ? langs.map((l) => `${l}-${countryCode}`) : langs;
}

/**
 * The Domain's cluster: every Domain is in one, of one when alone (most are). The showcase Domains
 * form one cluster; the others fall in fixed groups of four consecutive indices, a few of which
 * are clusters of two to four, so every member agrees on the members and on the best-ranked one.
 */
export function cluster(ctx: DomainSet, index: number): { domains: string[]; best: string } {
  const members: number[] = [];
  const first = SHOWCASE_DOMAINS.length;
  if (index < first) {
    for (let m = 0; m < Math.min(first, ctx.domains); m++) members.push(m);
  } else {
    const group = Math.floor((index - first) / 4);
    const h = hashKeys([ctx.seed, SALT.cluster, group]);
    const size = h % 100 < 4 ? 2 + ((h >>> 8) % 3) : 1;
    const start = first + group * 4;
    for (let m = start; m < start + size && m < ctx.domains; m++) members.push(m);
    if (!members.includes(index)) members.splice(0, members.length, index);
  }
  const best = members.reduce((a, b) => (ctx.rankOf[b] < ctx.rankOf[a] ? b : a));
  return { domains: members.map((m) => ctx.namer.name(m)), best: ctx.namer.name(best) };
}
