import { once } from "node:events";
import { rmSync } from "node:fs";
import { constants, crc32, deflateRawSync } from "node:zlib";
import { lacksAny } from "./catalogue-check.ts";
import type { SqlReader } from "./reader.ts";

/**
 * Rendered records: each Domain's answer with the default fields, written once per snapshot at
 * load (src/rest/rendered.ts renders them with the generated row writer) and kept in the snapshot,
 * so that every later answer with the default fields copies bytes (docs/decisions.md, "Rendered
 * records").
 *
 * A record is kept as a piece of raw DEFLATE: the record's JSON text alone, compressed alone and
 * ended by a sync flush, so it ends on a byte boundary without a final block. Any run of such
 * pieces, in any order, is itself one DEFLATE stream, and so is one with stored blocks of other
 * text between them (storedBlocks: a JSON Lines newline, a JSON array's comma, a REST answer's
 * envelope): an export inflates a page's pieces in one call, and a client that takes gzip gets
 * them as they are, between a gzip header and a trailer whose CRC-32 is combined from the pieces'
 * own (crc32Combine) without inflating anything. Each piece keeps the CRC-32 and length of its
 * text for that.
 *
 * RENDERED_TABLE holds one row per Domain: (domain_pk, crc, len, body), in rank order on both
 * databases (renderedLayout, sqliteRenderedSink; SQLite's rowid `ord` is the order, with a unique
 * index on domain_pk, where a snapshot rendered before 2026-11-30 keys them by domain_pk: both
 * are read by the same statements). RENDERED_STAMP holds one
 * row: the fingerprint of the code that rendered them (src/rest/rendered.ts: renderStamp). A
 * snapshot without the table, or with another stamp, is answered by the row writer as before.
 */
export const RENDERED_TABLE = "domain_rendered";
export const RENDERED_STAMP = "domain_rendered_stamp";

/** PostgreSQL: what a load's COPY fills, before the pieces are laid out in rank order (renderedLayout). */
export const RENDERED_STAGING = "domain_rendered_staging";

/**
 * PostgreSQL, where RENDERED_TEXTS is on: each Domain's text itself, beside its piece: (domain_pk,
 * text), the text compressed by PostgreSQL with lz4 (its TOAST compression), which it decompresses
 * at GB/s where the gateway inflates a piece. An answer that does not take gzip reads it, and
 * copies bytes; one that takes gzip reads the pieces. Off by default: at a million Domains the
 * texts take 3.9 GB beside the pieces' 2.5 GB and make the render half as long again, while an
 * export from the pieces is as fast; what they still save is the inflating of REST answers to
 * clients that do not take gzip (docs/decisions.md, "Rendered records").
 */
export const RENDERED_TEXT = "domain_rendered_text";

/**
 * The statements that make the (empty) tables: on SQLite, RENDERED_TABLE itself; on PostgreSQL,
 * the table the pieces are copied into as they are rendered (renderedLayout makes RENDERED_TABLE
 * and RENDERED_TEXT of it). PostgreSQL leaves the tables it has until renderedLayout replaces them:
 * a served snapshot rendered again (npm run load -- --render) is answered from them meanwhile.
 */
export function renderedTableStatements(
  kind: SqlReader["kind"],
  table: (name: string) => string,
  texts = false,
): string[] {
  const stamp = (int: string) =>
    `CREATE TABLE ${table(RENDERED_STAMP)} ("stamp" TEXT NOT NULL, "records" ${int} NOT NULL, "bytes" ${int} NOT NULL, "ms" ${int} NOT NULL)`;
  if (kind === "sqlite")
    return [
      `DROP TABLE IF EXISTS ${table(RENDERED_TABLE)}`,
      `DROP TABLE IF EXISTS ${table(RENDERED_STAMP)}`,
      `CREATE TABLE ${table(RENDERED_TABLE)} ("ord" INTEGER PRIMARY KEY, "domain_pk" INTEGER NOT NULL, "crc" INTEGER NOT NULL, "len" INTEGER NOT NULL, "body" BLOB NOT NULL)`,
      stamp("INTEGER"),
    ];
  return [
    // What a render that did not finish left.
    `DROP TABLE IF EXISTS ${table(RENDERED_STAGING)}`,
    `DROP TABLE IF EXISTS ${table(next(RENDERED_TABLE))}`,
    `DROP TABLE IF EXISTS ${table(next(RENDERED_TEXT))}`,
    // Written once and read only by renderedLayout: not worth the WAL. The pieces are compressed
    // already; the text is compressed here, as it is copied in, and stays so when laid out.
    `CREATE UNLOGGED TABLE ${table(RENDERED_STAGING)} ("domain_pk" bigint NOT NULL, "crc" bigint NOT NULL, "len" bigint NOT NULL, "body" bytea NOT NULL${texts ? ', "text" text NOT NULL' : ""})`,
    `ALTER TABLE ${table(RENDERED_STAGING)} ALTER COLUMN "body" SET STORAGE EXTERNAL`,
    stamp("bigint").replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"),
  ];
}

/** How long the swap of rendered tables waits for reads of them under way, and how many times it tries. */
const SWAP_LOCK_MS = 2_000;
const SWAP_ATTEMPTS = 150;

/** PostgreSQL: the name a table is built under before it replaces the served one (renderedLayout). */
const next = (name: string) => `${name}_next`;

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

/** A record's piece: its text as raw DEFLATE ending on a byte boundary, with the text's CRC-32 and length. */
export interface Piece {
  body: Buffer;
  crc: number;
  len: number;
}

/**
 * The bytes a kept piece starts with, before its DEFLATE: the key of the Domain it was rendered for
 * (float64), and its text's CRC-32 and length (uint32), little-endian. A reader compares them with
 * the Domain it read the piece for and with the row's `crc` and `len` (checkedPiece): a piece lost,
 * moved to another Domain's row or given another's CRC is then answered by the writer, never as
 * another Domain's record (docs/decisions.md, "Rendered records": "Each piece names its Domain").
 * Three number compares a piece; its DEFLATE is a view past them, nothing copied.
 */
export const PIECE_HEADER = 16;

/** A piece as it is kept: its header (PIECE_HEADER) naming the Domain `pk`, then its DEFLATE. */
export function keptPiece(pk: number, piece: Piece): Buffer {
  const out = Buffer.allocUnsafe(PIECE_HEADER + piece.body.length);
  out.writeDoubleLE(pk, 0);
  out.writeUInt32LE(piece.crc >>> 0, 8);
  out.writeUInt32LE(piece.len >>> 0, 12);
  out.set(piece.body, PIECE_HEADER);
  return out;
}

/**
 * The DEFLATE of the kept piece `kept`, read for the Domain `pk` from a row whose `crc` and `len`
 * are given; null where there is none (the row lost), or its header names another Domain, CRC-32
 * or length than the row's.
 */
export function checkedPiece(
  kept: Uint8Array | null | undefined,
  pk: number,
  crc: number,
  len: number,
): Buffer | null {
  if (!kept || kept.length < PIECE_HEADER) return null;
  const b = Buffer.isBuffer(kept) ? kept : Buffer.from(kept.buffer, kept.byteOffset, kept.byteLength);
  if (b.readDoubleLE(0) !== pk || b.readUInt32LE(8) !== crc >>> 0 || b.readUInt32LE(12) !== len) return null;
  return b.subarray(PIECE_HEADER);
}

/** DEFLATE level 6 (zlib's default): measured against 1 and 9 in docs/decisions.md. */
const LEVEL = 6;

/** The piece of one record's text. */
export function pieceOf(text: Buffer): Piece {
  return {
    body: deflateRawSync(text, { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH }),
    crc: crc32(text),
    len: text.length,
  };
}

/**
 * `text` as raw DEFLATE stored blocks (RFC 1951 3.2.4: a header byte of BFINAL 0 and BTYPE 00 on
 * a byte boundary, LEN and its complement, the bytes as they are), at most 65,535 bytes a block:
 * joined between pieces without compressing, and ending on a byte boundary as they do.
 */
export function storedBlocks(text: Uint8Array): Buffer {
  const blocks = Math.max(1, Math.ceil(text.length / 0xffff));
  const out = Buffer.allocUnsafe(text.length + 5 * blocks);
  let at = 0;
  for (let from = 0; from < text.length || at === 0; from += 0xffff) {
    const len = Math.min(0xffff, text.length - from);
    out[at] = 0;
    out.writeUInt16LE(len, at + 1);
    out.writeUInt16LE(~len & 0xffff, at + 3);
    out.set(text.subarray(from, from + len), at + 5);
    at += 5 + len;
  }
  return out;
}

/** A text joined between pieces: its stored blocks, CRC-32 and length. */
export interface Joint {
  body: Buffer;
  crc: number;
  len: number;
}
export const jointOf = (text: Uint8Array): Joint => ({
  body: storedBlocks(text),
  crc: crc32(text),
  len: text.length,
});
/** What JSON Lines end each record with, and what a JSON array puts between two. */
export const NEWLINE = jointOf(Uint8Array.of(0x0a));
export const COMMA = jointOf(Uint8Array.of(0x2c));

/**
 * The pieces `bodies` (whose texts have `crcs` and `lens`) with `joint` after each (`last`: after
 * the last one too), as one DEFLATE stream in one buffer (each body copied once, into it); with
 * the length of its text, and its CRC-32 where `withCrc` (a gzip member's: combining them costs a
 * few µs a piece, for nothing when the stream is inflated here).
 */
export function joinPieces(
  bodies: readonly Uint8Array[],
  crcs: ArrayLike<number>,
  lens: ArrayLike<number>,
  joint: Joint,
  last: boolean,
  withCrc = true,
): Joint {
  const count = bodies.length;
  const joints = last ? count : Math.max(0, count - 1);
  let size = joints * joint.body.length;
  for (const body of bodies) size += body.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  let crc = 0;
  let len = 0;
  for (let i = 0; i < count; i++) {
    out.set(bodies[i], at);
    at += bodies[i].length;
    if (withCrc) crc = crc32Combine(crc, crcs[i], lens[i]);
    len += lens[i];
    if (i < joints) {
      out.set(joint.body, at);
      at += joint.body.length;
      if (withCrc) crc = crc32Combine(crc, joint.crc, joint.len);
      len += joint.len;
    }
  }
  return { body: out, crc, len };
}

/* CRC-32 of two texts joined, from each one's CRC-32 and the second's length: zlib's crc32_combine
 * (multiplication modulo the CRC polynomial, x^(8·len) by repeated squaring), which Node does not
 * expose. Checked against crc32 of the joined text in test/db/rendered.test.ts. */
const POLY = 0xedb88320;

/** a·b modulo the polynomial (both reflected, as CRC-32 keeps them). */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^n) modulo the polynomial, for n = 0…31. */
const X2N: number[] = (() => {
  const table: number[] = [];
  let p = 0x40000000; // x^1
  for (let n = 0; n < 32; n++) {
    table.push(p);
    p = multModP(p, p);
  }
  return table;
})();

/** x^(8·len) modulo the polynomial. */
function x8n(len: number): number {
  let p = 0x80000000; // x^0
  let k = 3; // 8 = 2^3
  let n = len;
  while (n) {
    if (n & 1) p = multModP(X2N[k & 31], p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The CRC-32 of A then B, from crc(A), crc(B) and B's length. */
export function crc32Combine(crcA: number, crcB: number, lenB: number): number {
  return (multModP(x8n(lenB), crcA) ^ crcB) >>> 0;
}

/** The 10 bytes that start a gzip member (RFC 1952): DEFLATE, no name, no time, unknown OS. */
export const GZIP_HEADER = Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff);

/** The end of a gzip member after its pieces: an empty final block, then CRC-32 and length (mod 2^32). */
export function gzipTrailer(crc: number, len: number): Uint8Array {
  const out = Buffer.alloc(10);
  out[0] = 0x03; // a final block of fixed codes, holding only its end code
  out[1] = 0x00;
  out.writeUInt32LE(crc >>> 0, 2);
  out.writeUInt32LE(len % 2 ** 32, 6);
  return out;
}

/**
 * One gzip member of `text` with the pieces in the places of its `mark` bytes, in order (a REST
 * answer's envelope written with a mark for each rendered record: JSON text holds no raw NUL):
 * the text between marks as stored blocks, the pieces as they are, the CRC-32 combined. Nothing is
 * inflated or compressed.
 */
export function gzipAround(
  text: Uint8Array,
  pieces: readonly { body: Uint8Array; crc: number; len: number }[],
  mark = 0,
): Buffer {
  const parts: Uint8Array[] = [GZIP_HEADER];
  let crc = 0;
  let len = 0;
  let from = 0;
  let k = 0;
  const add = (part: { body: Uint8Array; crc: number; len: number }) => {
    parts.push(part.body);
    crc = crc32Combine(crc, part.crc, part.len);
    len += part.len;
  };
  for (let i = text.indexOf(mark); i !== -1; i = text.indexOf(mark, i + 1)) {
    if (i > from) add(jointOf(text.subarray(from, i)));
    const piece = pieces[k++];
    if (!piece) throw new Error("a gzip answer has more marks than pieces");
    add(piece);
    from = i + 1;
  }
  if (k !== pieces.length) throw new Error(`a gzip answer has ${k} marks for ${pieces.length} pieces`);
  if (text.length > from) add(jointOf(text.subarray(from)));
  parts.push(gzipTrailer(crc, len));
  return Buffer.concat(parts);
}

/** What a snapshot keeps of its rendered records, as its reader finds it: null when none. */
export interface RenderedInfo {
  stamp: string;
  records: number;
  bytes: number;
  ms: number;
  /**
   * PostgreSQL: the texts are kept too (RENDERED_TEXT). A snapshot rendered before they were has
   * only the pieces, which are served as before.
   */
  text: boolean;
}

/** How long a reader trusts "no rendered records" before asking again (npm run load -- --render adds them). */
const ASK_AGAIN_MS = 60_000;
const asked = new WeakMap<SqlReader, { info: Promise<RenderedInfo | null> }>();

/**
 * The snapshot's rendered records' stamp and size, asked once per reader while they carry
 * `current` (the running code's stamp); none, or another stamp, is asked again after a minute
 * (npm run load -- --render makes them again).
 */
export function renderedInfo(sql: SqlReader, current: string): Promise<RenderedInfo | null> {
  const known = asked.get(sql);
  if (known) return known.info;
  const info = readInfo(sql);
  const entry = { info };
  asked.set(sql, entry);
  info.then(
    (i) => {
      if (i?.stamp === current) return;
      const timer = setTimeout(() => {
        if (asked.get(sql) === entry) asked.delete(sql);
      }, ASK_AGAIN_MS);
      timer.unref?.();
    },
    () => asked.delete(sql),
  );
  return info;
}

/**
 * Forgets what the snapshot `sql` reads keeps of rendered records, asked again at the next answer:
 * its texts were read while a render that keeps none (RENDERED_TEXTS off) dropped them.
 */
export function forgetRendered(sql: SqlReader): void {
  asked.delete(sql);
}

/** PostgreSQL's undefined_table (42P01): the texts a read counted on were dropped by a render since. */
export const isMissingTable = (e: unknown): boolean => (e as { code?: unknown } | null)?.code === "42P01";

async function readInfo(sql: SqlReader): Promise<RenderedInfo | null> {
  // A snapshot older than the code's catalogue, read through what it lacks: its text would not be this code's.
  if (lacksAny(sql.catalogue)) return null;
  const exists =
    sql.kind === "postgresql"
      ? await sql.all(
          "SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL, to_regclass($3) IS NOT NULL",
          [sql.table(RENDERED_TABLE), sql.table(RENDERED_STAMP), sql.table(RENDERED_TEXT)],
        )
      : await sql.all("SELECT count(*) = 2 FROM sqlite_master WHERE type = 'table' AND name IN ($1, $2)", [
          RENDERED_TABLE,
          RENDERED_STAMP,
        ]);
  if (!exists[0]?.[0]) return null;
  const rows = await sql.all(
    `SELECT "stamp", "records", "bytes", "ms" FROM ${sql.table(RENDERED_STAMP)}`,
    [],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    stamp: String(row[0]),
    records: Number(row[1]),
    bytes: Number(row[2]),
    ms: Number(row[3]),
    text: exists[0]?.[1] === true,
  };
}

/**
 * The join that gives the Domain aliased `alias` its piece (aliased x): an outer join, so that a
 * Domain whose piece is lost is still read (its piece null: the writer answers it) rather than
 * dropped from an answer or an export.
 */
export const renderedJoin = (sql: SqlReader, alias: string) =>
  ` LEFT JOIN ${sql.table(RENDERED_TABLE)} x ON x."domain_pk" = ${alias}"pk"`;

/** PostgreSQL: the join that gives the Domain aliased `alias` its kept text (aliased x), outer as renderedJoin. */
export const renderedTextJoin = (sql: SqlReader, alias: string) =>
  ` LEFT JOIN ${sql.table(RENDERED_TEXT)} x ON x."domain_pk" = ${alias}"pk"`;

/**
 * A page of a load's rendering: the pieces' bodies joined in `bytes`, each ending at `ends[i]`,
 * with each one's key, CRC-32 and text length; and where asked, their texts joined in `texts`,
 * each ending at `textEnds[i]`.
 */
export interface RenderedPage {
  bytes: Uint8Array;
  pks: Float64Array;
  crcs: Uint32Array;
  lens: Uint32Array;
  ends: Uint32Array;
  texts?: Uint8Array;
  textEnds?: Uint32Array;
}

/** Where a load's rendering writes the pieces: the new snapshot's RENDERED_TABLE (and RENDERED_TEXT). */
export interface RenderedSink {
  /** Whether it keeps the texts too: its pages must then carry them (`texts`, `textEnds`). */
  readonly text: boolean;
  /** Writes a page of pieces, and where the sink keeps them, their texts. */
  write(page: RenderedPage): Promise<void>;
  /** Records the stamp and the totals; the table is complete. Returns the bytes the pieces take. */
  finish(stamp: string, ms: number): Promise<{ records: number; bytes: number }>;
  /** Drops what was written. */
  abort(): Promise<void>;
}

/**
 * A render is published only complete: a piece for every Domain of the snapshot, each once. The
 * tables it is checked on are made of the pieces joined to the snapshot's Domains (a piece of no
 * Domain is left out) and keyed by domain_pk (a second piece of one Domain fails the load), so the
 * same count as the Domains is every Domain once. Else the load fails, and nothing is published.
 */
function checkComplete(pieces: number, domains: number, what = "pieces"): void {
  if (pieces !== domains)
    throw new Error(
      `the render holds ${what} of ${pieces} of the snapshot's ${domains} Domains (${domains - pieces} missing): not published`,
    );
}

/**
 * SQLite: the pieces are written as they come (in key ranges, by several threads) to a file beside
 * the snapshot's, keyed by domain_pk; at the end they are put in rank order there (`INSERT …
 * SELECT … ORDER BY rank, pk`), then copied into the snapshot in one transaction, with the unique
 * index on domain_pk. A rowid table keeps its rows in rowid order, so the rank order, every list's
 * and export's default, is then the table's own: an export's reads go forward through it, where in
 * key order each piece was a page read of its own (docs/performance-history.md,
 * "SQLite's exports sorted once"). A served snapshot (npm run load -- --render) is read by gateways meanwhile: once the
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
    `CREATE TABLE "${RENDERED_TABLE}" ("domain_pk" INTEGER PRIMARY KEY, "crc" INTEGER NOT NULL, "len" INTEGER NOT NULL, "body" BLOB NOT NULL)`,
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
    text: false,
    async write(page) {
      writePage(page);
    },
    async finish(stamp, ms) {
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
      const [pieces, domains] = db
        .prepare(`SELECT (SELECT count(*) FROM "ordered"), (SELECT count(*) FROM snapshot."domain")`)
        .raw()
        .get() as [number, number];
      db.exec("DETACH DATABASE snapshot");
      db.close();
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
            main
              .prepare(`INSERT INTO main."${RENDERED_STAMP}" VALUES (?, ?, ?, ?)`)
              .run(stamp, records, bytes, Math.round(ms));
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
