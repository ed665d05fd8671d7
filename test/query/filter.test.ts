import fc from "fast-check";
import type { GraphQLScalarType } from "graphql";
import { describe, expect, it } from "vitest";
import { COMMON_PLATFORMS, PLATFORM_LIST } from "../../src/dataset/platforms.ts";
import { InputError } from "../../src/errors.ts";
import { type AppFilter, toAppWhere } from "../../src/query/app-filter.ts";
import {
  DOMAIN_LIST_FILTERS,
  DOMAIN_RANGE_FILTERS,
  type DomainFilter,
  fridayOf,
  parseAppIdentifier,
  toDomainWhere,
} from "../../src/query/domain-filter.ts";
import {
  allOf,
  columnList,
  inValues,
  type ListOp,
  listWhere,
  pattern,
  rangeWhere,
  relationList,
  searchWhere,
  vocabulary,
} from "../../src/query/filter.ts";
import { AppKey, resolveKeys, TechnologyKey } from "../../src/query/named-keys.ts";
import { schema } from "../../src/schema/index.ts";

/** The DateTime scalar's parseValue, which marks dates written as YYYY-MM-DD as calendar days. */
const DateTime = schema.getType("DateTime") as GraphQLScalarType;
const day = (s: string) => DateTime.parseValue(s) as Date;
const instant = (s: string) => DateTime.parseValue(s) as Date;

/** Runs `fn`, expects an InputError and returns it. */
function inputError(fn: () => unknown): InputError {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(InputError);
  return thrown as InputError;
}

const plainColumn = columnList("f:x", "Thing", "thing", { nullable: false });
const nullableColumn = columnList("f:y", "Thing", "thing", { nullable: true });
const relation = relationList("f:t", "Tag", "tags", inValues("tag"));

describe("listWhere on a column", () => {
  it("op and (the default) with one value is an equality", () => {
    expect(listWhere(plainColumn, { values: ["a"] }, "filter.thing")).toEqual({ thing: "a" });
    expect(listWhere(plainColumn, { values: ["a"], op: null }, "filter.thing")).toEqual({ thing: "a" });
    expect(listWhere(plainColumn, { values: ["a"], op: "and" }, "filter.thing")).toEqual({ thing: "a" });
  });

  it("op or: one value is an equality, several are IN", () => {
    expect(listWhere(plainColumn, { values: ["a"], op: "or" }, "f")).toEqual({ thing: "a" });
    expect(listWhere(plainColumn, { values: ["a", "b", "c"], op: "or" }, "f")).toEqual({
      thing: { in: ["a", "b", "c"] },
    });
  });

  it("op not on a non-nullable column is NOT IN", () => {
    expect(listWhere(plainColumn, { values: ["a"], op: "not" }, "f")).toEqual({ thing: { notIn: ["a"] } });
    expect(listWhere(plainColumn, { values: ["a", "b"], op: "not" }, "f")).toEqual({
      thing: { notIn: ["a", "b"] },
    });
  });

  it("op not on a nullable column keeps the rows whose value is NULL", () => {
    expect(listWhere(nullableColumn, { values: ["a", "b"], op: "not" }, "f")).toEqual({
      OR: [{ thing: { notIn: ["a", "b"] } }, { thing: null }],
    });
    expect(listWhere(nullableColumn, { values: ["a"], op: "not" }, "f")).toEqual({
      OR: [{ thing: { notIn: ["a"] } }, { thing: null }],
    });
  });

  it("op nand with one value is the same as not", () => {
    expect(listWhere(plainColumn, { values: ["a"], op: "nand" }, "f")).toEqual({ thing: { notIn: ["a"] } });
    expect(listWhere(nullableColumn, { values: ["a"], op: "nand" }, "f")).toEqual({
      OR: [{ thing: { notIn: ["a"] } }, { thing: null }],
    });
  });

  it.each<ListOp>(["and", "nand"])("op %s with several values is rejected, naming the argument", (op) => {
    const e = inputError(() => listWhere(plainColumn, { values: ["a", "b"], op }, "filter.thing"));
    expect(e.argument).toBe("filter.thing");
    expect(e.problem).toBe(
      `a record has only one thing, so op ${op} with several values can never match; use op or (any of them) or not (none of them)`,
    );
  });

  it("trims values and drops duplicates before checking exclusivity", () => {
    expect(listWhere(plainColumn, { values: [" a ", "a", "a\t"], op: "and" }, "f")).toEqual({ thing: "a" });
    expect(listWhere(plainColumn, { values: ["b", " a", "b "], op: "or" }, "f")).toEqual({
      thing: { in: ["b", "a"] },
    });
  });
});

describe("listWhere on a relation", () => {
  it("op and: every value must be present, one `some` per value", () => {
    expect(listWhere(relation, { values: ["a"] }, "f")).toEqual({ tags: { some: { tag: "a" } } });
    expect(listWhere(relation, { values: ["a", "b"], op: "and" }, "f")).toEqual({
      AND: [{ tags: { some: { tag: "a" } } }, { tags: { some: { tag: "b" } } }],
    });
  });

  it("op or: any value", () => {
    expect(listWhere(relation, { values: ["a"], op: "or" }, "f")).toEqual({ tags: { some: { tag: "a" } } });
    expect(listWhere(relation, { values: ["a", "b"], op: "or" }, "f")).toEqual({
      tags: { some: { tag: { in: ["a", "b"] } } },
    });
  });

  it("op not: none of the values", () => {
    expect(listWhere(relation, { values: ["a"], op: "not" }, "f")).toEqual({ tags: { none: { tag: "a" } } });
    expect(listWhere(relation, { values: ["a", "b"], op: "not" }, "f")).toEqual({
      tags: { none: { tag: { in: ["a", "b"] } } },
    });
  });

  it("op nand: at least one of the values is missing", () => {
    expect(listWhere(relation, { values: ["a"], op: "nand" }, "f")).toEqual({ tags: { none: { tag: "a" } } });
    expect(listWhere(relation, { values: ["a", "b"], op: "nand" }, "f")).toEqual({
      OR: [{ tags: { none: { tag: "a" } } }, { tags: { none: { tag: "b" } } }],
    });
  });
});

describe("listWhere value checks", () => {
  it("rejects an empty list", () => {
    const e = inputError(() => listWhere(relation, { values: [] }, "filter.tags"));
    expect(e.argument).toBe("filter.tags.values");
    expect(e.problem).toBe("must name at least one value");
  });

  it.each(["", "   ", "\t\n"])("rejects a blank value %j", (blank) => {
    const e = inputError(() => listWhere(relation, { values: ["a", blank], op: "or" }, "filter.tags"));
    expect(e.argument).toBe("filter.tags.values");
    expect(e.problem).toBe("must not contain a blank value");
  });

  it("takes 1000 values but not 1001", () => {
    const values = Array.from({ length: 1000 }, (_, i) => `v${i}`);
    expect(listWhere(relation, { values, op: "or" }, "f")).toEqual({
      tags: { some: { tag: { in: values } } },
    });
    const e = inputError(() => listWhere(relation, { values: [...values, "x"], op: "or" }, "filter.tags"));
    expect(e.argument).toBe("filter.tags.values");
    expect(e.problem).toBe("takes at most 1000 values");
  });

  it("reports a normaliser's problem on .values", () => {
    const spec = columnList("f:x", "Thing", "thing", {
      nullable: false,
      normalize: pattern(/^\d+$/, "a number"),
    });
    const e = inputError(() => listWhere(spec, { values: ["1", "x1"], op: "or" }, "filter.thing"));
    expect(e.argument).toBe("filter.thing.values");
    expect(e.problem).toBe('"x1" is not a number');
  });
});

describe("vocabulary and pattern", () => {
  it("maps any letter case to the canonical spelling", () => {
    const v = vocabulary(["Active", "Password Protected"], "state");
    expect(v("active")).toBe("Active");
    expect(v("PASSWORD protected")).toBe("Password Protected");
  });

  it("lists the allowed values for an unknown one", () => {
    const v = vocabulary(["Active", "Inactive"], "state");
    expect(v("Gone")).toEqual({ problem: 'unknown state "Gone"; allowed: Active, Inactive' });
  });

  it("shows only the first 30 of a long vocabulary", () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
    const result = vocabulary(words, "word")("nope");
    expect(result).toEqual({
      problem: `unknown word "nope"; allowed: ${words.slice(0, 30).join(", ")}, … (40 in all)`,
    });
  });

  it("pattern transforms before testing", () => {
    const p = pattern(/^[A-Z]{2}$/, "a country", (v) => v.toUpperCase());
    expect(p("de")).toBe("DE");
    expect(p("deu")).toEqual({ problem: '"deu" is not a country' });
  });
});

describe("rangeWhere", () => {
  it("needs at least one bound", () => {
    for (const r of [{}, { min: null, max: null }, { min: undefined }]) {
      const e = inputError(() => rangeWhere(r, "filter.rank"));
      expect(e.argument).toBe("filter.rank");
      expect(e.problem).toBe("needs min, max or both");
    }
  });

  it("is inclusive on both ends, zero counts as a bound", () => {
    expect(rangeWhere({ min: 1, max: 10 }, "r")).toEqual({ gte: 1, lte: 10 });
    expect(rangeWhere({ min: 5, max: 5 }, "r")).toEqual({ gte: 5, lte: 5 });
    expect(rangeWhere({ min: 0 }, "r")).toEqual({ gte: 0 });
    expect(rangeWhere({ max: 0 }, "r")).toEqual({ lte: 0 });
    expect(rangeWhere({ min: null, max: 3 }, "r")).toEqual({ lte: 3 });
  });

  it("rejects min > max", () => {
    const e = inputError(() => rangeWhere({ min: 5, max: 3 }, "filter.rank"));
    expect(e.argument).toBe("filter.rank");
    expect(e.problem).toBe("min (5) is greater than max (3)");
    const t = inputError(() =>
      rangeWhere({ min: instant("2024-03-02T00:00:00Z"), max: instant("2024-03-01T00:00:00Z") }, "filter.t"),
    );
    expect(t.problem).toBe("min (2024-03-02T00:00:00.000Z) is greater than max (2024-03-01T00:00:00.000Z)");
  });

  it("a timestamp max is inclusive (lte)", () => {
    const max = instant("2024-03-01T12:30:00Z");
    expect(rangeWhere({ max }, "r")).toEqual({ lte: new Date("2024-03-01T12:30:00Z") });
    // Midnight written as a timestamp is an instant, not a whole day.
    expect(rangeWhere({ max: instant("2024-03-01T00:00:00Z") }, "r")).toEqual({
      lte: new Date("2024-03-01T00:00:00Z"),
    });
  });

  it("a date-only max covers the whole day (lt next midnight)", () => {
    expect(rangeWhere({ max: day("2024-03-01") }, "r")).toEqual({ lt: new Date("2024-03-02T00:00:00Z") });
    expect(rangeWhere({ max: day("2024-12-31") }, "r")).toEqual({ lt: new Date("2025-01-01T00:00:00Z") });
    expect(rangeWhere({ min: day("2024-02-29"), max: day("2024-02-29") }, "r")).toEqual({
      gte: new Date("2024-02-29T00:00:00Z"),
      lt: new Date("2024-03-01T00:00:00Z"),
    });
  });

  it("a date-only min is midnight (gte)", () => {
    expect(rangeWhere({ min: day("2024-03-01") }, "r")).toEqual({ gte: new Date("2024-03-01T00:00:00Z") });
  });

  it("a Date that was not parsed from YYYY-MM-DD is never a calendar day", () => {
    expect(rangeWhere({ max: new Date("2024-03-01T00:00:00Z") }, "r")).toEqual({
      lte: new Date("2024-03-01T00:00:00Z"),
    });
  });

  // The date-only max covers the whole day, so a min later on that same day is a valid range.
  it("accepts a min on the same day as a date-only max", () => {
    expect(rangeWhere({ min: instant("2024-03-01T12:00:00Z"), max: day("2024-03-01") }, "r")).toEqual({
      gte: new Date("2024-03-01T12:00:00Z"),
      lt: new Date("2024-03-02T00:00:00Z"),
    });
  });
});

describe("searchWhere", () => {
  it("is null when absent or blank", () => {
    expect(searchWhere(null)).toBeNull();
    expect(searchWhere(undefined)).toBeNull();
    expect(searchWhere("")).toBeNull();
    expect(searchWhere("  \t\n ")).toBeNull();
  });

  it("one word is one lower-cased contains", () => {
    expect(searchWhere("  Hello ")).toEqual({ searchText: { contains: "hello" } });
  });

  it("every word must be contained", () => {
    expect(searchWhere("Foo  BAR\tbaz\nqux")).toEqual({
      AND: [
        { searchText: { contains: "foo" } },
        { searchText: { contains: "bar" } },
        { searchText: { contains: "baz" } },
        { searchText: { contains: "qux" } },
      ],
    });
  });

  it("takes at most 200 characters", () => {
    expect(searchWhere("a".repeat(200))).toEqual({ searchText: { contains: "a".repeat(200) } });
    const e = inputError(() => searchWhere("a".repeat(201)));
    expect(e.argument).toBe("search");
    expect(e.problem).toBe("must be at most 200 characters");
    expect(inputError(() => searchWhere("a".repeat(201), "q")).argument).toBe("q");
  });

  it("takes at most 10 words", () => {
    const ten = Array.from({ length: 10 }, (_, i) => `w${i}`).join(" ");
    expect((searchWhere(ten) as { AND: unknown[] }).AND).toHaveLength(10);
    const e = inputError(() => searchWhere(`${ten} w10`, "filter.q"));
    expect(e.argument).toBe("filter.q");
    expect(e.problem).toBe("takes at most 10 words");
  });

  it("splits words at anything but letters and digits, so LIKE wildcards never reach the database", () => {
    expect(searchWhere("Blue-tooth 50%")).toEqual({
      AND: [
        { searchText: { contains: "blue" } },
        { searchText: { contains: "tooth" } },
        { searchText: { contains: "50" } },
      ],
    });
    expect(searchWhere("Café_Müller")).toEqual({
      AND: [{ searchText: { contains: "café" } }, { searchText: { contains: "müller" } }],
    });
    for (const q of ["%", "_", " %_ ", "--"]) {
      expect(inputError(() => searchWhere(q)).problem).toBe("needs at least one word of letters or digits");
    }
  });
});

describe("allOf", () => {
  it("drops absent and empty parts", () => {
    expect(allOf([])).toEqual({});
    expect(allOf([null, undefined, {}])).toEqual({});
    expect(allOf([null, { a: 1 }, {}])).toEqual({ a: 1 });
    expect(allOf([{ a: 1 }, null, { b: 2 }])).toEqual({ AND: [{ a: 1 }, { b: 2 }] });
  });
});

describe("toDomainWhere: list filters", () => {
  it("no filter is no condition", () => {
    expect(toDomainWhere(null)).toEqual({});
    expect(toDomainWhere(undefined)).toEqual({});
    expect(toDomainWhere({})).toEqual({});
    expect(toDomainWhere({ countryCode: null, rank: null })).toEqual({});
  });

  it("upper-cases country codes", () => {
    expect(toDomainWhere({ countryCode: { values: ["de"] } })).toEqual({ countryCode: "DE" });
    expect(toDomainWhere({ countryCode: { values: [" de", "Fr"], op: "or" } })).toEqual({
      countryCode: { in: ["DE", "FR"] },
    });
    expect(toDomainWhere({ shipsTo: { values: ["de", "at"], op: "and" } })).toEqual({
      AND: [{ shipsTo: { some: { countryCode: "DE" } } }, { shipsTo: { some: { countryCode: "AT" } } }],
    });
  });

  it("rejects a country code that is not two letters", () => {
    const e = inputError(() => toDomainWhere({ countryCode: { values: ["DEU"] } }));
    expect(e.argument).toBe("filter.countryCode.values");
    expect(e.problem).toBe('"DEU" is not a 2-letter ISO country code such as DE');
    expect(inputError(() => toDomainWhere({ shipsTo: { values: ["d1"] } })).argument).toBe(
      "filter.shipsTo.values",
    );
  });

  it("normalises currency and language codes", () => {
    expect(toDomainWhere({ currencyCode: { values: ["eur"] } })).toEqual({ currencyCode: "EUR" });
    expect(toDomainWhere({ languageCode: { values: ["DE"] } })).toEqual({ languageCode: "de" });
  });

  it("the same country in two spellings is one value, so op and is fine", () => {
    expect(toDomainWhere({ countryCode: { values: ["de", "DE"], op: "and" } })).toEqual({
      countryCode: "DE",
    });
  });

  it.each<ListOp>(["and", "nand"])("a single-valued filter rejects op %s with two values", (op) => {
    const e = inputError(() => toDomainWhere({ countryCode: { values: ["DE", "FR"], op } }));
    expect(e.argument).toBe("filter.countryCode");
    expect(e.problem).toContain(`a record has only one country code, so op ${op} with several values`);
  });

  it("op and with two values on a single-valued filter is rejected without op, too (and is the default)", () => {
    const e = inputError(() => toDomainWhere({ platform: { values: ["shopify", "wix"] } }));
    expect(e.argument).toBe("filter.platform");
  });

  it("names the argument inside and", () => {
    const e = inputError(() =>
      toDomainWhere({ and: [{ plan: { values: ["a"] } }, { plan: { values: ["a", "b"], op: "and" } }] }),
    );
    expect(e.argument).toBe("filter.and[1].plan");
    const v = inputError(() => toDomainWhere({ and: [{}, { countryCode: { values: ["x"] } }] }));
    expect(v.argument).toBe("filter.and[1].countryCode.values");
  });

  it("uses a custom argument name", () => {
    const e = inputError(() => toDomainWhere({ countryCode: { values: [] } }, "where"));
    expect(e.argument).toBe("where.countryCode.values");
  });

  it("blank, empty and too many values", () => {
    expect(inputError(() => toDomainWhere({ plan: { values: [] } })).problem).toBe(
      "must name at least one value",
    );
    expect(inputError(() => toDomainWhere({ plan: { values: ["basic", " "], op: "or" } })).problem).toBe(
      "must not contain a blank value",
    );
    const e = inputError(() => toDomainWhere({ plan: { values: Array(1001).fill("basic"), op: "or" } }));
    expect(e.argument).toBe("filter.plan.values");
    expect(e.problem).toBe("takes at most 1000 values");
  });

  it("op not on each nullable column keeps NULL rows", () => {
    const nullable = [
      "administrativeAreaLevel1",
      "countryCode",
      "city",
      "currencyCode",
      "region",
      "subregion",
      "languageCode",
      "plan",
      "themeName",
    ] as const;
    for (const name of nullable) {
      const spec = DOMAIN_LIST_FILTERS[name];
      expect(spec.none(["v"]), name).toEqual({ OR: [{ [name]: { notIn: ["v"] } }, { [name]: null }] });
    }
    expect(toDomainWhere({ plan: { values: ["basic", "plus"], op: "not" } })).toEqual({
      OR: [{ plan: { notIn: ["basic", "plus"] } }, { plan: null }],
    });
    expect(toDomainWhere({ countryCode: { values: ["de"], op: "not" } })).toEqual({
      OR: [{ countryCode: { notIn: ["DE"] } }, { countryCode: null }],
    });
  });

  it("op not on a non-nullable column is a plain NOT IN", () => {
    expect(toDomainWhere({ platform: { values: ["Shopify"], op: "not" } })).toEqual({
      platform: { notIn: ["shopify"] },
    });
    expect(toDomainWhere({ state: { values: ["active"], op: "not" } })).toEqual({
      state: { notIn: ["Active"] },
    });
  });

  it("vocabularies are case-insensitive and canonical", () => {
    expect(toDomainWhere({ state: { values: ["password PROTECTED"] } })).toEqual({
      state: "Password Protected",
    });
    expect(toDomainWhere({ platform: { values: ["SHOPIFY", "Wix"], op: "or" } })).toEqual({
      platform: { in: ["shopify", "wix"] },
    });
    expect(toDomainWhere({ features: { values: ["shopify pos", "has ios app"], op: "or" } })).toEqual({
      features: { some: { feature: { in: ["Shopify POS", "Has iOS App"] } } },
    });
    expect(toDomainWhere({ tags: { values: ["trending on tiktok"] } })).toEqual({
      tags: { some: { tag: "Trending on TikTok" } },
    });
    expect(toDomainWhere({ contactTypes: { values: ["EMAIL"], op: "not" } })).toEqual({
      contacts: { none: { type: "email" } },
    });
  });

  it("an unknown vocabulary value lists the allowed ones", () => {
    const s = inputError(() => toDomainWhere({ state: { values: ["Redirect"] } }));
    expect(s.argument).toBe("filter.state.values");
    expect(s.problem).toBe('unknown Domain state "Redirect"; allowed: Active, Inactive, Password Protected');
    // A long vocabulary with its commonest values named: those, and how many in all.
    const p = inputError(() => toDomainWhere({ platform: { values: ["zzqx"] } }));
    expect(p.argument).toBe("filter.platform.values");
    expect(p.problem).toBe(
      `unknown platform "zzqx"; allowed: ${COMMON_PLATFORMS.join(", ")}, … (${PLATFORM_LIST.length} in all, the commonest first)`,
    );
    // The values near an unknown one come first.
    expect(inputError(() => toDomainWhere({ platform: { values: ["shopfy"] } })).problem).toMatch(
      /^unknown platform "shopfy" \(did you mean "shopify"[^)]*\); allowed: shopify, /,
    );
    expect(inputError(() => toDomainWhere({ state: { values: ["activ"] } })).problem).toBe(
      'unknown Domain state "activ" (did you mean "Active" or "Inactive"?); allowed: Active, Inactive, Password Protected',
    );
    const f = inputError(() => toDomainWhere({ features: { values: ["Teleporter"] } }));
    expect(f.problem).toContain('unknown feature "Teleporter"; allowed: Brand Advocate Page, Brands Page');
  });

  it("relation filters without a vocabulary", () => {
    expect(toDomainWhere({ categories: { values: ["Shoes", "Hats"], op: "not" } })).toEqual({
      categories: { none: { category: { in: ["Shoes", "Hats"] } } },
    });
    expect(toDomainWhere({ technologies: { values: ["React"] } })).toEqual({
      technologies: { some: { technologyPk: new TechnologyKey("React") } },
    });
    expect(toDomainWhere({ technologies: { values: ["React", "Vue"], op: "or" } })).toEqual({
      technologies: {
        some: { technologyPk: { in: [new TechnologyKey("React"), new TechnologyKey("Vue")] } },
      },
    });
    expect(toDomainWhere({ salesChannels: { values: ["pos", "web"], op: "nand" } })).toEqual({
      OR: [{ salesChannels: { none: { channel: "pos" } } }, { salesChannels: { none: { channel: "web" } } }],
    });
  });

  it("apps: installed and not since removed", () => {
    expect(toDomainWhere({ apps: { values: ["Shopify.klaviyo"] } })).toEqual({
      apps: { some: { removedAt: null, appPk: new AppKey("shopify.klaviyo") } },
    });
    expect(toDomainWhere({ apps: { values: ["shopify.a", "wix.b.c"], op: "or" } })).toEqual({
      apps: {
        some: {
          removedAt: null,
          OR: [{ appPk: new AppKey("shopify.a") }, { appPk: new AppKey("wix.b.c") }],
        },
      },
    });
    expect(toDomainWhere({ apps: { values: ["shopify.a"], op: "not" } })).toEqual({
      apps: { none: { removedAt: null, appPk: new AppKey("shopify.a") } },
    });
    const e = inputError(() => toDomainWhere({ apps: { values: ["nope.a"] } }));
    expect(e.argument).toBe("filter.apps.values");
    expect(e.problem).toContain('"nope.a" is not an App identifier <platform>.<token>');
  });

  it("resolveKeys puts each App's and technology's key in its place, -1 for an unknown one, one lookup per kind", async () => {
    const where = toDomainWhere({
      apps: { values: ["shopify.a", "wix.b"], op: "or" },
      and: [{ apps: { values: ["shopify.a"] } }, { technologies: { values: ["React", "Vue"], op: "or" } }],
      appInstalledAt: { app: "shopify.a", min: "2024-01-01" as unknown as Date },
      technologyInstalledAt: { technology: "React", min: "2024-01-01" as unknown as Date },
    });
    const asked: string[][] = [];
    const resolved = await resolveKeys(where, {
      app: async (ids) => {
        asked.push(ids);
        return ids.map((id) => (id === "shopify.a" ? 7 : null));
      },
      technology: async (names) => {
        asked.push(names);
        return names.map((n) => (n === "React" ? 3 : null));
      },
    });
    expect(asked).toEqual([
      ["shopify.a", "wix.b"],
      ["React", "Vue"],
    ]);
    expect(JSON.stringify(resolved)).not.toContain("identifier");
    expect(resolved).toMatchObject({
      AND: [
        { apps: { some: { removedAt: null, OR: [{ appPk: 7 }, { appPk: -1 }] } } },
        { apps: { some: { appPk: 7 } } },
        { technologies: { some: { technologyPk: 3 } } },
        { apps: { some: { removedAt: null, appPk: 7 } } },
        { technologies: { some: { technologyPk: { in: [3, -1] } } } },
      ],
    });
    // A filter without named rows is returned as it is, with no lookup.
    const plain = toDomainWhere({ countryCode: { values: ["US"] } });
    expect(await resolveKeys(plain, { app: async () => expect.unreachable() })).toBe(plain);
    // A kind named without a lookup is a fault of ours, not a silent match-nothing.
    await expect(resolveKeys(toDomainWhere({ technologies: { values: ["React"] } }), {})).rejects.toThrow(
      /technology/,
    );
  });

  it("combines filters with AND in table order", () => {
    expect(
      toDomainWhere({
        rank: { max: 100 },
        platform: { values: ["shopify"] },
        countryCode: { values: ["de"] },
      }),
    ).toEqual({ AND: [{ countryCode: "DE" }, { platform: "shopify" }, { rank: { lte: 100 } }] });
  });
});

describe("toDomainWhere: months and weeks", () => {
  it("a month is a half-open createdAt range", () => {
    expect(toDomainWhere({ createdMonth: { values: ["2024-02"] } })).toEqual({
      createdAt: { gte: new Date("2024-02-01T00:00:00Z"), lt: new Date("2024-03-01T00:00:00Z") },
    });
    expect(toDomainWhere({ createdMonth: { values: ["2023-12"] } })).toEqual({
      createdAt: { gte: new Date("2023-12-01T00:00:00Z"), lt: new Date("2024-01-01T00:00:00Z") },
    });
  });

  it("several months with or, and not", () => {
    const jan = {
      createdAt: { gte: new Date("2024-01-01T00:00:00Z"), lt: new Date("2024-02-01T00:00:00Z") },
    };
    const mar = {
      createdAt: { gte: new Date("2024-03-01T00:00:00Z"), lt: new Date("2024-04-01T00:00:00Z") },
    };
    expect(toDomainWhere({ createdMonth: { values: ["2024-01", "2024-03"], op: "or" } })).toEqual({
      OR: [jan, mar],
    });
    expect(toDomainWhere({ createdMonth: { values: ["2024-01"], op: "not" } })).toEqual({ NOT: jan });
    expect(toDomainWhere({ createdMonth: { values: ["2024-01", "2024-03"], op: "not" } })).toEqual({
      NOT: { OR: [jan, mar] },
    });
    expect(
      inputError(() => toDomainWhere({ createdMonth: { values: ["2024-01", "2024-03"] } })).argument,
    ).toBe("filter.createdMonth");
  });

  it.each(["2024-13", "2024-00", "2024-1", "24-01", "2024-01-01", "January"])("rejects month %j", (m) => {
    const e = inputError(() => toDomainWhere({ createdMonth: { values: [m] } }));
    expect(e.argument).toBe("filter.createdMonth.values");
    expect(e.problem).toBe(`"${m}" is not a month YYYY-MM`);
  });

  it.each([
    ["2024-03-01", "2024-03-01"], // Friday itself
    ["2024-03-02", "2024-03-01"], // Saturday
    ["2024-03-03", "2024-03-01"], // Sunday
    ["2024-03-04", "2024-03-01"], // Monday
    ["2024-03-05", "2024-03-01"], // Tuesday
    ["2024-03-06", "2024-03-01"], // Wednesday
    ["2024-03-07", "2024-03-01"], // Thursday
    ["2024-03-08", "2024-03-08"], // next Friday
    ["2024-02-29", "2024-02-23"], // leap day, Thursday
    ["2024-06-01", "2024-05-31"], // Saturday, across a month boundary
    ["2025-01-01", "2024-12-27"], // Wednesday, across a year boundary
    ["2021-01-07", "2021-01-01"], // Thursday, back to New Year's Day (a Friday)
  ])("fridayOf(%s) = %s", (d, friday) => {
    expect(fridayOf(d)).toBe(friday);
  });

  /** The calendar day a createdWeek value denotes, whether it is given as a Date or a string. */
  const weekOf = (v: unknown) => new Date(v as string | Date).toISOString().slice(0, 10);
  type Week = { createdWeek: unknown };

  it("a week filter matches the Friday on/before each date", () => {
    const one = toDomainWhere({ createdWeek: { values: ["2025-01-01"] } }) as Week;
    expect(Object.keys(one)).toEqual(["createdWeek"]);
    expect(weekOf(one.createdWeek)).toBe("2024-12-27");
    // Days of one week are one value, so op and is fine.
    const same = toDomainWhere({ createdWeek: { values: ["2024-03-04", "2024-03-01"], op: "and" } }) as Week;
    expect(weekOf(same.createdWeek)).toBe("2024-03-01");
    const or = toDomainWhere({ createdWeek: { values: ["2024-03-04", "2024-03-08"], op: "or" } }) as {
      createdWeek: { in: unknown[] };
    };
    expect(Object.keys(or.createdWeek)).toEqual(["in"]);
    expect(or.createdWeek.in.map(weekOf)).toEqual(["2024-03-01", "2024-03-08"]);
    const not = toDomainWhere({ createdWeek: { values: ["2024-03-04"], op: "not" } }) as {
      createdWeek: { notIn: unknown[] };
    };
    expect(Object.keys(not.createdWeek)).toEqual(["notIn"]);
    expect(not.createdWeek.notIn.map(weekOf)).toEqual(["2024-03-01"]);
    const e = inputError(() => toDomainWhere({ createdWeek: { values: ["2024-03-04", "2024-03-08"] } }));
    expect(e.argument).toBe("filter.createdWeek");
  });

  // BUG: createdWeek is a DateTime column, but the filter compares it with "YYYY-MM-DD" strings,
  // which Prisma rejects ("Invalid value for argument `createdWeek`: premature end of input.
  // Expected ISO-8601 DateTime."): a Date (or a full RFC 3339 string) is needed.
  it("a week filter compares the DateTime column with values Prisma accepts as DateTime", () => {
    const isDateTime = (v: unknown) =>
      (v instanceof Date && !Number.isNaN(v.getTime())) ||
      (typeof v === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v));
    const one = toDomainWhere({ createdWeek: { values: ["2024-03-04"] } }) as Week;
    expect(isDateTime(one.createdWeek), `createdWeek: ${JSON.stringify(one.createdWeek)}`).toBe(true);
    const or = toDomainWhere({ createdWeek: { values: ["2024-03-04", "2024-03-08"], op: "or" } }) as {
      createdWeek: { in: unknown[] };
    };
    expect(or.createdWeek.in.every(isDateTime), JSON.stringify(or)).toBe(true);
  });

  it.each(["2024-02-30", "2023-02-29", "2024-3-1", "20240301", "2024-03-01T00:00:00Z"])(
    "rejects day %j",
    (d) => {
      const e = inputError(() => toDomainWhere({ createdWeek: { values: [d] } }));
      expect(e.argument).toBe("filter.createdWeek.values");
      expect(e.problem).toBe(`"${d}" is not a date YYYY-MM-DD`);
    },
  );

  // BUG: validDay calls toISOString() on an Invalid Date for a month or day out of range, which
  // throws a RangeError instead of returning the problem.
  it.each(["2024-13-01", "2024-00-10", "2024-02-32", "2024-01-00"])(
    "rejects an impossible day %j with an InputError",
    (d) => {
      const e = inputError(() => toDomainWhere({ createdWeek: { values: [d] } }));
      expect(e.argument).toBe("filter.createdWeek.values");
      expect(e.problem).toBe(`"${d}" is not a date YYYY-MM-DD`);
    },
  );
});

describe("toDomainWhere: ranges", () => {
  it("translates each range to its column", () => {
    for (const [name, spec] of Object.entries(DOMAIN_RANGE_FILTERS)) {
      const filter = { [name]: spec.kind === "intRange" ? { min: 1, max: 2 } : { min: day("2024-01-01") } };
      expect(toDomainWhere(filter as DomainFilter), name).toEqual({
        [spec.column]:
          spec.kind === "intRange" ? { gte: 1, lte: 2 } : { gte: new Date("2024-01-01T00:00:00Z") },
      });
    }
  });

  it("needs a bound", () => {
    const e = inputError(() => toDomainWhere({ employeeCount: {} }));
    expect(e.argument).toBe("filter.employeeCount");
    expect(e.problem).toBe("needs min, max or both");
  });

  it("rejects min > max", () => {
    const e = inputError(() => toDomainWhere({ avgPrice: { min: 10, max: 9 } }));
    expect(e.argument).toBe("filter.avgPrice");
    expect(e.problem).toBe("min (10) is greater than max (9)");
  });

  it("a date-only max covers the day, a timestamp max is inclusive", () => {
    expect(toDomainWhere({ createdAt: { min: day("2024-03-01"), max: day("2024-03-31") } })).toEqual({
      createdAt: { gte: new Date("2024-03-01T00:00:00Z"), lt: new Date("2024-04-01T00:00:00Z") },
    });
    expect(toDomainWhere({ lastPlanChangeAt: { max: instant("2024-03-31T23:00:00+02:00") } })).toEqual({
      lastPlanChangeAt: { lte: new Date("2024-03-31T21:00:00Z") },
    });
  });
});

describe("toDomainWhere: requirements", () => {
  const cc = { values: ["de"] };
  const area = { values: ["Berlin"] };
  const city = { values: ["Berlin"] };

  it("city needs countryCode and administrativeAreaLevel1", () => {
    const e = inputError(() => toDomainWhere({ city }));
    expect(e.argument).toBe("filter.city");
    expect(e.problem).toBe(
      "needs countryCode (f:cc) and administrativeAreaLevel1 (f:administrative_area_level_1) in the same filter",
    );
    const f = inputError(() => toDomainWhere({ city, countryCode: cc }));
    expect(f.argument).toBe("filter.city");
    expect(f.problem).toBe(
      "needs administrativeAreaLevel1 (f:administrative_area_level_1) in the same filter",
    );
    const g = inputError(() => toDomainWhere({ city, administrativeAreaLevel1: area, countryCode: null }));
    expect(g.argument).toBe("filter.administrativeAreaLevel1");
    expect(g.problem).toBe("needs countryCode (f:cc) in the same filter");
  });

  it("administrativeAreaLevel1 needs countryCode", () => {
    const e = inputError(() => toDomainWhere({ administrativeAreaLevel1: area }));
    expect(e.argument).toBe("filter.administrativeAreaLevel1");
    expect(e.problem).toBe("needs countryCode (f:cc) in the same filter");
    expect(inputError(() => toDomainWhere({ administrativeAreaLevel1: area }, "f")).argument).toBe(
      "f.administrativeAreaLevel1",
    );
  });

  it("are satisfied in the same filter", () => {
    expect(toDomainWhere({ city, administrativeAreaLevel1: area, countryCode: cc })).toEqual({
      AND: [{ administrativeAreaLevel1: "Berlin" }, { countryCode: "DE" }, { city: "Berlin" }],
    });
    expect(toDomainWhere({ administrativeAreaLevel1: area, countryCode: cc })).toEqual({
      AND: [{ administrativeAreaLevel1: "Berlin" }, { countryCode: "DE" }],
    });
  });

  it("are satisfied through and", () => {
    expect(toDomainWhere({ city, and: [{ countryCode: cc }, { administrativeAreaLevel1: area }] })).toEqual({
      AND: [{ city: "Berlin" }, { countryCode: "DE" }, { administrativeAreaLevel1: "Berlin" }],
    });
    expect(toDomainWhere({ countryCode: cc, and: [{ administrativeAreaLevel1: area, city }] })).toEqual({
      AND: [{ countryCode: "DE" }, { AND: [{ administrativeAreaLevel1: "Berlin" }, { city: "Berlin" }] }],
    });
    const e = inputError(() => toDomainWhere({ and: [{ city }, { countryCode: cc }] }));
    expect(e.argument).toBe("filter.city");
    expect(e.problem).toBe(
      "needs administrativeAreaLevel1 (f:administrative_area_level_1) in the same filter",
    );
  });
});

describe("toDomainWhere: and", () => {
  it("adds each condition", () => {
    expect(
      toDomainWhere({
        tags: { values: ["Dropshipper"] },
        and: [{ tags: { values: ["print on demand"] } }, { features: { values: ["contact page"] } }],
      }),
    ).toEqual({
      AND: [
        { tags: { some: { tag: "Dropshipper" } } },
        { tags: { some: { tag: "Print on Demand" } } },
        { features: { some: { feature: "Contact Page" } } },
      ],
    });
  });

  it("cannot be nested", () => {
    const e = inputError(() => toDomainWhere({ and: [{ and: [{ plan: { values: ["basic"] } }] }] }));
    expect(e.argument).toBe("filter.and[0].and");
    expect(e.problem).toBe("cannot be nested inside another and");
  });

  it("takes at most 50 conditions", () => {
    const item = { plan: { values: ["basic"] } };
    expect((toDomainWhere({ and: Array(50).fill(item) }) as { AND: unknown[] }).AND).toHaveLength(50);
    const e = inputError(() => toDomainWhere({ and: Array(51).fill(item) }));
    expect(e.argument).toBe("filter.and");
    expect(e.problem).toBe("takes at most 50 conditions");
  });
});

describe("toDomainWhere: or and not", () => {
  it("or: at least one term, each term all its filters", () => {
    expect(
      toDomainWhere({
        platform: { values: ["shopify"] },
        or: [{ countryCode: { values: ["us"] } }, { rank: { max: 100 }, tags: { values: ["dropshipper"] } }],
      }),
    ).toEqual({
      AND: [
        { platform: "shopify" },
        {
          OR: [
            { countryCode: "US" },
            { AND: [{ tags: { some: { tag: "Dropshipper" } } }, { rank: { lte: 100 } }] },
          ],
        },
      ],
    });
  });

  it("not: each list term by the opposite op, unknown values included", () => {
    expect(toDomainWhere({ not: [{ countryCode: { values: ["us", "ca"], op: "or" } }] })).toEqual({
      OR: [{ countryCode: { notIn: ["US", "CA"] } }, { countryCode: null }],
    });
    expect(toDomainWhere({ not: [{ countryCode: { values: ["us"], op: "not" } }] })).toEqual({
      countryCode: "US",
    });
    expect(toDomainWhere({ not: [{ tags: { values: ["dropshipper", "print on demand"] } }] })).toEqual({
      OR: [{ tags: { none: { tag: "Dropshipper" } } }, { tags: { none: { tag: "Print on Demand" } } }],
    });
    expect(toDomainWhere({ not: [{ tags: { values: ["dropshipper"], op: "nand" } }] })).toEqual({
      tags: { some: { tag: "Dropshipper" } },
    });
  });

  it("not: a range's complement holds the unknown values, a term's is the OR of its parts'", () => {
    const range = { estimatedSales: { lte: 10 } };
    expect(toDomainWhere({ not: [{ estimatedSales: { max: 10 } }] })).toEqual({
      OR: [{ NOT: range }, { estimatedSales: null }],
    });
    expect(
      toDomainWhere({
        not: [{ estimatedSales: { max: 10 }, platform: { values: ["wix"] } }, { rank: { min: 5 } }],
      }),
    ).toEqual({
      AND: [
        { OR: [{ platform: { notIn: ["wix"] } }, { OR: [{ NOT: range }, { estimatedSales: null }] }] },
        { OR: [{ NOT: { rank: { gte: 5 } } }, { rank: null }] },
      ],
    });
    // An empty term matches every Domain: its negation none, or at least one of them all.
    expect(toDomainWhere({ not: [{}] })).toEqual({ OR: [] });
    expect(toDomainWhere({ or: [{}, { rank: { min: 5 } }] })).toEqual({ OR: [{}, { rank: { gte: 5 } }] });
  });

  it("checks each term as and does, naming it", () => {
    const v = inputError(() => toDomainWhere({ or: [{}, { countryCode: { values: ["x"] } }] }));
    expect(v.argument).toBe("filter.or[1].countryCode.values");
    const r = inputError(() => toDomainWhere({ not: [{ rank: { min: 9, max: 1 } }] }));
    expect(r.argument).toBe("filter.not[0].rank");
    const x = inputError(() => toDomainWhere({ not: [{ countryCode: { values: ["US", "CA"] } }] }));
    expect(x.argument).toBe("filter.not[0].countryCode");
    const e = inputError(() => toDomainWhere({ or: [] }));
    expect([e.argument, e.problem]).toEqual(["filter.or", "must name at least one condition"]);
    const n = inputError(() => toDomainWhere({ not: Array(51).fill({ rank: { min: 1 } }) }));
    expect([n.argument, n.problem]).toEqual(["filter.not", "takes at most 50 conditions"]);
  });

  it("do not nest, in each other or in and", () => {
    const plan = { plan: { values: ["basic"] } };
    const cases: [DomainFilter, string, string][] = [
      [{ or: [{ not: [plan] }] }, "filter.or[0].not", "cannot be nested inside an or"],
      [{ not: [{ or: [plan] }] }, "filter.not[0].or", "cannot be nested inside a not"],
      [{ and: [{ not: [plan] }] }, "filter.and[0].not", "cannot be nested inside an and"],
      [{ or: [{ or: [plan] }] }, "filter.or[0].or", "cannot be nested inside another or"],
    ];
    for (const [filter, argument, problem] of cases) {
      const e = inputError(() => toDomainWhere(filter));
      expect([e.argument, e.problem]).toEqual([argument, problem]);
    }
  });

  it("requirements are met by a filter anywhere in it", () => {
    const city = { values: ["Berlin"] };
    expect(
      toDomainWhere({
        countryCode: { values: ["DE"] },
        or: [{ administrativeAreaLevel1: city }],
        not: [{ city }],
      }),
    ).toEqual({
      AND: [
        { countryCode: "DE" },
        { OR: [{ administrativeAreaLevel1: "Berlin" }] },
        { OR: [{ city: { notIn: ["Berlin"] } }, { city: null }] },
      ],
    });
    expect(inputError(() => toDomainWhere({ not: [{ city }] })).argument).toBe("filter.city");
  });
});

describe("toDomainWhere: event filters", () => {
  const since = day("2024-01-01");

  it("appInstalledAt and appUninstalledAt match one App's install or removal time", () => {
    expect(toDomainWhere({ appInstalledAt: { app: " Shopify.klaviyo ", min: since } })).toEqual({
      apps: {
        some: {
          appPk: new AppKey("shopify.klaviyo"),
          installedAt: { gte: new Date("2024-01-01T00:00:00Z") },
        },
      },
    });
    expect(toDomainWhere({ appUninstalledAt: { app: "wix.forms", max: day("2024-01-31") } })).toEqual({
      apps: {
        some: {
          appPk: new AppKey("wix.forms"),
          removedAt: { lt: new Date("2024-02-01T00:00:00Z") },
        },
      },
    });
  });

  it("technologyInstalledAt matches one technology", () => {
    expect(
      toDomainWhere({
        technologyInstalledAt: { technology: " React ", min: since, max: instant("2024-02-01T10:00:00Z") },
      }),
    ).toEqual({
      technologies: {
        some: {
          technologyPk: new TechnologyKey("React"),
          installedAt: { gte: new Date("2024-01-01T00:00:00Z"), lte: new Date("2024-02-01T10:00:00Z") },
        },
      },
    });
    const e = inputError(() => toDomainWhere({ technologyInstalledAt: { technology: " ", min: since } }));
    expect(e.argument).toBe("filter.technologyInstalledAt.technology");
    expect(e.problem).toBe("names the technology (exactly one)");
  });

  it.each([undefined, null, "", "   "])("rejects a missing app (%j)", (app) => {
    const e = inputError(() => toDomainWhere({ appInstalledAt: { app, min: since } }));
    expect(e.argument).toBe("filter.appInstalledAt.app");
    expect(e.problem).toBe("names the App, <platform>.<token> (exactly one)");
  });

  it("rejects a list of apps", () => {
    const e = inputError(() =>
      toDomainWhere({ appUninstalledAt: { app: "shopify.a,shopify.b", min: since } }),
    );
    expect(e.argument).toBe("filter.appUninstalledAt.app");
    expect(e.problem).toBe("takes exactly one App identifier, not a list");
  });

  it.each(["zzqx.klaviyo", "klaviyo", "shopify.", ".klaviyo"])("rejects app %j", (app) => {
    const e = inputError(() => toDomainWhere({ appInstalledAt: { app, min: since } }));
    expect(e.argument).toBe("filter.appInstalledAt.app");
    expect(e.problem).toBe(
      `"${app}" is not an App identifier <platform>.<token> with a known platform, e.g. shopify.klaviyo`,
    );
  });

  it("needs a bound and min ≤ max", () => {
    const e = inputError(() => toDomainWhere({ appInstalledAt: { app: "shopify.a" } }));
    expect(e.argument).toBe("filter.appInstalledAt");
    expect(e.problem).toBe("needs min, max or both");
    const f = inputError(() =>
      toDomainWhere({ appInstalledAt: { app: "shopify.a", min: day("2024-02-01"), max: day("2024-01-01") } }),
    );
    expect(f.argument).toBe("filter.appInstalledAt");
    expect(f.problem).toContain("is greater than max");
  });

  it("parseAppIdentifier keeps the token's case and dots", () => {
    expect(parseAppIdentifier("SHOPIFY.Klaviyo.v2")).toEqual({ platform: "shopify", token: "Klaviyo.v2" });
    expect(parseAppIdentifier("nope.x")).toHaveProperty("problem");
  });
});

describe("toAppWhere", () => {
  it("no filter is no condition", () => {
    expect(toAppWhere(null)).toEqual({});
    expect(toAppWhere({})).toEqual({});
  });

  it("list filters", () => {
    expect(toAppWhere({ platform: { values: ["Shopify"] } })).toEqual({ platform: "shopify" });
    expect(toAppWhere({ state: { values: ["inactive"] } })).toEqual({ state: "Inactive" });
    expect(toAppWhere({ vendorName: { values: ["Acme", "Beta"], op: "or" } })).toEqual({
      vendorName: { in: ["Acme", "Beta"] },
    });
    expect(toAppWhere({ vendorName: { values: ["Acme"], op: "not" } })).toEqual({
      vendorName: { notIn: ["Acme"] },
    });
    expect(toAppWhere({ vendorCountryCode: { values: ["us", "ca"], op: "not" } })).toEqual({
      OR: [{ vendorCountryCode: { notIn: ["US", "CA"] } }, { vendorCountryCode: null }],
    });
    expect(toAppWhere({ categories: { values: ["Marketing", "Sales"], op: "and" } })).toEqual({
      AND: [
        { categories: { some: { category: "Marketing" } } },
        { categories: { some: { category: "Sales" } } },
      ],
    });
  });

  it("ranges and combination", () => {
    expect(
      toAppWhere({ installs: { min: 10 }, reviewCount: { max: 5 }, platform: { values: ["wix"] } }),
    ).toEqual({ AND: [{ platform: "wix" }, { installs: { gte: 10 } }, { reviewCount: { lte: 5 } }] });
  });

  it("errors name the argument", () => {
    const s = inputError(() => toAppWhere({ state: { values: ["Removed"] } }));
    expect(s.argument).toBe("filter.state.values");
    expect(s.problem).toBe('unknown App state "Removed"; allowed: Active, Inactive');
    const v = inputError(() => toAppWhere({ vendorName: { values: ["Acme", "Beta"] } }, "appFilter"));
    expect(v.argument).toBe("appFilter.vendorName");
    expect(v.problem).toContain("a record has only one vendor name");
    const r = inputError(() => toAppWhere({ reviewCount: { min: 5, max: 1 } }));
    expect(r.argument).toBe("filter.reviewCount");
    expect(r.problem).toBe("min (5) is greater than max (1)");
    const c = inputError(() => toAppWhere({ vendorCountryCode: { values: ["usa"] } } satisfies AppFilter));
    expect(c.argument).toBe("filter.vendorCountryCode.values");
  });
});

describe("properties", () => {
  const LIST_NAMES = Object.keys(DOMAIN_LIST_FILTERS);
  const RANGE_NAMES = Object.keys(DOMAIN_RANGE_FILTERS);
  const pad = (n: number, w: number) => String(n).padStart(w, "0");

  const valueArb = fc.oneof(
    fc.string(),
    fc.string({ unit: "binary", maxLength: 8 }),
    fc.constantFrom(
      "DE",
      "de",
      "eur",
      "shopify",
      "Shopify.klaviyo",
      "nope.x",
      "active",
      "Password Protected",
      "Shopify POS",
      "dropshipper",
      "email",
      "2024-03",
      "Berlin",
      " ",
      "",
    ),
    // Strings shaped like dates and months, valid or not.
    fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
      )
      .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`),
    fc
      .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 99 }))
      .map(([y, m]) => `${pad(y, 4)}-${pad(m, 2)}`),
  );
  const opArb = fc.constantFrom<ListOp | null | undefined>("and", "or", "not", "nand", null, undefined);
  const listArb = fc.record({ values: fc.array(valueArb, { maxLength: 5 }), op: opArb });
  const dateArb = fc.oneof(
    fc.date({
      min: new Date("1990-01-01T00:00:00Z"),
      max: new Date("2040-01-01T00:00:00Z"),
      noInvalidDate: true,
    }),
    fc
      .date({
        min: new Date("1990-01-01T00:00:00Z"),
        max: new Date("2040-01-01T00:00:00Z"),
        noInvalidDate: true,
      })
      .map((d) => day(d.toISOString().slice(0, 10))),
  );
  const bound = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  const intRangeArb = fc.record({ min: bound(fc.maxSafeInteger()), max: bound(fc.maxSafeInteger()) });
  const timeRangeArb = fc.record({ min: bound(dateArb), max: bound(dateArb) });
  const textArb = fc.option(fc.oneof(valueArb, fc.constantFrom("shopify.a,wix.b", "React")), { nil: null });

  const entryArb = fc.oneof(
    fc.tuple(fc.constantFrom(...LIST_NAMES), listArb),
    fc.tuple(
      fc.constantFrom(...RANGE_NAMES),
      fc.oneof(intRangeArb, timeRangeArb) as fc.Arbitrary<Record<string, unknown>>,
    ),
    fc.tuple(
      fc.constantFrom("appInstalledAt", "appUninstalledAt", "technologyInstalledAt"),
      fc.record({ app: textArb, technology: textArb, min: bound(dateArb), max: bound(dateArb) }),
    ),
    fc.tuple(fc.constantFrom(...LIST_NAMES, ...RANGE_NAMES), fc.constant(null)),
  );
  const flatArb = fc
    .array(entryArb, { maxLength: 4 })
    .map((entries) => Object.fromEntries(entries) as Record<string, unknown>);
  const termsArb = fc.option(fc.array(flatArb, { maxLength: 3 }), { nil: undefined });
  const groupArb = fc.constantFrom("and", "or", "not");
  const filterArb = fc
    .tuple(flatArb, fc.record({ and: termsArb, or: termsArb, not: termsArb }), fc.nat(9), groupArb)
    .map(([top, groups, nest, inner]) => {
      const f: Record<string, unknown> = { ...top };
      for (const [group, terms] of Object.entries(groups)) {
        if (!terms) continue;
        // Now and then a group nested inside a term, which must be rejected.
        if (nest === 0 && terms.length > 0) terms[0] = { ...terms[0], [inner]: [{}] };
        f[group] = terms;
      }
      return f;
    }) as fc.Arbitrary<DomainFilter>;

  it("toDomainWhere returns an object or throws an InputError naming a filter argument", () => {
    fc.assert(
      fc.property(filterArb, (filter) => {
        let where: unknown;
        try {
          where = toDomainWhere(filter);
        } catch (e) {
          expect(e).toBeInstanceOf(InputError);
          expect((e as InputError).argument).toMatch(/^filter(\.|$)/);
          return;
        }
        expect(typeof where).toBe("object");
        expect(where).not.toBeNull();
      }),
      { numRuns: 2000 },
    );
  });

  it("fridayOf(d) is a Friday on or at most 6 days before d", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("0001-01-08T00:00:00Z"),
          max: new Date("9999-12-31T00:00:00Z"),
          noInvalidDate: true,
        }),
        (d) => {
          const date = d.toISOString().slice(0, 10);
          const friday = fridayOf(date);
          expect(friday).toMatch(/^\d{4}-\d{2}-\d{2}$/);
          const f = new Date(`${friday}T00:00:00Z`);
          const start = new Date(`${date}T00:00:00Z`);
          expect(f.getUTCDay()).toBe(5);
          const days = (start.getTime() - f.getTime()) / 86_400_000;
          expect(days).toBeGreaterThanOrEqual(0);
          expect(days).toBeLessThanOrEqual(6);
          expect(Number.isInteger(days)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
