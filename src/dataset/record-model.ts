import { z } from "zod";
import { MODEL } from "../generated/model.ts";
import { timestamp } from "./record-fields.ts";

/**
 * The Domain record against the Domain model (prisma/schema.prisma): the columns the loader
 * computes rather than reads, and a column the record does not describe yet, read as an optional
 * field of its base type (src/dataset/record.ts adds them to the record).
 */

/**
 * Columns of the Domain model that the loader computes (src/dataset/load/rows.ts) rather than
 * reads from the input field of the same name: the key, the week, the search text, and the theme
 * and review sites, which the input carries as objects.
 */
export const DOMAIN_COMPUTED_COLUMNS: readonly string[] = [
  "pk",
  "created_week",
  "search_text",
  "theme_name",
  "theme_style",
  "theme_vendor",
  "theme_version",
  "theme_cost",
  "trustpilot_review_count",
  "trustpilot_avg_rating",
  "yotpo_review_count",
  "yotpo_avg_rating",
];

/** The input form of a model column's Prisma type. */
const BASE: Record<string, () => z.ZodType> = {
  Int: () => z.int(),
  BigInt: () => z.int(),
  Float: () => z.number(),
  String: () => z.string(),
  Json: () => z.json(),
  DateTime: () => timestamp,
};

/**
 * A column of the Domain model that the record below does not describe (one just added to
 * prisma/schema.prisma) is an optional input field of its column's name and base type, so that
 * it is loaded with no other change; rules of its own are added by describing it here.
 */
export function modelOnlyFields(
  described: Record<string, unknown>,
  model: readonly { field: string; column: string; type: string }[] = MODEL.Domain.fields,
): Record<string, z.ZodType> {
  return Object.fromEntries(
    model
      .filter((f) => !(f.column in described) && !DOMAIN_COMPUTED_COLUMNS.includes(f.column))
      .map((f) => {
        const base = BASE[f.type];
        if (!base)
          throw new Error(`Domain.${f.field}: describe its input in src/dataset/record.ts (type ${f.type})`);
        return [f.column, base().optional()];
      }),
  );
}
