import Database from "better-sqlite3";
import type { Row, Table } from "../dataset/load/rows.ts";
import { applySqliteMigrations } from "./migrate.ts";
import type { SnapshotWriter } from "./store.ts";

const BATCH_ROWS = 20_000;

/**
 * Builds one snapshot file. Durability settings are off while building: the file is not served
 * until finish() has synced it and the registry names it, so a crash only leaves a file that the
 * next load deletes.
 */
export class SqliteSnapshotWriter implements SnapshotWriter {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private pending: [Table, Row[]][] = [];
  private pendingRows = 0;

  constructor(path: string) {
    this.db = new Database(path);
    // better-sqlite3 enforces foreign keys by default; rows arrive parent-after-child (technologies
    // are written once all Domains are counted), so checks wait for the finished copy.
    this.db.pragma("foreign_keys = OFF");
    this.db.pragma("journal_mode = OFF");
    this.db.pragma("synchronous = OFF");
    this.db.pragma("locking_mode = EXCLUSIVE");
    this.db.pragma("cache_size = -262144"); // 256 MiB page cache for index builds
    this.db.pragma("temp_store = MEMORY");
    applySqliteMigrations(this.db, "snapshot", "before-load");
  }

  async write(table: Table, rows: Row[]): Promise<void> {
    if (rows.length === 0) return;
    this.pending.push([table, rows]);
    this.pendingRows += rows.length;
    if (this.pendingRows >= BATCH_ROWS) this.flush();
  }

  private statement(table: Table): Database.Statement {
    let s = this.statements.get(table.name);
    if (!s) {
      const cols = table.columns.map((c) => `"${c}"`).join(", ");
      s = this.db.prepare(
        `INSERT INTO "${table.name}" (${cols}) VALUES (${table.columns.map(() => "?").join(", ")})`,
      );
      this.statements.set(table.name, s);
    }
    return s;
  }

  private flush(): void {
    const batches = this.pending;
    this.pending = [];
    this.pendingRows = 0;
    this.db.transaction(() => {
      for (const [table, rows] of batches) {
        const stmt = this.statement(table);
        const json = table.kinds.map((k, i) => (k === "json" ? i : -1)).filter((i) => i >= 0);
        for (const row of rows) {
          for (const i of json) if (row[i] !== null) row[i] = JSON.stringify(row[i]);
          stmt.run(row);
        }
      }
    })();
  }

  async finish(): Promise<void> {
    this.flush();
    applySqliteMigrations(this.db, "snapshot", "after-load");
    this.db.exec("ANALYZE");
    // Readers open the file read-only; a rollback journal (not WAL) keeps it a single file.
    this.db.pragma("locking_mode = NORMAL");
    this.db.pragma("journal_mode = DELETE");
    this.db.pragma("synchronous = FULL");
    this.db.exec("VACUUM"); // also writes and syncs the whole file under the new settings
    this.db.close();
  }

  async abort(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
