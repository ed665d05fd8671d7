-- meta set: the trends of the facet dimensions (docs/decisions.md, "History"). Each published
-- load copies its snapshot's unfiltered counts (facet_summary: every dimension, every value, at
-- `position` 1, 2, … in facet order; position 0 holds the records without a value in `count` and
-- those with one in `covered`) here, with its version and when it was published (unix
-- milliseconds), in the transaction that publishes it; they are pruned with the load's change
-- events (CHANGES_RETENTION). Read by dimension then version (a trend's totals and the latest
-- load's top values), and by dimension, value and version (a trend of named values).

CREATE TABLE "facet_trend" (
  "dimension" TEXT NOT NULL,
  "version" INTEGER NOT NULL,
  "position" INTEGER NOT NULL,
  "published_at" BIGINT NOT NULL,
  "value" TEXT,
  "count" BIGINT NOT NULL,
  "covered" BIGINT NOT NULL,
  CONSTRAINT "facet_trend_pkey" PRIMARY KEY ("dimension", "version", "position")
);

CREATE INDEX "facet_trend_dimension_value_version_idx" ON "facet_trend" ("dimension", "value", "version");
CREATE INDEX "facet_trend_version_idx" ON "facet_trend" ("version");
