import { PLATFORM_LIST } from "../dataset/platforms.ts";
import { perReader } from "../db/per-reader.ts";
import type { SqlReader } from "../db/reader.ts";

/**
 * The values a client names Domains and Apps by, as the served snapshot holds them: the
 * vocabularies of the filters an agent does not know the spelling of (a plan, a category, an App's
 * token). The platforms are the gateway's own list; the others are read from the snapshot once per
 * reader (a new snapshot has a new reader) and kept while it is served. The look-up scores them
 * against a free text (src/query/vocabulary-match.ts).
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

/** A value of a vocabulary, for an App its name, for a country its English name and others. */
export interface VocabularyEntry {
  value: string;
  name?: string;
  /** A country's names in its own languages and in others many write in (DE: Deutschland, Allemagne). */
  aliases?: string[];
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

/** Languages many clients write country names in, beside English and the country's own. */
const ALIAS_LANGUAGES = ["de", "fr", "es", "it", "pt", "nl"];
/** What people write that no locale's name is: the short forms. */
const SHORT_NAMES: Record<string, string[]> = {
  US: ["USA", "United States of America", "America"],
  GB: ["UK", "Great Britain", "Britain", "England"],
  AE: ["UAE"],
  NL: ["Holland"],
  KR: ["Korea"],
};
const namesIn = new Map<string, Intl.DisplayNames>();

/** A country's names other than its English one (DE: Deutschland, Allemagne, Alemania, …), from ICU. */
function countryAliases(code: string, english: string | null): string[] {
  let own: string | undefined;
  try {
    own = new Intl.Locale(`und-${code}`).maximize().language;
  } catch {
    return SHORT_NAMES[code] ?? [];
  }
  const names = new Set<string>(SHORT_NAMES[code] ?? []);
  for (const language of [own, ...ALIAS_LANGUAGES]) {
    let display = namesIn.get(language);
    if (!display) {
      display = new Intl.DisplayNames([language], { type: "region", fallback: "none" });
      namesIn.set(language, display);
    }
    const name = display.of(code);
    if (name && name !== english) names.add(name);
  }
  return [...names];
}

/** A country code's entry: its English name, and the names others write it by (DE: Deutschland). */
export function countryEntry(code: string): VocabularyEntry {
  const name = countryName(code);
  const aliases = countryAliases(code, name);
  return { value: code, ...(name ? { name } : {}), ...(aliases.length ? { aliases } : {}) };
}

/** Every value of a vocabulary in the snapshot `sql` reads, sorted. */
export function vocabularyOf(sql: SqlReader, kind: VocabularyKind): Promise<VocabularyEntry[]> {
  if (kind === "platforms") return Promise.resolve(PLATFORM_LIST.map((value) => ({ value })));
  const slot = kept(sql, kind);
  if (!slot.entries) {
    const read = sql.all(STATEMENTS[kind](sql), []).then((rows) =>
      rows.map((r) => {
        const value = String(r[0]);
        if (kind === "countries") return countryEntry(value);
        return r.length > 1 && r[1] != null ? { value, name: String(r[1]) } : { value };
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
