-- meta set, SQLite (<dataDir>/state.db): the snapshot registry.
-- Written by hand to match prisma/schema.prisma exactly (test/db/drift.test.ts checks it).
-- Applied by src/db/migrate.ts, which splits statements at a ';' that ends a line: end each
-- statement so, and never end a line inside a string or comment with ';'.
-- DateTime columns are DATETIME holding integer unix milliseconds (the app opens SQLite with
-- timestampFormat "unixepoch-ms"). AUTOINCREMENT so a version is never reused, even after the
-- newest row is deleted.

CREATE TABLE "snapshot" (
  "version" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "status" TEXT NOT NULL,
  "started_at" DATETIME NOT NULL,
  "finished_at" DATETIME,
  "location" TEXT NOT NULL,
  "source" TEXT NOT NULL,
  "apps" INTEGER NOT NULL DEFAULT 0,
  "domains" INTEGER NOT NULL DEFAULT 0,
  "reviews" INTEGER NOT NULL DEFAULT 0,
  "error" TEXT
);

CREATE INDEX "snapshot_status_version_idx" ON "snapshot" ("status", "version");
