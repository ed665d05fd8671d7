import fc from "fast-check";

/**
 * Characters that hostile or broken clients put into text: the C0 controls (NUL among them), DEL,
 * and unpaired UTF-16 surrogates, which are not Unicode text at all.
 */
export const CONTROL = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  "\u007f",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
];

/** An unpaired surrogate anywhere in a string. */
export const UNPAIRED = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** One to three control characters, each with where to put it (taken modulo the length). */
export const inserts = fc.array(fc.tuple(fc.constantFrom(...CONTROL), fc.nat()), {
  minLength: 1,
  maxLength: 3,
});

/** `base` with each of `inserts` put in at its place. */
export function insert(base: string, at: [string, number][]): string {
  let s = base;
  for (const [c, n] of at) {
    const i = n % (s.length + 1);
    s = s.slice(0, i) + c + s.slice(i);
  }
  return s;
}
