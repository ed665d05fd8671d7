import type { RequestListener } from "node:http";
import { GraphQLError } from "graphql";
import { createYoga, type Plugin, type YogaServerInstance } from "graphql-yoga";
import { ApiKeys } from "./auth/keys.ts";
import { apiKeyOf, createVerifier, graphiqlKey, isRequest, useAuth, type Verify } from "./auth/plugin.ts";
import { RateLimits } from "./auth/rate-limit.ts";
import { usageSource } from "./auth/usage.ts";
import { MonthlyCounts } from "./auth/usage-counts.ts";
import type { Config } from "./config.ts";
import {
  accountOf,
  type Context,
  createContext,
  type LiveFeed,
  readContext,
  type WebhookService,
} from "./context.ts";
import { useCostLimit } from "./cost.ts";
import { feedEnd, lastEventOfAll } from "./db/change-feed.ts";
import { ExportJobs } from "./db/export-jobs.ts";
import { jobResults } from "./db/export-results.ts";
import { cursorText } from "./db/feed-cursor.ts";
import { FeedWatch } from "./db/feed-watch.ts";
import type { Snapshots } from "./db/snapshots.ts";
import { Webhooks } from "./db/webhooks.ts";
import { documentLimits } from "./document-limits.ts";
import { createMaskError, isDatabaseUnavailable, useErrorCodes } from "./errors.ts";
import { executeInternally, type ServerContext } from "./execute-internally.ts";
import { exportEstimator } from "./export/estimate.ts";
import { type ExportDeps, exportRoutes, handOverJobs } from "./export/export.ts";
import { ExportReader, exportPoolSize } from "./export/export-reader.ts";
import { ExportSlots } from "./export/export-slots.ts";
import type { FeedDeps } from "./feed/deps.ts";
import { feedRoutes } from "./feed/feed.ts";
import { fileRoutes } from "./files/routes.ts";
import { snapshotFiles } from "./files/service.ts";
import { EXAMPLE_OPERATIONS } from "./graphiql.ts";
import { useHealth } from "./health.ts";
import { createHttpsCheck, createHttpsTest, useHttpsOnly } from "./https.ts";
import { createLogger, type Logger, logArgs } from "./logger.ts";
import type { McpDeps } from "./mcp/answer.ts";
import { originOf, useMcp } from "./mcp/http.ts";
import { useAccessLog } from "./ops/access-log.ts";
import { useCompression } from "./ops/compression.ts";
import { corsOf, useCorsVary } from "./ops/cors.ts";
import { useJsonErrorBodies } from "./ops/error-bodies.ts";
import type { Metrics } from "./ops/metrics.ts";
import { useMetricsEndpoint } from "./ops/metrics-server.ts";
import { useRequestIds } from "./ops/request-id.ts";
import { usePersistedDocuments } from "./persisted-documents.ts";
import { useGraphQLRequestLimits } from "./request-body.ts";
import { changeWriter, webhookChangeFilter } from "./rest/change-reading.ts";
import {
  type ExecuteGraphQL,
  OPENAPI_PATH,
  type RestContext,
  useJsonNotFound,
  useRest,
  type Whole,
} from "./rest/handler.ts";
import { Options } from "./rest/options.ts";
import { selectionOf } from "./rest/route.ts";
import { listChanges, REST_BASE } from "./rest/routes.ts";
import { useCompiledExecution } from "./schema/execute.ts";
import { schema } from "./schema/index.ts";
import { useTextInput } from "./text-input.ts";
import { type DelivererDeps, WebhookDeliverer } from "./webhooks/deliverer.ts";

/**
 * The whole HTTP application. `listener` is the Node request handler (server.ts listens with it),
 * `fetch` answers a Fetch API Request (tests call it), `dispose` releases what it holds.
 */
export interface App {
  listener: RequestListener;
  fetch: YogaServerInstance<ServerContext, Context>["fetch"];
  dispose(): Promise<void>;
  /** Graceful shutdown: this gateway's running cursor=all jobs, handed over (src/export/export.ts). */
  handOverJobs(): Promise<{ id: string; progress: number }[]>;
  /**
   * This gateway's webhook deliverer (null with WEBHOOK_DELIVERY=off): server.ts starts its
   * background work (deliveries after each load, retries); a test or retry asked for is attempted
   * at once either way.
   */
  deliverer: WebhookDeliverer | null;
  /** What the MCP tools answer with (src/mcp/): `npm run mcp` serves them over stdio. */
  mcp: McpDeps;
  /** Checks an API key (cached briefly): stdio's key is checked with it. */
  verify: Verify;
}

/** Builds the whole HTTP application; server.ts only listens. Tests call app.fetch(). */
export interface AppOptions {
  /** Awaited before each page an export or cursor=all job reads (tests hold a job running with it). */
  beforeExportPage?: () => Promise<void>;
  /**
   * Holds each page an export or cursor=all job reads, synchronously where it is read (tests:
   * src/export/export-hold.ts).
   */
  holdExportReads?: Int32Array;
  /** Where the app logs (default: pino on stdout at the configured level); tests read it. */
  logger?: Logger;
  /** The gateway's Prometheus metrics (src/ops/metrics.ts); none without. */
  metrics?: Metrics;
  /** More envelop plugins (the GraphQL spans of src/ops/tracing.ts). */
  plugins?: Plugin[];
  /** REST records written from their rows (the default) or through the resolvers (parity tests). */
  restWriter?: "rows" | "resolvers";
  /** How often a live change stream that waits sends a comment (default 15 s; tests: less). */
  streamHeartbeatMs?: number;
  /** The webhooks' retry schedule and poll interval (tests: fast). */
  webhooks?: Pick<DelivererDeps, "schedule" | "pollMs" | "leaseMs" | "counted">;
}

export function createApp(config: Config, snapshots: Snapshots, options: AppOptions = {}): App {
  const logger = options.logger ?? createLogger(config);
  const verify = createVerifier(new ApiKeys(snapshots.store));
  const limits = new RateLimits(config.rateLimits, logger, config.timeouts);
  const counts = new MonthlyCounts(limits.redis, limits.keyPrefix, logger);
  const usage = usageSource(limits, counts);
  const metrics = options.metrics ?? null;
  if (metrics) limits.onRefusal = (plan, endpoint) => metrics.refused(plan, endpoint);
  const execute: ExecuteGraphQL = (request, document, variables, charge) =>
    executeInternally(yoga, limits, request, document, variables, charge);
  const version = async () => (await snapshots.current())?.snapshot.version ?? null;
  const httpsAllows = createHttpsCheck(config);
  const exportReader = new ExportReader(
    {
      database: config.database,
      timeouts: config.timeouts,
      poolSize: exportPoolSize(config.exportConcurrency),
      hold: options.holdExportReads,
    },
    logger,
  );
  // Told of each publish at once (PostgreSQL: LISTEN/NOTIFY; SQLite: the watched `published` file),
  // else asking every 250 ms.
  const feedWatch = new FeedWatch(snapshots, 250, snapshots.store.listen?.bind(snapshots.store));
  const liveFeed: LiveFeed = {
    watch: feedWatch,
    current: () => snapshots.current(),
    end: async (reader, version) => {
      const served = version ?? (await snapshots.current())?.snapshot.version;
      if (served === undefined) return { cursor: "0", order: 0 };
      const end = await feedEnd(snapshots.store, reader, served);
      return { cursor: cursorText(end.cursor), order: end.order };
    },
  };
  const webhookStore = new Webhooks(snapshots.store);
  const deliverer = config.webhooks.deliver
    ? new WebhookDeliverer({
        webhooks: webhookStore,
        // A webhook reads the feed as the change export does: as its account, no request made.
        feed: {
          source: (account) => ({
            current: () => snapshots.current(),
            meta: snapshots.store,
            account: { account, lists: snapshots.store },
          }),
          filterOf: webhookChangeFilter,
          write: changeWriter(selectionOf(listChanges, Options.fromQuery(new URLSearchParams()))),
        },
        watch: feedWatch,
        served: async () => {
          const served = await snapshots.current();
          if (!served) return null;
          const version = served.snapshot.version;
          // Every account's last event: a webhook behind it may have events to read (enqueueing
          // reads them as the webhook's account); compared, never answered.
          return { version, end: await lastEventOfAll(snapshots.store, version) };
        },
        config: config.webhooks,
        logger,
        counted: metrics ? (outcome) => metrics.webhookAttempt(outcome) : undefined,
        ...options.webhooks,
      })
    : null;
  const webhookService: WebhookService = {
    webhooks: webhookStore,
    deliverer,
    policy: { allowPrivate: config.webhooks.allowPrivateTargets, requireHttps: config.requireHttps },
    attemptWaitMs: config.webhooks.timeoutMs + 2000,
  };
  const exportDeps: ExportDeps = {
    execute,
    logger,
    limits,
    jobs: new ExportJobs(snapshots.store),
    results: jobResults(snapshots.store, config.dataDir),
    ttlMs: config.exportTtlMs,
    version,
    beforePage: options.beforeExportPage,
    reader: exportReader,
    slots: new ExportSlots(config.exportConcurrency),
    metrics,
    counts,
  };
  const feedDeps: FeedDeps = {
    limits,
    logger,
    meta: snapshots.store,
    lists: snapshots.store,
    live: { ...liveFeed, heartbeatMs: options.streamHeartbeatMs ?? 15_000 },
  };
  const files = snapshotFiles(config, snapshots.store, REST_BASE);
  const overHttps = createHttpsTest(config);
  const filed = fileRoutes({ files, limits, counts });
  const exported = exportRoutes(exportDeps);
  const estimator = exportEstimator(exportDeps);
  const fed = feedRoutes(feedDeps);
  /** The routes answered whole: the change feed's export and stream, the Domain exports and jobs, the snapshot files. */
  const whole: Whole = async (op, o, request, params) =>
    (await fed(op, o, request)) ?? (await filed(op, o, request, params)) ?? exported(op, o, request);
  const rest: RestContext = {
    execute,
    readContext: async (request) =>
      readContext(await snapshots.current(), {
        meta: snapshots.store,
        account: accountOf(apiKeyOf(request), snapshots.store),
      }),
    logger,
    limits,
    version,
    metrics,
    writer: options.restWriter,
  };
  const mcp: McpDeps = { rest, whole };
  const yoga: YogaServerInstance<ServerContext, Context> = createYoga<ServerContext, Context>({
    schema: limits.apply(schema),
    graphqlEndpoint: "/graphql",
    landingPage: false,
    // The body's size is bounded once, by useGraphQLRequestLimits (src/request-body.ts: 1 MB, by
    // its declared length, or read with the bound when sent in chunks or compressed, decoded with
    // it too; Node's parser refuses a malformed or repeated Content-Length). yoga's own bound (25 MB) piped every body through a
    // stream of its own and made the request again, on every request.
    maxRequestBodySize: false,
    cors: corsOf(config.corsOrigins),
    // A page opened with ?key= (a browser cannot send the header) sends the key as the header.
    // GraphiQL is rendered before other plugins run: without a valid key it is off, and the
    // request meets useAuth's 401 like any other.
    graphiql: async (request, server) => {
      // Rendered before any plugin's onRequest: over plain HTTP that HTTPS_REQUIRED refuses the
      // page (which would carry the key) is off, and useHttpsOnly answers the request with 403.
      if (!httpsAllows(request, server)) return false;
      const key = await graphiqlKey(request, verify);
      if (!key) return false;
      return {
        title: "storegraph",
        defaultQuery: EXAMPLE_OPERATIONS,
        ...(key ? { headers: JSON.stringify({ Authorization: `Bearer ${key}` }) } : {}),
      };
    },
    // Bundled GraphiQL: the page works without reaching a CDN (offline and locked-down networks).
    // Its bundle is about 80 MB of memory once loaded, so it is loaded when the page is first asked for.
    renderGraphiQL: async (options) =>
      (await import("@graphql-yoga/render-graphiql")).renderGraphiQL(options),
    logging: {
      debug: (...a) => logArgs(logger, "debug", a),
      info: (...a) => logArgs(logger, "info", a),
      warn: (...a) => logArgs(logger, "warn", a),
      // Expected errors are the client's business, and a fault is logged once with its request's
      // id when masked (settleFaults): yoga's own line for a masked error, without the id, is debug.
      error: (...a) =>
        logArgs(
          logger,
          a.every((x) => x instanceof GraphQLError || isDatabaseUnavailable(x)) ? "debug" : "error",
          a,
        ),
    },
    maskedErrors: {
      maskError: createMaskError(logger),
    },
    context: (initial) => {
      const { request, charge, caller } = initial;
      const asker = caller ?? request;
      const key = apiKeyOf(asker);
      return createContext(
        snapshots,
        key,
        limits.usageFor(asker, key, charge ?? { kind: "fields" }),
        usage,
        liveFeed,
        webhookService,
        estimator,
        // Behind a TLS-terminating proxy of TRUSTED_PROXIES, the files' URLs say https.
        {
          files,
          baseUrl: isRequest(asker)
            ? () => originOf(new URL(asker.url), overHttps(asker, initial))
            : undefined,
        },
      );
    },
    plugins: [
      // app.dispose() stops the export reader's thread; a page it was reading fails its export.
      { onDispose: () => exportReader.close() },
      { onDispose: () => feedWatch.close() },
      { onDispose: () => deliverer?.stop() },
      { onDispose: () => files.close() },
      useHealth(snapshots, config.timeouts.readyzMs),
      useHttpsOnly(config, ["/healthz", "/readyz"]),
      // After the HTTPS check: the token and the metrics never travel over plain HTTP.
      useMetricsEndpoint(metrics, config.metrics.token),
      useAuth(verify, [OPENAPI_PATH], logger),
      limits.plugin(),
      // The MCP server (src/mcp/): its tools answer through the REST layer's own answers.
      useMcp(mcp, {
        allowedHosts: config.mcp.allowedHosts,
        origins: config.corsOrigins,
        overHttps,
      }),
      useRest(rest, whole),
      useJsonNotFound(["/graphql"]),
      useErrorCodes(),
      useJsonErrorBodies(),
      useRequestIds(),
      useAccessLog((request) => apiKeyOf(request)?.id),
      useCorsVary(config.corsOrigins),
      useGraphQLRequestLimits(logger),
      usePersistedDocuments(),
      ...documentLimits(),
      useTextInput(),
      useCostLimit(),
      ...useCompiledExecution(),
      ...(metrics?.plugins() ?? []),
      ...(options.plugins ?? []),
      // Last: every other plugin has seen (and may have rewritten) the body it compresses.
      useCompression(),
    ],
  });
  return {
    listener: yoga,
    fetch: yoga.fetch,
    dispose: async () => {
      await yoga.dispose();
    },
    handOverJobs: () => handOverJobs(exportDeps),
    deliverer,
    mcp,
    verify,
  };
}
