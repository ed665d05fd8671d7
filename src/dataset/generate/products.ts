import { COUNTRY_CODES, type Country, CURRENCIES, formatPrice } from "./countries.ts";
import type { Rng } from "./rng.ts";
import { DAY_MS, NOW_MS, toDate, toTimestamp } from "./time.ts";
import {
  COLLECTIONS,
  capitalize,
  PRODUCT_ADJECTIVES,
  SALES_CHANNELS,
  SHIPPING_CARRIERS,
  slugify,
} from "./words.ts";

export interface ProductInput {
  isP1: boolean;
  createdMs: number;
  currency?: string;
  country?: Country;
  /** Product words of the store's category. */
  category: readonly string[];
}

/** Catalogue, prices (store currency and USD, min ≤ avg ≤ max), weights and the P1-only product fields. */
export function productFields(rng: Rng, input: ProductInput) {
  const { isP1, currency } = input;
  const productCount = rng.chance(0.85)
    ? rng.chance(0.01)
      ? 0
      : Math.min(250_000, Math.max(1, Math.round(rng.logNormal(Math.log(60), 1.3))))
    : undefined;
  const priced = productCount !== undefined && productCount > 0 && rng.chance(0.9);
  const avgUsd = Math.min(2_000_000, Math.max(100, Math.round(rng.logNormal(Math.log(3500), 0.9))));
  const minUsd = Math.floor(avgUsd * rng.between(0.1, 0.9));
  const maxUsd = Math.ceil(avgUsd * rng.between(1.1, 6));
  const toLocal = (usdCents: number): number | undefined => {
    if (!currency) return undefined;
    const c = CURRENCIES[currency];
    return Math.round((usdCents / 100 / c.usd) * 10 ** c.decimals);
  };
  const avg = priced ? toLocal(avgUsd) : undefined;
  const p1Prices = isP1 && priced && currency !== undefined && rng.chance(0.7);
  const weighed = rng.chance(0.35);
  const avgWeight = Math.min(50_000, Math.max(1, Math.round(rng.logNormal(Math.log(600), 1))));
  const images =
    isP1 && productCount !== undefined && rng.chance(0.6) ? imagesCreated(rng, productCount) : undefined;
  const published =
    isP1 && rng.chance(0.8) ? Math.max(input.createdMs, NOW_MS - rng.exponential(25 * DAY_MS)) : undefined;

  return {
    product_count: productCount,
    avg_price: avg,
    avg_price_usd: priced ? avgUsd : undefined,
    avg_price_formatted: avg !== undefined && currency ? formatPrice(avg, currency) : undefined,
    avg_weight: weighed ? avgWeight : undefined,
    max_weight: weighed ? Math.ceil(avgWeight * rng.between(1, 8)) : undefined,
    min_weight: weighed ? Math.floor(avgWeight * rng.between(0.05, 1)) : undefined,
    shipping_carriers: rng.chance(0.35) ? rng.sample(SHIPPING_CARRIERS, rng.int(1, 3)) : undefined,
    sales_channels: rng.chance(0.25) ? rng.sample(SALES_CHANNELS, rng.int(1, 3)) : undefined,
    variant_count:
      isP1 && productCount !== undefined && rng.chance(0.8)
        ? Math.round(productCount * rng.between(1, 6))
        : undefined,
    vendor_count:
      isP1 && productCount !== undefined && rng.chance(0.7)
        ? Math.min(productCount, Math.round(rng.logNormal(Math.log(4), 1)))
        : undefined,
    min_price: p1Prices ? Math.min(avg ?? 0, toLocal(minUsd) ?? 0) : undefined,
    max_price: p1Prices ? Math.max(avg ?? 0, toLocal(maxUsd) ?? 0) : undefined,
    min_price_usd: p1Prices ? minUsd : undefined,
    max_price_usd: p1Prices ? maxUsd : undefined,
    max_product_published_at: published !== undefined ? toDate(published) : undefined,
    most_recently_published_product:
      published !== undefined && rng.chance(0.55) ? newestProduct(rng, input, published) : undefined,
    product_images_created_30: images?.[0],
    product_images_created_90: images?.[1],
    product_images_created_365: images?.[2],
    collections: isP1 && rng.chance(0.55) ? collections(rng, input.category) : undefined,
    ships_to_countries: isP1 && rng.chance(0.45) ? shipsTo(rng, input.country) : undefined,
  };
}

function newestProduct(rng: Rng, input: ProductInput, published: number): object {
  const title = `${capitalize(rng.pick(PRODUCT_ADJECTIVES))} ${rng
    .pick(input.category)
    .split(" ")
    .map(capitalize)
    .join(" ")}`;
  return {
    title,
    handle: slugify(title),
    product_id: 7_000_000_000_000 + rng.int(0, 2_000_000_000_000),
    published_at: toTimestamp(published),
  };
}

/** Images added in the last 30, 90 and 365 days (non-decreasing). */
function imagesCreated(rng: Rng, productCount: number): [number, number, number] {
  const year = rng.int(0, productCount * 3);
  const quarter = Math.floor(year * rng.float());
  return [Math.floor(quarter * rng.float()), quarter, year];
}

function collections(rng: Rng, category: readonly string[]): string[] {
  const named = rng.sample(category, rng.int(0, 2)).map((w) => w.split(" ").map(capitalize).join(" "));
  return [...rng.sample(COLLECTIONS, rng.int(1, 4)), ...named];
}

function shipsTo(rng: Rng, country?: Country): string[] {
  const list = rng.sample(COUNTRY_CODES, rng.int(0, 12));
  if (country && !list.includes(country.code)) list.unshift(country.code);
  return list.length > 0 ? list : ["US"];
}
