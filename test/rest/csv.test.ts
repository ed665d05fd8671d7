import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvField, domainCsvPlan } from "../../src/export/csv.ts";
import { parseCsv } from "../support/csv.ts";

/**
 * The CSV of `for=csv` (src/export/csv.ts; docs/api.md 4.7, "CSV"): its columns from the `fields`
 * selection, its values from a Domain's legacy JSON, quoted as RFC 4180 says. The whole path, both
 * databases, is test/rest/export-csv.test.ts.
 */

const domain = {
  name: "shop.example.com",
  title: 'Tents, "boots"\r\nand\nmore — ünïcødé 🏕',
  rank: 10,
  latitude: 37.79,
  categories: ["/Sports/Outdoor", "/Home"],
  alternates: { "de-DE": "de.example.com", "fr-FR": "fr.example.com" },
  theme: { name: "Dawn", cost: 18000 },
  apps: [
    {
      name: "Klaviyo",
      installed_at: "2021-01-01T00:00:00Z",
      categories: ["Marketing", "Email"],
      plans: [{ name: "Free" }, { name: "Pro", monthly_cost_cents: 2000 }],
    },
    {
      name: "Old, Reviews",
      installed_at: "2019-01-01T00:00:00Z",
      removed_at: "2023-01-01T00:00:00Z",
      categories: [],
      plans: [],
    },
  ],
};

describe("the CSV of a Domain selection", () => {
  it("has a column per selected leaf, dotted, in the order of fields and of each nested selection", () => {
    const plan = domainCsvPlan(
      "name,theme.name,theme.cost,apps.name,apps.removed_at,apps.plans.name,alternates,rank",
    );
    expect(plan.columns).toEqual([
      "name",
      "theme.name",
      "theme.cost",
      "apps.name",
      "apps.removed_at",
      "apps.plans.name",
      "alternates",
      "rank",
    ]);
    expect(plan.header).toBe(
      "name,theme.name,theme.cost,apps.name,apps.removed_at,apps.plans.name,alternates,rank\r\n",
    );
  });

  it("joins lists with ;, aligns the entries of a list of objects, and joins lists inside them with |", () => {
    const plan = domainCsvPlan(
      "name,categories,apps.name,apps.removed_at,apps.categories,apps.plans.name,apps.plans.monthly_cost_cents,alternates,latitude,theme",
    );
    const [header, row] = parseCsv(plan.header + plan.row(domain));
    expect(Object.fromEntries(header.map((h, i) => [h, row[i]]))).toEqual({
      name: "shop.example.com",
      categories: "/Sports/Outdoor;/Home",
      "apps.name": "Klaviyo;Old, Reviews",
      "apps.removed_at": ";2023-01-01T00:00:00Z",
      "apps.categories": "Marketing|Email;",
      "apps.plans.name": "Free|Pro;",
      "apps.plans.monthly_cost_cents": "|2000;",
      alternates: "de-DE=de.example.com;fr-FR=fr.example.com",
      latitude: "37.79",
      // theme named alone is its default sub-fields; the unknown ones are empty.
      "theme.name": "Dawn",
      "theme.style": "",
      "theme.vendor": "",
      "theme.version": "",
      "theme.cost": "18000",
    });
  });

  it("leaves unknown values empty, and writes a Domain with nothing but its name", () => {
    const plan = domainCsvPlan("name,rank,apps.name,theme.name,categories");
    expect(plan.row({ name: "bare.example.com" })).toBe("bare.example.com,,,,\r\n");
  });

  it("quotes as RFC 4180: commas, quotes, CR and LF; other text as it is", () => {
    const plan = domainCsvPlan("name,title,rank");
    expect(plan.row(domain)).toBe('shop.example.com,"Tents, ""boots""\r\nand\nmore — ünïcødé 🏕",10\r\n');
    expect(csvField("plain text; with | separators")).toBe("plain text; with | separators");
    expect(csvField("")).toBe("");
    expect(csvField('"')).toBe('""""');
  });

  it("reads back, through a strict RFC 4180 parser, every string a field can hold", () => {
    const plan = domainCsvPlan("title,name,collections");
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.string({ unit: fc.constantFrom("a", ",", '"', "\r", "\n", " ", "é", "🏕") }),
        fc.array(
          fc.string({ unit: fc.constantFrom("x", ",", '"', "\n") }).filter((s) => !s.includes(";")),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        (title, name, collections) => {
          const text = plan.header + plan.row({ title, name, collections });
          expect(parseCsv(text)).toEqual([
            ["title", "name", "collections"],
            [title, name, collections.join(";")],
          ]);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("has a column for every default field, nested ones dotted", () => {
    const columns = domainCsvPlan("").columns;
    expect(columns.length).toBeGreaterThan(100);
    expect(new Set(columns).size).toBe(columns.length);
    expect(columns.slice(0, 3)).toEqual(["name", "tld1", "state"]);
    for (const c of ["theme.name", "contact_info.type", "technologies.name", "apps.name", "apps.plans.name"])
      expect(columns).toContain(c);
  });
});
