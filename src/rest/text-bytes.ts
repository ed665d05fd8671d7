/**
 * UTF-8 bytes written piece by piece into one growing buffer. Text built by concatenation is a
 * rope: encoding a page's worth of it at the end first flattens the whole rope, and measured on
 * pages of 1000 Domains with the default fields (8 MB) that took 31–41 ms against 6–12 ms for the
 * same pieces written as they come. Export pages (src/export/export-worker.ts) and REST envelopes
 * (src/rest/route.ts) are written so.
 */
export class TextBytes {
  private bytes: Buffer;
  size = 0;

  constructor(initial = 64 * 1024) {
    this.bytes = Buffer.allocUnsafeSlow(initial);
  }

  /** Appends `text` as UTF-8, after the byte `separator` unless it is null. */
  write(text: string, separator: number | null = null): void {
    // A code unit takes at most 3 bytes of UTF-8 (a surrogate pair, 2 units, takes 4).
    const most = text.length * 3 + 1;
    if (this.size + most > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.size + most));
      this.bytes.copy(grown, 0, 0, this.size);
      this.bytes = grown;
    }
    if (separator !== null) this.bytes[this.size++] = separator;
    this.size += this.bytes.write(text, this.size, "utf8");
  }

  /** The bytes written, on the buffer itself (no copy). */
  done(): Uint8Array<ArrayBuffer> {
    return new Uint8Array(this.bytes.buffer as ArrayBuffer, this.bytes.byteOffset, this.size);
  }
}
