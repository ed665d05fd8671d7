-- snapshot set: every Domain is in a cluster, of one when no other Domain shares it
-- (docs/decisions.md, "Clusters"). A copy loaded before the loader required one stores none for a
-- Domain alone: it is given its cluster of one here, when `npm run load -- --upgrade` applies this
-- to it, so that no reader stands in the Domain's own name for a missing cluster. A copy loaded
-- since holds every cluster: nothing matches.

-- @after-load

UPDATE "domain" SET "cluster_best_ranked" = coalesce("cluster_best_ranked", "name"), "cluster_domains" = coalesce("cluster_domains", jsonb_build_array("name")) WHERE "cluster_best_ranked" IS NULL OR "cluster_domains" IS NULL;
