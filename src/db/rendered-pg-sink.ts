import { once } from "node:events";
import { RENDERED_STAGING, RENDERED_TABLE } from "./rendered.ts";
import {
  checkComplete,
  checkOnce,
  next,
  type RenderedSink,
  renderedTableStatements,
} from "./rendered-sink.ts";
import { PART_TABLE, recordPartStatements } from "./snapshot-format.ts";

/**
 * PostgreSQL's sink of a load's rendered records (src/db/rendered-sink.ts): one binary COPY into a
 * staging table, then the served table laid out from it in rank order and swapped in with the
 * part recorded, in one transaction.
 */

/** How long the swap of rendered tables waits for reads of them under way, and how many times it tries. */
const SWAP_LOCK_MS = 2_000;
const SWAP_ATTEMPTS = 150;

/**
 * PostgreSQL: RENDERED_TABLE made of the rendered pieces (RENDERED_STAGING), laid out for reading
 * them in order:
 * - in rank order, every list's and export's default: the pieces of the Domains an export reads
 *   one after another lie on the same pages, and its reads go forward through the table instead
 *   of to any of its pages (which, at a million Domains, are not all in PostgreSQL's buffers);
 * - each piece within its row (toast_tuple_target at its largest): a piece is about 2 KB, which
 *   PostgreSQL would otherwise move to the table's TOAST relation, read through an index of its
 *   own, row by row (only a piece of more than about 8 KB still goes there). A row below that
 *   target is never tried for compression either; the table is written once, here, so no later
 *   write needs telling (the staging table is EXTERNAL). The measurements are in
 *   docs/performance-history.md, "Rendered records".
 */
export function renderedLayout(table: (name: string) => string): { build: string[]; swap: string[] } {
  const ordered = `FROM ${table(RENDERED_STAGING)} x JOIN ${table("domain")} d ON d."pk" = x."domain_pk" ORDER BY d."rank", d."pk"`;
  return {
    // Built under a name of its own, with no lock on what is served.
    build: [
      // CREATE TABLE AS writes its rows in the order they come, each page after the last: an
      // INSERT would put a short piece back into an earlier page with room for it (75 rows out
      // of place on average, measured on 50,000 Domains).
      `CREATE TABLE ${table(next(RENDERED_TABLE))} WITH (toast_tuple_target = 8160) AS SELECT x."domain_pk", x."crc", x."len", x."body" ${ordered}`,
      `ALTER TABLE ${table(next(RENDERED_TABLE))} ADD PRIMARY KEY ("domain_pk")`,
      `DROP TABLE ${table(RENDERED_STAGING)}`,
    ],
    // In the transaction that records the part: what was served is replaced at once (a read
    // waiting on it meanwhile reads the new table once the transaction commits).
    swap: [
      `DROP TABLE IF EXISTS ${table(RENDERED_TABLE)}`,
      `ALTER TABLE ${table(next(RENDERED_TABLE))} RENAME TO "${RENDERED_TABLE}"`,
      `ALTER INDEX ${table(`${next(RENDERED_TABLE)}_pkey`)} RENAME TO "${RENDERED_TABLE}_pkey"`,
      ...recordPartStatements(table(PART_TABLE), "rendered"),
    ],
  };
}

/**
 * PostgreSQL: the snapshot's schema, through one COPY in binary (the pieces go as they are, not as
 * hex).
 */
export async function pgRenderedSink(url: string, schema: string): Promise<RenderedSink> {
  const { default: pg } = await import("pg");
  const { from: copyFrom } = await import("pg-copy-streams");
  const table = (n: string) => `"${schema}"."${n}"`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const statement of renderedTableStatements("postgresql", table)) await client.query(statement);
  const copy = client.query(copyFrom(`COPY ${table(RENDERED_STAGING)} FROM STDIN (FORMAT binary)`));
  const done = new Promise<void>((resolve, reject) => {
    copy.on("finish", resolve);
    copy.on("error", reject);
  });
  done.catch(() => {});
  // The binary COPY header: signature, flags, no extension.
  copy.write(Buffer.from("PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0", "latin1"));
  let records = 0;
  let bytes = 0;
  const end = async () => {
    await client.end().catch(() => {});
  };
  return {
    async write(page) {
      const n = page.pks.length;
      const out = Buffer.allocUnsafe(n * (2 + 3 * (4 + 8) + 4) + page.bytes.byteLength);
      let at = 0;
      let start = 0;
      for (let i = 0; i < n; i++) {
        at = out.writeInt16BE(4, at);
        for (const v of [page.pks[i], page.crcs[i], page.lens[i]]) {
          at = out.writeInt32BE(8, at);
          at = out.writeBigInt64BE(BigInt(v), at);
        }
        const length = page.ends[i] - start;
        at = out.writeInt32BE(length, at);
        out.set(page.bytes.subarray(start, page.ends[i]), at);
        at += length;
        start = page.ends[i];
      }
      records += n;
      bytes += page.bytes.byteLength;
      if (!copy.write(out.subarray(0, at))) await Promise.race([once(copy, "drain"), done]);
    },
    async finish() {
      const trailer = Buffer.alloc(2);
      trailer.writeInt16BE(-1);
      copy.end(trailer);
      await done;
      // The pieces laid out in rank order; then they replace what was served, with the part
      // recorded, in one transaction.
      const layout = renderedLayout(table);
      const repeated = await client.query({
        text: `SELECT count(*) - count(DISTINCT "domain_pk") FROM ${table(RENDERED_STAGING)}`,
        rowMode: "array",
      });
      checkOnce(Number((repeated.rows[0] as unknown[])[0]));
      for (const statement of layout.build) await client.query(statement);
      const counted = await client.query({
        text: `SELECT (SELECT count(*) FROM ${table(next(RENDERED_TABLE))}), (SELECT count(*) FROM ${table("domain")})`,
        rowMode: "array",
      });
      const [pieces, domains] = (counted.rows[0] as unknown[]).map(Number);
      checkComplete(pieces, domains);
      // Replacing a served table waits for the reads of it under way (an export's may be long),
      // and every read asked meanwhile would wait behind it: a few seconds at most, then again.
      for (let attempt = 1; ; attempt++) {
        try {
          await client.query("BEGIN");
          await client.query(`SET LOCAL lock_timeout = '${SWAP_LOCK_MS}ms'`);
          for (const statement of layout.swap) await client.query(statement);
          await client.query("COMMIT");
          break;
        } catch (e) {
          await client.query("ROLLBACK").catch(() => {});
          // 55P03: lock_not_available.
          if ((e as { code?: string }).code !== "55P03" || attempt >= SWAP_ATTEMPTS) throw e;
          await new Promise((resolve) => setTimeout(resolve, SWAP_LOCK_MS));
        }
      }
      await client.query(`VACUUM ANALYZE ${table(RENDERED_TABLE)}`);
      await end();
      return { records, bytes };
    },
    async abort() {
      copy.destroy();
      await end();
      // What was copied goes (the connection that copied it may be unusable).
      const cleaner = new pg.Client({ connectionString: url });
      try {
        await cleaner.connect();
        for (const name of [RENDERED_STAGING, next(RENDERED_TABLE)])
          await cleaner.query(`DROP TABLE IF EXISTS ${table(name)}`);
      } finally {
        await cleaner.end().catch(() => {});
      }
    },
  };
}
