import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/keys.ts";
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

/** The stdio server's process, as npm run mcp starts it once built (src/cli/build-if-stale.mjs). */
function stdioClient(api: TestApi, key: string, env: Record<string, string> = {}) {
  const database = api.db.config.database;
  const transport = new StdioClientTransport({
    command: process.execPath,
    // The bundle npm run mcp runs (built by the tests' global setup, as npm run build).
    args: ["dist/mcp-stdio.js"],
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      DATA_DIR: api.db.config.dataDir,
      ...(database.kind === "postgresql" ? { DATABASE_URL: database.url } : {}),
      STOREGRAPH_API_KEY: key,
      LOG_LEVEL: "warn",
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

      const found = await call("lookup", { text: "klavio", kinds: ["apps"] });
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

  it("refuses the calls of a key revoked while it runs, within the 5 s HTTP takes to refuse it", async () => {
    const key = await api.createKey("enterprise", "stdio-revoked");
    const { client, transport } = stdioClient(api, key);
    await client.connect(transport);
    try {
      const call = () =>
        client.callTool({
          name: "get_domain",
          arguments: { name: "shop.example.com", fields: "name" },
        }) as Promise<CallToolResult>;
      expect((await call()).isError).toBeFalsy();
      await new ApiKeys(api.snapshots.store).revoke(key);
      const revoked = Date.now();
      let refused: CallToolResult | undefined;
      while (!refused && Date.now() - revoked < 8_000) {
        const r = await call();
        if (r.isError) refused = r;
        else await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(refused && textOf(refused)).toBe(
        "UNAUTHENTICATED: STOREGRAPH_API_KEY: unknown or revoked API key",
      );
      expect(refused?._meta?.code).toBe("UNAUTHENTICATED");
      // The bound HTTP keeps (src/auth/plugin.ts), with room for a loaded machine's slow call.
      expect(Date.now() - revoked).toBeLessThan(6_500);
      // And it stays refused: the vocabularies as resources too.
      expect((await call()).isError).toBe(true);
      await expect(client.readResource({ uri: "storegraph://vocabulary/plans" })).rejects.toThrow(
        /unknown or revoked API key/,
      );
      await expect(client.readResource({ uri: "storegraph://filters/domains" })).rejects.toThrow(
        /unknown or revoked API key/,
      );
    } finally {
      await client.close();
    }
  });

  it("an export a session started is the REST URL's after the session ends: resumed, never a 500", async () => {
    const key = await api.createKey("enterprise", "stdio-export");
    const { client, transport } = stdioClient(api, key);
    await client.connect(transport);
    let url = "";
    try {
      const started = (await client.callTool({
        name: "export_segment",
        arguments: { fields: "name" },
      })) as CallToolResult;
      expect(started.isError, textOf(started)).toBeFalsy();
      url = (started.structuredContent as { url: string }).url;
      expect(url).toMatch(/^\/json\/api\/v1\/all\/domain\?/);
    } finally {
      await client.close();
    }
    const statuses: number[] = [];
    let body: { domains?: { name: string }[] } = {};
    for (let i = 0; i < 100; i++) {
      const res = await api.app.fetch(`http://localhost${url}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      statuses.push(res.status);
      if (res.status === 200) {
        body = (await res.json()) as typeof body;
        break;
      }
      await res.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, res.status === 429 ? 1000 : 100));
    }
    expect(statuses.filter((s) => s !== 202 && s !== 429)).toEqual([200]);
    const all = await api.app.fetch("http://localhost/json/api/v1/all/domain?fields=name&page_size=1000", {
      headers: { authorization: `Bearer ${key}` },
    });
    const names = ((await all.json()) as { domains: { name: string }[] }).domains.map((d) => d.name);
    expect(body.domains?.map((d) => d.name).sort()).toEqual(names.sort());
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
