import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLS } from "../../src/mcp/catalogue.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { textOf } from "../support/mcp.ts";

/**
 * `npm run mcp`: the MCP server over stdio, a process of its own over the same database, driven by
 * the SDK's Client through its stdio transport (it starts the process as an MCP client does).
 */

const ROOT = join(import.meta.dirname, "../..");

/** The stdio server's process, as npm run mcp starts it once built. */
function stdioClient(api: TestApi, key: string, env: Record<string, string> = {}) {
  const database = api.db.config.database;
  const transport = new StdioClientTransport({
    command: process.execPath,
    // The bundle npm run mcp builds and runs (built by the tests' global setup, as npm run build).
    args: ["dist/mcp-stdio.js"],
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      DATA_DIR: api.db.config.dataDir,
      ...(database.kind === "postgresql" ? { DATABASE_URL: database.url } : {}),
      STOREGRAPH_API_KEY: key,
      LOG_LEVEL: "warn",
      RATE_LIMITS: "on",
      ...env,
    },
    stderr: "pipe",
  });
  return { client: new Client({ name: "storegraph-stdio-test", version: "1.0.0" }), transport };
}

describe.each(databaseKinds())("MCP over stdio on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-mcp-stdio-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("initializes, lists the tools, answers as REST does, refuses bad input, and 429 past a budget", async () => {
    const key = await api.createKey("pro", "stdio");
    const { client, transport } = stdioClient(api, key);
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe("storegraph");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
      const call = (name: string, args: Record<string, unknown>) =>
        client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

      const one = await call("get_domain", { name: "shop.example.com", fields: "name,plan" });
      const res = await api.app.fetch(
        "http://localhost/json/api/v1/all/domain/shop.example.com?fields=name,plan",
        {
          headers: { authorization: `Bearer ${key}` },
        },
      );
      expect(one.structuredContent).toEqual(await res.json());

      const bad = await call("search_domains", { "f.country": "US" });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toContain('(did you mean "f:cc"?)');

      const found = await call("lookup_vocabulary", { text: "klavio", kinds: ["apps"] });
      expect(textOf(found)).toContain("shopify.klaviyo");

      // List Domains: 2 a second for pro (the bad call above drew on nothing: refused before).
      const results = [];
      for (let i = 0; i < 3; i++) results.push(await call("search_domains", { page_size: 1 }));
      const refused = results.find((r) => r.isError);
      expect(refused && textOf(refused)).toMatch(/^RATE_LIMITED: .*retry in \d+ s/);
    } finally {
      await client.close();
    }
  });

  it("exits with a message for a key that is not one", async () => {
    const { client, transport } = stdioClient(api, "sg_not_a_key");
    let stderr = "";
    transport.stderr?.on("data", (d) => {
      stderr += d;
    });
    await expect(client.connect(transport)).rejects.toThrow();
    expect(stderr).toContain("STOREGRAPH_API_KEY: unknown or revoked API key");
  });
});
