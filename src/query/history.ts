import { type ReadContext, servedOf } from "../context.ts";
import { type ChangeRow, domainEvents, feedStart, type MetaStore } from "../db/change-feed.ts";
import { type FeedCursor, parseFeedCursor } from "../db/feed-cursor.ts";
import { type TrendLoadRow, type TrendRange, topValues, trendLoads, valueCounts } from "../db/history.ts";
import { apiError, InputError } from "../errors.ts";
import { point, readerOf } from "./changes.ts";
import { DEFAULT_FACET_SIZE, FACETS, MAX_FACET_SIZE } from "./facets.ts";
import { pageSize } from "./page.ts";

/**
 * History (docs/decisions.md, "History"): the trends of a facet dimension across the loads the
 * meta database keeps counts of (src/db/history.ts), a Domain's events newest first, and a Domain
 * as it was at a load, replayed backward from the served snapshot through its events.
 */

function metaOf(ctx: ReadContext): MetaStore {
  if (!ctx.meta) throw new Error("history is read without the meta store");
  return ctx.meta;
}

// ---------------------------------------------------------------------- trends

export const MAX_TREND_VALUES = MAX_FACET_SIZE;

export interface TrendArgs {
  /** A dimension of FACETS[table] (its key: technologies, countryCode, …). */
  dimension: string;
  values?: readonly string[] | null;
  since?: string | null;
  until?: string | null;
  top?: number | null;
}

export interface TrendLoad extends TrendLoadRow {
  /** Each value's count in this load (0: the load had none of it). */
  counts: Record<string, number>;
}

export interface Trend {
  /** The dimension, as facet_summary names it (`domain.technologies`). */
  dimension: string;
  values: string[];
  loads: TrendLoad[];
}

/** Where `since` and `until` put a trend's bounds (versions included; times as the feed's). */
function trendRange(served: number, args: TrendArgs): TrendRange {
  const range: TrendRange = { served };
  if (args.since != null) {
    const p = point(args.since, "since");
    if ("version" in p) range.sinceVersion = p.version;
    else range.sinceMs = p.ms;
  }
  if (args.until != null) {
    const p = point(args.until, "until");
    if ("version" in p) range.untilVersion = p.version;
    else range.untilMs = p.ms;
  }
  return range;
}

/**
 * `dimension`'s counts in every load kept within the range, oldest first: of `values`, or, without
 * them, of the top `top` values of the newest load of the range.
 */
export async function trendOf(ctx: ReadContext, table: "domain" | "app", args: TrendArgs): Promise<Trend> {
  if (!(args.dimension in FACETS[table].dimensions))
    throw new InputError("dimension", `unknown dimension "${args.dimension}"`);
  const meta = metaOf(ctx);
  const dimension = `${table}.${args.dimension}`;
  const range = trendRange(servedOf(ctx).snapshot.version, args);
  let values: string[];
  if (args.values != null) {
    values = [...new Set(args.values.map((v) => v.trim()))];
    if (!values.length || values.length > MAX_TREND_VALUES || values.some((v) => v === ""))
      throw new InputError("values", `must name 1 to ${MAX_TREND_VALUES} values, none blank`);
  } else values = [];
  const top = args.top == null ? DEFAULT_FACET_SIZE : args.top;
  if (!Number.isInteger(top) || top < 1 || top > MAX_FACET_SIZE)
    throw new InputError("top", `must be 1 to ${MAX_FACET_SIZE}`);
  const loads = await trendLoads(meta, dimension, range);
  if (args.values == null && loads.length)
    values = await topValues(meta, dimension, loads[loads.length - 1].version, top);
  const counts = await valueCounts(meta, dimension, values, range);
  return {
    dimension,
    values,
    loads: loads.map((l) => {
      const of = counts.get(l.version);
      return { ...l, counts: Object.fromEntries(values.map((v) => [v, of?.get(v) ?? 0])) };
    }),
  };
}

// ---------------------------------------------------------------------- a Domain's history

export const DEFAULT_HISTORY = 100;
export const MAX_HISTORY = 1000;

export interface HistoryPage {
  nodes: ChangeRow[];
  hasNextPage: boolean;
  /** The last event of the page (the next page holds the older ones); null on an empty page. */
  endCursor: string | null;
}

/** The events of the Domain `name` in the feed, newest first, before the event `after`. */
export async function historyPage(
  ctx: ReadContext,
  name: string,
  args: { first?: number | null; after?: string | null },
): Promise<HistoryPage> {
  const first = args.first == null ? DEFAULT_HISTORY : pageSize(args.first, MAX_HISTORY);
  let before: FeedCursor | undefined;
  if (args.after != null) {
    const given = parseFeedCursor(args.after);
    if (!given) throw new InputError("after", "is not a cursor of the change feed");
    before = given;
  }
  const rows = await domainEvents(
    metaOf(ctx),
    readerOf(ctx),
    name,
    servedOf(ctx).snapshot.version,
    first + 1,
    before,
  );
  const nodes = rows.slice(0, first);
  return {
    nodes,
    hasNextPage: rows.length > first,
    endCursor: nodes.length ? nodes[nodes.length - 1].id : null,
  };
}

// ---------------------------------------------------------------------- a Domain as it was

/** What the feed covers of a Domain (docs/decisions.md, "History"), as an as-of answer names them. */
export const AS_OF_FIELDS = [
  "state",
  "platform",
  "plan",
  "country_code",
  "theme",
  "rank",
  "apps",
  "technologies",
] as const;

/** A Domain's state as the feed records it (domain_added's after, domain_removed's before). */
interface FeedState {
  state: string | null;
  platform: string | null;
  plan: string | null;
  country_code: string | null;
  theme: string | null;
  rank: number | null;
  apps: string[];
  technologies: string[];
}

export interface DomainAsOf extends FeedState {
  name: string;
  /** The load it is as of, and when it was published. */
  version: number;
  publishedAt: Date;
  /** The load whose rank `rank` is: the last recorded at or before `version`. */
  rankVersion: number;
  /** The fields it answers: what the feed covers. */
  covers: readonly string[];
}

interface Load {
  version: number;
  publishedAt: Date;
}

/** The published loads up to `served`, newest first. */
async function publishedLoads(meta: MetaStore, served: number): Promise<Load[]> {
  const at = meta.kind === "postgresql" ? "(extract(epoch from finished_at) * 1000)::bigint" : "finished_at";
  const rows = await meta.metaQuery(
    `SELECT version, ${at} AS at FROM {meta}.snapshot WHERE status IN ('ready', 'retired') AND version <= ? ORDER BY version DESC`,
    [served],
  );
  return rows.map((r) => ({ version: Number(r.version), publishedAt: new Date(Number(r.at)) }));
}

/** The load `asOf` names: a published version, or the newest published at or before a time. */
function loadOf(loads: Load[], asOf: string): Load {
  const p = point(asOf, "asOf");
  if ("version" in p) {
    const load = loads.find((l) => l.version === p.version);
    if (!load)
      throw new InputError(
        "asOf",
        `version ${p.version} is not a published load up to the served one (${loads[0]?.version ?? "none"})`,
      );
    return load;
  }
  const load = loads.find((l) => l.publishedAt.getTime() <= p.ms);
  if (!load)
    throw new InputError("asOf", `no load was published at or before ${new Date(p.ms).toISOString()}`);
  return load;
}

/**
 * Where the served snapshot lacks the Domain `name` because a load removed it (its newest event in
 * the feed is its removal), the hint its 404 gives: the load it left in, and how to read it as it
 * was at the load before. "" when the feed knows no such removal (or there is no feed to ask).
 */
export async function removedHint(ctx: ReadContext, name: string): Promise<string> {
  if (!ctx.meta) return "";
  const served = servedOf(ctx).snapshot.version;
  const [newest] = await domainEvents(ctx.meta, readerOf(ctx), name, served, 1);
  if (newest?.kind !== "domain_removed") return "";
  const before = (await publishedLoads(ctx.meta, served)).find((l) => l.version < newest.version);
  if (!before) return `: it left in version ${newest.version}`;
  return `: it left in version ${newest.version}; as it was in the load before, version ${before.version}: as_of=${before.version} (GraphQL: domainAsOf)`;
}

/** The Domain `name` as the served snapshot has it, or null. */
async function currentState(ctx: ReadContext, name: string): Promise<FeedState | null> {
  const sql = servedOf(ctx).sql;
  const [row] = await sql.all(
    `SELECT d."pk", d."state", d."platform", d."plan", d."country_code", d."theme_name", d."rank" FROM ${sql.table("domain")} d WHERE d."name" = $1`,
    [name],
  );
  if (!row) return null;
  const [apps, technologies] = await Promise.all([
    sql.all(
      `SELECT a."platform" || '.' || a."token" FROM ${sql.table("domain_app")} da JOIN ${sql.table("app")} a ON a."pk" = da."app_pk" WHERE da."domain_pk" = $1 AND da."removed_at" IS NULL`,
      [row[0]],
    ),
    sql.all(
      `SELECT t."name" FROM ${sql.table("domain_technology")} dt JOIN ${sql.table("technology")} t ON t."pk" = dt."technology_pk" WHERE dt."domain_pk" = $1`,
      [row[0]],
    ),
  ]);
  return {
    state: row[1] as string | null,
    platform: row[2] as string | null,
    plan: row[3] as string | null,
    country_code: row[4] as string | null,
    theme: row[5] as string | null,
    rank: row[6] == null ? null : Number(row[6]),
    apps: apps.map((r) => r[0] as string),
    technologies: technologies.map((r) => r[0] as string),
  };
}

const SCALAR_KINDS: Partial<Record<ChangeRow["kind"], keyof FeedState>> = {
  state_changed: "state",
  platform_changed: "platform",
  plan_changed: "plan",
  country_changed: "country_code",
  theme_changed: "theme",
};

/** The state a domain_added or domain_removed carries. */
function stateOf(value: unknown): FeedState {
  const v = value as Record<string, unknown>;
  return {
    state: (v.state as string | null) ?? null,
    platform: (v.platform as string | null) ?? null,
    plan: (v.plan as string | null) ?? null,
    country_code: (v.country_code as string | null) ?? null,
    theme: (v.theme as string | null) ?? null,
    rank: v.rank == null ? null : Number(v.rank),
    apps: [...((v.apps as string[] | null) ?? [])],
    technologies: [...((v.technologies as string[] | null) ?? [])],
  };
}

/** The most events one Domain has across the feed that a replay reads. */
const REPLAY_EVENTS = 100_000;

/**
 * The Domain `name` as it was at the load `asOf` names: the served snapshot's state, its events of
 * later loads undone newest first. 404 when it was not in that load (naming the load it appeared
 * in, or left in, where the feed knows it); 410 when the feed pruned the events of a load since.
 */
export async function domainAsOf(ctx: ReadContext, name: string, asOf: string): Promise<DomainAsOf> {
  const meta = metaOf(ctx);
  const served = servedOf(ctx).snapshot.version;
  const loads = await publishedLoads(meta, served);
  const load = loadOf(loads, asOf);
  if (load.version < served) {
    // The events of every load after it must be kept: those from the oldest event the feed has on
    // (loads older than it were pruned, or had none), so the loads after the one before it.
    const start = await feedStart(meta);
    if (start.prunedThrough > 0) {
      const first = start.version ?? served + 1;
      const before = loads.find((l) => l.version < first)?.version ?? first;
      if (load.version < before)
        throw apiError(
          "CURSOR_EXPIRED",
          `asOf: the events of the loads after version ${load.version} were pruned (the feed keeps the events of the last loads, CHANGES_RETENTION): the oldest load a Domain is answered as of is version ${before}`,
          { argument: "asOf" },
        );
    }
  }
  const events = await domainEvents(
    meta,
    readerOf(ctx),
    name,
    served,
    REPLAY_EVENTS,
    undefined,
    load.version,
  );
  let state = await currentState(ctx, name);
  // The previous published load of each version (the one whose state an event's `before` is).
  const previous = (version: number) => loads.find((l) => l.version < version)?.version ?? version;
  let rankVersion = served;
  let appeared: number | null = null;
  for (const e of events) {
    if (e.kind === "domain_added") {
      state = null;
      appeared = e.version;
      continue;
    }
    if (e.kind === "domain_removed") {
      state = stateOf(e.before);
      rankVersion = previous(e.version);
      continue;
    }
    if (!state) continue;
    const scalar = SCALAR_KINDS[e.kind];
    if (scalar) (state as unknown as Record<string, unknown>)[scalar] = e.before;
    else if (e.kind === "rank_changed") {
      state.rank = e.before == null ? null : Number(e.before);
      rankVersion = previous(e.version);
    } else if (e.kind === "app_installed" && e.app)
      state.apps = state.apps.filter((a) => a !== e.app?.identifier);
    else if (e.kind === "app_uninstalled" && e.app) state.apps.push(e.app.identifier);
    else if (e.kind === "technology_added" && e.technology)
      state.technologies = state.technologies.filter((t) => t !== e.technology);
    else if (e.kind === "technology_removed" && e.technology) state.technologies.push(e.technology);
  }
  if (!state) {
    const [left] = (await domainEvents(meta, readerOf(ctx), name, load.version, 50)).filter(
      (e) => e.kind === "domain_removed",
    );
    const told = [
      appeared !== null ? `it appeared in version ${appeared}` : null,
      left ? `it left in version ${left.version}` : null,
    ].filter(Boolean);
    throw apiError(
      "NOT_FOUND",
      `Domain "${name}" was not in the load of version ${load.version}${told.length ? `: ${told.join("; ")}` : ""}`,
      { ...(appeared !== null ? { appeared } : {}), ...(left ? { left: left.version } : {}) },
    );
  }
  const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    name,
    version: load.version,
    publishedAt: load.publishedAt,
    ...state,
    apps: [...new Set(state.apps)].sort(byBytes),
    technologies: [...new Set(state.technologies)].sort(byBytes),
    rankVersion,
    covers: AS_OF_FIELDS,
  };
}
