import { rmSync } from "node:fs";
import type { SqlReader } from "./reader.ts";
import { RENDERED_STAGING, RENDERED_TABLE } from "./rendered.ts";
import { PART_TABLE, recordPartStatements } from "./snapshot-format.ts";

/**
 * Where a load's rendering (src/render.ts) writes the rendered records (src/db/rendered.ts): the
 * sink's interface, the tables it makes, the check that a render is complete before it is
 * published, and SQLite's sink (PostgreSQL's: src/db/rendered-pg-sink.ts).
 */

/**
 * The statements that make the (empty) tables: on SQLite, RENDERED_TABLE itself; on PostgreSQL,
 * the table the pieces are copied into as they are rendered (renderedLayout makes RENDERED_TABLE
 * of it). PostgreSQL leaves the table it has until renderedLayout replaces it: a served snapshot
 * rendered again (npm run load -- --upgrade) is answered from it meanwhile.
 */
export function renderedTableStatements(kind: SqlReader["kind"], table: (name: string) => string): string[] {
  if (kind === "sqlite")
    return [
      `DROP TABLE IF EXISTS ${table(RENDERED_TABLE)}`,
      `CREATE TABLE ${table(RENDERED_TABLE)} ("ord" INTEGER PRIMARY KEY, "domain_pk" INTEGER NOT NULL, "crc" INTEGER NOT NULL, "len" INTEGER NOT NULL, "body" BLOB NOT NULL)`,
    ];
  return [
    // What a render that did not finish left.
    `DROP TABLE IF EXISTS ${table(RENDERED_STAGING)}`,
    `DROP TABLE IF EXISTS ${table(next(RENDERED_TABLE))}`,
    // Written once and read only by renderedLayout: not worth the WAL. The pieces are compressed
    // already.
    `CREATE UNLOGGED TABLE ${table(RENDERED_STAGING)} ("domain_pk" bigint NOT NULL, "crc" bigint NOT NULL, "len" bigint NOT NULL, "body" bytea NOT NULL)`,
    `ALTER TABLE ${table(RENDERED_STAGING)} ALTER COLUMN "body" SET STORAGE EXTERNAL`,
  ];
}

/** PostgreSQL: the name a table is built under before it replaces the served one (renderedLayout). */
export const next = (name: string) => `${name}_next`;

/**
 * A page of a load's rendering: the pieces' bodies joined in `bytes`, each ending at `ends[i]`,
 * with each one's key, CRC-32 and text length.
 */
export interface RenderedPage {
  bytes: Uint8Array;
  pks: Float64Array;
  crcs: Uint32Array;
  lens: Uint32Array;
  ends: Uint32Array;
}

/** Where a load's rendering writes the pieces: the new snapshot's RENDERED_TABLE. */
export interface RenderedSink {
  /** Writes a page of pieces. */
  write(page: RenderedPage): Promise<void>;
  /**
   * The table complete, it is served with the part recorded (src/db/snapshot-format.ts,
   * `rendered`), in one transaction. Returns the records and the bytes the pieces take.
   */
  finish(): Promise<{ records: number; bytes: number }>;
  /** Drops what was written. */
  abort(): Promise<void>;
}

/** No Domain's piece written twice: `repeated` pieces of Domains written before fail the load. */
export function checkOnce(repeated: number): void {
  if (repeated)
    throw new Error(`the render wrote ${repeated} pieces of Domains already written: not published`);
}

/**
 * A render is published only complete: a piece for every Domain of the snapshot, each once. The
 * tables it is checked on are made of the pieces joined to the snapshot's Domains (a piece of no
 * Domain is left out) and hold each Domain's piece once (a second piece of one Domain fails the
 * load: checkOnce, before the tables are built), so the same count as the
 * Domains is every Domain once. Else the load fails, and nothing is published.
 */
export function checkComplete(pieces: number, domains: number, what = "pieces"): void {
  if (pieces !== domains)
    throw new Error(
      `the render holds ${what} of ${pieces} of the snapshot's ${domains} Domains (${domains - pieces} missing): not published`,
    );
}

/**
 * SQLite: the pieces are written as they come (by several threads, each a run of domains.parquet's
 * order: src/render.ts) to a file beside the snapshot's, one after another (a table keyed by
 * domain_pk took them out of key order, a third of the render's time on the loader's thread); at the
 * end they are put in rank order there (`INSERT …
 * SELECT … ORDER BY rank, pk`), then copied into the snapshot in one transaction, with the unique
 * index on domain_pk. A rowid table keeps its rows in rowid order, so the rank order, every list's
 * and export's default, is then the table's own: an export's reads go forward through it, where in
 * key order each piece was a page read of its own (docs/performance-history.md, "SQLite's exports sorted
 * once"). A served snapshot (npm run load -- --upgrade) is read by gateways meanwhile: once the
 * copy outgrows the connection's cache, SQLite holds their reads off until it commits (seconds at
 * 1M). The side file takes about twice the pieces' size at its largest, and is removed with the
 * snapshot's files if a load stops (src/db/sqlite-store.ts).
 */
export async function sqliteRenderedSink(file: string): Promise<RenderedSink> {
  const { default: Database } = await import("better-sqlite3");
  const side = `${file}.rendering`;
  rmSync(side, { force: true });
  const db = new Database(side);
  db.pragma("journal_mode = OFF");
  db.pragma("synchronous = OFF");
  db.pragma("cache_size = -65536");
  db.exec(
    `CREATE TABLE "${RENDERED_TABLE}" ("domain_pk" INTEGER NOT NULL, "crc" INTEGER NOT NULL, "len" INTEGER NOT NULL, "body" BLOB NOT NULL)`,
  );
  const insert = db.prepare(`INSERT INTO "${RENDERED_TABLE}" VALUES (?, ?, ?, ?)`);
  let records = 0;
  let bytes = 0;
  const writePage = db.transaction((page: Parameters<RenderedSink["write"]>[0]) => {
    const all = Buffer.from(page.bytes.buffer, page.bytes.byteOffset, page.bytes.byteLength);
    let start = 0;
    for (let i = 0; i < page.pks.length; i++) {
      insert.run(page.pks[i], page.crcs[i], page.lens[i], all.subarray(start, page.ends[i]));
      start = page.ends[i];
    }
    records += page.pks.length;
    bytes += page.bytes.byteLength;
  });
  return {
    async write(page) {
      writePage(page);
    },
    async finish() {
      // Ordered in the side file first (the snapshot's Domains read through an ATTACH, read only),
      // so that what the snapshot's own transaction does is a copy in rowid order and an index:
      // a served snapshot's gateways wait on it for as short a time as it can be.
      db.prepare("ATTACH DATABASE ? AS snapshot").run(file);
      db.exec(
        `CREATE TABLE "ordered" ("ord" INTEGER PRIMARY KEY, "domain_pk" INTEGER NOT NULL, "crc" INTEGER NOT NULL, "len" INTEGER NOT NULL, "body" BLOB NOT NULL)`,
      );
      db.exec(
        `INSERT INTO "ordered" ("domain_pk", "crc", "len", "body") SELECT x."domain_pk", x."crc", x."len", x."body" FROM main."${RENDERED_TABLE}" x JOIN snapshot."domain" d ON d."pk" = x."domain_pk" ORDER BY d."rank", d."pk"`,
      );
      const [pieces, domains, twice] = db
        .prepare(
          `SELECT (SELECT count(*) FROM "ordered"), (SELECT count(*) FROM snapshot."domain"), (SELECT count(*) - count(DISTINCT "domain_pk") FROM main."${RENDERED_TABLE}")`,
        )
        .raw()
        .get() as [number, number, number];
      db.exec("DETACH DATABASE snapshot");
      db.close();
      checkOnce(Number(twice));
      checkComplete(Number(pieces), Number(domains));
      const main = new Database(file, { timeout: 30_000 });
      try {
        main.pragma("cache_size = -65536");
        main.prepare("ATTACH DATABASE ? AS rendering").run(side);
        const tables = renderedTableStatements("sqlite", (n) => `main."${n}"`);
        main
          .transaction(() => {
            for (const statement of tables) main.exec(statement);
            main.exec(
              `INSERT INTO main."${RENDERED_TABLE}" ("ord", "domain_pk", "crc", "len", "body") SELECT "ord", "domain_pk", "crc", "len", "body" FROM rendering."ordered" ORDER BY "ord"`,
            );
            main.exec(
              `CREATE UNIQUE INDEX main."${RENDERED_TABLE}_domain_pk" ON "${RENDERED_TABLE}" ("domain_pk")`,
            );
            for (const statement of recordPartStatements(`main."${PART_TABLE}"`, "rendered"))
              main.exec(statement);
          })
          .immediate();
        main.exec("DETACH DATABASE rendering");
      } finally {
        main.close();
        rmSync(side, { force: true });
      }
      return { records, bytes };
    },
    async abort() {
      if (db.open) db.close();
      rmSync(side, { force: true });
    },
  };
}
