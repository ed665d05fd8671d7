import { gzipSync } from "node:zlib";
import { RATE_LIMITS } from "../auth/limits.ts";
import type { Asker } from "../auth/plugin.ts";
import { monthOf } from "../auth/usage-counts.ts";
import type { ExportEstimate, ExportEstimator } from "../context.ts";
import type { ResultFormat } from "../db/export-jobs.ts";
import { apiError } from "../errors.ts";
import { fingerprint } from "../query/cursor.ts";
import { drawOn } from "../rest/handler.ts";
import { Options } from "../rest/options.ts";
import { listDomains } from "../rest/routes.ts";
import { domainCsvPlan } from "./csv.ts";
import {
  type Answer,
  countDomains,
  type DomainQuery,
  domainPages,
  type ExportDeps,
  keyOf,
  readQuery,
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
type Estimate = ExportEstimate;

/** A gzip member's 10-byte header, 8-byte trailer and 2-byte final empty block (src/codec/gzip.ts). */
const GZIP_FRAME = 20;

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
      job: estimate.job,
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
  /** Draw on List Domains here (REST, MCP); GraphQL's field draws through its directive. */
  draw = true,
): Promise<Estimate & { budget: Awaited<ReturnType<typeof drawOn>> }> {
  // The count checks the options first (a typo is a 400 that draws on nothing), as a job's start does.
  const domains = await countDomains(deps, request, q);
  const budget = draw ? await drawOn(deps.limits, "listDomains", request) : null;
  const key = keyOf(request);
  const { head, tail, sep } = framing(format, q.fields);
  /** The sample's text length, and its size as a client that takes gzip is sent it. */
  let sampleBytes = 0;
  let sampleGzip = 0;
  let sampled = 0;
  if (domains > 0) {
    // In name order, whatever the export's: its first page by rank held the larger Domains (a
    // quarter over the mean with the default fields), where names are unrelated to a record's size.
    // Asked as a gzip client asks: rendered records then come as their pieces, whose text length
    // is known without inflating them, and whose compressed size is what such a client is sent
    // (each record compressed alone: a third larger than the text compressed whole).
    const sampleQuery = { ...q, variables: { ...q.variables, orderBy: SAMPLE_ORDER } };
    const pages = domainPages(deps, request, sampleQuery, format, "estimate", 0, undefined, { gzip: true });
    try {
      const first = await pages.next();
      if (!first.done) {
        const page = first.value;
        sampled = page.count;
        const framing = Buffer.byteLength(head) + Buffer.byteLength(tail);
        if (page.gzip) {
          sampleBytes = page.gzip.len;
          // A gzip member's header and trailer, and the final empty block, around the pieces.
          sampleGzip = GZIP_FRAME + page.bytes.byteLength + framing;
        } else {
          sampleBytes = page.bytes.byteLength;
          sampleGzip = gzipSync(Buffer.concat([Buffer.from(head), page.bytes, Buffer.from(tail)])).byteLength;
        }
        page.release?.();
      }
    } finally {
      await pages.return(undefined);
    }
  }
  const exact = sampled >= domains;
  // Each Domain's share of the sample, its separator included; the whole, framed as written.
  const each = sampled ? (sampleBytes + (sep && sampled ? sep.length : 0)) / sampled : 0;
  const body = exact ? sampleBytes : Math.round(each * domains - (sep && domains ? sep.length : 0));
  const bytes = Buffer.byteLength(head) + body + Buffer.byteLength(tail);
  const framedLength = Buffer.byteLength(head) + sampleBytes + Buffer.byteLength(tail);
  const gzipped = sampleGzip;
  const gzipBytes = exact ? gzipped : Math.round((bytes * gzipped) / Math.max(1, framedLength));
  // A job of this question already there is what the request would answer (cursorAll's lookup).
  const job =
    of === "listDomainsAll"
      ? await deps.jobs.find(key.id, fingerprint({ v: q.variables, f: q.fieldsKey, format }))
      : null;
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
    job: job ? { status: job.status, progress: job.progress, total: job.total } : null,
    budget,
  };
}

/**
 * GraphQL's exportEstimate (src/schema/export-estimate.ts), through the context: the same estimate
 * as REST's dry_run, its `fields` checked as the REST option is.
 */
export function exportEstimator(deps: ExportDeps): ExportEstimator {
  return {
    async estimate(caller, input) {
      if (!input.cursorAll && input.format === "json")
        throw apiError("BAD_USER_INPUT", "format: an export is JSONL or CSV; JSON is a cursor=all job's");
      const q = readQuery(listDomains, Options.fromBody({ fields: input.fields }));
      const variables = { filter: input.filter ?? {}, ...(input.search ? { search: input.search } : {}) };
      const of = input.cursorAll ? "listDomainsAll" : "exportDomains";
      const { budget: _, ...estimate } = await estimateExport(
        deps,
        caller,
        { ...q, variables },
        input.format,
        of,
        false,
      );
      return estimate;
    },
  };
}
