import roaring from "roaring";

/**
 * The roaring bitmaps the count indexes are made of (src/db/count-index.ts, src/db/app-count-index.ts,
 * src/db/search-index.ts): made from lists of ordinals, ordered by size, and stored end to end.
 */
const { RoaringBitmap32 } = roaring;
export type Bitmap = InstanceType<typeof RoaringBitmap32>;
export { RoaringBitmap32 };

export function bitmapsOf(lists: Map<string, number[]>): { keys: string[]; bitmaps: Bitmap[] } {
  const keys = [...lists.keys()].sort();
  const bitmaps = keys.map((k) => {
    const b = new RoaringBitmap32(Uint32Array.from((lists.get(k) as number[]).sort((a, b) => a - b)));
    b.runOptimize();
    b.shrinkToFit();
    return b;
  });
  return { keys, bitmaps };
}

export function concatenated(bitmaps: Bitmap[]): { body: Buffer; offsets: number[] } {
  const pieces = bitmaps.map((b) => b.serialize(true));
  const offsets = [0];
  for (const p of pieces) offsets.push(offsets[offsets.length - 1] + p.length);
  return { body: Buffer.concat(pieces), offsets };
}

export function split(body: Uint8Array, offsets: number[]): Bitmap[] {
  const out: Bitmap[] = [];
  for (let i = 0; i + 1 < offsets.length; i++)
    out.push(
      RoaringBitmap32.deserialize(
        Buffer.from(body.buffer, body.byteOffset + offsets[i], offsets[i + 1] - offsets[i]),
        true,
      ),
    );
  return out;
}

export const sizeOrder = (bitmaps: Bitmap[], keys: string[]) =>
  bitmaps
    .map((b, i) => ({ i, n: b.size }))
    .sort((a, b) => b.n - a.n || (keys[a.i] < keys[b.i] ? -1 : keys[a.i] > keys[b.i] ? 1 : 0))
    .map((x) => x.i);
