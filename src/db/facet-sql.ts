import type { SqlReader } from "./reader.ts";
import { PART_TABLE, recordPartStatements } from "./snapshot-format.ts";
import { TABLES, type TableKey } from "./tables.ts";

/**
 * Where the values of each facet dimension are (src/query/facets.ts names the dimensions for
 * clients), and the two tables a snapshot keeps for facets, built once when it is loaded:
 *
 * - FACET_COLUMNS_TABLE: the Domain columns that facets count and filters test, one narrow row
 *   per Domain (about 150 bytes). A facet of a large segment scans it rather than the wide domain
 *   rows, and a small one reads its values by key (at 100,000 Domains on PostgreSQL, the
 *   platforms of the US Domains: 77 ms from domain, 13 ms from here).
 * - FACET_SUMMARY_TABLE: the unfiltered counts of every dimension (below).
 *
 * A dimension is a column (one value or none per record), or a child table (any number per
 * record), grouped by the child's own key column (a technology's key, not its name) and named only
 * for the top values. One table for the statements of a filtered list's facets and for the
 * summary, so both count the same values.
 */
type Kind = SqlReader["kind"];
type Quote = (name: string) => string;

export type FacetValues =
  | {
      kind: "column";
      /** The value on the record's row, aliased `r` (a blank text is no value). */
      expr: (kind: Kind) => string;
      /** Its column in FACET_COLUMNS_TABLE (Domain dimensions), whose blank texts are kept. */
      narrow?: string;
    }
  | {
      kind: "child";
      /** The child table (a Domain dimension's: the count index reads its rows; src/db/count-index.ts). */
      table?: TableKey;
      /** A FROM item aliased `c`: a child table, or a derived table of (key, value). */
      from: (kind: Kind, table: Quote) => string;
      /** c's column holding the record's key, and the one holding (the key of) the value. */
      key: string;
      id: string;
      /** The value named by the row of `table` that `id` is the key of. */
      label?: { table: TableKey; expr: string };
      /** Rows of c that are not values (an uninstalled App). */
      where?: string;
      /** A record may have the same value in several rows (two e-mail contacts): counted once. */
      repeats?: boolean;
    };

const column = (name: string, narrow = true): FacetValues => ({
  kind: "column",
  expr: () => `nullif(r."${name}", '')`,
  ...(narrow ? { narrow: name } : {}),
});

const child = (
  table: TableKey,
  id: string,
  key = "domain_pk",
  extra: Partial<FacetValues> = {},
): FacetValues =>
  ({
    kind: "child",
    table,
    from: (_kind, t) => `${t(TABLES[table].name)} c`,
    key,
    id,
    ...extra,
  }) as FacetValues;

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
  /** YYYY-MM of created_at, in UTC (SQLite keeps times as epoch milliseconds). */
  createdMonth: {
    kind: "column",
    expr: (kind) =>
      kind === "postgresql"
        ? `to_char(r."created_at", 'YYYY-MM')`
        : `strftime('%Y-%m', r."created_at" / 1000, 'unixepoch')`,
    narrow: "created_month",
  },
  categories: child("domainCategory", "category"),
  features: child("domainFeature", "feature"),
  tags: child("domainTag", "tag"),
  salesChannels: child("domainSalesChannel", "channel"),
  shipsTo: child("domainShipsTo", "country_code"),
  contactTypes: child("domainContact", "type", "domain_pk", { repeats: true }),
  technologies: child("domainTechnology", "technology_pk", "domain_pk", {
    label: { table: "technology", expr: 'x."name"' },
  }),
  /** Installed and not since uninstalled, as f:an matches; the value is <platform>.<token>. */
  apps: child("domainApp", "app_pk", "domain_pk", {
    label: { table: "app", expr: `x."platform" || '.' || x."token"` },
    where: 'c."removed_at" IS NULL',
  }),
} as const satisfies Record<string, FacetValues>;

export const APP_FACET_VALUES = {
  platform: column("platform", false),
  categories: child("appCategory", "category", "app_pk"),
  state: column("state", false),
  vendorCountryCode: column("vendor_country_code", false),
  /**
   * free: a plan costs nothing (or the App lists no plan); paid: a plan costs something; trial: a
   * free trial is offered. An App with a free plan and paid ones counts in both.
   */
  pricing: {
    kind: "child",
    from: (_kind, t) => {
      const [plan, app] = [t(TABLES.appPlan.name), t(TABLES.app.name)];
      return `(${[
        `SELECT p."app_pk" AS k, CASE WHEN coalesce(p."monthly_cost_cents", 0) > 0 THEN 'paid' ELSE 'free' END AS v FROM ${plan} p`,
        `SELECT a."pk" AS k, 'free' AS v FROM ${app} a WHERE NOT EXISTS (SELECT 1 FROM ${plan} p WHERE p."app_pk" = a."pk")`,
        `SELECT a."pk" AS k, 'trial' AS v FROM ${app} a WHERE a."free_trial_duration" IS NOT NULL`,
      ].join(" UNION ALL ")}) c`;
    },
    key: "k",
    id: "v",
    repeats: true,
  },
} as const satisfies Record<string, FacetValues>;

export type FacetTable = "domain" | "app";
export const FACET_VALUES: Record<FacetTable, Record<string, FacetValues>> = {
  domain: DOMAIN_FACET_VALUES,
  app: APP_FACET_VALUES,
};

/** Ties in count are ordered by value, byte by byte on both databases (SQLite's BINARY). */
export const byValue = (kind: Kind, v: string) => (kind === "postgresql" ? `${v} COLLATE "C"` : v);

type Child = Extract<FacetValues, { kind: "child" }>;

/** A child dimension's rows that are values (blank texts are not). */
export const childValues = (values: Child) =>
  [values.where, values.label ? null : `c."${values.id}" <> ''`].filter(Boolean).join(" AND ") || "1=1";

/** A child dimension's value of a group `g` (by g.id): its label, joined as `x`, or the id itself. */
export function labelled(values: Child, table: Quote): { join: string; value: string } {
  if (!values.label) return { join: "", value: "g.id" };
  return {
    join: ` JOIN ${table(TABLES[values.label.table].name)} x ON x."pk" = g.id`,
    value: values.label.expr,
  };
}

// ---------------------------------------------------------------------- what a snapshot keeps

export const FACET_COLUMNS_TABLE = "domain_facet_columns";

/**
 * The domain columns FACET_COLUMNS_TABLE copies as they are: every one a facet counts or a filter
 * of List Domains tests (not the searched text), so that a filter's condition, compiled for the
 * domain table, reads the same on this one. A test checks the list against the filters.
 */
export const FACET_COLUMNS = [
  "country_code",
  "region",
  "subregion",
  "administrative_area_level_1",
  "city",
  "currency_code",
  "language_code",
  "platform",
  "plan",
  "state",
  "theme_name",
  "created_at",
  "created_week",
  "last_plan_change_at",
  "last_platform_change_at",
  "rank",
  "estimated_sales",
  "estimated_visits",
  "product_count",
  "employee_count",
  "monthly_app_spend",
  "avg_price",
] as const;

const SQLITE_TYPES = {
  int: "INTEGER",
  bigint: "INTEGER",
  time: "INTEGER",
  float: "REAL",
  text: "TEXT",
  json: "TEXT",
};

/**
 * The unfiltered counts of every dimension, kept by the snapshot (a snapshot never changes), so
 * the commonest facet question, "how is everything spread", is a lookup of its first rows. One
 * row per value, in facet order (count descending, then value), at `position` 1, 2, …: its count,
 * and `covered`, the records having at least one of the values up to this position (for a
 * one-value dimension the running sum of counts; for a child table's fewer, since a record with
 * two of them counts once). Position 0 holds the records without a value (`count`) and those with
 * one (`covered`). So a facet of the top k is positions 0..k, and its otherCount is position 0's
 * covered minus position k's.
 */
export const FACET_SUMMARY_TABLE = "facet_summary";

const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * The statements that build the facet tables from a loaded snapshot's tables (named by `table`),
 * replacing those built before, and record the part (src/db/snapshot-format.ts).
 */
export function facetStatements(kind: Kind, table: Quote): string[] {
  const domain = TABLES.domain;
  const copied = FACET_COLUMNS.map((c) => {
    const i = domain.columns.indexOf(c);
    if (i < 0) throw new Error(`facet column ${c}: the domain table has no such column`);
    return { column: c, expr: `r."${c}"`, type: SQLITE_TYPES[domain.kinds[i]] };
  });
  const month = DOMAIN_FACET_VALUES.createdMonth;
  const narrow = [...copied, { column: month.narrow, expr: month.expr(kind), type: "TEXT" }];
  const columnsTable = table(FACET_COLUMNS_TABLE);
  const target = table(FACET_SUMMARY_TABLE);
  const select = `SELECT r."pk", ${narrow.map((c) => `${c.expr} AS "${c.column}"`).join(", ")} FROM ${table(domain.name)} r`;
  const out = [`DROP TABLE IF EXISTS ${columnsTable}`, `DROP TABLE IF EXISTS ${target}`];
  out.push(
    ...(kind === "postgresql"
      ? [
          `CREATE TABLE ${columnsTable} AS ${select} ORDER BY r."pk"`,
          `ALTER TABLE ${columnsTable} ADD PRIMARY KEY ("pk")`,
          `ANALYZE ${columnsTable}`,
        ]
      : [
          `CREATE TABLE ${columnsTable} ("pk" INTEGER PRIMARY KEY, ${narrow.map((c) => `"${c.column}" ${c.type}`).join(", ")})`,
          `INSERT INTO ${columnsTable} ${select} ORDER BY r."pk"`,
        ]),
  );
  const columns = `("dimension", "position", "value", "count", "covered")`;
  out.push(
    kind === "postgresql"
      ? `CREATE TABLE ${target} ("dimension" TEXT NOT NULL, "position" INTEGER NOT NULL, "value" TEXT, "count" BIGINT NOT NULL, "covered" BIGINT NOT NULL, PRIMARY KEY ("dimension", "position"))`
      : `CREATE TABLE ${target} ("dimension" TEXT NOT NULL, "position" INTEGER NOT NULL, "value" TEXT, "count" INTEGER NOT NULL, "covered" INTEGER NOT NULL, PRIMARY KEY ("dimension", "position")) WITHOUT ROWID`,
  );
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
        const { join, value } = labelled(values, table);
        out.push(
          `WITH f_p AS (SELECT DISTINCT c."${values.key}" AS k, c."${values.id}" AS id FROM ${values.from(kind, table)} WHERE ${childValues(values)}), ` +
            `f_ranked AS (SELECT g.id, ${value} AS v, g.n, row_number() OVER (ORDER BY g.n DESC, ${byValue(kind, value)}) AS pos FROM (SELECT id, count(*) AS n FROM f_p GROUP BY id) g${join}), ` +
            `f_first AS (SELECT min(f_ranked.pos) AS pos FROM f_p JOIN f_ranked ON f_ranked.id = f_p.id GROUP BY f_p.k), ` +
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
  out.push(...recordPartStatements(table(PART_TABLE), "facets"));
  return out;
}
