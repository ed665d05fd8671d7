-- meta set, PostgreSQL: the change feed (prisma/schema.prisma models ChangeEvent and ChangeFeed).

CREATE TABLE "change_event" (
  "id" BIGINT NOT NULL,
  "version" INTEGER NOT NULL,
  "loaded_at" BIGINT NOT NULL,
  "kind" TEXT NOT NULL,
  "domain" TEXT,
  "app" TEXT,
  "app_id" TEXT,
  "app_name" TEXT,
  "technology" TEXT,
  "before" TEXT,
  "after" TEXT,
  CONSTRAINT "change_event_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "change_event_version_idx" ON "change_event" ("version");
CREATE INDEX "change_event_loaded_at_idx" ON "change_event" ("loaded_at");
CREATE INDEX "change_event_domain_id_idx" ON "change_event" ("domain", "id");
CREATE INDEX "change_event_app_id_idx" ON "change_event" ("app", "id");
CREATE INDEX "change_event_technology_id_idx" ON "change_event" ("technology", "id");

CREATE TABLE "change_feed" (
  "id" INTEGER NOT NULL,
  "last_id" BIGINT NOT NULL,
  "pruned_through" BIGINT NOT NULL,
  CONSTRAINT "change_feed_pkey" PRIMARY KEY ("id")
);
