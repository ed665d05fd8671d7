import type { SqlReader } from "./reader.ts";
import { TABLES, type TableKey } from "./tables.ts";

/**
 * Where the values of each facet dimension are (src/query/facets.ts names the dimensions for
 * clients): an expression on the record's own row (one value or none per record), or a relation of
 * (record key, value) pairs read from a child table (any number per record). One table for the
 * statements that count a filtered list's facets and for the summary of the unfiltered counts a
 * snapshot keeps (below), so both count the same values.
 */
type Kind = SqlReader["kind"];
type Quote = (name: string) => string;

export type FacetValues =
  /** An expression on the record's row, aliased `r`. */
  | { kind: "column"; expr: (kind: Kind) => string }
  /** A statement giving `k` (the record's key) and `v` (a value) for each value of each record. */
  | { kind: "pairs"; pairs: (kind: Kind, table: Quote) => string };

/** A text column; a blank value is no value (as an unknown language is ""). */
const column = (name: string): FacetValues => ({ kind: "column", expr: () => `nullif(r."${name}", '')` });

/** The values of a child table's column, by its key column. */
const child = (table: TableKey, value: string, key = "domain_pk"): FacetValues => ({
  kind: "pairs",
  pairs: (_kind, t) => `SELECT c."${key}" AS k, c."${value}" AS v FROM ${t(TABLES[table].name)} c`,
});

export const DOMAIN_FACET_VALUES = {
  countryCode: column("country_code"),
  region: column("region"),
  subregion: column("subregion"),
  administrativeAreaLevel1: column("administrative_area_level_1"),
  city: column("city"),
  currencyCode: column("currency_code"),
  languageCode: column("language_code"),
  platform: column("platform"),
  plan: column("plan"),
  state: column("state"),
  themeName: column("theme_name"),
  /** YYYY-MM of created_at (SQLite keeps times as epoch milliseconds). */
  createdMonth: {
    kind: "column",
    expr: (kind) =>
      kind === "postgresql"
        ? `to_char(r."created_at", 'YYYY-MM')`
        : `strftime('%Y-%m', r."created_at" / 1000, 'unixepoch')`,
  },
  categories: child("domainCategory", "category"),
  features: child("domainFeature", "feature"),
  tags: child("domainTag", "tag"),
  salesChannels: child("domainSalesChannel", "channel"),
  shipsTo: child("domainShipsTo", "country_code"),
  /** A Domain with two e-mail addresses has the type once (pairs are made distinct). */
  contactTypes: child("domainContact", "type"),
  technologies: {
    kind: "pairs",
    pairs: (_kind, t) =>
      `SELECT c."domain_pk" AS k, x."name" AS v FROM ${t(TABLES.domainTechnology.name)} c JOIN ${t(TABLES.technology.name)} x ON x."pk" = c."technology_pk"`,
  },
  /** Installed and not since uninstalled, as f:an matches; the value is <platform>.<token>. */
  apps: {
    kind: "pairs",
    pairs: (_kind, t) =>
      `SELECT c."domain_pk" AS k, x."platform" || '.' || x."token" AS v FROM ${t(TABLES.domainApp.name)} c JOIN ${t(TABLES.app.name)} x ON x."pk" = c."app_pk" WHERE c."removed_at" IS NULL`,
  },
} as const satisfies Record<string, FacetValues>;

export const APP_FACET_VALUES = {
  platform: column("platform"),
  categories: child("appCategory", "category", "app_pk"),
  state: column("state"),
  vendorCountryCode: column("vendor_country_code"),
  /**
   * free: a plan costs nothing (or the App lists no plan); paid: a plan costs something; trial: a
   * free trial is offered. An App with a free plan and paid ones counts in both.
   */
  pricing: {
    kind: "pairs",
    pairs: (_kind, t) => {
      const [plan, app] = [t(TABLES.appPlan.name), t(TABLES.app.name)];
      return [
        `SELECT c."app_pk" AS k, CASE WHEN coalesce(c."monthly_cost_cents", 0) > 0 THEN 'paid' ELSE 'free' END AS v FROM ${plan} c`,
        `SELECT a."pk" AS k, 'free' AS v FROM ${app} a WHERE NOT EXISTS (SELECT 1 FROM ${plan} c WHERE c."app_pk" = a."pk")`,
        `SELECT a."pk" AS k, 'trial' AS v FROM ${app} a WHERE a."free_trial_duration" IS NOT NULL`,
      ].join(" UNION ALL ");
    },
  },
} as const satisfies Record<string, FacetValues>;

export type FacetTable = "domain" | "app";
export const FACET_VALUES: Record<FacetTable, Record<string, FacetValues>> = {
  domain: DOMAIN_FACET_VALUES,
  app: APP_FACET_VALUES,
};

/** Ties in count are ordered by value, byte by byte on both databases (SQLite's BINARY). */
export const byValue = (kind: Kind, v: string) => (kind === "postgresql" ? `${v} COLLATE "C"` : v);

// ---------------------------------------------------------------------- the snapshot's summary

/**
 * The unfiltered counts of every dimension, computed once when a snapshot is loaded and kept in
 * it (a snapshot never changes), so the commonest facet question, "how is everything spread", is
 * a lookup of its first rows. One row per value, in facet order (count descending, then value),
 * at `position` 1, 2, …: its count, and `covered`, the records having at least one of the values
 * up to this position (for a one-value dimension, the running sum of counts; for a child table's,
 * fewer, since a record with two of them counts once). Position 0 holds the records without a
 * value (`count`) and those with one (`covered`). So a facet of the top k is positions 0..k, and
 * its otherCount is position 0's covered minus position k's.
 */
export const FACET_SUMMARY_TABLE = "facet_summary";

const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** The statements that build FACET_SUMMARY_TABLE from a loaded snapshot's tables (named by `table`). */
export function facetSummaryStatements(kind: Kind, table: Quote): string[] {
  const target = table(FACET_SUMMARY_TABLE);
  const columns = `("dimension", "position", "value", "count", "covered")`;
  const out = [
    kind === "postgresql"
      ? `CREATE TABLE ${target} ("dimension" TEXT NOT NULL, "position" INTEGER NOT NULL, "value" TEXT, "count" BIGINT NOT NULL, "covered" BIGINT NOT NULL, PRIMARY KEY ("dimension", "position"))`
      : `CREATE TABLE ${target} ("dimension" TEXT NOT NULL, "position" INTEGER NOT NULL, "value" TEXT, "count" INTEGER NOT NULL, "covered" INTEGER NOT NULL, PRIMARY KEY ("dimension", "position")) WITHOUT ROWID`,
  ];
  for (const [records, dimensions] of Object.entries(FACET_VALUES) as [
    FacetTable,
    Record<string, FacetValues>,
  ][]) {
    const from = `${table(TABLES[records].name)} r`;
    for (const [name, values] of Object.entries(dimensions)) {
      const dimension = literal(`${records}.${name}`);
      if (values.kind === "column") {
        const e = values.expr(kind);
        out.push(
          `INSERT INTO ${target} ${columns} SELECT ${dimension}, x.pos, x.v, x.n, sum(x.n) OVER (ORDER BY x.pos) FROM (SELECT g.v, g.n, row_number() OVER (ORDER BY g.n DESC, ${byValue(kind, "g.v")}) AS pos FROM (SELECT ${e} AS v, count(*) AS n FROM ${from} WHERE ${e} IS NOT NULL GROUP BY ${e}) g) x`,
        );
      } else {
        out.push(
          `WITH f_p AS (SELECT DISTINCT x.k, x.v FROM (${values.pairs(kind, table)}) x WHERE x.v <> ''), ` +
            `f_g AS (SELECT v, count(*) AS n FROM f_p GROUP BY v), ` +
            `f_ranked AS (SELECT v, n, row_number() OVER (ORDER BY n DESC, ${byValue(kind, "v")}) AS pos FROM f_g), ` +
            `f_first AS (SELECT min(f_ranked.pos) AS pos FROM f_p JOIN f_ranked ON f_ranked.v = f_p.v GROUP BY f_p.k), ` +
            `f_cover AS (SELECT pos, count(*) AS c FROM f_first GROUP BY pos) ` +
            `INSERT INTO ${target} ${columns} SELECT ${dimension}, f_ranked.pos, f_ranked.v, f_ranked.n, sum(coalesce(f_cover.c, 0)) OVER (ORDER BY f_ranked.pos) FROM f_ranked LEFT JOIN f_cover ON f_cover.pos = f_ranked.pos`,
        );
      }
      out.push(
        `INSERT INTO ${target} ${columns} SELECT ${dimension}, 0, NULL, (SELECT count(*) FROM ${from}) - coalesce(max(f."covered"), 0), coalesce(max(f."covered"), 0) FROM ${target} f WHERE f."dimension" = ${dimension}`,
      );
    }
  }
  if (kind === "postgresql") out.push(`ANALYZE ${target}`);
  return out;
}
