import fc from "fast-check";
import { GraphQLError } from "graphql";
import { describe, expect, it } from "vitest";
import { statusOf } from "../../src/errors.ts";
import { APP_SORTS, DOMAIN_SORTS } from "../../src/query/sort.ts";
import { readFilter } from "../../src/rest/filter-options.ts";
import { APP_TABLES, CURSOR_PAGE, DOMAIN_QUERY, DOMAIN_TABLES } from "../../src/rest/inputs.ts";
import { parseAq, parseSort } from "../../src/rest/list-options.ts";
import { joinList, Options, splitList } from "../../src/rest/options.ts";
import { OPERATIONS } from "../../src/rest/routes.ts";

const readDomainQuery = (o: Options) => DOMAIN_QUERY.read(o, {});

// The REST options layer (docs/api.md 4, docs/decisions.md): comma lists with backslash escapes, `sort`
// with its aliases, `aq`, the `f:` filters and the option bag itself. Unit tests, no database.

/** The HTTP status an API error is answered with. */
const statusOfError = (e: GraphQLError) => statusOf(e.extensions.code as string);

/** Runs `fn`, expects an API error (400 unless told) and returns its message. */
function restError(fn: () => unknown, status = 400): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GraphQLError);
    expect(statusOfError(e as GraphQLError)).toBe(status);
    expect((e as GraphQLError).extensions.code).toBe(status === 400 ? "BAD_USER_INPUT" : expect.any(String));
    return (e as Error).message;
  }
  throw new Error("expected an API error");
}

const query = (q: string | Record<string, string>) => Options.fromQuery(new URLSearchParams(q));
const body = (b: Record<string, unknown>) => Options.fromBody(b);
const domainFilter = (q: string | Record<string, string>) => readFilter(query(q), DOMAIN_TABLES);
const appFilter = (q: string | Record<string, string>) => readFilter(query(q), APP_TABLES);

describe("joinList", () => {
  it("escapes a comma or backslash inside a value, so splitList reads the values back", () => {
    expect(joinList(["Home, Garden", "Toys"])).toBe("Home\\, Garden,Toys");
    expect(joinList(["a\\", "b"])).toBe("a\\\\,b");
    for (const values of [
      ["a", "b"],
      ["a,b,c"],
      [","],
      ["a\\", "b"],
      ["a\\,b"],
      ["\\"],
      ["a\\b", "c"],
      ["", "x"],
    ])
      expect(splitList(joinList(values)), JSON.stringify(values)).toEqual(values);
  });
});

describe("splitList", () => {
  it("splits on commas and trims the values", () => {
    expect(splitList("a,b,c")).toEqual(["a", "b", "c"]);
    expect(splitList(" a , b ")).toEqual(["a", "b"]);
    expect(splitList("single")).toEqual(["single"]);
    expect(splitList("")).toEqual([""]);
    expect(splitList("a,,b,")).toEqual(["a", "", "b", ""]);
  });

  it("a backslash escapes a literal comma", () => {
    expect(splitList("Home\\, Garden,Toys")).toEqual(["Home, Garden", "Toys"]);
    expect(splitList("a\\,b\\,c")).toEqual(["a,b,c"]);
    expect(splitList("\\,")).toEqual([","]);
  });

  it("a backslash escapes a backslash, so \\\\, ends a value with a backslash", () => {
    expect(splitList("a\\\\,b")).toEqual(["a\\", "b"]);
    expect(splitList("a\\\\\\,b")).toEqual(["a\\,b"]);
    expect(splitList("\\\\")).toEqual(["\\"]);
  });

  it("any other backslash is literal, a trailing one too", () => {
    expect(splitList("a\\b,c")).toEqual(["a\\b", "c"]);
    expect(splitList("a\\")).toEqual(["a\\"]);
    expect(splitList("C:\\temp")).toEqual(["C:\\temp"]);
  });

  it("escaping values and joining them with commas gives them back (property)", () => {
    const escapeValue = (v: string) => v.replace(/\\/g, "\\\\").replace(/,/g, "\\,");
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: "grapheme" }),
      fc.stringMatching(/^[a-z,\\ ]{0,12}$/),
      fc.constantFrom(",", "\\", "\\,", ",\\", "\\\\", " , ", "a\\"),
    );
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 8 }), (values) => {
        expect(splitList(values.map(escapeValue).join(","))).toEqual(values.map((v) => v.trim()));
      }),
      { numRuns: 500 },
    );
  });
});

describe("parseSort", () => {
  it("blank or absent is no sort (the default applies)", () => {
    expect(parseSort(undefined, DOMAIN_SORTS)).toBeUndefined();
    expect(parseSort("", DOMAIN_SORTS)).toBeUndefined();
    expect(parseSort("  ", DOMAIN_SORTS)).toBeUndefined();
  });

  it("maps every Domain sort name of docs/decisions.md, and the aliases er, pc, empc, mas", () => {
    const cases: [string, string][] = [
      ["rank", "RANK"],
      ["platform_rank", "PLATFORM_RANK"],
      ["created_at", "CREATED_AT"],
      ["estimated_sales", "ESTIMATED_SALES"],
      ["er", "ESTIMATED_SALES"],
      ["estimated_visits", "ESTIMATED_VISITS"],
      ["product_count", "PRODUCT_COUNT"],
      ["pc", "PRODUCT_COUNT"],
      ["employee_count", "EMPLOYEE_COUNT"],
      ["empc", "EMPLOYEE_COUNT"],
      ["monthly_app_spend", "MONTHLY_APP_SPEND"],
      ["mas", "MONTHLY_APP_SPEND"],
      ["last_plan_change_at", "LAST_PLAN_CHANGE_AT"],
      ["name", "NAME"],
    ];
    for (const [name, field] of cases) {
      expect(parseSort(name, DOMAIN_SORTS), name).toEqual([{ field, direction: "ASC" }]);
      expect(parseSort(`-${name}`, DOMAIN_SORTS), name).toEqual([{ field, direction: "DESC" }]);
    }
  });

  it("maps every App sort name of docs/api.md 4.3", () => {
    for (const [name, field] of [
      ["average_rating", "AVERAGE_RATING"],
      ["created_at", "CREATED_AT"],
      ["installs", "INSTALLS"],
      ["removed_at", "REMOVED_AT"],
      ["reviews", "REVIEWS"],
    ]) {
      expect(parseSort(`-${name}`, APP_SORTS)).toEqual([{ field, direction: "DESC" }]);
    }
  });

  it("takes several comma-separated fields, with spaces, and + for ascending", () => {
    expect(parseSort("-er, name ,+pc", DOMAIN_SORTS)).toEqual([
      { field: "ESTIMATED_SALES", direction: "DESC" },
      { field: "NAME", direction: "ASC" },
      { field: "PRODUCT_COUNT", direction: "ASC" },
    ]);
  });

  it("an unknown name is a 400 that names it and lists the valid ones", () => {
    const m = restError(() => parseSort("rank,-bogus", DOMAIN_SORTS));
    expect(m).toContain('"bogus"');
    expect(m.startsWith("sort: ")).toBe(true);
    for (const v of ["rank", "platform_rank", "er", "pc", "empc", "mas", "name", "last_plan_change_at"]) {
      expect(m).toContain(v);
    }
    // Domain names are not App names, and the other way round.
    expect(restError(() => parseSort("er", APP_SORTS))).toContain("installs, average_rating");
    expect(restError(() => parseSort("installs", DOMAIN_SORTS))).toContain('"installs"');
  });

  it("empty items, a lone -, and case variants are refused", () => {
    for (const s of ["-", ",", "rank,", "RANK", "--rank", "- rank"]) {
      expect(() => parseSort(s, DOMAIN_SORTS), s).toThrow(GraphQLError);
    }
  });

  it("names the option it is given", () => {
    expect(restError(() => parseSort("x", DOMAIN_SORTS, "order"))).toMatch(/^order: /);
  });
});

describe("parseAq", () => {
  const aq = (raw: unknown) => parseAq(raw, DOMAIN_TABLES);

  it("an empty list is no condition", () => {
    expect(aq([])).toEqual({ and: [], q: [] });
  });

  it("maps the operators and (default), or, nand and nor onto list ops", () => {
    expect(aq([{ field: "cat", value: "/A,/B" }]).and).toEqual([
      { categories: { values: ["/A", "/B"], op: "AND" } },
    ]);
    expect(aq([{ field: "cat", value: "/A,/B", operator: "and" }]).and).toEqual([
      { categories: { values: ["/A", "/B"], op: "AND" } },
    ]);
    expect(aq([{ field: "cc", value: "US,DE", operator: "or" }]).and).toEqual([
      { countryCode: { values: ["US", "DE"], op: "OR" } },
    ]);
    expect(aq([{ field: "tags", value: "Dropshipper", operator: "nand" }]).and).toEqual([
      { tags: { values: ["Dropshipper"], op: "NAND" } },
    ]);
    expect(aq([{ field: "features", value: "Shopify POS", operator: "nor" }]).and).toEqual([
      { features: { values: ["Shopify POS"], op: "NOT" } },
    ]);
    expect(aq([{ field: "cc", value: "US", operator: "OR" }]).and).toEqual([
      { countryCode: { values: ["US"], op: "OR" } },
    ]);
  });

  it("keeps each condition apart, in order, so that a filter can repeat", () => {
    expect(
      aq([
        { field: "cat", value: "/A", operator: "and" },
        { field: "cat", value: "/B", operator: "nor" },
      ]).and,
    ).toEqual([{ categories: { values: ["/A"], op: "AND" } }, { categories: { values: ["/B"], op: "NOT" } }]);
  });

  it("escapes commas in values as f: options do", () => {
    expect(aq([{ field: "cat", value: "Home\\, Garden,Toys" }]).and).toEqual([
      { categories: { values: ["Home, Garden", "Toys"], op: "AND" } },
    ]);
  });

  it("q conditions are collected as search words", () => {
    expect(
      aq([
        { field: "q", value: "boots" },
        { field: "q", value: "tents" },
      ]),
    ).toEqual({
      and: [],
      q: ["boots", "tents"],
    });
    expect(restError(() => aq([{ field: "q", value: "boots", operator: "or" }]))).toContain("aq[0].operator");
  });

  it("range bounds such as ermin and ermax take a number or a numeric string", () => {
    expect(aq([{ field: "ermin", value: 100 }]).and).toEqual([{ estimatedSales: { min: 100, max: null } }]);
    expect(aq([{ field: "ermax", value: "200" }]).and).toEqual([{ estimatedSales: { min: null, max: 200 } }]);
    expect(
      aq([
        { field: "rankmin", value: "1" },
        { field: "rankmax", value: 5 },
      ]).and,
    ).toEqual([{ rank: { min: 1, max: null } }, { rank: { min: null, max: 5 } }]);
    expect(aq([{ field: "cratmin", value: "2020-01-01" }]).and).toEqual([
      { createdAt: { min: "2020-01-01", max: null } },
    ]);
    expect(aq([{ field: "last_plan_change_at:max", value: "2022-01-01" }]).and).toEqual([
      { lastPlanChangeAt: { min: null, max: "2022-01-01" } },
    ]);
    expect(restError(() => aq([{ field: "ermin", value: "lots" }]))).toContain("f:ermin");
    expect(restError(() => aq([{ field: "ermin", value: 1, operator: "or" }]))).toContain("aq[0].operator");
  });

  it("an unknown field is a 400 naming it and listing the valid ones", () => {
    const m = restError(() =>
      aq([
        { field: "cc", value: "US" },
        { field: "bogus", value: "x" },
      ]),
    );
    expect(m).toContain("aq[1].field");
    expect(m).toContain('"bogus"');
    for (const v of ["q", "cc", "cat", "ermin", "ermax", "an"]) expect(m).toContain(v);
    // The f: prefix is not part of the name, and the event filters need a range, not one value.
    expect(restError(() => aq([{ field: "f:cc", value: "US" }]))).toContain('"f:cc"');
    expect(restError(() => aq([{ field: "app_installed_at", value: "shopify.klaviyo" }]))).toContain(
      "aq[0].field",
    );
  });

  it("a bad operator is a 400 naming it", () => {
    for (const operator of ["not", "xor", "", 1, null]) {
      const m = restError(() => aq([{ field: "cc", value: "US", operator }]));
      expect(m, String(operator)).toContain("aq[0].operator");
      expect(m).toContain("and, or, nand or nor");
    }
  });

  it("an aq that is not an array, or conditions that are not objects, are refused", () => {
    for (const raw of ["cc=US", { field: "cc", value: "US" }, 1, null, true]) {
      expect(
        restError(() => aq(raw)),
        JSON.stringify(raw),
      ).toContain("aq: must be an array");
    }
    for (const c of ["x", 1, null, ["cc", "US"]]) {
      expect(restError(() => aq([c]))).toContain("aq[0]: must be an object");
    }
  });

  it("missing or wrong field and value, and unknown keys, are refused", () => {
    expect(restError(() => aq([{ value: "US" }]))).toContain("aq[0].field");
    expect(restError(() => aq([{ field: "", value: "US" }]))).toContain("aq[0].field");
    expect(restError(() => aq([{ field: 3, value: "US" }]))).toContain("aq[0].field");
    expect(restError(() => aq([{ field: "cc" }]))).toContain("aq[0].value");
    expect(restError(() => aq([{ field: "cc", value: ["US"] }]))).toContain("aq[0].value");
    expect(restError(() => aq([{ field: "cc", value: "US", op: "or" }]))).toContain('unknown key "op"');
  });

  it("takes at most 50 conditions", () => {
    const c = { field: "cc", value: "US" };
    expect(aq(Array(50).fill(c)).and).toHaveLength(50);
    expect(restError(() => aq(Array(51).fill(c)))).toContain("at most 50");
  });
});

describe("aq in the query string", () => {
  /** readDomainQuery's answer, or its error's status and message. */
  const outcome = (o: () => Options) => {
    try {
      return { ok: readDomainQuery(o()) };
    } catch (e) {
      if (!(e instanceof GraphQLError)) throw e;
      return { status: statusOfError(e), code: e.extensions.code, error: e.message };
    }
  };
  const viaGet = (aq: string, rest: Record<string, string> = {}) => outcome(() => query({ ...rest, aq }));
  // What a POST body carrying `aq` as JSON parses to.
  const viaPost = (aq: unknown, rest: Record<string, string> = {}) =>
    outcome(() => body(JSON.parse(JSON.stringify({ ...rest, aq }))));

  it("takes the URL-encoded JSON of a POST body's aq, and translates it the same way", () => {
    const conditions = [
      { field: "cc", value: "US", operator: "and" },
      { field: "tags", value: "Dropshipper", operator: "nor" },
      { field: "q", value: "boots" },
    ];
    const params = new URLSearchParams({ aq: JSON.stringify(conditions), q: "red" }).toString();
    expect(params).toContain("aq=%5B%7B%22field%22");
    const got = readDomainQuery(Options.fromQuery(new URLSearchParams(params)));
    expect(got).toEqual({
      filter: {
        and: [
          { countryCode: { values: ["US"], op: "AND" } },
          { tags: { values: ["Dropshipper"], op: "NOT" } },
        ],
      },
      orderBy: undefined,
      search: "red boots",
    });
    expect(viaPost(conditions, { q: "red" })).toEqual({ ok: got });
  });

  it("blank is absent, like every other option", () => {
    expect(viaGet("")).toEqual(viaGet("[]"));
    expect(viaGet(" ")).toEqual({ ok: readDomainQuery(query({})) });
  });

  it("malformed JSON is a 400 naming aq and saying it is not JSON", () => {
    for (const raw of ["[{", "[{field:'cc'}]", "cc=US", "[1,]", '{"field":"cc"', "%5B%5D", "undefined"]) {
      const got = viaGet(raw);
      expect(got, raw).toMatchObject({ status: 400, code: "BAD_USER_INPUT" });
      expect((got as { error: string }).error, raw).toMatch(/^aq: must be JSON /);
    }
  });

  it("any JSON answers as it does in a POST body: the same filter, or the same error (property)", () => {
    const leaf = fc.oneof(
      fc.constantFrom("cc", "tags", "ermin", "cratmin", "q", "an", "bogus", "", "and", "nor", "nand", "OR"),
      fc.constantFrom("US", "US,DE", "Dropshipper", "10", "2020-01-01", "shopify.klaviyo", "x\\,y"),
      fc.string({ maxLength: 6 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
    );
    const condition = fc.record(
      { field: leaf, value: leaf, operator: leaf, extra: leaf },
      { requiredKeys: [] },
    );
    const aqValue = fc.oneof(
      { weight: 4, arbitrary: fc.array(condition, { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.array(fc.oneof(condition, leaf), { maxLength: 3 }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    );
    const others = fc.record(
      { q: fc.constantFrom("", "boots"), "f:cc": fc.constantFrom("", "DE") },
      {
        requiredKeys: [],
      },
    );
    fc.assert(
      fc.property(aqValue, others, (aq, rest) => {
        expect(viaGet(JSON.stringify(aq), rest)).toEqual(viaPost(aq, rest));
      }),
      { numRuns: 1000 },
    );
  });

  it("an aq given twice is a 400, as any option", () => {
    expect(() => Options.fromQuery(new URLSearchParams("aq=[]&aq=[]"))).toThrow(/aq: given 2 times/);
  });
});

describe("readFilter", () => {
  it("no options, or blank ones, are no filter", () => {
    expect(domainFilter("")).toEqual({});
    expect(domainFilter({ "f:cc": "", "f:cc:op": "", "f:ermin": "", "f:cratmax": " " })).toEqual({});
    expect(domainFilter({ "f:app_installed_at": "", "f:app_installed_at:min": "" })).toEqual({});
    expect(appFilter({ "f:categories": "  ", "f:icmin": "" })).toEqual({});
  });

  it("list options become {values, op}, split on unescaped commas", () => {
    expect(domainFilter({ "f:cc": "US" })).toEqual({ countryCode: { values: ["US"], op: "AND" } });
    expect(domainFilter({ "f:cc": "US,DE", "f:cc:op": "or" })).toEqual({
      countryCode: { values: ["US", "DE"], op: "OR" },
    });
    expect(domainFilter({ "f:cat": "/A\\,B,/C", "f:cat:op": " NOT " })).toEqual({
      categories: { values: ["/A,B", "/C"], op: "NOT" },
    });
    expect(appFilter({ "f:categories": "Marketing", "f:p": "shopify", "f:p:op": "or" })).toEqual({
      categories: { values: ["Marketing"], op: "AND" },
      platform: { values: ["shopify"], op: "OR" },
    });
  });

  it(":op without its filter is a 400", () => {
    expect(restError(() => domainFilter({ "f:cc:op": "or" }))).toBe("f:cc:op: is given without f:cc");
    expect(restError(() => appFilter({ "f:p:op": "and", "f:p": " " }))).toContain("f:p:op");
  });

  it("a bad op is a 400; nand belongs to aq only", () => {
    for (const op of ["xor", "nand", "nor", "&&"]) {
      const m = restError(() => domainFilter({ "f:cc": "US", "f:cc:op": op }));
      expect(m).toContain("f:cc:op");
      expect(m).toContain("and, or or not");
    }
  });

  it("integer bounds: either or both, inclusive, blank means open", () => {
    expect(domainFilter({ "f:ermin": "100" })).toEqual({ estimatedSales: { min: 100, max: null } });
    expect(domainFilter({ "f:ermax": "200" })).toEqual({ estimatedSales: { min: null, max: 200 } });
    expect(domainFilter({ "f:empcmin": "1", "f:empcmax": "10", "f:pcmin": "" })).toEqual({
      employeeCount: { min: 1, max: 10 },
    });
    expect(domainFilter({ "f:masmin": "-5" })).toEqual({ monthlyAppSpend: { min: -5, max: null } });
    expect(appFilter({ "f:icmin": "0", "f:rcmax": "7" })).toEqual({
      installs: { min: 0, max: null },
      reviewCount: { min: null, max: 7 },
    });
  });

  it("a bound that is not a safe integer is a 400 naming it", () => {
    for (const v of ["abc", "1.5", "1e3", "0x10", "99999999999999999999", "--1"]) {
      const m = restError(() => domainFilter({ "f:ermin": v }));
      expect(m, v).toContain("f:ermin: must be an integer");
    }
  });

  it("date bounds take dates and RFC 3339 timestamps", () => {
    expect(domainFilter({ "f:cratmin": "2020-01-01", "f:cratmax": "2021-01-01T00:00:00Z" })).toEqual({
      createdAt: { min: "2020-01-01", max: "2021-01-01T00:00:00Z" },
    });
    expect(domainFilter({ "f:last_platform_change_at:max": " 2022-05-06 " })).toEqual({
      lastPlatformChangeAt: { min: null, max: "2022-05-06" },
    });
  });

  it("a bad date is a 400 naming the option", () => {
    for (const v of ["yesterday", "2020-13-01", "2020-02-30", "20200101", "2020-01-01T25:00:00Z"]) {
      const m = restError(() => domainFilter({ "f:cratmin": v }));
      expect(m, v).toContain("f:cratmin: must be a date");
    }
    expect(restError(() => domainFilter({ "f:last_plan_change_at:min": "soon" }))).toContain(
      "f:last_plan_change_at:min",
    );
  });

  it("event filters: one subject with :min, :max or both", () => {
    expect(
      domainFilter({ "f:app_installed_at": "shopify.klaviyo", "f:app_installed_at:min": "2020-01-01" }),
    ).toEqual({ appInstalledAt: { app: "shopify.klaviyo", min: "2020-01-01", max: null } });
    expect(
      domainFilter({
        "f:app_uninstalled_at": " shopify.old-reviews ",
        "f:app_uninstalled_at:min": "",
        "f:app_uninstalled_at:max": "2024-01-01",
      }),
    ).toEqual({ appUninstalledAt: { app: "shopify.old-reviews", min: null, max: "2024-01-01" } });
    expect(
      domainFilter({
        "f:tech_installed_at": "Google Analytics",
        "f:tech_installed_at:min": "2019-01-01",
        "f:tech_installed_at:max": "2021-01-01T00:00:00Z",
      }),
    ).toEqual({
      technologyInstalledAt: {
        technology: "Google Analytics",
        min: "2019-01-01",
        max: "2021-01-01T00:00:00Z",
      },
    });
  });

  it("an event filter without bounds, or bounds without a subject, is a 400", () => {
    expect(restError(() => domainFilter({ "f:app_installed_at": "shopify.klaviyo" }))).toBe(
      "f:app_installed_at: needs f:app_installed_at:min, f:app_installed_at:max or both",
    );
    expect(
      restError(() =>
        domainFilter({
          "f:app_installed_at": "shopify.klaviyo",
          "f:app_installed_at:min": "",
          "f:app_installed_at:max": " ",
        }),
      ),
    ).toContain("needs");
    expect(restError(() => domainFilter({ "f:app_uninstalled_at:max": "2020-01-01" }))).toContain(
      "f:app_uninstalled_at: names the app",
    );
    expect(restError(() => domainFilter({ "f:tech_installed_at:min": "2020-01-01" }))).toContain(
      "names the technology",
    );
    expect(
      restError(() =>
        domainFilter({ "f:app_installed_at": "shopify.klaviyo", "f:app_installed_at:min": "x" }),
      ),
    ).toContain("f:app_installed_at:min: must be a date");
  });

  it("reads from a JSON body too: numbers for integer bounds", () => {
    expect(readFilter(body({ "f:ermin": 5, "f:cc": "US" }), DOMAIN_TABLES)).toEqual({
      countryCode: { values: ["US"], op: "AND" },
      estimatedSales: { min: 5, max: null },
    });
    expect(restError(() => readFilter(body({ "f:ermin": 1.5 }), DOMAIN_TABLES))).toContain("f:ermin");
    expect(restError(() => readFilter(body({ "f:cc": ["US"] }), DOMAIN_TABLES))).toBe(
      "f:cc: must be a string",
    );
  });
});

describe("Options", () => {
  it("a query parameter given twice is a 400 naming it", () => {
    expect(restError(() => query("page=1&page=2"))).toBe("page: given 2 times; give it once");
    expect(restError(() => query("f:cc=US&f:cc=US&f:cc=DE"))).toContain("f:cc: given 3 times");
  });

  it("a body must be a JSON object", () => {
    for (const b of [null, [], [1], "x", 1, true]) {
      expect(
        restError(() => Options.fromBody(b)),
        JSON.stringify(b),
      ).toBe("the request body must be a JSON object of options");
    }
    expect(Options.fromBody({}).keys()).toEqual([]);
    // A JSON option is the body's value itself, and the query string's text parsed.
    expect(Options.fromBody({ aq: "[]" }).json("aq")).toBe("[]");
    expect(query("aq=[]").json("aq")).toEqual([]);
  });

  it("string options accept body numbers and booleans as their text, nothing else", () => {
    const o = body({ a: "x", n: 5, b: false, nul: null, arr: ["x"], obj: {} });
    expect(o.string("a")).toBe("x");
    expect(o.string("n")).toBe("5");
    expect(o.string("b")).toBe("false");
    expect(o.string("nul")).toBeUndefined();
    expect(o.string("missing")).toBeUndefined();
    expect(restError(() => o.string("arr"))).toBe("arr: must be a string");
    expect(restError(() => o.string("obj"))).toBe("obj: must be a string");
  });

  it("integer options: blank is absent, bounds are checked and named", () => {
    const o = query({ a: "", b: " 7 ", c: "0", d: "51", e: "-1", f: "x", g: "1.0" });
    expect(o.int("a")).toBeUndefined();
    expect(o.int("missing")).toBeUndefined();
    expect(o.int("b")).toBe(7);
    expect(o.int("c", { min: 0 })).toBe(0);
    expect(restError(() => o.int("c", { min: 1 }))).toBe("c: must be at least 1; got 0");
    expect(restError(() => o.int("d", { max: 50 }))).toBe("d: must be at most 50; got 51");
    expect(restError(() => o.int("e", { min: 0 }))).toBe("e: must be at least 0; got -1");
    expect(restError(() => o.int("f"))).toBe('f: must be an integer; got "x"');
    expect(restError(() => o.int("g"))).toContain("g: must be an integer");
    expect(body({ n: 3 }).int("n")).toBe(3);
    expect(restError(() => body({ n: 2 ** 60 }).int("n"))).toContain("must be an integer");
    expect(restError(() => body({ n: true }).int("n"))).toContain("must be an integer");
  });

  it("boolean options take true/false/1/0", () => {
    const o = query({ t: "true", f: "false", one: "1", zero: "0", blank: "", bad: "yes" });
    expect(o.bool("t")).toBe(true);
    expect(o.bool("one")).toBe(true);
    expect(o.bool("f")).toBe(false);
    expect(o.bool("zero")).toBe(false);
    expect(o.bool("blank")).toBeUndefined();
    expect(restError(() => o.bool("bad"))).toBe('bad: must be true or false; got "yes"');
    expect(body({ b: true }).bool("b")).toBe(true);
  });

  it("add, has, keys and raw", () => {
    const o = body({ domains: ["a.com"] });
    o.add("fields", "name");
    expect(o.has("fields")).toBe(true);
    expect(o.keys()).toEqual(["domains", "fields"]);
    expect(o.raw("domains")).toEqual(["a.com"]);
    // What is added comes from the query string of a POST: a JSON option is its text, parsed.
    o.add("aq", '[{"field":"cc","value":"US"}]');
    expect(o.json("aq")).toEqual([{ field: "cc", value: "US" }]);
    expect(o.json("domains")).toEqual(["a.com"]);
  });

  describe("dry_run", () => {
    const optionsOf = (id: string) => OPERATIONS.find((op) => op.id === id)?.options.map((o) => o.name) ?? [];

    it("is an option of the whole answers only: Export Domains and List Domains (cursor=all)", () => {
      const having = OPERATIONS.filter((op) => op.options.some((o) => o.name === "dry_run")).map(
        (op) => op.id,
      );
      expect(having.sort()).toEqual(["exportDomains", "listDomains", "searchDomains"]);
      expect(
        OPERATIONS.find((op) => op.id === "exportDomains")?.options.find((o) => o.name === "dry_run")?.type,
      ).toBe("boolean");
      expect(restError(() => query("dry_run=true").refuseUnknown(optionsOf("listApps")))).toMatch(
        /^unknown option "dry_run"/,
      );
    });

    it("takes true/false/1/0, and is refused on a page of List Domains (not cursor=all)", () => {
      for (const [text, value] of [
        ["true", true],
        ["1", true],
        ["false", false],
        ["0", false],
        ["", undefined],
      ] as const)
        expect(query(`dry_run=${text}`).bool("dry_run")).toBe(value);
      expect(restError(() => query("dry_run=yes").bool("dry_run"))).toBe(
        'dry_run: must be true or false; got "yes"',
      );
      expect(restError(() => CURSOR_PAGE.read(query("dry_run=true"), {}))).toBe(
        "dry_run: applies only with cursor=all",
      );
      expect(restError(() => CURSOR_PAGE.read(query("dry_run=false"), {}))).toBe(
        "dry_run: applies only with cursor=all",
      );
      expect(CURSOR_PAGE.read(query("dry_run="), {})).toEqual({ first: 50, after: null });
    });
  });

  describe("refuseUnknown", () => {
    const valid = ["fields", "page", "f:cc", "f:cc:op"];

    it("accepts known options", () => {
      expect(() => query("fields=name&f:cc=US").refuseUnknown(valid)).not.toThrow();
      expect(() => query("").refuseUnknown([])).not.toThrow();
    });

    it("an unknown option is a 400 naming it and listing the valid ones", () => {
      expect(restError(() => query("bogus=1&page=1").refuseUnknown(valid))).toBe(
        'unknown option "bogus"; valid options: fields, page, f:cc, f:cc:op',
      );
    });

    it("says filter for unknown f: keys", () => {
      expect(restError(() => query("f:ccc=US").refuseUnknown(valid))).toBe(
        'unknown filter "f:ccc"; valid options: fields, page, f:cc, f:cc:op',
      );
      expect(restError(() => query("f:x=1&f:y=2").refuseUnknown(valid))).toMatch(
        /^unknown filters "f:x", "f:y";/,
      );
    });

    it("names every unknown option", () => {
      expect(restError(() => query("f:x=1&nope=2").refuseUnknown(valid))).toMatch(
        /^unknown options "f:x", "nope"; valid options: /,
      );
    });

    it("is case-sensitive, and refuses body keys as query keys", () => {
      expect(restError(() => query("Fields=name").refuseUnknown(valid))).toContain('"Fields"');
      expect(restError(() => body({ PAGE: 1 }).refuseUnknown(valid))).toContain('"PAGE"');
      expect(restError(() => body({ __proto__x: 1 }).refuseUnknown(valid))).toContain('"__proto__x"');
    });
  });
});
