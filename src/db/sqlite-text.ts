/**
 * The reader's SQL (`$1`… placeholders, written once for both databases: src/db/reader.ts) as
 * better-sqlite3 takes it: it numbers no parameters, but names them, so $1 becomes @p1, bound by
 * an object. Shared by the reader and its read threads (src/db/sqlite-read-thread.ts).
 */
export const sqliteText = (sql: string) => sql.replace(/\$(\d+)/g, "@p$1");

export function sqliteParams(params: readonly unknown[]): Record<string, unknown> {
  const named: Record<string, unknown> = {};
  for (let i = 0; i < params.length; i++) named[`p${i + 1}`] = params[i];
  return named;
}
