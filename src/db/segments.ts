import { randomUUID } from "node:crypto";
import { nameRefusal, notFound } from "./account-names.ts";
import type { MetaQuery, SnapshotStore } from "./store.ts";

/**
 * An account's segments (docs/decisions.md, "Segments"), in the meta database: a name and a saved
 * List Domains filter (GraphQL's DomainFilter as written, and a search), whose members are compared
 * at every load (src/segments.ts) and whose size and spread at each load are kept beside it
 * (`segment_load`, written by the load's publish: src/db/segment-publish.ts). The filter is checked
 * by the caller before it is saved (src/query/segments.ts), so an invalid one is never stored.
 */
export type SegmentStore = Pick<SnapshotStore, "metaQuery" | "metaTransaction">;

/** Limits of an account's segments. */
export const SEGMENT_LIMITS = {
  /** Segments an account holds. */
  segments: 100,
} as const;

/** What a segment saves: List Domains' filter and search, and the dimensions of its spread. */
export interface SegmentQuery {
  /** GraphQL's DomainFilter as a client writes it (enum names, times as text); null for none. */
  filter: Record<string, unknown> | null;
  search: string | null;
  /** Domain facet dimensions (GraphQL names) counted at each load; null for the default. */
  spread: string[] | null;
}

export interface SegmentRow extends SegmentQuery {
  name: string;
  createdAt: Date;
  /** When its filter, search or spread was last changed. */
  updatedAt: Date;
}

/** A segment at one load it lived through (`segment_load`). */
export interface SegmentLoadRow {
  version: number;
  loadedAt: Date;
  /** Its members in that load's snapshot; null when its filter could not be read then (`error`). */
  size: number | null;
  /** Domains that entered it and left it at that load. */
  entered: number;
  left: number;
  /**
   * Its members by each dimension of its spread at that load, the commonest values of each
   * ({"platform": {"shopify": 3, …}, "country_code": {…}}); null on a snapshot without a count index.
   */
  counts: Record<string, Record<string, number>> | null;
  /** Per dimension whose values were cut: the members with a value but none of those counted. */
  other: Record<string, number> | null;
  error: string | null;
}

/** A segment as a load evaluates it: every account's, with its key. */
export interface StoredSegment extends SegmentQuery {
  id: string;
  account: string;
  name: string;
}

/** A request a segment cannot take: `argument` names what was wrong. */
export class SegmentError extends Error {
  override name = "SegmentError";
  constructor(
    readonly argument: "name",
    message: string,
  ) {
    super(message);
  }
}

/** What a request naming a segment the account does not have is told. */
export const noSegment = (name: string) => notFound("segment", name);

export class SegmentNotFoundError extends Error {
  override name = "SegmentNotFoundError";
  constructor(readonly segment: string) {
    super(noSegment(segment));
  }
}

export function checkSegmentName(name: string): string {
  const refused = nameRefusal("segment", name);
  if (refused) throw new SegmentError("name", refused);
  return name;
}

const SELECT = "SELECT id, account, name, filter, search, spread, created_at, updated_at FROM {meta}.segment";

const rowOf = (r: Record<string, unknown>): SegmentRow & { id: string; account: string } => ({
  id: String(r.id),
  account: String(r.account),
  name: String(r.name),
  filter: r.filter == null ? null : (JSON.parse(String(r.filter)) as Record<string, unknown>),
  search: r.search == null ? null : String(r.search),
  spread: r.spread == null ? null : (JSON.parse(String(r.spread)) as string[]),
  createdAt: new Date(Number(r.created_at)),
  updatedAt: new Date(Number(r.updated_at)),
});

const segmentOnly = ({
  id: _id,
  account: _a,
  ...s
}: SegmentRow & { id: string; account: string }): SegmentRow => s;

const loadRowOf = (r: Record<string, unknown>): SegmentLoadRow => ({
  version: Number(r.version),
  loadedAt: new Date(Number(r.loaded_at)),
  size: r.size == null ? null : Number(r.size),
  entered: Number(r.entered),
  left: Number(r.left),
  counts: r.counts == null ? null : (JSON.parse(String(r.counts)) as SegmentLoadRow["counts"]),
  other: r.other == null ? null : (JSON.parse(String(r.other)) as SegmentLoadRow["other"]),
  error: r.error == null ? null : String(r.error),
});

export class Segments {
  constructor(private readonly store: SegmentStore) {}

  /** The account's segments, by name. */
  async all(account: string): Promise<SegmentRow[]> {
    const rows = await this.store.metaQuery(`${SELECT} WHERE account = ? ORDER BY name`, [account]);
    return rows.map((r) => segmentOnly(rowOf(r)));
  }

  async get(account: string, name: string): Promise<SegmentRow | null> {
    const [r] = await this.store.metaQuery(`${SELECT} WHERE account = ? AND name = ?`, [account, name]);
    return r ? segmentOnly(rowOf(r)) : null;
  }

  /** Every account's segments, as a load evaluates them. */
  async every(): Promise<StoredSegment[]> {
    const rows = await this.store.metaQuery(`${SELECT} ORDER BY account, name`);
    return rows.map((r) => {
      const { createdAt: _c, updatedAt: _u, ...s } = rowOf(r);
      return s;
    });
  }

  /** The segment at each load it lived through, newest first (its own rows: the feed is not read). */
  async history(account: string, name: string, limit = 52): Promise<SegmentLoadRow[]> {
    const rows = await this.store.metaQuery(
      `SELECT l.version, l.loaded_at, l.size, l.entered, l."left", l.counts, l.other, l.error
       FROM {meta}.segment_load l JOIN {meta}.segment s ON s.id = l.segment_id
       WHERE s.account = ? AND s.name = ? ORDER BY l.version DESC LIMIT ${Math.max(0, Math.floor(limit))}`,
      [account, name],
    );
    return rows.map(loadRowOf);
  }

  /**
   * Saves the segment: made when the account has none of that name (within SEGMENT_LIMITS), its
   * filter, search and spread replaced otherwise (its history stays: the next load compares under
   * the new filter and counts the new spread).
   */
  async save(
    account: string,
    name: string,
    query: SegmentQuery,
  ): Promise<{ segment: SegmentRow; created: boolean }> {
    checkSegmentName(name);
    return this.store.metaTransaction(
      async (q) => {
        const now = Date.now();
        const filter = query.filter ? JSON.stringify(query.filter) : null;
        const spread = query.spread ? JSON.stringify(query.spread) : null;
        const found = await find(q, account, name);
        const unchanged =
          found &&
          JSON.stringify(found.filter) === JSON.stringify(query.filter) &&
          found.search === query.search &&
          JSON.stringify(found.spread) === JSON.stringify(query.spread);
        if (found && !unchanged) {
          await q(
            "UPDATE {meta}.segment SET filter = ?, search = ?, spread = ?, updated_at = ? WHERE id = ?",
            [filter, query.search, spread, now, found.id],
          );
        } else if (!found) {
          const [held] = await q("SELECT count(*) AS n FROM {meta}.segment WHERE account = ?", [account]);
          if (Number(held?.n ?? 0) >= SEGMENT_LIMITS.segments) {
            throw new SegmentError(
              "name",
              `the account holds ${SEGMENT_LIMITS.segments} segments, the most it may: delete one (DELETE /segment/{name}) before saving "${name}"`,
            );
          }
          await q(
            "INSERT INTO {meta}.segment (id, account, name, filter, search, spread, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [randomUUID(), account, name, filter, query.search, spread, now, now],
          );
        }
        const after = (await find(q, account, name)) as SegmentRow & { id: string; account: string };
        return { segment: segmentOnly(after), created: !found };
      },
      { lock: `segments:${account}` },
    );
  }

  /** Deletes the segment and its history; the segment as it was, or null when the account had none. */
  async delete(account: string, name: string): Promise<SegmentRow | null> {
    checkSegmentName(name);
    return this.store.metaTransaction(
      async (q) => {
        const found = await find(q, account, name);
        if (!found) return null;
        await q("DELETE FROM {meta}.segment_load WHERE segment_id = ?", [found.id]);
        await q("DELETE FROM {meta}.segment WHERE id = ?", [found.id]);
        return segmentOnly(found);
      },
      { lock: `segments:${account}` },
    );
  }
}

async function find(q: MetaQuery, account: string, name: string) {
  const [row] = await q(`${SELECT} WHERE account = ? AND name = ?`, [account, name]);
  return row ? rowOf(row) : null;
}
