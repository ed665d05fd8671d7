import type { SqlReader } from "./reader.ts";

/**
 * What is known once per snapshot reader (src/db/reader.ts) and kept as long as it: a value per
 * reader and key (perReader), and whether its snapshot holds a set of tables (holdsTables).
 */

/**
 * A value per snapshot reader and key, made once by `make`: for what never changes within a
 * snapshot (its shared rows, whether it has a table). A reader lives as long as its snapshot is
 * served, so the values go with it.
 */
export function perReader<K, V>(make: (sql: SqlReader, key: K) => V): (sql: SqlReader, key: K) => V {
  const values = new WeakMap<SqlReader, Map<K, V>>();
  return (sql, key) => {
    let byKey = values.get(sql);
    if (!byKey) {
      byKey = new Map();
      values.set(sql, byKey);
    }
    let value = byKey.get(key);
    if (value === undefined) {
      value = make(sql, key);
      byKey.set(key, value);
    }
    return value;
  };
}

/**
 * Whether the snapshot `sql` reads holds every one of `tables`: the tables a load derives outside
 * the migrations (a Domain's child rows, the facet tables, the Domains gone from the feed), which
 * a snapshot loaded by an older version lacks. Asked once per reader; a question that failed (the
 * database not answering) is asked again by the next.
 */
export function holdsTables(sql: SqlReader, tables: readonly string[]): Promise<boolean> {
  let byKey = heldTables.get(sql);
  if (!byKey) {
    byKey = new Map();
    heldTables.set(sql, byKey);
  }
  const key = tables.join(",");
  let answer = byKey.get(key);
  if (!answer) {
    const marks = tables.map((_t, i) => `$${i + 1}`);
    answer = (
      sql.kind === "postgresql"
        ? sql.all(
            `SELECT ${marks.map((m) => `to_regclass(${m}) IS NOT NULL`).join(" AND ")}`,
            tables.map((t) => sql.table(t)),
          )
        : sql.all(
            `SELECT count(*) = ${tables.length} FROM sqlite_master WHERE type = 'table' AND name IN (${marks.join(", ")})`,
            [...tables],
          )
    ).then((rows) => Boolean(rows[0]?.[0]));
    const asked = byKey;
    answer.catch(() => asked.delete(key));
    byKey.set(key, answer);
  }
  return answer;
}
const heldTables = new WeakMap<SqlReader, Map<string, Promise<boolean>>>();
