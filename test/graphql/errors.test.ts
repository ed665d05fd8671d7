import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REST_BASE } from "../../src/rest/routes.ts";
import { type GqlResult, startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

// How the GraphQL API answers bad input: BAD_USER_INPUT naming the argument (docs/decisions.md, Errors:
// "400 invalid or unknown option, the message names the option"), CURSOR_EXPIRED after a refresh,
// GraphQL validation errors for values the schema itself rejects — never a server fault, never a
// stack trace.

type Res = GqlResult<Record<string, unknown>>;

/** Every response must be a client error at worst, without internals. */
function expectNoFault(res: Res): void {
  expect(res.status).toBeLessThan(500);
  const text = JSON.stringify(res);
  expect(text).not.toMatch(/stacktrace|"stack"|\n\s+at |\bat \S+\.(ts|js|mjs):\d+/);
  expect(text).not.toMatch(/prisma|invocation|SQLITE|syntax error at/i);
  for (const e of res.errors ?? []) expect(e.extensions?.code).not.toBe("INTERNAL_SERVER_ERROR");
}

/** One BAD_USER_INPUT error naming `argument`; `data` is what the failed field leaves. */
function expectBadInput(res: Res, argument: string, message?: RegExp): void {
  expectNoFault(res);
  expect(res.status).toBe(200);
  expect(res.errors).toHaveLength(1);
  const [error] = res.errors ?? [];
  expect(error.extensions).toMatchObject({ code: "BAD_USER_INPUT", argument });
  expect(error.message.startsWith(`${argument}: `)).toBe(true);
  if (message) expect(error.message).toMatch(message);
}

/** A GraphQL validation (or variable coercion) error: no data, a message, no server fault. */
function expectValidationError(res: Res, message: RegExp): void {
  expectNoFault(res);
  expect(res.data ?? null).toBeNull();
  expect(res.errors?.length).toBeGreaterThan(0);
  expect(res.errors?.[0].message).toMatch(message);
}

function expectOk(res: Res): void {
  expectNoFault(res);
  expect(res.errors).toBeUndefined();
}

type Cursors = { endCursor: string };

describe.each(databaseKinds())("GraphQL errors on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-gql-errors-");
  let sent = 0;
  const send = async (query: string, variables?: Record<string, unknown>): Promise<Res> => {
    const res = await api.gql(query, variables);
    sent++;
    expectNoFault(res);
    return res;
  };
  const endCursor = async (query: string, pick: (d: Record<string, unknown>) => Cursors) => {
    const res = await send(query);
    expectOk(res);
    const c = pick(res.data as Record<string, unknown>).endCursor;
    expect(typeof c).toBe("string");
    return c;
  };

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("a client's mistake with a long message is its own error, its echoes cut, not a fault", async () => {
    // Segments with names near the one asked for: the 404 lists them, past the length at which a
    // message's quoted values are cut (useErrorCodes). An error located by graphql-jit keeps its
    // message read-only: assigning the cut one threw, and the answer was INTERNAL_SERVER_ERROR.
    const stem = "a-segment-with-a-long-name-of-many-words-to-ask-for-by-mistake";
    for (const n of [1, 2, 3, 4]) {
      const res = await api.app.fetch(`http://localhost${REST_BASE}/segment/${stem}${n}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${api.key}`, "content-type": "application/json" },
        body: JSON.stringify({ "f:p": "shopify" }),
      });
      expect(res.status, await res.text()).toBe(200);
    }
    const res = await api.gql(`{ changes(filter: { segment: "${stem}0" }) { nodes { id } } }`);
    expect(res.errors?.[0]?.message.length).toBeGreaterThan(200);
    expect(res.errors?.[0]?.extensions?.code, res.errors?.[0]?.message).toBe("NOT_FOUND");
    expect(res.errors?.[0]?.message).toContain(`${stem}1`);
  });

  describe("page size", () => {
    it.each([
      ["apps", `{ apps(first: 51) { totalCount } }`, 50],
      [
        "App.reviews",
        `{ app(platform: "shopify", token: "klaviyo") { reviews(first: 51) { totalCount } } }`,
        50,
      ],
      [
        "Domain.appReviews",
        `{ domain(name: "shop.example.com") { appReviews(first: 51) { totalCount } } }`,
        50,
      ],
      ["domains", `{ domains(first: 1001) { totalCount } }`, 1000],
      [
        "App.installedOn",
        `{ app(platform: "shopify", token: "klaviyo") { installedOn(first: 1001) { totalCount } } }`,
        1000,
      ],
    ])("first over the cap of %s is BAD_USER_INPUT naming first", async (_name, query, cap) => {
      expectBadInput(await send(query), "first", new RegExp(`at most ${cap}\\b`));
    });

    it("first at the cap is accepted", async () => {
      const res = await send(`{
        apps(first: 50) { totalCount }
        domains(first: 1000) { totalCount }
        app(platform: "shopify", token: "klaviyo") { reviews(first: 50) { totalCount } installedOn(first: 1000) { totalCount } } }`);
      expectOk(res);
      expect(res.data).toEqual({
        apps: { totalCount: 3 },
        domains: { totalCount: 4 },
        app: { reviews: { totalCount: 2 }, installedOn: { totalCount: 2 } },
      });
    });

    it.each([
      ["domains", `{ domains(first: -1) { totalCount } }`],
      ["apps", `{ apps(first: -1) { totalCount } }`],
      ["App.reviews", `{ app(platform: "shopify", token: "klaviyo") { reviews(first: -5) { totalCount } } }`],
    ])("a negative first on %s is BAD_USER_INPUT naming first", async (_name, query) => {
      expectBadInput(await send(query), "first");
    });
  });

  describe("cursors", () => {
    it.each([
      ["not base64url", "garbage!"],
      ["base64url of no JSON", "abc"],
      ["empty", ""],
      ["JSON without a version", Buffer.from('{"k":[10,1]}').toString("base64url")],
      ["a JSON array", Buffer.from("[1,2]").toString("base64url")],
    ])("a malformed cursor (%s) is BAD_USER_INPUT naming after", async (_name, after) => {
      const res = await send(`query($after: String) { domains(after: $after) { totalCount } }`, { after });
      expectBadInput(res, "after", /not a cursor/);
    });

    it("a cursor of another sort, filter, search or connection is refused", async () => {
      const after = await endCursor(
        `{ domains(first: 1) { pageInfo { endCursor } } }`,
        (d) => (d.domains as { pageInfo: Cursors }).pageInfo,
      );
      // It works where it came from.
      expectOk(
        await send(`query($after: String) { domains(first: 1, after: $after) { totalCount } }`, { after }),
      );
      for (const args of [
        `orderBy: [{ field: NAME }]`,
        `orderBy: [{ field: RANK, direction: DESC }]`,
        `filter: { platform: { values: ["shopify"] } }`,
        `filter: { state: { values: ["Active"] } }`,
        `search: "shop"`,
      ]) {
        const res = await send(
          `query($after: String) { domains(first: 1, after: $after, ${args}) { totalCount } }`,
          {
            after,
          },
        );
        expectBadInput(res, "after", /different sort, filter or search/);
      }
      // Another connection: Apps, and the Domains of an App.
      expectBadInput(
        await send(`query($after: String) { apps(after: $after) { totalCount } }`, { after }),
        "after",
      );
      expectBadInput(
        await send(
          `query($after: String) { app(platform: "shopify", token: "klaviyo") { installedOn(after: $after) { totalCount } } }`,
          { after },
        ),
        "after",
      );
    });

    it("a cursor of one parent is refused under another", async () => {
      const after = await endCursor(
        `{ app(platform: "shopify", token: "klaviyo") { installedOn(first: 1) { pageInfo { endCursor } } } }`,
        (d) => (d.app as { installedOn: { pageInfo: Cursors } }).installedOn.pageInfo,
      );
      const res = await send(
        `query($after: String) { app(platform: "woocommerce", token: "woo-seo") { installedOn(after: $after) { totalCount } } }`,
        { after },
      );
      expectBadInput(res, "after");
      expect(res.data).toEqual({ app: null });
    });

    it("a review cursor of one direction is refused with the other", async () => {
      const after = await endCursor(
        `{ app(platform: "shopify", token: "klaviyo") { reviews(first: 1, orderBy: { direction: ASC }) { pageInfo { endCursor } } } }`,
        (d) => (d.app as { reviews: { pageInfo: Cursors } }).reviews.pageInfo,
      );
      const res = await send(
        `query($after: String) { app(platform: "shopify", token: "klaviyo") { reviews(first: 1, after: $after) { totalCount } } }`,
        { after },
      );
      expectBadInput(res, "after");
    });
  });

  describe("filter values", () => {
    it.each([
      [
        "Domain platform",
        `domains(filter: { platform: { values: ["nosuchplatform"] } })`,
        "filter.platform.values",
      ],
      [
        "App platform",
        `apps(filter: { platform: { values: ["nosuchplatform"] } })`,
        "filter.platform.values",
      ],
      ["feature", `domains(filter: { features: { values: ["Teleportation"] } })`, "filter.features.values"],
      // f:ds accepts only Active, Inactive, Password Protected (docs/api.md 3).
      ["Domain state", `domains(filter: { state: { values: ["Redirect"] } })`, "filter.state.values"],
      ["App state", `apps(filter: { state: { values: ["Gone"] } })`, "filter.state.values"],
      ["tag", `domains(filter: { tags: { values: ["Trending on MySpace"] } })`, "filter.tags.values"],
      [
        "contact type",
        `domains(filter: { contactTypes: { values: ["fax"] } })`,
        "filter.contactTypes.values",
      ],
    ])(
      "an unknown %s is BAD_USER_INPUT naming the value and what is allowed",
      async (_name, field, argument) => {
        const bad = /"(\w[^"]*)"/.exec(field)?.[1] ?? "";
        const res = await send(`{ ${field} { totalCount } }`);
        expectBadInput(res, argument, /allowed: /);
        expect(res.errors?.[0].message).toContain(`"${bad}"`);
      },
    );

    it("values of a closed vocabulary are accepted in any letter case", async () => {
      const res = await send(`{
        a: domains(filter: { platform: { values: ["SHOPIFY"] }, features: { values: ["contact page"] } }) { totalCount }
        b: apps(filter: { state: { values: ["inactive"] } }) { totalCount } }`);
      expectOk(res);
      // shop.example.com is the only Domain with features; Old Reviews the only Inactive App.
      expect(res.data).toEqual({ a: { totalCount: 1 }, b: { totalCount: 1 } });
    });

    it("city needs countryCode and administrativeAreaLevel1", async () => {
      expectBadInput(
        await send(`{ domains(filter: { city: { values: ["San Francisco"] } }) { totalCount } }`),
        "filter.city",
        /countryCode \(f:cc\) and administrativeAreaLevel1/,
      );
      expectBadInput(
        await send(`{ domains(filter: { city: { values: ["San Francisco"] }, countryCode: { values: ["US"] } }) {
          totalCount } }`),
        "filter.city",
        /administrativeAreaLevel1/,
      );
      expectBadInput(
        await send(
          `{ domains(filter: { administrativeAreaLevel1: { values: ["California"] } }) { totalCount } }`,
        ),
        "filter.administrativeAreaLevel1",
        /countryCode/,
      );
      const res = await send(`{ domains(filter: {
        city: { values: ["San Francisco"] }, countryCode: { values: ["US"] },
        administrativeAreaLevel1: { values: ["California"] } }) { edges { node { name } } } }`);
      expectOk(res);
      expect(res.data).toEqual({ domains: { edges: [{ node: { name: "shop.example.com" } }] } });
    });

    it.each([
      ["countryCode", "AND", `domains(filter: { countryCode: { values: ["US", "DE"], op: AND } })`],
      ["countryCode", "AND (default)", `domains(filter: { countryCode: { values: ["US", "DE"] } })`],
      ["state", "NAND", `domains(filter: { state: { values: ["Active", "Inactive"], op: NAND } })`],
      ["currencyCode", "AND", `domains(filter: { currencyCode: { values: ["USD", "EUR"], op: AND } })`],
      ["platform", "AND", `apps(filter: { platform: { values: ["shopify", "wix"], op: AND } })`],
    ])("an exclusive filter (%s) with op %s and two values is BAD_USER_INPUT", async (name, _op, field) => {
      expectBadInput(await send(`{ ${field} { totalCount } }`), `filter.${name}`, /use op or/);
    });

    it("an exclusive filter with op OR and two values is fine", async () => {
      const res = await send(
        `{ domains(filter: { countryCode: { values: ["US", "DE"], op: OR } }) { totalCount } }`,
      );
      expectOk(res);
      expect(res.data).toEqual({ domains: { totalCount: 1 } });
    });

    it.each([
      ["rank", `domains(filter: { rank: { min: 10, max: 5 } })`],
      ["employeeCount", `domains(filter: { employeeCount: { min: 2, max: 1 } })`],
      ["createdAt", `domains(filter: { createdAt: { min: "2020-01-02", max: "2020-01-01T00:00:00Z" } })`],
      ["installs", `apps(filter: { installs: { min: 3, max: 0 } })`],
      ["reviewCount", `apps(filter: { reviewCount: { min: 1, max: 0 } })`],
    ])("min > max on %s is BAD_USER_INPUT", async (name, field) => {
      expectBadInput(await send(`{ ${field} { totalCount } }`), `filter.${name}`, /greater than max/);
    });

    // DateTime: "a date as max covers that whole day", so 09:00 to the end of that day is a
    // valid range, not min > max.
    it("min later in the day than a date given as max is not min > max", async () => {
      const res = await send(`{ domains(filter: { technologyInstalledAt: {
        technology: "Google Analytics", min: "2021-05-05T09:00:00Z", max: "2021-05-05" } }) {
        edges { node { name } } } }`);
      expectOk(res);
      // woo.example.org first had it at 2021-05-05T12:00:00+02:00, 10:00 UTC.
      expect(res.data).toEqual({ domains: { edges: [{ node: { name: "woo.example.org" } }] } });
    });

    it("a time before the year 1 is BAD_USER_INPUT, not a database error", async () => {
      // PostgreSQL holds no year 0: such a bound used to reach it and answer 500.
      for (const d of ["0000-06-01", "0001-01-01T00:30:00+01:00"]) {
        const res = await send(
          "query($d: DateTime) { domains(filter: { lastPlatformChangeAt: { max: $d } }) { totalCount } }",
          { d },
        );
        expect(res.errors?.[0]?.extensions?.code, d).toBe("BAD_USER_INPUT");
        expect(res.errors?.[0]?.message, d).toMatch(/year 1 or later/);
      }
    });

    it("a range without min and max is BAD_USER_INPUT", async () => {
      expectBadInput(
        await send(`{ domains(filter: { rank: {} }) { totalCount } }`),
        "filter.rank",
        /min, max or both/,
      );
    });

    it("an event filter takes exactly one App", async () => {
      for (const name of ["appInstalledAt", "appUninstalledAt"]) {
        const res = await send(`{ domains(filter: { ${name}: {
          app: "shopify.klaviyo,shopify.old-reviews", min: "2019-01-01" } }) { totalCount } }`);
        expectBadInput(res, `filter.${name}.app`, /exactly one/);
      }
      const res =
        await send(`{ domains(filter: { appInstalledAt: { app: "shopify.klaviyo", min: "2019-01-01" } }) {
        edges { node { name } } } }`);
      expectOk(res);
      // Klaviyo: installed 2021-01-01 by shop.example.com and 2020-01-01 by gone.example.net.
      expect(res.data).toEqual({
        domains: { edges: [{ node: { name: "shop.example.com" } }, { node: { name: "gone.example.net" } }] },
      });
    });

    // IntRange bounds are SafeInt: a count beyond 32 bits is a valid bound that nothing reaches
    // (employee_count, monthly_app_spend and installs are 32-bit columns).
    it("a range bound beyond 32 bits on a 32-bit column matches as a number, not a server error", async () => {
      // (src/query/filter.ts clamps such bounds: PostgreSQL refuses them as int parameters.)
      const res = await send(`{
        employees: domains(filter: { employeeCount: { min: 3000000000 } }) { totalCount }
        spend: domains(filter: { monthlyAppSpend: { max: 9007199254740991 } }) { totalCount }
        installs: apps(filter: { installs: { min: 3000000000 } }) { totalCount } }`);
      expectOk(res);
      // Only shop.example.com has a monthly_app_spend (150000).
      expect(res.data).toEqual({
        employees: { totalCount: 0 },
        spend: { totalCount: 1 },
        installs: { totalCount: 0 },
      });
    });
  });

  describe("values the schema rejects (GraphQL validation)", () => {
    it.each([
      ["yesterday", `domains(filter: { createdAt: { min: "yesterday" } })`],
      ["2020-13-45", `domains(filter: { createdAt: { max: "2020-13-45" } })`],
      ["2024-02-30", `domains(filter: { lastPlanChangeAt: { min: "2024-02-30" } })`],
      [
        "2024-03-01 12:30",
        `domains(filter: { appInstalledAt: { app: "shopify.klaviyo", min: "2024-03-01 12:30" } })`,
      ],
    ])("a date that is not a date (%s), as a literal", async (bad, field) => {
      expectValidationError(await send(`{ ${field} { totalCount } }`), new RegExp(`"${bad}"`));
    });

    it("a date that is not a date, in a variable", async () => {
      const res = await send(`query($f: DomainFilter) { domains(filter: $f) { totalCount } }`, {
        f: { createdAt: { min: "2020-13-45" } },
      });
      expectValidationError(res, /"2020-13-45"/);
      expect(res.errors?.[0].message).toMatch(/DateTime/);
    });

    it.each([
      ["POPULARITY", `{ domains(orderBy: [{ field: POPULARITY }]) { totalCount } }`],
      ["UP", `{ domains(orderBy: [{ field: RANK, direction: UP }]) { totalCount } }`],
      ["XOR", `{ domains(filter: { platform: { values: ["shopify"], op: XOR } }) { totalCount } }`],
      [
        "CREATED",
        `{ app(platform: "shopify", token: "klaviyo") { reviews(orderBy: { field: CREATED }) { totalCount } } }`,
      ],
    ])("an invalid enum value (%s), as a literal", async (bad, query) => {
      expectValidationError(await send(query), new RegExp(`"${bad}"`));
    });

    it("an invalid enum value, in a variable", async () => {
      const res = await send(`query($o: [DomainOrder!]) { domains(orderBy: $o) { totalCount } }`, {
        o: [{ field: "POPULARITY" }],
      });
      expectValidationError(res, /"POPULARITY"/);
    });
  });

  describe("lists of names and ids", () => {
    it("nodes takes at most 100 ids", async () => {
      const ids = Array.from({ length: 101 }, () => "QXBwOmFwcC0x"); // App:app-1
      const hundred = await send(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, {
        ids: ids.slice(0, 100),
      });
      expectOk(hundred);
      const res = await send(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids });
      expectBadInput(res, "ids");
    });

    it("a name that is not a domain name is BAD_USER_INPUT naming it", async () => {
      expectBadInput(await send(`{ domain(name: "not a domain") { name } }`), "name");
      expectBadInput(
        await send(`{ domainsByName(names: ["shop.example.com", "bad name!"]) { notFound } }`),
        "names[1]",
      );
    });
  });

  it("every response so far was free of 5xx statuses and stack traces", () => {
    // send() checked each one; this only makes sure the checks ran.
    expect(sent).toBeGreaterThan(40);
  });

  describe("after a refresh", () => {
    let refreshed: TestApi;
    const dir = tempDir("storegraph-gql-refresh-");

    beforeAll(async () => {
      refreshed = await startApi(kind, writeSnapshotDir(join(dir.dir, "first"), validFixture()));
    });
    afterAll(async () => {
      await refreshed?.close();
      dir.remove();
    });

    it("a cursor from before a new snapshot is CURSOR_EXPIRED; starting again works", async () => {
      const query = `query($after: String) { domains(first: 2, after: $after) {
        edges { node { name } } pageInfo { endCursor } } }`;
      type Page = { domains: { edges: { node: { name: string } }[]; pageInfo: { endCursor: string } } };
      const before = await refreshed.gql<Page>(query);
      expectOk(before);
      const oldCursor = before.data?.domains.pageInfo.endCursor;
      const reviewsBefore = await refreshed.gql<{ app: { reviews: { pageInfo: Cursors } } }>(
        `{ app(platform: "shopify", token: "klaviyo") { reviews(first: 1) { pageInfo { endCursor } } } }`,
      );
      const oldReviewCursor = reviewsBefore.data?.app.reviews.pageInfo.endCursor;

      // The same data, loaded again from another directory: a new snapshot version.
      await refreshed.load(writeSnapshotDir(join(dir.dir, "second"), validFixture()));
      const version = await refreshed.gql(`{ snapshot { version } }`);
      expect(version.data).toEqual({ snapshot: { version: 2 } });

      const expired = await refreshed.gql(query, { after: oldCursor });
      expectNoFault(expired);
      expect(expired.status).toBe(200);
      expect(expired.data).toBeNull();
      expect(expired.errors).toHaveLength(1);
      expect(expired.errors?.[0].extensions).toMatchObject({ code: "CURSOR_EXPIRED", argument: "after" });
      expect(expired.errors?.[0].message).toMatch(/expired because the data was refreshed/);

      const expiredReviews = await refreshed.gql(
        `query($after: String) { app(platform: "shopify", token: "klaviyo") { reviews(after: $after) { totalCount } } }`,
        { after: oldReviewCursor },
      );
      expectNoFault(expiredReviews);
      expect(expiredReviews.errors?.[0].extensions?.code).toBe("CURSOR_EXPIRED");

      const again = await refreshed.gql<Page>(query);
      expectOk(again);
      expect(again.data?.domains.edges.map((e) => e.node.name)).toEqual([
        "shop.example.com",
        "woo.example.org",
      ]);
      const next = await refreshed.gql<Page>(query, { after: again.data?.domains.pageInfo.endCursor });
      expectOk(next);
      expect(next.data?.domains.edges.map((e) => e.node.name)).toEqual([
        "gone.example.net",
        "old-shop.example.com",
      ]);
    });
  });
});
