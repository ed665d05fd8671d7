import { PLATFORM_LIST } from "../dataset/platforms.ts";
import { perReader } from "../db/per-reader.ts";
import type { SqlReader } from "../db/reader.ts";
import { MAX_SUGGESTIONS, nearValues, unique } from "./suggest.ts";

/**
 * The values a client names Domains and Apps by, as the served snapshot holds them: the
 * vocabularies of the filters an agent does not know the spelling of (a plan, a category, an App's
 * token). The platforms are the gateway's own list; the others are read from the snapshot once per
 * reader (a new snapshot has a new reader) and kept while it is served. The look-up finds the
 * values near a free text as the API's "did you mean" finds them (nearValues, src/query/suggest.ts).
 */
export const VOCABULARY_KINDS = [
  "platforms",
  "plans",
  "countries",
  "categories",
  "technologies",
  "apps",
] as const;
export type VocabularyKind = (typeof VOCABULARY_KINDS)[number];

/** What each vocabulary's values are, and the filter that takes them. */
export const VOCABULARY_TEXT: Record<VocabularyKind, { what: string; filter: string }> = {
  platforms: { what: "e-commerce platforms", filter: "f:p" },
  plans: { what: "platform plans", filter: "f:plan" },
  countries: { what: "2-letter country codes of the Domains, with their English names", filter: "f:cc" },
  categories: { what: "Domain categories", filter: "f:cat" },
  technologies: { what: "technology names", filter: "f:tech" },
  apps: { what: "Apps as <platform>.<token>", filter: "f:an" },
};

/** A value of a vocabulary, and for an App its name. */
export interface VocabularyEntry {
  value: string;
  name?: string;
}

const STATEMENTS: Record<Exclude<VocabularyKind, "platforms">, (sql: SqlReader) => string> = {
  plans: (sql) =>
    `SELECT DISTINCT d."plan" FROM ${sql.table("domain")} d WHERE d."plan" IS NOT NULL ORDER BY 1`,
  countries: (sql) =>
    `SELECT DISTINCT d."country_code" FROM ${sql.table("domain")} d WHERE d."country_code" IS NOT NULL ORDER BY 1`,
  categories: (sql) => `SELECT DISTINCT c."category" FROM ${sql.table("domain_category")} c ORDER BY 1`,
  technologies: (sql) => `SELECT t."name" FROM ${sql.table("technology")} t ORDER BY 1`,
  apps: (sql) =>
    `SELECT a."platform" || '.' || a."token", a."name" FROM ${sql.table("app")} a ORDER BY a."platform", a."token"`,
};

const kept = perReader<VocabularyKind, { entries: Promise<VocabularyEntry[]> | null }>(() => ({
  entries: null,
}));

const REGIONS = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });

/** A country's English name (US: United States), so that a look-up finds its code by it. */
function countryName(code: string): string | null {
  try {
    return REGIONS.of(code) ?? null;
  } catch {
    return null;
  }
}

/** Every value of a vocabulary in the snapshot `sql` reads, sorted. */
export function vocabularyOf(sql: SqlReader, kind: VocabularyKind): Promise<VocabularyEntry[]> {
  if (kind === "platforms") return Promise.resolve(PLATFORM_LIST.map((value) => ({ value })));
  const slot = kept(sql, kind);
  if (!slot.entries) {
    const read = sql.all(STATEMENTS[kind](sql), []).then((rows) =>
      rows.map((r) => {
        const value = String(r[0]);
        const name =
          r.length > 1 && r[1] != null ? String(r[1]) : kind === "countries" ? countryName(value) : null;
        return name ? { value, name } : { value };
      }),
    );
    slot.entries = read;
    // A read that failed is asked again next time.
    read.catch(() => {
      if (slot.entries === read) slot.entries = null;
    });
  }
  return slot.entries;
}

/**
 * The values of a vocabulary nearest to `text`, best first (at most `limit`): a value near it or
 * containing it, or for an App, one whose token or name is (klavio: shopify.klaviyo).
 */
export function nearestEntries(
  entries: readonly VocabularyEntry[],
  text: string,
  limit = MAX_SUGGESTIONS,
): VocabularyEntry[] {
  const byText = new Map<string, VocabularyEntry[]>();
  const add = (key: string, e: VocabularyEntry) => {
    const list = byText.get(key);
    if (list) list.push(e);
    else byText.set(key, [e]);
  };
  for (const e of entries) {
    add(e.value, e);
    if (e.name !== undefined) {
      // An App by its token too (shopify.klaviyo: klaviyo), and anything named by its name.
      const dot = e.value.indexOf(".");
      if (dot > 0) add(e.value.slice(dot + 1), e);
      add(e.name, e);
    }
  }
  const near = nearValues(text, [...byText.keys()]);
  return unique(near.flatMap((k) => byText.get(k) ?? [])).slice(0, limit);
}
