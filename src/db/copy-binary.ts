/**
 * The rows of PostgreSQL's binary COPY format (`COPY … TO STDOUT (FORMAT binary)`, "Binary
 * Format" in the COPY reference): an 11-byte signature, a 32-bit flags field and a header
 * extension of a 32-bit length, then per row a 16-bit field count (-1: the end) and per field a
 * 32-bit length (-1: NULL) and its bytes. Each value is handed back as the bytes the server sent
 * (a view, not a copy): a bytea as it is stored, an int8 as 8 bytes big-endian.
 *
 * It exists for rendered pieces (src/export/export-rendered.ts): a FETCH answers a bytea as hex text,
 * which the server writes and node-postgres reads as a string, then decodes: at a million Domains
 * that was 18–21 µs of the gateway's CPU a Domain, against 7.5–9.3 µs read from a binary COPY, and
 * the server's own reading took half the time (docs/performance-history.md, "Rendered records").
 */

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

export type CopyValue = Buffer | null;

/**
 * Every row of a whole binary COPY output (its chunks, in order). The chunks are read where they
 * are: a value within one chunk is a view of it, and only a value (or a length) cut between two
 * chunks is copied. Joining the chunks first copied every byte of an export's pieces once more
 * (docs/performance-history.md, "Rendered records").
 */
export function copyRows(chunks: readonly Buffer[]): CopyValue[][] {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  let chunk = 0;
  let at = 0;
  /** Bytes read so far, for the messages. */
  let read = 0;
  const need = (n: number) => {
    if (read + n > total) throw new Error(`COPY: the data ends within a row (at byte ${read} of ${total})`);
  };
  /** The next `n` bytes: a view where they lie within one chunk, else a copy of them. */
  const take = (n: number): Buffer => {
    need(n);
    read += n;
    while (at === chunks[chunk].length) {
      chunk++;
      at = 0;
    }
    const c = chunks[chunk];
    if (at + n <= c.length) {
      at += n;
      return c.subarray(at - n, at);
    }
    const out = Buffer.allocUnsafe(n);
    for (let filled = 0; filled < n; ) {
      while (at === chunks[chunk].length) {
        chunk++;
        at = 0;
      }
      const from = chunks[chunk];
      const part = Math.min(n - filled, from.length - at);
      from.copy(out, filled, at, at + part);
      filled += part;
      at += part;
    }
    return out;
  };
  if (total < 19 || !take(11).equals(SIGNATURE))
    throw new Error("COPY: not PostgreSQL's binary format (no signature)");
  take(4); // flags
  take(take(4).readUInt32BE(0)); // the header extension
  const rows: CopyValue[][] = [];
  for (;;) {
    const fields = take(2).readInt16BE(0);
    if (fields === -1) return rows;
    if (fields < 0) throw new Error(`COPY: a row of ${fields} fields`);
    const row: CopyValue[] = new Array(fields);
    for (let f = 0; f < fields; f++) {
      const len = take(4).readInt32BE(0);
      if (len < -1) throw new Error(`COPY: a field of length ${len}`);
      row[f] = len === -1 ? null : take(len);
    }
    rows.push(row);
  }
}

/** An int8 field as a number (a bigint column's value: exact up to 2^53). */
export function int8Of(value: CopyValue): number {
  if (value?.length !== 8) throw new Error("COPY: an int8 field is 8 bytes");
  return Number(value.readBigInt64BE(0));
}
