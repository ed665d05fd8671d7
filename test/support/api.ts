import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, createApp } from "../../src/app.ts";
import { loadSnapshot } from "../../src/dataset/load/load.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "./databases.ts";

/** A GraphQL response as the tests read it. */
export interface GqlResult<T = Record<string, unknown>> {
  status: number;
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

export interface TestApi {
  app: App;
  snapshots: Snapshots;
  db: TestDatabase;
  /** The SQL of every query since the last resetQueries(). */
  queries: string[];
  resetQueries(): void;
  gql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>): Promise<GqlResult<T>>;
  /** Loads another snapshot directory (it becomes the served one). */
  load(snapshotDir: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The real app (createApp) over a fresh database of `kind` with `snapshotDir` loaded. Queries go
 * through app.fetch, the whole HTTP pipeline, without binding a port.
 */
export async function startApi(kind: DatabaseKind, snapshotDir: string): Promise<TestApi> {
  const db = await createTestDatabase(kind);
  const queries: string[] = [];
  const snapshots = await Snapshots.open(db.config, {
    refreshMs: 0,
    graceMs: 0,
    onQuery: (s) => queries.push(s),
  });
  const load = async (dir: string) => {
    await loadSnapshot(snapshots.store, dir, { keep: 1 });
  };
  await load(snapshotDir);
  const app = createApp(db.config, snapshots);
  return {
    app,
    snapshots,
    db,
    queries,
    resetQueries: () => {
      queries.length = 0;
    },
    async gql(query, variables = {}) {
      const res = await app.fetch("http://localhost/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, ...(await res.json()) };
    },
    load,
    async close() {
      await snapshots.close();
      await db.drop();
    },
  };
}

/** A temporary directory removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
