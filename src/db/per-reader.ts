import type { SqlReader } from "./reader.ts";

/**
 * What is known once per snapshot reader (src/db/reader.ts) and kept as long as it: a value per
 * reader and key (perReader).
 */

/**
 * A value per snapshot reader and key, made once by `make`: for what never changes within a
 * snapshot (its shared rows). A reader lives as long as its snapshot is
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
