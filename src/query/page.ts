import { type Context, servedOf } from "../context.ts";
import { InputError } from "../errors.ts";
import { decodeCursor, encodeCursor, fingerprint } from "./cursor.ts";
import { type FindArgs, type KeyValue, positionOf, readPage, type SortKey, type Where } from "./keyset.ts";

export interface PageArgs {
  first?: number | null;
  after?: string | null;
}

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
  ctx: Context,
  options: {
    args: PageArgs;
    max: number;
    keys: SortKey[];
    where: Where;
    scope: unknown;
    find: (args: FindArgs) => Promise<R[]>;
    count: (where: Where) => Promise<number>;
  },
): Promise<Connection<R>> {
  const { snapshot } = servedOf(ctx);
  const size = pageSize(options.args.first, options.max);
  const scope = fingerprint(options.scope);
  const after: KeyValue[] | null =
    options.args.after == null
      ? null
      : decodeCursor(options.args.after, "after", snapshot.version, scope, options.keys);
  const rows = size === 0 ? [] : await readPage(options.keys, options.where, after, size + 1, options.find);
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
      hasPreviousPage: after !== null,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: () => {
      total ??= options.count(options.where);
      return total;
    },
  };
}
