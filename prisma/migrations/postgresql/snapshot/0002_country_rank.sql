-- snapshot set: List Domains filtered by country and sorted by rank (the commonest list query)
-- walks this index in rank order and stops after a page, instead of sorting every Domain of the
-- country (EXPLAIN showed a temporary B-tree over all of them).

-- @after-load

CREATE INDEX "domain_country_code_rank_pk_idx" ON "domain" ("country_code", "rank", "pk");
