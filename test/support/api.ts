import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, type AppOptions, createApp } from "../../src/app.ts";
import { ApiKeys, type Plan } from "../../src/auth/keys.ts";
import type { Config } from "../../src/config.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { createLogger } from "../../src/logger.ts";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "./databases.ts";

/** A GraphQL response as the tests read it. */
export interface GqlResult<T = Record<string, unknown>> {
  status: number;
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

export interface TestApi {
  /** The app; its fetch sends the test key unless a request carries its own Authorization. */
  app: App;
  /** The API key (enterprise plan) the harness authenticates with. */
  key: string;
  /** Creates another key, e.g. to act as a second client. */
  createKey(plan?: Plan, name?: string): Promise<string>;
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
export async function startApi(
  kind: DatabaseKind,
  snapshotDir: string,
  overrides: Partial<Config> = {},
  appOptions: AppOptions = {},
  /** indexed: false: every count, facet and page by SQL (src/db/reader.ts, `unindexed`), for parity tests. */
  harness: { indexed?: boolean } = {},
): Promise<TestApi> {
  const db = await createTestDatabase(kind);
  const queries: string[] = [];
  const snapshots = await Snapshots.open(db.config, {
    refreshMs: 0,
    graceMs: 0,
    onQuery: (s) => queries.push(s),
    indexed: harness.indexed,
  });
  const load = async (dir: string) => {
    // As npm run load does: the records rendered, the accounts' segments compared at each load.
    await loadSnapshot(snapshots.store, dir, { keep: 1, ...testLoadSteps(db.config, snapshots.store) });
  };
  await load(snapshotDir);
  const keys = new ApiKeys(snapshots.store);
  const createKey = async (plan: Plan = "enterprise", name = "test") => (await keys.create(name, plan)).key;
  const key = await createKey();
  const app = withKey(createApp({ ...db.config, ...overrides }, snapshots, appOptions), key);
  return {
    app,
    key,
    createKey,
    snapshots,
    db,
    queries,
    resetQueries: () => {
      queries.length = 0;
    },
    async gql(query, variables = {}) {
      const res = await app.fetch("http://localhost/graphql", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          authorization: `Bearer ${key}`,
        },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, ...(await res.json()) };
    },
    load,
    async close() {
      await app.dispose();
      await snapshots.close();
      await db.drop();
    },
  };
}

/**
 * A temporary directory removed by the returned function. It is made when `dir` is first read: a
 * suite skipped on this machine (describe.skipIf: no Redis, no browser) runs its body but not its
 * hooks, and would leave a directory made at once behind.
 */
export function tempDir(prefix: string): { readonly dir: string; remove: () => void } {
  let made: string | null = null;
  return {
    get dir() {
      made ??= mkdtempSync(join(tmpdir(), prefix));
      return made;
    },
    remove: () => {
      if (made) rmSync(made, { recursive: true, force: true });
      made = null;
    },
  };
}

/**
 * The app with `fetch` sending `Authorization: Bearer <key>` on requests that carry no
 * Authorization of their own (auth itself is tested with explicit headers).
 */
export function withKey(app: App, key: string): App {
  const fetch = app.fetch.bind(app) as (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  const keyed = (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!headers.has("authorization")) headers.set("authorization", `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
  return new Proxy(app, {
    get: (target, prop, receiver) => (prop === "fetch" ? keyed : Reflect.get(target, prop, receiver)),
  });
}

/** What every test load reads with, as npm run load does (src/load-pipeline.ts): its database, quietly. */
export function testLoadSteps(config: Pick<Config, "database" | "timeouts">, _store?: SnapshotStore) {
  return { config, logger: createLogger({ logLevel: "warn" }) };
}
