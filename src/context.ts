import type { Snapshots } from "./db/snapshots.ts";

/** Per-request GraphQL context. */
export interface Context {
  snapshots: Snapshots;
}
