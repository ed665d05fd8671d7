import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { Config } from "../../src/config.ts";
import { poolTimeouts } from "../../src/db/pg-pool.ts";
import { snapshotFilePath } from "../../src/db/sqlite-store.ts";
import type { SnapshotRow } from "../../src/db/store.ts";
import { PrismaClient as PgPrismaClient } from "../../src/generated/postgresql/client.ts";
import { PrismaClient as SqlitePrismaClient } from "../../src/generated/sqlite/client.ts";

/**
 * Prisma over a snapshot, for tests: the server reads snapshots with its own SQL (src/db/reader.ts,
 * src/db/where-sql.ts), and the tests check those reads against Prisma's for the same model.
 * Both generated clients come from the same model, so they expose the same API; tests are written
 * against this one type whichever database serves it.
 */
export type Prisma = SqlitePrismaClient;

/** A Prisma client bound to one snapshot copy: its SQLite file (read-only) or its PG schema. */
export function openSnapshotClient(
  config: Config,
  snapshot: Pick<SnapshotRow, "location">,
  options: ClientOptions = {},
): Prisma {
  const client = createClient(config, snapshot, options.onQuery !== undefined);
  if (options.onQuery) {
    const onQuery = options.onQuery;
    (client as unknown as { $on(e: "query", f: (e: { query: string }) => void): void }).$on("query", (e) =>
      onQuery(e.query),
    );
  }
  return client;
}

export interface ClientOptions {
  /** Called with the SQL of every query (tests count them to catch N+1 regressions). */
  onQuery?: (sql: string) => void;
}

function createClient(config: Config, snapshot: Pick<SnapshotRow, "location">, log: boolean): Prisma {
  const db = config.database;
  if (db.kind === "sqlite") {
    const adapter = new PrismaBetterSqlite3(
      { url: snapshotFilePath(db.dataDir, snapshot.location), readonly: true, fileMustExist: true },
      { timestampFormat: "unixepoch-ms" },
    );
    return new SqlitePrismaClient({ adapter, log: log ? [{ emit: "event", level: "query" }] : [] });
  }
  const adapter = new PrismaPg(
    { connectionString: db.url, max: 10, ...poolTimeouts(config.timeouts) },
    { schema: snapshot.location },
  );
  return new PgPrismaClient({
    adapter,
    log: log ? [{ emit: "event", level: "query" }] : [],
  }) as unknown as Prisma;
}
