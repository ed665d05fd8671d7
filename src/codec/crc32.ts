/**
 * CRC-32 of two texts joined, from each one's CRC-32 and the second's length: zlib's crc32_combine
 * (multiplication modulo the CRC polynomial, x^(8·len) by repeated squaring), which Node does not
 * expose. Checked against crc32 of the joined text in test/rest/rendered.test.ts.
 */
const POLY = 0xedb88320;

/** a·b modulo the polynomial (both reflected, as CRC-32 keeps them). */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^n) modulo the polynomial, for n = 0…31. */
const X2N: number[] = (() => {
  const table: number[] = [];
  let p = 0x40000000; // x^1
  for (let n = 0; n < 32; n++) {
    table.push(p);
    p = multModP(p, p);
  }
  return table;
})();

/** x^(8·len) modulo the polynomial. */
function x8n(len: number): number {
  let p = 0x80000000; // x^0
  let k = 3; // 8 = 2^3
  let n = len;
  while (n) {
    if (n & 1) p = multModP(X2N[k & 31], p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The CRC-32 of A then B, from crc(A), crc(B) and B's length. */
export function crc32Combine(crcA: number, crcB: number, lenB: number): number {
  return (multModP(x8n(lenB), crcA) ^ crcB) >>> 0;
}
