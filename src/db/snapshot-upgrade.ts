import { join } from "node:path";
import type Database from "better-sqlite3";
import type pg from "pg";
import type { Config } from "../config.ts";
import { goneStatements } from "./change-sql.ts";
import { pgIndexSource, storeCountIndex, storeSqliteCountIndex } from "./count-index-build.ts";
import { childRowsStatements } from "./domain-children.ts";
import { facetStatements } from "./facet-sql.ts";
import { applyPgMigrations, applySqliteMigrations } from "./migrate.ts";
import { relatedStatements } from "./related-sql.ts";
import { DERIVED_PARTS, type DerivedPart, PART_TABLE, recordPartStatements } from "./snapshot-format.ts";

/**
 * The database's side of `npm run load -- --upgrade` (src/snapshot-upgrade.ts): a copy's pending
 * snapshot migrations applied, and its derived parts built again, each recorded at this code's
 * version (src/db/snapshot-format.ts). Every part is built as a load builds it, from the copy's
 * own tables, replacing what it held, in one transaction each where the database allows, so that
 * a gateway serving the copy meanwhile reads the part before or the part after. The rendered
 * records are not the database's to build (src/render.ts).
 */
export type CopyPart = "tables" | Exclude<DerivedPart, "rendered">;

export async function upgradeCopy(
  config: Pick<Config, "database">,
  location: string,
  parts: readonly CopyPart[],
): Promise<void> {
  const derived = DERIVED_PARTS.filter((p): p is Exclude<DerivedPart, "rendered"> =>
    parts.includes(p as CopyPart),
  );
  const db = config.database;
  // Each database's driver imported only where it is used (a gateway on SQLite loads no pg).
  if (db.kind === "sqlite") {
    const { default: Sqlite } = await import("better-sqlite3");
    const file = new Sqlite(join(db.dataDir, location), { timeout: 30_000 });
    try {
      if (parts.includes("tables")) applySqliteMigrations(file, "snapshot", "all");
      const n = (name: string) => `"${name}"`;
      for (const part of derived) {
        if (part === "count_index") {
          await storeSqliteCountIndex(file);
          continue;
        }
        const statements =
          part === "child_rows"
            ? childRowsStatements("sqlite", n)
            : part === "facets"
              ? facetStatements("sqlite", n)
              : part === "related"
                ? relatedStatements("sqlite", n)
                : goneUpgrade(n, sqliteGone(file));
        file.transaction(() => {
          for (const statement of statements) file.exec(statement);
        })();
      }
    } finally {
      file.close();
    }
    return;
  }
  const { default: Pg } = await import("pg");
  const client = new Pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    if (parts.includes("tables")) await applyPgMigrations(client, location, "snapshot", "all");
    const n = (name: string) => `"${location}"."${name}"`;
    for (const part of derived) {
      // The count index is read through cursors of their own transactions, then written at once.
      const statements: [string, unknown[] | undefined][] = [];
      if (part === "count_index")
        await storeCountIndex(pgIndexSource(client, location), (statement, params) => {
          statements.push([statement, params]);
        });
      else
        for (const statement of part === "child_rows"
          ? childRowsStatements("postgresql", n)
          : part === "facets"
            ? facetStatements("postgresql", n)
            : part === "related"
              ? relatedStatements("postgresql", n)
              : goneUpgrade(n, await pgGone(client, location)))
          statements.push([statement, undefined]);
      await client.query("BEGIN");
      try {
        for (const [statement, params] of statements) await client.query(statement, params);
        await client.query("COMMIT");
      } catch (e) {
        await client.query("ROLLBACK").catch(() => {});
        throw e;
      }
    }
  } finally {
    await client.end();
  }
}

/** What a copy holds of the gone tables (src/db/change-sql.ts): the tables, and their searched text. */
interface GoneHeld {
  tables: boolean;
  search: boolean;
}

/**
 * The gone part of a copy written before parts were recorded: the first load's had no gone tables
 * (made empty here, as a load now makes them), and those of a load before the feed's filters read
 * the searched text have no `search_text` (added empty: a search matches those Domains no more, as
 * it did not then). A copy whose tables are whole is only recorded.
 */
function goneUpgrade(n: (table: string) => string, held: GoneHeld): string[] {
  if (!held.tables) return goneStatements(n, null, 0, 0);
  return [
    ...(held.search ? [] : [`ALTER TABLE ${n("gone_domain")} ADD COLUMN search_text TEXT`]),
    ...recordPartStatements(n(PART_TABLE), "gone"),
  ];
}

function sqliteGone(file: Database.Database): GoneHeld {
  const [tables, search] = file
    .prepare(
      `SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'gone_domain'),
         (SELECT count(*) FROM pragma_table_info('gone_domain') WHERE name = 'search_text')`,
    )
    .raw()
    .get() as [number, number];
  return { tables: tables > 0, search: search > 0 };
}

async function pgGone(client: pg.Client, schema: string): Promise<GoneHeld> {
  const { rows } = await client.query<{ tables: boolean; search: boolean }>(
    `SELECT to_regclass($1) IS NOT NULL AS tables, EXISTS (SELECT 1 FROM information_schema.columns
       WHERE table_schema = $2 AND table_name = 'gone_domain' AND column_name = 'search_text') AS search`,
    [`"${schema}"."gone_domain"`, schema],
  );
  return rows[0];
}
