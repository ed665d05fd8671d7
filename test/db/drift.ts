/**
 * Compares the Prisma model with what the SQL migrations built, so the hand-written DDL cannot
 * drift from prisma/schema.prisma. Introspection reads one database (SQLite file or PostgreSQL
 * schema) into DbTable[]; compareModelWithDatabase is pure and returns one readable line per
 * difference (empty when they agree).
 */
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";

/** The parts of Prisma's DMMF datamodel (getDMMF().datamodel) the comparison reads. */
export interface Datamodel {
  models: readonly {
    name: string;
    dbName: string | null;
    fields: readonly {
      name: string;
      dbName?: string | null;
      documentation?: string;
      kind: string;
      type: string;
      isRequired: boolean;
      relationFromFields?: readonly string[];
      relationToFields?: readonly string[];
      relationOnDelete?: string;
    }[];
  }[];
  indexes: readonly { model: string; type: string; fields: readonly { name: string }[] }[];
}

export type Provider = "sqlite" | "postgresql";

export interface DbTable {
  name: string;
  columns: { name: string; type: string; notNull: boolean }[];
  /** name is null on SQLite, where an inline primary key has none. */
  primaryKey: { name: string | null; columns: string[] } | null;
  /** Secondary indexes; `partial` also covers expression indexes, which never match the model. */
  indexes: { name: string; columns: string[]; unique: boolean; partial: boolean }[];
  /** name is null on SQLite, which does not report constraint names. */
  foreignKeys: {
    name: string | null;
    columns: string[];
    refTable: string;
    refColumns: string[];
    onDelete: string;
  }[];
}

/**
 * A Json field whose `///` comment says `@db.Json` is JSON on PostgreSQL, not JSONB: the derived
 * PostgreSQL schema carries the attribute (prisma/generate.mjs); the SQLite model cannot.
 */
function jsonText(provider: Provider, field: { type: string; documentation?: string }): boolean {
  return provider === "postgresql" && field.type === "Json" && /@db\.Json\b/.test(field.documentation ?? "");
}

/** Bookkeeping of src/db/migrate.ts, present in every migrated database but not in the model. */
const IGNORED_TABLES = new Set(["_migration"]);
/**
 * The search's trigram indexes (migrations 0003_search_trigram.sql), which Prisma's model cannot
 * state: SQLite's FTS5 tables with the shadow tables FTS5 keeps, and PostgreSQL's GIN indexes.
 */
const SEARCH_TABLES = /^(app|domain)_search(_(data|idx|docsize|config))?$/;
const SEARCH_INDEXES = new Set(["app_search_text_trgm_idx", "domain_search_text_trgm_idx"]);

/** The column type each Prisma scalar must have, as introspection reports it. */
const COLUMN_TYPES: Record<Provider, Record<string, string>> = {
  // The SQLite adapter picks its conversions from the declared type (DATETIME → DateTime), so the
  // declared type itself must match, not just its affinity.
  sqlite: {
    Int: "INTEGER",
    BigInt: "INTEGER",
    Float: "REAL",
    String: "TEXT",
    Json: "TEXT",
    DateTime: "DATETIME",
    Bytes: "BLOB",
  },
  postgresql: {
    Int: "integer",
    BigInt: "bigint",
    Float: "double precision",
    String: "text",
    Json: "jsonb",
    DateTime: "timestamp(3) without time zone",
    Bytes: "bytea",
  },
};

const ON_DELETE: Record<string, string> = {
  Cascade: "CASCADE",
  Restrict: "RESTRICT",
  NoAction: "NO ACTION",
  SetNull: "SET NULL",
  SetDefault: "SET DEFAULT",
};

const INDEX_LABEL: Record<string, string> = { id: "@@id", unique: "@@unique", normal: "@@index" };

/**
 * Differences between the models named in `modelNames` (one migration set) and `tables` (one
 * database of that set). Each line names the model, field or index and what differs.
 */
export function compareModelWithDatabase(
  datamodel: Datamodel,
  modelNames: readonly string[],
  provider: Provider,
  tables: readonly DbTable[],
): string[] {
  const problems: string[] = [];
  const modelsByName = new Map(datamodel.models.map((m) => [m.name, m]));
  const tableOf = (name: string) => {
    const model = modelsByName.get(name);
    if (!model) throw new Error(`no model ${name} in the datamodel`);
    return model.dbName ?? model.name;
  };
  const columnOf = (modelName: string, fieldName: string) => {
    const field = modelsByName.get(modelName)?.fields.find((f) => f.name === fieldName);
    return field?.dbName ?? fieldName;
  };
  const list = (columns: readonly string[]) => `(${columns.join(", ")})`;
  const same = (a: readonly string[], b: readonly string[]) =>
    a.length === b.length && a.every((x, i) => x === b[i]);

  const expectedTables = new Set(modelNames.map(tableOf));
  for (const table of tables) {
    if (
      !expectedTables.has(table.name) &&
      !IGNORED_TABLES.has(table.name) &&
      !SEARCH_TABLES.test(table.name)
    ) {
      problems.push(`table "${table.name}" is not in the model`);
    }
  }

  for (const modelName of modelNames) {
    const model = modelsByName.get(modelName);
    if (!model) throw new Error(`no model ${modelName} in the datamodel`);
    const t = tableOf(modelName);
    const table = tables.find((x) => x.name === t);
    if (!table) {
      problems.push(`${modelName}: table "${t}" is missing`);
      continue;
    }

    // Columns: one per scalar field, same type and nullability, nothing else.
    const scalars = model.fields.filter((f) => f.kind !== "object");
    for (const field of scalars) {
      const c = field.dbName ?? field.name;
      const column = table.columns.find((x) => x.name === c);
      const expectedType = jsonText(provider, field) ? "json" : COLUMN_TYPES[provider][field.type];
      if (!column) {
        problems.push(`${modelName}.${field.name}: column "${t}"."${c}" is missing`);
        continue;
      }
      if (!expectedType)
        problems.push(`${modelName}.${field.name}: no ${provider} type known for ${field.type}`);
      else if (column.type !== expectedType) {
        problems.push(
          `${modelName}.${field.name}: column "${t}"."${c}" is ${column.type}, expected ${expectedType}`,
        );
      }
      if (column.notNull !== field.isRequired) {
        const nullability = (notNull: boolean) => (notNull ? "NOT NULL" : "nullable");
        problems.push(
          `${modelName}.${field.name}: column "${t}"."${c}" is ${nullability(column.notNull)}, expected ${nullability(field.isRequired)}`,
        );
      }
    }
    const columnNames = new Set(scalars.map((f) => f.dbName ?? f.name));
    for (const column of table.columns) {
      if (!columnNames.has(column.name))
        problems.push(`${modelName}: column "${t}"."${column.name}" is not in the model`);
    }

    // Indexes: compared by column list, in order; names must follow Prisma's default naming.
    const matched = new Set<string>();
    for (const index of datamodel.indexes.filter((i) => i.model === modelName)) {
      const columns = index.fields.map((f) => columnOf(modelName, f.name));
      const label = `${modelName} ${INDEX_LABEL[index.type] ?? index.type}([${index.fields.map((f) => f.name).join(", ")}])`;
      if (index.type === "id") {
        if (!table.primaryKey || !same(table.primaryKey.columns, columns)) {
          const actual = table.primaryKey ? list(table.primaryKey.columns) : "missing";
          problems.push(`${label}: primary key of "${t}" is ${actual}, expected ${list(columns)}`);
        } else if (table.primaryKey.name !== null && table.primaryKey.name !== `${t}_pkey`) {
          problems.push(
            `${label}: primary key of "${t}" is named ${table.primaryKey.name}, expected ${t}_pkey`,
          );
        }
        continue;
      }
      const unique = index.type === "unique";
      const found = table.indexes.find(
        (x) => !matched.has(x.name) && !x.partial && x.unique === unique && same(x.columns, columns),
      );
      if (!found) {
        problems.push(`${label}: no ${unique ? "unique" : "non-unique"} index on "${t}" ${list(columns)}`);
        continue;
      }
      matched.add(found.name);
      const expectedName = `${t}_${columns.join("_")}_${unique ? "key" : "idx"}`;
      if (found.name !== expectedName) {
        problems.push(
          `${label}: index on "${t}" ${list(columns)} is named ${found.name}, expected ${expectedName}`,
        );
      }
    }
    for (const index of table.indexes) {
      if (!matched.has(index.name) && !SEARCH_INDEXES.has(index.name)) {
        problems.push(
          `${modelName}: index "${index.name}" on "${t}" ${list(index.columns)} is not in the model`,
        );
      }
    }

    // Foreign keys: one per relation field that holds the foreign key.
    const matchedKeys = new Set<number>();
    for (const field of model.fields.filter((f) => f.kind === "object" && f.relationFromFields?.length)) {
      const columns = (field.relationFromFields ?? []).map((f) => columnOf(modelName, f));
      const refTable = tableOf(field.type);
      const refColumns = (field.relationToFields ?? []).map((f) => columnOf(field.type, f));
      const onDelete = field.relationOnDelete ? ON_DELETE[field.relationOnDelete] : undefined;
      const label = `${modelName}.${field.name}: foreign key "${t}" ${list(columns)} → "${refTable}" ${list(refColumns)}`;
      const i = table.foreignKeys.findIndex(
        (k, n) =>
          !matchedKeys.has(n) &&
          same(k.columns, columns) &&
          k.refTable === refTable &&
          same(k.refColumns, refColumns),
      );
      const key = table.foreignKeys[i];
      if (!key) {
        problems.push(`${label} is missing`);
        continue;
      }
      matchedKeys.add(i);
      if (onDelete && key.onDelete !== onDelete)
        problems.push(`${label} is ON DELETE ${key.onDelete}, expected ${onDelete}`);
      const expectedName = `${t}_${columns.join("_")}_fkey`;
      if (key.name !== null && key.name !== expectedName)
        problems.push(`${label} is named ${key.name}, expected ${expectedName}`);
    }
    table.foreignKeys.forEach((k, n) => {
      if (!matchedKeys.has(n)) {
        problems.push(
          `${modelName}: foreign key "${t}" ${list(k.columns)} → "${k.refTable}" ${list(k.refColumns)} is not in the model`,
        );
      }
    });
  }
  return problems;
}

/** Every table of a SQLite database except SQLite's own (sqlite_sequence, sqlite_stat1, …). */
export function introspectSqlite(db: BetterSqlite3.Database): DbTable[] {
  const all = <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[];
  const tables = all<{ name: string }>(
    `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`,
  );
  return tables.map(({ name }) => {
    const info = all<{ name: string; type: string; notnull: number; pk: number }>(
      'SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid',
      name,
    );
    const pk = info.filter((c) => Number(c.pk) > 0).sort((a, b) => Number(a.pk) - Number(b.pk));
    // origin 'pk' is the automatic index behind a composite primary key: reported as primaryKey.
    const indexList = all<{ name: string; unique: number; origin: string; partial: number }>(
      `SELECT name, "unique", origin, partial FROM pragma_index_list(?) WHERE origin <> 'pk' ORDER BY name`,
      name,
    );
    const keys = all<{ id: number; table: string; from: string; to: string; on_delete: string }>(
      `SELECT id, "table", "from", "to", on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq`,
      name,
    );
    const foreignKeys: DbTable["foreignKeys"] = [];
    for (const id of [...new Set(keys.map((k) => Number(k.id)))]) {
      const parts = keys.filter((k) => Number(k.id) === id);
      foreignKeys.push({
        name: null,
        columns: parts.map((k) => k.from),
        refTable: parts[0].table,
        refColumns: parts.map((k) => k.to),
        onDelete: parts[0].on_delete,
      });
    }
    return {
      name,
      columns: info.map((c) => ({
        name: c.name,
        type: c.type.toUpperCase(),
        notNull: Number(c.notnull) === 1,
      })),
      primaryKey: pk.length ? { name: null, columns: pk.map((c) => c.name) } : null,
      indexes: indexList.map((i) => {
        // A null column name means an expression (or rowid) key part.
        const cols = all<{ name: string | null }>(
          "SELECT name FROM pragma_index_info(?) ORDER BY seqno",
          i.name,
        );
        return {
          name: i.name,
          columns: cols.map((c) => c.name ?? "<expression>"),
          unique: Number(i.unique) === 1,
          partial: Number(i.partial) === 1 || cols.some((c) => c.name === null),
        };
      }),
      foreignKeys,
    };
  });
}

/** Every table of one PostgreSQL schema. */
export async function introspectPg(client: pg.ClientBase, schema: string): Promise<DbTable[]> {
  const columns = await client.query<{ table: string; name: string; type: string; not_null: boolean }>(
    `SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
     FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
     ORDER BY c.relname, a.attnum`,
    [schema],
  );
  const indexes = await client.query<{
    table: string;
    name: string;
    columns: string[];
    unique: boolean;
    primary: boolean;
    partial: boolean;
  }>(
    `SELECT t.relname AS table, i.relname AS name, ix.indisunique AS unique, ix.indisprimary AS primary,
       (ix.indpred IS NOT NULL OR ix.indexprs IS NOT NULL) AS partial,
       -- Key columns only (not INCLUDE ones). attnum 0 is an expression.
       ARRAY(SELECT coalesce(a.attname::text, '<expression>')
             FROM unnest(ix.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
             LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
             WHERE k.ord <= ix.indnkeyatts ORDER BY k.ord) AS columns
     FROM pg_index ix
     JOIN pg_class t ON t.oid = ix.indrelid
     JOIN pg_class i ON i.oid = ix.indexrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = $1
     ORDER BY i.relname`,
    [schema],
  );
  const keys = await client.query<{
    table: string;
    name: string;
    ref_table: string;
    columns: string[];
    ref_columns: string[];
    on_delete: string;
  }>(
    `SELECT t.relname AS table, c.conname AS name, r.relname AS ref_table,
       ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns,
       ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(attnum, ord)
             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS ref_columns,
       CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'r' THEN 'RESTRICT' WHEN 'n' THEN 'SET NULL'
         WHEN 'd' THEN 'SET DEFAULT' ELSE 'NO ACTION' END AS on_delete
     FROM pg_constraint c
     JOIN pg_class t ON t.oid = c.conrelid
     JOIN pg_class r ON r.oid = c.confrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE c.contype = 'f' AND n.nspname = $1
     ORDER BY c.conname`,
    [schema],
  );
  const names = [...new Set(columns.rows.map((c) => c.table))];
  return names.map((name) => {
    const pk = indexes.rows.find((i) => i.table === name && i.primary);
    return {
      name,
      columns: columns.rows
        .filter((c) => c.table === name)
        .map((c) => ({ name: c.name, type: c.type, notNull: c.not_null })),
      primaryKey: pk ? { name: pk.name, columns: pk.columns } : null,
      indexes: indexes.rows
        .filter((i) => i.table === name && !i.primary)
        .map((i) => ({ name: i.name, columns: i.columns, unique: i.unique, partial: i.partial })),
      foreignKeys: keys.rows
        .filter((k) => k.table === name)
        .map((k) => ({
          name: k.name,
          columns: k.columns,
          refTable: k.ref_table,
          refColumns: k.ref_columns,
          onDelete: k.on_delete,
        })),
    };
  });
}
