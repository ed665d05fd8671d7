import { createHmac } from "node:crypto";
import { type LookupAddress, lookup } from "node:dns";
import { lookup as lookupAsync } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { type TargetPolicy, WEBHOOK_LIMITS, WebhookError } from "../db/webhooks.ts";

/**
 * How a delivery reaches its receiver (docs/decisions.md, "Webhooks"): signed as Standard Webhooks
 * sign (so a receiver verifies it with their libraries), POSTed to a target that is checked when
 * the webhook is made and again at each connection, with a timeout, following no redirect.
 */

/** The targets a webhook may have: who may receive, and whether plain http is allowed. */
/**
 * `webhook-signature` of Standard Webhooks: `v1,` and the base64 HMAC-SHA256, keyed by the secret's
 * bytes (the base64 after `whsec_`), of `<webhook-id>.<webhook-timestamp>.<body>`.
 */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** Address ranges a webhook reaches only with WEBHOOK_ALLOW_PRIVATE_TARGETS (ipaddr.js's names). */
const PUBLIC = new Set(["unicast"]);

/** Why `address` is no public target, or null when it is one. */
export function notPublic(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address);
  } catch {
    return `${address} is not an IP address`;
  }
  const range = ip.range();
  return PUBLIC.has(range) ? null : `${address} is a ${range} address`;
}

/** The host of a URL without IPv6 brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, "");

/**
 * Checks a webhook's url when it is made: an absolute http(s) URL without credentials, https where
 * required, and a host that resolves to public addresses only (unless private targets are
 * allowed). Each connection is checked again (`post`), so a name that resolves elsewhere later is
 * refused then.
 */
export async function checkTarget(text: string, policy: TargetPolicy): Promise<URL> {
  const refuse = (why: string) => {
    throw new WebhookError("url", why);
  };
  if (text.length > WEBHOOK_LIMITS.url) refuse(`is longer than ${WEBHOOK_LIMITS.url} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse(`"${text.slice(0, 100)}" is not an absolute URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") refuse(`must be https (got ${url.protocol})`);
  if (url.protocol === "http:" && policy.requireHttps)
    refuse("must be https: this gateway requires HTTPS, and a webhook carries its events over it too");
  if (url.username || url.password) refuse("must not carry credentials; the signature authenticates us");
  if (url.hash) refuse("must not have a fragment (#…)");
  if (policy.allowPrivate) return url;
  const host = hostOf(url);
  if (ipaddr.isValid(host)) {
    const why = notPublic(host);
    if (why) refuse(`${why}: private, loopback and link-local targets are refused`);
    return url;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await lookupAsync(host, { all: true });
  } catch (e) {
    return refuse(
      `the host "${host}" does not resolve (${(e as NodeJS.ErrnoException).code ?? "no answer"})`,
    );
  }
  for (const a of addresses) {
    const why = notPublic(a.address);
    if (why) refuse(`"${host}" resolves to ${why}: private, loopback and link-local targets are refused`);
  }
  return url;
}

/** A lookup that refuses names resolving to addresses that are not public (at each connection). */
const publicLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, "", 4);
    const list = addresses as LookupAddress[];
    for (const a of list) {
      const why = notPublic(a.address);
      if (why) {
        const refused = Object.assign(new Error(`"${hostname}" resolves to ${why}, a private target`), {
          code: "EPRIVATETARGET",
        });
        return callback(refused, "", 4);
      }
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    const [first] = list;
    if (!first)
      return callback(Object.assign(new Error(`"${hostname}" has no address`), { code: "ENOTFOUND" }), "", 4);
    callback(null, first.address, first.family);
  });
};

/** Connections are kept open between deliveries to the same receiver. */
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/** What an attempt's answer said. */
export interface Answered {
  status: number;
}

/** The most of an answer's body read (and then dropped): the status is what counts. */
const MAX_ANSWER = 64 * 1024;

/**
 * POSTs `body` to `url` with `headers`; resolves with the answer's status, or rejects with what
 * went wrong (refused target, connection, timeout). A redirect is an answer like any other: it is
 * not followed.
 */
export function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<Answered> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const host = hostOf(target);
    if (!options.allowPrivate && ipaddr.isValid(host)) {
      const why = notPublic(host);
      if (why) return reject(new Error(`${why}, a private target`));
    }
    const client = target.protocol === "https:" ? https : http;
    const payload = Buffer.from(body);
    const request = client.request(
      target,
      {
        method: "POST",
        agent: agents[target.protocol as "http:" | "https:"],
        headers: { ...headers, "content-length": String(payload.length) },
        ...(options.allowPrivate ? {} : { lookup: publicLookup }),
        timeout: options.timeoutMs,
      },
      (response) => {
        let read = 0;
        response.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER) response.destroy();
        });
        response.on("error", () => {});
        response.on("close", () => resolve({ status: response.statusCode ?? 0 }));
      },
    );
    // The whole attempt, connection to answer, within the timeout.
    const timer = setTimeout(
      () =>
        request.destroy(
          Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: "ETIMEDOUT" }),
        ),
      options.timeoutMs,
    );
    request.on("close", () => clearTimeout(timer));
    request.on("timeout", () =>
      request.destroy(
        Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: "ETIMEDOUT" }),
      ),
    );
    request.on("error", (e: NodeJS.ErrnoException) => reject(new Error(describe(e))));
    request.end(payload);
  });
}

/** An attempt's error as its delivery shows it. */
function describe(e: NodeJS.ErrnoException): string {
  if (e.code === "ECONNREFUSED") return "connection refused";
  if (e.code === "ENOTFOUND") return `the host does not resolve (${e.message})`;
  return e.message || String(e.code);
}
