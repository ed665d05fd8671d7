import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { answered } from "../../src/mcp/answer.ts";
import { TOOLS } from "../../src/mcp/catalogue.ts";
import { FILTERS_URI } from "../../src/mcp/filter-grammar.ts";
import { refusal } from "../../src/mcp/http.ts";
import {
  DOMAIN_FIELDS,
  endpointOf,
  formOf,
  MAX_ANSWER_BYTES,
  type ToolSpec,
} from "../../src/mcp/tool-spec.ts";
import { VOCABULARY_KINDS } from "../../src/query/vocabularies.ts";
import { OPERATIONS } from "../../src/rest/routes.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { manyDomainsFixture } from "../support/fixture-graphql.ts";
import { connect, MCP_POST_HEADERS, textOf, toolCallBody } from "../support/mcp.ts";

/**
 * The MCP server at /mcp (docs/mcp.md), driven by the SDK's own Client over its Streamable HTTP
 * transport, through the app's whole pipeline (app.fetch: auth, budgets, the JSON errors): every
 * tool with good and bad input, answers equal to REST's for the same question, 401 and 429.
 * stdio: test/mcp/stdio.test.ts; the documented examples: test/mcp/examples.test.ts.
 */

const BASE = "http://localhost/json/api/v1/all";
/** A pause past a per-second budget's window (the tests run with budgets on). */
const aSecond = () => new Promise((resolve) => setTimeout(resolve, 1100));
type Json = Record<string, unknown>;

describe.each(databaseKinds())("MCP over Streamable HTTP on %s", (kind) => {
  let api: TestApi;
  let client: Client;
  let key: string;
  const tmp = tempDir("storegraph-mcp-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()), {
      rateLimits: { enabled: true, redisUrl: null },
    });
  });
  // A key of its own per test: budgets are on (the 429 test), and each test's calls stay within them.
  beforeEach(async () => {
    key = await api.createKey("enterprise", "mcp");
    client = await connect(api, key);
  });
  afterEach(async () => {
    await client?.close();
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  /** A REST answer's JSON, asked with `key`. */
  async function rest(
    path: string,
    init: RequestInit = {},
    as = key,
  ): Promise<{ status: number; body: Json }> {
    const res = await api.app.fetch(`${BASE}${path}`, {
      ...init,
      headers: { "content-type": "application/json", authorization: `Bearer ${as}` },
    });
    return { status: res.status, body: (await res.json()) as Json };
  }
  const call = (name: string, args: Json = {}, c = client) =>
    c.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  it("initializes, and lists every tool of the catalogue with its input and output schemas", async () => {
    expect(client.getServerVersion()?.name).toBe("storegraph");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type).toBe("object");
      expect(t.description?.length).toBeGreaterThan(40);
    }
    // Generated from List Domains' options, `:` written `.`: the filters told once, in a grammar in
    // search_domains' description (src/mcp/filter-grammar.ts), not listed one by one by each tool.
    const search = tools.find((t) => t.name === "search_domains");
    const props = Object.keys(search?.inputSchema.properties ?? {});
    expect(props).toEqual(expect.arrayContaining(["aq", "bq", "sort", "fields", "cursor"]));
    expect(props.filter((p) => p.startsWith("f."))).toEqual([]);
    expect(props.every((p) => /^[a-zA-Z0-9_.-]{1,64}$/.test(p))).toBe(true);
    // What every tool shares is said once, in the instructions: the default fields among it.
    expect(client.getInstructions()).toContain(`the Domain set (${DOMAIN_FIELDS})`);
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(false);
    expect(client.getServerCapabilities()?.resources?.listChanged).toBe(false);
    for (const option of ["f.cc country code", "f.plan platform plan", "f.ermin/max estimated monthly sales"])
      expect(search?.description).toContain(option);
    for (const name of ["facets", "changes", "similar_domains", "export_segment", "edit_segment"]) {
      const t = tools.find((x) => x.name === name);
      expect(
        Object.keys(t?.inputSchema.properties ?? {}).filter(
          (p) => p.startsWith("f.") || p === "aq" || p === "bq",
        ),
        name,
      ).toEqual([]);
      expect(t?.description, name).toMatch(/Filters: f\.\*(, aq, bq, q)?, as in search_domains/);
    }
    // The whole list an agent reads before its first question: 82 KB for 16 tools before the filters
    // were told once; 30.1 KB for the 29 tools of the whole API; 19.9 KB once each family of
    // operations is one tool of several forms (facets, trends, reviews, a list's and a segment's
    // changes, …: 16 tools) and what every tool shares is said once (issue 75: at most 20 KB).
    expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThanOrEqual(20_000);
  });

  it("every Domain filter is a resource of its own, and the tools take the filters they no longer list", async () => {
    const read = await client.readResource({ uri: FILTERS_URI });
    const { filters } = JSON.parse((read.contents[0] as { text: string }).text) as {
      filters: { option: string; argument: string; description: string }[];
    };
    const options = (OPERATIONS.find((o) => o.id === "searchDomains")?.options ?? [])
      .map((o) => o.name)
      .filter((n) => n.startsWith("f:"));
    expect(filters.map((f) => f.option)).toEqual(options);
    expect(filters.find((f) => f.option === "f:cc")).toMatchObject({ argument: "f.cc" });
    // Unlisted, taken all the same, and checked by the API as REST checks them.
    const r = await call("facets", {
      "f.p": "shopify",
      "f.cc.op": "or",
      "f.cc": "US,DE",
      facets: "cc",
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(r.structuredContent).toEqual(
      (await rest("/domain/facets?f:p=shopify&f:cc:op=or&f:cc=US,DE&facets=cc")).body,
    );
    // Each form says the filter arguments it takes: the feed none of aq, bq and q, the Apps' facets q.
    const { tools } = await client.listTools();
    const described = Object.fromEntries(tools.map((t) => [t.name, t.description ?? ""]));
    expect(described.changes).toContain("Filters: f.*, as in search_domains (without name).");
    expect(described.facets).toContain("f.*, q, as in search_apps (of apps)");
    expect(textOf(await call("changes", { q: "shop" }))).toMatch(/^BAD_USER_INPUT: unknown option "q"/);
    const bad = await call("changes", { "f.cc.op": "xor" });
    expect(textOf(bad)).toMatch(/^BAD_USER_INPUT: f:cc:op/);
  });

  it("answers a client that reads only text: each answer's data as compact JSON in a text block, the same as its structured content", async () => {
    const name = (
      (await call("search_domains", { page_size: 1, fields: "name" })).structuredContent as {
        domains: Json[];
      }
    ).domains[0].name as string;
    const calls: [string, Json][] = [
      ["search_domains", { "f.p": "shopify", page_size: 3, fields: "name,plan" }],
      ["search_domains", { page_size: 50, fields: "*" }], // cut to fit: the text says so, and holds the cut page
      ["get_domain", { name }],
      ["get_domain", { domains: [name, "nope.example.com"] }],
      ["facets", { facets: "p,cc" }],
      ["search_apps", { page_size: 2 }],
      ["changes", { page_size: 2 }],
      ["usage", {}],
      ["lookup", { text: "klavio" }],
      ["export_segment", { "f.p": "shopify", dry_run: true }],
    ];
    for (const [tool, args] of calls) {
      const r = await call(tool, args);
      expect(r.isError, `${tool}: ${textOf(r)}`).toBeFalsy();
      // What a text-only client sees: the text blocks, a line saying what the answer holds, then its JSON.
      const texts = r.content.filter((c) => c.type === "text").map((c) => (c as { text: string }).text);
      expect(texts, tool).toHaveLength(2);
      expect(texts[0], tool).not.toMatch(/structured content/);
      expect(JSON.parse(texts[1]), tool).toEqual(r.structuredContent);
      // Compact, and within the answer's cap.
      expect(texts[1], tool).toBe(JSON.stringify(r.structuredContent));
      expect(Buffer.byteLength(texts[1]), tool).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    }
    // An error is one text block, naming what was wrong.
    const bad = await call("search_domains", { "f.p": "shopfy" });
    expect(bad.isError).toBe(true);
    expect(bad.content).toHaveLength(1);
  });

  it("search_domains answers as List Domains does for the same options", async () => {
    const args = { "f.p": "shopify", sort: "name", page_size: 1, fields: "name,plan,country_code" };
    const r = await call("search_domains", args);
    expect(r.isError).toBeFalsy();
    const { body } = await rest("/domain?f:p=shopify&sort=name&page_size=1&fields=name,plan,country_code");
    expect(r.structuredContent).toEqual(body);
    expect(textOf(r)).toMatch(/^1 Domains.*more: cursor/);
    // The next page, by its cursor.
    const next = await call("search_domains", { ...args, cursor: body.next_cursor });
    const { body: page2 } = await rest(
      `/domain?f:p=shopify&sort=name&page_size=1&fields=name,plan,country_code&cursor=${encodeURIComponent(String(body.next_cursor))}`,
    );
    expect(next.structuredContent).toEqual(page2);
    // The compact default: 10 records, the named fields.
    const d = await call("search_domains", {});
    const domains = (d.structuredContent as { domains: Json[] }).domains;
    expect(Object.keys(domains[0])).toEqual(expect.arrayContaining(["name", "platform"]));
    expect(Object.keys(domains[0])).not.toContain("technologies");
  });

  it("refuses bad input with the API's message and its suggestion", async () => {
    const r = await call("search_domains", { "f.country": "US" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('unknown filter "f:country" (did you mean "f:cc"?)');
    const p = await call("search_domains", { "f.p": "shopfy" });
    expect(textOf(p)).toContain('f:p: unknown platform "shopfy" (did you mean "shopify"');
    const all = await call("search_domains", { cursor: "all" });
    expect(textOf(all)).toContain("export_segment");
  });

  it("refuses arguments its schema refuses as the API refuses them, naming the argument", async () => {
    // The SDK checks a call's arguments against the tool's schema first: its refusals are the API's.
    const cases: [string, Json, string][] = [
      ["search_domains", { page_size: 1000 }, "page_size: must be at most 100; got 1000"],
      ["search_domains", { page_size: 0 }, "page_size: must be at least 1; got 0"],
      ["search_domains", { page_size: 2.5 }, "page_size: must be an integer; got 2.5"],
      ["search_domains", { fields: 3 }, "fields: must be a string; got 3"],
      ["get_domain", {}, "name or domains: required"],
      ["get_domain", { name: "" }, "name: must not be empty"],
      ["get_domain", { domains: "a.example.com" }, 'domains: must be a list; got "a.example.com"'],
      ["facets", { of: "app" }, 'of: must be one of domains, apps; got "app" (did you mean "apps"?)'],
      ["edit_list", { list: "x", domains: ["a.example.com"] }, "action: required"],
      ["reviews", { app: "shopify.klaviyo", name: "shop.example.com" }, "app, name: give one, not both"],
      ["reviews", {}, "app or name: required"],
      ["lookup", {}, "text or companies: required"],
      [
        "similar_domains",
        { domains: ["shop.example.com"], page_size: 500 },
        "page_size: must be at most 100 with domains; got 500",
      ],
      [
        "lookup",
        { text: "klavio", kinds: ["apps", "plns"] },
        `kinds[1]: must be one of ${VOCABULARY_KINDS.join(", ")}; got "plns" (did you mean "plans"?)`,
      ],
      ["lookup", { text: "klavio", limit: 9 }, "limit: must be at most 5; got 9"],
    ];
    for (const [tool, args, message] of cases) {
      const r = await call(tool, args);
      expect.soft(r.isError, tool).toBe(true);
      expect.soft(textOf(r), tool).toBe(`BAD_USER_INPUT: ${message}`);
      expect.soft(r._meta?.code, tool).toBe("BAD_USER_INPUT");
    }
    // The schema listed still states the bounds.
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === "search_domains");
    const pageSize = (search?.inputSchema.properties as Record<string, Json> | undefined)?.page_size;
    expect(pageSize).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
    expect(pageSize).not.toHaveProperty("default");
    expect(tools.find((t) => t.name === "edit_list")?.inputSchema.required).toEqual(["action", "list"]);
    // An argument of one form only asks that form: not required by the tool.
    expect(tools.find((t) => t.name === "get_domain")?.inputSchema.required).toBeUndefined();
  });

  it("every tool refuses bad input with a tool error carrying the API's code and message", async () => {
    const bad: [string, Json, RegExp][] = [
      ["search_domains", { sort: "-estimated_sale" }, /^BAD_USER_INPUT: sort: cannot sort by/],
      ["get_domain", { name: "shop.example.com", fields: "nme" }, /^BAD_USER_INPUT: .*did you mean "name"/],
      [
        "get_domain",
        { domains: Array.from({ length: 101 }, (_, i) => `d${i}.example.com`) },
        /^BAD_USER_INPUT: domains/,
      ],
      ["facets", { facet_size: 1000 }, /^BAD_USER_INPUT: facet_size/],
      ["facets", { of: "apps", facets: "cc" }, /^BAD_USER_INPUT: facets/],
      ["search_apps", { app: "shopify.nope" }, /^NOT_FOUND: /],
      ["search_apps", { "f.as": "Sleeping" }, /^BAD_USER_INPUT: f:as/],
      ["reviews", { app: "shopify.klaviyo", page: -1 }, /^BAD_USER_INPUT: page/],
      ["reviews", { name: "nope.example.com" }, /^NOT_FOUND: /],
      ["changes", { since: "yesterday" }, /^BAD_USER_INPUT: since/],
      ["changes", { name: "shop.example.com", page_size: 0 }, /^BAD_USER_INPUT: page_size/],
      [
        "changes",
        { name: "shop.example.com", kinds: "domain_added" },
        /^BAD_USER_INPUT: unknown option "kinds"/,
      ],
      ["lists", { page: 2 }, /^BAD_USER_INPUT: unknown option "page"/],
      ["edit_list", { action: "add", list: "x", domains: [] }, /^BAD_USER_INPUT: domains/],
      [
        "edit_list",
        { action: "remove", list: "no-such-list", domains: ["shop.example.com"] },
        /^NOT_FOUND: |^BAD_USER_INPUT: /,
      ],
      ["edit_list", { action: "delete", list: "no-such-list" }, /^NOT_FOUND: /],
      ["usage", { page: 1 }, /^BAD_USER_INPUT: unknown option "page"/],
      ["export_segment", { "f.cc": "USA" }, /^BAD_USER_INPUT: f:cc/],
      ["lookup", { text: " " }, /^BAD_USER_INPUT: text/],
      ["lookup", { companies: ["Allbirds", " "] }, /^BAD_USER_INPUT: companies\[1\]/],
      ["lookup", { text: "klavio", page_size: 3 }, /^BAD_USER_INPUT: unknown option "page_size": with text/],
      ["similar_domains", { name: "nope.example.com" }, /^NOT_FOUND: /],
      ["similar_domains", { domains: [] }, /^BAD_USER_INPUT: domains/],
      ["trends", {}, /^BAD_USER_INPUT: dimension: is required/],
      ["trends", { of: "apps", dimension: "cc" }, /^BAD_USER_INPUT: dimension/],
      ["segments", { page: 1 }, /^BAD_USER_INPUT: unknown option "page"/],
      ["segments", { segment: "no-such-segment" }, /^NOT_FOUND: /],
      ["edit_segment", { action: "save", segment: "x", "f.cc": "USA" }, /^BAD_USER_INPUT: f:cc/],
      ["edit_segment", { action: "delete", segment: "no-such-segment" }, /^NOT_FOUND: /],
      ["snapshot_files", { fields: "versions" }, /^BAD_USER_INPUT: fields/],
    ];
    expect(new Set(bad.map(([tool]) => tool))).toEqual(new Set(TOOLS.map((t) => t.name)));
    const drawn = new Map<string, number>();
    for (const [tool, args, message] of bad) {
      // Past 5 calls on one per-second budget, a pause (the budgets are on).
      const endpoint = String(endpointOf(formOf(TOOLS.find((t) => t.name === tool) as ToolSpec, args)));
      drawn.set(endpoint, (drawn.get(endpoint) ?? 0) + 1);
      if ((drawn.get(endpoint) ?? 0) % 6 === 0) await aSecond();
      const r = await call(tool, args);
      expect.soft(r.isError, tool).toBe(true);
      expect.soft(textOf(r), tool).toMatch(message);
    }
  });

  it("get_domain (one Domain, or many) and reviews (a Domain's) answer as their REST routes", async () => {
    const one = await call("get_domain", { name: "shop.example.com", fields: "name,plan,apps.name" });
    expect(one.structuredContent).toEqual(
      (await rest("/domain/shop.example.com?fields=name,plan,apps.name")).body,
    );
    const missing = await call("get_domain", { name: "nope.example.com" });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^NOT_FOUND: /);
    const bulk = await call("get_domain", {
      domains: ["shop.example.com", "nope.example.com"],
      fields: "name",
    });
    const restBulk = await rest("/domain/bulk", {
      method: "POST",
      body: JSON.stringify({ domains: ["shop.example.com", "nope.example.com"], fields: "name" }),
    });
    expect(bulk.structuredContent).toEqual(restBulk.body);
    expect(textOf(bulk)).toContain("not found: nope.example.com");
    const badBulk = await call("get_domain", { domains: [] });
    expect(badBulk.isError).toBe(true);
    const reviews = await call("reviews", { name: "shop.example.com" });
    expect(reviews.structuredContent).toEqual(
      (await rest("/domain/shop.example.com/app_reviews?page_size=10&fields=updated_at,rating,body,app"))
        .body,
    );
    expect(((reviews.structuredContent as { reviews: Json[] }).reviews[0] ?? { app: {} }).app).toBeDefined();
  });

  it("get_domain with as_of answers the Domain as it was, as GET /domain/{name}?as_of= does", async () => {
    // Without fields: every field the as-of answer has, not the Domain's compact defaults.
    const { body } = await rest("/domain/shop.example.com?as_of=1");
    expect((body.domain as Json).covers).toEqual(expect.arrayContaining(["platform", "apps"]));
    const asOf = await call("get_domain", { name: "shop.example.com", as_of: "1" });
    expect(asOf.isError, textOf(asOf)).toBeFalsy();
    expect(asOf.structuredContent).toEqual(body);
    const some = await call("get_domain", { name: "shop.example.com", as_of: "1", fields: "name,plan" });
    expect(some.structuredContent).toEqual(
      (await rest("/domain/shop.example.com?as_of=1&fields=name,plan")).body,
    );
    // A bad as_of is refused naming it.
    const bad = await call("get_domain", { name: "shop.example.com", as_of: "last week" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^BAD_USER_INPUT: as_of: /);
    const { tools } = await client.listTools();
    const properties = tools.find((t) => t.name === "get_domain")?.inputSchema.properties;
    expect((properties as Record<string, Json> | undefined)?.fields?.description).toContain(
      "with as_of, every field it answers",
    );
  });

  it("facets answers as GET /domain/facets, and with of apps as GET /app/facets", async () => {
    const r = await call("facets", { "f.p": "shopify", facets: "plan,cc", histogram: "er" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual(
      (await rest("/domain/facets?f:p=shopify&facets=plan,cc&histogram=er")).body,
    );
    const bad = await call("facets", { facets: "country" });
    expect(textOf(bad)).toContain("did you mean");
    const apps = await call("facets", {
      of: "apps",
      "f.p": "shopify",
      facets: "categories",
      histogram: "ic",
    });
    expect(apps.isError, textOf(apps)).toBeFalsy();
    expect(apps.structuredContent).toEqual(
      (await rest("/app/facets?f:p=shopify&facets=categories&histogram=ic")).body,
    );
    expect(textOf(apps)).toMatch(/Apps match/);
  });

  it("search_apps (and one App) and reviews (an App's) answer as their REST routes", async () => {
    const app = await call("search_apps", { app: "shopify.klaviyo", fields: "name,installs" });
    expect(app.structuredContent).toEqual((await rest("/app/shopify.klaviyo?fields=name,installs")).body);
    const typo = await call("search_apps", { app: "shopfy.klaviyo" });
    expect(typo.isError).toBe(true);
    const apps = await call("search_apps", { "f.p": "shopify", fields: "id,name" });
    expect(apps.structuredContent).toEqual((await rest("/app?f:p=shopify&fields=id,name&page_size=10")).body);
    const reviews = await call("reviews", { app: "shopify.klaviyo", fields: "rating" });
    expect(reviews.structuredContent).toEqual(
      (await rest("/app/shopify.klaviyo/reviews?fields=rating&page_size=10")).body,
    );
    const badSort = await call("reviews", { app: "shopify.klaviyo", sort: "nope" });
    expect(badSort.isError).toBe(true);
  });

  it("changes answers as GET /changes", async () => {
    const r = await call("changes", { page_size: 5 });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual((await rest("/changes?page_size=5")).body);
    const bad = await call("changes", { kinds: "domain_addded" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain("did you mean");
  });

  it("lists and edit_list: add, show, a list's Domains (search_domains with f.list), remove, delete", async () => {
    const added = await call("edit_list", {
      action: "add",
      list: "leads",
      domains: ["shop.example.com", "nope.example.com"],
    });
    expect(added.isError).toBeFalsy();
    expect(added.structuredContent).toMatchObject({
      count_domains_added: 1,
      unrecognized_domains: ["nope.example.com"],
    });
    const lists = await call("lists");
    expect(lists.structuredContent).toEqual((await rest("/list")).body);
    const domains = await call("search_domains", { "f.list": "leads", fields: "name" });
    expect(domains.structuredContent).toEqual((await rest("/list/leads?fields=name&page_size=10")).body);
    const removed = await call("edit_list", {
      action: "remove",
      list: "leads",
      domains: ["shop.example.com"],
    });
    expect(removed.structuredContent).toMatchObject({ count_domains_removed: 1 });
    await aSecond(); // List Domains' budget: 6 a second on this plan, and lists draw on it
    const deleted = await call("edit_list", { action: "delete", list: "leads" });
    expect(deleted.isError, textOf(deleted)).toBeFalsy();
    expect((await rest("/list/leads")).status).toBe(404);
    const bad = await call("edit_list", { action: "add", list: "leads", domains: "shop.example.com" });
    expect(bad.isError).toBe(true);
  });

  it("each record type's fields are a resource, every one a name the tools' fields argument takes", async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    for (const type of ["domain", "app", "app_review", "change", "segment"])
      expect(uris).toContain(`storegraph://fields/${type}`);
    const read = await client.readResource({ uri: "storegraph://fields/domain" });
    const { fields } = JSON.parse((read.contents[0] as { text: string }).text) as {
      fields: { field: string; default: boolean; fields?: { field: string; single_only?: true }[] }[];
    };
    const names = fields.map((f) => f.field);
    expect(names).toEqual(expect.arrayContaining(["name", "platform", "plan", "apps", "technologies"]));
    expect(fields.find((f) => f.field === "apps")?.fields?.map((f) => f.field)).toContain("name");
    // Every field, and every nested one but those the resource says only the one-record tools answer, at once:
    // none refused.
    const nested = (f: (typeof fields)[number]) =>
      (f.fields ?? []).filter((c) => !c.single_only).map((c) => `${f.field}.${c.field}`);
    const all = fields.flatMap((f) => [f.field, ...nested(f)]);
    const r = await call("get_domain", { name: "shop.example.com", fields: all.join(",") });
    expect(r.isError, textOf(r)).toBeFalsy();
  });

  it("errors name the tool to call, not the REST request", async () => {
    const r = await call("edit_list", { action: "delete", list: "no-such-list" });
    expect(textOf(r)).toMatch(/^NOT_FOUND: no list named "no-such-list" \(the tool lists shows/);
    const s = await call("segments", { segment: "no-such-segment" });
    expect(textOf(s)).toContain("the tool segments shows");
    expect(textOf(s)).not.toMatch(/GET \//);
  });

  it("trends (of Domains, of Apps), a Domain's changes, App facets answer as their REST routes", async () => {
    const pairs: [string, Json, string][] = [
      [
        "trends",
        { dimension: "p", values: "shopify,bigcommerce" },
        "/trends?dimension=p&values=shopify,bigcommerce",
      ],
      ["trends", { of: "apps", dimension: "p" }, "/app/trends?dimension=p"],
      ["changes", { name: "shop.example.com" }, "/domain/shop.example.com/history?page_size=20"],
      [
        "facets",
        { of: "apps", "f.p": "shopify", facets: "categories" },
        "/app/facets?f:p=shopify&facets=categories",
      ],
    ];
    for (const [tool, args, path] of pairs) {
      const r = await call(tool, args);
      expect(r.isError, `${tool}: ${textOf(r)}`).toBeFalsy();
      expect(r.structuredContent, tool).toEqual((await rest(path)).body);
    }
    // Refused as REST refuses, naming the argument and what it meant.
    const bad = await call("trends", { dimension: "platform" });
    expect(textOf(bad)).toMatch(/^BAD_USER_INPUT: dimension: .*p/);
    expect(textOf(await call("facets", { of: "apps", facets: "p" }))).toMatch(/Apps match/);
  });

  it("segments and edit_segment: save, show, get, delete, as their REST routes", async () => {
    const saved = await call("edit_segment", {
      action: "save",
      segment: "shop-us",
      "f.p": "shopify",
      "f.cc": "US",
    });
    expect(saved.isError, textOf(saved)).toBeFalsy();
    expect((saved.structuredContent as { segment: Json }).segment).toMatchObject({ name: "shop-us" });
    expect((await call("segments")).structuredContent).toEqual((await rest("/segment")).body);
    const got = await call("segments", { segment: "shop-us" });
    expect(got.structuredContent).toEqual((await rest("/segment/shop-us")).body);
    // Its Domains, by f.segment, as the description says.
    await aSecond(); // List Domains' budget: 6 a second on this plan, and segments draw on it
    const members = await call("search_domains", { "f.segment": "shop-us", fields: "name" });
    expect(members.structuredContent).toEqual(
      (await rest("/domain?f:segment=shop-us&fields=name&page_size=10")).body,
    );
    await aSecond();
    const deleted = await call("edit_segment", { action: "delete", segment: "shop-us" });
    expect(deleted.isError, textOf(deleted)).toBeFalsy();
    expect((await rest("/segment/shop-us")).status).toBe(404);
    const gone = await call("segments", { segment: "shop-us" });
    expect(gone.isError).toBe(true);
    const bad = await call("edit_segment", { action: "save", segment: "x", "f.country": "US" });
    expect(textOf(bad)).toMatch(/f:country.*f:cc/);
  });

  it("usage answers as GET /json/api/v1/usage", async () => {
    const r = await call("usage", { fields: "plan,key_id" });
    const res = await api.app.fetch("http://localhost/json/api/v1/usage?fields=plan,key_id", {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(r.structuredContent).toEqual(await res.json());
    const bad = await call("usage", { fields: "nope" });
    expect(bad.isError).toBe(true);
  });

  it("lookup with text finds the values near a free text; the vocabularies are resources", async () => {
    const r = await call("lookup", { text: "klavio" });
    expect(r.isError).toBeFalsy();
    const m = (r.structuredContent as { matches: Record<string, { value: string }[]> }).matches;
    expect(m.apps.map((e) => e.value)).toContain("shopify.klaviyo");
    const plan = await call("lookup", { text: "shopify plus", kinds: ["plans"] });
    expect(
      (plan.structuredContent as { matches: { plans: { value: string }[] } }).matches.plans[0].value,
    ).toBe("Shopify Plus");
    const country = await call("lookup", { text: "united states", kinds: ["countries"] });
    expect(
      (country.structuredContent as { matches: { countries: { value: string }[] } }).matches.countries[0],
    ).toEqual({ value: "US", name: "United States", score: 1 });
    // As people write it, and the best of all vocabularies first, with the filter that takes it.
    const us = await call("lookup", { text: "Estados Unidos" });
    expect((us.structuredContent as { best: Json[] }).best[0]).toEqual({
      kind: "countries",
      filter: "f:cc",
      value: "US",
      name: "United States",
      score: 1,
    });
    expect(textOf(us)).toMatch(/^Best: US \(countries, f:cc, 1\)/);
    const platform = await call("lookup", { text: "shopfy", kinds: ["platforms"] });
    expect(textOf(platform)).toContain("shopify");
    const bad = await call("lookup", { text: "x", kinds: ["colours"] });
    expect(bad.isError).toBe(true);
    const { resources } = await client.listResources();
    expect(resources.map((x) => x.uri)).toContain("storegraph://vocabulary/apps");
    const read = await client.readResource({ uri: "storegraph://vocabulary/plans" });
    expect(JSON.parse((read.contents[0] as { text: string }).text).plans).toEqual(
      expect.arrayContaining([{ value: "Shopify Plus" }]),
    );
  });

  it("export_segment starts the cursor=all job and answers its status and URL, never the records", async () => {
    const exportKey = await api.createKey("enterprise", "export");
    const c = await connect(api, exportKey);
    try {
      const r = await c.callTool({ name: "export_segment", arguments: { "f.p": "shopify", fields: "name" } });
      expect(r.isError).toBeFalsy();
      const s = r.structuredContent as { status: string; url: string; total: number };
      expect(s.status).toBe("running");
      expect(s.url).toMatch(new RegExp(`^${BASE}/domain\\?.*cursor=all`));
      // The URL is the same job's: asked at once, REST refuses the poll for its spacing.
      const polled = await api.app.fetch(s.url, { headers: { authorization: `Bearer ${exportKey}` } });
      expect(polled.status).toBe(429);
      expect(((await polled.json()) as Json).error).toContain("poll a job at most once every 5 seconds");
      // Polled again at once: the API's spacing, as a tool error that says when to retry.
      const again = (await c.callTool({
        name: "export_segment",
        arguments: { "f.p": "shopify", fields: "name" },
      })) as CallToolResult;
      expect(again.isError).toBe(true);
      expect(textOf(again)).toMatch(/^RATE_LIMITED: .*retry in \d+ s/);
      const bad = (await c.callTool({ name: "export_segment", arguments: { for: "xml" } })) as CallToolResult;
      expect(bad.isError).toBe(true);
    } finally {
      await c.close();
    }
  });

  it("429 past a budget: a tool error that says when to retry, on the REST endpoint's budget", async () => {
    const pro = await api.createKey("pro", "pro");
    const c = await connect(api, pro);
    try {
      // List Domains: 2 a second for pro, drawn on by REST and the tool alike.
      const statuses = [(await rest("/domain?page_size=1", {}, pro)).status];
      const results: CallToolResult[] = [];
      for (let i = 0; i < 2; i++)
        results.push(
          (await c.callTool({ name: "search_domains", arguments: { page_size: 1 } })) as CallToolResult,
        );
      statuses.push((await rest("/domain?page_size=1", {}, pro)).status);
      const refused = results.find((r) => r.isError);
      expect(refused).toBeDefined();
      expect(textOf(refused as CallToolResult)).toMatch(
        /^RATE_LIMITED: rate limit of List Domains exceeded .*retry in \d+ s/,
      );
      expect(refused?._meta).toMatchObject({ code: "RATE_LIMITED", retry_after: expect.any(Number) });
      expect(statuses).toEqual([200, 429]);
    } finally {
      await c.close();
    }
  });

  it("/mcp's answer carries the rate-limit fields of the budget its tool call drew on", async () => {
    const pro = await api.createKey("pro", "mcp headers");
    const post = (body: string) =>
      api.app.fetch("http://localhost/mcp", {
        method: "POST",
        headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${pro}` },
        body,
      });
    const fields = (res: Response) =>
      ["x-ratelimit-limit", "x-ratelimit-remaining", "ratelimit-policy", "ratelimit"].map((n) =>
        res.headers.get(n),
      );
    // get_domain: Retrieve a Domain (5 a second for pro), as REST's own answer says it.
    const one = await post(toolCallBody("get_domain", { name: "shop.example.com", fields: "name" }));
    expect(one.status).toBe(200);
    expect(fields(one)).toEqual(["5", "4", '"retrieveDomain";q=5;w=1', '"retrieveDomain";r=4;t=1']);
    expect(one.headers.get("x-ratelimit-reset")).toBe("1");
    await one.text();
    // lookup with text draws on the same budget, outside a REST operation.
    const two = await post(toolCallBody("lookup", { text: "shopify", kinds: ["platforms"] }));
    expect(fields(two)).toEqual(["5", "3", '"retrieveDomain";q=5;w=1', '"retrieveDomain";r=3;t=1']);
    await two.text();
    // A look-up refused (an argument of the companies' form) draws nothing, as REST refuses first.
    const refused = await post(toolCallBody("lookup", { text: "shopify", page_size: 3 }));
    expect(await refused.text()).toContain("unknown option");
    expect(fields(refused)).toEqual([null, null, null, null]);
    const three = await post(toolCallBody("lookup", { text: "shopify", kinds: ["platforms"] }));
    expect(fields(three)[1]).toBe("2");
    await three.text();
    // search_domains: List Domains (2 a second); past it, the tool error's answer says so too.
    const headers: (string | null)[][] = [];
    for (let i = 0; i < 3; i++) {
      const res = await post(toolCallBody("search_domains", { page_size: 1 }));
      headers.push(fields(res));
      await res.text();
    }
    expect(headers.map((h) => h[3]?.replace(/;t=\d+$/, ""))).toEqual([
      '"listDomains";r=1',
      '"listDomains";r=0',
      '"listDomains";r=0',
    ]);
    expect(headers[2][2]).toBe('"listDomains";q=2;w=1');
    // A message that draws on no budget (a ping, the tools' list) carries none.
    const ping = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
    expect(ping.status).toBe(200);
    expect(fields(ping)).toEqual([null, null, null, null]);
  });

  it("401 without a valid key, as the API answers it", async () => {
    const mcp = await api.app.fetch("http://localhost/mcp", {
      method: "POST",
      headers: {
        authorization: "Bearer nope",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: "{}",
    });
    const restAnswer = await api.app.fetch(`${BASE}/domain`, { headers: { authorization: "Bearer nope" } });
    expect(mcp.status).toBe(401);
    const { request_id: _a, ...mcpBody } = (await mcp.json()) as Json;
    const { request_id: _b, ...restBody } = (await restAnswer.json()) as Json;
    expect(mcpBody).toEqual(restBody);
    await expect(connect(api, "nope")).rejects.toThrow();
  });

  it("refuses another Origin (DNS rebinding), and answers its own", async () => {
    const init = (origin: string) => ({
      method: "POST",
      headers: {
        origin,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    const evil = await api.app.fetch("http://localhost/mcp", init("http://evil.example"));
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as Json).code).toBe("FORBIDDEN");
    const own = await api.app.fetch("http://localhost/mcp", init("http://localhost"));
    expect(own.status).toBe(200);
    // A tool call as one POST, no session first (stateless), as the bench sends it.
    const call = await api.app.fetch("http://localhost/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "get_domain", arguments: { name: "shop.example.com", fields: "name" } },
      }),
    });
    expect(((await call.json()) as { result: { structuredContent: Json } }).result.structuredContent).toEqual(
      {
        domain: { name: "shop.example.com" },
      },
    );
    // Stateless: no server stream (GET), no session (DELETE).
    const get = await api.app.fetch("http://localhost/mcp", { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });
});

describe("bounded answers", () => {
  const spec = TOOLS.find((t) => t.name === "search_domains") as (typeof TOOLS)[number];
  const domain = (i: number) => ({ name: `shop${i}.example.com`, description: "x".repeat(1000) });

  it("cuts records past MAX_ANSWER_BYTES from the end, and says so and how to get the rest", () => {
    const body = {
      domains: Array.from({ length: 100 }, (_, i) => domain(i)),
      has_next_page: true,
      next_cursor: "abc",
    };
    const r = answered(spec, body);
    const s = r.structuredContent as {
      domains: { name: string }[];
      cut: { shown: number; of: number; rest: string };
    };
    expect(Buffer.byteLength(JSON.stringify(s))).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect(s.cut.of).toBe(100);
    expect(s.cut.shown).toBe(s.domains.length);
    expect(s.domains.length).toBeGreaterThan(50);
    expect(s.domains[0].name).toBe("shop0.example.com");
    expect(s.cut.rest).toContain(`page_size ${s.cut.shown}`);
    expect(textOf(r)).toContain("cut from 100");
  });

  it("refuses one record over the bound, saying what to ask for instead", () => {
    const one = TOOLS.find((t) => t.name === "get_domain") as (typeof TOOLS)[number];
    const r = answered(one, { domain: { name: "big.example.com", description: "x".repeat(70_000) } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^ANSWER_TOO_LARGE: .*ask for fewer fields/);
  });

  it("refuses a page of which not even the first record fits, rather than answer none of them", () => {
    const big = { name: "big.example.com", description: "x".repeat(70_000) };
    const r = answered(spec, { domains: [big, domain(1)], has_next_page: true, next_cursor: "abc" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^ANSWER_TOO_LARGE: one record alone is over .*ask for fewer fields/);
  });

  it("leaves an answer within the bound whole", () => {
    const body = { domains: [domain(0)], has_next_page: false };
    const r = answered(spec, { ...body });
    expect(r.structuredContent).toEqual(body);
  });
});

describe("/mcp's Origin and Host checks (DNS rebinding)", () => {
  const req = (host: string, origin?: string) =>
    new Request("http://placeholder/mcp", {
      method: "POST",
      headers: { host, ...(origin ? { origin } : {}) },
    });
  const loopback = { allowedHosts: ["localhost", "127.0.0.1", "[::1]"], origins: [] };

  it("answers the loopback names only, whatever the port, where so configured", () => {
    expect(refusal(req("localhost:8080"), loopback)).toBeNull();
    expect(refusal(req("[::1]:8080"), loopback)).toBeNull();
    expect(refusal(req("attacker.example:8080"), loopback)).toContain('Host "attacker.example:8080"');
    expect(refusal(req("attacker.example"), { allowedHosts: null, origins: [] })).toBeNull();
  });

  it("takes the gateway's own Origin and the CORS origins, and refuses any other", () => {
    const policy = { allowedHosts: null, origins: ["https://app.example.com"] };
    expect(refusal(req("api.example.com", "https://api.example.com"), policy)).toBeNull();
    expect(refusal(req("api.example.com", "https://app.example.com"), policy)).toBeNull();
    expect(refusal(req("api.example.com", "https://evil.example"), policy)).toContain(
      'Origin "https://evil.example"',
    );
    expect(refusal(req("api.example.com", "null"), policy)).toContain('Origin "null"');
  });
});

describe.each(databaseKinds())("cut pages keep every record on %s", (kind) => {
  let api: TestApi;
  let client: Client;
  const tmp = tempDir("storegraph-mcp-cut-");
  const DOMAINS = 150;

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), manyDomainsFixture(DOMAINS - 4)), {
      rateLimits: { enabled: true, redisUrl: null },
    });
    client = await connect(api, api.key);
  });
  afterAll(async () => {
    await client?.close();
    await api?.close();
    tmp.remove();
  });

  it("a cut page's next_cursor follows its last record shown: following it reaches every Domain once", async () => {
    const res = await api.app.fetch("http://localhost/json/api/v1/all/domain?fields=name&page_size=1000");
    const every = ((await res.json()) as { domains: { name: string }[] }).domains.map((d) => d.name);
    expect(every).toHaveLength(DOMAINS);
    const seen: string[] = [];
    let cursor: string | undefined;
    let cuts = 0;
    const said: string[] = [];
    for (let calls = 0; calls < DOMAINS; calls++) {
      const r = (await client.callTool({
        name: "search_domains",
        arguments: { page_size: 100, fields: "*", ...(cursor ? { cursor } : {}) },
      })) as CallToolResult;
      expect(r.isError, textOf(r)).toBeFalsy();
      const s = r.structuredContent as {
        domains: { name: string }[];
        has_next_page: boolean;
        next_cursor?: string;
        cut?: { shown: number; of: number; rest: string };
      };
      expect(Buffer.byteLength(JSON.stringify(s))).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
      seen.push(...s.domains.map((d) => d.name));
      if (s.cut) {
        cuts++;
        expect(s.cut.shown).toBe(s.domains.length);
        expect(s.cut.shown).toBeLessThan(s.cut.of);
        said.push(s.cut.rest, textOf(r));
        expect(textOf(r)).toContain(`cut from ${s.cut.of}`);
      }
      if (!s.has_next_page) break;
      cursor = s.next_cursor;
      // Within the harness key's 6 List Domains a second.
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // Cut at least once (the 8 of 100), and no Domain skipped nor shown twice.
    expect(cuts).toBeGreaterThan(0);
    expect(seen).toEqual(every);
    // And each cut answer says where its next_cursor goes on from.
    for (const text of said) expect(text).toContain("next_cursor continues after the last record shown");
  });

  it("a cut answer draws once on its budget: the page read again to fit draws on nothing", async () => {
    // A pro key: 2 List Domains a second. The cut call and one REST request fit in them; had the
    // cut call drawn twice, the REST request of the same second would be refused (429).
    const key = await api.createKey("pro", "cut");
    const pro = await connect(api, key);
    try {
      const r = (await pro.callTool({
        name: "search_domains",
        arguments: { page_size: 100, fields: "*" },
      })) as CallToolResult;
      expect(r.isError, textOf(r)).toBeFalsy();
      expect((r.structuredContent as { cut?: unknown }).cut).toBeDefined();
      const res = await api.app.fetch("http://localhost/json/api/v1/all/domain?fields=name&page_size=1", {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status, await res.text()).toBe(200);
    } finally {
      await pro.close();
    }
  });

  it("a cut last page says where its records go on: its next_cursor reaches those cut", async () => {
    // The page of the last 100 Domains: nothing follows it, but what it could not show does.
    const res = await api.app.fetch(
      `http://localhost/json/api/v1/all/domain?fields=name&page_size=${DOMAINS - 100}`,
    );
    const first = (await res.json()) as { next_cursor: string };
    const r = (await client.callTool({
      name: "search_domains",
      arguments: { page_size: 100, fields: "*", cursor: first.next_cursor },
    })) as CallToolResult;
    const s = r.structuredContent as { domains: unknown[]; has_next_page: boolean; next_cursor?: string };
    expect(s.domains.length).toBeLessThan(100);
    expect(s.has_next_page).toBe(true);
    expect(typeof s.next_cursor).toBe("string");
  });
});
