import { createRequire } from "node:module";
import type { Span, Tracer } from "@opentelemetry/api";
import type { SpanProcessor } from "@opentelemetry/sdk-trace";
import type { Plugin } from "graphql-yoga";
import { setSqlTracer } from "../db/sql-tracing.ts";
import type { Logger } from "../logger.ts";

/**
 * OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (the SDK then reads the
 * standard OTEL_* variables itself). Spans:
 * - each HTTP request (@opentelemetry/instrumentation-http), continuing a caller's traceparent;
 * - GraphQL parse and validate (here), and execute (@envelop/opentelemetry, which makes only the
 *   execution's span), for GraphQL requests and for the operation of a REST request (built, so
 *   never parsed); a REST Domain answer's read, `rest.read <operation>` (src/db/sql-tracing.ts);
 * - each SQL statement, on either database (src/db/sql-tracing.ts, where the gateway reads).
 * Off, the SDK is never loaded (only @opentelemetry/api's no-op, which the reader imports), no
 * AsyncLocalStorage context is set up, and a SQL statement costs one check.
 */
export interface Tracing {
  /** The GraphQL spans' plugins, for createApp. */
  plugins: Plugin[];
  /** Sends what is left, and stops. */
  shutdown(): Promise<void>;
}

export async function startTracing(
  options: { endpoint: string | null; serviceName: string },
  log: Logger,
  /** Where spans go instead of OTLP (tests). */
  spanProcessor?: SpanProcessor,
): Promise<Tracing | null> {
  if (!options.endpoint && !spanProcessor) return null;
  const [{ NodeSDK }, { BatchSpanProcessor }, { OTLPTraceExporter }, { HttpInstrumentation }, api, envelop] =
    await Promise.all([
      import("@opentelemetry/sdk-node"),
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/instrumentation-http"),
      import("@opentelemetry/api"),
      import("@envelop/opentelemetry"),
    ]);
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    spanProcessors: [spanProcessor ?? new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
    instrumentations: [
      new HttpInstrumentation({
        // Health probes and scrapes would be most spans and say nothing.
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)\b/.test(req.url ?? ""),
      }),
    ],
  });
  sdk.start();
  // The instrumentation patches node:http when it is required after the SDK starts; the server's
  // (an ES module's import) shares its Server.prototype, so its requests are traced from here on.
  createRequire(import.meta.url)("node:http");
  const tracer = api.trace.getTracer("storegraph");
  setSqlTracer(tracer);
  log.info({ endpoint: options.endpoint, serviceName: options.serviceName }, "tracing: spans go to OTLP");
  return {
    plugins: [
      phaseSpans(tracer, api),
      envelop.useOpenTelemetry(
        { resolvers: false, variables: false, result: false, document: true },
        api.trace.getTracerProvider(),
        api.SpanKind.INTERNAL,
        {},
        "storegraph",
        "graphql.execute ",
      ) as Plugin,
    ],
    async shutdown() {
      setSqlTracer(null);
      await sdk.shutdown();
    },
  };
}

/** A span for each parse and each validation, in the request's trace. */
function phaseSpans(tracer: Tracer, api: typeof import("@opentelemetry/api")): Plugin {
  const end = (span: Span, failed: unknown) => {
    if (failed) span.setStatus({ code: api.SpanStatusCode.ERROR, message: String(failed) });
    span.end();
  };
  return {
    onParse() {
      const span = tracer.startSpan("graphql.parse", { kind: api.SpanKind.INTERNAL });
      return ({ result }) => end(span, result instanceof Error ? result.message : null);
    },
    onValidate() {
      const span = tracer.startSpan("graphql.validate", { kind: api.SpanKind.INTERNAL });
      return ({ valid, result }) => {
        span.setAttribute("graphql.validation.errors", valid ? 0 : result.length);
        end(span, valid ? null : result.map((e) => e.message).join("; "));
      };
    },
  };
}
