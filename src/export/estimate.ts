import { gzipSync } from "node:zlib";
import { type Endpoint, RATE_LIMITS } from "../auth/limits.ts";
import type { Asker } from "../auth/plugin.ts";
import { monthOf } from "../auth/usage-counts.ts";
import type { ResultFormat } from "../db/export-jobs.ts";
import { drawOn } from "../rest/handler.ts";
import { domainCsvPlan } from "./csv.ts";
import {
  type Answer,
  countDomains,
  type DomainQuery,
  domainPages,
  type ExportDeps,
  keyOf,
} from "./export-query.ts";

/**
 * `dry_run=true` on Export Domains and on a `cursor=all` job (docs/decisions.md, "Dry runs"): what
 * it would write, without starting it. The count is List Domains' total (the count a job reports
 * as `total`); the bytes are an estimate: the matching Domains' first page in name order, read and
 * written as the export writes them (same fields, same format, through the same worker),
 * measured, and scaled to the count (exact when that page holds them all); the gzip size is that
 * page compressed, scaled alike. A dry run draws once on List Domains' budget (a read, like
 * facets), never on the start's budget nor on the month's counts.
 */
export interface Estimate {
  domains: number;
  format: ResultFormat;
  /** The `fields` option as given ("" for the defaults). */
  fields: string;
  bytes: number;
  gzipBytes: number;
  /** The Domains measured (a page), and whether they were all of them (then exact). */
  sample: number;
  exact: boolean;
  /** What starting it would draw: the start's budget now, and the month's count it adds to. */
  wouldDraw: {
    endpoint: Endpoint;
    title: string;
    limit: number | null;
    remaining: number | null;
    reset: number | null;
    month: string;
    countedAs: "exports" | "cursor_all_jobs";
    thisMonth: number | null;
  };
}

/** The order the sample is read in (List Domains' `sort=name`). */
const SAMPLE_ORDER = [{ field: "NAME", direction: "ASC" }];

/** The kinds of whole answer a dry run stands for: the budget each one's start draws on. */
export type DryRunOf = "exportDomains" | "listDomainsAll";

/** A result's bytes around its Domains: JSON's envelope, a CSV's header record. */
function framing(format: ResultFormat, fields: string): { head: string; tail: string; sep: string } {
  if (format === "json") return { head: '{"domains":[', tail: "]}", sep: "," };
  if (format === "csv") return { head: domainCsvPlan(fields).header, tail: "", sep: "" };
  return { head: "", tail: "", sep: "" };
}

/** The estimate of `q` in `format` for `request`, answered as `{"dry_run": {...}}`. */
export async function dryRun(
  deps: ExportDeps,
  request: Asker,
  q: DomainQuery,
  format: ResultFormat,
  of: DryRunOf,
): Promise<Answer> {
  const estimate = await estimateExport(deps, request, q, format, of);
  const w = estimate.wouldDraw;
  const body = {
    dry_run: {
      domains: estimate.domains,
      format: estimate.format,
      fields: estimate.fields || "*",
      bytes: estimate.bytes,
      gzip_bytes: estimate.gzipBytes,
      sample: estimate.sample,
      exact: estimate.exact,
      would_draw: {
        endpoint: w.endpoint,
        title: w.title,
        limit: w.limit,
        remaining: w.remaining,
        reset: w.reset,
        month: w.month,
        counted_as: w.countedAs,
        this_month: w.thisMonth,
      },
    },
  };
  const response = Response.json(body, { headers: { "cache-control": "no-store" } });
  return { response, budget: estimate.budget };
}

export async function estimateExport(
  deps: ExportDeps,
  request: Asker,
  q: DomainQuery,
  format: ResultFormat,
  of: DryRunOf,
): Promise<Estimate & { budget: Awaited<ReturnType<typeof drawOn>> }> {
  // The count checks the options first (a typo is a 400 that draws on nothing), as a job's start does.
  const domains = await countDomains(deps, request, q);
  const budget = await drawOn(deps.limits, "listDomains", request);
  const key = keyOf(request);
  const { head, tail, sep } = framing(format, q.fields);
  let sample = new Uint8Array(0);
  let sampled = 0;
  if (domains > 0) {
    // In name order, whatever the export's: its first page by rank held the larger Domains (a
    // quarter over the mean with the default fields), where names are unrelated to a record's size.
    const sampleQuery = { ...q, variables: { ...q.variables, orderBy: SAMPLE_ORDER } };
    const pages = domainPages(deps, request, sampleQuery, format, "estimate");
    try {
      const first = await pages.next();
      if (!first.done) {
        sample = Uint8Array.from(first.value.bytes);
        sampled = first.value.count;
        first.value.release?.();
      }
    } finally {
      await pages.return(undefined);
    }
  }
  const exact = sampled >= domains;
  // Each Domain's share of the sample, its separator included; the whole, framed as written.
  const each = sampled ? (sample.byteLength + (sep && sampled ? sep.length : 0)) / sampled : 0;
  const body = exact ? sample.byteLength : Math.round(each * domains - (sep && domains ? sep.length : 0));
  const bytes = Buffer.byteLength(head) + body + Buffer.byteLength(tail);
  const framed = Buffer.concat([Buffer.from(head), sample, Buffer.from(tail)]);
  const gzipped = gzipSync(framed).byteLength;
  const gzipBytes = exact ? gzipped : Math.round((bytes * gzipped) / Math.max(1, framed.byteLength));
  const state = await deps.limits.peek(of, key);
  const counts = await deps.counts?.read(key);
  const row = RATE_LIMITS[of];
  return {
    domains,
    format,
    fields: q.fields,
    bytes,
    gzipBytes,
    sample: sampled,
    exact,
    wouldDraw: {
      endpoint: of,
      title: row.title,
      limit: state?.limit ?? null,
      remaining: state?.remaining ?? null,
      reset: state ? (state.remaining === state.limit ? 0 : Math.ceil(state.resetMs / 1000)) : null,
      month: counts?.month ?? monthOf(Date.now()).month,
      countedAs: of === "exportDomains" ? "exports" : "cursor_all_jobs",
      thisMonth: counts ? (of === "exportDomains" ? counts.exports : counts.cursorAllJobs) : null,
    },
    budget,
  };
}
