/**
 * Why `text` cannot be stored as text, or null when it can. PostgreSQL text cannot hold NUL (a
 * statement or COPY carrying one fails as a whole), and an unpaired UTF-16 surrogate is not Unicode
 * (the drivers would store U+FFFD in its place; GraphQL's parser already refuses one in a literal).
 * No stored value contains either: the loader refuses them in a dataset (src/dataset/record-issues.ts) and
 * the API in a string input (src/text-input.ts), so refusing them changes no answer and keeps the
 * databases alike.
 *
 * @example textProblem("a\u0000b") // → "must not contain the NUL character (U+0000)"
 */
export function textProblem(text: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what it looks for.
  const m = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(text);
  if (!m) return null;
  if (m[0] === "\u0000") return "must not contain the NUL character (U+0000)";
  const code = m[0].charCodeAt(0).toString(16).toUpperCase();
  return `must be valid Unicode text; it has an unpaired surrogate (U+${code})`;
}
