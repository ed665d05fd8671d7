/**
 * UTF-8 bytes written piece by piece into one growing buffer. Text built by concatenation is a
 * rope: encoding a page's worth of it at the end first flattens the whole rope, and measured on
 * pages of 1000 Domains with the default fields (8 MB) that took 31–41 ms against 6–12 ms for the
 * same pieces written as they come. Export pages (src/export/export-worker.ts) and REST envelopes
 * (src/rest/route.ts) are written so.
 *
 * A REST answer's buffer comes from a small pool (TextBytes.pooled) and goes back to it once the
 * socket has taken the answer (src/rest/envelope.ts, writeEnvelope). A page of 1000 Domains is 6–8 MB: written into fresh memory, each
 * answer grew its buffer eleven times from 16 KB, copying as it grew, and every byte landed on a
 * page the kernel had to map first; the growing and the copies were 16% of such a page's CPU
 * (docs/performance-history.md, "A REST answer's way to the socket").
 */
export class TextBytes {
  private bytes: Buffer;
  size = 0;

  private constructor(
    bytes: Buffer,
    private readonly pool: BufferPool | null,
  ) {
    this.bytes = bytes;
  }

  /** A buffer of its own (an export page, kept until its ring slot is written). */
  static fresh(initial = 64 * 1024): TextBytes {
    return new TextBytes(Buffer.allocUnsafeSlow(initial), null);
  }

  /** A buffer from the answers' pool, back in it when `release` is called (once nothing reads it). */
  static pooled(initial = 16 * 1024, pool: BufferPool = ANSWERS): TextBytes {
    return new TextBytes(pool.take(initial), pool);
  }

  /** Appends `text` as UTF-8 (or UTF-8 bytes as they are), after the byte `separator` unless it is null. */
  write(text: string | Uint8Array, separator: number | null = null): void {
    // A code unit takes at most 3 bytes of UTF-8 (a surrogate pair, 2 units, takes 4).
    const most = typeof text === "string" ? text.length * 3 + 1 : text.length + 1;
    if (this.size + most > this.bytes.length) this.grow(this.size + most);
    if (separator !== null) this.bytes[this.size++] = separator;
    if (typeof text === "string") this.size += this.bytes.write(text, this.size, "utf8");
    else {
      this.bytes.set(text, this.size);
      this.size += text.length;
    }
  }

  private grow(least: number): void {
    const wanted = Math.max(this.bytes.length * 2, least);
    const grown = this.pool ? this.pool.take(wanted) : Buffer.allocUnsafeSlow(wanted);
    this.bytes.copy(grown, 0, 0, this.size);
    // Nothing else holds the old buffer: it is free at once.
    this.pool?.give(this.bytes);
    this.bytes = grown;
  }

  /** The bytes written, on the buffer itself (no copy). */
  done(): Buffer<ArrayBuffer> {
    return this.bytes.subarray(0, this.size) as Buffer<ArrayBuffer>;
  }

  /** Gives the buffer back to its pool (nothing of it is read any more); a fresh one is left to the GC. */
  release(): void {
    this.pool?.give(this.bytes);
  }
}

/**
 * A few large buffers kept for the next answers. Bounded: at most `count` buffers of at most
 * `largest` bytes each are kept, the largest ones, so that a page of 1000 Domains finds one it fits.
 */
export class BufferPool {
  private readonly kept: Buffer[] = [];
  /** How many times a kept buffer was taken again (for tests). */
  reused = 0;

  constructor(
    private readonly count: number,
    private readonly largest: number,
  ) {}

  /** The largest kept buffer when it holds `least` bytes (then the answer never grows), else a new one. */
  take(least: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.kept.length; i++)
      if (best === -1 || this.kept[i].length > this.kept[best].length) best = i;
    if (best !== -1 && this.kept[best].length >= least) {
      const [taken] = this.kept.splice(best, 1);
      this.reused++;
      return taken;
    }
    return Buffer.allocUnsafeSlow(least);
  }

  /** Keeps `bytes` (no longer used by anyone) when it is among the largest `count` not over `largest`. */
  give(bytes: Buffer): void {
    if (bytes.length > this.largest || this.kept.includes(bytes)) return;
    if (this.kept.length < this.count) {
      this.kept.push(bytes);
      return;
    }
    let smallest = 0;
    for (let i = 1; i < this.kept.length; i++)
      if (this.kept[i].length < this.kept[smallest].length) smallest = i;
    if (this.kept[smallest].length < bytes.length) this.kept[smallest] = bytes;
  }

  /** How many buffers, and bytes, are kept (for tests). */
  get held(): { buffers: number; bytes: number } {
    return { buffers: this.kept.length, bytes: this.kept.reduce((n, b) => n + b.length, 0) };
  }
}

/** REST answers' buffers: two of up to 16 MB, 32 MB at most (a page of 1000 Domains with the default fields is 6–8 MB). */
export const ANSWERS = new BufferPool(2, 16 * 1024 * 1024);
