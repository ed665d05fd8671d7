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

/** Address ranges a webhook reaches only with --allow-private-webhook-targets (ipaddr.js's names). */
const PUBLIC = new Set(["unicast"]);

/**
 * IPv6 forms that embed an IPv4 address: where it sits (Teredo's client with its bits inverted),
 * and whether the form is a target when what it embeds is public. A connection to an IPv4-mapped
 * address reaches its IPv4 address, and NAT64's well-known prefix is translated to it (DNS64
 * answers so for an IPv4-only receiver); the others are transition forms no receiver needs (6to4
 * and Teredo go through relays to what they embed; IPv4-compatible addresses are deprecated, and
 * IPv4-translated ones are for translators), refused whatever they embed.
 */
const EMBEDDING: {
  form: string;
  prefix: [ipaddr.IPv6, number];
  at: { byte: number; inverted?: true }[];
  target: boolean;
}[] = [
  { form: "IPv4-mapped", prefix: ipaddr.IPv6.parseCIDR("::ffff:0:0/96"), at: [{ byte: 12 }], target: true },
  { form: "NAT64", prefix: ipaddr.IPv6.parseCIDR("64:ff9b::/96"), at: [{ byte: 12 }], target: true },
  {
    form: "IPv4-translated",
    prefix: ipaddr.IPv6.parseCIDR("::ffff:0:0:0/96"),
    at: [{ byte: 12 }],
    target: false,
  },
  // After ::1 and :: (loopback and unspecified), which it holds too.
  { form: "IPv4-compatible", prefix: ipaddr.IPv6.parseCIDR("::/96"), at: [{ byte: 12 }], target: false },
  { form: "6to4", prefix: ipaddr.IPv6.parseCIDR("2002::/16"), at: [{ byte: 2 }], target: false },
  {
    form: "Teredo",
    prefix: ipaddr.IPv6.parseCIDR("2001::/32"),
    at: [{ byte: 4 }, { byte: 12, inverted: true }],
    target: false,
  },
];

/** "a" or "an" before a range's or form's name. */
const article = (name: string) => (/^(?!uni)[aeiou]/i.test(name) ? `an ${name}` : `a ${name}`);

/**
 * Why `address` is no public target, or null when it is one. Every spelling of an address is
 * checked as what it reaches: an IPv6 form that embeds an IPv4 address is refused when that
 * address is not public (and the transition forms whatever they embed). IPv4's other spellings
 * (127.1, 2130706433, 0x7f.0.0.1, 0177.0.0.1) never get here: a URL's host is written in dotted
 * decimal by the URL parser, and DNS answers are.
 */
export function notPublic(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return `${address} is not an IP address`;
  }
  const range = ip.range();
  if (ip.kind() === "ipv6" && range !== "loopback" && range !== "unspecified") {
    const v6 = ip as ipaddr.IPv6;
    const embedding = EMBEDDING.find((e) => v6.match(e.prefix));
    if (embedding) {
      const bytes = v6.toByteArray();
      for (const { byte, inverted } of embedding.at) {
        const v4 = new ipaddr.IPv4(bytes.slice(byte, byte + 4).map((b) => (inverted ? b ^ 0xff : b)));
        if (!PUBLIC.has(v4.range())) return `${address} embeds ${v4}, ${article(v4.range())} address`;
      }
      return embedding.target ? null : `${address} is ${article(embedding.form)} address`;
    }
  }
  return PUBLIC.has(range) ? null : `${address} is ${article(range)} address`;
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

/**
 * Connections are kept open between deliveries to the same receiver, by an agent of each policy.
 * The one for public targets resolves each connection's host by publicLookup (its own option,
 * which overrides a request's), so the address a connection goes to is the one that was checked,
 * and a connection opened where private targets are allowed is never reused where they are not.
 */
const KEEP = { keepAlive: true, maxSockets: 64 };
const agents = {
  public: {
    "http:": new http.Agent({ ...KEEP, lookup: publicLookup }),
    "https:": new https.Agent({ ...KEEP, lookup: publicLookup }),
  },
  any: { "http:": new http.Agent(KEEP), "https:": new https.Agent(KEEP) },
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
        agent: agents[options.allowPrivate ? "any" : "public"][target.protocol as "http:" | "https:"],
        headers: { ...headers, "content-length": String(payload.length) },
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
