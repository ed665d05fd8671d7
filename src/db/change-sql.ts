import { FACET_COLUMNS } from "./facet-sql.ts";
import { PART_TABLE, recordPartStatements } from "./snapshot-format.ts";

/**
 * The change feed's events of a load (docs/decisions.md, "Change feed"), computed in the database
 * by set operations between the snapshot being loaded (`n`) and the one served before it (`o`),
 * never row by row in Node. The statements fill `change_staged` in the new copy; publishing the
 * copy moves those rows into the meta database's `change_event`, numbered, in the transaction that
 * makes the copy the served one (SqliteSnapshotStore / PgSnapshotStore `publish`). A load that dies
 * before then leaves the feed as it was.
 *
 * Events by kind (docs/graphql.md, "Change feed", says what each carries):
 * - Apps, by App id: app_added, app_removed (became Inactive, or left the dataset),
 *   app_plans_changed;
 * - Domains, by name: domain_added and domain_removed (carrying the whole state the feed covers:
 *   state, platform, plan, country, theme, rank, installed Apps, technologies), state_changed,
 *   platform_changed, plan_changed, country_changed, theme_changed, rank_changed (a move of at
 *   least rankMove(Domains) places and of RANK_SHARE of the rank before); and, for Domains in both
 *   snapshots, app_installed / app_uninstalled (an App entry without removed_at appears / goes or
 *   gains one) and technology_added / technology_removed.
 */

export type Dialect = "sqlite" | "postgresql";

/**
 * An index on `table` (as `n` names it). On SQLite the new copy's tables are named `main."t"`,
 * since the copy before is attached beside it (and not read-only: an unqualified DROP would reach
 * it), and there the schema goes before the index's name, not the table's.
 */
function createIndex(name: string, table: string, column: string): string {
  const main = /^main\.(.+)$/.exec(table);
  return main
    ? `CREATE INDEX main.${name} ON ${main[1]} (${column})`
    : `CREATE INDEX ${name} ON ${table} (${column})`;
}

/**
 * A rank move is an event from RANK_MOVE places (or RANK_MOVE_SHARE of the Domains, in a dataset of
 * fewer than 100,000: 1,000 places is a tenth of 10,000 Domains)…
 */
export const RANK_MOVE = 1000;
export const RANK_MOVE_SHARE = 0.01;
/** …and of RANK_SHARE of the rank it moved from. */
export const RANK_SHARE = 0.1;

/** The places a rank must move by to be an event, in a dataset of `domains`. */
export const rankMove = (domains: number) => Math.min(RANK_MOVE, Math.ceil(domains * RANK_MOVE_SHARE));

/**
 * The kinds, in the order a Domain's (or an App's) events of one load are listed: the order
 * docs/decisions.md ("Change feed", "Kinds") lists them in. No two events of a Domain in one load
 * are about the same thing (an App installed or uninstalled is told apart by its id, a technology
 * by its name, and a Domain added or removed has no other event), so the order is for reading:
 * replaying a load's events in any order gives the same week.
 */
export const CHANGE_KINDS = [
  "app_added",
  "app_removed",
  "app_plans_changed",
  "domain_added",
  "domain_removed",
  "state_changed",
  "platform_changed",
  "plan_changed",
  "country_changed",
  "theme_changed",
  "rank_changed",
  "app_installed",
  "app_uninstalled",
  "technology_added",
  "technology_removed",
] as const;
/**
 * The kinds of a segment's events (docs/decisions.md, "Segments"): computed after the load's own
 * (src/segments.ts), seen by the segment's account only, and numbered after the load's other events.
 */
export const SEGMENT_KINDS = ["segment_entered", "segment_left"] as const;
/** Every kind the feed holds: the load's own, then the segments'. */
export const FEED_KINDS = [...CHANGE_KINDS, ...SEGMENT_KINDS] as const;
export type ChangeKind = (typeof FEED_KINDS)[number];

const ord = (kind: (typeof CHANGE_KINDS)[number]) => CHANGE_KINDS.indexOf(kind);

/** The staged events' table, in the new copy. */
export const STAGED = "change_staged";
const STAGED_COLUMNS = "ord, kind, domain, app, app_id, app_name, technology, before, after";

/**
 * The statements that compute a load's events into `change_staged`: `n(table)` names a table of
 * the new copy, `o(table)` one of the copy served before it. Every table written is named by `n`
 * (on SQLite `main."t"`: see createIndex).
 */
export function changeStatements(
  dialect: Dialect,
  n: (table: string) => string,
  o: (table: string) => string,
): string[] {
  const sq = dialect === "sqlite";
  const distinct = (a: string, b: string) => (sq ? `${a} IS NOT ${b}` : `${a} IS DISTINCT FROM ${b}`);
  const str = (x: string) => (sq ? `json_quote(${x})` : `coalesce(to_json(${x})::text, 'null')`);
  const obj = (pairs: [string, string][]) =>
    sq
      ? `json_object(${pairs.map(([k, v]) => `'${k}', ${v}`).join(", ")})`
      : `json_build_object(${pairs.map(([k, v]) => `'${k}', ${v}`).join(", ")})::text`;
  /** A JSON array (text) in an object: SQLite must be told it is JSON, PostgreSQL cast to it. */
  const nested = (text: string) => (sq ? `json(${text})` : `(${text})::json`);
  const ms = (t: string) => (sq ? t : `(extract(epoch from ${t}) * 1000)::bigint`);
  const list = (select: string, value: string) =>
    sq
      ? `(SELECT json_group_array(v) FROM (SELECT ${value} AS v ${select} ORDER BY 1))`
      : `(SELECT coalesce(json_agg(${value} ORDER BY ${value} COLLATE "C"), '[]'::json)::text ${select})`;
  const appKey = (a: string) => `${a}.platform || '.' || ${a}.token`;

  /** A Domain's state, as domain_added and domain_removed carry it. */
  const stateOf = (t: (table: string) => string, d: string) =>
    obj([
      ["state", `${d}.state`],
      ["platform", `${d}.platform`],
      ["plan", `${d}.plan`],
      ["country_code", `${d}.country_code`],
      ["theme", `${d}.theme_name`],
      ["rank", `${d}.rank`],
      [
        "apps",
        nested(
          list(
            `FROM ${t("domain_app")} da JOIN ${t("app")} a ON a.pk = da.app_pk WHERE da.domain_pk = ${d}.pk AND da.removed_at IS NULL`,
            appKey("a"),
          ),
        ),
      ],
      [
        "technologies",
        nested(
          list(
            `FROM ${t("domain_technology")} dt JOIN ${t("technology")} te ON te.pk = dt.technology_pk WHERE dt.domain_pk = ${d}.pk`,
            "te.name",
          ),
        ),
      ],
    ]);
  const plansOf = (t: (table: string) => string, a: string) =>
    sq
      ? `(SELECT json_group_array(json_object('name', name, 'monthly_cost', monthly_cost, 'monthly_cost_cents', monthly_cost_cents)) FROM (SELECT * FROM ${t("app_plan")} WHERE app_pk = ${a}.pk ORDER BY position))`
      : `(SELECT coalesce(json_agg(json_build_object('name', name, 'monthly_cost', monthly_cost, 'monthly_cost_cents', monthly_cost_cents) ORDER BY position), '[]'::json)::text FROM ${t("app_plan")} WHERE app_pk = ${a}.pk)`;
  const insert = (kind: (typeof CHANGE_KINDS)[number], select: string) =>
    `INSERT INTO ${n(STAGED)} (${STAGED_COLUMNS}) SELECT ${ord(kind)}, '${kind}', ${select}`;
  const pair = n("change_pair");
  const scalar = (kind: (typeof CHANGE_KINDS)[number], column: string) =>
    insert(
      kind,
      `p.name, NULL, NULL, NULL, NULL, ${str(`p.o_${column}`)}, ${str(`p.n_${column}`)} FROM ${pair} p WHERE ${distinct(`p.o_${column}`, `p.n_${column}`)}`,
    );
  // A Domain's installed Apps and its technologies, by App id and technology name (an App or a
  // technology that left the dataset is still told apart from the others).
  const installed = (side: "n" | "o") =>
    side === "n"
      ? `SELECT p.npk, a.id AS app_id FROM ${n("domain_app")} da JOIN ${pair} p ON p.npk = da.domain_pk JOIN ${n("app")} a ON a.pk = da.app_pk WHERE da.removed_at IS NULL`
      : `SELECT p.npk, a.id AS app_id FROM ${o("domain_app")} da JOIN ${pair} p ON p.opk = da.domain_pk JOIN ${o("app")} a ON a.pk = da.app_pk WHERE da.removed_at IS NULL`;
  const listed = (side: "n" | "o") =>
    side === "n"
      ? `SELECT p.npk, t.name FROM ${n("domain_technology")} dt JOIN ${pair} p ON p.npk = dt.domain_pk JOIN ${n("technology")} t ON t.pk = dt.technology_pk`
      : `SELECT p.npk, t.name FROM ${o("domain_technology")} dt JOIN ${pair} p ON p.opk = dt.domain_pk JOIN ${o("technology")} t ON t.pk = dt.technology_pk`;
  const drop = (t: string) => `DROP TABLE IF EXISTS ${t}`;
  const cols = ["state", "platform", "plan", "country_code", "theme_name", "rank"];
  const appEvent = (after: string) => `p.name, ${appKey("a")}, a.id, a.name, NULL, NULL, ${after}`;
  const appAfter = (da: string) =>
    obj([
      ["installed_at", da ? ms(`${da}.installed_at`) : "NULL"],
      ["removed_at", da ? ms(`${da}.removed_at`) : "NULL"],
    ]);

  return [
    drop(n(STAGED)),
    `CREATE TABLE ${n(STAGED)} (ord INTEGER NOT NULL, kind TEXT NOT NULL, domain TEXT, app TEXT, app_id TEXT, app_name TEXT, technology TEXT, before TEXT, after TEXT)`,
    drop(pair),
    // The Domains of both copies, their key in each, and what scalar events compare.
    `CREATE TABLE ${pair} AS SELECT n.name, n.pk AS npk, o.pk AS opk, ${cols.map((c) => `o.${c} AS o_${c}, n.${c} AS n_${c}`).join(", ")} FROM ${n("domain")} n JOIN ${o("domain")} o ON o.name = n.name`,
    createIndex("change_pair_npk", pair, "npk"),
    createIndex("change_pair_opk", pair, "opk"),
    // Apps.
    insert(
      "app_added",
      `NULL, ${appKey("a")}, a.id, a.name, NULL, NULL, ${obj([
        ["state", "a.state"],
        ["plans", nested(plansOf(n, "a"))],
      ])} FROM ${n("app")} a WHERE NOT EXISTS (SELECT 1 FROM ${o("app")} x WHERE x.id = a.id)`,
    ),
    insert(
      "app_removed",
      `NULL, ${appKey("o")}, o.id, o.name, NULL, ${str("o.state")}, ${str("a.state")} FROM ${o("app")} o LEFT JOIN ${n("app")} a ON a.id = o.id WHERE o.state <> 'Inactive' AND (a.id IS NULL OR a.state = 'Inactive')`,
    ),
    insert(
      "app_plans_changed",
      `NULL, ${appKey("a")}, a.id, a.name, NULL, b, c FROM (SELECT a.platform, a.token, a.id, a.name, ${plansOf(o, "o")} AS b, ${plansOf(n, "a")} AS c FROM ${n("app")} a JOIN ${o("app")} o ON o.id = a.id) a WHERE b <> c`,
    ),
    // Domains that came and went.
    insert(
      "domain_added",
      `d.name, NULL, NULL, NULL, NULL, NULL, ${stateOf(n, "d")} FROM ${n("domain")} d WHERE NOT EXISTS (SELECT 1 FROM ${o("domain")} x WHERE x.name = d.name)`,
    ),
    insert(
      "domain_removed",
      `d.name, NULL, NULL, NULL, NULL, ${stateOf(o, "d")}, NULL FROM ${o("domain")} d WHERE NOT EXISTS (SELECT 1 FROM ${n("domain")} x WHERE x.name = d.name)`,
    ),
    // What changed on the Domains of both.
    scalar("state_changed", "state"),
    scalar("platform_changed", "platform"),
    scalar("plan_changed", "plan"),
    scalar("country_changed", "country_code"),
    scalar("theme_changed", "theme_name"),
    insert(
      "rank_changed",
      `p.name, NULL, NULL, NULL, NULL, ${str("p.o_rank")}, ${str("p.n_rank")} FROM ${pair} p WHERE abs(p.n_rank - p.o_rank) >= (SELECT ${sq ? "min" : "least"}(${RANK_MOVE}, (count(*) + ${1 / RANK_MOVE_SHARE - 1}) / ${1 / RANK_MOVE_SHARE}) FROM ${n("domain")}) AND abs(p.n_rank - p.o_rank) >= ${RANK_SHARE} * p.o_rank`,
    ),
    insert(
      "app_installed",
      `${appEvent(appAfter("da"))} FROM (${installed("n")} EXCEPT ${installed("o")}) x JOIN ${pair} p ON p.npk = x.npk JOIN ${n("app")} a ON a.id = x.app_id JOIN ${n("domain_app")} da ON da.domain_pk = x.npk AND da.app_pk = a.pk`,
    ),
    // Named as the copy before knew the App: it may have left the dataset since. Its dates are
    // the entry's in the new copy when it gained a removed_at there, else (the entry went: the
    // Domain switched platform, or the App left the dataset) the entry's in the copy before.
    insert(
      "app_uninstalled",
      `${appEvent(
        obj([
          ["installed_at", ms("coalesce(da.installed_at, od.installed_at)")],
          ["removed_at", ms("da.removed_at")],
        ]),
      )} FROM (${installed("o")} EXCEPT ${installed("n")}) x JOIN ${pair} p ON p.npk = x.npk JOIN ${o("app")} a ON a.id = x.app_id JOIN ${o("domain_app")} od ON od.domain_pk = p.opk AND od.app_pk = a.pk LEFT JOIN ${n("app")} na ON na.id = x.app_id LEFT JOIN ${n("domain_app")} da ON da.domain_pk = x.npk AND da.app_pk = na.pk`,
    ),
    insert(
      "technology_added",
      `p.name, NULL, NULL, NULL, x.name, NULL, NULL FROM (${listed("n")} EXCEPT ${listed("o")}) x JOIN ${pair} p ON p.npk = x.npk`,
    ),
    insert(
      "technology_removed",
      `p.name, NULL, NULL, NULL, x.name, NULL, NULL FROM (${listed("o")} EXCEPT ${listed("n")}) x JOIN ${pair} p ON p.npk = x.npk`,
    ),
    drop(pair),
  ];
}

/**
 * The staged events in feed order, as the publish reads them to number them: App events first
 * (by App, each App's in CHANGE_KINDS order), then each Domain's (by name, in CHANGE_KINDS order,
 * then by App or technology). Compared as bytes on both databases, so both give one order.
 */
export function stagedInOrder(dialect: Dialect, staged: string): string {
  const c = dialect === "postgresql" ? ' COLLATE "C"' : "";
  // An App event has no Domain: its App is where a Domain's name would be.
  return `SELECT kind, domain, app, app_id, app_name, technology, before, after, row_number() OVER (ORDER BY domain IS NOT NULL, coalesce(domain, app, '')${c}, ord, coalesce(app, '')${c}, coalesce(technology, '')${c}) AS seq FROM ${staged}`;
}

// ---------------------------------------------------------------------- Domains gone from the feed

/**
 * A Domain filter of the feed matches a removed Domain as it was when removed
 * (docs/decisions.md, "Change feed"). So each copy keeps the Domains that left the dataset while
 * their events are in the feed: the columns and child rows List Domains' filters test, in tables
 * of the same columns under these names. A filter's condition, compiled for the domain table,
 * reads the same on them (src/query/changes.ts); their App and technology keys are the copy's own.
 */
export const GONE_TABLES: Readonly<Record<string, string>> = {
  domain: "gone_domain",
  domain_category: "gone_domain_category",
  domain_feature: "gone_domain_feature",
  domain_tag: "gone_domain_tag",
  domain_sales_channel: "gone_domain_sales_channel",
  domain_ships_to: "gone_domain_ships_to",
  domain_contact: "gone_domain_contact",
  domain_technology: "gone_domain_technology",
  domain_app: "gone_domain_app",
};

/** The columns each gone child table keeps besides domain_pk (those the filters test). */
const GONE_CHILD_COLUMNS: Record<string, string[]> = {
  domain_category: ["category"],
  domain_feature: ["feature"],
  domain_tag: ["tag"],
  domain_sales_channel: ["channel"],
  domain_ships_to: ["country_code"],
  domain_contact: ["position", "type"],
  domain_technology: ["technology_pk", "installed_at"],
  domain_app: ["app_pk", "installed_at", "removed_at"],
};

/**
 * The statements that write the new copy's gone tables (a part of its format:
 * src/db/snapshot-format.ts, `gone`): the Domains the copy before kept as gone (since `keepFrom`,
 * and not back in the new copy), and those it held that the new copy lacks (gone in `version`).
 * `o` names the copy before's tables; null at the first load, whose gone tables are empty.
 */
export function goneStatements(
  n: (table: string) => string,
  o: ((table: string) => string) | null,
  version: number,
  keepFrom: number,
): string[] {
  const map = n("change_gone_map");
  // The first load reads its own tables, matched by nothing, for the gone tables' columns.
  const before = o ?? n;
  const carried = o
    ? `SELECT g.pk AS src, 1 AS carried, g.name, g.gone_version FROM ${o("gone_domain")} g WHERE g.gone_version >= ${keepFrom} AND NOT EXISTS (SELECT 1 FROM ${n("domain")} d WHERE d.name = g.name) UNION ALL `
    : "";
  const key = (table: string) => `c.${table === "domain" ? "pk" : "domain_pk"}`;
  const fromBoth = (select: (source: string) => string, table: string) =>
    `${o ? `${select(`${o(`gone_${table}`)} c JOIN ${map} m ON m.carried = 1 AND ${key(table)} = m.src`)} UNION ALL ` : ""}${select(`${before(table)} c JOIN ${map} m ON m.carried = 0 AND ${key(table)} = m.src`)}`;
  const goneNow = o ? `NOT EXISTS (SELECT 1 FROM ${n("domain")} d WHERE d.name = o.name)` : "1 = 0";
  const statements = [
    ...Object.values(GONE_TABLES).map((t) => `DROP TABLE IF EXISTS ${n(t)}`),
    `DROP TABLE IF EXISTS ${map}`,
    `CREATE TABLE ${map} AS SELECT row_number() OVER (ORDER BY name) AS pk, src, carried, name, gone_version FROM (${carried}SELECT o.pk AS src, 0 AS carried, o.name, ${version} AS gone_version FROM ${before("domain")} o WHERE ${goneNow}) x`,
    `CREATE TABLE ${n("gone_domain")} AS ${fromBoth(
      (source) =>
        `SELECT m.pk, m.name, m.gone_version, ${FACET_COLUMNS.map((c) => `c.${c}`).join(", ")}, c.search_text FROM ${source}`,
      "domain",
    )}`,
    createIndex("gone_domain_pk", n("gone_domain"), "pk"),
    createIndex("gone_domain_name", n("gone_domain"), "name"),
  ];
  for (const [table, columns] of Object.entries(GONE_CHILD_COLUMNS)) {
    // App and technology keys are the new copy's (by App id, by technology name): the feed's
    // filter resolves them there. Rows whose App or technology the new copy lacks match nothing.
    const remap =
      table === "domain_app"
        ? {
            join: ` JOIN ${before("app")} oa ON oa.pk = c.app_pk JOIN ${n("app")} na ON na.id = oa.id`,
            cols: { app_pk: "na.pk" },
          }
        : table === "domain_technology"
          ? {
              join: ` JOIN ${before("technology")} ot ON ot.pk = c.technology_pk JOIN ${n("technology")} nt ON nt.name = ot.name`,
              cols: { technology_pk: "nt.pk" },
            }
          : { join: "", cols: {} as Record<string, string> };
    const list = columns
      .map((c) => `${(remap.cols as Record<string, string>)[c] ?? `c.${c}`} AS ${c}`)
      .join(", ");
    statements.push(
      `CREATE TABLE ${n(`gone_${table}`)} AS ${fromBoth((source) => `SELECT m.pk AS domain_pk, ${list} FROM ${source}${remap.join}`, table)}`,
      createIndex(`gone_${table}_domain_pk`, n(`gone_${table}`), "domain_pk"),
    );
  }
  statements.push(`DROP TABLE ${map}`, ...recordPartStatements(n(PART_TABLE), "gone"));
  return statements;
}
