import { z } from "zod";
import type { Part } from "../rest/route.ts";
import { formsOf, memo, operationOf, type ToolSpec } from "./tool-spec.ts";

/**
 * The output schemas of the MCP tools (tools/list lists them; the SDK checks each answer against
 * its tool's): a tool's REST answer's envelope, or its own for the tools that stand for no REST
 * operation (usage, the look-up of values), or, for a tool of several forms, each form's.
 */

/**
 * A record of an answer: any object (its fields are the API's, asked by `fields`). A loose object
 * rather than a record of string keys: the SDK checks every answer against its output schema, and
 * a record checked each key (11 µs for a Domain of 60 fields, against 4.5).
 */
const RECORD = z.looseObject({});

/** An envelope key's schema (src/rest/route.ts's Part). */
function partSchema(part: Part): z.ZodType {
  if ("records" in part) return z.array(RECORD);
  if ("record" in part) return RECORD;
  const base = {
    boolean: z.boolean(),
    integer: z.number().int(),
    string: z.string(),
    "string[]": z.array(z.string()),
  }[part.type];
  // A value the answer leaves out (`when`) or gives as null (the feed's end has no cursor).
  return part.when || part.type === "string" ? base.nullable().optional() : base;
}

/**
 * A tool's output schema: its REST answer's envelope (from its route), or its own for the others.
 * The `cut` a tool adds to an answer it cuts to fit is said once, in the server's instructions,
 * not in each schema (an answer's other keys are not refused: tool-list.ts).
 */
export const outputSchemaOf = memo(outputSchema);

function outputSchema(spec: ToolSpec): z.ZodType {
  if (spec.forms) return mergedOutput(formsOf(spec).map(([, form]) => outputSchemaOf(form)));
  const op = operationOf(spec);
  if (spec.name === "export_segment")
    return z.object({
      status: z.enum(["running", "done", "dry_run"]),
      progress: z.number().int().optional(),
      total: z.number().int().optional(),
      url: z.string(),
      format: z.string(),
      fetch: z.string(),
      // With dry_run: REST's dry_run answer (domains, bytes, gzip_bytes, would_draw).
      dry_run: RECORD.optional(),
    });
  if (spec.answers === "usage") return z.object({ usage: RECORD });
  if (spec.answers === "vocabulary")
    return z.object({
      text: z.string(),
      best: z.array(
        z.object({
          // One of the vocabularies its input's kinds lists.
          kind: z.string(),
          filter: z.string(),
          value: z.string(),
          name: z.string().optional(),
          score: z.number(),
        }),
      ),
      matches: z.record(
        z.string(),
        z.array(z.object({ value: z.string(), name: z.string().optional(), score: z.number() })),
      ),
    });
  if (op?.route.facets)
    return z.looseObject({
      total: z.number().int(),
      facets: z.record(z.string(), z.array(RECORD)).optional(),
      other: z.record(z.string(), z.number()).optional(),
      missing: z.record(z.string(), z.number()).optional(),
      histograms: z.record(z.string(), z.array(RECORD)).optional(),
    });
  const shape: Record<string, z.ZodType> = {};
  for (const [key, part] of Object.entries(op?.route.envelope ?? {})) shape[key] = partSchema(part);
  return z.object(shape);
}

/**
 * The output of a tool of several forms: each form's answer. Forms of the same keys answer alike
 * (facets of Domains and of Apps); else a key of every form's answer is required, another's not.
 */
function mergedOutput(schemas: z.ZodType[]): z.ZodType {
  const shapes = schemas.map((s) => (s as z.ZodObject).shape);
  const keysOf = (shape: z.ZodRawShape) => Object.keys(shape).sort().join();
  if (shapes.every((shape) => keysOf(shape) === keysOf(shapes[0]))) return schemas[0];
  const merged: Record<string, z.ZodType> = {};
  for (const shape of shapes)
    for (const [key, schema] of Object.entries(shape))
      merged[key] ??= shapes.every((s) => key in s) ? schema : schema.optional();
  return z.object(merged);
}
