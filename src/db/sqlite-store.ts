import {
  closeSync,
  existsSync,
  type FSWatcher,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  watch,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { LRUCache } from "lru-cache";
import { EVENT_DOC, pruneEventsStatements } from "./change-feed.ts";
import { STAGED, stagedInOrder } from "./change-sql.ts";
import { FACET_SUMMARY_TABLE } from "./facet-sql.ts";
import { keepTrendStatement, pruneTrendsStatement } from "./history.ts";
import { applySqliteMigrations } from "./migrate.ts";
import { publishSegmentsSqlite } from "./segment-publish.ts";
import { assertLoadable, checkFormat, type FormatCheck } from "./snapshot-format.ts";
import { SqliteSnapshotWriter } from "./sqlite-writer.ts";
import { checkFeedTail } from "./staged-changes.ts";
import type {
  PublishOptions,
  RawSnapshotRow,
  SnapshotCounts,
  SnapshotRow,
  SnapshotStore,
  SnapshotWriter,
} from "./store.ts";
import { keptFrom, LoadInProgressError, type MetaQuery, toSnapshotRow } from "./store.ts";

/** Files under the data directory: state.db (the registry) and snapshots/snapshot-<v>.db. */
export function stateDbPath(dataDir: string): string {
  return join(dataDir, "state.db");
}

/**
 * Written with the version by each publish, after its commit: every gateway on the data directory
 * watches it (SqliteSnapshotStore.listen), as PostgreSQL gateways LISTEN.
 */
export function publishedSignalPath(dataDir: string): string {
  return join(dataDir, "published");
}

export function snapshotFilePath(dataDir: string, location: string): string {
  return join(dataDir, location);
}

export class SqliteSnapshotStore implements SnapshotStore {
  readonly kind = "sqlite" as const;
  private readonly statements = new LRUCache<string, Database.Statement>({ max: 500 });

  private constructor(
    readonly dataDir: string,
    private readonly db: Database.Database,
  ) {}

  static open(dataDir: string): SqliteSnapshotStore {
    mkdirSync(join(dataDir, "snapshots"), { recursive: true });
    const db = new Database(stateDbPath(dataDir));
    // WAL: a loader process writes the registry while servers read it.
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    applySqliteMigrations(db, "meta", "all");
    return new SqliteSnapshotStore(dataDir, db);
  }

  async metaQuery(sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
    // Another request's statement waits for a transaction that is open on the connection: run
    // inside it, its write would be undone by the transaction's rollback, and it would read what
    // the transaction has not committed.
    while (this.open) await this.open;
    return this.statement(sql, params);
  }

  private statement(sql: string, params: unknown[] = []): Record<string, unknown>[] {
    // Prepared once per text: a page of the change feed is one statement, and preparing it again
    // for each page was a sixth of the page's CPU.
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql.replaceAll("{meta}.", ""));
      this.statements.set(sql, stmt);
    }
    if (stmt.reader) return stmt.all(...params) as Record<string, unknown>[];
    stmt.run(...params);
    return [];
  }

  /**
   * The one connection's transactions run one after another (a second BEGIN inside the first would
   * fail), and while one is open every other statement of the meta database waits for it to end
   * (metaQuery): only `work`'s own statements are in it.
   */
  private transactions: Promise<unknown> = Promise.resolve();
  /** The transaction open now, until it ends. */
  private open: Promise<unknown> | null = null;

  metaTransaction<T>(work: (query: MetaQuery) => Promise<T>): Promise<T> {
    const run = async () => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const result = await work(async (sql, params) => this.statement(sql, params));
        this.db.exec("COMMIT");
        return result;
      } catch (e) {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw e;
      }
    };
    const start = async () => {
      const running = run();
      this.open = running.catch(() => {});
      try {
        return await running;
      } finally {
        this.open = null;
      }
    };
    const done = this.transactions.then(start, start);
    this.transactions = done.catch(() => {});
    return done;
  }

  async current(): Promise<SnapshotRow | null> {
    const r = this.db
      .prepare("SELECT * FROM snapshot WHERE status = 'ready' ORDER BY version DESC LIMIT 1")
      .get() as RawSnapshotRow | undefined;
    return r ? toSnapshotRow(r) : null;
  }

  async list(): Promise<SnapshotRow[]> {
    return (this.db.prepare("SELECT * FROM snapshot ORDER BY version").all() as RawSnapshotRow[]).map(
      toSnapshotRow,
    );
  }

  async lockForLoad(): Promise<() => Promise<void>> {
    const lockPath = join(this.dataDir, "load.lock");
    takeFileLock(lockPath);
    // We hold the lock, so any row still `loading` belongs to a load that died.
    for (const r of this.db
      .prepare("SELECT * FROM snapshot WHERE status = 'loading'")
      .all() as RawSnapshotRow[]) {
      await this.fail(r.version, "interrupted: the loading process ended before finishing");
    }
    return async () => rmSync(lockPath, { force: true });
  }

  async format(location: string): Promise<FormatCheck> {
    const file = new Database(snapshotFilePath(this.dataDir, location), {
      readonly: true,
      fileMustExist: true,
    });
    try {
      return await checkFormat({
        kind: "sqlite",
        table: (name) => `"${name}"`,
        all: async (sql, params) =>
          file
            .prepare(sql.replace(/\$\d+/g, "?"))
            .raw()
            .all(...params) as unknown[][],
      });
    } finally {
      file.close();
    }
  }

  async begin(source: string, changesRetention = 52): Promise<{ version: number; writer: SnapshotWriter }> {
    const served = await this.current();
    if (served) assertLoadable(served.version, await this.format(served.location));
    const published = (
      this.db
        .prepare("SELECT version FROM snapshot WHERE status IN ('ready', 'retired') ORDER BY version DESC")
        .all() as { version: number }[]
    ).map((r) => r.version);
    const version = this.db.transaction(() => {
      const { v } = this.db
        .prepare(
          "INSERT INTO snapshot (status, started_at, location, source) VALUES ('loading', ?, '', ?) RETURNING version AS v",
        )
        .get(Date.now(), source) as { v: number };
      this.db
        .prepare("UPDATE snapshot SET location = ? WHERE version = ?")
        .run(`snapshots/snapshot-${v}.db`, v);
      return v;
    })();
    const path = snapshotFilePath(this.dataDir, `snapshots/snapshot-${version}.db`);
    rmSync(path, { force: true });
    const changes = served && {
      previous: snapshotFilePath(this.dataDir, served.location),
      version,
      keepFrom: keptFrom(version, published, changesRetention),
    };
    return { version, writer: new SqliteSnapshotWriter(path, changes ?? undefined) };
  }

  async publish(version: number, counts: SnapshotCounts, options: PublishOptions): Promise<void> {
    const row = this.db.prepare("SELECT location FROM snapshot WHERE version = ?").get(version) as
      | { location: string }
      | undefined;
    if (!row) throw new Error(`snapshot ${version} is not registered`);
    // The copy's staged events join the feed in the transaction that serves the copy.
    this.db.prepare("ATTACH DATABASE ? AS snap").run(snapshotFilePath(this.dataDir, row.location));
    try {
      this.db.transaction(() => {
        const now = Date.now();
        this.db
          .prepare(
            "UPDATE snapshot SET status = 'ready', finished_at = ?, apps = ?, domains = ?, reviews = ? WHERE version = ? AND status = 'loading'",
          )
          .run(now, counts.apps, counts.domains, counts.reviews, version);
        const staged = this.db.prepare("SELECT 1 FROM snap.sqlite_master WHERE name = ?").get(STAGED);
        const feed = (this.db
          .prepare("SELECT last_id, last_pos, pruned_through FROM change_feed WHERE id = 1")
          .get() as { last_id: number; last_pos: number; pruned_through: number } | undefined) ?? {
          last_id: 0,
          last_pos: 0,
          pruned_through: 0,
        };
        let last = feed.last_id;
        let lastPos = feed.last_pos;
        checkFeedTail(options.feedTail, last, lastPos);
        if (staged) {
          const { changes } = this.db
            .prepare(
              `INSERT INTO change_event (id, pos, seq, version, loaded_at, kind, domain, app, app_id, app_name, technology, before, after, doc)
               SELECT id, pos, seq, version, loaded_at, kind, domain, app, app_id, app_name, technology, before, after, ${EVENT_DOC.sqlite}
               FROM (SELECT CAST(? AS INTEGER) + seq AS id, CAST(? AS INTEGER) + seq AS pos, 0 AS seq, CAST(? AS INTEGER) AS version, CAST(? AS INTEGER) AS loaded_at, kind, domain, app, app_id, app_name, technology, before, after, NULL AS segment
                     FROM (${stagedInOrder("sqlite", `snap."${STAGED}"`)})) ORDER BY id`,
            )
            .run(last, lastPos, version, now);
          // Every account sees them: the public places count them too.
          last += changes;
          lastPos += changes;
        }
        // The load's unfiltered facet counts join the trends (src/db/history.ts).
        if (this.db.prepare("SELECT 1 FROM snap.sqlite_master WHERE name = ?").get(FACET_SUMMARY_TABLE))
          this.db
            .prepare(keepTrendStatement(`snap."${FACET_SUMMARY_TABLE}"`, "", "sqlite"))
            .run(version, now);
        if (options.segments)
          last = publishSegmentsSqlite(this.db, options.segments, version, now, { last, lastPos });
        // Retention: the events of the newest `changesRetention` published loads.
        const floor = this.db
          .prepare(
            "SELECT version FROM snapshot WHERE status IN ('ready', 'retired') ORDER BY version DESC LIMIT 1 OFFSET ?",
          )
          .get(Math.max(0, options.changesRetention - 1)) as { version: number } | undefined;
        let pruned = feed.pruned_through;
        if (floor) {
          const events = pruneEventsStatements("", "sqlite");
          const { top } = this.db.prepare(events.top).get(floor.version) as { top: number | null };
          this.db.prepare(events.prune).run(floor.version);
          if (top !== null) pruned = Math.max(pruned, top);
          this.db.prepare(pruneTrendsStatement("", "sqlite")).run(floor.version);
        }
        this.db
          .prepare(
            `INSERT INTO change_feed (id, last_id, pruned_through, last_pos) VALUES (1, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET last_id = excluded.last_id, pruned_through = excluded.pruned_through, last_pos = excluded.last_pos`,
          )
          .run(last, pruned, lastPos);
      })();
    } finally {
      this.db.exec("DETACH DATABASE snap");
    }
    // Committed: every gateway watching the signal learns of it now (listen). The load is published
    // whether or not the signal could be written: gateways ask the registry every few seconds too.
    try {
      writeFileSync(publishedSignalPath(this.dataDir), String(version));
    } catch {
      // Told by the next ask instead.
    }
    const older = this.db
      .prepare("SELECT * FROM snapshot WHERE status = 'ready' AND version < ? ORDER BY version DESC")
      .all(version) as RawSnapshotRow[];
    for (const r of older.slice(options.keep)) {
      this.db.prepare("UPDATE snapshot SET status = 'retired' WHERE version = ?").run(r.version);
      removeSnapshotFile(snapshotFilePath(this.dataDir, r.location));
    }
  }

  /**
   * Calls `onPublish` when any process publishes a snapshot on this data directory: each publish
   * writes the `published` file after its commit, and the file is watched (inotify on Linux), so
   * gateways learn of a load at once instead of asking the registry four times a second. A watch
   * that fails is made again a second later; `listening()` says whether it watches now (the caller
   * polls meanwhile).
   */
  listen(onPublish: () => void): { listening(): boolean; close(): Promise<void> } {
    const path = publishedSignalPath(this.dataDir);
    let watcher: FSWatcher | null = null;
    let closed = false;
    let retry: NodeJS.Timeout | null = null;
    const start = () => {
      if (closed) return;
      try {
        // The file a watch needs: made empty if no load has published since it was introduced.
        closeSync(openSync(path, "a"));
        const w = watch(path, { persistent: false }, () => onPublish());
        w.on("error", () => {
          w.close();
          if (watcher === w) watcher = null;
          again();
        });
        watcher = w;
        // A load published while it was not watching is seen at once.
        onPublish();
      } catch {
        again();
      }
    };
    const again = () => {
      if (closed || retry) return;
      retry = setTimeout(() => {
        retry = null;
        start();
      }, 1000);
      retry.unref();
    };
    start();
    return {
      listening: () => watcher !== null,
      close: async () => {
        closed = true;
        if (retry) clearTimeout(retry);
        watcher?.close();
        watcher = null;
      },
    };
  }

  async fail(version: number, error: string): Promise<void> {
    const r = this.db.prepare("SELECT location FROM snapshot WHERE version = ?").get(version) as
      | { location: string }
      | undefined;
    this.db
      .prepare(
        "UPDATE snapshot SET status = 'failed', finished_at = ?, error = ? WHERE version = ? AND status = 'loading'",
      )
      .run(Date.now(), error.slice(0, 10_000), version);
    if (r?.location) removeSnapshotFile(snapshotFilePath(this.dataDir, r.location));
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

function removeSnapshotFile(path: string): void {
  // ".rendering": what a load's render writes beside the file (src/db/rendered.ts), if it stopped.
  for (const suffix of ["", "-journal", "-wal", "-shm", ".rendering"]) rmSync(path + suffix, { force: true });
}

/** An exclusive lock file holding the owner's pid; a lock whose owner is gone is taken over. */
function takeFileLock(path: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const owner = Number(existsSync(path) ? readFileSync(path, "utf8") : "0");
      if (owner && (owner === process.pid || isAlive(owner))) {
        throw new LoadInProgressError(`another load is in progress (process ${owner}, lock file ${path})`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new LoadInProgressError(`could not take the load lock ${path}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
