-- meta set, SQLite: API keys (prisma/schema.prisma model ApiKey). Times are unix milliseconds.

CREATE TABLE "api_key" (
  "id" TEXT NOT NULL PRIMARY KEY,
  "name" TEXT NOT NULL,
  "plan" TEXT NOT NULL,
  "hash" TEXT NOT NULL,
  "prefix" TEXT NOT NULL,
  "created_at" INTEGER NOT NULL,
  "last_used_at" INTEGER,
  "revoked_at" INTEGER
);

CREATE UNIQUE INDEX "api_key_hash_key" ON "api_key" ("hash");
