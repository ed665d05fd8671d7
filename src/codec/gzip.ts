import { crc32Combine } from "./crc32.ts";
import { jointOf } from "./deflate.ts";

/**
 * gzip members (RFC 1952) made of DEFLATE pieces and joints (src/codec/deflate.ts) as they are:
 * the header, the trailer whose CRC-32 is combined from theirs, and a whole member around a text
 * with pieces in the places of its marks. Nothing is inflated or compressed.
 */

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
