import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { buildAppRecord } from "./generate/app-record.ts";
import { groupAppsByPlatform, planApps } from "./generate/apps.ts";
import { reviewersOf, takeCensus } from "./generate/census.ts";
import { DomainPlanner, shuffleRanks } from "./generate/domain-plan.ts";
import { type DomainContext, domainLine } from "./generate/domain-record.ts";
import { Namer } from "./generate/identity.ts";
import { planReviews, type ReviewPlan, reviewLines } from "./generate/reviews.ts";
import { technologyFragments } from "./generate/technologies.ts";
import { JsonlWriter } from "./generate/writer.ts";
import { P1 } from "./platforms.ts";

export interface GenerateOptions {
  domains: number;
  apps: number;
  seed: number;
  outDir: string;
  gzip?: boolean;
  /** Called now and then (about 200 times in all, in abstract work units) and once at the end with done === total. */
  onProgress?: (done: number, total: number) => void;
}

export interface GenerateResult {
  apps: number;
  domains: number;
  reviews: number;
  files: string[];
}

const FILES = ["apps.jsonl", "domains.jsonl", "reviews.jsonl"] as const;

/**
 * Writes a synthetic snapshot (docs/dataset.md) of `domains` Domains and `apps` Apps, byte-identical
 * for the same options.
 *
 * Cross-record rules need counts before the records they belong to are written (App installs,
 * technology installs, platform ranks), while apps.jsonl comes first. Rather than holding Domains in
 * memory, generation runs in two passes over the Domains. Every Domain draws from its own random
 * stream (seed, index), and draws the cheap choices other records depend on first (platform, state,
 * Apps, technologies). Pass one makes only those choices and counts; pass two makes them again —
 * identically — and goes on to build and write the full record. Pass one costs a small fraction of
 * pass two (no strings, no JSON), and memory is a few typed arrays of one entry per Domain.
 */
export async function generateDataset(options: GenerateOptions): Promise<GenerateResult> {
  const { domains, seed, outDir } = options;
  for (const [key, value] of [
    ["domains", domains],
    ["apps", options.apps],
    ["seed", seed],
  ] as const) {
    if (!Number.isSafeInteger(value) || (key !== "seed" && value < 0)) {
      throw new RangeError(
        `${key} must be ${key === "seed" ? "an integer" : "a non-negative integer"}, got ${value}`,
      );
    }
  }
  const gzip = options.gzip ?? false;
  // Progress units: writing a Domain costs about ten times counting one (see above).
  const total = 10 * domains + options.apps;
  const progress = throttle(total, options.onProgress);

  await mkdir(outDir, { recursive: true });
  // One snapshot per directory: drop the other compression's files from an earlier run.
  await Promise.all(FILES.map((f) => rm(join(outDir, gzip ? f : `${f}.gz`), { force: true })));
  const pathOf = (file: string) => join(outDir, gzip ? `${file}.gz` : file);

  const apps = planApps(seed, options.apps);
  const rankOf = shuffleRanks(seed, domains);
  const planner = new DomainPlanner(seed, domains, rankOf, groupAppsByPlatform(apps));
  const census = await takeCensus(seed, domains, rankOf, planner, apps, (done) => progress(done));
  const platformIndex = new Map(planner.platforms.map((p, k) => [p, k]));

  const reviewPlans = new Map<number, ReviewPlan>();
  const appsOut = JsonlWriter.open(pathOf(FILES[0]), gzip);
  for (const app of apps) {
    const listings = census.listings[app.index];
    const reviews = app.platform === P1 ? planReviews(seed, app, listings) : undefined;
    if (reviews) reviewPlans.set(app.index, reviews);
    const activeOnPlatform = census.activeCount[platformIndex.get(app.platform) ?? -1] ?? 0;
    const counts = { installs: census.installs[app.index], activeOnPlatform, listings };
    await appsOut.write(JSON.stringify(buildAppRecord(seed, app, counts, reviews)));
    progress(domains + app.index + 1);
  }
  const files = [await appsOut.close()];

  const namer = new Namer(seed);
  const technologyJson = technologyFragments(census.techInstalls);
  const ctx: DomainContext = { seed, domains, namer, planner, census, apps, rankOf, technologyJson };
  const domainsOut = JsonlWriter.open(pathOf(FILES[1]), gzip);
  for (let i = 0; i < domains; i++) {
    const flushed = domainsOut.write(domainLine(ctx, planner.plan(i)));
    if (flushed) await flushed;
    progress(domains + apps.length + 9 * (i + 1));
  }
  files.push(await domainsOut.close());

  const reviewsOut = JsonlWriter.open(pathOf(FILES[2]), gzip);
  const p1Count = census.platformCount[planner.p1] ?? 0;
  for (const [index, plan] of reviewPlans) {
    const source = {
      domains,
      namer,
      reviewers: reviewersOf(census, index),
      platformRank: (d: number) => census.platformRank[d],
      platformCount: p1Count,
    };
    for (const line of reviewLines(seed, apps[index], plan, source)) await reviewsOut.write(line);
  }
  const reviews = reviewsOut.lines;
  files.push(await reviewsOut.close());
  options.onProgress?.(total, total);
  return { apps: apps.length, domains, reviews, files };
}

function throttle(total: number, onProgress?: (done: number, total: number) => void): (done: number) => void {
  if (!onProgress) return () => undefined;
  const step = Math.max(1, Math.floor(total / 200));
  let last = 0;
  return (done) => {
    if (done - last >= step && done < total) {
      last = done;
      onProgress(done, total);
    }
  };
}
