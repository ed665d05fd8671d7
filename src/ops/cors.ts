import type { Plugin, YogaServerOptions } from "graphql-yoga";

type CorsOption = NonNullable<YogaServerOptions<object, object>["cors"]>;

/**
 * CORS, explicit: off unless CORS_ORIGINS lists origins. A listed origin is answered with itself
 * in Access-Control-Allow-Origin; any other origin gets no CORS header at all (its preflight a
 * bare 204), so a browser keeps that page from reading the answer. Credentials are never allowed:
 * the API is called with `Authorization: Bearer`, which CORS lets through as an allowed header,
 * and cookies carry nothing here.
 */
export function corsOf(origins: readonly string[]): CorsOption {
  if (!origins.length) return false;
  const allowed = new Set(origins);
  return (request: Request) => {
    const origin = request.headers.get("origin");
    if (origin === null || !allowed.has(origin)) return false;
    return {
      origin: [origin],
      credentials: false,
      methods: ["GET", "HEAD", "POST"],
      allowedHeaders: ["Authorization", "Content-Type", "If-None-Match", "X-Request-Id"],
      exposedHeaders: [
        "X-Request-Id",
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "RateLimit-Policy",
        "RateLimit",
        "Retry-After",
        "ETag",
      ],
      maxAge: 600,
    };
  };
}

/** Answers differ by Origin once CORS is on: caches are told so (Vary: Origin). */
export function useCorsVary(origins: readonly string[]): Plugin {
  if (!origins.length) return {};
  return {
    onResponse({ response }) {
      const vary = response.headers.get("vary");
      if (!vary) response.headers.set("vary", "Origin");
      else if (!/(^|,)\s*origin\s*(,|$)/i.test(vary)) response.headers.set("vary", `${vary}, Origin`);
    },
  };
}
