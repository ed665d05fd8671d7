import { P1 } from "../platforms.ts";
import type { AppMeta } from "./apps.ts";
import type { DomainPlanner } from "./domain-plan.ts";
import { Rng } from "./rng.ts";
import { SALT } from "./salt.ts";
import { TECHNOLOGIES } from "./technologies.ts";

/** How many review authors are remembered per P1 App (reservoir sample of the Domains listing it). */
export const REVIEWERS_PER_APP = 128;

/**
 * Everything the writing pass needs to know about all Domains before it writes the first line:
 * App installs, technology installs, platform sizes and platform ranks, and candidate review
 * authors. Gathered by planning every Domain once (the cheap part of a Domain) without writing.
 * Memory: a few typed arrays of one entry per Domain (about 10 bytes a Domain).
 */
export interface Census {
  platformOf: Uint16Array;
  platformRank: Int32Array;
  platformCount: Int32Array;
  activeCount: Int32Array;
  installs: Int32Array;
  listings: Int32Array;
  techInstalls: Int32Array;
  /** For each App, its slot in `reviewers` (P1 Apps only), else -1. */
  reviewerSlot: Int32Array;
  reviewers: Int32Array;
}

export async function takeCensus(
  seed: number,
  domains: number,
  rankOf: Int32Array,
  planner: DomainPlanner,
  apps: readonly AppMeta[],
  tick: (done: number) => void,
): Promise<Census> {
  const platformCount = new Int32Array(planner.platforms.length);
  const activeCount = new Int32Array(planner.platforms.length);
  const platformOf = new Uint16Array(domains);
  const installs = new Int32Array(apps.length);
  const listings = new Int32Array(apps.length);
  const techInstalls = new Int32Array(TECHNOLOGIES.length);
  const reviewerSlot = new Int32Array(apps.length).fill(-1);
  let slots = 0;
  for (const app of apps) if (app.platform === P1) reviewerSlot[app.index] = slots++;
  const reviewers = new Int32Array(slots * REVIEWERS_PER_APP);
  const reservoirRng = Rng.of(seed, SALT.reservoir);

  for (let i = 0; i < domains; i++) {
    const plan = planner.plan(i);
    platformOf[i] = plan.platform;
    platformCount[plan.platform]++;
    const active = plan.state === "Active";
    if (active) activeCount[plan.platform]++;
    for (let k = 0; k < plan.apps.length; k++) {
      const a = plan.apps[k];
      const seen = ++listings[a];
      if (active && !plan.removed[k]) installs[a]++;
      const slot = reviewerSlot[a];
      if (slot >= 0) {
        const j = seen <= REVIEWERS_PER_APP ? seen - 1 : reservoirRng.int(0, seen - 1);
        if (j < REVIEWERS_PER_APP) reviewers[slot * REVIEWERS_PER_APP + j] = i;
      }
    }
    for (const t of plan.techs) techInstalls[t]++;
    if ((i & 4095) === 4095) {
      tick(i + 1);
      // Let timers run (a progress bar redraws on one) during this long synchronous pass.
      if ((i & 65535) === 65535) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  tick(domains);
  return {
    platformOf,
    platformRank: platformRanks(rankOf, platformOf, planner.platforms.length),
    platformCount,
    activeCount,
    installs,
    listings,
    techInstalls,
    reviewerSlot,
    reviewers,
  };
}

/** platform_rank: position among the same platform's Domains in rank order, so both orders agree. */
function platformRanks(rankOf: Int32Array, platformOf: Uint16Array, platforms: number): Int32Array {
  const n = rankOf.length;
  const byRank = new Int32Array(n);
  for (let i = 0; i < n; i++) byRank[rankOf[i] - 1] = i;
  const next = new Int32Array(platforms);
  const platformRank = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const i = byRank[r];
    platformRank[i] = ++next[platformOf[i]];
  }
  return platformRank;
}

/** The reviewers remembered for a P1 App (a uniform sample of the Domains listing it). */
export function reviewersOf(census: Census, app: number): Int32Array {
  const slot = census.reviewerSlot[app];
  if (slot < 0) return new Int32Array(0);
  const count = Math.min(REVIEWERS_PER_APP, census.listings[app]);
  return census.reviewers.subarray(slot * REVIEWERS_PER_APP, slot * REVIEWERS_PER_APP + count);
}
