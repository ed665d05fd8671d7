import type { Plugin } from "graphql-yoga";
import type { Snapshots } from "./db/snapshots.ts";

/**
 * /healthz: the process is up (liveness). /readyz: the database answers and a snapshot is served
 * (readiness), with the snapshot's version. Both JSON, both open without authentication.
 */
export function useHealth(snapshots: Snapshots): Plugin {
  return {
    async onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname === "/healthz") {
        endResponse(fetchAPI.Response.json({ status: "ok" }));
      } else if (url.pathname === "/readyz") {
        endResponse(await readiness(snapshots, fetchAPI.Response));
      }
    },
  };
}

async function readiness(snapshots: Snapshots, R: typeof Response): Promise<Response> {
  const headers = { "cache-control": "no-store" };
  try {
    const served = await snapshots.current();
    if (!served) {
      return R.json(
        { status: "not ready", reason: "no snapshot has been loaded yet (npm run load -- <dir>)" },
        { status: 503, headers },
      );
    }
    const info = await served.prisma.snapshotInfo.findFirst();
    if (info?.version !== served.snapshot.version) {
      return R.json(
        { status: "not ready", reason: "the served snapshot's data does not answer" },
        { status: 503, headers },
      );
    }
    const { version, domains, apps, reviews, finishedAt } = served.snapshot;
    return R.json(
      {
        status: "ready",
        database: snapshots.store.kind,
        snapshot: { version, loaded_at: finishedAt?.toISOString(), domains, apps, reviews },
      },
      { headers },
    );
  } catch (e) {
    return R.json(
      { status: "not ready", reason: `the database does not answer: ${(e as Error).message}` },
      { status: 503, headers },
    );
  }
}
