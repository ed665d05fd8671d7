import type { Caller } from "../auth/plugin.ts";
import { apiError } from "../errors.ts";
import {
  VOCABULARY_KINDS,
  VOCABULARY_TEXT,
  type VocabularyEntry,
  type VocabularyKind,
  vocabularyOf,
} from "../query/vocabularies.ts";
import { matchEntries, type ScoredEntry } from "../query/vocabulary-match.ts";
import type { RestContext } from "../rest/answer.ts";

type Json = Record<string, unknown>;
/** What the look-up reads with: the REST layer's read context (McpDeps, src/mcp/answer.ts, has it). */
type Deps = { rest: Pick<RestContext, "readContext"> };

/** What a look-up of values takes. */
const LOOKUP_ARGUMENTS = ["text", "kinds", "limit"];

/** A match as the tool answers it: its value, its name, its score (a country's other names stay out). */
const shown = ({ aliases: _, ...e }: ScoredEntry) => e;

/**
 * lookup with text: the values of each vocabulary asked (all by default) that match a free text,
 * each with its score (src/query/vocabulary-match.ts), and `best`, the best of them all with the
 * vocabulary each came from and the filter that takes it: a value that is what was asked comes
 * before one that merely mentions it, whichever vocabulary holds them. The call draws on Retrieve
 * a Domain's budget (the caller, src/mcp/answer.ts).
 */
/** A look-up's arguments: the companies' form's (fields, page_size) or any other refused, not ignored. */
export function checkLookUp(args: Json): void {
  const other = Object.keys(args).find((k) => args[k] !== undefined && !LOOKUP_ARGUMENTS.includes(k));
  if (other !== undefined)
    throw apiError(
      "BAD_USER_INPUT",
      `unknown option "${other}": with text, lookup takes ${LOOKUP_ARGUMENTS.join(", ")}`,
    );
}

export async function lookUp(deps: Deps, caller: Caller, args: Json): Promise<{ line: string; body: Json }> {
  const text = String(args.text ?? "").trim();
  if (!text) throw apiError("BAD_USER_INPUT", "text: give the words to look up");
  const kinds = [
    ...new Set(Array.isArray(args.kinds) && args.kinds.length ? args.kinds : VOCABULARY_KINDS),
  ] as VocabularyKind[];
  for (const k of kinds)
    if (!VOCABULARY_KINDS.includes(k))
      throw apiError(
        "BAD_USER_INPUT",
        `kinds: unknown vocabulary "${k}"; valid: ${VOCABULARY_KINDS.join(", ")}`,
      );
  const limit = Number(args.limit ?? 5);
  const entries = await vocabularies(deps, caller, kinds);
  const matches: Record<string, ScoredEntry[]> = {};
  for (const kind of kinds) matches[kind] = matchEntries(entries[kind], text, limit).map(shown);
  const best = kinds
    .flatMap((kind) => matches[kind].map((m) => ({ kind, filter: VOCABULARY_TEXT[kind].filter, ...m })))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
  const line = best.length
    ? `Best: ${best.map((m) => `${m.value} (${m.kind}, ${m.filter}, ${m.score})`).join("; ")}.`
    : `nothing near "${text}"`;
  return { line, body: { text, best, matches } };
}

/** The vocabularies `kinds` of the snapshot served now. */
export async function vocabularies(
  deps: Deps,
  caller: Caller,
  kinds: readonly VocabularyKind[],
): Promise<Record<string, VocabularyEntry[]>> {
  const ctx = await deps.rest.readContext(caller);
  const sql = ctx.served?.sql;
  if (!sql) throw apiError("NOT_READY", "no dataset has been loaded yet; try again shortly");
  const lists = await Promise.all(kinds.map((k) => vocabularyOf(sql, k)));
  return Object.fromEntries(kinds.map((k, i) => [k, lists[i]]));
}
