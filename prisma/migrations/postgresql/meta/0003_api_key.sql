-- meta set, PostgreSQL: API keys (prisma/schema.prisma model ApiKey). Times are unix milliseconds.

CREATE TABLE "api_key" (
  "id" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "plan" TEXT NOT NULL,
  "hash" TEXT NOT NULL,
  "prefix" TEXT NOT NULL,
  "created_at" BIGINT NOT NULL,
  "last_used_at" BIGINT,
  "revoked_at" BIGINT,
  CONSTRAINT "api_key_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "api_key_hash_key" ON "api_key" ("hash");
