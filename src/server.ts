import { createServer } from "node:http";
import { createApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { Snapshots } from "./db/snapshots.ts";
import { ensureDemoData } from "./demo.ts";
import { createLogger } from "./logger.ts";

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config);
  const snapshots = await Snapshots.open(config);
  await ensureDemoData(config, snapshots.store, log);
  const app = createApp(config, snapshots);
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const base = `http://localhost:${port}`;
  const served = await snapshots.current();
  log.info({ database: config.database.kind, snapshot: served?.snapshot.version }, "storegraph is listening");
  console.log(
    [
      "",
      `storegraph is serving snapshot ${served?.snapshot.version} (${served?.snapshot.domains} domains) from ${config.database.kind}`,
      `  liveness   ${base}/healthz`,
      `  readiness  ${base}/readyz`,
      `  GraphQL    ${base}/graphql`,
      "",
    ].join("\n"),
  );

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, "shutting down");
    server.close(() => {
      void snapshots.close().then(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((e) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
