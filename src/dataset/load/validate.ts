import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { z } from "zod";
import type { Row, TableKey } from "../../db/tables.ts";
import { fromRoot } from "../../root.ts";
import { AppRecord, DomainRecord, ReviewRecord } from "../record.ts";
import { formatIssue, type NamedKeys, namedKeys, textProblems } from "../record-issues.ts";
import { type Accept, compileAccept } from "./accept.ts";
import { jsonPrefix } from "./json-prefix.ts";
import { type Line, type LineBatch, linesOf, type SnapshotFile } from "./read.ts";
import { appChildRows, appRow, domainChildRows, domainRow, reviewRows } from "./rows.ts";

/** The schema of each file's lines. */
export const SCHEMAS = { apps: AppRecord, domains: DomainRecord, reviews: ReviewRecord } satisfies Record<
  SnapshotFile,
  z.ZodType
>;

/**
 * The part of each record that the rules spanning records need; the rest travels as rows only.
 * Keeping it small keeps the copy from a worker thread cheap.
 */
export interface Facts {
  apps: Pick<
    AppRecord,
    "id" | "platform" | "token" | "installs" | "review_count" | "name" | "app_store_url" | "vendor_name"
  >;
  domains: Pick<
    DomainRecord,
    | "name"
    | "platform_domain"
    | "platform"
    | "state"
    | "rank"
    | "rank_percentile"
    | "platform_rank"
    | "platform_rank_percentile"
    | "cluster_domains"
    | "cluster_best_ranked"
  > & {
    apps?: Pick<
      NonNullable<DomainRecord["apps"]>[number],
      "id" | "platform" | "token" | "installed_at" | "removed_at"
    >[];
    technologies?: Omit<NonNullable<DomainRecord["technologies"]>[number], "installed_at">[];
  };
  reviews: Pick<ReviewRecord, "app" | "domains">;
}

/**
 * A line checked on its own: its facts and rows (primary keys 0, references unresolved — see
 * rows.ts), or its problems as `field: problem` with the keys it names (to attribute the
 * problems its absence causes to it).
 */
export type Prepared<K extends SnapshotFile = SnapshotFile> =
  | { line: number; facts: Facts[K]; rows: [TableKey, Row[]][]; problems?: undefined }
  | { line: number; problems: string[]; named?: NamedKeys };

/**
 * Whether a line may hold a string that textProblem refuses. Lines are decoded from UTF-8
 * (read.ts), which reads bytes that encode a lone surrogate as U+FFFD, and JSON allows no raw
 * NUL: in a line, both can only be written as escapes, \u0000 or \uD800 to \uDFFF. Only a line
 * with such an escape (a surrogate pair, or "\\u0000", which is no NUL, also has one) is searched
 * string by string: this test costs about 1.5 µs on a 4 KB Domain line, searching every string
 * about 11 µs (and a refinement on every zod string more, and it would miss keys and the fields
 * a record carries unread).
 */
const MAY_HOLD_BAD_TEXT = /\\u(?:0000|[dD][89a-fA-F])/;
const NO_PROBLEMS: string[] = [];

/**
 * JSON-parses, validates and turns one line into rows (pure; runs in a worker or in process). A
 * line that fails, whether it is not JSON, holds text that cannot be stored, or breaks a rule of
 * its record, is dropped with the keys it names (what can be read of them), so that the problems
 * its absence causes are reported as following from it.
 */
export function prepareLine<K extends SnapshotFile>(kind: K, { line, text }: Line): Prepared<K> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const problems = [`(record): is not valid JSON: ${(e as Error).message}`];
    return { line, problems, named: namedKeys(kind, jsonPrefix(text)) };
  }
  const badText = MAY_HOLD_BAD_TEXT.test(text) ? textProblems(value) : NO_PROBLEMS;
  if (badText.length === 0 && acceptOf(kind)?.(value))
    return { line, ...PREPARE[kind](value as never) } as Prepared<K>;
  const parsed = SCHEMAS[kind].safeParse(value, { reportInput: true });
  if (!parsed.success || badText.length > 0) {
    const problems = parsed.success
      ? badText
      : [...badText, ...parsed.error.issues.flatMap((i) => formatIssue(i).split("\n"))];
    return { line, problems, named: namedKeys(kind, value) };
  }
  return { line, ...PREPARE[kind](parsed.data as never) } as Prepared<K>;
}

/** Each file's compiled check (accept.ts), made on first use: undefined until then. */
const ACCEPT: { [K in SnapshotFile]?: Accept | null } = {};
function acceptOf(kind: SnapshotFile): Accept | null {
  if (ACCEPT[kind] === undefined) ACCEPT[kind] = compileAccept(SCHEMAS[kind]);
  return ACCEPT[kind];
}

const PREPARE = {
  apps: (a: AppRecord) => ({
    facts: {
      id: a.id,
      platform: a.platform,
      token: a.token,
      installs: a.installs,
      review_count: a.review_count,
      name: a.name,
      app_store_url: a.app_store_url,
      vendor_name: a.vendor_name,
    },
    rows: [["app", [appRow(0, a)]], ...appChildRows(0, a)],
  }),
  domains: (d: DomainRecord) => ({
    facts: {
      name: d.name,
      platform_domain: d.platform_domain,
      platform: d.platform,
      state: d.state,
      rank: d.rank,
      rank_percentile: d.rank_percentile,
      platform_rank: d.platform_rank,
      platform_rank_percentile: d.platform_rank_percentile,
      cluster_domains: d.cluster_domains,
      cluster_best_ranked: d.cluster_best_ranked,
      apps: d.apps?.map(({ id, platform, token, installed_at, removed_at }) => ({
        id,
        platform,
        token,
        installed_at,
        removed_at,
      })),
      technologies: d.technologies?.map(({ installed_at: _, ...t }) => t),
    },
    rows: [["domain", [domainRow(0, d)]], ...domainChildRows(0, d)],
  }),
  reviews: (r: ReviewRecord) => ({ facts: { app: r.app, domains: r.domains }, rows: reviewRows(0, r) }),
} satisfies { [K in SnapshotFile]: (record: never) => { facts: Facts[K]; rows: [TableKey, Row[]][] } };

/** Batches of lines (read.ts: about 1 MB each) each worker holds at once, queued or at work. */
const IN_FLIGHT_PER_WORKER = 3;

/** Every line of a batch prepared (prepareLine), in order: what a worker does with a batch. */
export function prepareBatch<K extends SnapshotFile>(kind: K, batch: LineBatch): Prepared<K>[] {
  return linesOf(batch).map((l) => prepareLine(kind, l));
}

/** Workers to use by default: validation is most of a load's CPU, so use every core. */
export function defaultWorkerCount(): number {
  return Math.max(1, Math.min(availableParallelism(), 8));
}

/**
 * Prepares a file's lines in order of appearance. With a pool, batches of bytes go to worker
 * threads (transferred, not copied), which decode, parse, check and make rows while the caller
 * writes the rows before; results are still yielded in line order, with at most
 * IN_FLIGHT_PER_WORKER batches per worker outstanding (bounded memory).
 */
export async function* prepareBatches<K extends SnapshotFile>(
  kind: K,
  batches: AsyncIterable<LineBatch>,
  pool: ValidationPool | null,
): AsyncGenerator<Prepared<K>> {
  if (!pool) {
    for await (const batch of batches) yield* prepareBatch(kind, batch);
    return;
  }
  const pending: Promise<Prepared<K>[]>[] = [];
  for await (const batch of batches) {
    pending.push(pool.validate(kind, batch));
    while (pending.length >= pool.size * IN_FLIGHT_PER_WORKER) yield* (await pending.shift()) ?? [];
  }
  while (pending.length) yield* (await pending.shift()) ?? [];
}

/**
 * The young generation of a validation thread, MB: each batch makes about a megabyte of objects
 * that die once its rows are posted back, so a young generation this large scavenges few times and
 * promotes little (10% of the ingest against Node's default). Set for these threads alone: a
 * process-wide --max-semi-space-size gave every thread of the load (the render's too) as much.
 */
const VALIDATION_YOUNG_MB = 192;

/** Worker threads that prepare batches of lines; started once per load (they take ~0.5 s). */
export class ValidationPool {
  private readonly workers: Worker[];
  private readonly waiting = new Map<
    number,
    { resolve: (v: Prepared[]) => void; reject: (e: Error) => void }
  >();
  private seq = 0;

  constructor(readonly size: number) {
    const url = fromRoot("src/dataset/load/validate-worker.mjs");
    this.workers = Array.from({ length: size }, () => {
      const w = new Worker(url, { resourceLimits: { maxYoungGenerationSizeMb: VALIDATION_YOUNG_MB } });
      w.on("message", ({ seq, results }: { seq: number; results: Prepared[] }) => {
        this.waiting.get(seq)?.resolve(results);
        this.waiting.delete(seq);
      });
      w.on("error", (e) => {
        for (const p of this.waiting.values()) p.reject(e);
        this.waiting.clear();
      });
      return w;
    });
  }

  validate<K extends SnapshotFile>(kind: K, batch: LineBatch): Promise<Prepared<K>[]> {
    const seq = this.seq++;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve: resolve as (v: Prepared[]) => void, reject });
      this.workers[seq % this.workers.length].postMessage({ seq, kind, batch }, [
        batch.bytes.buffer as ArrayBuffer,
      ]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
