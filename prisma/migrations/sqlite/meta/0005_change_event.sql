-- meta set, SQLite: the change feed (prisma/schema.prisma models ChangeEvent and ChangeFeed).

CREATE TABLE "change_event" (
  "id" INTEGER NOT NULL PRIMARY KEY,
  "version" INTEGER NOT NULL,
  "loaded_at" INTEGER NOT NULL,
  "kind" TEXT NOT NULL,
  "domain" TEXT,
  "app" TEXT,
  "app_id" TEXT,
  "app_name" TEXT,
  "technology" TEXT,
  "before" TEXT,
  "after" TEXT
);

CREATE INDEX "change_event_version_idx" ON "change_event" ("version");
CREATE INDEX "change_event_loaded_at_idx" ON "change_event" ("loaded_at");
CREATE INDEX "change_event_domain_id_idx" ON "change_event" ("domain", "id");
CREATE INDEX "change_event_app_id_idx" ON "change_event" ("app", "id");
CREATE INDEX "change_event_technology_id_idx" ON "change_event" ("technology", "id");

CREATE TABLE "change_feed" (
  "id" INTEGER NOT NULL PRIMARY KEY,
  "last_id" INTEGER NOT NULL,
  "pruned_through" INTEGER NOT NULL
);
