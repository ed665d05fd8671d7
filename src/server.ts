import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import { createApp } from "./app.ts";
import { ApiKeys } from "./auth/keys.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { Snapshots } from "./db/snapshots.ts";
import { ensureDemoData, ensureDemoKey } from "./demo.ts";
import { createHttpServer, urlHost } from "./http.ts";
import { createLogger } from "./logger.ts";
import { serveMetrics } from "./ops/metrics-server.ts";
import { shutDown } from "./ops/shutdown.ts";
import { startTracing } from "./ops/tracing.ts";
import { parseServerArgs, SERVER_USAGE, UsageError } from "./server-args.ts";

async function main(): Promise<void> {
  let switches: ReturnType<typeof parseServerArgs>;
  try {
    switches = parseServerArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`storegraph: ${e.message}\n\n${SERVER_USAGE}`);
    process.exit(2);
  }
  if (switches === "help") {
    console.log(SERVER_USAGE);
    return;
  }
  const config = loadConfig(process.env, switches);
  const log = createLogger(config);
  const snapshots = await Snapshots.open(config, {
    logger: log,
    warm: true,
    onReplicaChange: (state) =>
      state.reason
        ? log.warn({ replica: state.source.name, reason: state.reason }, "replica not used")
        : log.info({ replica: state.source.name, lagMs: state.lagMs }, "replica used"),
  });
  // Without --demo (a deployment) it starts on whatever the database holds, and waits for a load.
  if (config.demo) await ensureDemoData(config, snapshots.store, log);
  const demoKey = config.demo ? await ensureDemoKey(new ApiKeys(snapshots.store)) : null;
  // Collected only when served: a gateway nobody scrapes pays nothing for them, not even the
  // loading of prom-client (the bundle keeps a dynamic import in a chunk of its own).
  const metrics =
    config.metrics.port !== null || config.metrics.token !== null
      ? new (await import("./ops/metrics.ts")).Metrics(snapshots)
      : null;
  const tracing = await startTracing(config.tracing, log);
  const app = createApp(config, snapshots, {
    logger: log,
    metrics: metrics ?? undefined,
    plugins: tracing?.plugins,
  });
  const server = createHttpServer(
    app.listener,
    config.tls
      ? { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }
      : undefined,
    { log, observe: metrics ? (line) => metrics.request(line) : undefined },
  );
  const metricsServer =
    metrics && config.metrics.port !== null
      ? await serveMetrics(metrics, config.metrics.port, config.metrics.host)
      : null;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  // Deliveries after each load, and their retries (WEBHOOK_DELIVERY=off: another gateway's).
  app.deliverer?.start();
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const base = `${config.tls ? "https" : "http"}://${urlHost(config.host)}:${port}`;
  const served = await snapshots.current();
  log.info(
    { database: config.database.kind, snapshot: served?.snapshot.version, readSource: served?.source.name },
    "storegraph is listening",
  );
  console.log(
    [
      "",
      served
        ? `storegraph is serving snapshot ${served.snapshot.version} (${served.snapshot.domains} domains) from ${config.database.kind} (${served.source.name})`
        : `storegraph is waiting for a first load on ${config.database.kind} (npm run load -- <dir>); /readyz says 503 until then`,
      `  liveness   ${base}/healthz`,
      `  readiness  ${base}/readyz`,
      `  GraphQL    ${base}/graphql`,
      `  REST       ${base}/json/api/v1/all  (OpenAPI: ${base}/json/api/v1/openapi.json)`,
      `  MCP        ${base}/mcp  (agents: docs/mcp.md)`,
      ...(metricsServer
        ? [`  metrics    http://${urlHost(config.metrics.host)}:${config.metrics.port}/metrics`]
        : []),
      "",
      ...(demoKey
        ? [
            "A demo API key (enterprise plan) was created for this fresh database. It is shown only now:",
            "",
            `  ${demoKey}`,
            "",
            "Try it:",
            `  curl -H "Authorization: Bearer ${demoKey}" "${base}/json/api/v1/all/domain?page_size=3"`,
            `  GraphiQL: open ${base}/graphql?key=${demoKey}`,
            "More keys: npm run keys -- create --plan pro --name <name>   (list, revoke: npm run keys)",
            "",
          ]
        : [
            "Every request needs Authorization: Bearer <API key> (npm run keys -- create --plan pro --name <name>).",
            "",
          ]),
    ].join("\n"),
  );

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    metricsServer?.close();
    void shutDown(server as Server, app, log, { timeoutMs: config.shutdownTimeoutMs, signal })
      .then(() => snapshots.close())
      .then(() => tracing?.shutdown())
      .then(
        () => process.exit(0),
        (err) => {
          log.error({ err }, "shutting down failed");
          process.exit(1);
        },
      );
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((e) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
