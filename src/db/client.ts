import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { Config } from "../config.ts";
import { PrismaClient as PgPrismaClient } from "../generated/postgresql/client.ts";
import { PrismaClient as SqlitePrismaClient } from "../generated/sqlite/client.ts";
import { snapshotFilePath } from "./sqlite-store.ts";
import type { SnapshotRow } from "./store.ts";

/**
 * Both generated clients come from the same model, so they expose the same API; code is written
 * against this one type whichever database serves it.
 */
export type Prisma = SqlitePrismaClient;

/** A Prisma client bound to one snapshot copy: its SQLite file (read-only) or its PG schema. */
export function openSnapshotClient(config: Config, snapshot: Pick<SnapshotRow, "location">): Prisma {
  const db = config.database;
  if (db.kind === "sqlite") {
    const adapter = new PrismaBetterSqlite3(
      { url: snapshotFilePath(db.dataDir, snapshot.location), readonly: true, fileMustExist: true },
      { timestampFormat: "unixepoch-ms" },
    );
    return new SqlitePrismaClient({ adapter });
  }
  const adapter = new PrismaPg({ connectionString: db.url, max: 10 }, { schema: snapshot.location });
  return new PgPrismaClient({ adapter }) as unknown as Prisma;
}
