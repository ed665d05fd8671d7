/**
 * A domain name as the dataset writes it: trimmed, lower case, without a trailing dot; null for a
 * text that is no domain name. Lookups by name (domain, domainsByName) and lists match names so.
 */
export function canonicalDomainName(text: string): string | null {
  const n = text.trim().toLowerCase().replace(/\.$/, "");
  return /^[a-z0-9_.-]+$/.test(n) && n.length <= 253 ? n : null;
}
