import type DataLoader from "dataloader";
import type { SelectionSetNode } from "graphql";
import type { ApiKey } from "./auth/keys.ts";
import type { RateUsage } from "./auth/rate-limit.ts";
import type { ServedSnapshot, Snapshots } from "./db/snapshots.ts";
import { apiError } from "./errors.ts";

/** Per-request GraphQL context. The snapshot is fixed for the whole request. */
export interface Context {
  snapshots: Snapshots;
  served: ServedSnapshot | null;
  /** The API key the request was authenticated with. */
  apiKey: ApiKey | null;
  /** Per-request DataLoaders by name (src/query/loaders.ts). */
  loaders: Map<string, DataLoader<unknown, unknown>>;
  /** The rate-limit budgets this request draws on (src/auth/rate-limit.ts). */
  rateUsage: RateUsage;
  /** A REST request whose records the row writer writes (src/rest/records.ts). */
  records?: RecordHandoff;
}

/**
 * The records of a REST request handed to the row writer instead of executed field by field: the
 * records' GraphQL document selects only their `name`, the planned reads read what `set` (the
 * route's `fields`) needs (src/schema/domain-columns.ts), and every row they read is kept here by
 * name (src/query/loaders.ts) for the writer.
 */
export interface RecordHandoff {
  set: SelectionSetNode;
  rows: Map<string, object>;
}

export async function createContext(
  snapshots: Snapshots,
  apiKey: ApiKey | null,
  rateUsage: RateUsage,
): Promise<Context> {
  return { snapshots, served: await snapshots.current(), apiKey, loaders: new Map(), rateUsage };
}

/** The snapshot this request reads; NOT_READY before the first load. */
export function servedOf(ctx: Context): ServedSnapshot {
  if (!ctx.served) throw apiError("NOT_READY", "no dataset has been loaded yet; try again shortly");
  return ctx.served;
}
