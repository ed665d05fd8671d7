import { REVIEW_SENTENCES } from "./app-words.ts";
import type { AppMeta } from "./apps.ts";
import type { Namer } from "./identity.ts";
import { pickerOf, Rng } from "./rng.ts";
import { SALT } from "./salt.ts";
import { DAY_MS, NOW_MS, toTimestamp } from "./time.ts";

/**
 * The reviews of one P1 App: dates and ratings come from their own random stream, so the App's
 * counters (review_count, reviews_30d, average_rating) can be computed when apps.jsonl is written
 * and the same reviews regenerated for reviews.jsonl afterwards.
 */
export interface ReviewPlan {
  dates: number[];
  ratings: number[];
  /** Reviews counted in review_count but not in reviews.jsonl. */
  extra: number;
}

const GOOD = pickerOf([
  [5, 75],
  [4, 13],
  [3, 5],
  [2, 2],
  [1, 5],
] as const);
const BAD = pickerOf([
  [5, 35],
  [4, 15],
  [3, 12],
  [2, 10],
  [1, 28],
] as const);

export function planReviews(seed: number, app: AppMeta, listings: number): ReviewPlan {
  const rng = Rng.of(seed, SALT.reviewPlan, app.index);
  const rate = Math.min(0.2, rng.logNormal(Math.log(0.03), 0.8));
  const n = Math.max(
    app.showcase?.minReviews ?? 0,
    Math.min(3000, Math.floor(listings * rate) + rng.int(0, 2)),
  );
  const ratingPicker = rng.chance(0.85) ? GOOD : BAD;
  const span = NOW_MS - app.createdMs - DAY_MS;
  const dates: number[] = [];
  const ratings: number[] = [];
  for (let k = 0; k < n; k++) {
    // Mostly recent; ages beyond the App's lifetime are spread over it instead of piling up at its start.
    const age = rng.exponential(500 * DAY_MS);
    dates.push(NOW_MS - Math.max(60_000, age <= span ? age : rng.float() * span));
    ratings.push(ratingPicker.pick(rng));
  }
  return { dates, ratings, extra: rng.chance(0.25) ? rng.int(1, 5) : 0 };
}

export interface ReviewStats {
  reviewCount: number;
  reviews30d: number;
  reviews90d: number;
  averageRating: string;
}

export function reviewStats(plan: ReviewPlan): ReviewStats {
  const n = plan.ratings.length;
  const sum = plan.ratings.reduce((s, r) => s + r, 0);
  return {
    reviewCount: n + plan.extra,
    reviews30d: plan.dates.filter((d) => d >= NOW_MS - 30 * DAY_MS).length,
    reviews90d: plan.dates.filter((d) => d >= NOW_MS - 90 * DAY_MS).length,
    averageRating: n > 0 ? (sum / n).toFixed(1) : "0.0",
  };
}

/** Where review authors come from: stores of the dataset that listed the App, or stores outside it. */
export interface ReviewerSource {
  domains: number;
  namer: Namer;
  /** Up to `reviewers.length` Domains (indices) that list the App, in random order. */
  reviewers: ArrayLike<number>;
  /** How many of the first `reviewers` write the App's first reviews whatever the draw (showcase). */
  first?: number;
  platformRank(domainIndex: number): number;
  platformCount: number;
}

/** The JSON lines of one P1 App's reviews. */
export function reviewLines(seed: number, app: AppMeta, plan: ReviewPlan, source: ReviewerSource): string[] {
  const rng = Rng.of(seed, SALT.reviewText, app.index);
  const appRef = { id: app.id, name: app.name, app_store_url: app.appStoreUrl, vendor_name: app.vendor.name };
  const brand = app.name.split(/[: ]/)[0];
  const lines: string[] = [];
  let next = 0;
  for (let k = 0; k < plan.dates.length; k++) {
    const r = rng.float();
    let merchantName: string;
    let domains: { platform_domain: string; name: string; platform_rank: number }[];
    if (next < source.reviewers.length && (next < (source.first ?? 0) || r < 0.9)) {
      const index = source.reviewers[next++];
      const who = source.namer.identity(index);
      merchantName = who.merchantName;
      domains = [
        {
          platform_domain: `${who.handle}.myshopify.com`,
          name: who.name,
          platform_rank: source.platformRank(index),
        },
      ];
    } else {
      // A store outside the dataset: indices from `domains` on never name a generated Domain.
      const who = source.namer.identity(source.domains + rng.int(0, 4 * source.domains + 1000));
      merchantName = who.merchantName;
      domains = rng.chance(0.15)
        ? []
        : [
            {
              platform_domain: `${who.handle}.myshopify.com`,
              name: who.name,
              platform_rank: rng.int(1, source.platformCount + 1000),
            },
          ];
    }
    const rating = plan.ratings[k];
    const sentences = REVIEW_SENTENCES[rating];
    let body = rng.pick(sentences);
    if (rng.chance(0.5)) body += ` ${rng.pick(sentences)}`;
    if (rng.chance(0.2)) body = rating >= 4 ? `Love ${brand}! ${body}` : `${brand}: ${body}`;
    lines.push(
      JSON.stringify({
        updated_at: toTimestamp(plan.dates[k]),
        body,
        merchant_name: merchantName,
        rating,
        app: appRef,
        domains,
      }),
    );
  }
  return lines;
}
