/**
 * The rows of PostgreSQL's binary COPY format (`COPY … TO STDOUT (FORMAT binary)`, "Binary
 * Format" in the COPY reference): an 11-byte signature, a 32-bit flags field and a header
 * extension of a 32-bit length, then per row a 16-bit field count (-1: the end) and per field a
 * 32-bit length (-1: NULL) and its bytes. Each value is handed back as the bytes the server sent
 * (a view, not a copy): a bytea as it is stored, an int8 as 8 bytes big-endian.
 *
 * It exists for rendered pieces (src/export/export-page.ts): a FETCH answers a bytea as hex text,
 * which the server writes and node-postgres reads as a string, then decodes: at a million Domains
 * that was 18–21 µs of the gateway's CPU a Domain, against 7.5–9.3 µs read from a binary COPY, and
 * the server's own reading took half the time (docs/performance.md, "Rendered records").
 */

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

export type CopyValue = Buffer | null;

/** Every row of a whole binary COPY output (its chunks, in order). */
export function copyRows(chunks: readonly Buffer[]): CopyValue[][] {
  const data = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  if (data.length < 19 || !data.subarray(0, 11).equals(SIGNATURE))
    throw new Error("COPY: not PostgreSQL's binary format (no signature)");
  const extension = data.readUInt32BE(15);
  let at = 19 + extension;
  const rows: CopyValue[][] = [];
  const need = (n: number) => {
    if (at + n > data.length)
      throw new Error(`COPY: the data ends within a row (at byte ${at} of ${data.length})`);
  };
  for (;;) {
    need(2);
    const fields = data.readInt16BE(at);
    at += 2;
    if (fields === -1) return rows;
    if (fields < 0) throw new Error(`COPY: a row of ${fields} fields`);
    const row: CopyValue[] = new Array(fields);
    for (let f = 0; f < fields; f++) {
      need(4);
      const len = data.readInt32BE(at);
      at += 4;
      if (len === -1) {
        row[f] = null;
        continue;
      }
      need(len);
      row[f] = data.subarray(at, at + len);
      at += len;
    }
    rows.push(row);
  }
}

/** An int8 field as a number (a bigint column's value: exact up to 2^53). */
export function int8Of(value: CopyValue): number {
  if (value?.length !== 8) throw new Error("COPY: an int8 field is 8 bytes");
  return Number(value.readBigInt64BE(0));
}
