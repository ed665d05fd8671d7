import type { IncomingMessage } from "node:http";
import { BlockList } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Plugin } from "graphql-yoga";
import { type Config, parseProxy } from "./config.ts";
import { jsonError } from "./errors.ts";
import { requestIdOf } from "./ops/request-id.ts";

/**
 * Whether a request reached the gateway over HTTPS: it arrived over TLS, or through a proxy of
 * TRUSTED_PROXIES that says (X-Forwarded-Proto) the client used https. A request's own GraphQL
 * operation (src/execute-internally.ts) has no socket: its URL says.
 */
export function createHttpsTest(
  config: Pick<Config, "trustedProxies">,
): (request: Request, serverContext: unknown) => boolean {
  const trusted = new BlockList();
  for (const p of config.trustedProxies) {
    const proxy = parseProxy(p);
    if (proxy) trusted.addSubnet(proxy.address, proxy.prefix, proxy.family);
  }
  return (request, serverContext) => {
    const req = (serverContext as { req?: IncomingMessage } | undefined)?.req;
    if (req ? (req.socket as TLSSocket).encrypted === true : request.url.startsWith("https:")) return true;
    const peer = req?.socket.remoteAddress?.replace(/^::ffff:/, "");
    const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
    return !!peer && proto === "https" && trusted.check(peer, peer.includes(":") ? "ipv6" : "ipv4");
  };
}

/**
 * REQUIRE_HTTPS: whether a request may be served. It may when HTTPS is not required, when it
 * reached the gateway over HTTPS (createHttpsTest), or when it is a REST request's own GraphQL
 * operation (not from the network).
 */
export function createHttpsCheck(
  config: Pick<Config, "requireHttps" | "trustedProxies">,
): (request: Request, serverContext: unknown) => boolean {
  const overHttps = createHttpsTest(config);
  return (request, serverContext) => {
    if (!config.requireHttps) return true;
    // A REST request's own GraphQL operation (src/execute-internally.ts) is not from the network.
    if ((serverContext as { internal?: boolean }).internal === true) return true;
    return overHttps(request, serverContext);
  };
}

/**
 * Refuses a request that REQUIRE_HTTPS does not allow with 403 JSON. The health endpoints
 * (`open`) stay open to plain HTTP for load balancers' checks.
 */
export function useHttpsOnly(
  config: Pick<Config, "requireHttps" | "trustedProxies">,
  open: readonly string[],
): Plugin {
  const allowed = createHttpsCheck(config);
  return {
    onRequest({ request, url, serverContext, endResponse }) {
      if (open.includes(url.pathname) || allowed(request, serverContext)) return;
      endResponse(
        jsonError(
          "HTTPS_REQUIRED",
          "HTTPS is required: send the request to the https:// address",
          requestIdOf(request),
        ),
      );
    },
  };
}
