import { describe, expect, it } from "vitest";
import { countryEntry, type VocabularyEntry } from "../../src/query/vocabularies.ts";
import { matchEntries, normalized } from "../../src/query/vocabulary-match.ts";

/**
 * The agents' look-up (lookup with text): scores of a free text against a vocabulary's values,
 * their App names and tokens, and the countries' names as people write them (issue 75, item 4).
 */
const COUNTRIES = ["AT", "BR", "CH", "DE", "FR", "GB", "US", "NL"].map(countryEntry);
const PLANS: VocabularyEntry[] = [
  "Basic",
  "Shopify",
  "Shopify Plus",
  "Shopify Plus (Legacy)",
  "Advanced",
].map((value) => ({ value }));
const TECHNOLOGIES: VocabularyEntry[] = ["Google Analytics", "Google Tag Manager", "Hotjar", "Klaviyo"].map(
  (value) => ({ value }),
);
const APPS: VocabularyEntry[] = [
  { value: "shopify.klaviyo", name: "Klaviyo: Email Marketing & SMS" },
  { value: "shopify.elevar", name: "Google Analytics 4 by Elevar" },
  { value: "shopify.analytics-buddy", name: "Analytics Buddy" },
  { value: "shopify.privy", name: "Privy ‑ Pop Ups, Email, & SMS" },
];
const values = (entries: VocabularyEntry[], text: string, limit = 5) =>
  matchEntries(entries, text, limit).map((e) => e.value);

describe("the vocabulary look-up", () => {
  it("normalizes as people write: case, accents, punctuation", () => {
    expect(normalized("  Brésil ")).toBe("bresil");
    expect(normalized("Klaviyo: Email Marketing & SMS")).toBe("klaviyo email marketing sms");
    expect(normalized("e-commerce")).toBe("e commerce");
  });

  it("finds a country by its English name, its own, and others people write", () => {
    for (const [text, code] of [
      ["Germany", "DE"],
      ["Deutschland", "DE"],
      ["allemagne", "DE"],
      ["USA", "US"],
      ["united states", "US"],
      ["bresil", "BR"],
      ["Schweiz", "CH"],
      ["Österreich", "AT"],
      ["UK", "GB"],
      ["Holland", "NL"],
    ])
      expect(values(COUNTRIES, text)[0], text).toBe(code);
    const [de] = matchEntries(COUNTRIES, "Deutschland", 1);
    expect(de).toMatchObject({ value: "DE", name: "Germany", score: 1 });
  });

  it("finds plans as written, and with a typo", () => {
    expect(matchEntries(PLANS, "shopify plus", 5).map((e) => [e.value, e.score])).toEqual([
      ["Shopify Plus", 1],
      ["Shopify Plus (Legacy)", expect.any(Number)],
    ]);
    expect(values(PLANS, "Shopify Pluss")[0]).toBe("Shopify Plus");
    expect(values(PLANS, "shopify")[0]).toBe("Shopify");
  });

  it("finds an App by its token, a typo of it, or words of its name", () => {
    expect(values(APPS, "klavio")).toEqual(["shopify.klaviyo"]);
    expect(values(APPS, "email marketing")[0]).toBe("shopify.klaviyo");
    expect(values(APPS, "pop ups")).toEqual(["shopify.privy"]);
  });

  it("scores what was asked above what merely mentions it, and leaves out what does not", () => {
    const [tech] = matchEntries(TECHNOLOGIES, "google analytics", 5);
    expect(tech).toMatchObject({ value: "Google Analytics", score: 1 });
    const apps = matchEntries(APPS, "google analytics", 5);
    expect(apps.map((a) => a.value)).toEqual(["shopify.elevar"]);
    expect(apps[0].score).toBeLessThan(tech.score);
    expect(apps[0].score).toBeGreaterThanOrEqual(0.5);
    // Scores fall as the text covers less of the value.
    const [full, partial] = [
      matchEntries(TECHNOLOGIES, "hotjar", 1)[0],
      matchEntries(TECHNOLOGIES, "hotj", 1)[0],
    ];
    expect(full.score).toBeGreaterThan(partial.score);
  });

  it("answers nothing for a blank text or one near nothing, and at most the limit", () => {
    expect(matchEntries(APPS, "   ", 5)).toEqual([]);
    expect(matchEntries(TECHNOLOGIES, "zzzzqq", 5)).toEqual([]);
    expect(matchEntries(COUNTRIES, "a", 5)).toEqual([]);
    // One edit in 4 letters at most: Chile is not China.
    expect(values([{ value: "CN", name: "China" }], "Chile")).toEqual([]);
    // A one-letter word neither counts nor stops the others.
    expect(values(APPS, "analytics 4")[0]).toBe("shopify.elevar");
    expect(matchEntries(PLANS, "shop", 1)).toHaveLength(1);
  });
});
