import type { SqlReader } from "../db/reader.ts";
import { allOf, searchWhere, searchWords } from "./filter.ts";
import type { Where } from "./keyset.ts";

/**
 * A search (`q`) as a condition of the page query. Both databases keep trigram indexes of the
 * searched text (prisma/migrations/…/0003_search_trigram.sql). PostgreSQL's index serves the
 * `LIKE '%word%'` of searchWhere itself. SQLite's is an FTS5 table, which the `where` language
 * of the page query cannot name (src/db/where-sql.ts), so its matching keys are read first and
 * the page query takes them as `pk IN (…)`, next to the words' own conditions, which keep the
 * matches exactly those of the scan (the trigram table folds case more widely than LIKE does,
 * so it can only propose more).
 *
 * A word of fewer than three letters has no trigram, so it is left to the scan. Over MAX_KEYS
 * matches the keys are not used either: a common word is found early by scanning in sort order,
 * and a long list of keys would cost more than it saves.
 */
const MAX_KEYS = 1000;
const TRIGRAM = 3;

type Searched = "app" | "domain";

/**
 * The condition for `search` on `table` (null for none). searchWhere's input errors come first,
 * before `reader` is asked for the served snapshot's reader.
 */
export async function searchCondition(
  table: Searched,
  search: string | null | undefined,
  reader: () => SqlReader,
): Promise<Where | null> {
  const where = searchWhere(search);
  if (!where) return null;
  const sql = reader();
  if (sql.kind !== "sqlite") return where;
  // Characters, not UTF-16 units: a trigram is three characters.
  const words = searchWords(search as string).filter((w) => [...w].length >= TRIGRAM);
  // The Domains gone from a snapshot (sql.gone) have no search table: theirs would be its own's.
  if (!words.length || sql.gone) return where;
  // Words are letters and digits only (searchWords): no LIKE wildcard to escape.
  const rows = await sql.all(
    `SELECT rowid FROM ${sql.table(`${table}_search`)} WHERE ${words.map((_, i) => `search_text LIKE $${i + 1}`).join(" AND ")} LIMIT ${MAX_KEYS + 1}`,
    words.map((w) => `%${w}%`),
  );
  if (rows.length > MAX_KEYS) return where;
  return allOf([{ pk: { in: rows.map((r) => r[0] as number) } }, where]);
}
