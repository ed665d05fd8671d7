import type { IncomingMessage } from "node:http";
import { BlockList } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Plugin } from "graphql-yoga";
import { type Config, parseProxy } from "./config.ts";

/**
 * REQUIRE_HTTPS: a request that did not arrive over TLS is refused with 403 JSON, unless it came
 * through a proxy of TRUSTED_PROXIES that says (X-Forwarded-Proto) the client used https. The
 * health endpoints stay open to plain HTTP for load balancers' checks.
 */
export function useHttpsOnly(
  config: Pick<Config, "requireHttps" | "trustedProxies">,
  open: readonly string[],
): Plugin {
  const trusted = new BlockList();
  for (const p of config.trustedProxies) {
    const proxy = parseProxy(p);
    if (proxy) trusted.addSubnet(proxy.address, proxy.prefix, proxy.family);
  }
  return {
    onRequest({ request, url, serverContext, endResponse }) {
      if (!config.requireHttps || open.includes(url.pathname)) return;
      // A REST request's own GraphQL operation (src/app.ts executeInternally) is not from the network.
      if ((serverContext as { internal?: boolean }).internal === true) return;
      const req = (serverContext as { req?: IncomingMessage }).req;
      if (req ? (req.socket as TLSSocket).encrypted === true : url.protocol === "https:") return;
      const peer = req?.socket.remoteAddress?.replace(/^::ffff:/, "");
      const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
      if (peer && proto === "https" && trusted.check(peer, peer.includes(":") ? "ipv6" : "ipv4")) return;
      endResponse(
        Response.json(
          { error: "HTTPS is required: send the request to the https:// address", code: "HTTPS_REQUIRED" },
          { status: 403, headers: { "cache-control": "no-store" } },
        ),
      );
    },
  };
}
