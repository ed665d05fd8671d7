import type { SnapshotStore } from "./store.ts";

/** How a job writes its result: `{"domains": [...]}`, JSON Lines, or CSV (docs/api.md 4.7). */
export type ResultFormat = "json" | "jsonl" | "csv";
const FORMATS: readonly string[] = ["json", "jsonl", "csv"] satisfies ResultFormat[];

/**
 * The `cursor=all` jobs in the meta database (model ExportJob), shared by every server instance.
 * The REST layer keeps its job state here and never touches Prisma.
 */
export interface ExportJob {
  id: string;
  owner: string;
  query: string;
  format: ResultFormat;
  /** paused: handed over by a gateway that shut down, for the next one polling it to resume. */
  status: "running" | "paused" | "done" | "failed";
  snapshotVersion: number;
  progress: number;
  total: number;
  location: string | null;
  error: string | null;
  errorCode: string | null;
  createdAt: number;
  updatedAt: number;
}

function toJob(r: Record<string, unknown>): ExportJob {
  return {
    id: String(r.id),
    owner: String(r.owner),
    query: String(r.query),
    format: FORMATS.includes(String(r.format)) ? (r.format as ResultFormat) : "json",
    status: r.status as ExportJob["status"],
    snapshotVersion: Number(r.snapshot_version),
    progress: Number(r.progress),
    total: Number(r.total),
    location: (r.location as string | null) ?? null,
    error: (r.error as string | null) ?? null,
    errorCode: (r.error_code as string | null) ?? null,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export class ExportJobs {
  constructor(private readonly store: SnapshotStore) {}

  async find(owner: string, query: string): Promise<ExportJob | null> {
    const [r] = await this.store.metaQuery("SELECT * FROM {meta}.export_job WHERE owner = ? AND query = ?", [
      owner,
      query,
    ]);
    return r ? toJob(r) : null;
  }

  /** Registers a running job; false when another request registered the same one first. */
  async insert(
    job: Pick<ExportJob, "id" | "owner" | "query" | "format" | "snapshotVersion" | "total">,
  ): Promise<boolean> {
    const now = Date.now();
    try {
      await this.store.metaQuery(
        "INSERT INTO {meta}.export_job (id, owner, query, format, status, snapshot_version, progress, total, created_at, updated_at) VALUES (?, ?, ?, ?, 'running', ?, 0, ?, ?, ?)",
        [job.id, job.owner, job.query, job.format, job.snapshotVersion, job.total, now, now],
      );
      return true;
    } catch (e) {
      if (/unique|duplicate/i.test(String((e as Error).message))) return false;
      throw e;
    }
  }

  async progress(id: string, progress: number): Promise<void> {
    await this.store.metaQuery("UPDATE {meta}.export_job SET progress = ?, updated_at = ? WHERE id = ?", [
      progress,
      Date.now(),
      id,
    ]);
  }

  /**
   * A running job handed over (its gateway is shutting down): its result so far, `progress`
   * Domains, is whole in its partial file, and the next gateway to be polled for it resumes it.
   */
  async pause(id: string, progress: number): Promise<void> {
    await this.store.metaQuery(
      "UPDATE {meta}.export_job SET status = 'paused', progress = ?, updated_at = ? WHERE id = ? AND status = 'running'",
      [progress, Date.now(), id],
    );
  }

  /** Takes a paused job to resume it; false when another gateway took it first. */
  async claim(id: string): Promise<boolean> {
    const rows = await this.store.metaQuery(
      "UPDATE {meta}.export_job SET status = 'running', updated_at = ? WHERE id = ? AND status = 'paused' RETURNING id",
      [Date.now(), id],
    );
    return rows.length === 1;
  }

  async finish(id: string, location: string, progress: number): Promise<void> {
    await this.store.metaQuery(
      "UPDATE {meta}.export_job SET status = 'done', location = ?, progress = ?, total = ?, updated_at = ? WHERE id = ?",
      [location, progress, progress, Date.now(), id],
    );
  }

  async fail(id: string, error: string, code: string): Promise<void> {
    await this.store.metaQuery(
      "UPDATE {meta}.export_job SET status = 'failed', error = ?, error_code = ?, updated_at = ? WHERE id = ?",
      [error, code, Date.now(), id],
    );
  }

  async delete(id: string): Promise<void> {
    await this.store.metaQuery("DELETE FROM {meta}.export_job WHERE id = ?", [id]);
  }

  /**
   * Jobs to drop: those of an older snapshot than `version`, results (done or failed) older than `ttlMs` since they
   * finished, and running jobs whose worker has not reported for `staleMs`.
   */
  async expired(now: number, ttlMs: number, staleMs: number, version: number): Promise<ExportJob[]> {
    const rows = await this.store.metaQuery(
      "SELECT * FROM {meta}.export_job WHERE snapshot_version < ? OR (status <> 'running' AND updated_at < ?) OR (status = 'running' AND updated_at < ?)",
      [version, now - ttlMs, now - staleMs],
    );
    return rows.map(toJob);
  }

  async ids(): Promise<string[]> {
    return (await this.store.metaQuery("SELECT id FROM {meta}.export_job")).map((r) => String(r.id));
  }
}
