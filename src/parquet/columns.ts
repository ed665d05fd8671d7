import { createHash } from "node:crypto";
import { z } from "zod";
import type { SnapshotFile } from "../dataset/load/read.ts";
import { AppRecord, DomainRecord, ReviewRecord } from "../dataset/record.ts";
import { date, localTime, timestamp } from "../dataset/record-fields.ts";
import { ChangeRecord } from "./change-record.ts";

/**
 * The columns of a snapshot's Parquet files (docs/parquet.md), made from the records' zod schemas
 * (src/dataset/record.ts), the one statement of what a record holds: a field added there is a
 * column here, typed by its form. Types are DuckDB's SQL names, which the writer (write.ts) casts
 * the JSON Lines to and which Parquet stores as:
 *
 * - an integer as INT64 (BIGINT), a number as DOUBLE, a boolean as BOOLEAN;
 * - an RFC 3339 timestamp as TIMESTAMP(MICROS, UTC) (TIMESTAMPTZ), a local time without zone as
 *   TIMESTAMP(MICROS) (TIMESTAMP), a date as DATE;
 * - any other string (enumerations too) as STRING;
 * - a list as a LIST, an object as a STRUCT (nested columns in DuckDB, BigQuery, Snowflake,
 *   Spark), a map of names as a MAP;
 * - a field that is a string or a list of strings (a Domain's `keywords`) as two columns: the list
 *   under its name, the string under `<name>_text`, one of them set.
 */

export interface Column {
  name: string;
  /** DuckDB's SQL type. */
  type: string;
  /** Never null: the record requires the field. */
  required: boolean;
  /** What the column is read as from a line, when not `type` under `name` (the split unions). */
  read?: { name: string; type: string };
  /** The SQL that makes the column from the read ones, when not the column read as it is. */
  select?: string;
}

type JsonSchema = {
  type?: string;
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  enum?: unknown[];
};

const TIME_FORMATS = new Map<z.ZodType, string>([
  [timestamp, "TIMESTAMPTZ"],
  [localTime, "TIMESTAMP"],
  [date, "DATE"],
]);

/** The record's JSON Schema (zod's), with the time forms named (zod sees refined strings). */
function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override: (ctx) => {
      const time = TIME_FORMATS.get(ctx.zodSchema as unknown as z.ZodType);
      if (time) (ctx.jsonSchema as JsonSchema).format = time;
    },
  }) as JsonSchema;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** DuckDB's type for a value of `s`. */
export function sqlType(s: JsonSchema, where: string): string {
  if (s.format) return s.format;
  if (s.enum) return "VARCHAR";
  switch (s.type) {
    case "string":
      return "VARCHAR";
    case "integer":
      return "BIGINT";
    case "number":
      return "DOUBLE";
    case "boolean":
      return "BOOLEAN";
    case "array":
      if (!s.items) throw new Error(`${where}: a list without an item type`);
      return `${sqlType(s.items, `${where}[]`)}[]`;
    case "object": {
      const fields = Object.entries(s.properties ?? {});
      if (fields.length > 0)
        return `STRUCT(${fields.map(([n, f]) => `${quoted(n)} ${sqlType(f, `${where}.${n}`)}`).join(", ")})`;
      if (typeof s.additionalProperties === "object")
        return `MAP(VARCHAR, ${sqlType(s.additionalProperties, `${where}{}`)})`;
      throw new Error(`${where}: an object without fields`);
    }
  }
  throw new Error(`${where}: no Parquet type for ${JSON.stringify(s).slice(0, 200)}`);
}

const isStringOrStrings = (s: JsonSchema) =>
  s.anyOf?.length === 2 &&
  s.anyOf.some((a) => a.type === "string") &&
  s.anyOf.some((a) => a.type === "array" && a.items?.type === "string");

/** The columns of a record schema, in the schema's order. */
export function columnsOf(schema: z.ZodType): Column[] {
  const json = jsonSchemaOf(schema);
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).flatMap(([name, s]): Column[] => {
    if (isStringOrStrings(s)) {
      const read = { name, type: "JSON" };
      return [
        {
          name,
          type: "VARCHAR[]",
          required: false,
          read,
          select: `CASE WHEN json_type(${quoted(name)}) = 'ARRAY' THEN ${quoted(name)}::VARCHAR[] END`,
        },
        {
          name: `${name}_text`,
          type: "VARCHAR",
          required: false,
          select: `CASE WHEN json_type(${quoted(name)}) = 'VARCHAR' THEN ${quoted(name)}->>'$' END`,
        },
      ];
    }
    return [{ name, type: sqlType(s, name), required: required.has(name) }];
  });
}

/** The files: one of each record file, and the load's changes. */
export type ParquetKind = SnapshotFile | "changes";

/**
 * Each file's columns and the order of its rows (SQL expressions over the columns); `inOrder`: its
 * records come written in that order, and are written as they come (not sorted again).
 */
export const FILES: Record<ParquetKind, { columns: Column[]; orderBy: string[]; inOrder?: true }> = {
  // Platform first: a filter on platform reads only its row groups; rank next, the default order
  // (docs/decisions.md, "Parquet files"). The render writes the records in this order
  // (src/render.ts: fileOrder): at a million Domains DuckDB's sort of the wide rows took 43 s
  // under its 3 GB limit, its writing of them as they came 26 s in 1.2 GB.
  domains: { columns: columnsOf(DomainRecord), orderBy: ["platform", "rank", "name"], inOrder: true },
  apps: { columns: columnsOf(AppRecord), orderBy: ["platform", "id"] },
  // A review has no key: every field orders them (left to right), so a file written twice is the same.
  reviews: { columns: columnsOf(ReviewRecord), orderBy: ["ALL"] },
  // Feed order: the changes' ids are their places in the feed, 1, 2, … (docs/parquet.md).
  changes: { columns: columnsOf(ChangeRecord), orderBy: ["CAST(id AS BIGINT)"] },
};

/**
 * The files' schema version: changes when any column's name, type or nullability does (a hash of
 * them all), so a reader can tell a file it knows from one it must read anew.
 */
export const SCHEMA_VERSION = createHash("sha256")
  .update(
    JSON.stringify(
      Object.entries(FILES).map(([f, { columns }]) => [f, columns.map((c) => [c.name, c.type, c.required])]),
    ),
  )
  .digest("hex")
  .slice(0, 16);

export { quoted };
