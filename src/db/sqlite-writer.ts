import { closeSync, fsyncSync, openSync } from "node:fs";
import Database from "better-sqlite3";
import { changeStatements, goneStatements } from "./change-sql.ts";
import { storeSqliteCountIndex } from "./count-index-build.ts";
import { childRowsStatements } from "./domain-children.ts";
import { facetStatements } from "./facet-sql.ts";
import { applySqliteMigrations } from "./migrate.ts";
import { relatedStatements } from "./related-sql.ts";
import type { ChangesFrom, SnapshotWriter } from "./store.ts";
import type { Row, Table } from "./tables.ts";

const BATCH_ROWS = 20_000;
/** Rows per INSERT statement: binding one statement per row costs more than the insert itself. */
const ROWS_PER_STATEMENT = 64;

/**
 * Builds one snapshot file. Durability settings are off while building: the file is not served
 * until seal() has synced it and the registry names it, so a crash only leaves a file that the
 * next load deletes.
 */
export class SqliteSnapshotWriter implements SnapshotWriter {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private pending: [Table, Row[]][] = [];
  private pendingRows = 0;

  /** `changes`: the snapshot served when the load began (its file), to compute changes from. */
  constructor(
    private readonly path: string,
    private readonly changes?: ChangesFrom,
  ) {
    this.db = new Database(path);
    // better-sqlite3 enforces foreign keys by default; rows arrive parent-after-child (technologies
    // are written once all Domains are counted), so checks wait for the finished copy.
    this.db.pragma("foreign_keys = OFF");
    // Domain rows are a few KB: with the default 4 KB pages most would spill into overflow pages.
    this.db.pragma("page_size = 16384");
    this.db.pragma("journal_mode = OFF");
    this.db.pragma("synchronous = OFF");
    this.db.pragma("locking_mode = EXCLUSIVE");
    // Bounded memory whatever the size: a 64 MiB page cache, index-build sorts spill to temp files.
    this.db.pragma("cache_size = -65536");
    this.db.pragma("threads = 2"); // sorter threads for the index builds after the load
    applySqliteMigrations(this.db, "snapshot", "before-load");
  }

  async write(table: Table, rows: Row[]): Promise<void> {
    if (rows.length === 0) return;
    this.pending.push([table, rows]);
    this.pendingRows += rows.length;
    if (this.pendingRows >= BATCH_ROWS) this.flush();
  }

  private statement(table: Table, rows: number): Database.Statement {
    const key = `${table.name}/${rows}`;
    let s = this.statements.get(key);
    if (!s) {
      const cols = table.columns.map((c) => `"${c}"`).join(", ");
      const tuple = `(${table.columns.map(() => "?").join(", ")})`;
      s = this.db.prepare(
        `INSERT INTO "${table.name}" (${cols}) VALUES ${Array(rows).fill(tuple).join(", ")}`,
      );
      this.statements.set(key, s);
    }
    return s;
  }

  private flush(): void {
    const byTable = new Map<Table, Row[]>();
    for (const [table, rows] of this.pending) {
      const list = byTable.get(table);
      if (list) for (const r of rows) list.push(r);
      else byTable.set(table, rows.slice());
    }
    this.pending = [];
    this.pendingRows = 0;
    this.db.transaction(() => {
      for (const [table, rows] of byTable) this.insert(table, rows);
    })();
  }

  private insert(table: Table, rows: Row[]): void {
    let i = 0;
    if (rows.length >= ROWS_PER_STATEMENT) {
      const many = this.statement(table, ROWS_PER_STATEMENT);
      for (; i + ROWS_PER_STATEMENT <= rows.length; i += ROWS_PER_STATEMENT) {
        many.run(rows.slice(i, i + ROWS_PER_STATEMENT).flat());
      }
    }
    const one = this.statement(table, 1);
    for (; i < rows.length; i++) one.run(rows[i]);
  }

  async endRows(): Promise<void> {
    this.flush();
  }

  async buildIndexes(): Promise<void> {
    applySqliteMigrations(this.db, "snapshot", "after-load");
  }

  async buildDerived(): Promise<void> {
    this.db.transaction(() => {
      for (const statement of childRowsStatements("sqlite", (name) => `"${name}"`)) this.db.exec(statement);
      for (const statement of facetStatements("sqlite", (name) => `"${name}"`)) this.db.exec(statement);
    })();
  }

  async buildRelated(): Promise<void> {
    this.db.transaction(() => {
      for (const statement of relatedStatements("sqlite", (name) => `"${name}"`)) this.db.exec(statement);
    })();
  }

  async buildCountIndex(): Promise<number> {
    return (await storeSqliteCountIndex(this.db)).bytes;
  }

  async seal(): Promise<void> {
    this.db.exec("ANALYZE");
    // Readers open the file read-only; a rollback journal (not WAL) keeps it a single file.
    this.db.pragma("locking_mode = NORMAL");
    this.db.pragma("journal_mode = DELETE");
    this.db.close();
    // Built with synchronous=OFF: sync once, before the registry may name the file.
    const fd = openSync(this.path, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The load's change events, against the snapshot before (attached), and the Domains gone from
   * this one (the first load's: none, in empty tables).
   */
  async buildChanges(): Promise<void> {
    // Every table written is named main."…": the snapshot before is attached beside, read-write.
    const n = (name: string) => `main."${name}"`;
    const statements = changeStatements("sqlite", n, (name) => `old."${name}"`);
    const from = this.changes;
    if (!from) {
      // No snapshot before: no events, but the (empty) table the publish reads.
      this.db.transaction(() => {
        for (const statement of [...statements.slice(0, 2), ...goneStatements(n, null, 0, 0)])
          this.db.exec(statement);
      })();
      return;
    }
    this.db.prepare("ATTACH DATABASE ? AS old").run(from.previous);
    try {
      const gone = goneStatements(n, (name) => `old."${name}"`, from.version, from.keepFrom);
      this.db.transaction(() => {
        for (const statement of [...statements, ...gone]) this.db.exec(statement);
      })();
    } finally {
      this.db.exec("DETACH DATABASE old");
    }
  }

  async abort(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
