-- meta set, SQLite: the chunk table of the model (prisma/schema.prisma model ExportChunk). SQLite's
-- cursor=all results are files in the data directory; the table stays empty here.

CREATE TABLE "export_chunk" (
  "job_id" TEXT NOT NULL,
  "seq" INTEGER NOT NULL,
  "domains" INTEGER NOT NULL,
  "bytes" BLOB NOT NULL,
  PRIMARY KEY ("job_id", "seq"),
  CONSTRAINT "export_chunk_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "export_job" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
