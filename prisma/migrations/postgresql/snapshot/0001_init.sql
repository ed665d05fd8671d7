-- snapshot set, PostgreSQL (schema storegraph_snapshot_<version>, set as search_path by
-- src/db/migrate.ts): one immutable copy of the dataset.
-- Written by hand to match prisma/schema.prisma exactly (test/db/drift.test.ts checks it).
-- Applied by src/db/migrate.ts, which splits statements at a ';' that ends a line: end each
-- statement so, and never end a line inside a string or comment with ';'.
-- Types: Int is INTEGER, BigInt BIGINT, Float DOUBLE PRECISION, String TEXT, Json JSONB, DateTime
-- TIMESTAMP(3) without time zone holding UTC, as Prisma expects.
-- Before the @after-load marker line: the tables with their primary keys, so the loader inserts into them.

CREATE TABLE "snapshot_info" (
  "version" INTEGER NOT NULL,
  "loaded_at" TIMESTAMP(3) NOT NULL,
  "source" TEXT NOT NULL,
  CONSTRAINT "snapshot_info_pkey" PRIMARY KEY ("version")
);

CREATE TABLE "app" (
  "pk" INTEGER NOT NULL,
  "id" TEXT NOT NULL,
  "platform" TEXT NOT NULL,
  "token" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "description" TEXT NOT NULL,
  "description_long" TEXT,
  "app_store_url" TEXT NOT NULL,
  "icon_url" TEXT NOT NULL,
  "average_rating" TEXT NOT NULL,
  "average_rating_sort" DOUBLE PRECISION NOT NULL,
  "review_count" INTEGER NOT NULL,
  "state" TEXT NOT NULL,
  "created_at" TIMESTAMP(3) NOT NULL,
  "removed_at" TIMESTAMP(3),
  "installs" INTEGER,
  "instp" DOUBLE PRECISION,
  "installs_30d" INTEGER,
  "installs_90d" INTEGER,
  "reviews_30d" INTEGER,
  "reviews_90d" INTEGER,
  "free_trial_duration" TEXT,
  "vendor_name" TEXT NOT NULL,
  "vendor_email" TEXT,
  "vendor_url" TEXT,
  "vendor_website" TEXT,
  "vendor_address" TEXT,
  "vendor_country_code" TEXT,
  "search_text" TEXT NOT NULL,
  CONSTRAINT "app_pkey" PRIMARY KEY ("pk")
);

CREATE TABLE "app_category" (
  "app_pk" INTEGER NOT NULL,
  "category" TEXT NOT NULL,
  CONSTRAINT "app_category_pkey" PRIMARY KEY ("app_pk", "category")
);

CREATE TABLE "app_plan" (
  "app_pk" INTEGER NOT NULL,
  "position" INTEGER NOT NULL,
  "name" TEXT NOT NULL,
  "monthly_cost" TEXT NOT NULL,
  "monthly_cost_cents" INTEGER,
  CONSTRAINT "app_plan_pkey" PRIMARY KEY ("app_pk", "position")
);

CREATE TABLE "app_integration" (
  "app_pk" INTEGER NOT NULL,
  "position" INTEGER NOT NULL,
  "value" TEXT NOT NULL,
  CONSTRAINT "app_integration_pkey" PRIMARY KEY ("app_pk", "position")
);

CREATE TABLE "app_installs_point" (
  "app_pk" INTEGER NOT NULL,
  "date" TIMESTAMP(3) NOT NULL,
  "installs" INTEGER NOT NULL,
  CONSTRAINT "app_installs_point_pkey" PRIMARY KEY ("app_pk", "date")
);

CREATE TABLE "app_review" (
  "pk" INTEGER NOT NULL,
  "app_pk" INTEGER NOT NULL,
  "updated_at" TIMESTAMP(3) NOT NULL,
  "body" TEXT NOT NULL,
  "merchant_name" TEXT NOT NULL,
  "rating" INTEGER NOT NULL,
  CONSTRAINT "app_review_pkey" PRIMARY KEY ("pk")
);

CREATE TABLE "app_review_domain" (
  "review_pk" INTEGER NOT NULL,
  "position" INTEGER NOT NULL,
  "name" TEXT NOT NULL,
  "platform_domain" TEXT,
  "platform_rank" INTEGER,
  "domain_pk" INTEGER,
  CONSTRAINT "app_review_domain_pkey" PRIMARY KEY ("review_pk", "position")
);

CREATE TABLE "domain" (
  "pk" INTEGER NOT NULL,
  "name" TEXT COLLATE "C" NOT NULL, -- byte order, as SQLite: the NAME sort is the same on both
  "platform_domain" TEXT,
  "tld1" TEXT NOT NULL,
  "state" TEXT NOT NULL,
  "inactive_at" TIMESTAMP(3),
  "redirects_to" JSONB,
  "aliases" JSONB,
  "alternates" JSONB,
  "localizations" JSONB,
  "locs" JSONB,
  "cluster_domains" JSONB,
  "cluster_best_ranked" TEXT,
  "platform" TEXT NOT NULL,
  "plan" TEXT,
  "last_platform" TEXT,
  "last_platform_change_at" TIMESTAMP(3),
  "last_plan" TEXT,
  "last_plan_change_at" TIMESTAMP(3),
  "created_at" TIMESTAMP(3) NOT NULL,
  "created_week" TIMESTAMP(3) NOT NULL,
  "last_updated_at" TIMESTAMP(3),
  "magento_version" TEXT,
  "merchant_name" TEXT,
  "title" TEXT,
  "description" TEXT,
  "keywords" JSONB,
  "icon" TEXT,
  "og_image" TEXT,
  "country_code" TEXT,
  "currency_code" TEXT,
  "language_code" TEXT,
  "administrative_area_level_1" TEXT,
  "city" TEXT,
  "location" TEXT,
  "region" TEXT,
  "subregion" TEXT,
  "postal_code" TEXT,
  "street_address" TEXT,
  "latitude" DOUBLE PRECISION,
  "longitude" DOUBLE PRECISION,
  "employee_count" INTEGER,
  "rank" INTEGER NOT NULL,
  "rank_percentile" DOUBLE PRECISION NOT NULL,
  "platform_rank" INTEGER NOT NULL,
  "platform_rank_percentile" DOUBLE PRECISION NOT NULL,
  "cc_rank" DOUBLE PRECISION,
  "cc_centrality" DOUBLE PRECISION,
  "estimated_page_views" BIGINT,
  "estimated_visits" BIGINT,
  "estimated_sales" BIGINT,
  "estimated_sales_yearly" BIGINT,
  "monthly_app_spend" INTEGER,
  "avg_weight" INTEGER,
  "max_weight" INTEGER,
  "min_weight" INTEGER,
  "product_count" INTEGER,
  "variant_count" INTEGER,
  "vendor_count" INTEGER,
  "avg_price" BIGINT,
  "avg_price_formatted" TEXT,
  "avg_price_usd" BIGINT,
  "min_price" BIGINT,
  "max_price" BIGINT,
  "min_price_usd" BIGINT,
  "max_price_usd" BIGINT,
  "max_product_published_at" TIMESTAMP(3),
  "most_recently_published_product" JSONB,
  "product_images_created_30" INTEGER,
  "product_images_created_90" INTEGER,
  "product_images_created_365" INTEGER,
  "collections" JSONB,
  "shipping_carriers" JSONB,
  "contact_page" TEXT,
  "brands_page" TEXT,
  "retailer_page" TEXT,
  "returns_page" TEXT,
  "tracking_page" TEXT,
  "warranty_page" TEXT,
  "financing_page" TEXT,
  "store_locator_page" TEXT,
  "career_page" TEXT,
  "sizing_page" TEXT,
  "about_us" TEXT,
  "theme_name" TEXT,
  "theme_style" TEXT,
  "theme_vendor" TEXT,
  "theme_version" TEXT,
  "theme_cost" INTEGER,
  "trustpilot_review_count" INTEGER,
  "trustpilot_avg_rating" DOUBLE PRECISION,
  "yotpo_review_count" INTEGER,
  "yotpo_avg_rating" DOUBLE PRECISION,
  "search_text" TEXT NOT NULL,
  CONSTRAINT "domain_pkey" PRIMARY KEY ("pk")
);

CREATE TABLE "domain_category" (
  "domain_pk" INTEGER NOT NULL,
  "category" TEXT NOT NULL,
  CONSTRAINT "domain_category_pkey" PRIMARY KEY ("domain_pk", "category")
);

CREATE TABLE "domain_feature" (
  "domain_pk" INTEGER NOT NULL,
  "feature" TEXT NOT NULL,
  CONSTRAINT "domain_feature_pkey" PRIMARY KEY ("domain_pk", "feature")
);

CREATE TABLE "domain_tag" (
  "domain_pk" INTEGER NOT NULL,
  "tag" TEXT NOT NULL,
  CONSTRAINT "domain_tag_pkey" PRIMARY KEY ("domain_pk", "tag")
);

CREATE TABLE "domain_sales_channel" (
  "domain_pk" INTEGER NOT NULL,
  "channel" TEXT NOT NULL,
  CONSTRAINT "domain_sales_channel_pkey" PRIMARY KEY ("domain_pk", "channel")
);

CREATE TABLE "domain_ships_to" (
  "domain_pk" INTEGER NOT NULL,
  "country_code" TEXT NOT NULL,
  CONSTRAINT "domain_ships_to_pkey" PRIMARY KEY ("domain_pk", "country_code")
);

CREATE TABLE "domain_contact" (
  "domain_pk" INTEGER NOT NULL,
  "position" INTEGER NOT NULL,
  "type" TEXT NOT NULL,
  "value" TEXT NOT NULL,
  "source" TEXT NOT NULL,
  "description" TEXT,
  "followers" INTEGER,
  "followers_30d" INTEGER,
  "followers_90d" INTEGER,
  "posts" INTEGER,
  "likes" INTEGER,
  CONSTRAINT "domain_contact_pkey" PRIMARY KEY ("domain_pk", "position")
);

CREATE TABLE "technology" (
  "pk" INTEGER NOT NULL,
  "name" TEXT NOT NULL,
  "description" TEXT NOT NULL,
  "vendor_url" TEXT NOT NULL,
  "icon_url" TEXT NOT NULL,
  "installs" INTEGER NOT NULL,
  "categories" JSONB,
  CONSTRAINT "technology_pkey" PRIMARY KEY ("pk")
);

CREATE TABLE "domain_technology" (
  "domain_pk" INTEGER NOT NULL,
  "technology_pk" INTEGER NOT NULL,
  "installed_at" TIMESTAMP(3) NOT NULL,
  CONSTRAINT "domain_technology_pkey" PRIMARY KEY ("domain_pk", "technology_pk")
);

CREATE TABLE "domain_app" (
  "domain_pk" INTEGER NOT NULL,
  "app_pk" INTEGER NOT NULL,
  "installed_at" TIMESTAMP(3) NOT NULL,
  "removed_at" TIMESTAMP(3),
  CONSTRAINT "domain_app_pkey" PRIMARY KEY ("domain_pk", "app_pk")
);

-- @after-load

-- After the bulk load: building each index once over the loaded rows is much cheaper than
-- maintaining it row by row during the load.
CREATE UNIQUE INDEX "app_id_key" ON "app" ("id");
CREATE INDEX "app_installs_pk_idx" ON "app" ("installs", "pk");
CREATE INDEX "app_review_count_pk_idx" ON "app" ("review_count", "pk");
CREATE INDEX "app_average_rating_sort_pk_idx" ON "app" ("average_rating_sort", "pk");
CREATE INDEX "app_created_at_pk_idx" ON "app" ("created_at", "pk");
CREATE INDEX "app_removed_at_pk_idx" ON "app" ("removed_at", "pk");
CREATE INDEX "app_state_pk_idx" ON "app" ("state", "pk");
CREATE INDEX "app_vendor_name_idx" ON "app" ("vendor_name");
CREATE INDEX "app_vendor_country_code_idx" ON "app" ("vendor_country_code");
CREATE UNIQUE INDEX "app_platform_token_key" ON "app" ("platform", "token");
CREATE INDEX "app_category_category_app_pk_idx" ON "app_category" ("category", "app_pk");
CREATE INDEX "app_review_app_pk_updated_at_pk_idx" ON "app_review" ("app_pk", "updated_at", "pk");
CREATE INDEX "app_review_domain_domain_pk_review_pk_idx" ON "app_review_domain" ("domain_pk", "review_pk");
CREATE UNIQUE INDEX "domain_name_key" ON "domain" ("name");
CREATE INDEX "domain_platform_domain_idx" ON "domain" ("platform_domain");
CREATE INDEX "domain_rank_pk_idx" ON "domain" ("rank", "pk");
CREATE INDEX "domain_platform_rank_pk_idx" ON "domain" ("platform_rank", "pk");
CREATE INDEX "domain_created_at_pk_idx" ON "domain" ("created_at", "pk");
CREATE INDEX "domain_created_week_idx" ON "domain" ("created_week");
CREATE INDEX "domain_estimated_sales_pk_idx" ON "domain" ("estimated_sales", "pk");
CREATE INDEX "domain_estimated_visits_pk_idx" ON "domain" ("estimated_visits", "pk");
CREATE INDEX "domain_product_count_pk_idx" ON "domain" ("product_count", "pk");
CREATE INDEX "domain_employee_count_pk_idx" ON "domain" ("employee_count", "pk");
CREATE INDEX "domain_monthly_app_spend_pk_idx" ON "domain" ("monthly_app_spend", "pk");
CREATE INDEX "domain_last_plan_change_at_pk_idx" ON "domain" ("last_plan_change_at", "pk");
CREATE INDEX "domain_last_platform_change_at_idx" ON "domain" ("last_platform_change_at");
CREATE INDEX "domain_avg_price_idx" ON "domain" ("avg_price");
CREATE INDEX "domain_state_rank_idx" ON "domain" ("state", "rank");
CREATE INDEX "domain_platform_rank_idx" ON "domain" ("platform", "rank");
CREATE INDEX "domain_plan_rank_idx" ON "domain" ("plan", "rank");
CREATE INDEX "domain_country_code_administrative_area_level_1_city_idx" ON "domain" ("country_code", "administrative_area_level_1", "city");
CREATE INDEX "domain_currency_code_rank_idx" ON "domain" ("currency_code", "rank");
CREATE INDEX "domain_language_code_rank_idx" ON "domain" ("language_code", "rank");
CREATE INDEX "domain_region_rank_idx" ON "domain" ("region", "rank");
CREATE INDEX "domain_subregion_rank_idx" ON "domain" ("subregion", "rank");
CREATE INDEX "domain_theme_name_rank_idx" ON "domain" ("theme_name", "rank");
CREATE INDEX "domain_category_category_domain_pk_idx" ON "domain_category" ("category", "domain_pk");
CREATE INDEX "domain_feature_feature_domain_pk_idx" ON "domain_feature" ("feature", "domain_pk");
CREATE INDEX "domain_tag_tag_domain_pk_idx" ON "domain_tag" ("tag", "domain_pk");
CREATE INDEX "domain_sales_channel_channel_domain_pk_idx" ON "domain_sales_channel" ("channel", "domain_pk");
CREATE INDEX "domain_ships_to_country_code_domain_pk_idx" ON "domain_ships_to" ("country_code", "domain_pk");
CREATE INDEX "domain_contact_type_domain_pk_idx" ON "domain_contact" ("type", "domain_pk");
CREATE UNIQUE INDEX "technology_name_key" ON "technology" ("name");
CREATE INDEX "domain_technology_technology_pk_domain_pk_idx" ON "domain_technology" ("technology_pk", "domain_pk");
CREATE INDEX "domain_technology_technology_pk_installed_at_idx" ON "domain_technology" ("technology_pk", "installed_at");
CREATE INDEX "domain_app_app_pk_domain_pk_idx" ON "domain_app" ("app_pk", "domain_pk");
CREATE INDEX "domain_app_app_pk_installed_at_idx" ON "domain_app" ("app_pk", "installed_at");
CREATE INDEX "domain_app_app_pk_removed_at_idx" ON "domain_app" ("app_pk", "removed_at");

-- Foreign keys: added after the load so each is validated in one pass over the loaded rows.
ALTER TABLE "app_category" ADD CONSTRAINT "app_category_app_pk_fkey" FOREIGN KEY ("app_pk") REFERENCES "app" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "app_plan" ADD CONSTRAINT "app_plan_app_pk_fkey" FOREIGN KEY ("app_pk") REFERENCES "app" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "app_integration" ADD CONSTRAINT "app_integration_app_pk_fkey" FOREIGN KEY ("app_pk") REFERENCES "app" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "app_installs_point" ADD CONSTRAINT "app_installs_point_app_pk_fkey" FOREIGN KEY ("app_pk") REFERENCES "app" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "app_review" ADD CONSTRAINT "app_review_app_pk_fkey" FOREIGN KEY ("app_pk") REFERENCES "app" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "app_review_domain" ADD CONSTRAINT "app_review_domain_review_pk_fkey" FOREIGN KEY ("review_pk") REFERENCES "app_review" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "app_review_domain" ADD CONSTRAINT "app_review_domain_domain_pk_fkey" FOREIGN KEY ("domain_pk") REFERENCES "domain" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "domain_category" ADD CONSTRAINT "domain_category_domain_pk_fkey" FOREIGN KEY ("domain_pk") REFERENCES "domain" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "domain_feature" ADD CONSTRAINT "domain_feature_domain_pk_fkey" FOREIGN KEY ("domain_pk") REFERENCES "domain" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "domain_tag" ADD CONSTRAINT "domain_tag_domain_pk_fkey" FOREIGN KEY ("domain_pk") REFERENCES "domain" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "domain_sales_channel" ADD CONSTRAINT "domain_sales_channel_domain_pk_fkey" FOREIGN KEY ("domain_pk") REFERENCES "domain" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "domain_ships_to" ADD CONSTRAINT "domain_ships_to_domain_pk_fkey" FOREIGN KEY ("domain_pk") REFERENCES "domain" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "domain_contact" ADD CONSTRAINT "domain_contact_domain_pk_fkey" FOREIGN KEY ("domain_pk") REFERENCES "domain" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "domain_technology" ADD CONSTRAINT "domain_technology_domain_pk_fkey" FOREIGN KEY ("domain_pk") REFERENCES "domain" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "domain_technology" ADD CONSTRAINT "domain_technology_technology_pk_fkey" FOREIGN KEY ("technology_pk") REFERENCES "technology" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "domain_app" ADD CONSTRAINT "domain_app_domain_pk_fkey" FOREIGN KEY ("domain_pk") REFERENCES "domain" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "domain_app" ADD CONSTRAINT "domain_app_app_pk_fkey" FOREIGN KEY ("app_pk") REFERENCES "app" ("pk") ON DELETE CASCADE ON UPDATE CASCADE;

-- Planner statistics for this copy only (a bare ANALYZE would visit every schema of the database).
ANALYZE "snapshot_info", "app", "app_category", "app_plan", "app_integration", "app_installs_point",
  "app_review", "app_review_domain", "domain", "domain_category", "domain_feature", "domain_tag",
  "domain_sales_channel", "domain_ships_to", "domain_contact", "technology", "domain_technology", "domain_app";
