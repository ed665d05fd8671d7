-- snapshot set: a Domain's alternates (locale → domain name) keep the key order of the source line.
-- JSONB stores an object's keys sorted (shorter first, then by bytes), so on PostgreSQL 550 of
-- 20,000 exported Domains answered them in another order than the source and than SQLite. JSON
-- keeps the text as loaded. Nothing filters, sorts or indexes on alternates: it is read whole.
-- prisma/schema.prisma says so (@db.Json); a copy loaded before this migration keeps JSONB, which
-- the reader reads as well, until the next load.

ALTER TABLE "domain" ALTER COLUMN "alternates" TYPE JSON;
