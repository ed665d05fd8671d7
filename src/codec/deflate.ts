import { constants, crc32, deflateRawSync } from "node:zlib";
import { crc32Combine } from "./crc32.ts";

/**
 * Raw DEFLATE (RFC 1951) in pieces that join without inflating: a text compressed alone and ended
 * by a sync flush (a piece), a text as stored blocks (a joint), and a run of them joined into one
 * stream, each carrying the CRC-32 and length of its text so a gzip member's trailer can be made of
 * them (src/codec/gzip.ts). The rendered records are such pieces (src/db/rendered.ts).
 */

/** A record's piece: its text as raw DEFLATE ending on a byte boundary, with the text's CRC-32 and length. */
export interface Piece {
  body: Buffer;
  crc: number;
  len: number;
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
