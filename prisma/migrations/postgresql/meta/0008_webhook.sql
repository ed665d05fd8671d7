-- meta set: webhooks (docs/decisions.md, "Webhooks"). A webhook belongs to an account and
-- subscribes to the change feed's events that match its kinds, list and Domain filter; `cursor`
-- is the feed position up to which its events were made into deliveries. A delivery is a signed
-- POST of at most 100 events, kept before its first attempt and retried until a 2xx or its last
-- attempt: `next_attempt_at` is when it is due (NULL once it succeeded or failed), and a gateway
-- that attempts it first moves it on by its lease and marks it with `claim`, so a gateway killed
-- mid-attempt leaves it due again when the lease ends. Times are unix milliseconds.

CREATE TABLE "webhook" (
  "id" TEXT NOT NULL,
  "account" TEXT NOT NULL,
  "url" TEXT NOT NULL,
  "kinds" TEXT,
  "list" TEXT,
  "filter" TEXT,
  "secret" TEXT NOT NULL,
  "cursor" BIGINT NOT NULL,
  "error" TEXT,
  "created_at" BIGINT NOT NULL,
  CONSTRAINT "webhook_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "webhook_account_idx" ON "webhook" ("account");

CREATE TABLE "webhook_delivery" (
  "id" TEXT NOT NULL,
  "webhook_id" TEXT NOT NULL,
  "type" TEXT NOT NULL,
  "body" TEXT NOT NULL,
  "events" INTEGER NOT NULL,
  "cursor" BIGINT,
  "status" TEXT NOT NULL,
  "attempts" INTEGER NOT NULL,
  "created_at" BIGINT NOT NULL,
  "next_attempt_at" BIGINT,
  "last_attempt_at" BIGINT,
  "response_status" INTEGER,
  "error" TEXT,
  "claim" TEXT,
  CONSTRAINT "webhook_delivery_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "webhook_delivery_webhook_id_created_at_idx" ON "webhook_delivery" ("webhook_id", "created_at");
CREATE INDEX "webhook_delivery_next_attempt_at_idx" ON "webhook_delivery" ("next_attempt_at");
CREATE INDEX "webhook_delivery_webhook_id_next_attempt_at_idx" ON "webhook_delivery" ("webhook_id", "next_attempt_at");
