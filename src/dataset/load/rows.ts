import type { Row, TableKey } from "../../db/tables.ts";
import type { AppRecord, DomainRecord, ReviewRecord } from "../record.ts";
import { PAGE_FIELDS, toEpochMs } from "../record.ts";

/**
 * Bulk-load rows: converters from validated records to the rows of each snapshot table, in the
 * column order of src/db/tables.ts. `json` values are serialized here, on the validation workers,
 * rather than by each writer.
 */

const opt = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
/** JSON text of an optional value. */
export const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
const optTime = (v: string | undefined): number | null => (v === undefined ? null : toEpochMs(v));

/** Lower-cased text that `q` searches; one column so a search is one scan or trigram index. */
export function searchText(parts: (string | undefined)[]): string {
  return parts
    .filter((p): p is string => !!p)
    .join(" \u001f ")
    .toLowerCase();
}

export function appRow(pk: number, a: AppRecord): Row {
  return [
    pk,
    a.id,
    a.platform,
    a.token,
    a.name,
    a.description,
    opt(a.description_long),
    a.app_store_url,
    a.icon_url,
    a.average_rating,
    Number(a.average_rating),
    a.review_count,
    a.state,
    toEpochMs(a.created_at),
    optTime(a.removed_at),
    opt(a.installs),
    opt(a.instp),
    opt(a.installs_30d),
    opt(a.installs_90d),
    opt(a.reviews_30d),
    opt(a.reviews_90d),
    opt(a.free_trial_duration),
    a.vendor_name,
    opt(a.vendor_email),
    opt(a.vendor_url),
    opt(a.vendor_website),
    opt(a.vendor_address),
    opt(a.vendor_country_code),
    searchText([a.name, a.description]),
  ];
}

/** The child rows of one App, by table. */
export function appChildRows(pk: number, a: AppRecord): [TableKey, Row[]][] {
  return [
    ["appCategory", a.categories.map((c) => [pk, c])],
    ["appPlan", a.plans.map((p, i) => [pk, i, p.name, p.monthly_cost, opt(p.monthly_cost_cents)])],
    ["appIntegration", (a.integrates_with ?? []).map((v, i) => [pk, i, v])],
    ["appInstallsPoint", (a.installs_time_series ?? []).map((p) => [pk, toEpochMs(p.date), p.installs])],
  ];
}

const DAY_MS = 86_400_000;

/** The Friday on or before a date (weeks are grouped on Fridays, docs/api.md 4.7 f:cratyyyymmdd). */
export function fridayOnOrBefore(epochMs: number): number {
  const day = Math.floor(epochMs / DAY_MS);
  // 1970-01-01 was a Thursday: day 1 is a Friday.
  const sinceFriday = (((day - 1) % 7) + 7) % 7;
  return (day - sinceFriday) * DAY_MS;
}

export function domainRow(pk: number, d: DomainRecord): Row {
  const createdAt = toEpochMs(d.created_at);
  return [
    pk,
    d.name,
    opt(d.platform_domain),
    d.tld1,
    d.state,
    optTime(d.inactive_at),
    json(d.redirects_to),
    json(d.aliases),
    json(d.alternates),
    json(d.localizations),
    json(d.locs),
    json(d.cluster_domains),
    opt(d.cluster_best_ranked),
    d.platform,
    opt(d.plan),
    opt(d.last_platform),
    optTime(d.last_platform_change_at),
    opt(d.last_plan),
    optTime(d.last_plan_change_at),
    createdAt,
    fridayOnOrBefore(createdAt),
    optTime(d.last_updated_at),
    opt(d.magento_version),
    opt(d.merchant_name),
    opt(d.title),
    opt(d.description),
    json(d.keywords),
    opt(d.icon),
    opt(d.og_image),
    opt(d.country_code),
    opt(d.currency_code),
    opt(d.language_code),
    opt(d.administrative_area_level_1),
    opt(d.city),
    opt(d.location),
    opt(d.region),
    opt(d.subregion),
    opt(d.postal_code),
    opt(d.street_address),
    opt(d.latitude),
    opt(d.longitude),
    opt(d.employee_count),
    d.rank,
    d.rank_percentile,
    d.platform_rank,
    d.platform_rank_percentile,
    opt(d.cc_rank),
    opt(d.cc_centrality),
    opt(d.estimated_page_views),
    opt(d.estimated_visits),
    opt(d.estimated_sales),
    opt(d.estimated_sales_yearly),
    opt(d.monthly_app_spend),
    opt(d.avg_weight),
    opt(d.max_weight),
    opt(d.min_weight),
    opt(d.product_count),
    opt(d.variant_count),
    opt(d.vendor_count),
    opt(d.avg_price),
    opt(d.avg_price_formatted),
    opt(d.avg_price_usd),
    opt(d.min_price),
    opt(d.max_price),
    opt(d.min_price_usd),
    opt(d.max_price_usd),
    optTime(d.max_product_published_at),
    json(d.most_recently_published_product),
    opt(d.product_images_created_30),
    opt(d.product_images_created_90),
    opt(d.product_images_created_365),
    json(d.collections),
    json(d.shipping_carriers),
    ...PAGE_FIELDS.map((f) => opt(d[f])),
    opt(d.theme?.name),
    opt(d.theme?.style),
    opt(d.theme?.vendor),
    opt(d.theme?.version),
    opt(d.theme?.cost),
    opt(d.trustpilot?.review_count),
    opt(d.trustpilot?.avg_rating),
    opt(d.yotpo?.review_count),
    opt(d.yotpo?.avg_rating),
    searchText([d.name, d.title, d.description, d.merchant_name]),
  ];
}

/**
 * The child rows of one Domain. References that only the whole load can resolve are left as
 * names for the ingest to replace: domain_technology.technology_pk holds the technology's name,
 * domain_app.app_pk the App's id.
 */
export function domainChildRows(pk: number, d: DomainRecord): [TableKey, Row[]][] {
  return [
    ["domainCategory", (d.categories ?? []).map((c) => [pk, c])],
    ["domainFeature", (d.features ?? []).map((f) => [pk, f])],
    ["domainTag", (d.tags ?? []).map((t) => [pk, t])],
    ["domainSalesChannel", (d.sales_channels ?? []).map((c) => [pk, c])],
    ["domainShipsTo", (d.ships_to_countries ?? []).map((c) => [pk, c])],
    [
      "domainContact",
      (d.contact_info ?? []).map((c, i) => [
        pk,
        i,
        c.type,
        c.value,
        c.source,
        opt(c.description),
        opt(c.followers),
        opt(c.followers_30d),
        opt(c.followers_90d),
        opt(c.posts),
        opt(c.likes),
      ]),
    ],
    ["domainTechnology", (d.technologies ?? []).map((t) => [pk, t.name, toEpochMs(t.installed_at)])],
    ["domainApp", (d.apps ?? []).map((a) => [pk, a.id, toEpochMs(a.installed_at), optTime(a.removed_at)])],
  ];
}

/**
 * The rows of one review; app_review.app_pk holds the App's id and app_review_domain.domain_pk
 * the Domain's name, for the ingest to resolve.
 */
export function reviewRows(pk: number, r: ReviewRecord): [TableKey, Row[]][] {
  return [
    ["appReview", [[pk, r.app.id, toEpochMs(r.updated_at), r.body, r.merchant_name, r.rating]]],
    [
      "appReviewDomain",
      r.domains.map((d, i) => [pk, i, d.name, opt(d.platform_domain), opt(d.platform_rank), d.name]),
    ],
  ];
}
