import { createHash } from "node:crypto";
import {
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  printType,
} from "graphql";
import type { ServedSnapshot } from "../db/snapshots.ts";
import type { Logger } from "../logger.ts";
import { schema } from "../schema/index.ts";
import { parseFields, type Selection, selectionKey } from "./fields.ts";
import { partsOf } from "./legacy-writer.ts";

/**
 * The fingerprint of what renders a Domain's default answer (src/db/rendered.ts): the pieces'
 * format, the schema's fields the default selection reads (selectedShape), the default fields'
 * plan (their legacy names, order, runs) and what each scalar makes of a set of probe values (its
 * serializer, as it behaves: a bundle and its sources give the same stamp, a changed serializer
 * another). test/rest/rendered-stamp.test.ts pins it beside the rendered part's version
 * (src/db/snapshot-format.ts): a change of it fails that test until the version is bumped, so
 * that snapshots rendered before are rendered again (npm run load -- --upgrade), never served.
 */
const FORMAT = "domain-default/raw-deflate-6/sync-flush/crc32-len/no-newline/keyed-16/3";

/** Values a serializer meets in a Domain: times, dates, big and fractional numbers, text, maps, nulls. */
const PROBES: unknown[] = [
  0,
  -1,
  1.5,
  0.1 + 0.2,
  1e21,
  2 ** 53 - 1,
  12345678901234567890n,
  "2024-02-29T23:59:59.999Z",
  "2024-02-29",
  new Date(Date.UTC(2023, 6, 14, 1, 2, 3, 4)),
  new Date(0),
  1_700_000_000_000,
  'Zürich 東京 \u2028 \uD83D\uDE00 "quoted" \\ /',
  "",
  true,
  { a: 1, b: null, c: ["x", null] },
  ["k1", "k2"],
  "a, b ,c",
  null,
];

/**
 * What the default selection reads of the schema, one line a field: the GraphQL field behind each
 * legacy field (through a flattened child's field), its type and arguments as declared, and the
 * leaf types it ends in. Only what the answer is written from: a field or a filter added to the
 * Domain beside the default fields, or another argument's input type, leaves the stamp as it was
 * (rendered records stay fresh across such a release), while a selected field's type, an enum's
 * values or a scalar's serializer changes it.
 */
function selectedShape(
  schema: GraphQLSchema,
  sel: Selection,
): { lines: string[]; leaves: GraphQLNamedType[] } {
  const lines: string[] = [];
  const leaves = new Map<string, GraphQLNamedType>();
  const describe = (field: GraphQLField<unknown, unknown>, owner: string) =>
    `${owner}.${field.name}: ${String(field.type)}(${field.args
      .map(
        (a) =>
          `${a.name}: ${String(a.type)}${a.defaultValue === undefined ? "" : ` = ${JSON.stringify(a.defaultValue)}`}`,
      )
      .join(", ")})`;
  const fieldOf = (type: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> => {
    const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[name] : undefined;
    if (!field)
      throw new Error(`the default selection reads ${type.name}.${name}, which the schema does not have`);
    return field;
  };
  const walk = (type: GraphQLNamedType, s: Selection, depth: string) => {
    for (const [legacy, f] of s) {
      let owner = type;
      if (f.via) {
        const via = fieldOf(owner, f.via);
        lines.push(`${depth}${legacy} via ${describe(via, owner.name)}`);
        owner = getNamedType(via.type);
      }
      const field = fieldOf(owner, f.field);
      lines.push(`${depth}${legacy} = ${describe(field, owner.name)}${f.json ? " json" : ""}`);
      const named = getNamedType(field.type);
      if (f.children) walk(named, f.children, `${depth}  `);
      else leaves.set(named.name, named);
    }
  };
  walk(schema.getType("Domain") as GraphQLObjectType, sel, "");
  return { lines, leaves: [...leaves.values()].sort((a, b) => a.name.localeCompare(b.name)) };
}

function serializerProbe(types: GraphQLNamedType[]): string {
  const out: unknown[] = [];
  for (const type of types) {
    if (!isScalarType(type)) continue;
    for (const probe of PROBES) {
      try {
        const v = type.serialize(probe);
        out.push([type.name, typeof v === "bigint" ? `${v}n` : v]);
      } catch {
        // That it refuses the value, not its message: a message may print the value as the
        // process's time zone and locale write it (a Date), which would make the stamp the zone's.
        out.push([type.name, "throws"]);
      }
    }
  }
  return JSON.stringify(out);
}

let defaultKey: string | null = null;

/** Whether `sel` is the Domain's default fields, which rendered records hold. */
export function isRenderedSelection(sel: Selection): boolean {
  defaultKey ??= selectionKey(parseFields("", schema.getType("Domain") as GraphQLObjectType));
  return selectionKey(sel) === defaultKey;
}

/** The stamp `schema` gives rendered records (test/rest/rendered-stamp.test.ts pins the code's). */
export function stampOf(schema: GraphQLSchema): string {
  const DOMAIN = schema.getType("Domain") as GraphQLObjectType;
  const sel = parseFields("", DOMAIN);
  const plan = JSON.stringify(
    partsOf(sel).map((p) =>
      p.kind === "run"
        ? ["run", p.run.id, p.via, p.keyField]
        : ["field", p.key, p.field, p.via ?? null, p.json ?? false],
    ),
  );
  const { lines, leaves } = selectedShape(schema, sel);
  return createHash("sha256")
    .update(FORMAT)
    .update("\0")
    .update(lines.join("\n"))
    .update("\0")
    .update(leaves.map((t) => (isScalarType(t) ? `scalar ${t.name}` : printType(t))).join("\n"))
    .update("\0")
    .update(selectionKey(sel))
    .update("\0")
    .update(plan)
    .update("\0")
    .update(serializerProbe(leaves))
    .digest("hex")
    .slice(0, 32);
}

/** The snapshots (by location) whose lost or mismatched rendered records were logged: once each. */
const reported = new Set<string>();

/**
 * Logs, once per snapshot, that Domains of it were read with a rendered record lost or another
 * Domain's (src/db/rendered.ts: checkedPiece) and answered by the writer instead; each is counted
 * in storegraph_rendered_domains_total{state="broken"} by its caller.
 */
export function reportBroken(
  logger: Logger,
  served: ServedSnapshot,
  path: "rest" | "export" | "job" | "estimate",
  count: number,
  keys: readonly number[] = [],
): void {
  const { location, version } = served.snapshot;
  if (reported.has(location)) return;
  reported.add(location);
  logger.warn(
    { snapshot: version, location, path, count, keys: keys.slice(0, 20) },
    "rendered records lost or another Domain's: those Domains are answered by the row writer (render the snapshot again: npm run load -- --upgrade --rebuild rendered)",
  );
}
