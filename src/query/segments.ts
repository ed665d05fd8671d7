import { type ReadContext, servedOf } from "../context.ts";
import { SegmentError, SegmentNotFoundError, Segments } from "../db/segments.ts";
import { apiError, InputError } from "../errors.ts";
import { domainListWhere } from "./domain-list.ts";
import { DomainSet } from "./domain-set.ts";
import type { Where } from "./keyset.ts";
import type { SegmentArgs } from "./segment-members.ts";

/**
 * The segments of the request's account (docs/decisions.md, "Segments"; src/db/segments.ts keeps
 * them), and what a segment's filter matches in a snapshot: its `where` (List Domains' own, on the
 * snapshot and account of the context), its members (src/query/domain-set.ts) and its spread over the dimensions it names (platform, plan and
 * country by default).
 */
const stores = new WeakMap<object, Segments>();

export function segmentsOf(ctx: ReadContext): { segments: Segments; account: string } {
  if (!ctx.account) throw new Error("segments are read without an account (a request's API key)");
  const { lists: store, account } = ctx.account;
  let s = stores.get(store);
  if (!s) {
    s = new Segments(store);
    stores.set(store, s);
  }
  return { segments: s, account };
}

export {
  DEFAULT_SPREAD,
  type SegmentArgs,
  SPREAD_LIMITS,
  segmentArgsOf,
  spreadProblem,
} from "./segment-members.ts";

/** The `where` of a segment's filter on the context's snapshot and account (its errors name `filter.…`, `search`). */
export function segmentWhere(ctx: ReadContext, args: SegmentArgs): Promise<Where> {
  return domainListWhere(ctx, { filter: args.filter ?? null, search: args.search ?? null }, null, true);
}

/** The segment's members in the context's snapshot now. */
export async function segmentSize(ctx: ReadContext, args: SegmentArgs): Promise<number> {
  return new DomainSet(servedOf(ctx).sql, await segmentWhere(ctx, args)).count();
}

const NAMES = { name: "name" };

/** Runs a segment operation; its errors as the API answers them (400 naming the argument, 404). */
export async function segmenting<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof SegmentError) throw new InputError(NAMES[e.argument], e.message);
    if (e instanceof SegmentNotFoundError) throw apiError("NOT_FOUND", e.message);
    throw e;
  }
}
