import type { Plugin } from "graphql-yoga";
import type { Snapshots } from "./db/snapshots.ts";
import { DATABASE_RETRY_AFTER_S } from "./errors.ts";

/**
 * /healthz: the process is up (liveness). /readyz: the database answers and a snapshot is served
 * (readiness), with the snapshot's version and where it is read (the primary or a replica). Both JSON, both open without authentication. /readyz
 * answers within `timeoutMs` whatever the database does: a probe that hangs tells nothing.
 * A snapshot of another format than the code's (src/db/snapshot-format.ts) is not served: /readyz
 * says why in one line, and is ready only while an older snapshot is still served in its place.
 */
export function useHealth(snapshots: Snapshots, timeoutMs: number): Plugin {
  return {
    async onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname === "/healthz") {
        endResponse(fetchAPI.Response.json({ status: "ok" }));
      } else if (url.pathname === "/readyz") {
        endResponse(await bounded(readiness(snapshots, fetchAPI.Response), timeoutMs, fetchAPI.Response));
      }
    },
  };
}

const notReady = (R: typeof Response, reason: string) =>
  R.json(
    { status: "not ready", reason },
    {
      status: 503,
      headers: { "cache-control": "no-store", "retry-after": String(DATABASE_RETRY_AFTER_S) },
    },
  );

/** The check's answer, or 503 once `ms` have passed (the check goes on, bounded by the pools). */
async function bounded(check: Promise<Response>, ms: number, R: typeof Response): Promise<Response> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Response>((resolve) => {
    timer = setTimeout(() => resolve(notReady(R, `the database did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([check, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function readiness(snapshots: Snapshots, R: typeof Response): Promise<Response> {
  try {
    const served = await snapshots.current();
    const refusal = snapshots.refusal();
    if (!served) return notReady(R, refusal ?? "no snapshot has been loaded yet (npm run load -- <dir>)");
    const info = await served.sql.all(`SELECT "version" FROM ${served.sql.table("snapshot_info")} i`, []);
    if (Number(info[0]?.[0]) !== served.snapshot.version) {
      return notReady(R, "the served snapshot's data does not answer");
    }
    const { version, domains, apps, reviews, finishedAt } = served.snapshot;
    return R.json(
      {
        status: "ready",
        database: snapshots.store.kind,
        snapshot: {
          version,
          loaded_at: finishedAt?.toISOString(),
          domains,
          apps,
          reviews,
        },
        // A newer snapshot not served for its format (this one is served meanwhile).
        ...(refusal ? { refused: refusal } : {}),
        // Where reads go, and what each replica's last check found (DATABASE_REPLICA_URLS).
        read_source: { name: served.source.name, role: served.source.role },
        ...(snapshots.replicas
          ? {
              replicas: snapshots.replicas.report().map((r) => ({
                name: r.source.name,
                used: r.source.name === served.source.name,
                up: r.up,
                lag_ms: r.lagMs,
                lag_bytes: r.lagBytes,
                snapshot_version: r.snapshot?.version ?? null,
                ...(r.reason ? { reason: r.reason } : {}),
              })),
            }
          : {}),
      },
      { headers: { "cache-control": "no-store" } },
    );
  } catch (e) {
    return notReady(R, `the database does not answer: ${(e as Error).message}`);
  }
}
