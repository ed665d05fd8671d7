import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { PROMPTS } from "../../src/mcp/prompts.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { connect, textOf } from "../support/mcp.ts";

/**
 * An agent's questions (issue 75, item 7): what a sales or research user asks, each answered
 * through the SDK's client in at most 3 tool calls against the demo's data, the calls' answers
 * holding what the question needs. Each question's calls and bytes (what the client read: the
 * results as JSON) are the table of docs/mcp.md, "An agent's questions", which this test holds to
 * them. The prompts (src/mcp/prompts.ts) run here too: each one's calls, as its message gives them.
 */

type Json = Record<string, unknown>;
interface Question {
  question: string;
  calls: [string, Json][];
  /** What the answers must hold for the question to be answered. */
  check: (answers: Json[]) => void;
}

const domainsOf = (a: Json) => (a.domains as Json[]).map((d) => d.name);

const QUESTIONS: Question[] = [
  {
    question: "How many stores are on Shopify, and in which countries?",
    calls: [["facets", { "f.p": "shopify", facets: "cc", facet_size: 5 }]],
    check: ([f]) => expect(f.total).toBeGreaterThan(0),
  },
  {
    question: "How has the number of stores on Shopify changed over time?",
    calls: [["trends", { dimension: "p", values: "shopify" }]],
    check: ([t]) => expect((t.loads as Json[]).length).toBeGreaterThan(0),
  },
  {
    question: "Which stores in Germany use Klaviyo?",
    calls: [
      ["lookup", { text: "Deutschland", kinds: ["countries"] }],
      ["search_domains", { "f.cc": "DE", "f.an": "shopify.klaviyo", fields: "name,plan" }],
    ],
    check: ([l, s]) => {
      expect((l.best as Json[])[0].value).toBe("DE");
      expect(domainsOf(s)).toContain("de.example.com");
    },
  },
  {
    question: "Tell me about example.com.",
    calls: [["get_domain", { name: "example.com" }]],
    check: ([d]) => expect((d.domain as Json).platform).toBe("shopify"),
  },
  {
    question: "What has changed at example.com?",
    calls: [["changes", { name: "example.com", page_size: 5 }]],
    // The demo has one load, so no change yet: each there is would be example.com's.
    check: ([h]) => {
      for (const c of h.changes as Json[]) expect(c.domain).toBe("example.com");
      expect(h.has_next_page).toBe(false);
    },
  },
  {
    question: "What did example.com look like at the first load?",
    calls: [["get_domain", { name: "example.com", as_of: "1", fields: "name,platform,plan,apps" }]],
    check: ([d]) => expect((d.domain as Json).name).toBe("example.com"),
  },
  {
    question: "Which Shopify Apps are installed most?",
    calls: [["search_apps", { "f.p": "shopify", sort: "-installs", page_size: 5 }]],
    check: ([a]) => expect((a.apps as Json[]).length).toBeGreaterThan(0),
  },
  {
    question: "What do merchants say about Klaviyo?",
    calls: [
      ["lookup", { text: "klavio", kinds: ["apps"] }],
      ["reviews", { app: "shopify.klaviyo", page_size: 5 }],
    ],
    check: ([l, r]) => {
      expect((l.best as Json[])[0].value).toBe("shopify.klaviyo");
      expect(Array.isArray(r.reviews)).toBe(true);
    },
  },
  {
    question: "Which stores installed Klaviyo at the last load?",
    calls: [["changes", { app: "shopify.klaviyo", kinds: "app_installed", since: "0", page_size: 20 }]],
    check: ([c]) => {
      for (const e of c.changes as Json[]) expect(e).toMatchObject({ kind: "app_installed" });
    },
  },
  {
    question: "Save Shopify stores in the US as a segment, and how big is it?",
    calls: [
      ["edit_segment", { action: "save", segment: "shopify-us", "f.p": "shopify", "f.cc": "US" }],
      ["segments", { segment: "shopify-us" }],
    ],
    check: ([, g]) => expect((g.segment as Json).size).toBeGreaterThan(0),
  },
  {
    question: "Export every Shopify store in the US as CSV.",
    calls: [["export_segment", { "f.p": "shopify", "f.cc": "US", for: "csv", fields: "name,plan" }]],
    check: ([e]) => expect(e.url).toMatch(/cursor=all/),
  },
  {
    question: "Which technologies are commonest among UK stores?",
    calls: [
      ["lookup", { text: "UK", kinds: ["countries"] }],
      ["facets", { "f.cc": "GB", facets: "tech", facet_size: 5 }],
    ],
    check: ([l, f]) => {
      expect((l.best as Json[])[0].value).toBe("GB");
      expect(Object.keys(f.facets as Json)).toEqual(["tech"]);
    },
  },
  {
    question: "How are Shopify Apps spread over categories?",
    calls: [["facets", { of: "apps", "f.p": "shopify", facets: "categories", facet_size: 5 }]],
    check: ([f]) => expect(f.total).toBeGreaterThan(0),
  },
  {
    question: "What is the domain of Example Goods?",
    calls: [["lookup", { companies: ["Example Goods"] }]],
    check: ([l]) => {
      const [{ matches }] = l.lookups as { matches: { score: number; domain: Json }[] }[];
      expect(matches[0].score).toBe(1);
      expect(matches.map((m) => m.domain.name)).toContain("example.com");
    },
  },
  {
    question: "Which US stores are like example.com and de.example.com?",
    calls: [
      [
        "similar_domains",
        {
          domains: ["example.com", "de.example.com"],
          "f.cc": "US",
          page_size: 5,
          fields: "score,why,domain.name,domain.country_code",
        },
      ],
    ],
    check: ([l]) => {
      const similar = l.similar as { score: number; why: Json[]; domain: Json }[];
      expect(similar.length).toBeGreaterThan(0);
      expect(similar.map((x) => x.domain.name)).not.toContain("example.com");
      for (const x of similar) {
        expect(x.domain.country_code).toBe("US");
        expect(x.why.length).toBeGreaterThan(0);
      }
    },
  },
  {
    question: "Which other stores does the merchant of example.com run?",
    calls: [["similar_domains", { name: "example.com", page_size: 5 }]],
    check: ([r]) => {
      const related = r.related as { total: number; domains: { domain: Json; shared: Json[] }[] };
      expect(related.total).toBeGreaterThanOrEqual(related.domains.length);
      for (const d of related.domains) {
        expect(d.domain.name).not.toBe("example.com");
        expect(d.shared.length).toBeGreaterThan(0);
      }
    },
  },
  {
    question: "How much of my budget is left?",
    calls: [["usage", {}]],
    check: ([u]) => expect((u.usage as Json).plan).toBeDefined(),
  },
];

/** docs/mcp.md's table: question → [calls, bytes]. */
function documented(): Map<string, [number, number]> {
  const doc = readFileSync(join(import.meta.dirname, "../../docs/mcp.md"), "utf8");
  const section = doc.slice(doc.indexOf("## An agent's questions"));
  const rows = [...section.matchAll(/^\| (.+?) \| (\d+) \| ([\d,]+) \|$/gm)];
  return new Map(rows.map((m) => [m[1], [Number(m[2]), Number(m[3].replaceAll(",", ""))]]));
}

describe("An agent's questions", () => {
  it("are at least 12, each in at most 3 calls, and each in docs/mcp.md's table", () => {
    expect(QUESTIONS.length).toBeGreaterThanOrEqual(12);
    const table = documented();
    for (const q of QUESTIONS) {
      expect(q.calls.length, q.question).toBeLessThanOrEqual(3);
      expect(table.get(q.question)?.[0], q.question).toBe(q.calls.length);
    }
    expect(table.size).toBe(QUESTIONS.length);
  });
});

describe.each(databaseKinds())("an agent on the demo's data, on %s", (kind) => {
  let api: TestApi;
  let client: Client;
  const tmp = tempDir("storegraph-mcp-agent-");

  beforeAll(async () => {
    // The demo's data, as the docs' examples have it (their showcase records are in every one).
    await generateDataset({ domains: 300, apps: 40, seed: 5, outDir: tmp.dir });
    api = await startApi(kind, tmp.dir);
    client = await connect(api, api.key);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await api?.close();
    tmp.remove();
  });

  const call = async (tool: string, args: Json) => {
    const r = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    expect(r.isError ? `${tool}: ${textOf(r)}` : null).toBeNull();
    return r;
  };

  it("answers each question in its calls, within 30% of the bytes docs/mcp.md says", async () => {
    const table = documented();
    const measured: [string, number, number][] = [];
    for (const q of QUESTIONS) {
      const results = [];
      for (const [tool, args] of q.calls) results.push(await call(tool, args));
      q.check(results.map((r) => r.structuredContent as Json));
      const bytes = results.reduce((n, r) => n + Buffer.byteLength(JSON.stringify(r)), 0);
      measured.push([q.question, q.calls.length, bytes]);
    }
    console.log(measured.map(([q, c, b]) => `| ${q} | ${c} | ${b.toLocaleString("en")} |`).join("\n"));
    for (const [question, , bytes] of measured) {
      const doc = table.get(question)?.[1] ?? 0;
      expect(Math.abs(bytes - doc) / doc, `${question}: ${bytes} bytes, docs say ${doc}`).toBeLessThan(0.3);
    }
  });

  it("runs each prompt's calls as its message gives them", async () => {
    expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(
      PROMPTS.map((p) => p.name).sort(),
    );
    await call("edit_segment", { action: "save", segment: "report-me", "f.p": "shopify" });
    await call("edit_list", { action: "add", list: "customers", domains: ["example.com", "de.example.com"] });
    const args: Record<string, Record<string, string>> = {
      segment_weekly_report: { segment: "report-me" },
      list_lookalikes: { list: "customers", country: "US" },
      technology_changes: { technology: "Klaviyo" },
    };
    for (const spec of PROMPTS) {
      const got = await client.getPrompt({ name: spec.name, arguments: args[spec.name] });
      const text = (got.messages[0].content as { text: string }).text;
      const block = /```json\n([\s\S]*?)```/.exec(text)?.[1] ?? "";
      const calls = block
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { tool: string; arguments: Json });
      expect(calls.length, spec.name).toBeGreaterThan(1);
      const answers: Json[] = [];
      for (const c of calls) answers.push((await call(c.tool, c.arguments)).structuredContent as Json);
      if (spec.name === "list_lookalikes") {
        // The call its message says to make next: the list's names as seeds, the list left out.
        expect(text).toContain('bq: {"must_not":{"disjuncts":[{"field":"list","term":"customers"}]}}');
        const names = domainsOf(answers[0]);
        const similar = (
          await call("similar_domains", {
            domains: names,
            bq: { must_not: { disjuncts: [{ field: "list", term: "customers" }] } },
            "f.cc": "US",
            page_size: 20,
          })
        ).structuredContent as { similar: { domain: Json }[] };
        expect(similar.similar.length).toBeGreaterThan(0);
        for (const x of similar.similar) expect(names).not.toContain(x.domain.name);
      }
    }
    // A prompt's required argument is required.
    await expect(client.getPrompt({ name: "segment_weekly_report", arguments: {} })).rejects.toThrow();
  });
});
