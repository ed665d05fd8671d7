import { createHash } from "node:crypto";
import {
  type GraphQLNamedType,
  type GraphQLObjectType,
  getNamedType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isUnionType,
  printType,
} from "graphql";
import type { SqlReader } from "../db/reader.ts";
import { type RenderedInfo, renderedInfo } from "../db/rendered.ts";
import { schema } from "../schema/index.ts";
import { parseFields, type Selection, selectionKey } from "./fields.ts";
import { partsOf } from "./legacy-writer.ts";

/**
 * The fingerprint of what renders a Domain's default answer (src/db/rendered.ts): the pieces'
 * format, the schema, the default fields' plan (their legacy names, order, runs) and what each
 * scalar makes of a set of probe values (its serializer, as it behaves: a bundle and its sources
 * give the same stamp, a changed serializer another). A snapshot whose rendered records carry
 * another stamp is answered by the row writer, and counted (storegraph_rendered_stale_total).
 */
const FORMAT = "domain-default/raw-deflate-6/sync-flush/crc32-len/1";

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
 * The Domain type and every type its fields reach, by name: what its text is written from. (Not
 * the whole schema: which other types it holds depends on what the process imported before it,
 * and an export thread imports less than the server.)
 */
function reachedTypes(): GraphQLNamedType[] {
  const seen = new Map<string, GraphQLNamedType>();
  const visit = (type: GraphQLNamedType) => {
    if (seen.has(type.name)) return;
    seen.set(type.name, type);
    if (isObjectType(type) || isInterfaceType(type))
      for (const field of Object.values(type.getFields())) {
        visit(getNamedType(field.type));
        for (const arg of field.args) visit(getNamedType(arg.type));
      }
    if (isUnionType(type)) for (const t of type.getTypes()) visit(t);
  };
  visit(schema.getType("Domain") as GraphQLObjectType);
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function serializerProbe(types: GraphQLNamedType[]): string {
  const out: unknown[] = [];
  for (const type of types) {
    if (!isScalarType(type)) continue;
    for (const probe of PROBES) {
      try {
        const v = type.serialize(probe);
        out.push([type.name, typeof v === "bigint" ? `${v}n` : v]);
      } catch (e) {
        out.push([type.name, "throws", (e as Error).message]);
      }
    }
  }
  return JSON.stringify(out);
}

let stamp: string | null = null;
let defaultKey: string | null = null;

/** Whether `sel` is the Domain's default fields, which rendered records hold. */
export function isRenderedSelection(sel: Selection): boolean {
  defaultKey ??= selectionKey(parseFields("", schema.getType("Domain") as GraphQLObjectType));
  return selectionKey(sel) === defaultKey;
}

/** The running code's stamp (made once). */
export function renderStamp(): string {
  if (stamp) return stamp;
  const DOMAIN = schema.getType("Domain") as GraphQLObjectType;
  const sel = parseFields("", DOMAIN);
  const plan = JSON.stringify(
    partsOf(sel).map((p) =>
      p.kind === "run"
        ? ["run", p.run.id, p.via, p.keyField]
        : ["field", p.key, p.field, p.via ?? null, p.json ?? false],
    ),
  );
  const types = reachedTypes();
  stamp = createHash("sha256")
    .update(FORMAT)
    .update("\0")
    .update(types.map((t) => printType(t)).join("\n"))
    .update("\0")
    .update(selectionKey(sel))
    .update("\0")
    .update(plan)
    .update("\0")
    .update(serializerProbe(types))
    .digest("hex")
    .slice(0, 32);
  return stamp;
}

/**
 * What the snapshot `sql` reads keeps of rendered records: "fresh" (this code's stamp: answers
 * with the default fields copy them), "stale" (another stamp: the row writer answers), or null
 * (none: a snapshot loaded before rendered records, or not rendered).
 */
export async function renderedFor(
  sql: SqlReader,
): Promise<{ state: "fresh" | "stale"; info: RenderedInfo } | null> {
  const info = await renderedInfo(sql, renderStamp());
  if (!info) return null;
  return { state: info.stamp === renderStamp() ? "fresh" : "stale", info };
}
