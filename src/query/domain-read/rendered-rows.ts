import { constants, crc32, inflateRawSync } from "node:zlib";
import type { ReadContext } from "../../context.ts";
import type { RawRow } from "../../db/reader.ts";
import { checkedPiece } from "../../db/rendered.ts";
import type { DomainRow } from "../loaders.ts";

/**
 * The rendered records a planned read (./read.ts, with `read.rendered`) gives its Domain rows: each
 * row's piece checked against its key, CRC-32 and length, the pieces of
 * a batch inflated together when a text is first asked for (renderedText), a piece passed on as it
 * is kept (renderedPiece), and the keys of the rows whose record was lost or another's
 * (renderedFaults), which the writer answers instead.
 */

const RENDERED = Symbol("the rendered record of the row");

/** A read's rendered pieces (src/db/rendered.ts), inflated together when a text is first asked for. */
interface RenderedBatch {
  /** The read the batch is of, and its rows' keys: where a text found broken once inflated is told. */
  ctx: ReadContext;
  pks: number[];
  bodies: Uint8Array[];
  crcs: number[];
  lens: number[];
  /**
   * Each record's text once inflated, its UTF-8 bytes (a view of the batch's one inflated buffer:
   * nothing decoded to be encoded again); undefined for one whose inflated text was not the one
   * kept (its CRC-32), answered by the writer.
   */
  texts: (Uint8Array | undefined)[] | null;
}
interface RenderedOf {
  batch: RenderedBatch;
  i: number;
}

/** A Domain row's rendered record (read with read.rendered): its text, or its UTF-8 bytes. */
export function renderedText(row: object): Uint8Array | undefined {
  const of = (row as { [RENDERED]?: RenderedOf })[RENDERED];
  if (!of) return undefined;
  of.batch.texts ??= inflated(of.batch);
  return of.batch.texts[of.i];
}

/**
 * A Domain row's rendered record as it is kept: its piece of raw DEFLATE, with its text's CRC-32
 * and length (a gzip answer passes it on without inflating it).
 */
export function renderedPiece(row: object): { body: Uint8Array; crc: number; len: number } | undefined {
  const of = (row as { [RENDERED]?: RenderedOf })[RENDERED];
  if (!of) return undefined;
  const { batch, i } = of;
  return { body: batch.bodies[i], crc: batch.crcs[i], len: batch.lens[i] };
}

/** The keys of the Domains whose rendered record a context's reads found lost or another's (renderedFaults). */
const faults = new WeakMap<ReadContext, number[]>();

/**
 * The keys of the Domains read with their rendered record through `ctx` whose record was not there,
 * or named another Domain, CRC-32 or length (src/db/rendered.ts: checkedPiece): those rows have no
 * rendered record (renderedText gives undefined), and are answered by the writer.
 */
export const renderedFaults = (ctx: ReadContext): readonly number[] => faults.get(ctx) ?? [];

function fault(ctx: ReadContext, pk: number): void {
  const list = faults.get(ctx);
  if (list) list.push(pk);
  else faults.set(ctx, [pk]);
}

const NO_PIECE = new Uint8Array(0);

/**
 * Gives each row its rendered record, from the CRC-32, length and piece at `at` in its raw row; a
 * row whose record is lost or another's gets none (renderedFaults).
 */
export function renderedTexts(ctx: ReadContext, rows: DomainRow[], raw: readonly RawRow[], at: number): void {
  const n = rows.length;
  if (!n) return;
  const batch: RenderedBatch = {
    ctx,
    pks: rows.map((r) => r.pk),
    crcs: [],
    lens: [],
    bodies: [],
    texts: null,
  };
  for (let i = 0; i < n; i++) {
    const r = raw[i];
    const crc = Number(r[at]);
    const len = Number(r[at + 1]);
    const body = checkedPiece(r[at + 2] as Uint8Array | null, rows[i].pk, crc, len);
    const ok = body !== null;
    // A lost piece takes no place in the batch's stream: the others inflate as they are.
    batch.crcs.push(ok ? crc : 0);
    batch.lens.push(ok ? len : 0);
    batch.bodies.push(body ?? NO_PIECE);
    if (ok) (rows[i] as { [RENDERED]?: RenderedOf })[RENDERED] = { batch, i };
    else fault(ctx, rows[i].pk);
  }
}

/**
 * The texts of a batch, as UTF-8 bytes: its pieces, joined, are one DEFLATE stream, inflated at
 * once. Each text is checked against the CRC-32 its piece keeps (its header was checked when read:
 * checkedPiece), since inflating checks nothing; a text that is not the one kept, or a batch that
 * does not inflate, is none (undefined), and its Domains are told as faults: the writer answers
 * them. (The check costs about 2 ms for the 6.5 MB of a page of 1000, beside 16 ms inflating it.)
 */
function inflated(batch: RenderedBatch): (Uint8Array | undefined)[] {
  let size = 0;
  for (const len of batch.lens) size += len;
  let text: Buffer;
  try {
    // Its length is known: one output chunk, not chunks joined by a copy.
    text = inflateRawSync(Buffer.concat(batch.bodies), {
      finishFlush: constants.Z_SYNC_FLUSH,
      chunkSize: Math.max(constants.Z_MIN_CHUNK, size),
    });
  } catch {
    return broken(
      batch,
      batch.lens.map(() => true),
    );
  }
  const texts: (Uint8Array | undefined)[] = [];
  let start = 0;
  for (const len of batch.lens) {
    texts.push(text.subarray(start, start + len));
    start += len;
  }
  if (start !== text.length)
    return broken(
      batch,
      batch.lens.map(() => true),
    );
  const wrong = texts.map(
    (t, i) => batch.bodies[i].length > 0 && crc32(t as Uint8Array) !== batch.crcs[i] >>> 0,
  );
  return wrong.some(Boolean) ? broken(batch, wrong, texts) : texts;
}

/** The batch's texts with those `wrong` taken out, and their Domains told as faults. */
function broken(
  batch: RenderedBatch,
  wrong: boolean[],
  texts: (Uint8Array | undefined)[] = [],
): (Uint8Array | undefined)[] {
  return wrong.map((w, i) => {
    if (!w) return texts[i];
    if (batch.bodies[i].length > 0) fault(batch.ctx, batch.pks[i]);
    return undefined;
  });
}
