import type { NonSharedBuffer } from "node:buffer";
import {
  brotliCompressSync,
  constants,
  createBrotliCompress,
  deflateRawSync,
  deflateSync,
  gzipSync,
} from "node:zlib";
import fc from "fast-check";

/** The content codings a request body may come in (src/request-body.ts). */
export const CODINGS = ["gzip", "deflate", "br"] as const;
export type Coding = (typeof CODINGS)[number];

/** Content-Encoding values refused with 415: unknown, an alias the server does not take, stacked. */
export const UNSUPPORTED = ["bogus", "x-gzip", "compress", "gzip, gzip", "gzip, identity", "gzip;q=1"];

/** A body in a coding, as a client compresses it. */
export function encode(body: string | Uint8Array, coding: Coding): NonSharedBuffer {
  if (coding === "gzip") return gzipSync(body);
  if (coding === "deflate") return deflateSync(body);
  return brotliCompressSync(body);
}

/** Ten million zero bytes: one gzip member, or one flushed deflate segment, of a bomb. */
const PART = 10_000_000;

/**
 * A valid body in `coding` of about `decoded` zero bytes (rounded up to a multiple of 10 MB),
 * about a thousandth of that on the wire: a decompression bomb. gzip is members of 10 MB one
 * after the other (gunzip reads them all); deflate is one zlib stream of fully flushed segments
 * of 10 MB (each starts afresh, so it can be repeated), with the Adler-32 of that many zeros;
 * br is compressed from one 16 MB buffer written again and again. Nothing of the decoded size
 * is allocated.
 */
export async function bomb(coding: Coding, decoded: number): Promise<NonSharedBuffer> {
  const parts = Math.ceil(decoded / PART);
  if (coding === "gzip") {
    const member = gzipSync(Buffer.alloc(PART), { level: 9 });
    return Buffer.concat(Array.from({ length: parts }, () => member));
  }
  if (coding === "deflate") {
    const segment = deflateRawSync(Buffer.alloc(PART), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
    const total = parts * PART;
    // Adler-32 of n zero bytes: A stays 1, B adds A once a byte.
    const adler = Buffer.alloc(4);
    adler.writeUInt32BE((((total % 65521) << 16) | 1) >>> 0);
    const last = deflateRawSync(Buffer.alloc(0));
    return Buffer.concat([
      Buffer.from([0x78, 0xda]),
      ...Array.from({ length: parts }, () => segment),
      last,
      adler,
    ]);
  }
  const zeros = Buffer.alloc(16_000_000);
  const stream = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
  const out: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    stream.on("end", resolve);
    stream.on("error", reject);
  });
  for (let written = 0; written < parts * PART; written += zeros.length) {
    if (!stream.write(zeros)) await new Promise((resolve) => stream.once("drain", resolve));
  }
  stream.end();
  await done;
  return Buffer.concat(out);
}

// ------------------------------------------------------------------ for the fuzz suites

/**
 * How a fuzzed body goes out: as it is; in a coding, labelled as a client may write it; as it is
 * but labelled identity; labelled with a coding it is not in; compressed and cut short; under a
 * label the server refuses; or swapped for a bomb of 50 MB.
 */
export type Wrapping =
  | { kind: "plain" }
  | { kind: "coded"; coding: Coding; label: string }
  | { kind: "identity"; label: string }
  | { kind: "mislabelled"; coding: Coding }
  | { kind: "cut"; coding: Coding }
  | { kind: "unsupported"; label: string }
  | { kind: "bomb"; coding: Coding };

const coding = fc.constantFrom(...CODINGS);

export const wrapping: fc.Arbitrary<Wrapping> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: "plain" as const }) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        coding,
        fc.constantFrom(
          (c: string) => c,
          (c: string) => c.toUpperCase(),
          (c: string) => ` ${c} `,
        ),
      )
      .map(([c, spell]) => ({ kind: "coded" as const, coding: c, label: spell(c) })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("identity", "IDENTITY", "")
      .map((label) => ({ kind: "identity" as const, label })),
  },
  { weight: 2, arbitrary: coding.map((c) => ({ kind: "mislabelled" as const, coding: c })) },
  { weight: 1, arbitrary: coding.map((c) => ({ kind: "cut" as const, coding: c })) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.constantFrom(...UNSUPPORTED), fc.stringMatching(/^[a-z0-9, -]{1,12}$/))
      .filter((label) => !["", "identity", ...CODINGS].includes(label.trim()))
      .map((label) => ({ kind: "unsupported" as const, label })),
  },
  { weight: 1, arbitrary: coding.map((c) => ({ kind: "bomb" as const, coding: c })) },
);

const bombs = new Map<Coding, Promise<NonSharedBuffer>>();

/**
 * A fuzzed body as sent under `w`, with its Content-Encoding, and the status the wrapping alone
 * decides when it decides one: 415 for a label refused, 413 for a bomb, 400 for a plain or cut
 * body labelled gzip (its magic number and CRC rule out that it decodes by chance; deflate and br
 * are checked less, and a plain or cut body could decode to something).
 */
export async function wrap(
  body: string,
  w: Wrapping,
): Promise<{ body: string | NonSharedBuffer; encoding?: string; status?: number }> {
  switch (w.kind) {
    case "plain":
      return { body };
    case "coded":
      return { body: encode(body, w.coding), encoding: w.label };
    case "identity":
      return { body, encoding: w.label };
    case "mislabelled":
      return { body, encoding: w.coding, status: w.coding === "gzip" && body !== "" ? 400 : undefined };
    case "cut": {
      const coded = encode(body, w.coding);
      return {
        body: coded.subarray(0, coded.length >> 1),
        encoding: w.coding,
        status: w.coding === "gzip" ? 400 : undefined,
      };
    }
    case "unsupported":
      return { body: encode(body, "gzip"), encoding: w.label, status: 415 };
    case "bomb": {
      const made = bombs.get(w.coding) ?? bomb(w.coding, 50_000_000);
      bombs.set(w.coding, made);
      return { body: await made, encoding: w.coding, status: 413 };
    }
  }
}
