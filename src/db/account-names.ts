/**
 * The names an account gives what it keeps in the meta database (a list, a segment): each is a
 * path segment of its own (/list/{name}, /segment/{name}), as a person would type it, and the
 * same rules and messages serve both (src/db/lists.ts, src/db/segments.ts).
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `name` is not a `kind`'s name (list, segment), or null when it is one. */
export function nameRefusal(kind: string, name: string): string | null {
  if (NAME.test(name)) return null;
  const shown = name.length > 80 ? `${name.slice(0, 80)}…` : name;
  return `"${shown}" is not a ${kind} name: 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit`;
}

/** What a request naming a `kind` (list, segment) the account does not have is told. */
export const notFound = (kind: string, name: string) =>
  `no ${kind} named "${name}" (GET /${kind} shows this key's account's ${kind}s)`;
