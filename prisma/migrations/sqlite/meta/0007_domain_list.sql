-- meta set: accounts and their lists of Domains (docs/decisions.md, "Lists"). A key belongs to an
-- account; keys made before accounts each stand for an account of their own (its id). A list
-- belongs to an account, is named uniquely within it, and keeps Domain names: they survive
-- snapshot loads, and a Domain a later snapshot no longer has stays listed. Times are unix
-- milliseconds.

ALTER TABLE "api_key" ADD COLUMN "account" TEXT;
UPDATE "api_key" SET "account" = "id" WHERE "account" IS NULL;
CREATE INDEX "api_key_account_idx" ON "api_key" ("account");

CREATE TABLE "domain_list" (
  "id" TEXT NOT NULL,
  "account" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "created_at" INTEGER NOT NULL,
  "updated_at" INTEGER NOT NULL,
  CONSTRAINT "domain_list_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "domain_list_account_name_key" ON "domain_list" ("account", "name");

CREATE TABLE "domain_list_item" (
  "list_id" TEXT NOT NULL,
  "domain" TEXT NOT NULL,
  "added_at" INTEGER NOT NULL,
  CONSTRAINT "domain_list_item_pkey" PRIMARY KEY ("list_id", "domain")
);

CREATE INDEX "domain_list_item_domain_idx" ON "domain_list_item" ("domain");
