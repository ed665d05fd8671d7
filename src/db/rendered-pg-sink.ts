import { once } from "node:events";
import { RENDERED_STAGING, RENDERED_STAMP, RENDERED_TABLE, RENDERED_TEXT } from "./rendered.ts";
import { checkComplete, next, type RenderedSink, renderedTableStatements } from "./rendered-sink.ts";

/**
 * PostgreSQL's sink of a load's rendered records (src/db/rendered-sink.ts): one binary COPY into a
 * staging table, then the served tables laid out from it in rank order and swapped in with the
 * stamp, in one transaction.
 */

/** How long the swap of rendered tables waits for reads of them under way, and how many times it tries. */
const SWAP_LOCK_MS = 2_000;
const SWAP_ATTEMPTS = 150;

/**
 * PostgreSQL: the staging table's text compressed with lz4, where the server was built with it
 * (PostgreSQL 14 and later, --with-lz4; Debian's and the official images are); else it keeps
 * PostgreSQL's default (pglz), slower to read but the same text. Returns the method used.
 */
export async function compressTextWith(
  query: (text: string) => Promise<unknown>,
  table: (name: string) => string,
): Promise<"lz4" | "pglz"> {
  try {
    await query(`ALTER TABLE ${table(RENDERED_STAGING)} ALTER COLUMN "text" SET COMPRESSION lz4`);
    return "lz4";
  } catch (e) {
    // 0A000: feature_not_supported ("compression method lz4 not supported").
    if ((e as { code?: string }).code === "0A000") return "pglz";
    throw e;
  }
}

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
export function renderedLayout(
  table: (name: string) => string,
  texts: boolean,
): { build: string[]; swap: string[] } {
  const ordered = `FROM ${table(RENDERED_STAGING)} x JOIN ${table("domain")} d ON d."pk" = x."domain_pk" ORDER BY d."rank", d."pk"`;
  return {
    // Built under names of their own, with no lock on what is served.
    build: [
      // CREATE TABLE AS writes its rows in the order they come, each page after the last: an
      // INSERT would put a short piece back into an earlier page with room for it (75 rows out
      // of place on average, measured on 50,000 Domains).
      `CREATE TABLE ${table(next(RENDERED_TABLE))} WITH (toast_tuple_target = 8160) AS SELECT x."domain_pk", x."crc", x."len", x."body" ${ordered}`,
      `ALTER TABLE ${table(next(RENDERED_TABLE))} ADD PRIMARY KEY ("domain_pk")`,
      // The texts the same way, in a table of their own (an export reads one form or the
      // other). Each text comes compressed as the staging table keeps it, and is not compressed
      // again: a row below the target is stored as it comes.
      ...(texts
        ? [
            `CREATE TABLE ${table(next(RENDERED_TEXT))} WITH (toast_tuple_target = 8160) AS SELECT x."domain_pk", x."text" ${ordered}`,
            `ALTER TABLE ${table(next(RENDERED_TEXT))} ADD PRIMARY KEY ("domain_pk")`,
          ]
        : []),
      `DROP TABLE ${table(RENDERED_STAGING)}`,
    ],
    // In the transaction that records the stamp: what was served is replaced at once (a read
    // waiting on it meanwhile reads the new table once the transaction commits). Texts a render
    // before kept go when this one keeps none: they would be another render's text.
    swap: [RENDERED_TABLE, ...(texts ? [RENDERED_TEXT] : [])]
      .flatMap((name) => [
        `DROP TABLE IF EXISTS ${table(name)}`,
        `ALTER TABLE ${table(next(name))} RENAME TO "${name}"`,
        `ALTER INDEX ${table(`${next(name)}_pkey`)} RENAME TO "${name}_pkey"`,
      ])
      .concat(texts ? [] : [`DROP TABLE IF EXISTS ${table(RENDERED_TEXT)}`]),
  };
}

/**
 * PostgreSQL: the snapshot's schema, through one COPY in binary (the pieces go as they are, not as
 * hex); `texts`: each piece's text too (RENDERED_TEXTS).
 */
export async function pgRenderedSink(url: string, schema: string, texts: boolean): Promise<RenderedSink> {
  const { default: pg } = await import("pg");
  const { from: copyFrom } = await import("pg-copy-streams");
  const table = (n: string) => `"${schema}"."${n}"`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const statement of renderedTableStatements("postgresql", table, texts)) await client.query(statement);
  if (texts) await compressTextWith((text) => client.query(text), table);
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
    text: texts,
    async write(page) {
      const { texts: text, textEnds } = page;
      if (texts && (!text || !textEnds)) throw new Error("a page of pieces came without its texts");
      const n = page.pks.length;
      const out = Buffer.allocUnsafe(
        n * (2 + 3 * (4 + 8) + 2 * 4) + page.bytes.byteLength + (text?.byteLength ?? 0),
      );
      let at = 0;
      let start = 0;
      let textStart = 0;
      for (let i = 0; i < n; i++) {
        at = out.writeInt16BE(texts ? 5 : 4, at);
        for (const v of [page.pks[i], page.crcs[i], page.lens[i]]) {
          at = out.writeInt32BE(8, at);
          at = out.writeBigInt64BE(BigInt(v), at);
        }
        const length = page.ends[i] - start;
        at = out.writeInt32BE(length, at);
        out.set(page.bytes.subarray(start, page.ends[i]), at);
        at += length;
        start = page.ends[i];
        if (!texts || !text || !textEnds) continue;
        const textLength = textEnds[i] - textStart;
        at = out.writeInt32BE(textLength, at);
        out.set(text.subarray(textStart, textEnds[i]), at);
        at += textLength;
        textStart = textEnds[i];
      }
      records += n;
      bytes += page.bytes.byteLength;
      if (!copy.write(out.subarray(0, at))) await Promise.race([once(copy, "drain"), done]);
    },
    async finish(stamp, ms) {
      const trailer = Buffer.alloc(2);
      trailer.writeInt16BE(-1);
      copy.end(trailer);
      await done;
      // The pieces and texts laid out in rank order; then they replace what was served, with the
      // stamp that makes them served, in one transaction.
      const layout = renderedLayout(table, texts);
      for (const statement of layout.build) await client.query(statement);
      const counted = await client.query({
        text: `SELECT (SELECT count(*) FROM ${table(next(RENDERED_TABLE))}), (SELECT count(*) FROM ${table("domain")})${texts ? `, (SELECT count(*) FROM ${table(next(RENDERED_TEXT))})` : ""}`,
        rowMode: "array",
      });
      const [pieces, domains, kept] = (counted.rows[0] as unknown[]).map(Number);
      checkComplete(pieces, domains);
      if (texts) checkComplete(kept, domains, "texts");
      // Replacing a served table waits for the reads of it under way (an export's may be long),
      // and every read asked meanwhile would wait behind it: a few seconds at most, then again.
      for (let attempt = 1; ; attempt++) {
        try {
          await client.query("BEGIN");
          await client.query(`SET LOCAL lock_timeout = '${SWAP_LOCK_MS}ms'`);
          for (const statement of layout.swap) await client.query(statement);
          await client.query(`DELETE FROM ${table(RENDERED_STAMP)}`);
          await client.query(`INSERT INTO ${table(RENDERED_STAMP)} VALUES ($1, $2, $3, $4)`, [
            stamp,
            records,
            bytes,
            Math.round(ms),
          ]);
          await client.query("COMMIT");
          break;
        } catch (e) {
          await client.query("ROLLBACK").catch(() => {});
          // 55P03: lock_not_available.
          if ((e as { code?: string }).code !== "55P03" || attempt >= SWAP_ATTEMPTS) throw e;
          await new Promise((resolve) => setTimeout(resolve, SWAP_LOCK_MS));
        }
      }
      await client.query(
        `VACUUM ANALYZE ${table(RENDERED_TABLE)}${texts ? `, ${table(RENDERED_TEXT)}` : ""}`,
      );
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
        for (const name of [RENDERED_STAGING, next(RENDERED_TABLE), next(RENDERED_TEXT)])
          await cleaner.query(`DROP TABLE IF EXISTS ${table(name)}`);
      } finally {
        await cleaner.end().catch(() => {});
      }
    },
  };
}
