import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, type AppOptions, createApp } from "../../src/app.ts";
import { ApiKeys, type Plan } from "../../src/auth/keys.ts";
import type { Config } from "../../src/config.ts";
import { loadSnapshot } from "../../src/dataset/load/load.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import { createLogger } from "../../src/logger.ts";
import { renderSnapshot } from "../../src/render.ts";
import { evaluateSegments } from "../../src/segments.ts";
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
  /**
   * render: each load renders the snapshot's records with the default fields (src/render.ts), as
   * npm run load does; texts: PostgreSQL keeps their texts too (RENDERED_TEXTS on).
   */
  harness: { render?: boolean; texts?: boolean } = {},
): Promise<TestApi> {
  const db = await createTestDatabase(kind);
  const queries: string[] = [];
  const snapshots = await Snapshots.open(db.config, {
    refreshMs: 0,
    graceMs: 0,
    onQuery: (s) => queries.push(s),
  });
  const load = async (dir: string) => {
    await loadSnapshot(snapshots.store, dir, {
      keep: 1,
      // As npm run load does: the accounts' segments compared at each load.
      segments: (snapshot, previous) => evaluateSegments(db.config, snapshots.store, snapshot, previous),
      ...(harness.render
        ? {
            render: (snapshot) =>
              renderSnapshot(
                withTexts(db.config, harness.texts ?? false),
                snapshot,
                createLogger({ logLevel: "warn" }),
              ),
          }
        : {}),
    });
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

/**
 * Drops tables of the snapshot `on` serves, as a snapshot loaded before they were built lacks them
 * (a reader opened after reads it as such).
 */
export async function dropSnapshotTables(on: TestApi, tables: readonly string[]): Promise<void> {
  const served = await on.snapshots.current();
  if (!served) throw new Error("nothing served");
  const { location } = served.snapshot;
  const config = on.db.config;
  if (config.database.kind === "sqlite") {
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(join(config.database.dataDir, location));
    try {
      for (const t of tables) db.exec(`DROP TABLE "${t}"`);
    } finally {
      db.close();
    }
    return;
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: config.database.url });
  await client.connect();
  try {
    for (const t of tables) await client.query(`DROP TABLE "${location}"."${t}"`);
  } finally {
    await client.end();
  }
}

/** `config` with PostgreSQL's RENDERED_TEXTS set to `texts` (SQLite's is left as it is: it keeps none). */
export function withTexts(config: Config, texts: boolean): Config {
  return config.database.kind === "postgresql"
    ? { ...config, database: { ...config.database, renderedTexts: texts } }
    : config;
}
