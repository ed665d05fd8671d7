-- meta set, PostgreSQL: cursor=all jobs (prisma/schema.prisma model ExportJob).
-- Times are unix milliseconds (BigInt in the model).

CREATE TABLE "export_job" (
  "id" TEXT NOT NULL,
  "owner" TEXT NOT NULL,
  "query" TEXT NOT NULL,
  "format" TEXT NOT NULL,
  "status" TEXT NOT NULL,
  "snapshot_version" INTEGER NOT NULL,
  "progress" INTEGER NOT NULL DEFAULT 0,
  "total" INTEGER NOT NULL DEFAULT 0,
  "location" TEXT,
  "error" TEXT,
  "error_code" TEXT,
  "created_at" BIGINT NOT NULL,
  "updated_at" BIGINT NOT NULL,
  CONSTRAINT "export_job_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "export_job_owner_query_key" ON "export_job" ("owner", "query");
CREATE INDEX "export_job_created_at_idx" ON "export_job" ("created_at");
