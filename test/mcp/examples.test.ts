import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLS } from "../../src/mcp/catalogue.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { connect, documentedExamples, textOf } from "../support/mcp.ts";

/**
 * docs/mcp.md's examples run: each ```json example block is called, in the document's order,
 * through the SDK's own Client, and answers without a tool error. Every tool has one.
 */

const EXAMPLES = documentedExamples();

describe("docs/mcp.md", () => {
  it("has an example of every tool", () => {
    expect(new Set(EXAMPLES.map((e) => e.tool))).toEqual(new Set(TOOLS.map((t) => t.name)));
  });
});

describe.each(databaseKinds())("docs/mcp.md's examples on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-mcp-examples-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
  });
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
