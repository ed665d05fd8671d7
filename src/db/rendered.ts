import type { Piece } from "../codec/deflate.ts";
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
 * databases (a load writes them: src/db/rendered-sink.ts, src/db/rendered-pg-sink.ts; SQLite's
 * rowid `ord` is the order, with a unique index on domain_pk). They are a part of the snapshot's
 * format (src/db/snapshot-format.ts, `rendered`): every served snapshot has them, of this code.
 */
export const RENDERED_TABLE = "domain_rendered";

/** PostgreSQL: what a load's COPY fills, before the pieces are laid out in rank order (renderedLayout). */
export const RENDERED_STAGING = "domain_rendered_staging";

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

/**
 * The join that gives the Domain aliased `alias` its piece (aliased x): an outer join, so that a
 * Domain whose piece is lost is still read (its piece null: the writer answers it) rather than
 * dropped from an answer or an export.
 */
export const renderedJoin = (sql: SqlReader, alias: string) =>
  ` LEFT JOIN ${sql.table(RENDERED_TABLE)} x ON x."domain_pk" = ${alias}"pk"`;
