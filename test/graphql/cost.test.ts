import { type GraphQLObjectType, getNamedType, isNonNullType, isObjectType, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { directiveArgs } from "../../src/auth/limits.ts";
import { cachedCost, MAX_COST, operationCost, SCANNING, weighingVariables } from "../../src/cost.ts";
import { FACETS } from "../../src/query/facets.ts";
import { legacyFields } from "../../src/rest/fields.ts";
import { Options } from "../../src/rest/options.ts";
import { planRequest } from "../../src/rest/plan.ts";
import { OPERATIONS } from "../../src/rest/routes.ts";
import { schema } from "../../src/schema/index.ts";

/**
 * The cost model (src/cost.ts): what operations cost, that the cost follows `first`, and that the
 * limit admits every request the REST API can make, at its largest.
 */
const cost = (query: string, variables: Record<string, unknown> = {}) =>
  operationCost({ schema, document: parse(query), variableValues: variables });

describe("operation cost", () => {
  it("is 1 per field, a connection's selection once per item asked for", () => {
    // domains 1 + 1000 × (edges 0 + node 1 + name 1)
    expect(cost("{ domains(first: 1000) { edges { node { name } } } }")).toBe(2001);
    expect(cost("{ domains(first: 10) { edges { node { name } } } }")).toBe(21);
    // The default page is 50.
    expect(cost("{ domains { edges { node { name } } } }")).toBe(101);
    expect(cost("query($n: Int) { domains(first: $n) { edges { node { name } } } }", { n: 7 })).toBe(15);
  });

  it("never weighs a cursor: every paged field costs the same wherever its page starts", () => {
    const type = (t: GraphQLObjectType) => t;
    const query = schema.getQueryType() as GraphQLObjectType;
    const paged = Object.values(type(query).getFields()).filter((f) =>
      f.args.some((a) => a.name === "after" || a.name === "before"),
    );
    expect(paged.map((f) => f.name)).toEqual(expect.arrayContaining(["domains", "apps", "changes"]));
    for (const field of paged) {
      const cursor = field.args.find((a) => a.name === "after" || a.name === "before")?.name as string;
      // Its other required arguments (a list's name) as a string.
      const required = field.args
        .filter((a) => isNonNullType(a.type) && a.defaultValue === undefined)
        .map((a) => {
          expect(String(a.type), `${field.name}(${a.name})`).toMatch(/^(String!|\[String!\]!)$/);
          return String(a.type) === "String!" ? `${a.name}: "x", ` : `${a.name}: ["x"], `;
        })
        .join("");
      const q = `query($c: String) { ${field.name}(${required}first: 5, ${cursor}: $c) { __typename } }`;
      expect(cost(q, { c: "123" }), field.name).toBe(cost(q, { c: null }));
    }
    // Every argument named as a cursor, on any type, is one (a String the cost never reads): a
    // field whose `after` meant something else would be weighed wrongly by the kept costs.
    for (const named of Object.values(schema.getTypeMap())) {
      if (!isObjectType(named)) continue;
      for (const f of Object.values(named.getFields()))
        for (const a of f.args)
          if (a.name === "after" || a.name === "before")
            expect(String(a.type), `${named.name}.${f.name}(${a.name})`).toBe("String");
    }
    // So a cost kept for a document does not key on variables given only as cursors ...
    const document = parse("query($c: String, $n: Int) { changes(first: $n, after: $c) { nodes { id } } }");
    const at = (variableValues: Record<string, unknown>) => cachedCost({ schema, document, variableValues });
    expect(at({ c: "1", n: 10 })).toBe(at({ c: "99", n: 10 }));
    // ... and still on the others: the page size is weighed.
    expect(at({ c: "1", n: 100 })).toBe(1 + 100 * 1);
    expect(at({ c: "1", n: 10 })).toBe(1 + 10 * 1);
    // Only variables given as nothing but cursors are left out of the key.
    expect([...weighingVariables(schema, document)]).toEqual(["n"]);
    for (const q of [
      "query($c: String) { changes(first: 3, after: $c, filter: { since: $c }) { nodes { id } } }",
      "query($c: String) { changes(after: $c) { nodes { id } } domains(filter: { name: { eq: $c } }) { totalCount } }",
      "query($c: String) { changes(after: $c, filter: { kinds: [$c] }) { nodes { id } } }",
    ])
      expect([...weighingVariables(schema, parse(q))], q).toEqual(["c"]);
  });

  it("keys a kept cost only on the variables that can change it", () => {
    const weighing = (q: string) => [...weighingVariables(schema, parse(q))].sort();
    // A lookup's name, a filter's values: the field costs what its definition says.
    expect(weighing("query($n: String!) { domain(name: $n) { name apps { app { name } } } }")).toEqual([]);
    // A connection's page size weighs, its cursor does not; a filter's values do not.
    expect(
      weighing(
        "query($f: Int, $c: String, $cc: String!) { domains(first: $f, after: $c, filter: { countryCode: { values: [$cc] } }) { edges { node { name } } } }",
      ),
    ).toEqual(["cc", "f"]);
    // The names of domainsByName, however given; a directive's condition; a scanning field's arguments.
    expect(weighing('query($a: String!) { domainsByName(names: [$a, "b"]) { domains { name } } }')).toEqual([
      "a",
    ]);
    expect(
      weighing('query($i: Boolean!) { domain(name: "x") { name apps @include(if: $i) { app { name } } } }'),
    ).toEqual(["i"]);
    expect(
      weighing("query($d: [DomainFacetDimension!]!) { domains(first: 0) { facets(by: $d) { otherCount } } }"),
    ).toEqual(["d"]);
    // So the cost of a lookup is walked once whatever the name, and each kept cost is the cost.
    const lookup = parse(
      "query($n: String!, $i: Boolean!) { domain(name: $n) { name technologies @include(if: $i) { name } } }",
    );
    for (const variableValues of [
      { n: "a.com", i: true },
      { n: "b.com", i: true },
      { n: "b.com", i: false },
    ])
      expect(cachedCost({ schema, document: lookup, variableValues })).toBe(
        operationCost({ schema, document: lookup, variableValues }),
      );
    expect(cachedCost({ schema, document: lookup, variableValues: { n: "c.com", i: true } })).toBe(
      1 + 1 + 1 + 10 * 1,
    );
  });

  it("multiplies nested lists: a page of 1000 Domains with their reviews costs what it costs", () => {
    const flat = cost("{ domains(first: 1000) { edges { node { name } } } }");
    const nested = cost(
      "{ domains(first: 1000) { edges { node { name appReviews(first: 50) { edges { node { rating } } } } } } }",
    );
    // Each Domain adds appReviews 1 + 50 × (node 1 + rating 1).
    expect(nested - flat).toBe(1000 * (1 + 50 * 2));
    // Other lists count 10 items: domain 1 + technologies (1 + 10 × name 1).
    expect(cost('{ domain(name: "x") { technologies { name } } }')).toBe(1 + 1 + 10 * 1);
    expect(cost('{ domainsByName(names: ["a", "b", "c"]) { domains { name } } }')).toBe(1 + 3 * (1 + 1 * 1));
  });

  it("charges facets and histograms by their statements and the snapshot's records, once per connection", () => {
    const served = (domains: number, apps = 100) =>
      ({ served: { snapshot: { version: 1, domains, apps } } }) as unknown as Record<string, unknown>;
    const at = (query: string, context: unknown) =>
      operationCost({ schema, document: parse(query), variableValues: {}, contextValue: context });
    const page = (first: number) => `domains(first: ${first}) { totalCount }`;
    const faceted = (first: number) =>
      `domains(first: ${first}) { totalCount facets(by: [CITY, APPS, CATEGORIES]) { values { value count } otherCount } histogram(field: RANK) { buckets { from } } }`;
    for (const first of [0, 50, 1000]) {
      // Three dimensions and a histogram (2 statements), each 1,000,000 / 100, whatever the page.
      expect(
        at(`{ ${faceted(first)} }`, served(1_000_000)) - at(`{ ${page(first)} }`, served(1_000_000)),
      ).toBe(5 * 10_000);
      expect(at(`{ ${faceted(first)} }`, served(2_000)) - at(`{ ${page(first)} }`, served(2_000))).toBe(
        5 * 20,
      );
    }
    // Without a served snapshot, a million records; App facets by the Apps' count.
    expect(cost("{ domains(first: 0) { facets(by: [CITY]) { otherCount } } }")).toBe(1 + 10_000);
    expect(at("{ apps(first: 0) { facets(by: [PRICING, STATE]) { otherCount } } }", served(1, 5_000))).toBe(
      1 + 2 * 50,
    );
    // Under a list of parents, once per parent: 50 Apps × 5 dimensions × 10,000 is over the limit.
    const nested =
      "{ apps(first: 50) { edges { node { installedOn(first: 0) { facets(by: [CITY, APPS, CATEGORIES, TAGS, PLAN]) { otherCount } } } } } }";
    expect(at(nested, served(1_000_000))).toBeGreaterThan(MAX_COST);
    expect(at(nested.replace("first: 50", "first: 2"), served(1_000_000))).toBeLessThan(MAX_COST);
  });

  it("knows every scanning field by name, so documents without one skip the scan walk", () => {
    const names = new Set<string>();
    for (const type of Object.values(schema.getTypeMap()))
      if (isObjectType(type))
        for (const f of Object.values(type.getFields())) if (f.extensions?.scans) names.add(f.name);
    expect([...names].sort()).toEqual([...SCANNING].sort());
  });

  it("refuses deep fan-outs that a client could not mean", () => {
    expect(
      cost(
        "{ domains(first: 1000) { edges { node { appReviews(first: 50) { edges { node { domains { domain { apps { app { name } } } } } } } } } } }",
      ),
    ).toBeGreaterThan(MAX_COST);
  });

  /** Every legacy field of a type that a list may return. */
  const everyField = (type: string, single: boolean, exclude: string[] = []) =>
    [...legacyFields(schema.getType(type) as GraphQLObjectType)]
      .filter(([name, info]) => (single || !info.singleOnly) && !exclude.includes(name))
      .map(([name]) => name)
      .join(",");

  /** The largest request of each REST route: every field, the largest page or batch. */
  const LARGEST: Record<
    string,
    {
      type: string;
      single: boolean;
      params: Record<string, string>;
      options: Record<string, unknown>;
      exclude?: string[];
    }
  > = {
    retrieveApp: { type: "App", single: true, params: { app: "shopify.x" }, options: {} },
    listAppReviews: {
      type: "AppReview",
      single: false,
      params: { app: "shopify.x" },
      options: { page_size: "50" },
      exclude: ["app"],
    },
    listApps: { type: "App", single: false, params: {}, options: { page_size: "50" } },
    searchApps: { type: "App", single: false, params: {}, options: { page_size: "50" } },
    retrieveDomain: { type: "Domain", single: true, params: { name: "x.com" }, options: {} },
    lookupDomains: {
      type: "DomainMatch",
      single: false,
      params: {},
      options: { company: "example shop", page_size: "100" },
    },
    bulkLookupDomains: {
      type: "DomainLookup",
      single: false,
      params: {},
      options: { companies: Array.from({ length: 100 }, (_, i) => `company ${i}`), page_size: "100" },
    },
    relatedDomains: {
      type: "DomainRelated",
      single: true,
      params: { name: "x.com" },
      options: { page_size: "1000" },
    },
    similarDomains: {
      type: "SimilarDomain",
      single: false,
      params: {},
      options: { domains: Array.from({ length: 1000 }, (_, i) => `d${i}.com`), page_size: "1000" },
    },
    domainSimilar: {
      type: "SimilarDomain",
      single: false,
      params: { name: "x.com" },
      options: { page_size: "1000" },
    },
    bulkRetrieveDomains: {
      type: "Domain",
      single: false,
      params: {},
      options: { domains: Array.from({ length: 100 }, (_, i) => `d${i}.com`) },
    },
    listDomainAppReviews: {
      type: "AppReview",
      single: false,
      params: { name: "x.com" },
      options: { page_size: "50" },
    },
    listDomains: { type: "Domain", single: false, params: {}, options: { page_size: "1000" } },
    searchDomains: { type: "Domain", single: false, params: {}, options: { page_size: "1000" } },
    listChanges: { type: "Change", single: false, params: {}, options: { page_size: "1000" } },
    listLists: { type: "DomainList", single: false, params: {}, options: {} },
    listSnapshots: { type: "Snapshot", single: false, params: {}, options: {} },
    domainTrends: {
      type: "TrendLoad",
      single: false,
      params: {},
      options: { dimension: "tech", values: Array.from({ length: 100 }, (_, i) => `v${i}`).join(",") },
    },
    appTrends: { type: "TrendLoad", single: false, params: {}, options: { dimension: "p", top: "100" } },
    domainHistory: {
      type: "Change",
      single: false,
      params: { name: "x.com" },
      options: { page_size: "1000" },
    },
    listListDomains: { type: "Domain", single: false, params: { list: "x" }, options: { page_size: "1000" } },
    deleteList: { type: "DomainList", single: true, params: { list: "x" }, options: {} },
    addDomainsToList: {
      type: "DomainList",
      single: true,
      params: { list: "x" },
      options: { domains: Array.from({ length: 1000 }, (_, i) => `d${i}.com`) },
    },
    removeDomainsFromList: {
      type: "DomainList",
      single: true,
      params: { list: "x" },
      options: { domains: Array.from({ length: 1000 }, (_, i) => `d${i}.com`) },
    },
    createWebhook: {
      type: "Webhook",
      single: true,
      params: {},
      options: { url: "https://example.com/hook", kinds: ["domain_added"], filter: { "f:cc": "US" } },
    },
    listSegments: { type: "Segment", single: false, params: {}, options: {}, exclude: ["history"] },
    retrieveSegment: { type: "Segment", single: true, params: { segment: "x" }, options: {} },
    saveSegment: {
      type: "Segment",
      single: true,
      params: { segment: "x" },
      options: { "f:cc": "US", q: "shoes" },
      exclude: ["history"],
    },
    deleteSegment: {
      type: "Segment",
      single: true,
      params: { segment: "x" },
      options: {},
      exclude: ["history", "size"],
    },
    listWebhooks: { type: "Webhook", single: false, params: {}, options: {} },
    deleteWebhook: { type: "Webhook", single: true, params: { webhook: "wh_x" }, options: {} },
    testWebhook: { type: "WebhookDelivery", single: true, params: { webhook: "wh_x" }, options: {} },
    listWebhookDeliveries: {
      type: "WebhookDelivery",
      single: false,
      params: { webhook: "wh_x" },
      options: { page_size: "100" },
    },
    retryWebhookDelivery: {
      type: "WebhookDelivery",
      single: true,
      params: { webhook: "wh_x", delivery: "msg_x" },
      options: {},
    },
    // Every dimension and every histogram, at a million records (no snapshot in the context).
    ...Object.fromEntries(
      (["domainFacets", "searchDomainFacets", "appFacets", "searchAppFacets"] as const).map((id) => {
        const table = id.toLowerCase().includes("domain") ? "domain" : "app";
        return [
          id,
          {
            type: table === "domain" ? "Domain" : "App",
            single: false,
            params: {},
            options: {
              facets: Object.values(FACETS[table].dimensions)
                .map((d) => d.option)
                .join(","),
              facet_size: 100,
              histogram: Object.values(FACETS[table].histograms)
                .map((h) => `${h.option}:50`)
                .join(","),
            },
          },
        ];
      }),
    ),
  };

  it.each(OPERATIONS.filter((r) => r.route.query).map((r) => [r.id, r] as const))(
    "%s: its largest request costs well under the limit",
    (id, route) => {
      const largest = LARGEST[id];
      expect(largest, `no largest request for ${id}`).toBeDefined();
      const options = Options.fromBody({
        ...largest.options,
        fields: everyField(largest.type, largest.single, largest.exclude),
      });
      const plan = planRequest(route.route, largest.params, options);
      const c = operationCost({ schema, document: plan.document(), variableValues: plan.variables });
      expect(c).toBeGreaterThan(10);
      expect(c).toBeLessThan(MAX_COST / 2);
    },
  );

  it.each(OPERATIONS.filter((r) => r.route.query).map((r) => [r.id, r] as const))(
    "%s: the root field of its operation draws with its endpoint's limiter",
    (_id, route) => {
      const plan = planRequest(
        route.route,
        { app: "shopify.x", name: "x.com", list: "x", webhook: "wh_x", delivery: "msg_x" },
        Options.fromBody(
          route.id === "createWebhook"
            ? { url: "https://example.com/hook" }
            : {
                domains: ["x.com"],
                dimension: route.id === "appTrends" ? "p" : "tech",
                company: "x",
                companies: ["x"],
              },
        ),
      );
      const doc = plan.document();
      const op = doc?.definitions[0];
      if (op?.kind !== "OperationDefinition") throw new Error("no operation");
      const root = op.selectionSet.selections[0];
      if (root.kind !== "Field") throw new Error("no root field");
      const rootType = route.route.mutation ? schema.getMutationType() : schema.getQueryType();
      const field = rootType?.getFields()[root.name.value];
      if (!field) throw new Error(`no root field ${root.name.value}`);
      const directives = (field.extensions as { directives?: Record<string, unknown> }).directives;
      expect(directives?.rateLimit).toEqual(directiveArgs(route.route.endpoint));
      expect(isObjectType(getNamedType(field.type))).toBe(true);
    },
  );
});
