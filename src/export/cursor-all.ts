import { randomUUID } from "node:crypto";
import { type Endpoint, POLL_INTERVAL_SECONDS, RATE_LIMITS } from "../auth/limits.ts";
import type { Asker } from "../auth/plugin.ts";
import type { ExportJob, ResultFormat } from "../db/export-jobs.ts";
import type { ResultWriter } from "../db/export-results.ts";
import {
  apiError,
  DATABASE_RETRY_AFTER_S,
  type ErrorCode,
  errorResponse,
  isApiError,
  maskFault,
  statusOf,
} from "../errors.ts";
import { requestIdOf } from "../ops/request-id.ts";
import { fingerprint } from "../query/cursor.ts";
import { drawOn } from "../rest/handler.ts";
import { domainCsvPlan } from "./csv.ts";
import {
  type Answer,
  countDomains,
  type DomainQuery,
  domainPages,
  type ExportDeps,
  keyOf,
  notServedYet,
  resultHeaders,
} from "./export-query.ts";

/**
 * `cursor=all`: a List Domains request for every result at once starts a job (202, with its
 * progress), polled at most every POLL_INTERVAL_SECONDS, whose result is kept for EXPORT_TTL_SECONDS
 * (src/db/export-results.ts) and answered whole once written. Jobs are shared by gateways
 * (src/db/export-jobs.ts): one shutting down hands its running jobs over to the next one polled.
 */
/** A running job whose worker has not reported for this long is taken over. */
const STALE_MS = 60_000;

/** cursor=all: start the job, report its progress (202), or answer its result (200). */
export async function cursorAll(
  deps: ExportDeps,
  request: Asker,
  q: DomainQuery,
  format: ResultFormat,
): Promise<Answer> {
  const version = await deps.version();
  if (version === null) throw apiError("NOT_READY", "no dataset has been loaded yet; try again shortly");
  await expireJobs(deps, version);
  // Jobs belong to the API key (not to how its header was spelled).
  const key = keyOf(request);
  const owner = key.id;
  const query = fingerprint({ v: q.variables, f: q.fieldsKey, format });
  let job = await deps.jobs.find(owner, query);
  if (!job) {
    // A gateway shutting down starts nothing it would have to hand over half-begun.
    if (jobState(deps).closing) throw shuttingDown();
    // A slot of the gateway's exports (or BUSY, before the count and the budget), held by the job.
    const release = deps.slots.take();
    let started = false;
    try {
      const total = await countDomains(deps, request, q);
      const budget = await drawOn(deps.limits, "listDomainsAll", request);
      const id = randomUUID();
      if (await deps.jobs.insert({ id, owner, query, format, snapshotVersion: version, total })) {
        started = true;
        void runJob(deps, request, q, id, format, version, release);
        await deps.counts?.add(key, "cursorAllJobs");
        // Starting is the first poll: the next one is welcome in POLL_INTERVAL_SECONDS.
        await deps.limits.poll(key, id);
        const response = Response.json(
          { progress: 0, total },
          { status: 202, headers: { "cache-control": "no-store" } },
        );
        return { response, budget };
      }
    } finally {
      if (!started) release();
    }
    job = await deps.jobs.find(owner, query);
    if (!job) throw new Error("the job vanished");
  }
  // A handed-over job of a snapshot this gateway does not serve yet (its replica lags) is left
  // for a gateway that does: claiming it here would fail it.
  if (job.status === "paused" && job.snapshotVersion > version)
    throw notServedYet(job.snapshotVersion, version);
  const wait = await deps.limits.poll(key, job.id);
  // Handed over by a gateway that shut down: resumed here, after the Domains it wrote, when this
  // gateway has a slot free (else it stays paused, and a later poll resumes it).
  const release =
    wait === null && job.status === "paused" && !jobState(deps).closing ? deps.slots.tryTake() : null;
  if (release) {
    if (await deps.jobs.claim(job.id)) {
      deps.logger.info(
        { jobId: job.id, progress: job.progress, total: job.total },
        "resuming a handed-over export job",
      );
      void runJob(deps, request, q, job.id, format, job.snapshotVersion, release, job.progress);
      job = { ...job, status: "running" };
    } else release();
  }
  if (wait !== null) {
    const endpoint: Endpoint = "listDomainsAll";
    throw apiError(
      "RATE_LIMITED",
      `${RATE_LIMITS[endpoint].title}: poll a job at most once every ${POLL_INTERVAL_SECONDS} seconds; retry in ${wait} s`,
      { retryAfter: wait, endpoint },
    );
  }
  return { response: await answer(deps, job, request) };
}

async function answer(deps: ExportDeps, job: ExportJob, request: Asker): Promise<Response> {
  if (job.status === "running" || job.status === "paused") {
    return Response.json(
      { progress: job.progress, total: job.total },
      { status: 202, headers: { "cache-control": "no-store" } },
    );
  }
  if (job.status === "failed") {
    // Report it once; the next request starts afresh.
    await deps.jobs.delete(job.id);
    const code = (job.errorCode ?? "INTERNAL_SERVER_ERROR") as ErrorCode;
    // What failed it was the database (503): the next attempt may well succeed.
    const retry = statusOf(code) === 503 ? { retryAfter: DATABASE_RETRY_AFTER_S } : {};
    return errorResponse(apiError(code, job.error ?? "the job failed", retry), requestIdOf(request));
  }
  return new Response(deps.results.read(job), {
    status: 200,
    headers: { ...resultHeaders(job.format), "cache-control": "no-store" },
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
  request: Asker,
  q: DomainQuery,
  id: string,
  format: ResultFormat,
  snapshotVersion: number,
  /** Frees the job's slot of the gateway's exports (src/export/export-slots.ts) when it stops. */
  release: () => void,
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
    // A result starts with its opening (unless resumed after it): JSON's, or a CSV's header.
    if (format === "json" && count === 0) await result.write(['{"domains":['], 0);
    if (format === "csv" && count === 0) await result.write([domainCsvPlan(q.fields).header], 0);
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
    const err = isApiError(e) ? e : maskFault(e, deps.logger, requestIdOf(request));
    await deps.jobs.fail(id, err.message, String(err.extensions.code)).catch(() => {});
  } finally {
    release();
    jobState(deps).running.delete(id);
    job.done?.();
  }
}

const shuttingDown = () =>
  apiError("NOT_READY", "this gateway is shutting down: retry, and another one answers", {
    retryAfter: 1,
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
