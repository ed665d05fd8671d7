import type { ApiKey } from "../auth/keys.ts";
import { type Asker, apiKeyOf } from "../auth/plugin.ts";
import type { Budget } from "../auth/rate-headers.ts";
import type { RateLimits } from "../auth/rate-limit.ts";
import type { MonthlyCounts } from "../auth/usage-counts.ts";
import type { ExportJobs, ResultFormat } from "../db/export-jobs.ts";
import type { JobResults } from "../db/export-results.ts";
import { readAt } from "../db/snapshots.ts";
import { apiError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { Metrics } from "../ops/metrics.ts";
import { CURSOR_RETRY_AFTER_S } from "../query/cursor.ts";
import { cachedDocument, field, operation, selection } from "../rest/document.ts";
import { restErrorOf } from "../rest/errors.ts";
import { selectionKey } from "../rest/fields.ts";
import type { ExecuteGraphQL } from "../rest/handler.ts";
import { DOMAIN_QUERY, DOMAIN_TABLES, optionOf } from "../rest/inputs.ts";
import type { Options } from "../rest/options.ts";
import { reportBroken } from "../rest/rendered.ts";
import { type Route, selectionOf } from "../rest/route.ts";
import { domainNamesDocument } from "../rest/routes.ts";
import { exportQueryOf } from "./export-page.ts";
import type { ExportReader, Page, PageFormat, PageWire } from "./export-reader.ts";
import type { ExportSlots } from "./export-slots.ts";

/**
 * What Export Domains and `cursor=all` jobs share (src/export/export.ts, src/export/cursor-all.ts):
 * their options, which are List Domains', checked by its GraphQL query on this thread (so filters,
 * sort, auth, limits and errors are List Domains'), and the pages of every matching Domain, read
 * through one database cursor and written by the generated row writer (or, where it cannot, by
 * their GraphQL operation) on a worker thread (src/export/export-page.ts, through
 * src/export/export-reader.ts), so that the server answers other requests meanwhile.
 */
export interface ExportDeps {
  execute: ExecuteGraphQL;
  limits: RateLimits;
  jobs: ExportJobs;
  ttlMs: number;
  logger: Logger;
  /** The version of the snapshot being served. */
  version: () => Promise<number | null>;
  /** Awaited before each page is handed on (tests). */
  beforePage?: () => Promise<void>;
  /** Reads and writes the Domains, off the server's thread. */
  reader: ExportReader;
  /** The exports and jobs this gateway runs at once (EXPORT_CONCURRENCY): one more is BUSY. */
  slots: ExportSlots;
  /** Where cursor=all results are kept (src/db/export-results.ts). */
  results: JobResults;
  /** Counts exports, jobs, their Domains and bytes (src/ops/metrics.ts). */
  metrics?: Metrics | null;
  /** Counts each key's exports and cursor=all jobs of the month (GET /json/api/v1/usage). */
  counts?: MonthlyCounts | null;
}

/** The key of a request that reached an export (useAuth let it through). */
export function keyOf(request: Asker): ApiKey {
  const key = apiKeyOf(request);
  if (!key) throw new Error("an export request without an authenticated key");
  return key;
}

/** The Content-Type of a result, and a CSV's file name. */
export function resultHeaders(format: ResultFormat): Record<string, string> {
  if (format === "csv")
    return {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": 'attachment; filename="domains.csv"',
    };
  return {
    "content-type":
      format === "jsonl" ? "application/x-ndjson; charset=utf-8" : "application/json; charset=utf-8",
  };
}

export interface DomainQuery {
  /** The `fields` option ("" for the defaults), checked. */
  fields: string;
  fieldsKey: string;
  variables: { filter: Record<string, unknown>; orderBy?: unknown; search?: string };
}

/** The route's `fields` (checked as the route checks them) and List Domains' query options. */
export function readQuery(route: Route, o: Options): DomainQuery {
  return {
    fields: o.string("fields") ?? "",
    fieldsKey: selectionKey(selectionOf(route, o)),
    variables: DOMAIN_QUERY.read(o, {}) as DomainQuery["variables"],
  };
}

const rename = (argument: string) => optionOf(DOMAIN_TABLES, argument);

/**
 * Every matching Domain's JSON text, in pages. List Domains' query, for its first Domain, checks
 * the options and names the snapshot; every page is then read from that snapshot, and a new one
 * served meanwhile ends the export with 410 CURSOR_EXPIRED (as it ends a client's paging).
 */
export async function* domainPages(
  deps: ExportDeps,
  request: Asker,
  q: DomainQuery,
  format: PageFormat,
  /** "estimate": a dry run's sample (src/export/estimate.ts), not counted as an export. */
  kind: "export" | "job" | "estimate",
  from = 0,
  /** The snapshot a job was started on: a resumed job reads it or none (410). */
  snapshotVersion?: number,
  /** How the pages go to the client (src/export/export-reader.ts: PageWire). */
  wire: PageWire = {},
): AsyncGenerator<Page> {
  // Draws on no budget: starting the export or the job did (once a minute).
  const result = await deps.execute(
    request,
    cachedDocument("export:names", domainNamesDocument),
    { ...q.variables, first: 1 },
    null,
  );
  if (result.errors?.length) throw restErrorOf(result.errors, rename);
  const served = result.served;
  if (!served) throw new Error("an export's query answered without a snapshot");
  const { version } = served.snapshot;
  if (snapshotVersion !== undefined && snapshotVersion > version)
    throw notServedYet(snapshotVersion, version);
  if (snapshotVersion !== undefined && snapshotVersion !== version) throw expired(snapshotVersion, version);
  const counted = kind === "estimate" ? undefined : deps.metrics?.export(kind);
  // The set of Domains the check resolved, as the account's (its lists and segments read now: a
  // job resumed on another gateway reads them again, as they are then); the export thread reads
  // it and resolves nothing.
  if (!result.context) throw new Error("an export's query answered without its context");
  const query = await exportQueryOf(result.context, q.variables);
  try {
    for await (const page of deps.reader.stream(readAt(served), q.fields, query, format, from, wire)) {
      await deps.beforePage?.();
      const now = await deps.version();
      if (now !== version) throw expired(version, now);
      counted?.page(page.count, page.bytes.byteLength, page.fallbacks ?? 0, page.rendered, page.broken);
      if (page.broken) reportBroken(deps.logger, served, kind, page.broken);
      yield page;
    }
  } finally {
    counted?.end();
  }
}

export async function countDomains(deps: ExportDeps, request: Asker, q: DomainQuery): Promise<number> {
  const query = cachedDocument("export:count", () =>
    operation(
      "CountDomains",
      { filter: "DomainFilter", search: "String" },
      field("domains", ["filter", "search"], selection(field("totalCount"))),
    ),
  );
  const result = await deps.execute(
    request,
    query,
    { filter: q.variables.filter, search: q.variables.search },
    null,
  );
  if (result.errors?.length) throw restErrorOf(result.errors, rename);
  const domains = result.data?.domains as { totalCount: number } | undefined;
  if (!domains) throw new Error("the count returned no data");
  return domains.totalCount;
}

/** An answer, with the budget it drew on (the handler writes its X-RateLimit headers). */
export type Answer = { response: Response; budget?: Budget | null };

export const expired = (version: number, now: number | null) =>
  apiError(
    "CURSOR_EXPIRED",
    `the export expired because the data was refreshed (snapshot ${version}, now serving ${now}); start again`,
  );

/** A job of a snapshot newer than this gateway serves yet (its replica lags): another answers soon. */
export const notServedYet = (version: number, now: number) =>
  apiError(
    "NOT_READY",
    `the job reads snapshot ${version}, which this gateway does not serve yet (it serves ${now}); retry in ${CURSOR_RETRY_AFTER_S} s`,
    { retryAfter: CURSOR_RETRY_AFTER_S },
  );
