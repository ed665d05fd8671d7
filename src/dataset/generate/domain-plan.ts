import { P1 } from "../platforms.ts";
import type { DomainState } from "../vocabulary.ts";
import type { PlatformApps } from "./apps.ts";
import { domainShares } from "./platform-profile.ts";
import { Rng, WeightedPicker } from "./rng.ts";
import { SALT } from "./salt.ts";
import { SHOWCASE_DOMAINS, SHOWCASE_TECHNOLOGIES } from "./showcase.ts";
import { TECHNOLOGIES } from "./technologies.ts";
import { DAY_MS, NOW_MS } from "./time.ts";

/**
 * The part of a Domain that other records depend on: platform, state, which Apps it lists (and
 * whether it removed them) and which technologies. `planDomain` draws it first from the Domain's own
 * random stream, so the counting pass and the writing pass see exactly the same choices; the writing
 * pass then keeps drawing from the same stream for everything else.
 */
export interface DomainPlan {
  index: number;
  rank: number;
  platform: number;
  state: DomainState;
  createdMs: number;
  /** App indices (apps.jsonl order). */
  apps: number[];
  removed: boolean[];
  /** Indices into TECHNOLOGIES. */
  techs: number[];
  rng: Rng;
}

export class DomainPlanner {
  readonly platforms: string[];
  private readonly picker: WeightedPicker;
  private readonly topPicker: WeightedPicker;
  private readonly appsOf: (PlatformApps | undefined)[];
  private readonly techPicker = new WeightedPicker(TECHNOLOGIES.map((_, k) => 1 / (k + 1) ** 1.05));
  private readonly topRank: number;
  readonly p1: number;

  constructor(
    private readonly seed: number,
    private readonly domains: number,
    private readonly rankOf: Int32Array,
    appsByPlatform: Map<string, PlatformApps>,
  ) {
    const shares = domainShares();
    this.platforms = shares.map((s) => s.platform);
    this.picker = new WeightedPicker(shares.map((s) => s.weight));
    this.topPicker = new WeightedPicker(shares.map((s) => s.topWeight));
    this.appsOf = this.platforms.map((p) => appsByPlatform.get(p));
    this.topRank = Math.max(1, Math.floor(domains * 0.01));
    this.p1 = this.platforms.indexOf(P1);
  }

  plan(index: number): DomainPlan {
    const rng = Rng.of(this.seed, SALT.domain, index);
    const rank = this.rankOf[index];
    // q: 0 for the best rank, 1 for the worst; better-ranked stores are older and install more.
    const q = this.domains > 1 ? (rank - 1) / (this.domains - 1) : 0;
    const show = SHOWCASE_DOMAINS[index];
    const drawn = (rank <= this.topRank ? this.topPicker : this.picker).pick(rng);
    const platform = show ? this.p1 : drawn;
    const u = rng.float();
    const state: DomainState =
      show?.state ??
      (u < 0.85 ? "Active" : u < 0.92 ? "Inactive" : u < 0.97 ? "Password Protected" : "Redirect");
    const ageDays = 2 + Math.min(6500, rng.exponential(700 + 1500 * (1 - q)));
    const createdMs = NOW_MS - Math.floor(ageDays * DAY_MS);

    const apps: number[] = [];
    const removed: boolean[] = [];
    const pool = this.appsOf[platform];
    if (pool) {
      const mean = platform === this.p1 ? 2.5 + 7 * (1 - q) ** 2 : 0.8 + 1.5 * (1 - q);
      const count = Math.min(platform === this.p1 ? 15 : 8, Math.floor(rng.exponential(mean)));
      for (const k of pool.picker.pickDistinct(rng, count)) {
        apps.push(pool.apps[k]);
        removed.push(rng.chance(0.1));
      }
    }
    const techCount = Math.min(15, 5 + Math.floor(rng.exponential(q < 0.1 ? 4 : 2.5)));
    let techs = this.techPicker.pickDistinct(rng, techCount);
    if (show) {
      // Its fixed Apps (installed, never removed) and technologies come first, in place of draws.
      const drawnApps = apps.splice(0);
      const drawnRemoved = removed.splice(0);
      for (const a of show.apps) {
        apps.push(a);
        removed.push(false);
      }
      drawnApps.forEach((a, k) => {
        if (!apps.includes(a)) {
          apps.push(a);
          removed.push(drawnRemoved[k]);
        }
      });
      const fixed = SHOWCASE_TECHNOLOGIES[index];
      techs = [...fixed, ...techs.filter((t) => !fixed.includes(t))].slice(
        0,
        Math.max(techCount, fixed.length),
      );
    }
    return { index, rank, platform, state, createdMs, apps, removed, techs, rng };
  }
}

/** A random permutation: rankOf[i] is the rank (1..n) of Domain i. */
export function shuffleRanks(seed: number, n: number): Int32Array {
  const rankOf = new Int32Array(n);
  for (let i = 0; i < n; i++) rankOf[i] = i + 1;
  const rng = Rng.of(seed, SALT.permutation);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(0, i);
    const t = rankOf[i];
    rankOf[i] = rankOf[j];
    rankOf[j] = t;
  }
  return rankOf;
}
