import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { TOOLS } from "./catalogue.ts";
import { outputSchemaOf } from "./tool-output.ts";
import { inputSchemaOf } from "./tool-schemas.ts";
import type { ToolSpec } from "./tool-spec.ts";

/**
 * tools/list, as an agent reads it before its first question: every tool of the catalogue with
 * its description and its input and output schemas, written once per process (the SDK writes the
 * JSON Schemas again at each tools/list, and on HTTP each request has a server of its own), and
 * written compactly: the JSON Schema keywords that say nothing (an `additionalProperties: {}`,
 * which is the default, `propertyNames: {type: "string"}`, which every JSON key meets, an empty
 * `properties`, the `$schema` line) are left out, and the annotations say only what their
 * defaults do not. The schemas mean what the SDK's own listing of them means (the SDK's client
 * checks each answer against the output schema listed here: test/mcp).
 */
let listed: Tool[] | undefined;

export function toolList(describe: (spec: ToolSpec) => string): Tool[] {
  listed ??= TOOLS.map((spec) => ({
    name: spec.name,
    title: spec.title,
    description: describe(spec),
    inputSchema: jsonSchemaOf(inputSchemaOf(spec), "input") as Tool["inputSchema"],
    outputSchema: jsonSchemaOf(outputSchemaOf(spec), "output") as Tool["outputSchema"],
    annotations: annotationsOf(spec),
  }));
  return listed;
}

/** What the hints say when their defaults (MCP: read-write, destructive, not idempotent, open world) do not. */
export function annotationsOf(spec: ToolSpec): Tool["annotations"] {
  // destructiveHint and idempotentHint are meaningful only for a tool that writes.
  if (!spec.writes) return { readOnlyHint: true, openWorldHint: false };
  // A tool that writes is destructive unless it says otherwise (MCP's default).
  return {
    ...(spec.destructive ? {} : { destructiveHint: false }),
    idempotentHint: true,
    openWorldHint: false,
  };
}

function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const json = toJsonSchemaCompat(schema as never, { strictUnions: true, pipeStrategy: io }) as Record<
    string,
    unknown
  >;
  const { $schema: _, ...rest } = json;
  return compact(rest, io) as Record<string, unknown>;
}

/** Keywords whose value is data, not a schema: kept as they are. */
const VALUES = new Set(["default", "const", "enum", "examples", "required", "type", "description", "title"]);
/** Keywords whose value maps names to schemas. */
const NAMED = new Set(["properties", "patternProperties", "$defs", "definitions"]);

/**
 * A JSON Schema without the keywords that hold for every value they could apply to. An input
 * schema keeps an empty `properties` (some clients refuse an object schema without one).
 */
export function compact(schema: unknown, io: "input" | "output" = "output"): unknown {
  if (Array.isArray(schema)) return schema.map((s) => compact(s, io));
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (VALUES.has(key)) {
      out[key] = value;
      continue;
    }
    if (key === "additionalProperties" && isEmpty(value)) continue;
    // zod writes an object's output as closed; a tool's answer is not: a cut answer carries `cut`
    // (said once, in the instructions), which a client checking the listed schema would refuse.
    if (key === "additionalProperties" && value === false && io === "output") continue;
    if (key === "propertyNames" && isStringType(value)) continue;
    if (key === "properties" && isEmpty(value) && io === "output") continue;
    if (key === "items" && isEmpty(value)) continue;
    // zod's bounds of an integer: the safe integers, which no agent's number passes.
    if ((key === "minimum" || key === "maximum") && Math.abs(value as number) === Number.MAX_SAFE_INTEGER)
      continue;
    // Under `properties` and its kind, the keys are names, not keywords.
    out[key] = NAMED.has(key)
      ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, compact(v, io)]))
      : compact(value, io);
  }
  return out;
}

const isEmpty = (v: unknown) =>
  v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0;
const isStringType = (v: unknown) =>
  v !== null &&
  typeof v === "object" &&
  Object.keys(v).length === 1 &&
  (v as { type?: unknown }).type === "string";
