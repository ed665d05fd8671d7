import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { type Config, loadConfig } from "../config.ts";
import { PAGE_FIELDS } from "../dataset/record.ts";
import { openSnapshotStore } from "../db/open-store.ts";
import { snapshotSchema } from "../db/pg-store.ts";
import { encodeCursor, fingerprint } from "../query/cursor.ts";
import { DOMAIN_LIST_FILTERS } from "../query/domain-filter.ts";
import { DOMAIN_SORTS, toSortKeys } from "../query/sort.ts";
import { splitList } from "../rest/options.ts";

/**
 * The raw-SQL baseline of the benchmark (src/bench/run.ts): the speed limit of this data model.
 * A plain node:http server that answers two REST paths of storegraph with hand-written SQL over
 * the served snapshot's tables and JSON.stringify, building the same JSON body:
 *
 * - GET /json/api/v1/all/domain/<name>[?fields=a,b]            Retrieve a Domain
 * - GET /json/api/v1/all/domain?f:cc=&f:features=&f:an=&sort=rank&page_size=&fields=
 *                                                               List Domains, first page
 *
 * Each of f:cc, f:features and f:an takes one value (op and); `fields` takes top-level default
 * fields (or *). Anything else is a 400 saying the baseline does not support it. No API keys
 * (an Authorization header is ignored), no rate limits, no GraphQL, no Prisma: one prepared
 * statement for the Domain rows, then one per child table for the whole page, all at once (with
 * the default fields 12 statements per request, one Domain or a page of them; with
 * fields=name,rank just the one).
 *
 * As a process: `node --import tsx src/bench/baseline.ts` with DATABASE_URL / DATA_DIR as for the
 * server (src/config.ts), PORT (default 0: a free port) and HOST (default 127.0.0.1); it prints
 * `baseline listening on <url>`.
 */

type Row = Record<string, unknown>;
type Kind = "sqlite" | "postgresql";
type Out = Record<string, unknown>;

export interface BaselineOptions {
  kind: Kind;
  /** Where the served snapshot is: the app's configuration (database and data directory). */
  config: Config;
  port?: number;
  host?: string;
  /** PostgreSQL pool size (default 10, as the app's Prisma pool). */
  poolSize?: number;
}

export interface Baseline {
  url: string;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------- the database

/** A read-only connection to one snapshot copy, with a statement cache keyed by SQL text. */
interface Db {
  kind: Kind;
  version: number;
  /** A table of the snapshot, qualified by its schema on PostgreSQL. */
  t(table: string): string;
  all(sql: string, params: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

/** Parameters as each driver binds them: `?` (SQLite) or `$n` (PostgreSQL). */
class Params {
  readonly values: unknown[] = [];
  constructor(private readonly kind: Kind) {}
  p(value: unknown): string {
    this.values.push(value);
    return this.kind === "sqlite" ? "?" : `$${this.values.length}`;
  }
  /** `col IN (?, ?, …)` on SQLite (one cached statement per count), `col = ANY($n)` on PostgreSQL. */
  in(column: string, pks: readonly number[]): string {
    if (this.kind === "postgresql") return `${column} = ANY(${this.p(pks)}::int[])`;
    for (const pk of pks) this.values.push(pk);
    return `${column} IN (${pks.map(() => "?").join(",")})`;
  }
}

async function openDb(kind: Kind, config: Config, poolSize: number): Promise<Db> {
  if (config.database.kind !== kind)
    throw new Error(`baseline: kind ${kind} but the configuration names ${config.database.kind}`);
  // The registry names the served snapshot; the baseline stays on it (no reload).
  const store = await openSnapshotStore(config);
  const served = await store.current().finally(() => store.close());
  if (!served) throw new Error("baseline: no snapshot is served yet (load one first)");

  if (config.database.kind === "sqlite") {
    const db = new Database(join(config.database.dataDir, served.location), {
      readonly: true,
      fileMustExist: true,
    });
    const statements = new Map<string, Database.Statement>();
    return {
      kind,
      version: served.version,
      t: (table) => table,
      async all(sql, params) {
        let s = statements.get(sql);
        if (!s) {
          s = db.prepare(sql);
          statements.set(sql, s);
        }
        return s.all(...params) as Row[];
      },
      async close() {
        db.close();
      },
    };
  }

  const schema = served.location || snapshotSchema(served.version);
  const pool = new pg.Pool({
    connectionString: config.database.url,
    max: poolSize,
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") => {
        if (oid === 20) return Number; // BIGINT: amounts within 2^53, as the API's SafeInt
        if (oid === 1114) return (s: string) => s; // TIMESTAMP(3) of UTC: formatted below
        if (oid === 3802 || oid === 114) return (s: string) => s; // JSONB, JSON: parsed below, as SQLite's TEXT
        return pg.types.getTypeParser(oid, format);
      }) as typeof pg.types.getTypeParser,
    },
  });
  pool.on("error", () => {});
  const names = new Map<string, string>();
  return {
    kind,
    version: served.version,
    t: (table) => `"${schema}".${table}`,
    async all(text, values) {
      let name = names.get(text);
      if (!name) {
        name = `baseline_${served.version}_${names.size}`;
        names.set(text, name);
      }
      return (await pool.query({ name, text, values })).rows;
    },
    async close() {
      await pool.end();
    },
  };
}

// ---------------------------------------------------------------------------- values

/** SQLite keeps DateTime as unix milliseconds; PostgreSQL (here) as the text of a UTC timestamp. */
function dateTime(v: unknown): string {
  if (typeof v === "number") {
    const s = new Date(v).toISOString();
    return s.endsWith(".000Z") ? `${s.slice(0, 19)}Z` : s;
  }
  const s = v as string; // YYYY-MM-DD HH:MM:SS[.fff]
  const frac = s.length > 20 ? s.slice(20).padEnd(3, "0").slice(0, 3) : "000";
  return `${s.slice(0, 10)}T${s.slice(11, 19)}${frac === "000" ? "" : `.${frac}`}Z`;
}
const isoOf = (v: unknown) => (typeof v === "number" ? new Date(v).toISOString() : `${v as string}`);
/** GraphQL Date: YYYY-MM-DD. */
const dateOnly = (v: unknown) => isoOf(v).slice(0, 10);
/** GraphQL LocalDateTime: YYYY-MM-DDTHH:MM:SS. */
const localDateTime = (v: unknown) => {
  const s = isoOf(v);
  return `${s.slice(0, 10)}T${s.slice(11, 19)}`;
};
/** JSON columns: TEXT on SQLite, JSONB or JSON on PostgreSQL (read as text, see openDb). */
const json = (v: unknown) => JSON.parse(v as string);

// ---------------------------------------------------------------------------- Domain fields

type Conv = ((v: unknown) => unknown) | null;

/** A Domain field read from its own row: columns and how they become the legacy value. */
interface ColumnField {
  columns: string[];
  value: (row: Row) => unknown;
}
type Child = "categories" | "features" | "tags" | "sales_channels" | "ships_to_countries";
type Relation = Child | "contact_info" | "technologies" | "apps";

const column = (name: string, conv: Conv = null): ColumnField => ({
  columns: [name],
  value: conv ? (r) => (r[name] == null ? undefined : conv(r[name])) : (r) => r[name],
});

/** theme, trustpilot, yotpo: objects made of several columns, absent when the first is unknown. */
const composite = (parts: [string, string][], first: string, fallback?: Record<string, unknown>) => ({
  columns: parts.map(([c]) => c),
  value: (r: Row) => {
    if (r[first] == null) return undefined;
    const o: Out = {};
    for (const [c, legacy] of parts) {
      const v = r[c] ?? fallback?.[legacy];
      if (v != null) o[legacy] = v;
    }
    return o;
  },
});

const plain = (names: string[]) => names.map((n) => [n, column(n)] as const);

/** The default fields of a Domain (src/rest/fields.ts defaults), in their order. */
const DOMAIN_FIELDS: ReadonlyMap<string, ColumnField | Relation> = new Map<string, ColumnField | Relation>([
  ...plain(["name", "tld1", "state", "platform"]),
  ["created_at", column("created_at", dateOnly)],
  ...plain(["rank", "rank_percentile", "platform_rank", "platform_rank_percentile"]),
  ...plain([
    "platform_domain",
    "cluster_best_ranked",
    "plan",
    "last_platform",
    "last_plan",
    "magento_version",
    "merchant_name",
    "title",
    "description",
    "icon",
    "og_image",
    "country_code",
    "currency_code",
    "language_code",
    "administrative_area_level_1",
    "city",
    "location",
    "region",
    "subregion",
    "postal_code",
    "street_address",
    "avg_price_formatted",
    ...PAGE_FIELDS,
  ]),
  ...[
    "inactive_at",
    "last_platform_change_at",
    "last_plan_change_at",
    "last_updated_at",
    "max_product_published_at",
  ].map((n) => [n, column(n, dateOnly)] as const),
  ...plain([
    "latitude",
    "longitude",
    "cc_rank",
    "cc_centrality",
    "employee_count",
    "monthly_app_spend",
    "avg_weight",
    "max_weight",
    "min_weight",
    "product_count",
    "variant_count",
    "vendor_count",
    "product_images_created_30",
    "product_images_created_90",
    "product_images_created_365",
    "estimated_page_views",
    "estimated_visits",
    "estimated_sales",
    "estimated_sales_yearly",
    "avg_price",
    "avg_price_usd",
    "min_price",
    "max_price",
    "min_price_usd",
    "max_price_usd",
  ]),
  ...[
    "redirects_to",
    "aliases",
    "localizations",
    "locs",
    "cluster_domains",
    "collections",
    "shipping_carriers",
    "alternates",
    "keywords",
  ].map((n) => [n, column(n, json)] as const),
  [
    "theme",
    composite(
      [
        ["theme_name", "name"],
        ["theme_style", "style"],
        ["theme_vendor", "vendor"],
        ["theme_version", "version"],
        ["theme_cost", "cost"],
      ],
      "theme_name",
    ),
  ],
  [
    "trustpilot",
    composite(
      [
        ["trustpilot_review_count", "review_count"],
        ["trustpilot_avg_rating", "avg_rating"],
      ],
      "trustpilot_review_count",
      { avg_rating: 0 },
    ),
  ],
  [
    "yotpo",
    composite(
      [
        ["yotpo_review_count", "review_count"],
        ["yotpo_avg_rating", "avg_rating"],
      ],
      "yotpo_review_count",
      { avg_rating: 0 },
    ),
  ],
  ["categories", "categories"],
  ["features", "features"],
  ["tags", "tags"],
  ["sales_channels", "sales_channels"],
  ["ships_to_countries", "ships_to_countries"],
  ["contact_info", "contact_info"],
  ["technologies", "technologies"],
  ["apps", "apps"],
]);

/** The string lists kept in child tables: table and value column. */
const LISTS: Record<Child, [string, string]> = {
  categories: ["domain_category", "category"],
  features: ["domain_feature", "feature"],
  tags: ["domain_tag", "tag"],
  sales_channels: ["domain_sales_channel", "channel"],
  ships_to_countries: ["domain_ships_to", "country_code"],
};

class BadRequest extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** `fields`: top-level default fields in the order given; blank for the defaults, * for them too. */
function parseFields(spec: string | undefined): string[] {
  const names = (spec ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (names.length === 0) return [...DOMAIN_FIELDS.keys()];
  const out = new Set<string>(names.includes("*") ? DOMAIN_FIELDS.keys() : []);
  for (const n of names) {
    if (n === "*") continue;
    if (!DOMAIN_FIELDS.has(n))
      throw new BadRequest(
        400,
        "BAD_USER_INPUT",
        `fields: the baseline serves default fields only; not "${n}"`,
      );
    out.add(n);
  }
  return [...out];
}

/** What a field set reads: the Domain columns, the relations, and the row → JSON step. */
interface Plan {
  columns: string;
  relations: Relation[];
  fields: [string, ColumnField | Relation][];
}
const planCache = new Map<string, Plan>();

function planOf(fields: string[]): Plan {
  const key = fields.join(",");
  let plan = planCache.get(key);
  if (plan) return plan;
  const cols = new Set(["pk", "rank"]);
  const relations: Relation[] = [];
  const list: [string, ColumnField | Relation][] = [];
  for (const f of fields) {
    const spec = DOMAIN_FIELDS.get(f) as ColumnField | Relation;
    list.push([f, spec]);
    if (typeof spec === "string") relations.push(spec);
    else for (const c of spec.columns) cols.add(c);
  }
  plan = { columns: [...cols].map((c) => `d.${c}`).join(", "), relations, fields: list };
  planCache.set(key, plan);
  return plan;
}

// ---------------------------------------------------------------------------- relations

type Groups = Map<number, unknown[]>;

function group(pks: readonly number[], rows: Row[], item: (r: Row) => unknown, key = "domain_pk"): Groups {
  const m: Groups = new Map(pks.map((pk) => [pk, []]));
  for (const r of rows) m.get(r[key] as number)?.push(item(r));
  return m;
}

const contact = (r: Row): Out => {
  const o: Out = { type: r.type, value: r.value, source: r.source };
  if (r.description != null) o.description = r.description;
  if (r.followers != null) o.followers = r.followers;
  if (r.followers_30d != null) o.followers_30d = r.followers_30d;
  if (r.followers_90d != null) o.followers_90d = r.followers_90d;
  if (r.posts != null) o.posts = r.posts;
  if (r.likes != null) o.likes = r.likes;
  return o;
};

const technology = (r: Row): Out => {
  const o: Out = {
    name: r.name,
    description: r.description,
    vendor_url: r.vendor_url,
    icon_url: r.icon_url,
    installed_at: dateTime(r.installed_at),
    installs: r.installs,
  };
  if (r.categories != null) o.categories = json(r.categories);
  return o;
};

const APP_COLUMNS = [
  "id",
  "token",
  "platform",
  "name",
  "description",
  "app_store_url",
  "icon_url",
  "average_rating",
  "review_count",
  "state",
  "created_at",
  "installs",
  "instp",
  "installs_30d",
  "installs_90d",
  "reviews_30d",
  "reviews_90d",
  "free_trial_duration",
  "vendor_name",
  "vendor_email",
  "vendor_url",
  "vendor_website",
  "vendor_address",
  "vendor_country_code",
];

/** A Domain's App: installed_at and removed_at, then the App's default fields. */
function installedApp(r: Row, categories: Groups, plans: Groups, integrations: Groups): Out {
  const pk = r.app_pk as number;
  const o: Out = { installed_at: dateTime(r.installed_at) };
  if (r.removed_at != null) o.removed_at = dateTime(r.removed_at);
  o.id = r.id;
  o.token = r.token;
  o.platform = r.platform;
  o.name = r.name;
  o.description = r.description;
  o.app_store_url = r.app_store_url;
  o.icon_url = r.icon_url;
  o.average_rating = r.average_rating;
  o.review_count = r.review_count;
  o.categories = categories.get(pk) ?? [];
  o.state = r.state;
  o.created_at = localDateTime(r.created_at);
  if (r.installs != null) o.installs = r.installs;
  if (r.instp != null) o.instp = r.instp;
  if (r.installs_30d != null) o.installs_30d = r.installs_30d;
  if (r.installs_90d != null) o.installs_90d = r.installs_90d;
  if (r.reviews_30d != null) o.reviews_30d = r.reviews_30d;
  if (r.reviews_90d != null) o.reviews_90d = r.reviews_90d;
  const integrates = integrations.get(pk);
  if (integrates?.length) o.integrates_with = integrates;
  o.plans = plans.get(pk) ?? [];
  if (r.free_trial_duration != null) o.free_trial_duration = r.free_trial_duration;
  o.vendor_name = r.vendor_name;
  if (r.vendor_email != null) o.vendor_email = r.vendor_email;
  if (r.vendor_url != null) o.vendor_url = r.vendor_url;
  if (r.vendor_website != null) o.vendor_website = r.vendor_website;
  if (r.vendor_address != null) o.vendor_address = r.vendor_address;
  if (r.vendor_country_code != null) o.vendor_country_code = r.vendor_country_code;
  return o;
}

const appPlan = (r: Row): Out =>
  r.monthly_cost_cents == null
    ? { name: r.name, monthly_cost: r.monthly_cost }
    : { name: r.name, monthly_cost: r.monthly_cost, monthly_cost_cents: r.monthly_cost_cents };

/** Reads the relations of a page of Domains: one statement per child table, all at once. */
async function readRelations(db: Db, pks: number[], relations: Relation[]): Promise<Map<Relation, Groups>> {
  const out = new Map<Relation, Groups>();
  if (pks.length === 0 || relations.length === 0) return out;
  const jobs: Promise<void>[] = [];
  const run = (sql: (q: Params) => string, then: (rows: Row[]) => void) => {
    const q = new Params(db.kind);
    const text = sql(q);
    jobs.push(db.all(text, q.values).then(then));
  };
  // The Domains' apps and, through the same domain_pk list, the Apps' own lists.
  let appRows: Row[] | null = null;
  let appCategories: Groups = new Map();
  let appPlans: Groups = new Map();
  let appIntegrations: Groups = new Map();
  for (const rel of relations) {
    if (rel in LISTS) {
      const [table, col] = LISTS[rel as Child];
      run(
        (q) =>
          `SELECT domain_pk, ${col} AS v FROM ${db.t(table)} WHERE ${q.in("domain_pk", pks)} ORDER BY domain_pk, ${col}`,
        (rows) =>
          out.set(
            rel,
            group(pks, rows, (r) => r.v),
          ),
      );
    } else if (rel === "contact_info") {
      run(
        (q) =>
          `SELECT domain_pk, type, value, source, description, followers, followers_30d, followers_90d, posts, likes
           FROM ${db.t("domain_contact")} WHERE ${q.in("domain_pk", pks)} ORDER BY domain_pk, position`,
        (rows) => out.set(rel, group(pks, rows, contact)),
      );
    } else if (rel === "technologies") {
      run(
        (q) =>
          `SELECT dt.domain_pk, dt.installed_at, t.name, t.description, t.vendor_url, t.icon_url, t.installs, t.categories
           FROM ${db.t("domain_technology")} dt JOIN ${db.t("technology")} t ON t.pk = dt.technology_pk
           WHERE ${q.in("dt.domain_pk", pks)} ORDER BY dt.domain_pk, dt.installed_at, dt.technology_pk`,
        (rows) => out.set(rel, group(pks, rows, technology)),
      );
    } else if (rel === "apps") {
      const appsOf = (q: Params) =>
        `SELECT DISTINCT app_pk FROM ${db.t("domain_app")} WHERE ${q.in("domain_pk", pks)}`;
      run(
        (q) =>
          `SELECT da.domain_pk, da.app_pk, da.installed_at, da.removed_at, ${APP_COLUMNS.map((c) => `a.${c}`).join(", ")}
           FROM ${db.t("domain_app")} da JOIN ${db.t("app")} a ON a.pk = da.app_pk
           WHERE ${q.in("da.domain_pk", pks)} ORDER BY da.domain_pk, da.installed_at, da.app_pk`,
        (rows) => {
          appRows = rows;
        },
      );
      run(
        (q) =>
          `SELECT app_pk, category FROM ${db.t("app_category")} WHERE app_pk IN (${appsOf(q)}) ORDER BY app_pk, category`,
        (rows) => {
          appCategories = byApp(rows, (r) => r.category);
        },
      );
      run(
        (q) =>
          `SELECT app_pk, name, monthly_cost, monthly_cost_cents FROM ${db.t("app_plan")}
           WHERE app_pk IN (${appsOf(q)}) ORDER BY app_pk, position`,
        (rows) => {
          appPlans = byApp(rows, appPlan);
        },
      );
      run(
        (q) =>
          `SELECT app_pk, value FROM ${db.t("app_integration")} WHERE app_pk IN (${appsOf(q)}) ORDER BY app_pk, position`,
        (rows) => {
          appIntegrations = byApp(rows, (r) => r.value);
        },
      );
    }
  }
  await Promise.all(jobs);
  if (appRows) {
    out.set(
      "apps",
      group(pks, appRows, (r) => installedApp(r, appCategories, appPlans, appIntegrations)),
    );
  }
  return out;
}

/** Rows of an App's list grouped under its pk. */
function byApp(rows: Row[], item: (r: Row) => unknown): Groups {
  const m: Groups = new Map();
  for (const r of rows) {
    const pk = r.app_pk as number;
    let g = m.get(pk);
    if (!g) {
      g = [];
      m.set(pk, g);
    }
    g.push(item(r));
  }
  return m;
}

/** A Domain row and its relations → the legacy JSON object. */
function toDomain(row: Row, plan: Plan, relations: Map<Relation, Groups>): Out {
  const o: Out = {};
  const pk = row.pk as number;
  for (const [name, spec] of plan.fields) {
    if (typeof spec === "string") {
      const items = relations.get(spec)?.get(pk);
      if (items?.length) o[name] = items;
    } else {
      const v = spec.value(row);
      if (v != null) o[name] = v;
    }
  }
  return o;
}

// ---------------------------------------------------------------------------- the two requests

/** A name as the API normalizes it (case-insensitive, no trailing dot). */
function normalizeName(raw: string): string {
  const n = raw.trim().toLowerCase().replace(/\.$/, "");
  if (!/^[a-z0-9_.-]+$/.test(n) || n.length > 253)
    throw new BadRequest(
      400,
      "BAD_USER_INPUT",
      `domain name: "${raw}" is not a domain name such as shop.example.com`,
    );
  return n;
}

function refuseOthers(params: URLSearchParams, allowed: readonly string[]): void {
  for (const key of new Set(params.keys())) {
    if (!allowed.includes(key))
      throw new BadRequest(400, "BAD_USER_INPUT", `${key}: not supported by the baseline`);
    if (params.getAll(key).length > 1)
      throw new BadRequest(400, "BAD_USER_INPUT", `${key}: given ${params.getAll(key).length} times`);
  }
}

async function retrieveDomain(db: Db, rawName: string, params: URLSearchParams): Promise<unknown> {
  refuseOthers(params, ["fields"]);
  const plan = planOf(parseFields(params.get("fields") ?? undefined));
  const name = normalizeName(rawName);
  const q = new Params(db.kind);
  // By name, or else by platform domain (the name wins when both match).
  const sql = `SELECT ${plan.columns} FROM ${db.t("domain")} d WHERE d.name = ${q.p(name)} OR d.platform_domain = ${q.p(name)}
    ORDER BY CASE WHEN d.name = ${q.p(name)} THEN 0 ELSE 1 END LIMIT 1`;
  const [row] = await db.all(sql, q.values);
  if (!row) throw new BadRequest(404, "NOT_FOUND", `Domain ${rawName} not found`);
  const relations = await readRelations(db, [row.pk as number], plan.relations);
  return { domain: toDomain(row, plan, relations) };
}

const LIST_OPTIONS = ["fields", "sort", "page_size", "f:cc", "f:features", "f:an"] as const;
const FILTERS = [
  ["f:cc", "countryCode"],
  ["f:features", "features"],
  ["f:an", "apps"],
] as const;
const SORT_KEYS = toSortKeys(DOMAIN_SORTS, null, [{ field: "RANK", direction: "asc" }]);

async function listDomains(db: Db, params: URLSearchParams): Promise<unknown> {
  refuseOthers(params, LIST_OPTIONS);
  const plan = planOf(parseFields(params.get("fields") ?? undefined));
  const sort = (params.get("sort") ?? "").trim();
  if (sort !== "" && sort !== "rank" && sort !== "+rank")
    throw new BadRequest(400, "BAD_USER_INPUT", "sort: the baseline sorts by rank only");
  const sizeText = (params.get("page_size") ?? "").trim();
  const size = sizeText === "" ? 50 : /^\d+$/.test(sizeText) ? Number(sizeText) : Number.NaN;
  if (!Number.isInteger(size) || size < 1 || size > 1000)
    throw new BadRequest(400, "BAD_USER_INPUT", "page_size: must be an integer from 1 to 1000");

  // The filter as the API receives it (its cursor fingerprints it), and each value normalized.
  const filter: Record<string, { values: string[]; op: string }> = {};
  const value: Record<string, string> = {};
  for (const [option, name] of FILTERS) {
    const raw = params.get(option);
    if (raw === null || raw.trim() === "") continue;
    const values = splitList(raw);
    if (values.length !== 1 || values[0] === "")
      throw new BadRequest(400, "BAD_USER_INPUT", `${option}: the baseline takes exactly one value`);
    const v = DOMAIN_LIST_FILTERS[name].normalize?.(values[0]) ?? values[0];
    if (typeof v !== "string") throw new BadRequest(400, "BAD_USER_INPUT", `${option}: ${v.problem}`);
    filter[name] = { values, op: "and" };
    value[name] = v;
  }

  const q = new Params(db.kind);
  const where: string[] = [];
  if (value.countryCode !== undefined) where.push(`d.country_code = ${q.p(value.countryCode)}`);
  if (value.features !== undefined)
    where.push(
      `EXISTS (SELECT 1 FROM ${db.t("domain_feature")} f WHERE f.domain_pk = d.pk AND f.feature = ${q.p(value.features)})`,
    );
  if (value.apps !== undefined) {
    // The App's key first, then Domains by that key: with the key a literal, PostgreSQL plans for
    // this App's installs (a subquery for it leaves the planner an average App, and a popular App's
    // filtered list at 1,000,000 Domains then took seconds). storegraph does the same
    // (resolveKeys, src/query/named-keys.ts).
    const dot = value.apps.indexOf(".");
    const a = new Params(db.kind);
    const [app] = await db.all(
      `SELECT pk FROM ${db.t("app")} WHERE platform = ${a.p(value.apps.slice(0, dot))} AND token = ${a.p(value.apps.slice(dot + 1))}`,
      a.values,
    );
    where.push(
      `EXISTS (SELECT 1 FROM ${db.t("domain_app")} a WHERE a.domain_pk = d.pk AND a.removed_at IS NULL
        AND a.app_pk = ${q.p(app ? (app.pk as number) : -1)})`,
    );
  }
  const sql = `SELECT ${plan.columns} FROM ${db.t("domain")} d ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
    ORDER BY d.rank, d.pk LIMIT ${q.p(size + 1)}`;
  const rows = await db.all(sql, q.values);
  const page = rows.length > size ? rows.slice(0, size) : rows;
  const relations = await readRelations(
    db,
    page.map((r) => r.pk as number),
    plan.relations,
  );
  const domains = page.map((r) => toDomain(r, plan, relations));
  if (rows.length <= size) return { domains, has_next_page: false };
  const last = page[page.length - 1];
  // As connectionPage scopes a cursor: the root, filter and search, then the sort keys.
  const scope = fingerprint(["domains", filter, null, SORT_KEYS]);
  return {
    domains,
    has_next_page: true,
    next_cursor: encodeCursor(db.version, scope, [last.rank as number, last.pk as number]),
  };
}

// ---------------------------------------------------------------------------- the server

const BASE = "/json/api/v1/all/domain";

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(text);
}

async function handle(db: Db, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const url = new URL(req.url ?? "/", "http://baseline");
    if (req.method !== "GET")
      throw new BadRequest(405, "METHOD_NOT_ALLOWED", "the baseline answers GET only");
    const path = url.pathname;
    if (path === BASE || path === `${BASE}/`) return send(res, 200, await listDomains(db, url.searchParams));
    if (path.startsWith(`${BASE}/`)) {
      const rest = path.slice(BASE.length + 1).replace(/\/$/, "");
      if (rest !== "" && !rest.includes("/") && rest !== "bulk" && rest !== "export") {
        let name: string;
        try {
          name = decodeURIComponent(rest);
        } catch {
          throw new BadRequest(400, "BAD_USER_INPUT", "the path has a malformed percent-encoding");
        }
        return send(res, 200, await retrieveDomain(db, name, url.searchParams));
      }
    }
    throw new BadRequest(404, "NOT_FOUND", `no such path in the baseline: ${path}`);
  } catch (e) {
    // Error bodies as the API's: with the request's id (src/ops/request-id.ts).
    const request_id = randomUUID();
    if (e instanceof BadRequest) return send(res, e.status, { error: e.message, code: e.code, request_id });
    console.error(e);
    send(res, 500, { error: "Unexpected error", code: "INTERNAL_SERVER_ERROR", request_id });
  }
}

export async function startBaseline(opts: BaselineOptions): Promise<Baseline> {
  const db = await openDb(opts.kind, opts.config, opts.poolSize ?? 10);
  const server = createServer((req, res) => {
    void handle(db, req, res);
  });
  server.keepAliveTimeout = 65_000;
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await db.close();
    },
  };
}

// `node --import tsx src/bench/baseline.ts`
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", ...process.env });
  const baseline = await startBaseline({
    kind: config.database.kind,
    config,
    port: config.port,
    host: config.host,
  });
  console.log(`baseline listening on ${baseline.url}`);
  const stop = () => {
    void baseline.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
