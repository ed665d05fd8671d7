import type { SqlReader } from "../db/reader.ts";
import { WORD } from "../db/search-index.ts";
import { statementOver } from "../db/where-sql.ts";
import { InputError } from "../errors.ts";
import { DomainSet } from "./domain-set.ts";
import { searchWhere } from "./filter.ts";
import type { Where } from "./keyset.ts";

/**
 * Company to domain (GET /domain/lookup, GraphQL domainLookup, the MCP tool lookup with companies): the
 * Domains whose merchant name, title or name best match a company's name, ranked. docs/decisions.md,
 * "Company to domain", gives the formula; test/query/company-lookup.test.ts holds every answer to
 * a brute force of it over every Domain.
 *
 * Words are read as `q` reads them (runs of letters and digits, lower-cased: src/db/search-index.ts),
 * the company's without the corporate words (Inc., GmbH, Ltd, the, …). A text of a Domain (its
 * merchant name; its title; its name without the top-level label, "allbirds" for allbirds.com)
 * matches when
 *   (A) every word of the company begins a word of the text ("all birds": "All Birds Shoes"), or
 *   (B) a word of the text holds the company's words run together ("all birds inc": allbirds.com);
 * and scores 1 when its own words (corporate ones aside) run together are the company's, else
 * 0.5 + 0.4 × cover (A) or 0.4 + 0.4 × cover (B), cover the share of the text's letters that are
 * the company's. Weighted 1 for the merchant name, 0.95 the title, 0.9 the name, the best text
 * counts. Ranked by score, then rank (unranked last), then name.
 *
 * Both conditions imply that the Domain's searched text (name, title, description, merchant name)
 * holds the words, so the candidates are the Domains `q` finds for the words, or for the words run
 * together: over the count index's search words when the reader has one. Of more than
 * MAX_CANDIDATES candidates, the best-ranked are scored (the formula says so too).
 */

export const MAX_LOOKUP = 100;
/** Companies a bulk lookup takes (POST /domain/lookup, domainLookups). */
export const MAX_COMPANIES = 100;
export const MAX_CANDIDATES = 5000;
/** The company's words that count: a search (q) takes at most this many. */
const MAX_WORDS = 10;

/** Words of a company's name that say what kind of company it is, not which. */
const CORPORATE = new Set(
  "inc incorporated llc ltd limited co corp corporation company gmbh ag sa sas sarl srl spa bv nv plc pty the and of".split(
    " ",
  ),
);

export interface CompanyQuery {
  /** The company's words, corporate ones aside (all of them when that leaves none). */
  words: string[];
  /** Those words run together. */
  run: string;
}

export type MatchedField = "merchant_name" | "title" | "name";

export interface CompanyMatch {
  pk: number;
  score: number;
  matched: MatchedField;
}

/** The texts a Domain is matched by, as read from its row. */
export interface CompanyTexts {
  pk: number;
  name: string;
  title: string | null;
  merchant_name: string | null;
  rank: number | null;
}

const wordsOf = (text: string) => text.toLowerCase().match(WORD) ?? [];
const withoutCorporate = (words: string[]) => {
  const kept = words.filter((w) => !CORPORATE.has(w));
  return kept.length ? kept : words;
};

/** The company's words, or an InputError naming `argument` when it has none. */
export function companyQuery(company: string, argument = "company"): CompanyQuery {
  if (company.trim() === "") throw new InputError(argument, "is required: give the company's name");
  if (company.length > 200) throw new InputError(argument, "must be at most 200 characters");
  // Each word once, at most MAX_WORDS of them (a search takes no more).
  const words = [...new Set(withoutCorporate(wordsOf(company)))].slice(0, MAX_WORDS);
  if (!words.length) throw new InputError(argument, "must name a company: give at least one letter or digit");
  return { words, run: words.join("") };
}

/** How well one text matches (0: not at all), before its field's weight. */
export function textScore(q: CompanyQuery, text: string | null): number {
  if (!text) return 0;
  const words = wordsOf(text);
  const a = q.words.every((w) => words.some((x) => x.startsWith(w)));
  const b = words.some((x) => x.includes(q.run));
  if (!a && !b) return 0;
  const own = withoutCorporate(words).join("");
  if (own === q.run) return 1;
  const cover = Math.min(1, q.run.length / Math.max(1, own.length));
  return (a ? 0.5 : 0.4) + 0.4 * cover;
}

const WEIGHTS: [MatchedField, number][] = [
  ["merchant_name", 1],
  ["title", 0.95],
  ["name", 0.9],
];

/** A Domain's name without its top-level label: allbirds.com → allbirds. */
const nameText = (name: string) => {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
};

/** A Domain's score for the company, and the field it came from; null when nothing matches. */
export function companyScore(
  q: CompanyQuery,
  d: CompanyTexts,
): { score: number; matched: MatchedField } | null {
  let best: { score: number; matched: MatchedField } | null = null;
  for (const [field, weight] of WEIGHTS) {
    const raw = textScore(q, field === "name" ? nameText(d.name) : d[field]);
    const score = Math.round(raw * weight * 1000) / 1000;
    if (score > 0 && (!best || score > best.score)) best = { score, matched: field };
  }
  return best;
}

/** Best first: score, then rank (unranked last), then name. */
export function byMatch(a: CompanyTexts & { score: number }, b: CompanyTexts & { score: number }): number {
  return (
    b.score - a.score ||
    (a.rank ?? Number.POSITIVE_INFINITY) - (b.rank ?? Number.POSITIVE_INFINITY) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}

/** The company's best-matching Domains of the snapshot `sql` reads, at most `first`. */
export async function lookupCompany(
  sql: SqlReader,
  company: string,
  first: number,
  maxCandidates = MAX_CANDIDATES,
): Promise<CompanyMatch[]> {
  if (!Number.isInteger(first) || first < 1 || first > MAX_LOOKUP)
    throw new InputError("first", `must be 1 to ${MAX_LOOKUP}; got ${first}`);
  const q = companyQuery(company);
  const texts = await candidates(sql, q, maxCandidates);
  const scored: (CompanyTexts & { score: number; matched: MatchedField })[] = [];
  for (const d of texts) {
    const s = companyScore(q, d);
    if (s) scored.push({ ...d, ...s });
  }
  return scored
    .sort(byMatch)
    .slice(0, first)
    .map(({ pk, score, matched }) => ({ pk, score, matched }));
}

/** The search that finds every Domain the formula can match: the words, or the words run together. */
export function candidateWhere(q: CompanyQuery): Where {
  const parts = [searchWhere(q.words.join(" ")), ...(q.words.length > 1 ? [searchWhere(q.run)] : [])];
  return parts.length === 1 ? (parts[0] as Where) : { OR: parts };
}

/** The candidates' texts: of at most `max` Domains, the best-ranked (the set says which). */
async function candidates(sql: SqlReader, q: CompanyQuery, max: number): Promise<CompanyTexts[]> {
  const pks = await new DomainSet(sql, candidateWhere(q)).bestRanked(max);
  if (pks.length === 0) return [];
  const { text, params } = statementOver(
    sql,
    "domain",
    { pk: { in: pks } },
    (cond) =>
      `SELECT r."pk", r."name", r."title", r."merchant_name", r."rank" FROM ${sql.table("domain")} r WHERE ${cond}`,
  );
  const rows = await sql.all(text, params);
  return rows.map((r) => ({
    pk: Number(r[0]),
    name: String(r[1]),
    title: r[2] == null ? null : String(r[2]),
    merchant_name: r[3] == null ? null : String(r[3]),
    rank: r[4] == null ? null : Number(r[4]),
  }));
}
