import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { P1 as P1_EXPORT, PLATFORMS as PLATFORM_SET } from "../../src/dataset/platforms.ts";

// The rules of docs/dataset.md, checked directly on generated files. These checks are written
// independently of the loader on purpose: two readings of the same document have to agree.

const P1 = "shopify";
const PLATFORMS = new Set(
  readFileSync(new URL("../../src/dataset/platforms.txt", import.meta.url), "utf8")
    .trim()
    .split("\n"),
);
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const URL_RE = /^https?:\/\/[^\s/]+\.[^\s/]+(\/\S*)?$/;
const DNS = /^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z0-9-]{2,}$/;
const COUNTRY = /^[A-Z]{2}$/;
const FEATURES = new Set(
  "Brand Advocate Page|Brands Page|Contact Page|Financing Page|Free Returns|Gift Messasging|Has Android App|Has iOS App|International Shipping|Public Company|Returns Page|Shopify POS|Signature Required|Store Locator Page|Storefront API|Tracking Page|Tracking or Returns|UPS Access Point|Warranty Page|Wholesale/Retailers Page".split(
    "|",
  ),
);
const NETWORKS = ["TikTok", "Instagram", "Pinterest", "YouTube"];
const TAGS = new Set([
  "Dropshipper",
  "Print on Demand",
  ...NETWORKS.flatMap((n) => [`Trending on ${n}`, `Dropping on ${n}`]),
]);
const CONTACT_TYPES =
  "email phone facebook facebook_group instagram twitter tiktok youtube pinterest linkedin snapchat yelp".split(
    " ",
  );
const FOLLOWER_TYPES = new Set(["facebook", "instagram", "tiktok", "pinterest"]);
const DOMAIN_STATES = ["Active", "Inactive", "Password Protected", "Redirect"];
const P1_DOMAIN_FIELDS = [
  "localizations",
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
];
/** The currency each generated country's stores price in. */
// biome-ignore format: a table
const CURRENCY_OF: Record<string, string> = {
  US: "USD", CA: "CAD", GB: "GBP", AU: "AUD", NZ: "NZD", DE: "EUR", FR: "EUR", NL: "EUR", BE: "EUR", IT: "EUR",
  ES: "EUR", PT: "EUR", IE: "EUR", AT: "EUR", FI: "EUR", SE: "SEK", NO: "NOK", DK: "DKK", CH: "CHF", PL: "PLN",
  CZ: "CZK", JP: "JPY", KR: "KRW", HK: "HKD", SG: "SGD", IN: "INR", AE: "AED", IL: "ILS", TR: "TRY", BR: "BRL",
  MX: "MXN", ZA: "ZAR",
};

// Every field of docs/dataset.md, by object.
const KEYS = {
  app: "id token platform name description description_long app_store_url icon_url average_rating review_count categories state created_at removed_at installs instp installs_30d installs_90d reviews_30d reviews_90d installs_time_series integrates_with plans free_trial_duration vendor_name vendor_email vendor_url vendor_website vendor_address vendor_country_code",
  plan: "name monthly_cost monthly_cost_cents",
  seriesPoint: "date installs",
  domain: `name platform_domain tld1 state inactive_at redirects_to aliases alternates localizations locs cluster_domains
    cluster_best_ranked platform plan last_platform last_platform_change_at last_plan last_plan_change_at created_at
    last_updated_at magento_version merchant_name title description keywords icon og_image country_code currency_code
    language_code administrative_area_level_1 city location region subregion postal_code street_address latitude
    longitude employee_count rank rank_percentile platform_rank platform_rank_percentile cc_rank cc_centrality
    estimated_page_views estimated_visits estimated_sales estimated_sales_yearly monthly_app_spend product_count avg_price
    avg_price_usd avg_price_formatted avg_weight max_weight min_weight shipping_carriers sales_channels categories
    features tags variant_count vendor_count min_price max_price min_price_usd max_price_usd max_product_published_at
    most_recently_published_product product_images_created_30 product_images_created_90 product_images_created_365
    collections ships_to_countries contact_page brands_page retailer_page returns_page tracking_page warranty_page
    financing_page store_locator_page career_page sizing_page about_us contact_info technologies theme apps trustpilot yotpo`,
  contact: "type value source description followers followers_30d followers_90d posts likes",
  technology: "name description vendor_url icon_url installed_at installs categories",
  theme: "name style vendor version cost",
  domainApp: "id platform token name installed_at removed_at",
  product: "title handle product_id published_at",
  reviewSite: "review_count avg_rating",
  review: "updated_at body merchant_name rating app domains",
  reviewApp: "id name app_store_url vendor_name",
  reviewDomain: "platform_domain name platform_rank",
} as const;
type Kind = keyof typeof KEYS;
const keysOf = (kind: Kind) => KEYS[kind].trim().split(/\s+/);

type Rec = Record<string, unknown>;
interface App extends Rec {
  id: string;
  token: string;
  platform: string;
  state: string;
  created_at: string;
  review_count: number;
  installs?: number;
  instp?: number;
  removed_at?: string;
  reviews_30d?: number;
  reviews_90d?: number;
  installs_time_series?: { date: string; installs: number }[];
  plans: { name: string; monthly_cost: string; monthly_cost_cents?: number }[];
  name: string;
  app_store_url: string;
  vendor_name: string;
}
interface DomainApp {
  id: string;
  platform: string;
  token: string;
  installed_at: string;
  removed_at?: string;
}
interface Technology extends Rec {
  name: string;
  installs: number;
}
interface Domain extends Rec {
  name: string;
  platform_domain?: string;
  tld1: string;
  state: string;
  platform: string;
  rank: number;
  rank_percentile: number;
  platform_rank: number;
  platform_rank_percentile: number;
  redirects_to?: string[];
  apps?: DomainApp[];
  technologies?: Technology[];
  contact_info?: Rec[];
  features?: string[];
  tags?: string[];
  theme?: Rec;
}
interface Review extends Rec {
  rating: number;
  updated_at: string;
  app: { id: string; name: string; app_store_url: string; vendor_name: string };
  domains: { platform_domain?: string; name: string; platform_rank?: number }[];
}
interface Dataset {
  apps: App[];
  domains: Domain[];
  reviews: Review[];
}

function readLines<T>(dir: string, file: string): T[] {
  const plain = join(dir, file);
  const text = existsSync(plain)
    ? readFileSync(plain, "utf8")
    : gunzipSync(readFileSync(`${plain}.gz`)).toString("utf8");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);
}

function readDataset(dir: string): Dataset {
  return {
    apps: readLines<App>(dir, "apps.jsonl"),
    domains: readLines<Domain>(dir, "domains.jsonl"),
    reviews: readLines<Review>(dir, "reviews.jsonl"),
  };
}

const scratch = mkdtempSync(join(tmpdir(), "storegraph-generate-"));
let runs = 0;
const nextDir = () => join(scratch, `run${++runs}`);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Collects problems as `file:line: field: problem`, like the loader, so that a failure says what broke. */
class Problems {
  readonly list: string[] = [];
  add(where: string, message: string): void {
    if (this.list.length < 40) this.list.push(`${where}: ${message}`);
  }
  check(ok: boolean, where: string, message: string): void {
    if (!ok) this.add(where, message);
  }
}

function findNulls(value: unknown, path: string, p: Problems): void {
  if (value === null) p.add(path, "is null");
  else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) findNulls(value[i], `${path}[${i}]`, p);
  } else if (typeof value === "object") {
    for (const [k, v] of Object.entries(value)) findNulls(v, `${path}.${k}`, p);
  }
}

function checkKeys(obj: object, kind: Kind, where: string, p: Problems): void {
  const allowed = new Set(keysOf(kind));
  for (const k of Object.keys(obj)) p.check(allowed.has(k), `${where}.${k}`, `is not a ${kind} field`);
}

const ms = (t: string) => Date.parse(LOCAL_TIME.test(t) ? `${t}Z` : DATE.test(t) ? `${t}T00:00:00Z` : t);
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;

function checkApps(ds: Dataset, p: Problems): void {
  const ids = new Set<string>();
  const tokens = new Set<string>();
  ds.apps.forEach((a, i) => {
    const at = `apps.jsonl:${i + 1}`;
    findNulls(a, at, p);
    checkKeys(a, "app", at, p);
    p.check(!ids.has(a.id), `${at}: id`, "repeats");
    ids.add(a.id);
    p.check(
      !tokens.has(`${a.platform}.${a.token}`) && /^[^\s/]+$/.test(a.token),
      `${at}: token`,
      "repeats or is malformed",
    );
    tokens.add(`${a.platform}.${a.token}`);
    p.check(PLATFORMS.has(a.platform), `${at}: platform`, "is unknown");
    p.check(
      a.name.trim() !== "" && URL_RE.test(a.app_store_url) && URL_RE.test(String(a.icon_url)),
      at,
      "name or urls",
    );
    const rating = String(a.average_rating);
    p.check(/^\d(\.\d+)?$/.test(rating) && Number(rating) <= 5, `${at}: average_rating`, rating);
    p.check(isCount(a.review_count), `${at}: review_count`, "not a count");
    p.check(LOCAL_TIME.test(a.created_at), `${at}: created_at`, a.created_at);
    p.check(a.state === "Active" || a.state === "Inactive", `${at}: state`, a.state);
    if (a.removed_at !== undefined) {
      p.check(a.state === "Inactive", `${at}: removed_at`, "on an Active App");
      p.check(
        TIMESTAMP.test(a.removed_at) && ms(a.removed_at) >= ms(a.created_at),
        `${at}: removed_at`,
        "bad or early",
      );
    }
    p.check((a.reviews_30d ?? 0) <= (a.reviews_90d ?? a.review_count), `${at}: reviews_30d`, "> reviews_90d");
    p.check((a.reviews_90d ?? 0) <= a.review_count, `${at}: reviews_90d`, "> review_count");
    const series = a.installs_time_series ?? [];
    series.forEach((pt, k) => {
      p.check(DATE.test(pt.date) && isCount(pt.installs), `${at}: installs_time_series[${k}]`, "bad point");
      if (k > 0) p.check(pt.date > series[k - 1].date, `${at}: installs_time_series[${k}]`, "not increasing");
    });
    for (const plan of a.plans) {
      const cents = plan.monthly_cost_cents;
      p.check(
        cents === undefined ? /free/i.test(plan.monthly_cost) : isCount(cents) && cents > 0,
        `${at}: plans`,
        plan.monthly_cost,
      );
    }
    if (a.free_trial_duration !== undefined)
      p.check(
        /^\d+h\d+m\d+s$/.test(String(a.free_trial_duration)),
        `${at}: free_trial_duration`,
        "malformed",
      );
    if (a.platform !== P1)
      for (const f of ["integrates_with", "vendor_url", "vendor_address"])
        p.check(a[f] === undefined, `${at}: ${f}`, "on a non-P1 App");
    if (a.vendor_country_code !== undefined)
      p.check(COUNTRY.test(String(a.vendor_country_code)), `${at}: vendor_country_code`, "malformed");
  });
}

function checkDomain(d: Domain, at: string, appsById: Map<string, App>, p: Problems): void {
  findNulls(d, at, p);
  checkKeys(d, "domain", at, p);
  p.check(DNS.test(d.name), `${at}: name`, d.name);
  p.check(d.name === d.tld1 || d.name.endsWith(`.${d.tld1}`), `${at}: tld1`, d.tld1);
  p.check(DOMAIN_STATES.includes(d.state) && PLATFORMS.has(d.platform), at, "state or platform");
  p.check(
    (d.inactive_at !== undefined) <= (d.state === "Inactive"),
    `${at}: inactive_at`,
    "on a non-Inactive Domain",
  );
  const redirects = d.redirects_to;
  p.check(
    (redirects !== undefined) === (d.state === "Redirect"),
    `${at}: redirects_to`,
    `with state ${d.state}`,
  );
  if (redirects)
    p.check(redirects.length > 0 && !redirects.includes(d.name), `${at}: redirects_to`, "empty or self");
  if (d.platform !== P1) {
    for (const f of P1_DOMAIN_FIELDS) p.check(d[f] === undefined, `${at}: ${f}`, "on a non-P1 Domain");
    p.check(d.theme?.cost === undefined, `${at}: theme.cost`, "on a non-P1 Domain");
    p.check(!d.features?.includes("Shopify POS"), `${at}: features`, "Shopify POS on a non-P1 Domain");
  }
  p.check(d.magento_version === undefined || d.platform === "magento", `${at}: magento_version`, d.platform);
  p.check(DATE.test(String(d.created_at)), `${at}: created_at`, "not a date");
  for (const f of ["last_updated_at", "inactive_at"])
    if (d[f] !== undefined) p.check(String(d[f]) >= String(d.created_at), `${at}: ${f}`, "before created_at");
  if (d.administrative_area_level_1 !== undefined)
    p.check(d.country_code !== undefined, `${at}: admin area`, "without country");
  if (d.city !== undefined)
    p.check(d.administrative_area_level_1 !== undefined, `${at}: city`, "without area");
  if (d.country_code !== undefined && d.currency_code !== undefined)
    p.check(
      CURRENCY_OF[String(d.country_code)] === d.currency_code,
      `${at}: currency_code`,
      `${d.currency_code} in ${d.country_code}`,
    );
  const ordered = (lo: string, hi: string) => {
    if (d[lo] !== undefined && d[hi] !== undefined)
      p.check(Number(d[lo]) <= Number(d[hi]), `${at}: ${lo}`, `> ${hi}`);
  };
  ordered("min_weight", "avg_weight");
  ordered("avg_weight", "max_weight");
  ordered("min_price", "max_price");
  ordered("min_price_usd", "max_price_usd");
  ordered("product_images_created_30", "product_images_created_90");
  ordered("product_images_created_90", "product_images_created_365");
  // Every Domain is in a cluster, of one when alone, listed with the Domain itself.
  const cluster = d.cluster_domains as string[] | undefined;
  p.check(Array.isArray(cluster) && cluster.includes(d.name), `${at}: cluster_domains`, "without the Domain");
  p.check(new Set(cluster).size === cluster?.length, `${at}: cluster_domains`, "repeat a name");
  p.check(
    cluster?.includes(String(d.cluster_best_ranked)) === true,
    `${at}: cluster_best_ranked`,
    "not a member",
  );
  for (const f of d.features ?? []) p.check(FEATURES.has(f), `${at}: features`, f);
  for (const t of d.tags ?? []) p.check(TAGS.has(t), `${at}: tags`, t);
  d.contact_info?.forEach((c, k) => {
    checkKeys(c, "contact", `${at}: contact_info[${k}]`, p);
    p.check(
      CONTACT_TYPES.includes(String(c.type)) && String(c.source).startsWith("/"),
      `${at}: contact_info[${k}]`,
      "type/source",
    );
    if (!FOLLOWER_TYPES.has(String(c.type)))
      for (const f of ["followers", "followers_30d", "followers_90d"])
        p.check(c[f] === undefined, `${at}: contact_info[${k}].${f}`, `on ${c.type}`);
  });
  const seenApps = new Set<string>();
  d.apps?.forEach((entry, k) => {
    const where = `${at}: apps[${k}]`;
    checkKeys(entry, "domainApp", where, p);
    const app = appsById.get(entry.id);
    p.check(
      app !== undefined && app.platform === entry.platform && app.token === entry.token,
      where,
      "unknown App",
    );
    p.check(entry.platform === d.platform, where, "App of another platform");
    p.check(!seenApps.has(entry.id), where, "listed twice");
    seenApps.add(entry.id);
    p.check(TIMESTAMP.test(entry.installed_at), where, "installed_at");
    if (entry.removed_at !== undefined)
      p.check(ms(entry.removed_at) >= ms(entry.installed_at), where, "removed before installed");
  });
  const names = (d.technologies ?? []).map((t) => t.name);
  p.check(new Set(names).size === names.length, `${at}: technologies`, "repeat a name");
}

function checkDomains(ds: Dataset, p: Problems): void {
  const appsById = new Map(ds.apps.map((a) => [a.id, a]));
  const names = new Set(ds.domains.map((d) => d.name));
  p.check(names.size === ds.domains.length, "domains.jsonl", "names repeat");
  const activeInstalls = new Map<string, number>();
  const techs = new Map<string, { shown: string; count: number }>();
  ds.domains.forEach((d, i) => {
    const at = `domains.jsonl:${i + 1}`;
    checkDomain(d, at, appsById, p);
    if (d.platform_domain !== undefined)
      p.check(
        DNS.test(d.platform_domain) && (d.platform_domain === d.name || !names.has(d.platform_domain)),
        at,
        "platform_domain",
      );
    for (const entry of d.apps ?? [])
      if (d.state === "Active" && entry.removed_at === undefined)
        activeInstalls.set(entry.id, (activeInstalls.get(entry.id) ?? 0) + 1);
    for (const t of d.technologies ?? []) {
      const { installed_at, ...shown } = t;
      p.check(TIMESTAMP.test(String(installed_at)), `${at}: technologies`, "installed_at");
      const seen = techs.get(t.name) ?? { shown: JSON.stringify(shown), count: 0 };
      p.check(
        seen.shown === JSON.stringify(shown),
        `${at}: technologies.${t.name}`,
        "differs from other Domains",
      );
      seen.count++;
      techs.set(t.name, seen);
    }
  });
  for (const [name, { shown, count }] of techs)
    p.check(
      (JSON.parse(shown) as Technology).installs === count,
      `technology ${name}`,
      `installs ≠ ${count} listing Domains`,
    );
  const activeByPlatform = new Map<string, number>();
  for (const d of ds.domains)
    if (d.state === "Active") activeByPlatform.set(d.platform, (activeByPlatform.get(d.platform) ?? 0) + 1);
  ds.apps.forEach((a, i) => {
    if (a.installs === undefined) return;
    p.check(
      a.installs === (activeInstalls.get(a.id) ?? 0),
      `apps.jsonl:${i + 1}: installs`,
      `${a.installs} ≠ ${activeInstalls.get(a.id) ?? 0}`,
    );
    if (a.instp !== undefined) {
      const expected = a.installs / (activeByPlatform.get(a.platform) ?? 1);
      p.check(
        a.instp >= 0 && a.instp <= 1 && Math.abs(a.instp - expected) < 1e-5,
        `apps.jsonl:${i + 1}: instp`,
        String(a.instp),
      );
    }
  });
  checkRanks(ds.domains, p);
  checkClusters(ds.domains, p);
}

/** Members of a cluster in the dataset agree on it, and its best-ranked one ranks best of them. */
function checkClusters(domains: Domain[], p: Problems): void {
  const byName = new Map(domains.map((d) => [d.name, d]));
  for (const d of domains) {
    const members = [...((d.cluster_domains as string[] | undefined) ?? [])].sort();
    const present = members.flatMap((m) => byName.get(m) ?? []);
    for (const m of present) {
      p.check(
        JSON.stringify([...((m.cluster_domains as string[]) ?? [])].sort()) === JSON.stringify(members) &&
          m.cluster_best_ranked === d.cluster_best_ranked,
        `${d.name}: cluster`,
        `${m.name} disagrees`,
      );
    }
    const best = present.reduce<Domain | undefined>((a, b) => (a && a.rank < b.rank ? a : b), undefined);
    p.check(best?.name === d.cluster_best_ranked, `${d.name}: cluster_best_ranked`, `not ${best?.name}`);
  }
}

function checkRanks(domains: Domain[], p: Problems): void {
  const byRank = [...domains].sort((a, b) => a.rank - b.rank);
  byRank.forEach((d, k) => {
    p.check(d.rank === k + 1, `rank ${d.rank}`, "ranks are not a permutation of 1..N");
    p.check(
      d.rank_percentile >= 0 && d.rank_percentile <= 100,
      `${d.name}: rank_percentile`,
      "out of 0..100",
    );
    if (k > 0)
      p.check(
        d.rank_percentile <= byRank[k - 1].rank_percentile,
        `${d.name}: rank_percentile`,
        "not monotone",
      );
  });
  if (byRank.length > 0) p.check(byRank[0].rank_percentile === 100, "rank 1", "percentile is not 100");
  const next = new Map<string, Domain>();
  for (const d of byRank) {
    const previous = next.get(d.platform);
    p.check(
      d.platform_rank === (previous?.platform_rank ?? 0) + 1,
      `${d.name}: platform_rank`,
      "disagrees with rank order",
    );
    if (previous)
      p.check(
        d.platform_rank_percentile <= previous.platform_rank_percentile,
        `${d.name}`,
        "platform percentile not monotone",
      );
    p.check(
      d.platform_rank_percentile >= 0 && d.platform_rank_percentile <= 100,
      d.name,
      "platform percentile out of range",
    );
    next.set(d.platform, d);
  }
}

function checkReviews(ds: Dataset, p: Problems): void {
  const appsById = new Map(ds.apps.map((a) => [a.id, a]));
  const domainsByName = new Map(ds.domains.map((d) => [d.name, d]));
  const lines = new Map<string, number>();
  ds.reviews.forEach((r, i) => {
    const at = `reviews.jsonl:${i + 1}`;
    findNulls(r, at, p);
    checkKeys(r, "review", at, p);
    checkKeys(r.app, "reviewApp", `${at}: app`, p);
    const app = appsById.get(r.app.id);
    p.check(app?.platform === P1, `${at}: app.id`, "is not a P1 App");
    if (app) {
      const same =
        r.app.name === app.name &&
        r.app.app_store_url === app.app_store_url &&
        r.app.vendor_name === app.vendor_name;
      p.check(same, `${at}: app`, "differs from apps.jsonl");
    }
    lines.set(r.app.id, (lines.get(r.app.id) ?? 0) + 1);
    p.check(
      Number.isInteger(r.rating) && r.rating >= 1 && r.rating <= 5 && TIMESTAMP.test(r.updated_at),
      at,
      "rating/updated_at",
    );
    r.domains.forEach((e, k) => {
      checkKeys(e, "reviewDomain", `${at}: domains[${k}]`, p);
      const d = domainsByName.get(e.name);
      if (d)
        p.check(
          e.platform_domain === d.platform_domain && e.platform_rank === d.platform_rank,
          `${at}: domains[${k}]`,
          "disagrees with the Domain",
        );
    });
  });
  ds.apps.forEach((a, i) => {
    const n = lines.get(a.id) ?? 0;
    p.check(a.review_count >= n, `apps.jsonl:${i + 1}: review_count`, `< ${n} reviews`);
    if (a.platform === P1)
      p.check(a.review_count - n <= 5, `apps.jsonl:${i + 1}: review_count`, `far above ${n} reviews`);
  });
}

function problemsOf(ds: Dataset): string[] {
  const p = new Problems();
  checkApps(ds, p);
  checkDomains(ds, p);
  checkReviews(ds, p);
  return p.list;
}

describe("platforms.txt", () => {
  it("is a sorted list of ~300 lowercase identifiers without duplicates or blank lines", () => {
    const lines = readFileSync(new URL("../../src/dataset/platforms.txt", import.meta.url), "utf8").split(
      "\n",
    );
    expect(lines.pop()).toBe("");
    expect(lines).toEqual([...new Set(lines)].sort());
    expect(lines.filter((l) => !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(l))).toEqual([]);
    expect(lines.length).toBeGreaterThanOrEqual(250);
    const wellKnown =
      "shopify woocommerce bigcommerce magento wix squarespace webflow prestashop opencart ecwid shopware salesforce-commerce-cloud shift4shop volusion custom";
    for (const p of wellKnown.split(" ")) expect(lines).toContain(p);
    expect(PLATFORM_SET).toEqual(new Set(lines));
    expect(P1_EXPORT).toBe("shopify");
  });
});

describe("generateDataset", () => {
  it("follows every rule of docs/dataset.md, whatever the seed and size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        fc.integer({ min: 50, max: 400 }),
        fc.integer({ min: 10, max: 60 }),
        async (seed, domains, apps) => {
          const dir = nextDir();
          const result = await generateDataset({ domains, apps, seed, outDir: dir });
          const ds = readDataset(dir);
          expect({ domains: ds.domains.length, apps: ds.apps.length, reviews: ds.reviews.length }).toEqual({
            domains: result.domains,
            apps: result.apps,
            reviews: result.reviews,
          });
          expect(ds.domains.length).toBe(domains);
          expect(problemsOf(ds)).toEqual([]);
        },
      ),
      { numRuns: 20 },
    );
  });

  it("handles the smallest datasets too (one Domain, no Apps asked for)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer(),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 3 }),
        async (seed, domains, apps) => {
          const dir = nextDir();
          await generateDataset({ domains, apps, seed, outDir: dir });
          const ds = readDataset(dir);
          // The showcase records (3 Domains, 1 App) are there whatever the size.
          expect([ds.domains.length, ds.apps.length]).toEqual([Math.max(domains, 3), Math.max(apps, 1)]);
          expect(problemsOf(ds)).toEqual([]);
        },
      ),
      { numRuns: 15 },
    );
  });

  it("always holds the showcase records the README's examples name, whatever the seed and size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer(),
        fc.integer({ min: 0, max: 120 }),
        fc.integer({ min: 0, max: 20 }),
        async (seed, domains, apps) => {
          const dir = nextDir();
          await generateDataset({ domains, apps, seed, outDir: dir });
          const ds = readDataset(dir);
          expect(problemsOf(ds)).toEqual([]);
          const klaviyo = ds.apps.find((a) => a.platform === P1 && a.token === "klaviyo");
          expect(klaviyo).toMatchObject({
            state: "Active",
            categories: expect.arrayContaining(["Marketing"]),
          });
          expect(`${klaviyo?.name} ${klaviyo?.description}`).toMatch(/\bemail\b/i);
          const reviews = ds.reviews.filter((r) => r.app.id === klaviyo?.id);
          expect(reviews.length).toBeGreaterThanOrEqual(10);
          const byName = new Map(ds.domains.map((d) => [d.name, d]));
          const shop = byName.get("shop.example.com");
          expect(shop).toMatchObject({
            state: "Redirect",
            redirects_to: ["example.com"],
            country_code: "US",
          });
          expect(byName.get("example.com")).toMatchObject({ state: "Active", country_code: "US" });
          expect(byName.get("de.example.com")).toMatchObject({ state: "Active", country_code: "DE" });
          for (const name of ["shop.example.com", "example.com", "de.example.com"]) {
            const d = byName.get(name) as Domain;
            expect(d.platform).toBe(P1);
            expect(d.apps?.some((a) => a.id === klaviyo?.id && a.removed_at === undefined)).toBe(true);
            expect(d.technologies?.map((t) => t.name)).toContain("Klaviyo");
            expect(d.features).toContain("Free Returns");
            expect([...(d.cluster_domains as string[])].sort()).toEqual([
              "de.example.com",
              "example.com",
              "shop.example.com",
            ]);
            // Each reviewed Klaviyo, so its App reviews are never empty.
            expect(reviews.some((r) => r.domains.some((e) => e.name === name))).toBe(true);
          }
          expect(byName.has("nope.example")).toBe(false);
        },
      ),
      { numRuns: 12 },
    );
  });

  it("is deterministic: the same options give the same bytes, another seed other bytes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 50, max: 300 }),
        async (seed, domains) => {
          const [a, b, c] = [nextDir(), nextDir(), nextDir()];
          await generateDataset({ domains, apps: 30, seed, outDir: a });
          await generateDataset({ domains, apps: 30, seed, outDir: b });
          await generateDataset({ domains, apps: 30, seed: seed + 1, outDir: c });
          for (const file of ["apps.jsonl", "domains.jsonl", "reviews.jsonl"]) {
            expect(readFileSync(join(b, file)).equals(readFileSync(join(a, file))), file).toBe(true);
          }
          expect(readFileSync(join(c, "domains.jsonl")).equals(readFileSync(join(a, "domains.jsonl")))).toBe(
            false,
          );
          expect(readFileSync(join(c, "apps.jsonl")).equals(readFileSync(join(a, "apps.jsonl")))).toBe(false);
        },
      ),
      { numRuns: 5 },
    );
  });

  it("writes gzip files holding exactly the plain output", async () => {
    const [plain, zipped] = [nextDir(), nextDir()];
    await generateDataset({ domains: 300, apps: 40, seed: 9, outDir: plain });
    const result = await generateDataset({ domains: 300, apps: 40, seed: 9, outDir: zipped, gzip: true });
    expect(result.files.every((f) => f.endsWith(".jsonl.gz"))).toBe(true);
    for (const file of ["apps.jsonl", "domains.jsonl", "reviews.jsonl"]) {
      expect(
        gunzipSync(readFileSync(join(zipped, `${file}.gz`))).equals(readFileSync(join(plain, file))),
      ).toBe(true);
    }
  });

  it("reports progress up to done === total", async () => {
    const calls: [number, number][] = [];
    await generateDataset({
      domains: 200,
      apps: 20,
      seed: 1,
      outDir: nextDir(),
      onProgress: (d, t) => calls.push([d, t]),
    });
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.at(-1)?.[0]).toBe(calls.at(-1)?.[1]);
    expect(calls.every(([d], k) => k === 0 || d >= calls[k - 1][0])).toBe(true);
  });

  it("rejects sizes that are not non-negative integers", async () => {
    await expect(generateDataset({ domains: 1.5, apps: 1, seed: 1, outDir: nextDir() })).rejects.toThrow(
      /domains/,
    );
    await expect(generateDataset({ domains: 10, apps: -1, seed: 1, outDir: nextDir() })).rejects.toThrow(
      /apps/,
    );
  });

  describe("a 2,000-Domain dataset", () => {
    let ds: Dataset;
    beforeAll(async () => {
      const dir = nextDir();
      await generateDataset({ domains: 2000, apps: 200, seed: 2026, outDir: dir });
      ds = readDataset(dir);
    });

    it("follows every rule", () => {
      expect(problemsOf(ds)).toEqual([]);
    });

    it("contains every field of docs/dataset.md at least once", () => {
      const seen = new Map<Kind, Set<string>>();
      const note = (kind: Kind, obj: object | undefined) => {
        if (!obj) return;
        const set = seen.get(kind) ?? new Set<string>();
        for (const k of Object.keys(obj)) set.add(k);
        seen.set(kind, set);
      };
      for (const a of ds.apps) {
        note("app", a);
        for (const plan of a.plans) note("plan", plan);
        for (const pt of a.installs_time_series ?? []) note("seriesPoint", pt);
      }
      for (const d of ds.domains) {
        note("domain", d);
        for (const c of d.contact_info ?? []) note("contact", c);
        for (const t of d.technologies ?? []) note("technology", t);
        for (const entry of d.apps ?? []) note("domainApp", entry);
        note("theme", d.theme);
        note("product", d.most_recently_published_product as object | undefined);
        note("reviewSite", d.trustpilot as object | undefined);
        note("reviewSite", d.yotpo as object | undefined);
      }
      for (const r of ds.reviews) {
        note("review", r);
        note("reviewApp", r.app);
        for (const e of r.domains) note("reviewDomain", e);
      }
      for (const kind of Object.keys(KEYS) as Kind[]) {
        const missing = keysOf(kind).filter((k) => !seen.get(kind)?.has(k));
        expect(missing, `${kind} fields never generated`).toEqual([]);
      }
    });

    it("uses every value of the fixed lists", () => {
      expect(new Set(ds.domains.map((d) => d.state))).toEqual(new Set(DOMAIN_STATES));
      expect(new Set(ds.apps.map((a) => a.state))).toEqual(new Set(["Active", "Inactive"]));
      const types = new Set(ds.domains.flatMap((d) => (d.contact_info ?? []).map((c) => String(c.type))));
      expect(types).toEqual(new Set(CONTACT_TYPES));
      expect(new Set(ds.domains.flatMap((d) => d.tags ?? []))).toEqual(TAGS);
      const keywordForms = new Set(
        ds.domains.filter((d) => d.keywords !== undefined).map((d) => typeof d.keywords),
      );
      expect(keywordForms).toEqual(new Set(["string", "object"]));
    });

    it("looks like the real thing", () => {
      const share = (pred: (d: Domain) => boolean) => ds.domains.filter(pred).length / ds.domains.length;
      expect(share((d) => d.platform === P1)).toBeGreaterThan(0.5);
      expect(share((d) => d.platform === P1)).toBeLessThan(0.7);
      expect(share((d) => d.state === "Active")).toBeGreaterThan(0.78);
      expect(new Set(ds.domains.map((d) => d.platform)).size).toBeGreaterThan(10);
      expect(share((d) => d.country_code === "US")).toBeGreaterThan(0.3);
      // Traffic falls with rank.
      const visits = (lo: number, hi: number) => {
        const v = ds.domains.filter((d) => d.rank >= lo && d.rank < hi && d.estimated_visits !== undefined);
        return v.reduce((s, d) => s + Number(d.estimated_visits), 0) / v.length;
      };
      expect(visits(1, 100)).toBeGreaterThan(10 * visits(1000, 2000));
      // Installs follow a power law: the top App is on far more stores than the median one.
      const installs = ds.apps.map((a) => a.installs ?? 0).sort((a, b) => b - a);
      expect(installs[0]).toBeGreaterThan(10 * Math.max(1, installs[installs.length >> 1]));
      // Every Domain lists 5–15 technologies; reviews skew to 4–5 stars and mostly name stores of the dataset.
      expect(
        ds.domains.every((d) => (d.technologies?.length ?? 0) >= 5 && (d.technologies?.length ?? 0) <= 15),
      ).toBe(true);
      expect(ds.reviews.filter((r) => r.rating >= 4).length / ds.reviews.length).toBeGreaterThan(0.6);
      const entries = ds.reviews.flatMap((r) => r.domains);
      const names = new Set(ds.domains.map((d) => d.name));
      expect(entries.filter((e) => names.has(e.name)).length / entries.length).toBeGreaterThan(0.5);
      // Redirects mostly point at Domains of the dataset.
      const targets = ds.domains.flatMap((d) => d.redirects_to ?? []);
      expect(targets.filter((t) => names.has(t)).length / targets.length).toBeGreaterThan(0.6);
    });
  });
});
