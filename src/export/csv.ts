import type { GraphQLObjectType } from "graphql";
import { LRUCache } from "lru-cache";
import { parseFields, type Selection } from "../rest/fields.ts";
import { schema } from "../schema/index.ts";

/**
 * `for=csv` of Export Domains and `cursor=all` (docs/api.md 4.7, "CSV"): one record per Domain,
 * one column per selected leaf, derived from the `fields` selection itself (parseFields), never
 * from a list of fields, so that the columns follow the selection as the JSON keys do:
 *
 * - a scalar field is a column of its legacy name: `rank`;
 * - a field of a nested object is a column of its dotted path, in the selection's order:
 *   `theme.name`, `trustpilot.avg_rating`;
 * - a list of objects (`apps`, `technologies`, `contact_info`) is a column per selected sub-field,
 *   `apps.name`, holding that sub-field of each object in the list's order, joined with `;`; an
 *   object without it contributes an empty entry, so the n-th entries of `apps.name` and
 *   `apps.installed_at` are the same App's;
 * - a list of values is joined with `;` (`categories`), and inside one entry of a list of objects
 *   with `|` (`apps.categories`, `apps.plans.name`), so that the entries stay aligned;
 * - a map (`alternates`) is `key=value` entries joined as a list: its keys are data, not fields,
 *   and the header is written before the first Domain is read;
 * - numbers as JSON writes them, booleans `true`/`false`, and an unknown value (left out of the
 *   JSON) an empty field.
 *
 * The text is RFC 4180: records end with CRLF, the header record first; a field holding a comma, a
 * quote, CR or LF is quoted, its quotes doubled. Values are not otherwise changed: a `;` or `|`
 * inside a value reads like a separator (JSON Lines is the lossless format).
 *
 * A record is written from the Domain's legacy JSON text, the very line JSON Lines writes
 * (src/export/export-page.ts), parsed and read through the columns: one writer of a Domain's
 * values, so CSV cannot drift from JSON. It makes a default-fields export about 1.3–1.4 times as
 * long as its JSON Lines (docs/decisions.md, "CSV").
 */
export interface CsvPlan {
  /** The column names, in order. */
  columns: string[];
  /** The header record, with its CRLF. */
  header: string;
  /** A Domain's record, with its CRLF, from its legacy JSON object. */
  row(record: Record<string, unknown>): string;
}

/** Joins a list's entries at the top level, and inside an entry of a list of objects. */
const OUTER = ";";
const INNER = "|";
const CRLF = "\r\n";

const NEEDS_QUOTES = /[",\r\n]/;

/** One field as RFC 4180 writes it. */
export function csvField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A value of a list or map entry: scalars as text, anything deeper as JSON. */
function entryText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A leaf's value as its field's text (inside `depth` lists of objects). */
function leafText(value: unknown, depth: number): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  const sep = depth ? INNER : OUTER;
  if (Array.isArray(value)) return value.map(entryText).join(sep);
  if (typeof value === "object")
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}=${entryText(v)}`)
      .join(sep);
  return String(value);
}

/** A column: its name, and its text in a record (inside `depth` lists of objects). */
interface Column {
  name: string;
  text(object: Record<string, unknown>, depth: number): string;
}

function columnsOf(sel: Selection, prefix: string): Column[] {
  const columns: Column[] = [];
  for (const [key, f] of sel) {
    const name = `${prefix}${key}`;
    if (!f.children) {
      columns.push({ name, text: (o, depth) => leafText(o[key], depth) });
      continue;
    }
    for (const sub of columnsOf(f.children, `${name}.`)) {
      columns.push({
        name: sub.name,
        text(o, depth) {
          const value = o[key];
          if (value === null || typeof value !== "object") return "";
          if (!Array.isArray(value)) return sub.text(value as Record<string, unknown>, depth);
          const sep = depth ? INNER : OUTER;
          let out = "";
          for (let i = 0; i < value.length; i++) {
            const entry = value[i];
            const text = entry !== null && typeof entry === "object" ? sub.text(entry, depth + 1) : "";
            out += i ? sep + text : text;
          }
          return out;
        },
      });
    }
  }
  return columns;
}

/** The CSV of a legacy selection (see above). */
export function csvPlan(sel: Selection): CsvPlan {
  const columns = columnsOf(sel, "");
  return {
    columns: columns.map((c) => c.name),
    header: columns.map((c) => csvField(c.name)).join(",") + CRLF,
    row(record) {
      let out = "";
      for (let i = 0; i < columns.length; i++) {
        const text = columns[i].text(record, 0);
        out += (i ? "," : "") + (NEEDS_QUOTES.test(text) ? csvField(text) : text);
      }
      return out + CRLF;
    },
  };
}

const plans = new LRUCache<string, CsvPlan>({ max: 100 });

/** The CSV of a Domain `fields` option ("" for the defaults), as checked by parseFields. */
export function domainCsvPlan(fields: string): CsvPlan {
  let plan = plans.get(fields);
  if (!plan) {
    plan = csvPlan(parseFields(fields, schema.getType("Domain") as GraphQLObjectType));
    plans.set(fields, plan);
  }
  return plan;
}
