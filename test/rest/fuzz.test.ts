import type { NonSharedBuffer } from "node:buffer";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { APP_SORTS, DOMAIN_SORTS } from "../../src/query/sort.ts";
import { OPERATIONS } from "../../src/rest/routes.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { insert, inserts, UNPAIRED } from "../support/control-text.ts";
import { databaseKinds } from "../support/databases.ts";
import { type Wrapping, wrap, wrapping } from "../support/encodings.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { errorLines, logged } from "../support/logs.ts";

// Random requests at every REST route (src/rest/routes.ts) and at random paths under the base:
// option names from the route's own list mixed with junk, values with unicode, commas,
// backslashes, huge numbers and blanks, random JSON bodies for the POST routes, sent plain,
// compressed, mislabelled, cut short, under a Content-Encoding refused, or as a decompression bomb
// (test/support/encodings.ts). Whatever comes in,
// the answer is never a server fault, and every error is JSON `{error, code}` (docs/decisions.md,
// Errors). `cursor=all` answers 202 while its job runs; export answers JSON Lines.
//
// Path segments are always validly percent-encoded here: errors.test.ts pins a malformed escape
// (a 400) on its own.

const BASE = "http://localhost/json/api/v1/all";

vi.mock("../../src/logger.ts", async (original) =>
  (await import("../support/logs.ts")).capturingLogger(await original(), "warn"),
);
const RUNS = 150;

const optionNames = (...ids: string[]) => [
  ...new Set(OPERATIONS.filter((r) => ids.includes(r.id)).flatMap((r) => r.options.map((o) => o.name))),
];

/** encodeURIComponent, for strings with lone surrogates too. */
const enc = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, "?"));
  }
};

// ------------------------------------------------------------------ arbitraries

const junk = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.stringMatching(/^[a-z0-9,\\\-.*: %]{0,16}$/),
);

const SPECIAL = [
  "",
  " ",
  ",",
  ",,",
  "\\",
  "\\,",
  "a\\,b",
  "a\\\\,b",
  "-",
  "+",
  "*",
  ".",
  "..",
  "%",
  "%%",
  "%25",
  "null",
  "undefined",
  "true",
  "false",
  "0",
  "-0",
  "-1",
  "1",
  "1.5",
  "50",
  "51",
  "200",
  "201",
  "1000",
  "1001",
  "1e3",
  "1e309",
  "99999999999999999999",
  "9007199254740991",
  "9007199254740993",
  "-9007199254740993",
  "2147483648",
  "NaN",
  "Infinity",
  "0x10",
  "2020-01-01",
  "2020-02-30",
  "0000-01-01",
  "0001-01-01T00:00:00Z",
  "9999-12-31",
  "+275760-09-13",
  "2020-01-01T00:00:00+25:00",
  "2020-01",
  "2020-13",
  "all",
  "jsonl",
  "json",
  "and",
  "or",
  "not",
  "nand",
  "nor",
  "AND",
  "shopify",
  "custom",
  "shopify.klaviyo",
  "shopify.klaviyo,shopify.old-reviews",
  "woocommerce.woo-seo",
  "US",
  "US,DE",
  "us",
  "USD",
  "en",
  "California",
  "San Francisco",
  "Active",
  "Inactive",
  "Password Protected",
  "Redirect",
  "Shopify POS",
  "Trending on TikTok",
  "email",
  "Google Analytics",
  "Dawn",
  "Marketing",
  "/Sports/Outdoor",
  "shop.example.com",
  "é,ü",
  "🙂,🙂",
  "\u0000",
  "\u202e",
  "a".repeat(300),
  "x,".repeat(1200),
  "'; DROP TABLE domain; --",
  "<script>",
  "[]",
  "{}",
];

const FIELD_PARTS = [
  "*",
  "name",
  "id",
  "plans",
  "plans.name",
  "plans.*",
  "apps",
  "apps.name",
  "apps.installed_at",
  "apps.removed_at",
  "apps.plans.monthly_cost",
  "apps.installs_time_series",
  "app",
  "app.name",
  "app.installs_time_series",
  "domains",
  "domains.name",
  "description_long",
  "installs_time_series",
  "installs_time_series.date",
  "most_recently_published_product",
  "theme.name",
  "contact_info.type",
  "technologies",
  "trustpilot.avg_rating",
  "alternates",
  "keywords",
  "rating",
  "updated_at",
  "nope",
  "name.x",
  "*.x",
  "a..b",
  "",
  " ",
];
const SORT_NAMES = [
  ...Object.values(DOMAIN_SORTS).flatMap((s) => s.legacy),
  ...Object.values(APP_SORTS).flatMap((s) => s.legacy),
  "updated_at",
  "bogus",
  "",
];

const fieldsValue = fc.array(fc.constantFrom(...FIELD_PARTS), { maxLength: 6 }).map((a) => a.join(","));
const sortValue = fc
  .array(fc.tuple(fc.constantFrom("", "-", "+", "--", " "), fc.constantFrom(...SORT_NAMES)), { maxLength: 6 })
  .map((a) => a.map(([d, n]) => `${d}${n}`).join(","));
const listValue = fc
  .array(fc.oneof(fc.constantFrom(...SPECIAL), junk), { maxLength: 4 })
  .map((a) => a.join(","));

/** A string option value. */
const value = (extra: string[] = []) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...SPECIAL, ...extra) },
    { weight: 3, arbitrary: junk },
    { weight: 2, arbitrary: fieldsValue },
    { weight: 2, arbitrary: sortValue },
    { weight: 2, arbitrary: listValue },
    { weight: 1, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
  );

const JUNK_KEYS = [
  "f:",
  "f:cc:",
  "f:x",
  "f:cc:op:op",
  "aq",
  "bq",
  "cursor",
  "for",
  "dry_run",
  "FIELDS",
  "Page",
  "__proto__",
  "constructor",
  "toString",
  "page[]",
  "",
  " ",
];
const key = (names: string[]) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: fc.constantFrom(...JUNK_KEYS) },
    { weight: 1, arbitrary: junk },
  );

/** Values a valid request could carry for an option, so that requests also get past validation. */
const PLAUSIBLE: Record<string, string[]> = {
  max_seconds: ["1"],
  fields: [
    "name",
    "name,plans.name",
    "*,description_long",
    "installs_time_series",
    "plans",
    "rating,domains.name",
    "app",
    "app.name,body",
    "name,apps.name,apps.installed_at",
    "*,most_recently_published_product",
    "theme,contact_info.type,rank",
    "trustpilot,yotpo,alternates",
    "",
  ],
  page: ["0", "1", "2", "5", "199", ""],
  page_size: ["1", "2", "10", "50", "51", "1000", ""],
  sort: [
    "-installs",
    "average_rating,-created_at",
    "reviews",
    "removed_at",
    "-updated_at",
    "updated_at",
    "rank",
    "-er,name",
    "pc",
    "empc",
    "-mas",
    "last_plan_change_at",
    "platform_rank,estimated_visits",
    "",
  ],
  q: ["shop", "klaviyo email", "example", "gear outdoor", "é", "clone", ""],
  follow_redirects: ["true", "false", "1", "0", ""],
  for: ["jsonl", "json", ""],
  dry_run: ["true", "false", "1", "0", "", "yes"],
  aq: [
    '[{"field":"cc","value":"US"}]',
    '[{"field":"tags","value":"Dropshipper","operator":"nor"},{"field":"q","value":"shop"}]',
    '[{"field":"ermin","value":1},{"field":"p","value":"shopify,woocommerce","operator":"or"}]',
    "[]",
    "[{",
    "",
  ],
  bq: [
    '{"must":{"conjuncts":[{"field":"p","operator":"or","analyzer":"advanced","match":"1"},{"field":"er","min":5000000,"max":10000000,"inclusive_min":true,"inclusive_max":true}]}}',
    '{"should":{"disjuncts":[{"field":"cc","match":"US GB"},{"field":"rank","max":100}]},"must_not":{"disjuncts":[{"field":"tags","term":"Dropshipper"}]}}',
    '{"must":{"conjuncts":[{"field":"cat","match":"/Apparel /Beauty...&...Fitness"},{"field":"q","match":"shop"}]}}',
    '{"must_not":{"disjuncts":[{"field":"crat","min":"2024-01-01","inclusive_min":false}]}}',
    '{"must":{"conjuncts":[{"field":"country","match":"US"}]}}',
    "{}",
    "{",
    "",
  ],
  "f:cc": ["US", "DE", "us", "US,DE"],
  "f:ds": ["Active", "Inactive", "Password Protected", "Active,Inactive"],
  "f:as": ["Active", "Inactive"],
  "f:p": ["shopify", "woocommerce", "shopify,woocommerce", "custom"],
  "f:an": [
    "shopify.klaviyo",
    "shopify.old-reviews",
    "woocommerce.woo-seo",
    "shopify.klaviyo,woocommerce.woo-seo",
  ],
  "f:features": ["Shopify POS", "Contact Page", "Gift Messasging"],
  "f:tags": ["Trending on TikTok", "Dropshipper", "Dropping on YouTube"],
  "f:it": ["email", "instagram", "email,phone"],
  "f:cat": ["/Sports/Outdoor", "/Sports/Outdoor,/Home"],
  "f:categories": ["Marketing", "Email", "Marketing,Reviews", "Home\\, Garden"],
  "f:curr": ["USD", "EUR"],
  "f:lang": ["en", "de"],
  "f:administrative_area_level_1": ["California"],
  "f:city": ["San Francisco"],
  "f:cratyyyymm": ["2018-03", "2020-07"],
  "f:cratyyyymmdd": ["2018-03-02", "2020-07-03"],
  "f:stc": ["US", "CA"],
  "f:vcc": ["US"],
  "f:tech": ["Google Analytics"],
  "f:tn": ["Dawn"],
  "f:app_installed_at": ["shopify.klaviyo", "woocommerce.woo-seo"],
  "f:app_uninstalled_at": ["shopify.old-reviews"],
  "f:tech_installed_at": ["Google Analytics"],
};
const DATES = ["2018-01-01", "2021-01-01T00:00:00Z", "2025-06-01", ""];
const INTS = ["0", "1", "10", "1000", "3000000", "350000000000", "-1", ""];

/** An arbitrary value for `name`, mostly plausible. */
function plausible(name: string): fc.Arbitrary<string> {
  let pool = PLAUSIBLE[name];
  if (!pool && name.endsWith(":op")) pool = ["and", "or", "not", ""];
  if (!pool && /^f:(crat|last_|.*_at:)/.test(name)) pool = DATES;
  if (!pool && /^f:.*(min|max)$/.test(name)) pool = INTS;
  if (!pool) pool = ["x", "Example", "Klaviyo Inc."];
  return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: value() });
}

/** A query string: encoded pairs, or raw ones (percent signs, ampersands and all). */
const junkQuery = (names: string[], extra: string[]) =>
  fc
    .tuple(fc.array(fc.tuple(key(names), value(extra)), { maxLength: 7 }), fc.boolean())
    .map(([pairs, encoded]) =>
      encoded
        ? new URLSearchParams(pairs).toString()
        : pairs.map(([k, v]) => `${k}=${v.replace(/[#\s]/g, "")}`).join("&"),
    );
/** A query string of distinct valid options with mostly plausible values. */
const plausibleQuery = (names: string[], extra: string[]) =>
  fc
    .uniqueArray(fc.constantFrom(...names), { maxLength: 4 })
    .chain((keys) =>
      fc.tuple(
        ...keys.map((k) =>
          (k === "cursor" ? fc.constantFrom(...extra, "") : plausible(k)).map((v) => [k, v]),
        ),
      ),
    )
    .map((pairs) => new URLSearchParams(pairs as [string, string][]).toString());
const queryString = (names: string[], extra: string[] = []) =>
  fc.oneof(junkQuery(names, extra), plausibleQuery(names, extra));

const AQ_FIELDS = [
  "q",
  "cc",
  "cat",
  "an",
  "ds",
  "p",
  "tags",
  "features",
  "city",
  "administrative_area_level_1",
  "cratyyyymm",
  "cratyyyymmdd",
  "ermin",
  "ermax",
  "rankmin",
  "cratmin",
  "last_plan_change_at:max",
  "app_installed_at",
  "f:cc",
  "",
  "bogus",
];
const jsonLeaf = fc.oneof(
  value(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 53, -(2 ** 53), 1e308, -0, 0.5),
  fc.boolean(),
  fc.constant(null),
);
const jsonAny = fc.oneof(jsonLeaf, fc.jsonValue({ maxDepth: 2 }), fc.array(jsonLeaf, { maxLength: 4 }));
const aqValue = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(
      fc.record(
        {
          field: fc.oneof(fc.constantFrom(...AQ_FIELDS), junk, jsonLeaf),
          value: fc.oneof(value(), fc.integer(), jsonAny),
          operator: fc.oneof(fc.constantFrom("and", "or", "nand", "nor", "not", "AND", ""), junk, jsonLeaf),
          extra: jsonLeaf,
        },
        { requiredKeys: [] },
      ),
      { maxLength: 5 },
    ),
  },
  { weight: 1, arbitrary: jsonAny },
);
const bqCondition = fc.record(
  {
    field: fc.oneof(fc.constantFrom(...AQ_FIELDS, "p", "er", "crat", "q"), junk, jsonLeaf),
    match: fc.oneof(value(), jsonAny),
    term: jsonLeaf,
    operator: fc.oneof(fc.constantFrom("or", "and", "nor"), jsonLeaf),
    min: jsonLeaf,
    max: jsonLeaf,
    inclusive_min: jsonLeaf,
    inclusive_max: jsonLeaf,
    disjuncts: jsonAny,
  },
  { requiredKeys: ["field"] },
);
const bqClause = (list: string) =>
  fc.record(
    { [list]: fc.oneof(fc.array(bqCondition, { maxLength: 4 }), jsonAny), min: jsonLeaf },
    { requiredKeys: [] },
  );
const bqValue = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        must: bqClause("conjuncts"),
        should: bqClause("disjuncts"),
        must_not: bqClause("disjuncts"),
        extra: jsonLeaf,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: jsonAny },
);
const domainsValue = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(
      fc.oneof(
        {
          weight: 4,
          arbitrary: fc.constantFrom(
            "shop.example.com",
            "old-shop.example.com",
            "nope.example.com",
            "SHOP.EXAMPLE.COM.",
            "example-shop.myshopify.com",
          ),
        },
        { weight: 2, arbitrary: junk },
        { weight: 1, arbitrary: jsonLeaf },
      ),
      { maxLength: 8 },
    ),
  },
  { weight: 1, arbitrary: fc.array(fc.constant("shop.example.com"), { minLength: 99, maxLength: 102 }) },
  { weight: 1, arbitrary: jsonAny },
);

/** A JSON body of options: known keys with typed or junk values, junk keys. */
const bodyOf = (names: string[]) =>
  fc.dictionary(key(names), jsonAny, { maxKeys: 7 }).chain((base) =>
    fc
      .record(
        {
          aq: aqValue,
          bq: bqValue,
          domains: domainsValue,
          page: jsonLeaf,
          page_size: jsonLeaf,
          follow_redirects: jsonLeaf,
          dry_run: jsonLeaf,
        },
        { requiredKeys: [] },
      )
      .map((typed) => {
        const out: Record<string, unknown> = { ...base };
        for (const [k, v] of Object.entries(typed)) if (names.includes(k)) out[k] = v;
        return out;
      }),
  );
/** A JSON body of distinct valid options with mostly plausible values (numbers for numbers). */
const plausibleBody = (names: string[]) =>
  fc
    .uniqueArray(fc.constantFrom(...names), { maxLength: 4 })
    .chain((keys) =>
      fc.tuple(
        ...keys.map((k) => {
          let v: fc.Arbitrary<unknown> = plausible(k);
          if (k === "page" || k === "page_size") v = fc.oneof(v, fc.integer({ min: -1, max: 1001 }));
          if (k.endsWith("min") || k.endsWith("max")) v = fc.oneof(v, fc.integer());
          if (k === "follow_redirects" || k === "dry_run") v = fc.oneof(v, fc.boolean());
          if (k === "domains") v = domainsValue;
          if (k === "aq")
            v = fc.array(
              fc.constantFrom(...AQ_FIELDS).chain((field) =>
                fc.record({
                  field: fc.constant(field),
                  value: plausible(field === "q" ? "q" : `f:${field}`),
                  operator: fc.constantFrom("and", "or", "nand", "nor"),
                }),
              ),
              { maxLength: 4 },
            );
          return v.map((x) => [k, x] as const);
        }),
      ),
    )
    .map((pairs) => Object.fromEntries(pairs));
/** A request body as sent: JSON of an options object, or anything else. */
const rawBody = (names: string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: plausibleBody(names).map((b) => JSON.stringify(b)) },
    { weight: 6, arbitrary: bodyOf(names).map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: jsonAny.map((v) => JSON.stringify(v) ?? "") },
    { weight: 1, arbitrary: fc.oneof(junk, fc.constantFrom("", " ", "{", "[", "null", '{"a":', "\uFEFF{}")) },
  );

const APP_KEYS = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "shopify.klaviyo",
      "woocommerce.woo-seo",
      "shopify.old-reviews",
      "SHOPIFY.klaviyo",
      "shopify.nope",
      "nosuch.klaviyo",
      "x.",
      ".x",
      "nodot",
      "a.b.c",
    ),
  },
  { weight: 1, arbitrary: junk.filter((s) => s !== "" && s !== "." && s !== "..").map(enc) },
);
const DOMAIN_KEYS = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "shop.example.com",
      "old-shop.example.com",
      "gone.example.net",
      "woo.example.org",
      "example-shop.myshopify.com",
      "SHOP.example.com.",
      "nope.example.com",
      "bulk",
      "export",
      "a%20b",
      "-",
    ),
  },
  { weight: 1, arbitrary: junk.filter((s) => s !== "" && s !== "." && s !== "..").map(enc) },
);
const SEGMENTS = [
  "app",
  "domain",
  "bulk",
  "export",
  "reviews",
  "app_reviews",
  "shopify.klaviyo",
  "shop.example.com",
  "",
  ".",
  "..",
  "json",
  "api",
  "v1",
  "all",
];
const randomPath = fc
  .array(
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SEGMENTS) }, { weight: 1, arbitrary: junk.map(enc) }),
    {
      maxLength: 5,
    },
  )
  .map((segs) => `/${segs.join("/")}`);
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];

// ------------------------------------------------------------------ the suite

describe.each(databaseKinds())("REST fuzz on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-rest-fuzz-");
  /** cursor=all requests that started a job: polled to the end before the database goes. */
  const jobs = new Map<string, RequestInit>();
  let sent = 0;
  /** Requests answered with success: the fuzz must also get past validation. */
  let succeeded = 0;
  let cursor = "";

  beforeAll(async () => {
    // Room for the jobs a burst starts (each runs on after its 202), so that most are read, not refused.
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()), {
      exportConcurrency: 64,
    });
    const first = await api.app.fetch(`${BASE}/domain?page_size=1&fields=name`);
    cursor = ((await first.json()) as { next_cursor: string }).next_cursor;
  });
  afterAll(async () => {
    // Let every cursor=all job finish, so none writes into a removed directory or database.
    for (const [url, init] of jobs) {
      for (let i = 0; i < 200; i++) {
        const res = await api.app.fetch(url, { ...init });
        await res.arrayBuffer();
        if (res.status !== 202) break;
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    await api?.close();
    tmp.remove();
  });

  /**
   * Sends one request and checks the answer: its status (0: not sent, the URL is not one). A
   * body may go out in a Content-Encoding (`encoding`, with `shown` saying what it is).
   */
  async function check(
    method: string,
    path: string,
    query = "",
    body?: string | NonSharedBuffer,
    encoding?: { label: string; shown: string },
  ): Promise<number> {
    const url = `${BASE}${path}${query ? `?${query}` : ""}`;
    try {
      new URL(url);
    } catch {
      return 0;
    }
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (encoding) headers["content-encoding"] = encoding.label;
    const init: RequestInit = {
      method,
      ...(body !== undefined && method !== "GET" && method !== "HEAD" ? { body, headers } : {}),
    };
    logged.length = 0;
    const res = await api.app.fetch(url, init);
    sent++;
    const text = await res.text();
    if (res.status < 300) succeeded++;
    const shown = encoding ? ` ${encoding.shown}` : typeof body === "string" ? ` ${body.slice(0, 500)}` : "";
    const what = `${method} ${url}${shown} → ${res.status} ${text.slice(0, 500)}`;
    // 503 BUSY is the gateway's answer to more exports and cursor=all jobs at once than it runs
    // (EXPORT_CONCURRENCY), which a fuzz's burst of jobs can reach: an answer, not a fault.
    const busy = res.status === 503 && (JSON.parse(text) as { code?: unknown }).code === "BUSY";
    if (!busy) expect(res.status, what).toBeLessThan(500);
    expect(errorLines(), what).toEqual([]);
    const type = res.headers.get("content-type") ?? "";
    if (res.status >= 400) {
      expect(type, what).toMatch(/^application\/json\b/);
      const error = JSON.parse(text) as Record<string, unknown>;
      expect(typeof error.error, what).toBe("string");
      expect(typeof error.code, what).toBe("string");
      expect(error.error, what).not.toMatch(/\n\s+at |prisma|SQLITE|invocation/i);
      return res.status;
    }
    if (res.status === 202) {
      expect(JSON.parse(text), what).toEqual({ progress: expect.any(Number), total: expect.any(Number) });
      jobs.set(url, init);
      return res.status;
    }
    if (method === "HEAD" && text === "") return res.status;
    if (type.startsWith("application/x-ndjson")) {
      for (const line of text.split("\n").filter((l) => l !== "")) {
        expect(typeof JSON.parse(line), what).toBe("object");
      }
    } else if (text !== "" || res.status !== 204) {
      expect(type, what).toMatch(/^application\/json\b/);
      JSON.parse(text);
    }
    return res.status;
  }

  /**
   * A body sent as `w` wraps it, checked as any request, then held to what the wrapping decides
   * where the route reads a body: the status a refused label, a bomb or a mislabelled gzip body
   * gets, and for a body in a coding, the status of the same body plain.
   */
  async function checkWrapped(method: string, path: string, query: string, body: string, w: Wrapping) {
    const wrapped = await wrap(body, w);
    const encoding =
      wrapped.encoding === undefined
        ? undefined
        : { label: wrapped.encoding, shown: `(${w.kind}: ${wrapped.encoding}) ${body.slice(0, 300)}` };
    const status = await check(method, path, query, wrapped.body, encoding);
    const readsBody = method === "POST" && ["/app", "/domain", "/domain/bulk"].includes(path);
    if (!readsBody || status === 0) return;
    const what = `${method} ${path}?${query} ${encoding?.shown ?? body.slice(0, 300)}`;
    if (wrapped.status !== undefined) expect(status, what).toBe(wrapped.status);
    if ((w.kind === "coded" || w.kind === "identity") && status !== 202 && status !== 429) {
      expect(status, what).toBe(await check(method, path, query, body));
    }
  }

  const run = <T extends unknown[]>(property: fc.IAsyncPropertyWithHooks<T>) =>
    fc.assert(property, { numRuns: RUNS });

  it("App routes: GET /app/<platform>.<token> and its reviews", async () => {
    const names = optionNames("retrieveApp", "listAppReviews");
    await run(
      fc.asyncProperty(APP_KEYS, fc.boolean(), queryString(names), async (app, reviews, q) => {
        await check("GET", `/app/${app}${reviews ? "/reviews" : ""}`, q);
      }),
    );
  });

  it("List Apps: GET and POST /app", async () => {
    const names = optionNames("listApps", "searchApps");
    await run(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST"),
        queryString(names),
        rawBody(names),
        fc.boolean(),
        async (method, q, body, withQuery) => {
          if (method === "GET") await check("GET", "/app", q);
          else await check("POST", "/app", withQuery ? q : "", body);
        },
      ),
    );
  });

  it("Domain routes: GET /domain/<name>, its app_reviews, POST /domain/bulk", async () => {
    const names = optionNames("retrieveDomain", "listDomainAppReviews", "bulkRetrieveDomains");
    await run(
      fc.asyncProperty(
        fc.constantFrom("one", "reviews", "bulk"),
        DOMAIN_KEYS,
        queryString(names),
        rawBody(optionNames("bulkRetrieveDomains")),
        async (which, name, q, body) => {
          if (which === "one") await check("GET", `/domain/${name}`, q);
          else if (which === "reviews") await check("GET", `/domain/${name}/app_reviews`, q);
          else await check("POST", "/domain/bulk", q.length % 3 === 0 ? q : "", body);
        },
      ),
    );
  });

  it("List Domains: GET /domain, with cursors and cursor=all", async () => {
    const names = optionNames("listDomains");
    await run(
      fc.asyncProperty(queryString(names, [cursor, `${cursor}x`, "all"]), async (q) => {
        await check("GET", "/domain", q);
      }),
    );
  });

  it("List Domains: POST /domain with aq", async () => {
    const names = optionNames("searchDomains");
    await run(
      fc.asyncProperty(
        rawBody(names),
        fc.option(fc.constantFrom(cursor, "all", "junk"), { nil: undefined }),
        async (body, c) => {
          let sentBody = body;
          if (c !== undefined) {
            try {
              const parsed = JSON.parse(body);
              if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
                sentBody = JSON.stringify({ ...parsed, cursor: c });
            } catch {
              // not JSON: send as it is
            }
          }
          await check("POST", "/domain", "", sentBody);
        },
      ),
    );
  });

  it("Export Domains: GET /domain/export", async () => {
    const names = optionNames("exportDomains");
    await run(
      fc.asyncProperty(queryString(names), async (q) => {
        await check("GET", "/domain/export", q);
      }),
    );
  });

  it("random methods and paths under the base", async () => {
    const names = [...new Set(OPERATIONS.flatMap((r) => r.options.map((o) => o.name)))];
    await run(
      fc.asyncProperty(
        fc.constantFrom(...METHODS),
        randomPath,
        queryString(names),
        rawBody(names),
        async (method, path, q, body) => {
          await check(method, path, q, body);
        },
      ),
    );
  });

  it("compressed bodies: in a coding, mislabelled, cut short, refused, bombs", async () => {
    const names = optionNames("searchApps", "searchDomains", "bulkRetrieveDomains");
    await run(
      fc.asyncProperty(
        fc.oneof(
          {
            weight: 4,
            arbitrary: fc.constantFrom("/app", "/domain", "/domain/bulk").map((p) => ["POST", p]),
          },
          { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...METHODS), randomPath) },
        ),
        queryString(names),
        rawBody(names),
        wrapping,
        async ([method, path], q, body, w) => {
          await checkWrapped(method, path, q.length % 3 === 0 ? q : "", body, w);
        },
      ),
    );
  });

  it("sent every request, and many got past validation", () => {
    expect(sent).toBeGreaterThan(RUNS * 5);
    expect(succeeded).toBeGreaterThan(sent / 8);
  });
});

// ------------------------------------------------------------------ control characters, every database alike

// Every option of every route, and every path segment, with control characters put in (U+0000 to
// U+001F, U+007F, unpaired surrogates), sent to every database: never a fault, and every database
// gives the same status and body. NUL, and an unpaired surrogate where JSON can carry one (a query
// string cannot: it arrives as U+FFFD), is a 400 naming the option or segment: no stored text holds
// them, and PostgreSQL cannot compare text with NUL.

/** Options a fuzzed one needs beside it to be read at all (an event's subject and bound, a list's values). */
function companions(option: string): Record<string, string> {
  const event = /^(f:(?:app|tech)_(?:un)?installed_at)(?::(min|max))?$/.exec(option);
  if (event) return event[2] ? { [event[1]]: PLAUSIBLE[event[1]][0] } : { [`${option}:min`]: "2020-01-01" };
  if (option.startsWith("f:") && option.endsWith(":op")) {
    const list = option.slice(0, -3);
    return { [list]: PLAUSIBLE[list]?.[0] ?? "x" };
  }
  return {};
}

/** Options a route needs to be read at all (a webhook's url). */
const REQUIRED: Record<string, Record<string, string>> = {
  createWebhook: { url: "http://127.0.0.1:9/hook" },
  domainTrends: { dimension: "tech" },
  appTrends: { dimension: "p" },
};

interface Fuzzed {
  /** What the request names in an error: the option, or the path segment. */
  names: RegExp;
  method: string;
  path: string;
  query: string;
  body?: string;
  /** The text that carries the control characters, as the server receives it. */
  sent: string;
}

/** A request of `route` whose `option` (or, for "(path)", its path segment) holds `text`. */
function fuzzedRequest(route: (typeof OPERATIONS)[number], option: string, text: string): Fuzzed {
  const appPath = option === "(path)" && route.path.includes("{platform}") ? text : "shopify.klaviyo";
  const domainPath = option === "(path)" && route.path.includes("{name}") ? text : "shop.example.com";
  const listPath = option === "(path)" && route.path.includes("{list}") ? text : "prospects";
  const segmentPath = option === "(path)" && route.path.includes("{segment}") ? text : "us-plus";
  const webhookPath = option === "(path)" && route.path.includes("{webhook}") ? text : "wh_none";
  const filePath = option === "(path)" && route.path.includes("{file}") ? text : "apps.parquet";
  const path = route.path
    .replace("{platform}.{token}", enc(appPath))
    .replace("{name}", enc(domainPath))
    .replace("{list}", enc(listPath))
    .replace("{segment}", enc(segmentPath))
    .replace("{webhook}", enc(webhookPath))
    .replace("{delivery}", "msg_none")
    .replace("{version}", "1")
    .replace("{file}", enc(filePath));
  const options: Record<string, unknown> =
    option === "(path)"
      ? { ...REQUIRED[route.id] }
      : { ...REQUIRED[route.id], ...companions(option), [option]: text };
  if (route.id === "bulkRetrieveDomains" || route.id === "similarDomains")
    options.domains = ["shop.example.com"];
  // A live stream answers until it ends: a second.
  if (route.id === "streamChanges" && option !== "max_seconds") options.max_seconds = "1";
  if (option === "domains") options.domains = ["shop.example.com", text];
  if (option === "aq") options.aq = [{ field: "tech", value: text, operator: "and" }];
  let names = new RegExp(`^${option.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: `);
  if (option === "domains") names = /^domains\[1\]: /;
  if (option === "aq") names = /^f:tech \(aq\[0\]\): /;
  // A trend's values, a comma-separated list: the value refused is named by its place.
  if (option === "values") names = /^values(\[\d+\])?: /;
  if (option === "(path)")
    names = route.path.includes("{name}")
      ? /^domain name: /
      : route.path.includes("{list}")
        ? /^list: /
        : route.path.includes("{segment}")
          ? /^segment: /
          : route.path.includes("{webhook}")
            ? /^webhook: /
            : route.path.includes("{file}")
              ? /^file: /
              : /^App: /;
  if (route.body)
    return { names, method: route.method, path, query: "", body: JSON.stringify(options), sent: text };
  // A query string cannot carry an unpaired surrogate (it arrives as U+FFFD); enc() sends a path
  // segment that has one with every surrogate as "?".
  const sent =
    option === "(path)"
      ? UNPAIRED.test(text)
        ? text.replace(/[\ud800-\udfff]/g, "?")
        : text
      : text.replace(new RegExp(UNPAIRED.source, "g"), "\ufffd");
  // A structured option (aq) travels in a query string as its JSON text.
  const query = new URLSearchParams(
    Object.entries(options).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  ).toString();
  return { names, method: route.method, path, query, sent };
}

/** A valid value of an option (for "(path)", of the route's path segment) to put control characters in. */
function sampleOf(route: (typeof OPERATIONS)[number], option: string): string {
  if (option === "(path)")
    return route.path.includes("{name}")
      ? "shop.example.com"
      : route.path.includes("{list}")
        ? "prospects"
        : route.path.includes("{segment}")
          ? "us-plus"
          : route.path.includes("{webhook}")
            ? "wh_none"
            : route.path.includes("{file}")
              ? "apps.parquet"
              : "shopify.klaviyo";
  if (option === "domains") return "shop.example.com";
  if (option === "aq") return "Google Analytics";
  return PLAUSIBLE[option]?.[0] ?? "x";
}

describe("control characters in every option and path segment, every database alike", () => {
  const apis = new Map<string, TestApi>();
  const tmp = tempDir("storegraph-rest-control-");
  beforeAll(async () => {
    for (const kind of databaseKinds())
      apis.set(kind, await startApi(kind, writeSnapshotDir(join(tmp.dir, kind), validFixture())));
  });
  afterAll(async () => {
    for (const api of apis.values()) await api.close();
    tmp.remove();
  });

  async function checkAlike(f: Fuzzed): Promise<void> {
    const url = `${BASE}${f.path}${f.query ? `?${f.query}` : ""}`;
    const answers: string[] = [];
    for (const [kind, api] of apis) {
      const res = await api.app.fetch(url, {
        method: f.method,
        ...(f.body !== undefined ? { body: f.body, headers: { "content-type": "application/json" } } : {}),
      });
      const text = await res.text();
      const what = `${kind}: ${f.method} ${url} ${f.body ?? ""} → ${res.status} ${text.slice(0, 300)}`;
      expect(res.status, what).toBeLessThan(500);
      if (f.sent.includes("\u0000") || UNPAIRED.test(f.sent)) {
        expect(res.status, what).toBe(400);
        const error = JSON.parse(text) as { error: string; code: string };
        expect(error.code, what).toBe("BAD_USER_INPUT");
        expect(error.error, what).toMatch(f.names);
      }
      // Each answer has a request id of its own.
      // …and a list its own times, and a load (a trend's, an as-of Domain's, a change's) its own.
      answers.push(
        `${res.status} ${text
          .replace(/"request_id":"[^"]+"/, '"request_id":"…"')
          .replace(
            /"(created|updated|last_attempt|next_attempt|published|as_of_published|loaded)_at":"[^"]+"/g,
            '"$1_at":"…"',
          )
          // …and a webhook its own id and secret.
          .replace(/"(wh|whsec|msg)_[^"]+"/g, '"$1_…"')}`,
      );
    }
    expect(new Set(answers).size, `${url} ${f.body ?? ""}:\n${answers.join("\n")}`).toBe(1);
  }

  for (const route of OPERATIONS) {
    const options = [...(route.path.includes("{") ? ["(path)"] : []), ...route.options.map((o) => o.name)];
    it(`${route.method} ${route.path}: ${options.length} options`, async () => {
      for (const option of options) {
        const sample = sampleOf(route, option);
        const base =
          option === "(path)" ? fc.constant(sample) : fc.oneof(fc.constant(sample), plausible(option));
        const examples: [string, [string, number][]][] = [
          [sample, [["\u0000", 1]]],
          [sample, [["\ud800", 1]]],
        ];
        // A live stream that opens answers for its max_seconds: only the refused texts, which
        // it shares with GET /changes (fuzzed in full above), are sent to it.
        if (route.id === "streamChanges") {
          for (const [b, ins] of examples) await checkAlike(fuzzedRequest(route, option, insert(b, ins)));
          continue;
        }
        await fc.assert(
          fc.asyncProperty(base, inserts, async (b, ins) => {
            await checkAlike(fuzzedRequest(route, option, insert(b, ins)));
          }),
          { numRuns: 4, examples },
        );
      }
    });
  }
});
