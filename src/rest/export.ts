import { randomUUID } from "node:crypto";
import type { GraphQLObjectType } from "graphql";
import type { ApiKey } from "../auth/keys.ts";
import { type Endpoint, POLL_INTERVAL_SECONDS, RATE_LIMITS } from "../auth/limits.ts";
import { apiKeyOf } from "../auth/plugin.ts";
import { budgetHeaders, type RateLimits } from "../auth/rate-limit.ts";
import type { ExportJob, ExportJobs } from "../db/export-jobs.ts";
import type { JobResults, ResultWriter } from "../db/export-results.ts";
import { readAt } from "../db/snapshots.ts";
import { DATABASE_RETRY_AFTER_S, maskFault, STATUS } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { Metrics } from "../ops/metrics.ts";
import { requestIdOf } from "../ops/request-id.ts";
import { CURSOR_RETRY_AFTER_S, fingerprint } from "../query/cursor.ts";
import { schema } from "../schema/index.ts";
import { cachedDocument, field, operation, selection } from "./document.ts";
import { RestError, rateLimitedRestError, restErrorOf } from "./errors.ts";
import type { ExportReader, Page, PageFormat } from "./export-reader.ts";
import { parseFields, selectionKey } from "./fields.ts";
import { drawOn, type ExecuteGraphQL, errorResponse, type Special } from "./handler.ts";
import type { Options } from "./options.ts";
import { DOMAIN_NAMES_DOCUMENT, DOMAIN_TABLES, readDomainQuery, renameWith } from "./routes.ts";

/**
 * Whole results in bounded memory: `cursor=all` jobs (202 while running, then the result) and
 * Export Domains (JSON Lines streamed at once). The options are those of List Domains, checked by
 * its GraphQL query on this thread (so filters, sort, auth, limits and errors are List Domains');
 * the Domains are then read through one database cursor and written by their GraphQL operation
 * and legacy writer on a worker thread (domainStream, src/rest/export-page.ts, through
 * src/rest/export-reader.ts), so that the server answers other requests meanwhile.
 */
/** A running job whose worker has not reported for this long is taken over. */
const STALE_MS = 60_000;
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
  /** Where cursor=all results are kept (src/db/export-results.ts). */
  results: JobResults;
  /** Counts exports, jobs, their Domains and bytes (src/ops/metrics.ts). */
  metrics?: Metrics | null;
}

interface DomainQuery {
  /** The `fields` option ("" for the defaults), checked. */
  fields: string;
  fieldsKey: string;
  variables: { filter: Record<string, unknown>; orderBy?: unknown; search?: string };
}

function readQuery(o: Options): DomainQuery {
  const fields = o.string("fields") ?? "";
  const sel = parseFields(fields, schema.getType("Domain") as GraphQLObjectType);
  return { fields, fieldsKey: selectionKey(sel), variables: readDomainQuery(o) };
}

const rename = renameWith(DOMAIN_TABLES);

/**
 * Every matching Domain's JSON text, in pages. List Domains' query, for its first Domain, checks
 * the options and names the snapshot; every page is then read from that snapshot, and a new one
 * served meanwhile ends the export with 410 CURSOR_EXPIRED (as it ends a client's paging).
 */
async function* domainPages(
  deps: ExportDeps,
  request: Request,
  q: DomainQuery,
  format: PageFormat,
  kind: "export" | "job",
  from = 0,
  /** The snapshot a job was started on: a resumed job reads it or none (410). */
  snapshotVersion?: number,
): AsyncGenerator<Page> {
  // Draws on no budget: starting the export or the job did (once a minute).
  const result = await deps.execute(request, DOMAIN_NAMES_DOCUMENT(), { ...q.variables, first: 1 }, null);
  if (result.errors?.length) throw restErrorOf(result.errors, rename);
  const served = result.served;
  if (!served) throw new Error("an export's query answered without a snapshot");
  const { version } = served.snapshot;
  if (snapshotVersion !== undefined && snapshotVersion > version)
    throw notServedYet(snapshotVersion, version);
  if (snapshotVersion !== undefined && snapshotVersion !== version) throw expired(snapshotVersion, version);
  const counted = deps.metrics?.export(kind);
  try {
    for await (const page of deps.reader.stream(readAt(served), q.fields, q.variables, format, from)) {
      await deps.beforePage?.();
      const now = await deps.version();
      if (now !== version) throw expired(version, now);
      counted?.page(page.count, page.bytes.byteLength);
      yield page;
    }
  } finally {
    counted?.end();
  }
}

async function countDomains(deps: ExportDeps, request: Request, q: DomainQuery): Promise<number> {
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
  if (!domains) throw new RestError(500, "INTERNAL_SERVER_ERROR", "the count returned no data");
  return domains.totalCount;
}

/**
 * Export Domains: JSON Lines, streamed as pages are read (backpressure: a page per pull). The first
 * page is read before answering, so that bad options get their 400 rather than a broken stream.
 */
async function exportStream(deps: ExportDeps, request: Request, q: DomainQuery): Promise<Response> {
  const pages = domainPages(deps, request, q, "jsonl", "export");
  let pending: IteratorResult<Page> | null = await pages.next();
  // Drawn once the options proved valid: a typo costs a 400, not the minute's only export.
  const budget = await drawOn(deps.limits, "exportDomains", request).catch(async (e) => {
    await pages.return(undefined);
    throw e;
  });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = pending ?? (await pages.next());
        pending = null;
        if (next.done) return controller.close();
        if (next.value.count) controller.enqueue(next.value.bytes);
      } catch (e) {
        // Mid-stream the status is sent: say what happened on a last line, then break the stream
        // so that the client cannot mistake the partial result for a whole one.
        const err =
          e instanceof RestError
            ? e
            : restErrorOf([maskFault(e, deps.logger, requestIdOf(request))], (a) => a);
        const { requestId } = err as { requestId?: string };
        const line = { error: err.message, code: err.code, ...(requestId ? { request_id: requestId } : {}) };
        controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
        controller.error(err);
      }
    },
    async cancel() {
      await pages.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "cache-control": "no-store",
      ...budgetHeaders(budget),
    },
  });
}

const keyOf = (request: Request): ApiKey => {
  const key = apiKeyOf(request);
  if (!key) throw new Error("an export request without an authenticated key");
  return key;
};

/** cursor=all: start the job, report its progress (202), or answer its result (200). */
async function cursorAll(
  deps: ExportDeps,
  request: Request,
  q: DomainQuery,
  format: "json" | "jsonl",
): Promise<Response> {
  const version = await deps.version();
  if (version === null)
    throw new RestError(503, "NOT_READY", "no dataset has been loaded yet; try again shortly");
  await expireJobs(deps, version);
  // Jobs belong to the API key (not to how its header was spelled).
  const key = keyOf(request);
  const owner = key.id;
  const query = fingerprint({ v: q.variables, f: q.fieldsKey, format });
  let job = await deps.jobs.find(owner, query);
  if (!job) {
    // A gateway shutting down starts nothing it would have to hand over half-begun.
    if (jobState(deps).closing) throw shuttingDown();
    const total = await countDomains(deps, request, q);
    const budget = await drawOn(deps.limits, "listDomainsAll", request);
    const id = randomUUID();
    if (await deps.jobs.insert({ id, owner, query, format, snapshotVersion: version, total })) {
      void runJob(deps, request, q, id, format, version);
      // Starting is the first poll: the next one is welcome in POLL_INTERVAL_SECONDS.
      await deps.limits.poll(key, id);
      return Response.json(
        { progress: 0, total },
        { status: 202, headers: { "cache-control": "no-store", ...budgetHeaders(budget) } },
      );
    }
    job = await deps.jobs.find(owner, query);
    if (!job) throw new RestError(500, "INTERNAL_SERVER_ERROR", "the job vanished");
  }
  // A handed-over job of a snapshot this gateway does not serve yet (its replica lags) is left
  // for a gateway that does: claiming it here would fail it.
  if (job.status === "paused" && job.snapshotVersion > version)
    throw notServedYet(job.snapshotVersion, version);
  const wait = await deps.limits.poll(key, job.id);
  if (
    wait === null &&
    job.status === "paused" &&
    !jobState(deps).closing &&
    (await deps.jobs.claim(job.id))
  ) {
    // Handed over by a gateway that shut down: resumed here, after the Domains it wrote.
    deps.logger.info(
      { jobId: job.id, progress: job.progress, total: job.total },
      "resuming a handed-over export job",
    );
    void runJob(deps, request, q, job.id, format, job.snapshotVersion, job.progress);
    job = { ...job, status: "running" };
  }
  if (wait !== null) {
    const endpoint: Endpoint = "listDomainsAll";
    throw rateLimitedRestError(
      `${RATE_LIMITS[endpoint].title}: poll a job at most once every ${POLL_INTERVAL_SECONDS} seconds; retry in ${wait} s`,
      endpoint,
      wait,
    );
  }
  return answer(deps, job);
}

async function answer(deps: ExportDeps, job: ExportJob): Promise<Response> {
  if (job.status === "running" || job.status === "paused") {
    return Response.json(
      { progress: job.progress, total: job.total },
      { status: 202, headers: { "cache-control": "no-store" } },
    );
  }
  if (job.status === "failed") {
    // Report it once; the next request starts afresh.
    await deps.jobs.delete(job.id);
    const status = (STATUS as Record<string, number>)[job.errorCode ?? ""] ?? 500;
    const retry: Record<string, string> =
      status === 503 ? { "retry-after": String(DATABASE_RETRY_AFTER_S) } : {};
    return errorResponse(
      new RestError(status, job.errorCode ?? "INTERNAL_SERVER_ERROR", job.error ?? "the job failed", retry),
    );
  }
  const type =
    job.format === "jsonl" ? "application/x-ndjson; charset=utf-8" : "application/json; charset=utf-8";
  return new Response(deps.results.read(job), {
    status: 200,
    headers: { "content-type": type, "cache-control": "no-store" },
  });
}

/**
 * Writes a job's result (deps.results: chunks in the database on PostgreSQL, a file on SQLite),
 * from its `from`-th Domain on: 0, or where a gateway that handed it over stopped, the stored
 * part holding exactly those Domains. A page at a time, the job's progress is recorded; once the
 * gateway is shutting down (handOverJobs), it stops after the page it is on, and the job is left
 * paused for the next gateway polled for it.
 */
async function runJob(
  deps: ExportDeps,
  request: Request,
  q: DomainQuery,
  id: string,
  format: "json" | "jsonl",
  snapshotVersion: number,
  from = 0,
) {
  let count = from;
  const job: RunningJob = { handOver: false, paused: false, count: () => count };
  jobState(deps).running.set(id, job);
  let result: ResultWriter | null = null;
  try {
    result = await deps.results.open({ id, format }, from);
    if (from > 0 && result.from === 0) {
      deps.logger.warn(
        { jobId: id, progress: from },
        "a handed-over job's partial result is not here; it starts again",
      );
    }
    count = result.from;
    if (format === "json" && count === 0) await result.write(['{"domains":['], 0);
    for await (const page of domainPages(deps, request, q, format, "job", count, snapshotVersion)) {
      if (page.count) {
        // JSON joins the pages with commas, as the export thread joins a page's Domains.
        await result.write(
          format === "json" && count > 0 ? [",", page.bytes] : [page.bytes],
          count + page.count,
        );
      }
      count += page.count;
      await deps.jobs.progress(id, count);
      if (job.handOver) {
        await result.pause();
        await deps.jobs.pause(id, count);
        job.paused = true;
        return;
      }
    }
    if (format === "json") await result.write(["]}"], count);
    await deps.jobs.finish(id, await result.finish(), count);
  } catch (e) {
    await result?.discard().catch(() => {});
    // A fault is logged once, with the request id its poll will report (a 503 or a 500).
    const err =
      e instanceof RestError ? e : restErrorOf([maskFault(e, deps.logger, requestIdOf(request))], (a) => a);
    await deps.jobs.fail(id, err.message, err.code).catch(() => {});
  } finally {
    jobState(deps).running.delete(id);
    job.done?.();
  }
}

const expired = (version: number, now: number | null) =>
  new RestError(
    410,
    "CURSOR_EXPIRED",
    `the export expired because the data was refreshed (snapshot ${version}, now serving ${now}); start again`,
  );

/** A job of a snapshot newer than this gateway serves yet (its replica lags): another answers soon. */
const notServedYet = (version: number, now: number) =>
  new RestError(
    503,
    "NOT_READY",
    `the job reads snapshot ${version}, which this gateway does not serve yet (it serves ${now}); retry in ${CURSOR_RETRY_AFTER_S} s`,
    { "retry-after": String(CURSOR_RETRY_AFTER_S) },
  );

const shuttingDown = () =>
  new RestError(503, "NOT_READY", "this gateway is shutting down: retry, and another one answers", {
    "retry-after": "1",
  });

interface RunningJob {
  /** Set when the gateway shuts down: the job stops after its page, and is left paused. */
  handOver: boolean;
  /** It stopped so, paused for another gateway (rather than finished or failed meanwhile). */
  paused: boolean;
  /** The Domains written so far. */
  count(): number;
  /** Called once the job has stopped, however. */
  done?: () => void;
}

/** The jobs this gateway is writing, by id, and whether it is shutting down. */
const jobStates = new WeakMap<ExportDeps, { running: Map<string, RunningJob>; closing: boolean }>();

function jobState(deps: ExportDeps): { running: Map<string, RunningJob>; closing: boolean } {
  let state = jobStates.get(deps);
  if (!state) {
    state = { running: new Map(), closing: false };
    jobStates.set(deps, state);
  }
  return state;
}

/**
 * Hands this gateway's running jobs over (graceful shutdown): each stops after the page it is on,
 * its result so far whole in its partial file, and is left paused, so that the next gateway polled
 * for it resumes it from there (they share the job table and the data directory). Resolves with
 * the jobs handed over once all have stopped.
 */
export async function handOverJobs(deps: ExportDeps): Promise<{ id: string; progress: number }[]> {
  const state = jobState(deps);
  // From now on no job starts or resumes here (cursorAll answers 503 to a new one).
  state.closing = true;
  const jobs = [...state.running];
  await Promise.all(
    jobs.map(
      ([, job]) =>
        new Promise<void>((resolve) => {
          job.done = resolve;
          job.handOver = true;
        }),
    ),
  );
  // Those that finished or failed meanwhile were not handed over.
  return jobs.filter(([, job]) => job.paused).map(([id, job]) => ({ id, progress: job.count() }));
}

/**
 * Drops jobs of older snapshots (never of a newer one, which a gateway on another replica serves
 * already), past their time, or abandoned by a dead worker, with their results.
 */
async function expireJobs(deps: ExportDeps, version: number): Promise<void> {
  const now = Date.now();
  for (const job of await deps.jobs.expired(now, deps.ttlMs, STALE_MS, version)) {
    await deps.jobs.delete(job.id);
    await deps.results.remove(job);
  }
  await deps.results.sweep(async () => new Set(await deps.jobs.ids()), now, STALE_MS);
}

/** The routes that answer whole results: export, and List Domains with cursor=all. */
export function exportRoutes(deps: ExportDeps): Special {
  const special = whole(deps);
  // Their responses report the budget of the export or of cursor=all, not the route's own.
  return async (route, params, options, request) => {
    const endpoint: Endpoint = route.id === "exportDomains" ? "exportDomains" : "listDomainsAll";
    let response: Response | null;
    try {
      response = await special(route, params, options, request);
    } catch (e) {
      if (!(e instanceof RestError)) throw e;
      response = errorResponse(e);
    }
    if (response && !response.headers.has("x-ratelimit-limit")) {
      const key = apiKeyOf(request);
      const budget = key ? await deps.limits.peek(endpoint, key) : null;
      for (const [name, value] of Object.entries(budgetHeaders(budget))) response.headers.set(name, value);
    }
    return response;
  };
}

function whole(deps: ExportDeps): Special {
  return async (route, _params, options, request) => {
    if (route.id === "exportDomains") return exportStream(deps, request, readQuery(options));
    if ((route.id === "listDomains" || route.id === "searchDomains") && options.string("cursor") === "all") {
      const format = options.string("for");
      if (format !== undefined && format !== "" && format !== "jsonl" && format !== "json") {
        throw new RestError(
          400,
          "BAD_USER_INPUT",
          `for: must be jsonl (JSON Lines) or json; got "${format}"`,
        );
      }
      if (options.has("page_size"))
        throw new RestError(400, "BAD_USER_INPUT", "page_size: does not apply with cursor=all");
      return cursorAll(deps, request, readQuery(options), format === "jsonl" ? "jsonl" : "json");
    }
    return null;
  };
}
