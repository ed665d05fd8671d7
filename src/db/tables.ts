import { MODEL } from "../generated/model.ts";

/**
 * The snapshot tables, derived from prisma/schema.prisma (src/generated/model.ts): for each, its
 * columns (database names) in model order, which is the order rows are written in, and each
 * column's kind. Writers format values per kind: `time` is epoch milliseconds, `json` JSON text.
 * A column added to the model is a column here, read by the reader and written by the writers;
 * a Domain's row is made column by column (src/dataset/load/rows.ts), so a new Domain column is
 * also loaded with no other change (docs/structure.md).
 */
export type ColumnKind = "int" | "bigint" | "float" | "text" | "json" | "time";
export type Value = number | string | null;
export type Row = Value[];

const KINDS: Record<string, ColumnKind> = {
  Int: "int",
  BigInt: "bigint",
  Float: "float",
  String: "text",
  Json: "json",
  DateTime: "time",
};

/** The models of the meta database (src/db/migrate.ts); every other model is a snapshot table. */
type MetaModel =
  | "Snapshot"
  | "ExportJob"
  | "ExportChunk"
  | "ApiKey"
  | "ChangeEvent"
  | "ChangeFeed"
  | "DomainList"
  | "DomainListItem"
  | "Segment"
  | "SegmentLoad"
  | "Webhook"
  | "WebhookDelivery"
  | "FacetTrend";
export type TableKey = Uncapitalize<Exclude<keyof typeof MODEL, MetaModel>>;

export interface Table {
  name: string;
  columns: string[];
  kinds: ColumnKind[];
  /** The model's field of each column. */
  fields: string[];
}

const META: readonly string[] = [
  "Snapshot",
  "ExportJob",
  "ExportChunk",
  "ApiKey",
  "ChangeEvent",
  "ChangeFeed",
  "DomainList",
  "DomainListItem",
  "Segment",
  "SegmentLoad",
  "Webhook",
  "WebhookDelivery",
  "FacetTrend",
] satisfies MetaModel[];

function tableOf(model: keyof typeof MODEL): Table {
  const { table, fields } = MODEL[model];
  return {
    name: table,
    columns: fields.map((f) => f.column),
    kinds: fields.map((f) => {
      const kind = KINDS[f.type];
      if (!kind) throw new Error(`${model}.${f.field}: no column kind for the Prisma type ${f.type}`);
      return kind;
    }),
    fields: fields.map((f) => f.field),
  };
}

export const TABLES = Object.fromEntries(
  (Object.keys(MODEL) as (keyof typeof MODEL)[])
    .filter((m) => !META.includes(m))
    .map((m) => [`${m[0].toLowerCase()}${m.slice(1)}`, tableOf(m)]),
) as Record<TableKey, Table>;
