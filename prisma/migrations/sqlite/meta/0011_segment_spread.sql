-- meta set: a segment's spread (docs/decisions.md, "Segments"): the Domain facet dimensions its
-- members are counted over at each load, as a JSON array of their GraphQL names (["technologies",
-- "apps"]), null for the default (platform, plan, countryCode, as before this migration); and, at
-- each load, per dimension whose values were cut to the commonest, the members having a value but
-- none of those kept (segment_load.other, JSON: {"technologies": 12}), null when none was.

ALTER TABLE "segment" ADD COLUMN "spread" TEXT;
ALTER TABLE "segment_load" ADD COLUMN "other" TEXT;
