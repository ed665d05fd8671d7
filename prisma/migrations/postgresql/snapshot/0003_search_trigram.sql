-- snapshot set: trigram indexes of what `q` searches (search_text, lower-cased), so that
-- `search_text LIKE '%word%'` is an index lookup instead of a scan of every row (EXPLAIN ANALYZE at
-- 20,000 Apps: a rare word's page 12.3 ms → 0.08 ms; for a common word the planner keeps walking
-- the sort index). pg_trgm ships with PostgreSQL (contrib) and is a trusted extension: a database
-- owner may create it. It is installed once per database, in "public", where dropping a
-- snapshot's schema leaves it. The indexes are not in the Prisma model (test/db/drift.ts knows them).

-- @after-load

CREATE EXTENSION IF NOT EXISTS "pg_trgm" WITH SCHEMA "public";
CREATE INDEX "app_search_text_trgm_idx" ON "app" USING gin ("search_text" "public"."gin_trgm_ops");
CREATE INDEX "domain_search_text_trgm_idx" ON "domain" USING gin ("search_text" "public"."gin_trgm_ops");
ANALYZE "app";
ANALYZE "domain";
