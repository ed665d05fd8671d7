import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { Snapshots } from "./db/snapshots.ts";
import { apiError } from "./errors.ts";
import { createLogger } from "./logger.ts";
import { createMcpServer } from "./mcp/server.ts";
import { handOver } from "./ops/shutdown.ts";

/**
 * npm run mcp: the MCP server over stdio (docs/mcp.md), for a local client (an agent's desktop
 * app) over the gateway's database (DATA_DIR's SQLite by default, DATABASE_URL's PostgreSQL
 * otherwise). Its tool calls are made with the key STOREGRAPH_API_KEY names, on that key's budgets,
 * answered by the same app the gateway serves (createApp), without listening on any port. stdout
 * carries the protocol: logs go to stderr.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config, 2);
  if (!config.mcp.apiKey)
    throw new ConfigError("STOREGRAPH_API_KEY is not set: give the API key the tools call with");
  const snapshots = await Snapshots.open(config, { logger: log });
  // Webhooks are delivered by the gateways; this process only answers its client.
  const app = createApp({ ...config, webhooks: { ...config.webhooks, deliver: false } }, snapshots, {
    logger: log,
  });
  const secret = config.mcp.apiKey;
  const key = await app.verify(secret);
  if (!key) throw new ConfigError("STOREGRAPH_API_KEY: unknown or revoked API key");
  const server = createMcpServer(app.mcp, async () => {
    const current = await app.verify(secret);
    if (!current) throw apiError("UNAUTHENTICATED", "STOREGRAPH_API_KEY: unknown or revoked API key");
    return { key: current, origin: null };
  });
  const transport = new StdioServerTransport();
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await server.close().catch(() => {});
    const deadline = new Promise<"late">((resolve) =>
      setTimeout(() => resolve("late"), config.shutdownTimeoutMs).unref(),
    );
    await handOver(app, log, deadline);
    await app.dispose();
    await snapshots.close();
    process.exit(0);
  };
  transport.onclose = () => void close();
  process.stdin.on("end", () => void close());
  process.on("SIGINT", () => void close());
  process.on("SIGTERM", () => void close());
  await server.connect(transport);
  log.info({ key: key.id, database: config.database.kind }, "storegraph MCP server on stdio");
}

main().catch((e) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
