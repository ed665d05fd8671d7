import { type Row, TABLES, type Table, type TableKey, type Value } from "../../db/tables.ts";
import type { AppRecord, ReviewRecord } from "../record.ts";
import { DomainRecord } from "../record.ts";
import { toEpochMs } from "../record-fields.ts";
import { DOMAIN_COMPUTED_COLUMNS } from "../record-model.ts";

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

type DomainValue = (d: DomainRecord, pk: number) => Value;

/** The Domain columns the loader computes (DOMAIN_COMPUTED_COLUMNS), each from the record. */
const DOMAIN_COMPUTED: Record<string, DomainValue> = {
  pk: (_d, pk) => pk,
  created_week: (d) => fridayOnOrBefore(toEpochMs(d.created_at)),
  search_text: (d) => searchText([d.name, d.title, d.description, d.merchant_name]),
  theme_name: (d) => opt(d.theme?.name),
  theme_style: (d) => opt(d.theme?.style),
  theme_vendor: (d) => opt(d.theme?.vendor),
  theme_version: (d) => opt(d.theme?.version),
  theme_cost: (d) => opt(d.theme?.cost),
  trustpilot_review_count: (d) => opt(d.trustpilot?.review_count),
  trustpilot_avg_rating: (d) => opt(d.trustpilot?.avg_rating),
  yotpo_review_count: (d) => opt(d.yotpo?.review_count),
  yotpo_avg_rating: (d) => opt(d.yotpo?.avg_rating),
};

/**
 * A table's rows from records: each column, in table order, computed (`computed`) or the record's
 * field of the same name written as its kind. A column neither computed nor a field of the
 * record (`fields`: the record schema's shape) is refused at once, by name.
 */
export function recordRows<R extends object>(
  table: Pick<Table, "name" | "columns" | "kinds">,
  computed: Record<string, (r: R, pk: number) => Value>,
  fields: object,
): (pk: number, r: R) => Row {
  const values = table.columns.map((column, i): ((r: R, pk: number) => Value) => {
    const own = computed[column];
    if (own) return own;
    if (!(column in fields)) throw new Error(`${table.name}.${column}: the record has no field of that name`);
    const field = column as keyof R;
    const kind = table.kinds[i];
    if (kind === "time") return (r) => optTime(r[field] as string | undefined);
    if (kind === "json") return (r) => json(r[field]);
    return (r) => opt(r[field] as Value | undefined);
  });
  return (pk, r) => values.map((value) => value(r, pk));
}

if (Object.keys(DOMAIN_COMPUTED).join() !== DOMAIN_COMPUTED_COLUMNS.join())
  throw new Error("the Domain columns computed by the loader and DOMAIN_COMPUTED_COLUMNS differ");

/** A Domain's row: its columns in table order (src/db/tables.ts, from the Prisma model). */
export const domainRow: (pk: number, d: DomainRecord) => Row = recordRows(
  TABLES.domain,
  DOMAIN_COMPUTED,
  DomainRecord.shape,
);

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
