import { z } from "zod";
import { P1 } from "./platforms.ts";
import {
  count,
  country,
  currency,
  date,
  dnsName,
  EMAIL,
  enumOf,
  language,
  localTime,
  nonBlank,
  percentile,
  platform,
  rating,
  stringSet,
  timestamp,
  toEpochMs,
  url,
} from "./record-fields.ts";
import { modelOnlyFields } from "./record-model.ts";
import {
  APP_STATES,
  CONTACT_TYPES,
  DOMAIN_STATES,
  FEATURES,
  FOLLOWER_CONTACT_TYPES,
  TAGS,
} from "./vocabulary.ts";

/**
 * The shape of one line of each snapshot file (docs/dataset.md), as zod schemas. Per-record rules
 * live here; rules that span records are in load/ingest.ts (as each record is read) and
 * load/cross-checks.ts (once all are). The forms of their values are in record-fields.ts, the
 * Domain model's columns the record does not describe in record-model.ts, and how a line's
 * problems are named in record-issues.ts.
 *
 * Optional fields are absent when unknown: `null` is rejected (see formatIssue).
 */

// ---------------------------------------------------------------- apps.jsonl

const plan = z.strictObject({
  name: nonBlank,
  monthly_cost: z.string(),
  monthly_cost_cents: z.int().min(1, "must be > 0 (leave it out for free plans)").optional(),
});

export const AppRecord = z
  .strictObject({
    id: nonBlank,
    token: z.string().regex(/^[^\s/]+$/, "must be non-empty without whitespace or /"),
    platform,
    name: nonBlank,
    description: z.string(),
    description_long: z.string().optional(),
    app_store_url: url,
    icon_url: url,
    average_rating: z
      .string()
      .regex(/^\d(\.\d+)?$/, 'must be a decimal number in a string, e.g. "4.7"')
      .refine((v) => Number(v) <= 5, { message: "must be between 0 and 5" }),
    review_count: count,
    categories: stringSet(),
    state: enumOf(APP_STATES),
    created_at: localTime,
    removed_at: timestamp.optional(),
    installs: count.optional(),
    instp: z.number().min(0).max(1).optional(),
    installs_30d: z.int().optional(),
    installs_90d: z.int().optional(),
    reviews_30d: count.optional(),
    reviews_90d: count.optional(),
    installs_time_series: z.array(z.strictObject({ date, installs: count })).optional(),
    integrates_with: z.array(z.string()).optional(),
    plans: z.array(plan),
    free_trial_duration: z
      .string()
      .regex(/^\d+h\d+m\d+s$/, "must be <hours>h<minutes>m<seconds>s, e.g. 168h0m0s")
      .optional(),
    vendor_name: z.string(),
    vendor_email: z.string().regex(EMAIL, "must be an email address").optional(),
    vendor_url: url.optional(),
    vendor_website: url.optional(),
    vendor_address: z.string().optional(),
    vendor_country_code: country.optional(),
  })
  .superRefine((app, ctx) => {
    const problem = (path: (string | number)[], message: string) =>
      ctx.addIssue({ code: "custom", path, message });
    if (app.removed_at !== undefined) {
      if (app.state !== "Inactive") problem(["removed_at"], "is set only for Inactive Apps");
      else if (toEpochMs(app.removed_at) < toEpochMs(app.created_at))
        problem(["removed_at"], "is before created_at");
    }
    if (app.platform !== P1) {
      for (const f of ["integrates_with", "vendor_url", "vendor_address"] as const) {
        if (app[f] !== undefined) problem([f], `is set only for ${P1} Apps`);
      }
    }
    if (app.reviews_90d !== undefined && app.reviews_90d > app.review_count) {
      problem(["reviews_90d"], "is greater than review_count");
    }
    if (app.reviews_30d !== undefined && app.reviews_30d > (app.reviews_90d ?? app.review_count)) {
      problem(["reviews_30d"], "is greater than reviews_90d");
    }
    const series = app.installs_time_series ?? [];
    for (let i = 1; i < series.length; i++) {
      if (series[i].date <= series[i - 1].date) {
        problem(["installs_time_series", i, "date"], "must be after the previous point's date");
        break;
      }
    }
  });
export type AppRecord = z.infer<typeof AppRecord>;

// ------------------------------------------------------------- domains.jsonl

const contact = z
  .strictObject({
    type: enumOf(CONTACT_TYPES),
    value: nonBlank,
    source: z.string().regex(/^\//, "must be a relative URL starting with /"),
    description: z.string().optional(),
    followers: count.optional(),
    followers_30d: z.int().optional(),
    followers_90d: z.int().optional(),
    posts: count.optional(),
    likes: count.optional(),
  })
  .superRefine((c, ctx) => {
    if ((FOLLOWER_CONTACT_TYPES as readonly string[]).includes(c.type)) return;
    for (const f of ["followers", "followers_30d", "followers_90d"] as const) {
      if (c[f] !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [f],
          message: `applies only to ${FOLLOWER_CONTACT_TYPES.join(", ")}`,
        });
      }
    }
  });

const technology = z.strictObject({
  name: nonBlank,
  description: z.string(),
  vendor_url: url,
  icon_url: url,
  installed_at: timestamp,
  installs: count,
  categories: z.array(z.string()).optional(),
});

// More App fields may ride along (the API's App object); App data itself comes from apps.jsonl.
const installedApp = z.looseObject({
  id: nonBlank,
  platform,
  token: z.string().min(1),
  name: z.string(),
  installed_at: timestamp,
  removed_at: timestamp.optional(),
});

const reviewSite = z.strictObject({ review_count: count, avg_rating: rating });

/** The Domain fields only P1 Domains carry (docs/dataset.md). */
export const P1_DOMAIN_FIELDS = [
  "variant_count",
  "vendor_count",
  "min_price",
  "max_price",
  "min_price_usd",
  "max_price_usd",
  "max_product_published_at",
  "most_recently_published_product",
  "product_images_created_30",
  "product_images_created_90",
  "product_images_created_365",
  "collections",
  "ships_to_countries",
  "localizations",
] as const;

const PAGE_FIELDS = [
  "contact_page",
  "brands_page",
  "retailer_page",
  "returns_page",
  "tracking_page",
  "warranty_page",
  "financing_page",
  "store_locator_page",
  "career_page",
  "sizing_page",
  "about_us",
] as const;

export { PAGE_FIELDS };

const pages = Object.fromEntries(PAGE_FIELDS.map((f) => [f, url.optional()])) as Record<
  (typeof PAGE_FIELDS)[number],
  z.ZodOptional<typeof url>
>;
const domainFields = {
  name: dnsName,
  platform_domain: dnsName.optional(),
  tld1: nonBlank,
  state: enumOf(DOMAIN_STATES),
  inactive_at: date.optional(),
  redirects_to: z.array(dnsName).optional(),
  aliases: z.array(dnsName).optional(),
  alternates: z.record(z.string(), dnsName).optional(),
  localizations: z.array(z.string()).optional(),
  locs: z.array(z.string()).optional(),
  cluster_domains: stringSet(dnsName),
  cluster_best_ranked: dnsName,
  platform,
  plan: z.string().optional(),
  last_platform: platform.optional(),
  last_platform_change_at: date.optional(),
  last_plan: z.string().optional(),
  last_plan_change_at: date.optional(),
  created_at: date,
  last_updated_at: date.optional(),
  magento_version: z.string().optional(),
  merchant_name: z.string().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  keywords: z.union([z.string(), z.array(z.string())]).optional(),
  icon: url.optional(),
  og_image: url.optional(),
  country_code: country.optional(),
  currency_code: currency.optional(),
  language_code: language.optional(),
  administrative_area_level_1: nonBlank.optional(),
  city: nonBlank.optional(),
  location: z.string().optional(),
  region: z.string().optional(),
  subregion: z.string().optional(),
  postal_code: z.string().optional(),
  street_address: z.string().optional(),
  latitude: z.number().min(-90).max(90).optional(),
  longitude: z.number().min(-180).max(180).optional(),
  employee_count: count.optional(),
  rank: z.int().min(1, "must be an integer ≥ 1"),
  rank_percentile: percentile,
  platform_rank: z.int().min(1, "must be an integer ≥ 1"),
  platform_rank_percentile: percentile,
  cc_rank: z.number().optional(),
  cc_centrality: z.number().optional(),
  estimated_page_views: count.optional(),
  estimated_visits: count.optional(),
  estimated_sales: count.optional(),
  estimated_sales_yearly: count.optional(),
  monthly_app_spend: count.optional(),
  avg_weight: count.optional(),
  max_weight: count.optional(),
  min_weight: count.optional(),
  product_count: count.optional(),
  variant_count: count.optional(),
  vendor_count: count.optional(),
  avg_price: count.optional(),
  avg_price_formatted: z.string().optional(),
  avg_price_usd: count.optional(),
  min_price: count.optional(),
  max_price: count.optional(),
  min_price_usd: count.optional(),
  max_price_usd: count.optional(),
  max_product_published_at: date.optional(),
  most_recently_published_product: z
    .strictObject({ title: z.string(), handle: nonBlank, product_id: count, published_at: timestamp })
    .optional(),
  product_images_created_30: count.optional(),
  product_images_created_90: count.optional(),
  product_images_created_365: count.optional(),
  collections: z.array(z.string()).optional(),
  ships_to_countries: stringSet(country).optional(),
  shipping_carriers: z.array(z.string()).optional(),
  sales_channels: stringSet().optional(),
  categories: stringSet().optional(),
  features: stringSet(enumOf(FEATURES)).optional(),
  tags: stringSet(enumOf(TAGS)).optional(),
  ...pages,
  contact_info: z.array(contact).optional(),
  technologies: z.array(technology).optional(),
  theme: z
    .strictObject({
      name: nonBlank,
      style: z.string().optional(),
      vendor: z.string().optional(),
      version: z.string().optional(),
      cost: z.int().min(1, "must be > 0 cents (leave it out for free themes)").optional(),
    })
    .optional(),
  apps: z.array(installedApp).optional(),
  trustpilot: reviewSite.optional(),
  yotpo: reviewSite.optional(),
};

export const DomainRecord = z
  .strictObject({ ...domainFields, ...(modelOnlyFields(domainFields) as Record<never, never>) })
  .superRefine(checkDomain);
export type DomainRecord = z.infer<typeof DomainRecord>;

function checkDomain(d: z.infer<typeof DomainRecord>, ctx: z.RefinementCtx): void {
  const problem = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: "custom", path, message });
  if (d.name !== d.tld1 && !d.name.endsWith(`.${d.tld1}`))
    problem(["tld1"], `is not the registrable domain of ${d.name}`);
  if (d.inactive_at !== undefined && d.state !== "Inactive")
    problem(["inactive_at"], "is set only for Inactive Domains");
  if (d.state === "Redirect" && !d.redirects_to?.length)
    problem(["redirects_to"], "is required for Redirect Domains");
  if (d.redirects_to !== undefined && d.state !== "Redirect")
    problem(["redirects_to"], "is set only for Redirect Domains");
  if (d.redirects_to?.includes(d.name)) problem(["redirects_to"], "must not name the Domain itself");
  if (d.magento_version !== undefined && d.platform !== "magento")
    problem(["magento_version"], "is set only for magento Domains");
  if (d.platform !== P1) {
    for (const f of P1_DOMAIN_FIELDS) if (d[f] !== undefined) problem([f], `is set only for ${P1} Domains`);
    if (d.theme?.cost !== undefined) problem(["theme", "cost"], `is set only for ${P1} Domains`);
  }
  if (d.administrative_area_level_1 !== undefined && d.country_code === undefined) {
    problem(["administrative_area_level_1"], "needs country_code");
  }
  if (d.city !== undefined && (d.country_code === undefined || d.administrative_area_level_1 === undefined)) {
    problem(["city"], "needs country_code and administrative_area_level_1");
  }
  // Every Domain is in a cluster, of one when alone; whether members agree is a cross-record rule.
  if (!d.cluster_domains.includes(d.name))
    problem(["cluster_domains"], `must list the Domain itself (${d.name})`);
  if (!d.cluster_domains.includes(d.cluster_best_ranked))
    problem(["cluster_best_ranked"], "is not one of cluster_domains");
  const notBefore = (later: keyof DomainRecord, earlier: keyof DomainRecord) => {
    const a = d[later];
    const b = d[earlier];
    if (typeof a === "string" && typeof b === "string" && a < b) problem([later], `is before ${earlier}`);
  };
  notBefore("last_updated_at", "created_at");
  notBefore("inactive_at", "created_at");
  const ordered = (path: string[], lo: number | undefined, hi: number | undefined, what: string) => {
    if (lo !== undefined && hi !== undefined && lo > hi) problem(path, what);
  };
  ordered(["min_price"], d.min_price, d.max_price, "is greater than max_price");
  ordered(["min_price_usd"], d.min_price_usd, d.max_price_usd, "is greater than max_price_usd");
  ordered(
    ["min_weight"],
    d.min_weight,
    d.avg_weight ?? d.max_weight,
    "is greater than avg_weight or max_weight",
  );
  ordered(["avg_weight"], d.avg_weight, d.max_weight, "is greater than max_weight");
  ordered(
    ["product_images_created_30"],
    d.product_images_created_30,
    d.product_images_created_90,
    "is greater than product_images_created_90",
  );
  ordered(
    ["product_images_created_90"],
    d.product_images_created_90,
    d.product_images_created_365,
    "is greater than product_images_created_365",
  );
  const seen = new Set<string>();
  d.technologies?.forEach((t, i) => {
    if (seen.has(t.name)) problem(["technologies", i, "name"], `lists ${t.name} twice`);
    seen.add(t.name);
  });
  const apps = new Set<string>();
  d.apps?.forEach((a, i) => {
    if (apps.has(a.id)) problem(["apps", i, "id"], `lists App ${a.id} twice`);
    apps.add(a.id);
    if (a.platform !== d.platform)
      problem(["apps", i, "platform"], `is ${a.platform}, not the Domain's platform ${d.platform}`);
    if (a.removed_at !== undefined && toEpochMs(a.removed_at) < toEpochMs(a.installed_at)) {
      problem(["apps", i, "removed_at"], "is before installed_at");
    }
  });
}

// ------------------------------------------------------------- reviews.jsonl

export const ReviewRecord = z.strictObject({
  updated_at: timestamp,
  body: z.string(),
  merchant_name: z.string(),
  rating: z.int().min(1, "must be 1..5").max(5, "must be 1..5"),
  app: z.strictObject({ id: nonBlank, name: z.string(), app_store_url: url, vendor_name: z.string() }),
  domains: z.array(
    z.strictObject({
      platform_domain: dnsName.optional(),
      name: dnsName,
      platform_rank: z.int().min(1).optional(),
    }),
  ),
});
export type ReviewRecord = z.infer<typeof ReviewRecord>;
