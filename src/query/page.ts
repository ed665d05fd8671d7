import type DataLoader from "dataloader";
import { type ReadContext, servedOf } from "../context.ts";
import { pageKeys } from "../db/page-keys.ts";
import type { TableKey } from "../db/tables.ts";
import { countWhere } from "../db/where-sql.ts";
import { InputError } from "../errors.ts";
import { decodeCursor, encodeCursor, fingerprint } from "./cursor.ts";
import type { RecordSet } from "./facets.ts";
import {
  type FindArgs,
  type KeyValue,
  orderBy,
  positionOf,
  readPage,
  type SortKey,
  type Where,
} from "./keyset.ts";

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  /** Rows to skip (small tables only: Apps and reviews, for the legacy `page` option). */
  offset?: number | null;
}

export const MAX_OFFSET = 10_000;

export interface Connection<R> {
  edges: { cursor: string; node: R }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  /** Counted only when the field is selected. */
  totalCount: () => Promise<number>;
  /** What its facets and histograms count over: the records its totalCount counts (src/query/facets.ts). */
  scope: RecordSet | null;
}

export const DEFAULT_PAGE_SIZE = 50;

/** Checks `first` against the connection's cap. */
export function pageSize(first: number | null | undefined, max: number): number {
  if (first == null) return Math.min(DEFAULT_PAGE_SIZE, max);
  if (!Number.isInteger(first) || first < 0) throw new InputError("first", "must be an integer ≥ 0");
  if (first > max) throw new InputError("first", `must be at most ${max} for this connection; got ${first}`);
  return first;
}

/**
 * One keyset page of a connection. `scope` is everything besides the position that the cursor
 * belongs to (sort, filter, search, parent), so a cursor is refused with another query.
 */
export async function connectionPage<R extends Record<string, unknown>>(
  ctx: ReadContext,
  options: {
    args: PageArgs;
    max: number;
    keys: SortKey[];
    /**
     * The records the page is of: a set of Domains or Apps (src/query/domain-set.ts,
     * src/query/app-set.ts), which counts itself and may know a page's keys; or a table's rows
     * that `where` matches (an App's reviews). Keys the set does not give are read by a statement
     * of src/db/where-sql.ts.
     */
    of: RecordSet | { table: TableKey; where: Where };
    /** What the cursor belongs to besides its sort (root or parent, filter, search). */
    scope: readonly unknown[];
    /** Its rows by key, in one batch. */
    rows: DataLoader<number, R | null>;
    /**
     * Whether the selection reads the page (edges or pageInfo). When it does not (a totalCount or
     * facets alone), the arguments are still checked but no row is read.
     */
    page?: boolean;
  },
): Promise<Connection<R>> {
  const { snapshot, sql } = servedOf(ctx);
  const { table, where } = options.of;
  const set = "count" in options.of ? options.of : null;
  const find = async (args: FindArgs) => rowsOfKeys(options.rows, await pageKeys(sql, table, args));
  const size = pageSize(options.args.first, options.max);
  // The sort ends every cursor's scope: a cursor is a position in one order.
  const scope = fingerprint([...options.scope, options.keys]);
  const after: KeyValue[] | null =
    options.args.after == null
      ? null
      : decodeCursor(options.args.after, "after", snapshot.version, scope, options.keys);
  const offset = options.args.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0 || offset > MAX_OFFSET) {
    throw new InputError("offset", `must be an integer from 0 to ${MAX_OFFSET}`);
  }
  if (offset > 0 && after) throw new InputError("offset", "cannot be combined with after");
  let rows: R[] = [];
  if (options.page === false) {
    // Nothing of the page is selected.
  } else if (offset > 0) {
    rows = await find({
      where,
      orderBy: orderBy(options.keys),
      skip: offset,
      take: size + 1,
    });
  } else {
    // first: 0 still reads one row, so that hasNextPage tells whether there is anything. A page's
    // keys come from its set when it knows them (the count index: src/query/domain-set.ts).
    const keys = set ? await set.pageKeys(options.keys, after, size + 1) : null;
    rows = keys
      ? await rowsOfKeys(options.rows, keys)
      : await readPage(options.keys, where, after, size + 1, find);
  }
  const page = rows.slice(0, size);
  const edges = page.map((node) => ({
    cursor: encodeCursor(snapshot.version, scope, positionOf(options.keys, node)),
    node,
  }));
  let total: Promise<number> | null = null;
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > size,
      hasPreviousPage: after !== null || offset > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: () => {
      total ??= set ? set.count() : countWhere(sql, table, where);
      return total;
    },
    scope: set,
  };
}

/** The rows of `pks` through `loader`, in that order; a key without a row is a fault. */
async function rowsOfKeys<R>(loader: DataLoader<number, R | null>, pks: number[]): Promise<R[]> {
  const rows = await loader.loadMany(pks);
  return rows.map((r, i) => {
    if (r instanceof Error) throw r;
    if (r === null) throw new Error(`row ${pks[i]} vanished between the page query and its read`);
    return r;
  });
}
