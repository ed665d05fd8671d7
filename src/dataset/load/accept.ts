import { _, Ajv, type KeywordCxt } from "ajv";
import { z } from "zod";

/**
 * A record schema (src/dataset/record.ts) compiled by Ajv, to accept the lines zod would accept at
 * under half of zod's cost (docs/performance-history.md, 2026-12-08). zod stays the one description
 * of a record and the one that says what is wrong: the compiled check answers only "accepted", and
 * a line it does not accept is checked by zod, whose issues name the problems. So it may refuse
 * more than zod does (that line then costs zod's time too), never less.
 *
 * How it keeps to that: the structure (types, properties, required and extra keys, items, enums,
 * unions) is zod's own JSON Schema of the record (`z.toJSONSchema`, which throws on anything it
 * cannot say: then there is no compiled check and zod checks every line); every check zod runs on
 * a node (its regexes, bounds, refinements and the records' rules, `def.checks`) runs here too, by
 * zod's own functions, on the same value. A record accepted is zod's output already: these schemas
 * transform nothing, so the value parsed is the record (test/dataset/accept.test.ts compares both
 * on valid and broken records).
 */
export type Accept = (value: unknown) => boolean;

type Check = z.core.$ZodCheck;

/** One node's checks as one function of its value; whatever throws is not accepted. */
function checksOf(checks: readonly Check[]): (value: unknown) => boolean {
  const each = checks.map((c): ((v: unknown) => boolean) => {
    const def = c._zod.def as z.core.$ZodCheckDef & { fn?: (v: unknown) => unknown; type?: string };
    // A refinement's function says true or false (zod's own check would make an issue of false).
    if (def.check === "custom" && def.type === "custom" && typeof def.fn === "function") {
      const fn = def.fn;
      return (v) => fn(v) === true;
    }
    return (v) => {
      const payload = { value: v, issues: [] as unknown[] } as unknown as z.core.ParsePayload<never>;
      c._zod.check(payload);
      return payload.issues.length === 0;
    };
  });
  return (v) => {
    try {
      for (const ok of each) if (!ok(v)) return false;
      return true;
    } catch {
      return false;
    }
  };
}

/**
 * The kinds of zod schema whose JSON Schema says all that zod checks besides `def.checks`. Others
 * may be said by one side only (a pipe's input or output, a transform's input, a default): a
 * record holding one has no compiled check.
 */
const SAID_WHOLE = new Set([
  "object",
  "string",
  "number",
  "boolean",
  "null",
  "array",
  "enum",
  "literal",
  "optional",
  "union",
  "record",
  "lazy",
  "unknown",
]);

/**
 * The compiled check of `schema`, or null where zod's JSON Schema cannot say it (a transform, a
 * custom type): zod alone checks those lines.
 */
export function compileAccept(schema: z.ZodType): Accept | null {
  const checks: ((v: unknown) => boolean)[] = [];
  let whole = true;
  let json: Record<string, unknown>;
  try {
    json = z.toJSONSchema(schema, {
      target: "draft-07",
      io: "input",
      unrepresentable: "throw",
      override: ({ zodSchema, jsonSchema }) => {
        if (!SAID_WHOLE.has(zodSchema._zod.def.type)) whole = false;
        const own = (zodSchema._zod.def as { checks?: Check[] }).checks ?? [];
        if (own.length === 0) return;
        (jsonSchema as Record<string, unknown>).zodChecks = checks.length;
        checks.push(checksOf(own));
        // zod's regex runs among its checks: Ajv's copy would only test it again (with the u flag).
        if (own.some((c) => (c._zod.def as { format?: string }).format === "regex"))
          delete jsonSchema.pattern;
      },
    }) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!whole) return null;
  const ajv = new Ajv({ strict: true, allErrors: false, messages: false });
  ajv.addKeyword({
    keyword: "zodChecks",
    schemaType: "number",
    code(cxt: KeywordCxt) {
      const check = cxt.gen.scopeValue("keyword", { ref: checks[cxt.schema as number] });
      cxt.fail(_`!${check}(${cxt.data})`);
    },
  });
  const validate = ajv.compile(json);
  return (value) => validate(value) === true;
}
