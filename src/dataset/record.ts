import { z } from "zod";
import { MODEL } from "../generated/model.ts";
import { textProblem } from "../text.ts";
import { P1, PLATFORMS } from "./platforms.ts";
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
 * live here; rules that span records are in load/ingest.ts.
 *
 * Optional fields are absent when unknown: `null` is rejected (see formatIssue).
 */

// Regexes rather than z.url()/z.iso: a million Domains carry ~20M such values, and these are the
// exact forms docs/dataset.md allows.
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const URL_RE = /^https?:\/\/[^\s/?#]+\.[^\s/?#]+([/?#]\S*)?$/i;
const DNS_NAME = /^(?=.{3,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z0-9-]{2,63}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Parses any of the time forms above to epoch milliseconds (UTC for zone-less forms). */
export function toEpochMs(value: string): number {
  if (DATE.test(value)) return Date.parse(`${value}T00:00:00Z`);
  if (LOCAL_TIME.test(value)) return Date.parse(`${value}Z`);
  return Date.parse(value);
}

const validTime = (re: RegExp, form: string) =>
  z.string().refine((v) => re.test(v) && !Number.isNaN(toEpochMs(v)) && roundTrips(v), {
    message: `must be ${form}`,
  });

// Date.parse accepts 2024-02-30; a calendar date that does not exist is a data error.
function roundTrips(v: string): boolean {
  const ms = toEpochMs(v);
  const d = new Date(ms);
  if (DATE.test(v) || LOCAL_TIME.test(v)) return d.toISOString().slice(0, v.length) === v;
  return true;
}

export const timestamp = validTime(TIMESTAMP, "an RFC 3339 timestamp such as 2024-03-01T12:30:00Z");
const localTime = validTime(LOCAL_TIME, "a local time YYYY-MM-DDTHH:MM:SS (no zone)");
export const date = validTime(DATE, "a date YYYY-MM-DD");
const url = z.string().regex(URL_RE, "must be an absolute http(s) URL");
const dnsName = z.string().regex(DNS_NAME, "must be a lower-case DNS name such as shop.example.com");
const nonBlank = z.string().refine((v) => v.trim().length > 0, { message: "must not be blank" });
const count = z.int().min(0, "must be an integer ≥ 0");
const country = z.string().regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code in upper case, e.g. DE");
const currency = z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code in upper case, e.g. EUR");
const language = z.string().regex(/^([a-z]{2})?$/, 'must be an ISO 639-1 code in lower case, or ""');
const platform = z.string().refine((v) => PLATFORMS.has(v), {
  message: "must be a platform of src/dataset/platforms.txt",
});
const rating = z.number().min(0).max(5);
const percentile = z.number().min(0).max(100);

/** A list without blanks or duplicates. */
const stringSet = (item: z.ZodType<string> = nonBlank) =>
  z.array(item).refine((a) => new Set(a).size === a.length, { message: "must not repeat a value" });

const enumOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: () => `must be one of ${values.join(", ")}` });

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

/**
 * Columns of the Domain model that the loader computes (src/dataset/load/rows.ts) rather than
 * reads from the input field of the same name: the key, the week, the search text, and the theme
 * and review sites, which the input carries as objects.
 */
export const DOMAIN_COMPUTED_COLUMNS: readonly string[] = [
  "pk",
  "created_week",
  "search_text",
  "theme_name",
  "theme_style",
  "theme_vendor",
  "theme_version",
  "theme_cost",
  "trustpilot_review_count",
  "trustpilot_avg_rating",
  "yotpo_review_count",
  "yotpo_avg_rating",
];

/** The input form of a model column's Prisma type. */
const BASE: Record<string, () => z.ZodType> = {
  Int: () => z.int(),
  BigInt: () => z.int(),
  Float: () => z.number(),
  String: () => z.string(),
  Json: () => z.json(),
  DateTime: () => timestamp,
};

/**
 * A column of the Domain model that the record below does not describe (one just added to
 * prisma/schema.prisma) is an optional input field of its column's name and base type, so that
 * it is loaded with no other change; rules of its own are added by describing it here.
 */
export function modelOnlyFields(
  described: Record<string, unknown>,
  model: readonly { field: string; column: string; type: string }[] = MODEL.Domain.fields,
): Record<string, z.ZodType> {
  return Object.fromEntries(
    model
      .filter((f) => !(f.column in described) && !DOMAIN_COMPUTED_COLUMNS.includes(f.column))
      .map((f) => {
        const base = BASE[f.type];
        if (!base)
          throw new Error(`Domain.${f.field}: describe its input in src/dataset/record.ts (type ${f.type})`);
        return [f.column, base().optional()];
      }),
  );
}

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

/**
 * The other records that a record which failed its checks still names, read leniently from its
 * JSON: an App's id; the Apps a Domain counts as installed and the technologies it lists. Its
 * absence makes cross-record counts come out short, and the loader says those follow from it.
 */
export interface NamedKeys {
  app?: string;
  installs?: string[];
  technologies?: string[];
}

export function namedKeys(kind: "apps" | "domains" | "reviews", value: unknown): NamedKeys | undefined {
  if (!isObject(value)) return undefined;
  if (kind === "apps") return typeof value.id === "string" ? { app: value.id } : undefined;
  if (kind !== "domains") return undefined;
  // A state that is no state at all may have meant Active: its installs may be the missing ones.
  const active = value.state === "Active" || !DOMAIN_STATES.includes(value.state as never);
  const installs = active
    ? stringsOf(value.apps, (a) => (a.removed_at === undefined ? a.id : undefined))
    : [];
  const technologies = stringsOf(value.technologies, (t) => t.name);
  return installs.length || technologies.length ? { installs, technologies } : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The distinct strings `pick` finds in the objects of a list (anything else is skipped). */
function stringsOf(list: unknown, pick: (item: Record<string, unknown>) => unknown): string[] {
  if (!Array.isArray(list)) return [];
  const found = new Set<string>();
  for (const item of list) {
    const v = isObject(item) ? pick(item) : undefined;
    if (typeof v === "string") found.add(v);
  }
  return [...found];
}

/**
 * A field's path as the loader names it: `contact_info[0].description`. A key that is not text
 * (textProblem) is written as its JSON string, `alternates["de\u0000DE"]`, so that no message
 * carries NUL or an unpaired surrogate.
 */
export function fieldName(path: readonly PropertyKey[]): string {
  let name = "";
  for (const p of path) {
    if (typeof p === "number") name += `[${p}]`;
    else if (textProblem(String(p))) name += `[${JSON.stringify(String(p))}]`;
    else name += name ? `.${String(p)}` : String(p);
  }
  return name;
}

/**
 * Every string of a parsed line that cannot be stored as text (textProblem: NUL, an unpaired
 * surrogate), object keys included and fields the record ignores too, as `field: problem` in the
 * order of the line. Both databases refuse the line alike, and no message carries such text.
 */
export function textProblems(value: unknown): string[] {
  const problems: string[] = [];
  // Iterative, depth first: a line can nest deeper than the call stack.
  const stack: [unknown, PropertyKey[]][] = [[value, []]];
  while (stack.length) {
    const [v, path] = stack.pop() as [unknown, PropertyKey[]];
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) problems.push(`${fieldName(path) || "(record)"}: ${problem}`);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...path, i]]);
    } else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      for (const k of keys) {
        const problem = textProblem(k);
        if (problem) problems.push(`${fieldName(path) || "(record)"}: key ${JSON.stringify(k)} ${problem}`);
      }
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push([(v as Record<string, unknown>)[keys[i]], [...path, keys[i]]]);
      }
    }
  }
  return problems;
}

/** Formats a zod issue as `field: problem`, the loader's message form (docs/dataset.md). */
export function formatIssue(issue: z.core.$ZodIssue): string {
  const field = fieldName(issue.path);
  let message = issue.message;
  if (issue.code === "invalid_type" && (issue as { input?: unknown }).input === null) {
    message = "is null; leave the field out when the value is unknown";
  } else if (issue.code === "invalid_type" && (issue as { input?: unknown }).input === undefined) {
    message = "is required";
  } else if (issue.code === "unrecognized_keys") {
    return issue.keys
      .map((k) => `${fieldName([...issue.path, k])}: is not a field of this record`)
      .join("\n");
  }
  return `${field || "(record)"}: ${message}`;
}
