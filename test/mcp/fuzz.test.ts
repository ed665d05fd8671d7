import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TOOLS } from "../../src/mcp/catalogue.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { wrap, wrapping } from "../support/encodings.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { errorLines, logged } from "../support/logs.ts";
import { connect, MCP_POST_HEADERS, textOf, toolCallBody } from "../support/mcp.ts";

// Random tool calls at every tool of the MCP server (src/mcp/catalogue.ts), through the SDK's own
// Client over Streamable HTTP: argument names from the tool's listed input schema mixed with junk,
// values of every JSON type (strings plausible and not, huge and fractional numbers, null, lists,
// objects). Whatever comes in, the call is answered (no JSON-RPC error: the SDK's client throws
// one, and throws too on an answer its output schema refuses), an error is a tool error in the
// API's format (`CODE: message`, the code in _meta) and never a server fault, and nothing is
// logged at error level. test/rest/fuzz.test.ts does the same for the REST routes.
// The bodies themselves are fuzzed too: JSON-RPC messages and junk POSTed to /mcp plain,
// compressed, mislabelled, cut short, under a Content-Encoding refused, or as a bomb
// (test/support/encodings.ts), read as the other faces read theirs.

vi.mock("../../src/logger.ts", async (original) =>
  (await import("../support/logs.ts")).capturingLogger(await original(), "warn"),
);
const RUNS = 40;

/** Codes that are the server's fault, not the call's. */
const FAULTS = ["INTERNAL_SERVER_ERROR", "DATABASE_UNAVAILABLE"];

const STRINGS = [
  "",
  " ",
  ",",
  "*",
  "all",
  "name",
  "name,plan,apps.name",
  "nope",
  "-rank",
  "rank",
  "bogus",
  "shopify",
  "shopfy",
  "shopify.klaviyo",
  "shopify.nope",
  "shop.example.com",
  "nope.example.com",
  "US",
  "USA",
  "Shopify Plus",
  "/Sports/Outdoor",
  "2020-01-01",
  "2020-02-30",
  "yesterday",
  "0",
  "-1",
  "1.5",
  "1000",
  "99999999999999999999",
  "NaN",
  "and",
  "or",
  "not",
  "json",
  "jsonl",
  "csv",
  "xml",
  "klavio",
  "leads",
  // The values that name a tool's form (of, action).
  "apps",
  "domains",
  "add",
  "remove",
  "delete",
  "save",
  '[{"field":"cc","value":"US"}]',
  '{"must":{"conjuncts":[{"field":"p","match":"shopify"}]}}',
  "[{",
  "{",
  "é,ü",
  "🙂",
  "\u0000",
  "\u202e",
  "a".repeat(300),
  "x,".repeat(600),
  "'; DROP TABLE domain; --",
  "__proto__",
];
const JUNK_KEYS = [
  "f.country",
  "f:cc",
  "f.",
  "page",
  "FIELDS",
  "__proto__",
  "constructor",
  "toString",
  "",
  " ",
];

const text = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...STRINGS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }) },
);
const leaf = fc.oneof(
  { weight: 6, arbitrary: text },
  { weight: 2, arbitrary: fc.integer({ min: -5, max: 200 }) },
  { weight: 1, arbitrary: fc.integer() },
  {
    weight: 1,
    arbitrary: fc.constantFrom(0.5, -0, 1e308, 2 ** 53, Number.MAX_SAFE_INTEGER + 2, 101, 1000),
  },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);
const anyValue = fc.oneof(
  { weight: 6, arbitrary: leaf },
  { weight: 2, arbitrary: fc.array(text, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(leaf, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(text, leaf, { maxKeys: 3 }) },
);

/** A tool's arguments: some of its own (mostly), some junk. */
const argumentsOf = (names: string[]) =>
  fc.dictionary(
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...names) },
      { weight: 1, arbitrary: fc.constantFrom(...JUNK_KEYS) },
      { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
    ),
    anyValue,
    { maxKeys: 5 },
  );

/** Values a good call could carry for an argument, so that calls also get past validation. */
const PLAUSIBLE: Record<string, unknown[]> = {
  name: ["shop.example.com"],
  app: ["shopify.klaviyo"],
  list: ["leads"],
  domains: [["shop.example.com"], ["shop.example.com", "nope.example.com"]],
  fields: ["name", "name,plan", "name,apps.name", "*", "id,name", "rating"],
  page_size: [1, 5, 10],
  page: [0, 1],
  sort: ["rank", "-rank", "name", "-installs"],
  "f.p": ["shopify", "woocommerce"],
  "f.cc": ["US", "US,DE"],
  "f.an": ["shopify.klaviyo"],
  "f.ermin": [0, "1000"],
  text: ["klavio", "shopify plus", "US"],
  kinds: [["apps"], ["plans", "platforms"]],
  limit: [1, 3],
  facets: ["cc", "cc,p"],
  histogram: ["er"],
  facet_size: [3],
  q: ["shop", "klaviyo"],
  cursor: [""],
  since: ["2020-01-01"],
};
const plausible = (name: string) =>
  PLAUSIBLE[name]
    ? fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...PLAUSIBLE[name]) },
        { weight: 1, arbitrary: anyValue },
      )
    : anyValue;

/** Arguments a good call could have: the required ones and a few others, mostly plausible. */
const plausibleArguments = (names: string[], required: string[]) =>
  fc
    .uniqueArray(fc.constantFrom(...names), { maxLength: 3 })
    .chain((keys) =>
      fc.tuple(...[...new Set([...required, ...keys])].map((k) => plausible(k).map((v) => [k, v] as const))),
    )
    .map((pairs) => Object.fromEntries(pairs));

describe.each(databaseKinds())("MCP fuzz on %s", (kind) => {
  let api: TestApi;
  let client: Client;
  let tools: Tool[];
  const tmp = tempDir("storegraph-mcp-fuzz-");
  /** The URLs of the exports a call started: polled to the end before the database goes. */
  const jobs = new Set<string>();
  let sent = 0;
  let answered = 0;

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
    client = await connect(api, api.key);
    tools = (await client.listTools()).tools;
  });
  afterAll(async () => {
    await client?.close();
    for (const url of jobs) {
      for (let i = 0; i < 200; i++) {
        const res = await api.app.fetch(url);
        await res.arrayBuffer();
        if (res.status !== 202 && res.status !== 429) break;
        await new Promise((r) => setTimeout(r, res.status === 429 ? 1000 : 25));
      }
    }
    await api?.close();
    tmp.remove();
  });

  async function check(tool: string, args: Record<string, unknown>): Promise<void> {
    const what = `${tool} ${JSON.stringify(args).slice(0, 400)}`;
    logged.length = 0;
    let r: CallToolResult;
    try {
      r = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    } catch (e) {
      // A JSON-RPC error, or an answer the client's check of the output schema refused.
      expect.fail(`${what} → ${(e as Error).message}`);
    }
    sent++;
    const said = textOf(r);
    const shown = `${what} → ${said.slice(0, 400)}`;
    expect(errorLines(), shown).toEqual([]);
    if (r.isError) {
      const m = /^([A-Z_]+): \S/.exec(said);
      expect(m, shown).not.toBeNull();
      expect(r._meta?.code, shown).toBe(m?.[1]);
      expect(FAULTS, shown).not.toContain(m?.[1]);
      expect(said, shown).not.toMatch(/MCP error|-32602|\n\s+at |prisma|SQLITE|invocation/i);
      return;
    }
    answered++;
    expect(typeof r.structuredContent, shown).toBe("object");
    const url = (r.structuredContent as { url?: unknown }).url;
    if (tool === "export_segment" && typeof url === "string") jobs.add(url);
  }

  it.each(TOOLS.map((t) => t.name))("%s: fuzzed arguments are answered, never a fault", async (name) => {
    const tool = tools.find((t) => t.name === name);
    expect(tool, name).toBeDefined();
    const names = Object.keys(tool?.inputSchema.properties ?? {});
    // Tools without arguments of their own (lists) are fuzzed with junk alone.
    const own = names.length ? names : JUNK_KEYS;
    const args = fc.oneof(
      argumentsOf(own),
      plausibleArguments(own, (tool?.inputSchema.required as string[] | undefined) ?? []),
    );
    await fc.assert(
      fc.asyncProperty(args, async (a) => {
        await check(name, a);
      }),
      { numRuns: RUNS },
    );
  });

  it("called every tool, and many calls got past validation", () => {
    expect(sent).toBe(RUNS * TOOLS.length);
    expect(answered).toBeGreaterThan(sent / 8);
  });

  it("any body, in any coding, at /mcp: read as REST and GraphQL read theirs, never a fault", async () => {
    const message = fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(
            fc.constantFrom(
              // An export's job would outlive the test: its calls are the property's above.
              ...TOOLS.filter((t) => t.name !== "export_segment").map((t) => t.name),
            ),
            fc.dictionary(text, leaf, { maxKeys: 3 }),
          )
          .map(([tool, args]) => toolCallBody(tool, args)),
      },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom("tools/list", "resources/list", "ping", "nope")
          .map((method) => JSON.stringify({ jsonrpc: "2.0", id: 7, method })),
      },
      { weight: 1, arbitrary: fc.json() },
      { weight: 1, arbitrary: fc.constantFrom(...STRINGS) },
      { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    );
    let bodies = 0;
    let results = 0;
    await fc.assert(
      fc.asyncProperty(message, wrapping, async (body, w) => {
        const wrapped = await wrap(body, w);
        const headers: Record<string, string> = { ...MCP_POST_HEADERS };
        if (wrapped.encoding !== undefined) headers["content-encoding"] = wrapped.encoding;
        logged.length = 0;
        const res = await api.app.fetch("http://localhost/mcp", {
          method: "POST",
          headers,
          body: wrapped.body,
        });
        const said = await res.text();
        const what = `${w.kind} ${wrapped.encoding ?? ""} ${body.slice(0, 200)} → ${res.status} ${said.slice(0, 300)}`;
        bodies++;
        expect(res.status, what).toBeLessThan(500);
        // JSON, or nothing at all: 202 for a message that is no request (notifications alone).
        if (res.status === 202) expect(said, what).toBe("");
        else expect(res.headers.get("content-type") ?? "", what).toMatch(/^application\/json/);
        expect(said, what).not.toMatch(/INTERNAL_SERVER_ERROR|\n\s+at |"stack"|prisma|SQLITE/i);
        if (wrapped.status !== undefined) expect(res.status, what).toBe(wrapped.status);
        // A body in a coding is the same body plain: answered alike.
        if (w.kind === "coded" || w.kind === "identity") {
          const plain = await api.app.fetch("http://localhost/mcp", {
            method: "POST",
            headers: MCP_POST_HEADERS,
            body,
          });
          expect(res.status, what).toBe(plain.status);
          const unwrapped = await plain.text();
          expect(said.includes('"result"'), what).toBe(unwrapped.includes('"result"'));
        }
        if (res.status === 200 && said.includes('"result"')) results++;
        expect(errorLines(), what).toEqual([]);
      }),
      { numRuns: RUNS * 4 },
    );
    expect(bodies).toBe(RUNS * 4);
    expect(results).toBeGreaterThan(bodies / 8);
  });
});
