import { type Selection, type Shared, selectionKey } from "./fields.ts";

/**
 * The legacy writer: GraphQL result objects written in their REST form (legacy names in the
 * selection's order, nulls left out, a flattened child's fields beside the parent's own, shared
 * objects from their text of the snapshot). The row writer (src/rest/row-writer.ts) writes the
 * same text from rows, by the same parts.
 */

/** JSON.stringify's replacer that leaves out an object's null members (an array keeps its nulls). */
export const withoutNulls = function (this: unknown, _key: string, value: unknown) {
  return value === null && !Array.isArray(this) ? undefined : value;
};

/**
 * The fields of a shared object (see Shared) that a selection writes in one run: the legacy
 * fields of a flattened child in a row, between two of the parent's own. Its text under a parent
 * is the same for every parent of a snapshot, and is written once per snapshot from the result of
 * the shared object's own GraphQL operation (src/rest/shared-text.ts).
 */
export interface SharedRun {
  /** Identifies the run's selection whole, with the shared object's type: its text's cache key. */
  id: string;
  shared: Shared;
  /** The run's legacy fields, as fields of the shared object itself. */
  selection: Selection;
}

/**
 * The text of shared runs (src/rest/shared-text.ts): the run's legacy fields of the shared object
 * whose key is `key`, without braces ("" when they are all null), or undefined when not yet
 * written (the source notes it: the caller writes them and writes again).
 */
export interface SharedTexts {
  text(run: SharedRun, key: string): string | undefined;
}

/** Writes a GraphQL result object in its legacy form, as JSON text. */
export type LegacyWriter = (data: Record<string, unknown>, shared: SharedTexts) => string;

export type Part =
  | {
      kind: "field";
      key: string;
      field: string;
      via?: string;
      children?: Selection;
      child?: LegacyWriter;
      json?: boolean;
    }
  | { kind: "run"; run: SharedRun; via: string; keyField: string };

const writers = new WeakMap<Selection, LegacyWriter>();

/**
 * The parts of a selection in order: its own fields (and those of unshared flattened children)
 * one by one, and the fields of a shared child in runs.
 */
export function partsOf(selection: Selection): Part[] {
  const parts: Part[] = [];
  for (const [legacy, f] of selection) {
    if (f.via && f.shared) {
      const last = parts[parts.length - 1];
      let run: SharedRun;
      if (last?.kind === "run" && last.via === f.via) run = last.run;
      else {
        run = { id: "", shared: f.shared, selection: new Map() };
        parts.push({ kind: "run", run, via: f.via, keyField: f.shared.key });
      }
      run.selection.set(legacy, { ...f, via: undefined, shared: undefined });
      continue;
    }
    parts.push({
      kind: "field",
      key: `${JSON.stringify(legacy)}:`,
      field: f.field,
      via: f.via,
      children: f.children,
      child: f.children && legacyWriter(f.children),
      json: f.json,
    });
  }
  for (const p of parts)
    if (p.kind === "run") p.run.id = `${p.run.shared.type}${selectionKey(p.run.selection)}`;
  return parts;
}

/**
 * The JSON text of GraphQL result objects in their legacy form (legacy names in the selection's
 * order, a flattened child's fields beside the object's own, null and absent values left out,
 * within a JSON value too),
 * written straight from the result: a writer per selection, made once (selections are parsed
 * once and never modified), with each field's key text ready. Leaves are written by
 * JSON.stringify, as the rest of the envelope; the result holds only serialized values. The
 * fields of a shared object are written from `shared`, its text of this snapshot.
 */
export function legacyWriter(selection: Selection): LegacyWriter {
  let writer = writers.get(selection);
  if (writer) return writer;
  const parts = partsOf(selection);
  writer = (data, shared) => {
    let out = "";
    for (const p of parts) {
      if (p.kind === "run") {
        const object = data[p.via] as Record<string, unknown> | null | undefined;
        if (object === null || object === undefined) continue;
        const text = shared.text(p.run, object[p.keyField] as string);
        if (text) out += (out ? "," : "{") + text;
        continue;
      }
      const source = p.via ? (data[p.via] as Record<string, unknown> | null | undefined) : data;
      const value = source?.[p.field];
      if (value === null || value === undefined) continue;
      let text: string;
      if (!p.child) text = p.json ? JSON.stringify(value, withoutNulls) : JSON.stringify(value);
      else if (!Array.isArray(value)) text = p.child(value as Record<string, unknown>, shared);
      else {
        text = "[";
        for (let i = 0; i < value.length; i++) text += (i ? "," : "") + p.child(value[i], shared);
        text += "]";
      }
      out += (out ? "," : "{") + p.key + text;
    }
    return out ? `${out}}` : "{}";
  };
  writers.set(selection, writer);
  return writer;
}
