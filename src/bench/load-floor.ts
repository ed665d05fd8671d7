import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import Database from "better-sqlite3";
import pg from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";
import type { Config } from "../config.ts";
import type { SnapshotRow } from "../db/store.ts";
import { TABLES } from "../db/tables.ts";

/**
 * The floor a load's ingest is held to (issue 72: within 3× of it): the database's own bulk load
 * of the same rows, measured beside the load in the same run, on the snapshot it just served.
 *
 * - PostgreSQL: every table of the snapshot the ingest writes, copied out as COPY text (not
 *   timed), then COPY … FROM STDIN into a table of the same columns without indexes or keys
 *   (`LIKE`), one stream, one table after another: what the server itself needs to take the rows.
 * - SQLite: the same tables written into a new file with the loader's own settings (no journal,
 *   no sync, 16 KB pages) by `CREATE TABLE … AS SELECT` from the snapshot attached, in one
 *   transaction: SQLite writing the rows with no parsing and no checks.
 *
 * Neither parses JSON nor checks a record: the ingest does both, so the ratio tells what they and
 * the loader's own work cost beyond the database's.
 */
export interface Floor {
  seconds: number;
  rows: number;
  /** The COPY text's bytes (PostgreSQL) or the written file's (SQLite). */
  bytes: number;
  how: string;
}

/** The tables a load's ingest writes (every table of a snapshot's model). */
const INGESTED = Object.values(TABLES).map((t) => t.name);

export async function bulkFloor(
  config: Pick<Config, "database">,
  snapshot: Pick<SnapshotRow, "location">,
): Promise<Floor> {
  const db = config.database;
  return db.kind === "sqlite"
    ? sqliteFloor(join(db.dataDir, snapshot.location))
    : pgFloor(db.url, snapshot.location);
}

async function pgFloor(url: string, schema: string): Promise<Floor> {
  const scratch = mkdtempSync(join(tmpdir(), "storegraph-floor-"));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const floor = `storegraph_floor_${process.pid}`;
  let seconds = 0;
  let rows = 0;
  let bytes = 0;
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${floor}" CASCADE`);
    await client.query(`CREATE SCHEMA "${floor}"`);
    for (const name of INGESTED) {
      const file = join(scratch, `${name}.copy`);
      await pipeline(client.query(copyTo(`COPY "${schema}"."${name}" TO STDOUT`)), createWriteStream(file));
      bytes += statSync(file).size;
      await client.query(`CREATE TABLE "${floor}"."${name}" (LIKE "${schema}"."${name}")`);
      const started = performance.now();
      const into = client.query(copyFrom(`COPY "${floor}"."${name}" FROM STDIN`));
      await pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), into);
      seconds += (performance.now() - started) / 1000;
      rows += into.rowCount ?? 0;
      rmSync(file);
    }
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS "${floor}" CASCADE`).catch(() => {});
    await client.end();
    rmSync(scratch, { recursive: true, force: true });
  }
  return {
    seconds,
    rows,
    bytes,
    how: "COPY … FROM STDIN of the snapshot's rows as COPY text into tables without indexes, one stream",
  };
}

async function sqliteFloor(path: string): Promise<Floor> {
  const scratch = mkdtempSync(join(tmpdir(), "storegraph-floor-"));
  const file = join(scratch, "floor.db");
  const db = new Database(file);
  try {
    db.pragma("page_size = 16384");
    db.pragma("journal_mode = OFF");
    db.pragma("synchronous = OFF");
    db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("cache_size = -65536");
    db.prepare("ATTACH DATABASE ? AS src").run(path);
    const started = performance.now();
    db.transaction(() => {
      for (const name of INGESTED) db.exec(`CREATE TABLE main."${name}" AS SELECT * FROM src."${name}"`);
    })();
    const seconds = (performance.now() - started) / 1000;
    let rows = 0;
    for (const name of INGESTED)
      rows += Number(db.prepare(`SELECT count(*) FROM main."${name}"`).pluck().get());
    db.exec("DETACH DATABASE src");
    db.close();
    return {
      seconds,
      rows,
      bytes: statSync(file).size,
      how: "CREATE TABLE … AS SELECT of the snapshot's rows into a new file with the loader's settings, one transaction",
    };
  } finally {
    if (db.open) db.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
