/**
 * A ring of page buffers shared by the server's thread and the export thread
 * (src/export/export-reader.ts), for an export whose pages are written to the client as they are.
 *
 * A page moved to the server's thread as an ArrayBuffer of its own is memory V8 counts against
 * the server's heap until a full collection frees it: an export of a million Domains moves 6.5 GB
 * through, and the server's thread spent more time in mark-compact collections than in anything
 * else it did for an export (docs/performance-history.md, "Rendered records"). Through the ring, a page is
 * copied into a slot of one SharedArrayBuffer made for the stream, and the server's thread writes
 * a view of it: nothing is allocated per page. A slot is free again once the socket has taken the
 * page (its write's callback: src/ops/access-log.ts, whenWritten), never sooner; a page that finds
 * no free slot, or is larger than one, is moved as before.
 */
export const RING_SLOTS = 4;
/** A page of 1,000 Domains with the default fields is about 6.5 MB. */
export const SLOT_BYTES = 8 * 1024 * 1024;

/** A stream's ring: RING_SLOTS slots, then a state per slot (0 free, 1 holding a page). */
export function newRing(slots = RING_SLOTS, slotBytes = SLOT_BYTES): SharedArrayBuffer {
  return new SharedArrayBuffer(slots * slotBytes + slots * 4);
}

const shape = (ring: SharedArrayBuffer, slotBytes: number) => {
  const slots = Math.floor(ring.byteLength / (slotBytes + 4));
  return { slots, state: new Int32Array(ring, slots * slotBytes, slots) };
};

/** The export thread: `bytes` copied into a free slot (its number), or null (none free, or too long for one). */
export function intoRing(ring: SharedArrayBuffer, bytes: Uint8Array, slotBytes = SLOT_BYTES): number | null {
  return fillRing(ring, bytes.byteLength, (slot) => slot.set(bytes), slotBytes);
}

/**
 * The export thread: a page of `length` bytes written by `fill` straight into a free slot (its
 * number), so that a page joined of parts is copied once; null (nothing written) when no slot is
 * free or the page is too long for one.
 */
export function fillRing(
  ring: SharedArrayBuffer,
  length: number,
  fill: (slot: Uint8Array) => void,
  slotBytes = SLOT_BYTES,
): number | null {
  if (length > slotBytes) return null;
  const { slots, state } = shape(ring, slotBytes);
  for (let slot = 0; slot < slots; slot++) {
    if (Atomics.compareExchange(state, slot, 0, 1) !== 0) continue;
    try {
      fill(new Uint8Array(ring, slot * slotBytes, length));
    } catch (e) {
      Atomics.store(state, slot, 0);
      throw e;
    }
    return slot;
  }
  return null;
}

/** The server's thread: the page in `slot`, and what frees the slot once the page is written. */
export function fromRing(
  ring: SharedArrayBuffer,
  slot: number,
  length: number,
  slotBytes = SLOT_BYTES,
): { bytes: Uint8Array; release: () => void } {
  const { state } = shape(ring, slotBytes);
  let released = false;
  return {
    bytes: new Uint8Array(ring, slot * slotBytes, length),
    release: () => {
      if (released) return;
      released = true;
      Atomics.store(state, slot, 0);
    },
  };
}
