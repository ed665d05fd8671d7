import type { SnapshotStore } from "./store.ts";

/**
 * Reads of the change feed (`change_event` in the meta database; written by the loads:
 * src/db/change-sql.ts, and the stores' publish). Statements are the same on both databases
 * (`?` markers, `{meta}.` before each table: SnapshotStore.metaQuery).
 */
export type MetaStore = Pick<SnapshotStore, "metaQuery" | "kind">;

export interface ChangeRow {
  id: number;
  version: number;
  loadedAt: number;
  kind: string;
  domain: string | null;
  app: string | null;
  appId: string | null;
  appName: string | null;
  technology: string | null;
  before: string | null;
  after: string | null;
}

/** Which events: all of them conditions, ANDed; feed order (by id) after `after`. */
export interface FeedWhere {
  after: number;
  /** Events of snapshots up to this version (the served one: a gateway never shows a newer). */
  served: number;
  kinds?: readonly string[];
  sinceVersion?: number;
  untilVersion?: number;
  sinceMs?: number;
  untilMs?: number;
  app?: string;
  technology?: string;
  /** Events of these Domains only. */
  domains?: readonly string[];
  /** Events of Domains only (an App's own events have none). */
  domainEvents?: boolean;
}

/** The feed's ends: the last id ever given, and the last one pruned (0 for none). */
export interface FeedBounds {
  lastId: number;
  prunedThrough: number;
}

export async function feedBounds(meta: MetaStore): Promise<FeedBounds> {
  const [row] = await meta.metaQuery("SELECT last_id, pruned_through FROM {meta}.change_feed WHERE id = 1");
  return { lastId: Number(row?.last_id ?? 0), prunedThrough: Number(row?.pruned_through ?? 0) };
}

/** Up to `limit` events matching `where`, in feed order. */
export async function readChanges(meta: MetaStore, where: FeedWhere, limit: number): Promise<ChangeRow[]> {
  const terms = ["id > ?", "version <= ?"];
  const params: unknown[] = [where.after, where.served];
  const term = (sql: string, ...values: unknown[]) => {
    terms.push(sql);
    params.push(...values);
  };
  if (where.kinds?.length) term(`kind IN (${where.kinds.map(() => "?").join(", ")})`, ...where.kinds);
  if (where.sinceVersion !== undefined) term("version > ?", where.sinceVersion);
  if (where.untilVersion !== undefined) term("version <= ?", where.untilVersion);
  if (where.sinceMs !== undefined) term("loaded_at >= ?", where.sinceMs);
  if (where.untilMs !== undefined) term("loaded_at < ?", where.untilMs);
  if (where.app !== undefined) term("app = ?", where.app);
  if (where.technology !== undefined) term("technology = ?", where.technology);
  if (where.domains) {
    if (!where.domains.length) return [];
    term(`domain IN (${where.domains.map(() => "?").join(", ")})`, ...where.domains);
  } else if (where.domainEvents) terms.push("domain IS NOT NULL");
  params.push(limit);
  const rows = await meta.metaQuery(
    `SELECT id, version, loaded_at, kind, domain, app, app_id, app_name, technology, before, after
     FROM {meta}.change_event WHERE ${terms.join(" AND ")} ORDER BY id LIMIT ?`,
    params,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    version: Number(r.version),
    loadedAt: Number(r.loaded_at),
    kind: r.kind as string,
    domain: (r.domain as string | null) ?? null,
    app: (r.app as string | null) ?? null,
    appId: (r.app_id as string | null) ?? null,
    appName: (r.app_name as string | null) ?? null,
    technology: (r.technology as string | null) ?? null,
    before: (r.before as string | null) ?? null,
    after: (r.after as string | null) ?? null,
  }));
}
