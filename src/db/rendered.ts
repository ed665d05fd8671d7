import type { Piece } from "../codec/deflate.ts";
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
 * text between them (storedBlocks, src/codec/deflate.ts: a JSON Lines newline, a JSON array's comma, a REST answer's
 * envelope): an export inflates a page's pieces in one call, and a client that takes gzip gets
 * them as they are, between a gzip header and a trailer whose CRC-32 is combined from the pieces'
 * own (crc32Combine, src/codec/crc32.ts) without inflating anything. Each piece keeps the CRC-32 and length of its
 * text for that.
 *
 * RENDERED_TABLE holds one row per Domain: (domain_pk, crc, len, body), in rank order on both
 * databases (a load writes them: src/db/rendered-sink.ts, src/db/rendered-pg-sink.ts; SQLite's rowid `ord` is the order, with a unique
 * index on domain_pk, where a snapshot rendered before 2026-11-30 keys them by domain_pk: both
 * are read by the same statements). RENDERED_STAMP holds one row: the fingerprint of the code that rendered them (src/rest/rendered.ts: renderStamp). A
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
