import { P1 } from "../platforms.ts";
import { APP_FUNCTIONS, INTEGRATIONS, LONG_DESCRIPTION_SENTENCES } from "./app-words.ts";
import { type AppMeta, trialDuration } from "./apps.ts";
import { type ReviewPlan, type ReviewStats, reviewStats } from "./reviews.ts";
import { hashKeys, Rng } from "./rng.ts";
import { SALT } from "./salt.ts";
import { DAY_MS, NOW_MS, startOfDay, toDate, toLocalTime, toTimestamp } from "./time.ts";

/** Counts gathered from the Domains before apps.jsonl is written. */
export interface AppCounts {
  /** Active Domains listing the App without removed_at. */
  installs: number;
  /** Active Domains of the App's platform. */
  activeOnPlatform: number;
  /** All Domains listing the App (any state, removed or not). */
  listings: number;
}

/** One line of apps.jsonl. Absent optional fields are `undefined`, which JSON.stringify leaves out. */
export function buildAppRecord(seed: number, app: AppMeta, counts: AppCounts, reviews?: ReviewPlan): object {
  const rng = Rng.of(seed, SALT.appDetail, app.index);
  const isP1 = app.platform === P1;
  const [, category, functionDescription] = APP_FUNCTIONS[app.functionIndex];
  const description = app.showcase?.description ?? functionDescription;
  const stats = reviews ? reviewStats(reviews) : otherReviewStats(rng, counts.listings);
  const hasInstalls = rng.chance(0.95);
  const series = hasInstalls ? installsSeries(rng, app, counts.installs) : undefined;
  const paid = app.plans.some((p) => p.monthly_cost_cents !== undefined);
  const h = hashKeys([seed, app.index]).toString(16).padStart(8, "0");
  return {
    id: app.id,
    token: app.token,
    platform: app.platform,
    name: app.name,
    description,
    description_long: rng.chance(0.7)
      ? [description, ...rng.sample(LONG_DESCRIPTION_SENTENCES, rng.int(1, 3))].join(" ")
      : undefined,
    app_store_url: app.appStoreUrl,
    icon_url: isP1
      ? `https://cdn.shopify.com/app-store/listing_images/${h}${app.id}/icon/${app.id}${h}.png`
      : `https://icons.storegraph.example/apps/${app.platform}/${app.token}.png`,
    average_rating: stats.averageRating,
    review_count: stats.reviewCount,
    categories: app.showcase?.categories ?? (rng.chance(0.05) ? [] : categoriesOf(rng, category)),
    state: app.inactive ? "Inactive" : "Active",
    created_at: toLocalTime(app.createdMs),
    removed_at: app.removedMs !== undefined ? toTimestamp(app.removedMs) : undefined,
    installs: hasInstalls ? counts.installs : undefined,
    instp:
      hasInstalls && counts.activeOnPlatform > 0 && rng.chance(0.9)
        ? Math.round((counts.installs / counts.activeOnPlatform) * 1e6) / 1e6
        : undefined,
    installs_30d:
      series && rng.chance(0.9) ? counts.installs - series[series.length - 2].installs : undefined,
    installs_90d:
      series && rng.chance(0.9) ? counts.installs - series[series.length - 4].installs : undefined,
    reviews_30d: rng.chance(0.9) ? stats.reviews30d : undefined,
    reviews_90d: rng.chance(0.9) ? stats.reviews90d : undefined,
    installs_time_series: series && rng.chance(0.75) ? series : undefined,
    integrates_with: isP1 && rng.chance(0.6) ? integrations(rng) : undefined,
    plans: app.plans,
    free_trial_duration: paid && rng.chance(0.6) ? trialDuration(rng) : undefined,
    vendor_name: app.vendor.name,
    vendor_email: rng.chance(0.85) ? `support@${app.vendor.slug.replace(/-/g, "")}.com` : undefined,
    vendor_url: isP1 ? `https://apps.shopify.com/partners/${app.vendor.slug}` : undefined,
    vendor_website: rng.chance(0.8) ? `https://www.${app.vendor.slug.replace(/-/g, "")}.com` : undefined,
    vendor_address: isP1 && rng.chance(0.6) ? app.vendor.address : undefined,
    vendor_country_code: rng.chance(0.75) ? app.vendor.countryCode : undefined,
  };
}

function otherReviewStats(rng: Rng, listings: number): ReviewStats {
  const reviewCount = rng.chance(0.3) ? 0 : rng.int(1, 40) + Math.floor(listings * rng.between(0.005, 0.05));
  const reviews90d = rng.int(0, Math.ceil(reviewCount * 0.15));
  return {
    reviewCount,
    reviews90d,
    reviews30d: rng.int(0, reviews90d),
    averageRating: reviewCount > 0 ? rng.between(2.5, 5).toFixed(1) : "0.0",
  };
}

function categoriesOf(rng: Rng, main: string): string[] {
  if (!rng.chance(0.35)) return [main];
  const other = APP_FUNCTIONS[rng.int(0, APP_FUNCTIONS.length - 1)][1];
  return other === main ? [main] : [main, other];
}

/**
 * Monthly install counts over the last year, ending at today's count. Walks back from `installs`
 * with a growth rate per App (Inactive Apps shrink), and starts no earlier than the App's creation.
 */
function installsSeries(rng: Rng, app: AppMeta, installs: number): { date: string; installs: number }[] {
  const growth = app.inactive ? 0.96 : NOW_MS - app.createdMs < 365 * DAY_MS ? 1.15 : rng.between(0.99, 1.06);
  const today = startOfDay(NOW_MS);
  const points: { date: string; installs: number }[] = [];
  let value = installs;
  for (let k = 0; k <= 12; k++) {
    const day = today - k * 30 * DAY_MS;
    if (k > 3 && day < app.createdMs) break;
    points.push({ date: toDate(day), installs: value });
    value = Math.max(0, Math.round(value / (growth * rng.logNormal(0, 0.03))));
  }
  return points.reverse();
}

function integrations(rng: Rng): string[] {
  const picked = rng.sample(INTEGRATIONS, rng.int(1, 5));
  // Scraped listings carry the store's markup whitespace around entries; keep it like the source does.
  return rng.chance(0.4) ? picked.map((p) => `\n          ${p}\n        `) : picked;
}
