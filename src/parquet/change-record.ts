import { z } from "zod";
import { AppRecord } from "../dataset/record.ts";
import { timestamp } from "../dataset/record-fields.ts";
import type { ChangeKind } from "../db/change-sql.ts";

/**
 * A row of changes.parquet (docs/parquet.md, "changes.parquet"): a change as GET /changes/export
 * writes it with the fields below, but for `loaded_at` (when its load was published, after the files
 * are written: the manifest's `loaded_at`, the same for every change of a load) and `segment` (a
 * segment's events are its account's alone, never in a shared file). Its columns are made from this
 * schema as the records' are (columns.ts).
 *
 * `before` and `after` are one struct for every kind (a Parquet column has one type): the fields a
 * kind's value may hold (docs/graphql.md, "Change feed"). A kind whose value is an object (a Domain
 * added or removed, an App added, an App installed or uninstalled) sets the fields it has; a kind
 * whose value is one value sets the field named in VALUE_FIELD (a plan_changed's `before` is
 * `{plan: "Basic"}`), the others null.
 */
const ChangeValue = z.object({
  state: z.string().optional(),
  platform: z.string().optional(),
  plan: z.string().optional(),
  country_code: z.string().optional(),
  theme: z.string().optional(),
  rank: z.int().optional(),
  apps: z.array(z.string()).optional(),
  technologies: z.array(z.string()).optional(),
  installed_at: timestamp.optional(),
  removed_at: timestamp.optional(),
  plans: AppRecord.shape.plans.optional(),
});

export const ChangeRecord = z.object({
  id: z.string(),
  version: z.int(),
  kind: z.string(),
  domain: z.string().optional(),
  app: z.object({ id: z.string(), platform: z.string(), token: z.string(), name: z.string() }).optional(),
  technology: z.string().optional(),
  before: ChangeValue.optional(),
  after: ChangeValue.optional(),
});

/** The `fields` of GET /changes/export a row of changes.parquet is written with. */
export const CHANGE_RECORD_FIELDS = Object.keys(ChangeRecord.shape).join(",");

/** The struct field that holds the value of a kind whose value is one value. */
export const VALUE_FIELD: Partial<Record<ChangeKind, keyof z.infer<typeof ChangeValue>>> = {
  state_changed: "state",
  platform_changed: "platform",
  plan_changed: "plan",
  country_changed: "country_code",
  theme_changed: "theme",
  rank_changed: "rank",
  app_removed: "state",
  app_plans_changed: "plans",
};

/** A change's `before` or `after` as the struct of its column (null stays null). */
export function asStruct(kind: ChangeKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const field = VALUE_FIELD[kind];
  return field ? { [field]: value } : value;
}
