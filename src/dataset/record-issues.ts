import type { z } from "zod";
import { textProblem } from "../text.ts";
import { DOMAIN_STATES } from "./vocabulary.ts";

/**
 * How the loader names what is wrong with a line (docs/dataset.md): a field's path, a zod issue as
 * `field: problem`, the strings that cannot be stored as text, and the keys a failed record still
 * names (so that the counts they make short are said to follow from it).
 */

/**
 * The other records that a record which failed its checks still names, read leniently from its
 * JSON: an App's id; the Apps a Domain counts as installed and the technologies it lists. Its
 * absence makes cross-record counts come out short, and the loader says those follow from it.
 */
export interface NamedKeys {
  app?: string;
  installs?: string[];
  technologies?: string[];
}

export function namedKeys(kind: "apps" | "domains" | "reviews", value: unknown): NamedKeys | undefined {
  if (!isObject(value)) return undefined;
  if (kind === "apps") return typeof value.id === "string" ? { app: value.id } : undefined;
  if (kind !== "domains") return undefined;
  // A state that is no state at all may have meant Active: its installs may be the missing ones.
  const active = value.state === "Active" || !DOMAIN_STATES.includes(value.state as never);
  const installs = active
    ? stringsOf(value.apps, (a) => (a.removed_at === undefined ? a.id : undefined))
    : [];
  const technologies = stringsOf(value.technologies, (t) => t.name);
  return installs.length || technologies.length ? { installs, technologies } : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The distinct strings `pick` finds in the objects of a list (anything else is skipped). */
function stringsOf(list: unknown, pick: (item: Record<string, unknown>) => unknown): string[] {
  if (!Array.isArray(list)) return [];
  const found = new Set<string>();
  for (const item of list) {
    const v = isObject(item) ? pick(item) : undefined;
    if (typeof v === "string") found.add(v);
  }
  return [...found];
}

/**
 * A field's path as the loader names it: `contact_info[0].description`. A key that is not text
 * (textProblem) is written as its JSON string, `alternates["de\u0000DE"]`, so that no message
 * carries NUL or an unpaired surrogate.
 */
export function fieldName(path: readonly PropertyKey[]): string {
  let name = "";
  for (const p of path) {
    if (typeof p === "number") name += `[${p}]`;
    else if (textProblem(String(p))) name += `[${JSON.stringify(String(p))}]`;
    else name += name ? `.${String(p)}` : String(p);
  }
  return name;
}

/**
 * Every string of a parsed line that cannot be stored as text (textProblem: NUL, an unpaired
 * surrogate), object keys included and fields the record ignores too, as `field: problem` in the
 * order of the line. Both databases refuse the line alike, and no message carries such text.
 */
export function textProblems(value: unknown): string[] {
  const problems: string[] = [];
  // Iterative, depth first: a line can nest deeper than the call stack.
  const stack: [unknown, PropertyKey[]][] = [[value, []]];
  while (stack.length) {
    const [v, path] = stack.pop() as [unknown, PropertyKey[]];
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) problems.push(`${fieldName(path) || "(record)"}: ${problem}`);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...path, i]]);
    } else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      for (const k of keys) {
        const problem = textProblem(k);
        if (problem) problems.push(`${fieldName(path) || "(record)"}: key ${JSON.stringify(k)} ${problem}`);
      }
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push([(v as Record<string, unknown>)[keys[i]], [...path, keys[i]]]);
      }
    }
  }
  return problems;
}

/** Formats a zod issue as `field: problem`, the loader's message form (docs/dataset.md). */
export function formatIssue(issue: z.core.$ZodIssue): string {
  const field = fieldName(issue.path);
  let message = issue.message;
  if (issue.code === "invalid_type" && (issue as { input?: unknown }).input === null) {
    message = "is null; leave the field out when the value is unknown";
  } else if (issue.code === "invalid_type" && (issue as { input?: unknown }).input === undefined) {
    message = "is required";
  } else if (issue.code === "unrecognized_keys") {
    return issue.keys
      .map((k) => `${fieldName([...issue.path, k])}: is not a field of this record`)
      .join("\n");
  }
  return `${field || "(record)"}: ${message}`;
}
