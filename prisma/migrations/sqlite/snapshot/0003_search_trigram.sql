-- snapshot set: trigram indexes of what `q` searches (search_text, lower-cased), so that a search
-- reads the keys of the rows that contain its words instead of scanning every row: at 1,000,000
-- Domains a rare word's page took 2.1 s as a scan. FTS5 tables of external content (the rows stay
-- in "app" and "domain"; a copy is never written after its load, so no triggers), read by
-- src/query/search.ts. They are not in the Prisma model (test/db/drift.ts knows them).

-- @after-load

CREATE VIRTUAL TABLE "app_search" USING fts5("search_text", content = 'app', content_rowid = 'pk', tokenize = 'trigram');
INSERT INTO "app_search" ("app_search") VALUES ('rebuild');
CREATE VIRTUAL TABLE "domain_search" USING fts5("search_text", content = 'domain', content_rowid = 'pk', tokenize = 'trigram');
INSERT INTO "domain_search" ("domain_search") VALUES ('rebuild');
