import { P1 } from "../platforms.ts";
import type { AppMeta } from "./apps.ts";
import type { Census } from "./census.ts";
import { aliases, alternates, cluster, locales, redirects } from "./domain-links.ts";
import { contactInfo, locationFields, pagesAndFeatures, round, tags } from "./domain-parts.ts";
import type { DomainPlan, DomainPlanner } from "./domain-plan.ts";
import type { Namer } from "./identity.ts";
import { PLANS, PLATFORM_DOMAINS, THEME_STYLES, THEMES } from "./platform-profile.ts";
import { productFields } from "./products.ts";
import { mix32, pickerOf, type Rng } from "./rng.ts";
import type { Identity } from "./shapes.ts";
import { SHOWCASE_DOMAINS } from "./showcase.ts";
import { DAY_MS, NOW_MS, toDate, toTimestamp } from "./time.ts";
import { DESCRIPTION_ENDINGS, STORE_CATEGORIES, TITLE_TAGLINES } from "./words.ts";

export interface DomainContext {
  seed: number;
  domains: number;
  namer: Namer;
  planner: DomainPlanner;
  census: Census;
  apps: readonly AppMeta[];
  rankOf: Int32Array;
  technologyJson: readonly { head: string; tail: string }[];
}

const MAGENTO_VERSIONS = [
  "2.4.7-p3",
  "2.4.7",
  "2.4.6-p8",
  "2.4.6",
  "2.4.5-p10",
  "2.4.4",
  "2.3.7-p4",
  "1.9.4.5",
];
const CURRENCY_WITHOUT_COUNTRY = pickerOf<string>([
  ["USD", 70],
  ["EUR", 20],
  ["GBP", 10],
]);
const LAST_PLATFORMS = [
  "woocommerce",
  "magento",
  "wix",
  "bigcommerce",
  "squarespace",
  "custom",
  "shopify",
  "volusion",
];
const PLATFORM_CHANGES_KNOWN_FROM = Date.UTC(2019, 9, 1);
const PLAN_CHANGES_KNOWN_FROM = Date.UTC(2019, 6, 1);

/**
 * One line of domains.jsonl. `technologies` is appended from pre-serialised fragments (see
 * technologyFragments); everything else goes through JSON.stringify.
 */
export function domainLine(ctx: DomainContext, plan: DomainPlan): string {
  const json = JSON.stringify(buildDomain(ctx, plan));
  if (plan.techs.length === 0) return json;
  const { rng, createdMs } = plan;
  let techs = "";
  for (const t of plan.techs) {
    const { head, tail } = ctx.technologyJson[t];
    techs += `${techs === "" ? "" : ","}${head}${toTimestamp(between(rng, createdMs, NOW_MS))}${tail}`;
  }
  return `${json.slice(0, -1)},"technologies":[${techs}]}`;
}

/** A Domain without `technologies`. Absent optional fields are `undefined`, which JSON.stringify leaves out. */
export function buildDomain(ctx: DomainContext, plan: DomainPlan): object {
  const { rng, index, rank, createdMs } = plan;
  const { census, namer } = ctx;
  const platform = ctx.planner.platforms[plan.platform];
  const isP1 = platform === P1;
  const who = namer.identity(index);
  const country = who.country;
  const n = ctx.domains;
  const platformCount = census.platformCount[plan.platform];
  const platformRank = census.platformRank[index];
  const q = n > 1 ? (rank - 1) / (n - 1) : 0;

  const pd = PLATFORM_DOMAINS[platform];
  const currency = country
    ? rng.chance(0.95)
      ? country.currency
      : undefined
    : rng.chance(0.7)
      ? CURRENCY_WITHOUT_COUNTRY.pick(rng)
      : undefined;
  const category = rng.pick(STORE_CATEGORIES);
  const [w1, w2] = rng.sample(category[1], 2);
  const location = locationFields(rng, country);
  const { pages, features } = pagesAndFeatures(rng, who.name, isP1);
  const traffic = trafficFields(rng, rank, plan, ctx.apps);
  const products = productFields(rng, { isP1, createdMs, currency, country, category: category[1] });
  const platformPlans = PLANS[platform];
  const planName =
    platformPlans && rng.chance(0.85) ? pickPlan(rng, platformPlans, isP1 && q < 0.02) : undefined;
  const lastPlatform = rng.chance(0.07)
    ? LAST_PLATFORMS.find((p) => p !== platform && rng.chance(0.4))
    : undefined;
  const lastPlan =
    planName && platformPlans && rng.chance(0.12) ? otherPlan(rng, platformPlans, planName) : undefined;
  const clustered = cluster(ctx, index);
  const show = SHOWCASE_DOMAINS[index];
  for (const f of show?.features ?? []) if (!features.includes(f)) features.push(f);

  // One object literal naming every field (undefined when absent): spreading parts into it would
  // make V8 fall back to slow dictionary objects, which costs more than anything else per Domain.

  return {
    name: who.name,
    platform_domain: pd && (pd[1] >= 1 || rng.chance(pd[1])) ? `${who.handle}.${pd[0]}` : undefined,
    tld1: who.tld1,
    state: plan.state,
    inactive_at:
      plan.state === "Inactive" && rng.chance(0.95) ? toDate(between(rng, createdMs, NOW_MS)) : undefined,
    redirects_to: plan.state === "Redirect" ? (show?.redirectsTo ?? redirects(rng, ctx, index)) : undefined,
    aliases: rng.chance(0.12) ? aliases(rng, who) : undefined,
    alternates: rng.chance(0.06) ? alternates(rng, who) : undefined,
    localizations: isP1 && rng.chance(0.25) ? locales(rng, country?.code ?? "US", true) : undefined,
    locs: rng.chance(0.2) ? locales(rng, country?.code ?? "US", false) : undefined,
    cluster_domains: clustered.domains,
    cluster_best_ranked: clustered.best,
    platform,
    plan: planName,
    last_platform: lastPlatform,
    last_platform_change_at:
      lastPlatform && rng.chance(0.9) ? changeDate(rng, createdMs, PLATFORM_CHANGES_KNOWN_FROM) : undefined,
    last_plan: lastPlan,
    last_plan_change_at:
      lastPlan && rng.chance(0.9) ? changeDate(rng, createdMs, PLAN_CHANGES_KNOWN_FROM) : undefined,
    created_at: toDate(createdMs),
    last_updated_at: rng.chance(0.95)
      ? toDate(Math.max(createdMs, NOW_MS - rng.exponential(20 * DAY_MS)))
      : undefined,
    magento_version: platform === "magento" && rng.chance(0.75) ? rng.pick(MAGENTO_VERSIONS) : undefined,

    merchant_name: rng.chance(0.9) ? who.merchantName : undefined,
    title: rng.chance(0.92)
      ? `${who.merchantName} | ${rng.chance(0.5) ? rng.pick(TITLE_TAGLINES) : titleCase(`${w1} & ${w2 ?? w1}`)}`
      : undefined,
    description: rng.chance(0.8)
      ? `Shop ${w1}${w2 ? ` and ${w2}` : ""} at ${who.merchantName}. ${rng.pick(DESCRIPTION_ENDINGS)}`.trim()
      : undefined,
    keywords: rng.chance(0.35) ? keywords(rng, category[1], who) : undefined,
    icon: rng.chance(0.8) ? assetUrl(who, isP1, index, "favicon.png") : undefined,
    og_image: rng.chance(0.55) ? assetUrl(who, isP1, index, "social-share.jpg") : undefined,
    country_code: country?.code,
    currency_code: currency,
    language_code: rng.chance(0.95) ? (rng.chance(0.97) ? (country?.language ?? "en") : "") : undefined,
    administrative_area_level_1: location.administrative_area_level_1,
    city: location.city,
    location: location.location,
    region: location.region,
    subregion: location.subregion,
    postal_code: location.postal_code,
    street_address: location.street_address,
    latitude: location.latitude,
    longitude: location.longitude,
    employee_count: rng.chance(0.5)
      ? Math.round(1 + 4000 * rank ** -0.55 * rng.logNormal(0, 0.8))
      : undefined,

    rank,
    rank_percentile: percentile(rank, n),
    platform_rank: platformRank,
    platform_rank_percentile: percentile(platformRank, platformCount),
    cc_rank: traffic.cc_rank,
    cc_centrality: traffic.cc_centrality,
    estimated_page_views: traffic.estimated_page_views,
    estimated_visits: traffic.estimated_visits,
    estimated_sales: traffic.estimated_sales,
    estimated_sales_yearly: traffic.estimated_sales_yearly,
    monthly_app_spend: traffic.monthly_app_spend,
    product_count: products.product_count,
    avg_price: products.avg_price,
    avg_price_usd: products.avg_price_usd,
    avg_price_formatted: products.avg_price_formatted,
    avg_weight: products.avg_weight,
    max_weight: products.max_weight,
    min_weight: products.min_weight,
    shipping_carriers: products.shipping_carriers,
    sales_channels: products.sales_channels,
    categories: rng.chance(0.8)
      ? [category[0], ...(rng.chance(0.2) ? [rng.pick(STORE_CATEGORIES)[0]] : [])].filter(unique)
      : undefined,
    features: features.length > 0 ? features : undefined,
    tags: rng.chance(0.18) ? tags(rng) : undefined,
    variant_count: products.variant_count,
    vendor_count: products.vendor_count,
    min_price: products.min_price,
    max_price: products.max_price,
    min_price_usd: products.min_price_usd,
    max_price_usd: products.max_price_usd,
    max_product_published_at: products.max_product_published_at,
    most_recently_published_product: products.most_recently_published_product,
    product_images_created_30: products.product_images_created_30,
    product_images_created_90: products.product_images_created_90,
    product_images_created_365: products.product_images_created_365,
    collections: products.collections,
    ships_to_countries: products.ships_to_countries,
    contact_page: pages.contact_page,
    brands_page: pages.brands_page,
    retailer_page: pages.retailer_page,
    returns_page: pages.returns_page,
    tracking_page: pages.tracking_page,
    warranty_page: pages.warranty_page,
    financing_page: pages.financing_page,
    store_locator_page: pages.store_locator_page,
    career_page: pages.career_page,
    sizing_page: pages.sizing_page,
    about_us: pages.about_us,
    contact_info: rng.chance(0.75) ? nonEmpty(contactInfo(rng, who, rank, location.city)) : undefined,
    theme: THEMES[platform] && rng.chance(0.75) ? theme(rng, platform, isP1) : undefined,
    apps: plan.apps.length > 0 ? domainApps(rng, plan, ctx.apps) : undefined,
    trustpilot: rng.chance(0.08) ? reviewSite(rng) : undefined,
    yotpo: isP1 && rng.chance(0.06) ? reviewSite(rng) : undefined,
  };
}

/** 100 for the best rank down to about 0 for the worst; rounding keeps it monotone. */
export function percentile(rank: number, count: number): number {
  return Math.round(100 * (1 - (rank - 1) / count) * 100) / 100;
}

/** Traffic and money follow a power law of rank with log-normal noise. */
function trafficFields(rng: Rng, rank: number, plan: DomainPlan, apps: readonly AppMeta[]) {
  const visits = Math.max(1, Math.round(4e7 * rank ** -0.85 * rng.logNormal(0, 0.45)));
  const sales = Math.round(visits * rng.between(0.005, 0.03) * rng.between(3000, 12000));
  let spend = 0;
  for (let k = 0; k < plan.apps.length; k++) if (!plan.removed[k]) spend += apps[plan.apps[k]].spendCents;
  const hasCc = rng.chance(0.35);
  const ccRank = Math.round(rank * rng.logNormal(Math.log(40), 0.6));
  return {
    cc_rank: hasCc ? ccRank : undefined,
    cc_centrality: hasCc ? Number((0.5 / Math.sqrt(ccRank)).toPrecision(6)) : undefined,
    estimated_page_views: rng.chance(0.88) ? Math.round(visits * rng.between(1.5, 6)) : undefined,
    estimated_visits: rng.chance(0.9) ? visits : undefined,
    estimated_sales: rng.chance(0.85) ? sales : undefined,
    estimated_sales_yearly: rng.chance(0.8) ? Math.round(sales * 12 * rng.between(0.85, 1.15)) : undefined,
    monthly_app_spend: rng.chance(plan.apps.length > 0 ? 0.9 : 0.3) ? spend : undefined,
  };
}

function between(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng.float() * Math.max(0, hi - lo));
}

function changeDate(rng: Rng, createdMs: number, knownFrom: number): string {
  const lo = Math.max(createdMs, knownFrom);
  return toDate(lo >= NOW_MS ? createdMs : between(rng, lo, NOW_MS));
}

function pickPlan(rng: Rng, plans: readonly (readonly [string, number])[], top: boolean): string {
  if (top && rng.chance(0.5)) return "Shopify Plus";
  return pickerOf(plans).pick(rng);
}

function otherPlan(
  rng: Rng,
  plans: readonly (readonly [string, number])[],
  current: string,
): string | undefined {
  const others = plans.map((p) => p[0]).filter((p) => p !== current);
  return others.length > 0 ? rng.pick(others) : undefined;
}

function keywords(rng: Rng, products: readonly string[], who: Identity): string | string[] {
  const list = [...rng.sample(products, rng.int(1, products.length)), who.merchantName.toLowerCase()];
  return rng.chance(0.5) ? list.join(", ") : list;
}

function assetUrl(who: Identity, isP1: boolean, index: number, file: string): string {
  if (!isP1) return `https://${who.name}/${file}`;
  const h = mix32(index + 0x1234567);
  const path = `${String(h % 10000).padStart(4, "0")}/${String((h >>> 4) % 10000).padStart(4, "0")}/${String(index % 10000).padStart(4, "0")}`;
  return `https://cdn.shopify.com/s/files/1/${path}/files/${file}`;
}

function theme(rng: Rng, platform: string, isP1: boolean): object {
  const list = THEMES[platform];
  const spec = list[Math.min(list.length - 1, Math.floor(rng.exponential(list.length / 3)))];
  return {
    name: spec.name,
    style: rng.chance(0.5) ? rng.pick(THEME_STYLES) : undefined,
    vendor: rng.chance(0.85) ? spec.vendor : undefined,
    version: spec.versions && rng.chance(0.6) ? rng.pick(spec.versions) : undefined,
    cost: isP1 ? spec.cost : undefined,
  };
}

function domainApps(rng: Rng, plan: DomainPlan, apps: readonly AppMeta[]): object[] {
  return plan.apps.map((a, k) => {
    const app = apps[a];
    const lo = Math.max(plan.createdMs, app.createdMs);
    const hi = Math.max(lo, Math.min(NOW_MS, app.removedMs ?? NOW_MS));
    const installed = between(rng, lo, hi);
    return {
      id: app.id,
      platform: app.platform,
      token: app.token,
      name: app.name,
      installed_at: toTimestamp(installed),
      removed_at: plan.removed[k] ? toTimestamp(between(rng, installed, NOW_MS)) : undefined,
    };
  });
}

function reviewSite(rng: Rng): { review_count: number; avg_rating: number } {
  return {
    review_count: Math.round(rng.logNormal(Math.log(120), 1.5)),
    avg_rating: round(rng.between(2.5, 5), 1),
  };
}

function titleCase(text: string): string {
  return text.replace(/\b[a-z]/g, (c) => c.toUpperCase());
}

function unique<T>(value: T, i: number, all: T[]): boolean {
  return all.indexOf(value) === i;
}

function nonEmpty<T>(list: T[]): T[] | undefined {
  return list.length > 0 ? list : undefined;
}
