import { createHash } from "node:crypto";
import type { Operation } from "./route.ts";

/**
 * HTTP caching of REST responses (RFC 9110 section 8.8.3, 13.1.2). A snapshot is immutable and a
 * REST body depends only on the snapshot and the URL (never on the API key), so a response's
 * validator is known before anything is read: the snapshot's version and a digest of the route,
 * its path parameters and its options. A client that sends it back in If-None-Match while that
 * snapshot is still served gets 304 Not Modified, and nothing is read.
 */

/** Cache-Control of a cacheable 200: authenticated content, revalidated on every use. */
export const CACHE_CONTROL = "private, no-cache";

/** Routes whose 200s carry an ETag: the GETs of the route table (not Export Domains' stream). */
export function cacheable(op: Operation): boolean {
  return op.method === "GET" && op.route.query !== undefined && !op.route.mutation && !op.route.uncached;
}

/**
 * The shape of REST bodies: part of every tag, so that a release that changes what a URL answers
 * under the same snapshot (a new field, a fix) invalidates the tags clients hold. Bump it then.
 */
export const RESPONSE_FORMAT = 1;

const byKey = (a: [string, string], b: [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * The weak ETag of a route's response under snapshot `version`: `W/"<version>-<20 hex digits>"`.
 * The options are in a canonical order (by name; a stable sort, so a repeated option keeps the
 * order of its values), so `?a=1&b=2` and `?b=2&a=1` have the same tag.
 */
export function restEtag(
  version: number,
  route: string,
  params: Record<string, string>,
  query: URLSearchParams,
): string {
  const options = [...query].sort(byKey);
  const path = Object.entries(params).sort(byKey);
  const digest = createHash("sha256")
    .update(JSON.stringify([RESPONSE_FORMAT, route, path, options]))
    .digest("hex")
    .slice(0, 20);
  return `W/"${version}-${digest}"`;
}

/** An entity tag without its weakness: weak comparison compares only this (RFC 9110 8.8.3.2). */
const opaque = (tag: string) => tag.replace(/^W\//, "");

/**
 * What If-None-Match asks for: null when absent, "*" for any current representation, or the
 * listed entity tags (quoted tags may contain commas; unquoted ones, which some clients send, are
 * read leniently).
 */
export function parseIfNoneMatch(header: string | null): "*" | string[] | null {
  if (header === null) return null;
  const tags: string[] = header.match(/(?:W\/)?"[^"]*"|[^\s,]+/g) ?? [];
  if (tags.includes("*")) return "*";
  return tags.map((t) => {
    const o = opaque(t);
    return o.startsWith('"') ? o : `"${o}"`;
  });
}

/** Whether one of the listed tags matches `etag` by weak comparison. */
export function matchesEtag(tags: readonly string[], etag: string): boolean {
  const current = opaque(etag);
  return tags.some((t) => opaque(t) === current);
}
