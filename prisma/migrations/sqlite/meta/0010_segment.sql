-- meta set: an account's segments (docs/decisions.md, "Segments"): a saved List Domains filter,
-- named uniquely within the account, whose members are compared at every load; the size and
-- spread of each at each load (segment_load), read without scanning the feed; and the feed's
-- events seen by one account only (segment_entered, segment_left: account and segment). Times
-- are unix milliseconds.

CREATE TABLE "segment" (
  "id" TEXT NOT NULL,
  "account" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "filter" TEXT,
  "search" TEXT,
  "created_at" INTEGER NOT NULL,
  "updated_at" INTEGER NOT NULL,
  CONSTRAINT "segment_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "segment_account_name_key" ON "segment" ("account", "name");

CREATE TABLE "segment_load" (
  "segment_id" TEXT NOT NULL,
  "version" INTEGER NOT NULL,
  "loaded_at" INTEGER NOT NULL,
  "size" INTEGER,
  "entered" INTEGER NOT NULL,
  "left" INTEGER NOT NULL,
  "counts" TEXT,
  "error" TEXT,
  CONSTRAINT "segment_load_pkey" PRIMARY KEY ("segment_id", "version")
);

ALTER TABLE "change_event" ADD COLUMN "account" TEXT;
ALTER TABLE "change_event" ADD COLUMN "segment" TEXT;
CREATE INDEX "change_event_account_segment_id_idx" ON "change_event" ("account", "segment", "id");

-- A webhook may take one segment's events (segment_entered, segment_left of the account's segment).
ALTER TABLE "webhook" ADD COLUMN "segment" TEXT;
