import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHOWCASE_APPS, SHOWCASE_DOMAINS } from "../../src/dataset/generate/showcase.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { P1 } from "../../src/dataset/platforms.ts";
import { TOOLS } from "../../src/mcp/catalogue.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { connect, documentedExamples, textOf } from "../support/mcp.ts";

/**
 * docs/mcp.md's examples run: each ```json example block is called, in the document's order,
 * through the SDK's own Client, against a generated dataset as the demo is, and answers without a
 * tool error. Every tool has one, and the records they name are the demo's.
 */

const EXAMPLES = documentedExamples();

describe("docs/mcp.md", () => {
  it("has an example of every tool", () => {
    expect(new Set(EXAMPLES.map((e) => e.tool))).toEqual(new Set(TOOLS.map((t) => t.name)));
  });

  it("names only records the demo has (its showcase records), or names that say they are absent", () => {
    const domains = new Set(SHOWCASE_DOMAINS.map((d) => d.identity.name));
    const apps = new Set(SHOWCASE_APPS.map((a) => `${P1}.${a.token}`));
    const named: string[] = [];
    for (const { tool, arguments: args } of EXAMPLES) {
      const a = args as Record<string, unknown>;
      for (const name of [a.name, a.domain, ...(Array.isArray(a.domains) ? a.domains : [])])
        if (typeof name === "string" && !name.startsWith("nope."))
          named.push(domains.has(name) ? "" : `${tool}: Domain ${name}`);
      if (typeof a.app === "string") named.push(apps.has(a.app) ? "" : `${tool}: App ${a.app}`);
    }
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter(Boolean)).toEqual([]);
  });
});

describe.each(databaseKinds())("docs/mcp.md's examples on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-mcp-examples-");

  beforeAll(async () => {
    // The demo's data, as a reader trying the examples has it: a generated dataset (its showcase
    // records are in every one).
    await generateDataset({ domains: 300, apps: 40, seed: 5, outDir: tmp.dir });
    api = await startApi(kind, tmp.dir);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("each runs through the SDK's client and answers without a tool error", async () => {
    const client = await connect(api, api.key);
    try {
      for (const example of EXAMPLES) {
        const r = (await client.callTool({
          name: example.tool,
          arguments: example.arguments,
        })) as CallToolResult;
        expect.soft(r.isError ? `${example.tool}: ${textOf(r)}` : null).toBeNull();
        expect.soft(r.structuredContent, example.tool).toBeDefined();
      }
    } finally {
      await client.close();
    }
  });
});
