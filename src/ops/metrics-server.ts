import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { Plugin } from "graphql-yoga";
import { jsonError } from "../errors.ts";
import type { Metrics } from "./metrics.ts";
import { requestIdOf } from "./request-id.ts";

/**
 * /metrics, never open on the API's port: on a port of its own (METRICS_PORT, for a scraper on
 * the private network), and on the API's port only to `Authorization: Bearer <METRICS_TOKEN>`.
 */
export async function serveMetrics(metrics: Metrics, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ error: "this port serves GET /metrics only", code: "NOT_FOUND" }));
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (e: Error) => {
        res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
        res.end(
          JSON.stringify({
            error: `metrics could not be collected: ${e.message}`,
            code: "INTERNAL_SERVER_ERROR",
          }),
        );
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return server;
}

/** Compared as SHA-256 digests: in constant time, and without telling the token's length. */
const sameSecret = (a: string, b: string) =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());

/** /metrics on the API's port, for METRICS_TOKEN's bearer only (401 otherwise); 404 without a token. */
export function useMetricsEndpoint(metrics: Metrics | null, token: string | null): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== "/metrics") return;
      if (!metrics || !token) {
        return endResponse(
          jsonError(
            "NOT_FOUND",
            "/metrics is not served on this port (see METRICS_PORT and METRICS_TOKEN)",
            requestIdOf(request),
          ),
        );
      }
      const given = /^Bearer +(\S+) *$/i.exec(request.headers.get("authorization") ?? "")?.[1];
      if (!given || !sameSecret(given, token)) {
        return endResponse(
          jsonError(
            "UNAUTHENTICATED",
            "/metrics needs Authorization: Bearer <METRICS_TOKEN>",
            requestIdOf(request),
            {
              headers: { "www-authenticate": 'Bearer realm="metrics"' },
            },
          ),
        );
      }
      const text = await metrics.registry.metrics();
      endResponse(
        new fetchAPI.Response(text, {
          headers: { "content-type": metrics.registry.contentType, "cache-control": "no-store" },
        }),
      );
    },
  };
}
