-- snapshot set: List Domains of a platform sorted by platform_rank (the rank within the platform:
-- the list a platform's page shows) walks this index and stops after a page. Without it,
-- PostgreSQL walked the platform_rank index and tested every row for the platform (3× the same
-- list by rank at 1,000,000 Domains; 4.3× with an installed App, which implies the platform).

-- @after-load

CREATE INDEX "domain_platform_platform_rank_pk_idx" ON "domain" ("platform", "platform_rank", "pk");
