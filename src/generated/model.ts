// GENERATED from prisma/schema.prisma by prisma/generate.mjs; do not edit.
/** The SHA-256 of the prisma/schema.prisma this was generated from (test/db/generated.test.ts). */
export const SCHEMA_SHA256 = "22e7bca6648e0650b07dda853222a29c79b970c02e3237495b31acbd93d54724";
export const MODEL = {
  "Snapshot": {
    "table": "snapshot",
    "fields": [
      {
        "field": "version",
        "column": "version",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "status",
        "column": "status",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "startedAt",
        "column": "started_at",
        "type": "DateTime",
        "optional": false,
        "internal": false
      },
      {
        "field": "finishedAt",
        "column": "finished_at",
        "type": "DateTime",
        "optional": true,
        "internal": false
      },
      {
        "field": "location",
        "column": "location",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "source",
        "column": "source",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "apps",
        "column": "apps",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "domains",
        "column": "domains",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "reviews",
        "column": "reviews",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "error",
        "column": "error",
        "type": "String",
        "optional": true,
        "internal": false
      }
    ]
  },
  "ExportJob": {
    "table": "export_job",
    "fields": [
      {
        "field": "id",
        "column": "id",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "owner",
        "column": "owner",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "query",
        "column": "query",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "format",
        "column": "format",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "status",
        "column": "status",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "snapshotVersion",
        "column": "snapshot_version",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "progress",
        "column": "progress",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "total",
        "column": "total",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "location",
        "column": "location",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "error",
        "column": "error",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "errorCode",
        "column": "error_code",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "createdAt",
        "column": "created_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "updatedAt",
        "column": "updated_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      }
    ]
  },
  "ExportChunk": {
    "table": "export_chunk",
    "fields": [
      {
        "field": "jobId",
        "column": "job_id",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "seq",
        "column": "seq",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "domains",
        "column": "domains",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "bytes",
        "column": "bytes",
        "type": "Bytes",
        "optional": false,
        "internal": false
      }
    ]
  },
  "ApiKey": {
    "table": "api_key",
    "fields": [
      {
        "field": "id",
        "column": "id",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "name",
        "column": "name",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "plan",
        "column": "plan",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "hash",
        "column": "hash",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "prefix",
        "column": "prefix",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "createdAt",
        "column": "created_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "lastUsedAt",
        "column": "last_used_at",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "revokedAt",
        "column": "revoked_at",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "account",
        "column": "account",
        "type": "String",
        "optional": true,
        "internal": false
      }
    ]
  },
  "DomainList": {
    "table": "domain_list",
    "fields": [
      {
        "field": "id",
        "column": "id",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "account",
        "column": "account",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "name",
        "column": "name",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "createdAt",
        "column": "created_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "updatedAt",
        "column": "updated_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      }
    ]
  },
  "DomainListItem": {
    "table": "domain_list_item",
    "fields": [
      {
        "field": "listId",
        "column": "list_id",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "domain",
        "column": "domain",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "addedAt",
        "column": "added_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      }
    ]
  },
  "Segment": {
    "table": "segment",
    "fields": [
      {
        "field": "id",
        "column": "id",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "account",
        "column": "account",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "name",
        "column": "name",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "filter",
        "column": "filter",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "search",
        "column": "search",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "spread",
        "column": "spread",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "createdAt",
        "column": "created_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "updatedAt",
        "column": "updated_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      }
    ]
  },
  "SegmentLoad": {
    "table": "segment_load",
    "fields": [
      {
        "field": "segmentId",
        "column": "segment_id",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "version",
        "column": "version",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "loadedAt",
        "column": "loaded_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "size",
        "column": "size",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "entered",
        "column": "entered",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "left",
        "column": "left",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "counts",
        "column": "counts",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "error",
        "column": "error",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "other",
        "column": "other",
        "type": "String",
        "optional": true,
        "internal": false
      }
    ]
  },
  "Webhook": {
    "table": "webhook",
    "fields": [
      {
        "field": "id",
        "column": "id",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "account",
        "column": "account",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "url",
        "column": "url",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "kinds",
        "column": "kinds",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "list",
        "column": "list",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "filter",
        "column": "filter",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "segment",
        "column": "segment",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "secret",
        "column": "secret",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "cursor",
        "column": "cursor",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "cursorText",
        "column": "cursor_text",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "error",
        "column": "error",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "createdAt",
        "column": "created_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      }
    ]
  },
  "WebhookDelivery": {
    "table": "webhook_delivery",
    "fields": [
      {
        "field": "id",
        "column": "id",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "webhookId",
        "column": "webhook_id",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "type",
        "column": "type",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "body",
        "column": "body",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "events",
        "column": "events",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "cursor",
        "column": "cursor",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "cursorText",
        "column": "cursor_text",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "status",
        "column": "status",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "attempts",
        "column": "attempts",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "createdAt",
        "column": "created_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "nextAttemptAt",
        "column": "next_attempt_at",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "lastAttemptAt",
        "column": "last_attempt_at",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "responseStatus",
        "column": "response_status",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "error",
        "column": "error",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "claim",
        "column": "claim",
        "type": "String",
        "optional": true,
        "internal": false
      }
    ]
  },
  "ChangeEvent": {
    "table": "change_event",
    "fields": [
      {
        "field": "id",
        "column": "id",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "version",
        "column": "version",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "loadedAt",
        "column": "loaded_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "kind",
        "column": "kind",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "domain",
        "column": "domain",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "app",
        "column": "app",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "appId",
        "column": "app_id",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "appName",
        "column": "app_name",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "technology",
        "column": "technology",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "before",
        "column": "before",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "after",
        "column": "after",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "doc",
        "column": "doc",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "account",
        "column": "account",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "segment",
        "column": "segment",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "pos",
        "column": "pos",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "seq",
        "column": "seq",
        "type": "Int",
        "optional": false,
        "internal": false
      }
    ]
  },
  "ChangeFeed": {
    "table": "change_feed",
    "fields": [
      {
        "field": "id",
        "column": "id",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "lastId",
        "column": "last_id",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "prunedThrough",
        "column": "pruned_through",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "lastPos",
        "column": "last_pos",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "legacyThrough",
        "column": "legacy_through",
        "type": "BigInt",
        "optional": false,
        "internal": false
      }
    ]
  },
  "FacetTrend": {
    "table": "facet_trend",
    "fields": [
      {
        "field": "dimension",
        "column": "dimension",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "version",
        "column": "version",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "position",
        "column": "position",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "publishedAt",
        "column": "published_at",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "value",
        "column": "value",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "count",
        "column": "count",
        "type": "BigInt",
        "optional": false,
        "internal": false
      },
      {
        "field": "covered",
        "column": "covered",
        "type": "BigInt",
        "optional": false,
        "internal": false
      }
    ]
  },
  "SnapshotInfo": {
    "table": "snapshot_info",
    "fields": [
      {
        "field": "version",
        "column": "version",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "loadedAt",
        "column": "loaded_at",
        "type": "DateTime",
        "optional": false,
        "internal": false
      },
      {
        "field": "source",
        "column": "source",
        "type": "String",
        "optional": false,
        "internal": false
      }
    ]
  },
  "App": {
    "table": "app",
    "fields": [
      {
        "field": "pk",
        "column": "pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "id",
        "column": "id",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "platform",
        "column": "platform",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "token",
        "column": "token",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "name",
        "column": "name",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "description",
        "column": "description",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "descriptionLong",
        "column": "description_long",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "appStoreUrl",
        "column": "app_store_url",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "iconUrl",
        "column": "icon_url",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "averageRating",
        "column": "average_rating",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "averageRatingSort",
        "column": "average_rating_sort",
        "type": "Float",
        "optional": false,
        "internal": false
      },
      {
        "field": "reviewCount",
        "column": "review_count",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "state",
        "column": "state",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "createdAt",
        "column": "created_at",
        "type": "DateTime",
        "optional": false,
        "internal": false
      },
      {
        "field": "removedAt",
        "column": "removed_at",
        "type": "DateTime",
        "optional": true,
        "internal": false
      },
      {
        "field": "installs",
        "column": "installs",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "instp",
        "column": "instp",
        "type": "Float",
        "optional": true,
        "internal": false
      },
      {
        "field": "installs30d",
        "column": "installs_30d",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "installs90d",
        "column": "installs_90d",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "reviews30d",
        "column": "reviews_30d",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "reviews90d",
        "column": "reviews_90d",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "freeTrialDuration",
        "column": "free_trial_duration",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "vendorName",
        "column": "vendor_name",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "vendorEmail",
        "column": "vendor_email",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "vendorUrl",
        "column": "vendor_url",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "vendorWebsite",
        "column": "vendor_website",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "vendorAddress",
        "column": "vendor_address",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "vendorCountryCode",
        "column": "vendor_country_code",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "searchText",
        "column": "search_text",
        "type": "String",
        "optional": false,
        "internal": false
      }
    ]
  },
  "AppCategory": {
    "table": "app_category",
    "fields": [
      {
        "field": "appPk",
        "column": "app_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "category",
        "column": "category",
        "type": "String",
        "optional": false,
        "internal": false
      }
    ]
  },
  "AppPlan": {
    "table": "app_plan",
    "fields": [
      {
        "field": "appPk",
        "column": "app_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "position",
        "column": "position",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "name",
        "column": "name",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "monthlyCost",
        "column": "monthly_cost",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "monthlyCostCents",
        "column": "monthly_cost_cents",
        "type": "Int",
        "optional": true,
        "internal": false
      }
    ]
  },
  "AppIntegration": {
    "table": "app_integration",
    "fields": [
      {
        "field": "appPk",
        "column": "app_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "position",
        "column": "position",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "value",
        "column": "value",
        "type": "String",
        "optional": false,
        "internal": false
      }
    ]
  },
  "AppInstallsPoint": {
    "table": "app_installs_point",
    "fields": [
      {
        "field": "appPk",
        "column": "app_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "date",
        "column": "date",
        "type": "DateTime",
        "optional": false,
        "internal": false
      },
      {
        "field": "installs",
        "column": "installs",
        "type": "Int",
        "optional": false,
        "internal": false
      }
    ]
  },
  "AppReview": {
    "table": "app_review",
    "fields": [
      {
        "field": "pk",
        "column": "pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "appPk",
        "column": "app_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "updatedAt",
        "column": "updated_at",
        "type": "DateTime",
        "optional": false,
        "internal": false
      },
      {
        "field": "body",
        "column": "body",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "merchantName",
        "column": "merchant_name",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "rating",
        "column": "rating",
        "type": "Int",
        "optional": false,
        "internal": false
      }
    ]
  },
  "AppReviewDomain": {
    "table": "app_review_domain",
    "fields": [
      {
        "field": "reviewPk",
        "column": "review_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "position",
        "column": "position",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "name",
        "column": "name",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "platformDomain",
        "column": "platform_domain",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "platformRank",
        "column": "platform_rank",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "domainPk",
        "column": "domain_pk",
        "type": "Int",
        "optional": true,
        "internal": false
      }
    ]
  },
  "Domain": {
    "table": "domain",
    "fields": [
      {
        "field": "pk",
        "column": "pk",
        "type": "Int",
        "optional": false,
        "internal": true
      },
      {
        "field": "name",
        "column": "name",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "platformDomain",
        "column": "platform_domain",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "tld1",
        "column": "tld1",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "state",
        "column": "state",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "inactiveAt",
        "column": "inactive_at",
        "type": "DateTime",
        "optional": true,
        "internal": false
      },
      {
        "field": "redirectsTo",
        "column": "redirects_to",
        "type": "Json",
        "optional": true,
        "internal": false
      },
      {
        "field": "aliases",
        "column": "aliases",
        "type": "Json",
        "optional": true,
        "internal": false
      },
      {
        "field": "alternates",
        "column": "alternates",
        "type": "Json",
        "optional": true,
        "internal": false
      },
      {
        "field": "localizations",
        "column": "localizations",
        "type": "Json",
        "optional": true,
        "internal": false
      },
      {
        "field": "locs",
        "column": "locs",
        "type": "Json",
        "optional": true,
        "internal": false
      },
      {
        "field": "clusterDomains",
        "column": "cluster_domains",
        "type": "Json",
        "optional": true,
        "internal": false
      },
      {
        "field": "clusterBestRanked",
        "column": "cluster_best_ranked",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "platform",
        "column": "platform",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "plan",
        "column": "plan",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "lastPlatform",
        "column": "last_platform",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "lastPlatformChangeAt",
        "column": "last_platform_change_at",
        "type": "DateTime",
        "optional": true,
        "internal": false
      },
      {
        "field": "lastPlan",
        "column": "last_plan",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "lastPlanChangeAt",
        "column": "last_plan_change_at",
        "type": "DateTime",
        "optional": true,
        "internal": false
      },
      {
        "field": "createdAt",
        "column": "created_at",
        "type": "DateTime",
        "optional": false,
        "internal": false
      },
      {
        "field": "createdWeek",
        "column": "created_week",
        "type": "DateTime",
        "optional": false,
        "internal": true
      },
      {
        "field": "lastUpdatedAt",
        "column": "last_updated_at",
        "type": "DateTime",
        "optional": true,
        "internal": false
      },
      {
        "field": "magentoVersion",
        "column": "magento_version",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "merchantName",
        "column": "merchant_name",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "title",
        "column": "title",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "description",
        "column": "description",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "keywords",
        "column": "keywords",
        "type": "Json",
        "optional": true,
        "internal": false
      },
      {
        "field": "icon",
        "column": "icon",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "ogImage",
        "column": "og_image",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "countryCode",
        "column": "country_code",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "currencyCode",
        "column": "currency_code",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "languageCode",
        "column": "language_code",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "administrativeAreaLevel1",
        "column": "administrative_area_level_1",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "city",
        "column": "city",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "location",
        "column": "location",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "region",
        "column": "region",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "subregion",
        "column": "subregion",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "postalCode",
        "column": "postal_code",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "streetAddress",
        "column": "street_address",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "latitude",
        "column": "latitude",
        "type": "Float",
        "optional": true,
        "internal": false
      },
      {
        "field": "longitude",
        "column": "longitude",
        "type": "Float",
        "optional": true,
        "internal": false
      },
      {
        "field": "employeeCount",
        "column": "employee_count",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "rank",
        "column": "rank",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "rankPercentile",
        "column": "rank_percentile",
        "type": "Float",
        "optional": false,
        "internal": false
      },
      {
        "field": "platformRank",
        "column": "platform_rank",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "platformRankPercentile",
        "column": "platform_rank_percentile",
        "type": "Float",
        "optional": false,
        "internal": false
      },
      {
        "field": "ccRank",
        "column": "cc_rank",
        "type": "Float",
        "optional": true,
        "internal": false
      },
      {
        "field": "ccCentrality",
        "column": "cc_centrality",
        "type": "Float",
        "optional": true,
        "internal": false
      },
      {
        "field": "estimatedPageViews",
        "column": "estimated_page_views",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "estimatedVisits",
        "column": "estimated_visits",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "estimatedSales",
        "column": "estimated_sales",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "estimatedSalesYearly",
        "column": "estimated_sales_yearly",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "monthlyAppSpend",
        "column": "monthly_app_spend",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "avgWeight",
        "column": "avg_weight",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "maxWeight",
        "column": "max_weight",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "minWeight",
        "column": "min_weight",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "productCount",
        "column": "product_count",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "variantCount",
        "column": "variant_count",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "vendorCount",
        "column": "vendor_count",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "avgPrice",
        "column": "avg_price",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "avgPriceFormatted",
        "column": "avg_price_formatted",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "avgPriceUsd",
        "column": "avg_price_usd",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "minPrice",
        "column": "min_price",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "maxPrice",
        "column": "max_price",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "minPriceUsd",
        "column": "min_price_usd",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "maxPriceUsd",
        "column": "max_price_usd",
        "type": "BigInt",
        "optional": true,
        "internal": false
      },
      {
        "field": "maxProductPublishedAt",
        "column": "max_product_published_at",
        "type": "DateTime",
        "optional": true,
        "internal": false
      },
      {
        "field": "mostRecentlyPublishedProduct",
        "column": "most_recently_published_product",
        "type": "Json",
        "optional": true,
        "internal": false
      },
      {
        "field": "productImagesCreated30",
        "column": "product_images_created_30",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "productImagesCreated90",
        "column": "product_images_created_90",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "productImagesCreated365",
        "column": "product_images_created_365",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "collections",
        "column": "collections",
        "type": "Json",
        "optional": true,
        "internal": false
      },
      {
        "field": "shippingCarriers",
        "column": "shipping_carriers",
        "type": "Json",
        "optional": true,
        "internal": false
      },
      {
        "field": "contactPage",
        "column": "contact_page",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "brandsPage",
        "column": "brands_page",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "retailerPage",
        "column": "retailer_page",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "returnsPage",
        "column": "returns_page",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "trackingPage",
        "column": "tracking_page",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "warrantyPage",
        "column": "warranty_page",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "financingPage",
        "column": "financing_page",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "storeLocatorPage",
        "column": "store_locator_page",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "careerPage",
        "column": "career_page",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "sizingPage",
        "column": "sizing_page",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "aboutUs",
        "column": "about_us",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "themeName",
        "column": "theme_name",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "themeStyle",
        "column": "theme_style",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "themeVendor",
        "column": "theme_vendor",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "themeVersion",
        "column": "theme_version",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "themeCost",
        "column": "theme_cost",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "trustpilotReviewCount",
        "column": "trustpilot_review_count",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "trustpilotAvgRating",
        "column": "trustpilot_avg_rating",
        "type": "Float",
        "optional": true,
        "internal": false
      },
      {
        "field": "yotpoReviewCount",
        "column": "yotpo_review_count",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "yotpoAvgRating",
        "column": "yotpo_avg_rating",
        "type": "Float",
        "optional": true,
        "internal": false
      },
      {
        "field": "searchText",
        "column": "search_text",
        "type": "String",
        "optional": false,
        "internal": true
      }
    ]
  },
  "DomainCategory": {
    "table": "domain_category",
    "fields": [
      {
        "field": "domainPk",
        "column": "domain_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "category",
        "column": "category",
        "type": "String",
        "optional": false,
        "internal": false
      }
    ]
  },
  "DomainFeature": {
    "table": "domain_feature",
    "fields": [
      {
        "field": "domainPk",
        "column": "domain_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "feature",
        "column": "feature",
        "type": "String",
        "optional": false,
        "internal": false
      }
    ]
  },
  "DomainTag": {
    "table": "domain_tag",
    "fields": [
      {
        "field": "domainPk",
        "column": "domain_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "tag",
        "column": "tag",
        "type": "String",
        "optional": false,
        "internal": false
      }
    ]
  },
  "DomainSalesChannel": {
    "table": "domain_sales_channel",
    "fields": [
      {
        "field": "domainPk",
        "column": "domain_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "channel",
        "column": "channel",
        "type": "String",
        "optional": false,
        "internal": false
      }
    ]
  },
  "DomainShipsTo": {
    "table": "domain_ships_to",
    "fields": [
      {
        "field": "domainPk",
        "column": "domain_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "countryCode",
        "column": "country_code",
        "type": "String",
        "optional": false,
        "internal": false
      }
    ]
  },
  "DomainContact": {
    "table": "domain_contact",
    "fields": [
      {
        "field": "domainPk",
        "column": "domain_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "position",
        "column": "position",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "type",
        "column": "type",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "value",
        "column": "value",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "source",
        "column": "source",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "description",
        "column": "description",
        "type": "String",
        "optional": true,
        "internal": false
      },
      {
        "field": "followers",
        "column": "followers",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "followers30d",
        "column": "followers_30d",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "followers90d",
        "column": "followers_90d",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "posts",
        "column": "posts",
        "type": "Int",
        "optional": true,
        "internal": false
      },
      {
        "field": "likes",
        "column": "likes",
        "type": "Int",
        "optional": true,
        "internal": false
      }
    ]
  },
  "Technology": {
    "table": "technology",
    "fields": [
      {
        "field": "pk",
        "column": "pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "name",
        "column": "name",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "description",
        "column": "description",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "vendorUrl",
        "column": "vendor_url",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "iconUrl",
        "column": "icon_url",
        "type": "String",
        "optional": false,
        "internal": false
      },
      {
        "field": "installs",
        "column": "installs",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "categories",
        "column": "categories",
        "type": "Json",
        "optional": true,
        "internal": false
      }
    ]
  },
  "DomainTechnology": {
    "table": "domain_technology",
    "fields": [
      {
        "field": "domainPk",
        "column": "domain_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "technologyPk",
        "column": "technology_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "installedAt",
        "column": "installed_at",
        "type": "DateTime",
        "optional": false,
        "internal": false
      }
    ]
  },
  "DomainApp": {
    "table": "domain_app",
    "fields": [
      {
        "field": "domainPk",
        "column": "domain_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "appPk",
        "column": "app_pk",
        "type": "Int",
        "optional": false,
        "internal": false
      },
      {
        "field": "installedAt",
        "column": "installed_at",
        "type": "DateTime",
        "optional": false,
        "internal": false
      },
      {
        "field": "removedAt",
        "column": "removed_at",
        "type": "DateTime",
        "optional": true,
        "internal": false
      }
    ]
  }
} as const;
/** The models and indexes as Prisma's DMMF gives them, as far as test/db/drift.ts reads them. */
export const DATAMODEL = {
  "models": [
    {
      "name": "Snapshot",
      "dbName": "snapshot",
      "fields": [
        {
          "name": "version",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "status",
          "dbName": null,
          "documentation": "loading | ready | failed | retired",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "startedAt",
          "dbName": "started_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": true
        },
        {
          "name": "finishedAt",
          "dbName": "finished_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": false
        },
        {
          "name": "location",
          "dbName": null,
          "documentation": "SQLite: file name under the data directory; PostgreSQL: schema name.",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "source",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "apps",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "domains",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "reviews",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "error",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        }
      ]
    },
    {
      "name": "ExportJob",
      "dbName": "export_job",
      "fields": [
        {
          "name": "id",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "owner",
          "dbName": null,
          "documentation": "sha-256 of the client's API key (\"anonymous\" without one).",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "query",
          "dbName": null,
          "documentation": "Fingerprint of the normalized options (filters, sort, fields, format).",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "format",
          "dbName": null,
          "documentation": "json | jsonl | csv",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "status",
          "dbName": null,
          "documentation": "running | paused (handed over by a gateway that shut down) | done | failed",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "snapshotVersion",
          "dbName": "snapshot_version",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "progress",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "total",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "location",
          "dbName": null,
          "documentation": "Result file, relative to the data directory (SQLite); \"database\" when its chunks hold it.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "error",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "errorCode",
          "dbName": "error_code",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "createdAt",
          "dbName": "created_at",
          "documentation": "Unix milliseconds.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "updatedAt",
          "dbName": "updated_at",
          "documentation": "Unix milliseconds; the worker's heartbeat while running.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "chunks",
          "dbName": null,
          "kind": "object",
          "type": "ExportChunk",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        }
      ]
    },
    {
      "name": "ExportChunk",
      "dbName": "export_chunk",
      "fields": [
        {
          "name": "jobId",
          "dbName": "job_id",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "seq",
          "dbName": null,
          "documentation": "0, 1, 2...: the result is the chunks' bytes in this order.",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "domains",
          "dbName": null,
          "documentation": "Domains in the result up to and including this chunk: where a resumed job goes on from.",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "bytes",
          "dbName": null,
          "kind": "scalar",
          "type": "Bytes",
          "isRequired": true
        },
        {
          "name": "job",
          "dbName": null,
          "documentation": "The chunks go with their job.",
          "kind": "object",
          "type": "ExportJob",
          "isRequired": true,
          "relationFromFields": [
            "jobId"
          ],
          "relationToFields": [
            "id"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "ApiKey",
      "dbName": "api_key",
      "fields": [
        {
          "name": "id",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "name",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "plan",
          "dbName": null,
          "documentation": "pro | elite | enterprise (docs/api.md section 8)",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "hash",
          "dbName": null,
          "documentation": "sha-256 of the key, hex.",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "prefix",
          "dbName": null,
          "documentation": "The key's first characters, to tell keys apart in `keys list` without revealing them.",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "createdAt",
          "dbName": "created_at",
          "documentation": "Unix milliseconds.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "lastUsedAt",
          "dbName": "last_used_at",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "revokedAt",
          "dbName": "revoked_at",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "account",
          "dbName": null,
          "documentation": "The account the key belongs to (its lists are the account's): an account may hold several\nkeys. Keys made before accounts stand for an account of their own, their id.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        }
      ]
    },
    {
      "name": "DomainList",
      "dbName": "domain_list",
      "fields": [
        {
          "name": "id",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "account",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "name",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "createdAt",
          "dbName": "created_at",
          "documentation": "Unix milliseconds.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "updatedAt",
          "dbName": "updated_at",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        }
      ]
    },
    {
      "name": "DomainListItem",
      "dbName": "domain_list_item",
      "fields": [
        {
          "name": "listId",
          "dbName": "list_id",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "domain",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "addedAt",
          "dbName": "added_at",
          "documentation": "Unix milliseconds.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        }
      ]
    },
    {
      "name": "Segment",
      "dbName": "segment",
      "fields": [
        {
          "name": "id",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "account",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "name",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "filter",
          "dbName": null,
          "documentation": "JSON of GraphQL's DomainFilter, as written (saveSegment's `filter`); null for none.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "search",
          "dbName": null,
          "documentation": "List Domains' search (q), or null.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "spread",
          "dbName": null,
          "documentation": "JSON array of the Domain facet dimensions (GraphQL names) its members are counted over at\neach load; null for the default: platform, plan, countryCode.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "createdAt",
          "dbName": "created_at",
          "documentation": "Unix milliseconds.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "updatedAt",
          "dbName": "updated_at",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        }
      ]
    },
    {
      "name": "SegmentLoad",
      "dbName": "segment_load",
      "fields": [
        {
          "name": "segmentId",
          "dbName": "segment_id",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "version",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "loadedAt",
          "dbName": "loaded_at",
          "documentation": "Unix milliseconds: when that load was published.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "size",
          "dbName": null,
          "documentation": "Null when its filter could not be read at that load (error says why).",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "entered",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "left",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "counts",
          "dbName": null,
          "documentation": "JSON: {\"platform\": {value: count}, \"plan\": {…}, \"country_code\": {…}}, a dimension by its\nGraphQL name in snake case, its commonest values only (SPREAD_LIMITS.values).",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "error",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "other",
          "dbName": null,
          "documentation": "JSON: {\"technologies\": n}: per dimension, the members with a value but none of those counted.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        }
      ]
    },
    {
      "name": "Webhook",
      "dbName": "webhook",
      "fields": [
        {
          "name": "id",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "account",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "url",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "kinds",
          "dbName": null,
          "documentation": "JSON array of change kinds; NULL: every kind.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "list",
          "dbName": null,
          "documentation": "The name of one of the account's lists (f:list).",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "filter",
          "dbName": null,
          "documentation": "JSON of GraphQL's DomainFilter.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "segment",
          "dbName": null,
          "documentation": "The name of one of the account's segments: only its events (segment_entered, segment_left).",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "secret",
          "dbName": null,
          "documentation": "Standard Webhooks secret (whsec_…), shown once.",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "cursor",
          "dbName": null,
          "documentation": "The feed's internal id of its last event read (change_event.id: never shown).",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "cursorText",
          "dbName": "cursor_text",
          "documentation": "That event's cursor as its account reads it (null: kept when the id was the cursor).",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "error",
          "dbName": null,
          "documentation": "Why its events could not be read at the last load (its list was deleted).",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "createdAt",
          "dbName": "created_at",
          "documentation": "Unix milliseconds.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        }
      ]
    },
    {
      "name": "WebhookDelivery",
      "dbName": "webhook_delivery",
      "fields": [
        {
          "name": "id",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "webhookId",
          "dbName": "webhook_id",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "type",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "body",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "events",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "cursor",
          "dbName": null,
          "documentation": "The feed position of its last event.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "cursorText",
          "dbName": "cursor_text",
          "documentation": "Its cursor as its account reads it (null: kept when the id was the cursor).",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "status",
          "dbName": null,
          "documentation": "pending | succeeded | failed",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "attempts",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "createdAt",
          "dbName": "created_at",
          "documentation": "Unix milliseconds.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "nextAttemptAt",
          "dbName": "next_attempt_at",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "lastAttemptAt",
          "dbName": "last_attempt_at",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "responseStatus",
          "dbName": "response_status",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "error",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "claim",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        }
      ]
    },
    {
      "name": "ChangeEvent",
      "dbName": "change_event",
      "fields": [
        {
          "name": "id",
          "dbName": null,
          "documentation": "The event's place in the feed's internal order: ids increase in feed order and are never\nreused. Never shown: a reader's cursor is `pos` and `seq` (docs/decisions.md, \"Change feed\").",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "version",
          "dbName": null,
          "documentation": "The snapshot version the event appeared in.",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "loadedAt",
          "dbName": "loaded_at",
          "documentation": "Unix milliseconds: when that snapshot was published.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "kind",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "domain",
          "dbName": null,
          "documentation": "The Domain's name (Domain events), or null.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "app",
          "dbName": null,
          "documentation": "The App as `platform.token` (App events, and a Domain's App events), or null.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "appId",
          "dbName": "app_id",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "appName",
          "dbName": "app_name",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "technology",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "before",
          "dbName": null,
          "documentation": "JSON text: the value before and after, where the kind has them.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "after",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "doc",
          "dbName": null,
          "documentation": "The event as the feed reads it (a JSON array of the columns above, before and after as\nJSON), written when its load is published; null for events published before it was kept.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "account",
          "dbName": null,
          "documentation": "The account that alone sees the event (segment events), or null: every account sees it.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "segment",
          "dbName": null,
          "documentation": "The segment a segment_entered or segment_left is about (by name), or null.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "pos",
          "dbName": null,
          "documentation": "The events every account sees, counted (1, 2, …); an account's own event takes the `pos`\nof the public event before it.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "seq",
          "dbName": null,
          "documentation": "0 for an event every account sees; 1, 2, … for an account's own events at that `pos`.",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        }
      ]
    },
    {
      "name": "ChangeFeed",
      "dbName": "change_feed",
      "fields": [
        {
          "name": "id",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "lastId",
          "dbName": "last_id",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "prunedThrough",
          "dbName": "pruned_through",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "lastPos",
          "dbName": "last_pos",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "legacyThrough",
          "dbName": "legacy_through",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        }
      ]
    },
    {
      "name": "FacetTrend",
      "dbName": "facet_trend",
      "fields": [
        {
          "name": "dimension",
          "dbName": null,
          "documentation": "`domain.<dimension>` or `app.<dimension>`, as facet_summary names it.",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "version",
          "dbName": null,
          "documentation": "The snapshot version of the load.",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "position",
          "dbName": null,
          "documentation": "1, 2, … in facet order (count descending, then value); 0: the records without a value.",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "publishedAt",
          "dbName": "published_at",
          "documentation": "Unix milliseconds: when that load was published.",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "value",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "count",
          "dbName": null,
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        },
        {
          "name": "covered",
          "dbName": null,
          "documentation": "The records having one of the values up to this position (position 0: those with any).",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": true
        }
      ]
    },
    {
      "name": "SnapshotInfo",
      "dbName": "snapshot_info",
      "fields": [
        {
          "name": "version",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "loadedAt",
          "dbName": "loaded_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": true
        },
        {
          "name": "source",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        }
      ]
    },
    {
      "name": "App",
      "dbName": "app",
      "fields": [
        {
          "name": "pk",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "id",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "platform",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "token",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "name",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "description",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "descriptionLong",
          "dbName": "description_long",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "appStoreUrl",
          "dbName": "app_store_url",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "iconUrl",
          "dbName": "icon_url",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "averageRating",
          "dbName": "average_rating",
          "documentation": "As carried by the API: a decimal number in a string.",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "averageRatingSort",
          "dbName": "average_rating_sort",
          "documentation": "averageRating as a number, for sorting.",
          "kind": "scalar",
          "type": "Float",
          "isRequired": true
        },
        {
          "name": "reviewCount",
          "dbName": "review_count",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "state",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "createdAt",
          "dbName": "created_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": true
        },
        {
          "name": "removedAt",
          "dbName": "removed_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": false
        },
        {
          "name": "installs",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "instp",
          "dbName": null,
          "kind": "scalar",
          "type": "Float",
          "isRequired": false
        },
        {
          "name": "installs30d",
          "dbName": "installs_30d",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "installs90d",
          "dbName": "installs_90d",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "reviews30d",
          "dbName": "reviews_30d",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "reviews90d",
          "dbName": "reviews_90d",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "freeTrialDuration",
          "dbName": "free_trial_duration",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "vendorName",
          "dbName": "vendor_name",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "vendorEmail",
          "dbName": "vendor_email",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "vendorUrl",
          "dbName": "vendor_url",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "vendorWebsite",
          "dbName": "vendor_website",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "vendorAddress",
          "dbName": "vendor_address",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "vendorCountryCode",
          "dbName": "vendor_country_code",
          "documentation": "Filter f:vcc (docs/decisions.md); returned as vendor_country_code when known.",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "searchText",
          "dbName": "search_text",
          "documentation": "Lowercased name + description, for `q`.",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "categories",
          "dbName": null,
          "kind": "object",
          "type": "AppCategory",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "plans",
          "dbName": null,
          "kind": "object",
          "type": "AppPlan",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "integratesWith",
          "dbName": null,
          "kind": "object",
          "type": "AppIntegration",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "installsSeries",
          "dbName": null,
          "kind": "object",
          "type": "AppInstallsPoint",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "reviews",
          "dbName": null,
          "kind": "object",
          "type": "AppReview",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "domains",
          "dbName": null,
          "kind": "object",
          "type": "DomainApp",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        }
      ]
    },
    {
      "name": "AppCategory",
      "dbName": "app_category",
      "fields": [
        {
          "name": "appPk",
          "dbName": "app_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "category",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "app",
          "dbName": null,
          "kind": "object",
          "type": "App",
          "isRequired": true,
          "relationFromFields": [
            "appPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "AppPlan",
      "dbName": "app_plan",
      "fields": [
        {
          "name": "appPk",
          "dbName": "app_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "position",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "name",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "monthlyCost",
          "dbName": "monthly_cost",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "monthlyCostCents",
          "dbName": "monthly_cost_cents",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "app",
          "dbName": null,
          "kind": "object",
          "type": "App",
          "isRequired": true,
          "relationFromFields": [
            "appPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "AppIntegration",
      "dbName": "app_integration",
      "fields": [
        {
          "name": "appPk",
          "dbName": "app_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "position",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "value",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "app",
          "dbName": null,
          "kind": "object",
          "type": "App",
          "isRequired": true,
          "relationFromFields": [
            "appPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "AppInstallsPoint",
      "dbName": "app_installs_point",
      "fields": [
        {
          "name": "appPk",
          "dbName": "app_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "date",
          "dbName": null,
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": true
        },
        {
          "name": "installs",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "app",
          "dbName": null,
          "kind": "object",
          "type": "App",
          "isRequired": true,
          "relationFromFields": [
            "appPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "AppReview",
      "dbName": "app_review",
      "fields": [
        {
          "name": "pk",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "appPk",
          "dbName": "app_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "updatedAt",
          "dbName": "updated_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": true
        },
        {
          "name": "body",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "merchantName",
          "dbName": "merchant_name",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "rating",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "app",
          "dbName": null,
          "kind": "object",
          "type": "App",
          "isRequired": true,
          "relationFromFields": [
            "appPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        },
        {
          "name": "domains",
          "dbName": null,
          "kind": "object",
          "type": "AppReviewDomain",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        }
      ]
    },
    {
      "name": "AppReviewDomain",
      "dbName": "app_review_domain",
      "fields": [
        {
          "name": "reviewPk",
          "dbName": "review_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "position",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "name",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "platformDomain",
          "dbName": "platform_domain",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "platformRank",
          "dbName": "platform_rank",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "domainPk",
          "dbName": "domain_pk",
          "documentation": "The Domain of that name in this snapshot, when it has one.",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "review",
          "dbName": null,
          "kind": "object",
          "type": "AppReview",
          "isRequired": true,
          "relationFromFields": [
            "reviewPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        },
        {
          "name": "domain",
          "dbName": null,
          "kind": "object",
          "type": "Domain",
          "isRequired": false,
          "relationFromFields": [
            "domainPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "Domain",
      "dbName": "domain",
      "fields": [
        {
          "name": "pk",
          "dbName": null,
          "documentation": "@internal: the row key; the API names a Domain by its name.",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "name",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "platformDomain",
          "dbName": "platform_domain",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "tld1",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "state",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "inactiveAt",
          "dbName": "inactive_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": false
        },
        {
          "name": "redirectsTo",
          "dbName": "redirects_to",
          "kind": "scalar",
          "type": "Json",
          "isRequired": false
        },
        {
          "name": "aliases",
          "dbName": null,
          "kind": "scalar",
          "type": "Json",
          "isRequired": false
        },
        {
          "name": "alternates",
          "dbName": null,
          "documentation": "Locale → domain name: an object whose keys are data, served in the source line's order. On\nPostgreSQL the column is @db.Json (JSON text as loaded; prisma/generate.mjs adds the attribute),\nnot JSONB, which stores an object's keys sorted (migration 0005_alternates_json.sql).",
          "kind": "scalar",
          "type": "Json",
          "isRequired": false
        },
        {
          "name": "localizations",
          "dbName": null,
          "kind": "scalar",
          "type": "Json",
          "isRequired": false
        },
        {
          "name": "locs",
          "dbName": null,
          "kind": "scalar",
          "type": "Json",
          "isRequired": false
        },
        {
          "name": "clusterDomains",
          "dbName": "cluster_domains",
          "kind": "scalar",
          "type": "Json",
          "isRequired": false
        },
        {
          "name": "clusterBestRanked",
          "dbName": "cluster_best_ranked",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "platform",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "plan",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "lastPlatform",
          "dbName": "last_platform",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "lastPlatformChangeAt",
          "dbName": "last_platform_change_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": false
        },
        {
          "name": "lastPlan",
          "dbName": "last_plan",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "lastPlanChangeAt",
          "dbName": "last_plan_change_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": false
        },
        {
          "name": "createdAt",
          "dbName": "created_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": true
        },
        {
          "name": "createdWeek",
          "dbName": "created_week",
          "documentation": "@internal: created_at's week, grouped on Fridays (f:cratyyyymmdd): the Friday on or before it.",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": true
        },
        {
          "name": "lastUpdatedAt",
          "dbName": "last_updated_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": false
        },
        {
          "name": "magentoVersion",
          "dbName": "magento_version",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "merchantName",
          "dbName": "merchant_name",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "title",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "description",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "keywords",
          "dbName": null,
          "documentation": "String or array, as the source carries it.",
          "kind": "scalar",
          "type": "Json",
          "isRequired": false
        },
        {
          "name": "icon",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "ogImage",
          "dbName": "og_image",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "countryCode",
          "dbName": "country_code",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "currencyCode",
          "dbName": "currency_code",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "languageCode",
          "dbName": "language_code",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "administrativeAreaLevel1",
          "dbName": "administrative_area_level_1",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "city",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "location",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "region",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "subregion",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "postalCode",
          "dbName": "postal_code",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "streetAddress",
          "dbName": "street_address",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "latitude",
          "dbName": null,
          "kind": "scalar",
          "type": "Float",
          "isRequired": false
        },
        {
          "name": "longitude",
          "dbName": null,
          "kind": "scalar",
          "type": "Float",
          "isRequired": false
        },
        {
          "name": "employeeCount",
          "dbName": "employee_count",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "rank",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "rankPercentile",
          "dbName": "rank_percentile",
          "kind": "scalar",
          "type": "Float",
          "isRequired": true
        },
        {
          "name": "platformRank",
          "dbName": "platform_rank",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "platformRankPercentile",
          "dbName": "platform_rank_percentile",
          "kind": "scalar",
          "type": "Float",
          "isRequired": true
        },
        {
          "name": "ccRank",
          "dbName": "cc_rank",
          "kind": "scalar",
          "type": "Float",
          "isRequired": false
        },
        {
          "name": "ccCentrality",
          "dbName": "cc_centrality",
          "kind": "scalar",
          "type": "Float",
          "isRequired": false
        },
        {
          "name": "estimatedPageViews",
          "dbName": "estimated_page_views",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "estimatedVisits",
          "dbName": "estimated_visits",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "estimatedSales",
          "dbName": "estimated_sales",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "estimatedSalesYearly",
          "dbName": "estimated_sales_yearly",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "monthlyAppSpend",
          "dbName": "monthly_app_spend",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "avgWeight",
          "dbName": "avg_weight",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "maxWeight",
          "dbName": "max_weight",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "minWeight",
          "dbName": "min_weight",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "productCount",
          "dbName": "product_count",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "variantCount",
          "dbName": "variant_count",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "vendorCount",
          "dbName": "vendor_count",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "avgPrice",
          "dbName": "avg_price",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "avgPriceFormatted",
          "dbName": "avg_price_formatted",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "avgPriceUsd",
          "dbName": "avg_price_usd",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "minPrice",
          "dbName": "min_price",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "maxPrice",
          "dbName": "max_price",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "minPriceUsd",
          "dbName": "min_price_usd",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "maxPriceUsd",
          "dbName": "max_price_usd",
          "kind": "scalar",
          "type": "BigInt",
          "isRequired": false
        },
        {
          "name": "maxProductPublishedAt",
          "dbName": "max_product_published_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": false
        },
        {
          "name": "mostRecentlyPublishedProduct",
          "dbName": "most_recently_published_product",
          "documentation": "{ title, handle, product_id, published_at }",
          "kind": "scalar",
          "type": "Json",
          "isRequired": false
        },
        {
          "name": "productImagesCreated30",
          "dbName": "product_images_created_30",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "productImagesCreated90",
          "dbName": "product_images_created_90",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "productImagesCreated365",
          "dbName": "product_images_created_365",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "collections",
          "dbName": null,
          "kind": "scalar",
          "type": "Json",
          "isRequired": false
        },
        {
          "name": "shippingCarriers",
          "dbName": "shipping_carriers",
          "kind": "scalar",
          "type": "Json",
          "isRequired": false
        },
        {
          "name": "contactPage",
          "dbName": "contact_page",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "brandsPage",
          "dbName": "brands_page",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "retailerPage",
          "dbName": "retailer_page",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "returnsPage",
          "dbName": "returns_page",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "trackingPage",
          "dbName": "tracking_page",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "warrantyPage",
          "dbName": "warranty_page",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "financingPage",
          "dbName": "financing_page",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "storeLocatorPage",
          "dbName": "store_locator_page",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "careerPage",
          "dbName": "career_page",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "sizingPage",
          "dbName": "sizing_page",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "aboutUs",
          "dbName": "about_us",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "themeName",
          "dbName": "theme_name",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "themeStyle",
          "dbName": "theme_style",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "themeVendor",
          "dbName": "theme_vendor",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "themeVersion",
          "dbName": "theme_version",
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "themeCost",
          "dbName": "theme_cost",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "trustpilotReviewCount",
          "dbName": "trustpilot_review_count",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "trustpilotAvgRating",
          "dbName": "trustpilot_avg_rating",
          "kind": "scalar",
          "type": "Float",
          "isRequired": false
        },
        {
          "name": "yotpoReviewCount",
          "dbName": "yotpo_review_count",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "yotpoAvgRating",
          "dbName": "yotpo_avg_rating",
          "kind": "scalar",
          "type": "Float",
          "isRequired": false
        },
        {
          "name": "searchText",
          "dbName": "search_text",
          "documentation": "@internal: lowercased name, title, description and merchant name, for `q`.",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "categories",
          "dbName": null,
          "kind": "object",
          "type": "DomainCategory",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "features",
          "dbName": null,
          "kind": "object",
          "type": "DomainFeature",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "tags",
          "dbName": null,
          "kind": "object",
          "type": "DomainTag",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "salesChannels",
          "dbName": null,
          "kind": "object",
          "type": "DomainSalesChannel",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "shipsTo",
          "dbName": null,
          "kind": "object",
          "type": "DomainShipsTo",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "contacts",
          "dbName": null,
          "kind": "object",
          "type": "DomainContact",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "technologies",
          "dbName": null,
          "kind": "object",
          "type": "DomainTechnology",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "apps",
          "dbName": null,
          "kind": "object",
          "type": "DomainApp",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        },
        {
          "name": "reviewMentions",
          "dbName": null,
          "kind": "object",
          "type": "AppReviewDomain",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        }
      ]
    },
    {
      "name": "DomainCategory",
      "dbName": "domain_category",
      "fields": [
        {
          "name": "domainPk",
          "dbName": "domain_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "category",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "domain",
          "dbName": null,
          "kind": "object",
          "type": "Domain",
          "isRequired": true,
          "relationFromFields": [
            "domainPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "DomainFeature",
      "dbName": "domain_feature",
      "fields": [
        {
          "name": "domainPk",
          "dbName": "domain_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "feature",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "domain",
          "dbName": null,
          "kind": "object",
          "type": "Domain",
          "isRequired": true,
          "relationFromFields": [
            "domainPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "DomainTag",
      "dbName": "domain_tag",
      "fields": [
        {
          "name": "domainPk",
          "dbName": "domain_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "tag",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "domain",
          "dbName": null,
          "kind": "object",
          "type": "Domain",
          "isRequired": true,
          "relationFromFields": [
            "domainPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "DomainSalesChannel",
      "dbName": "domain_sales_channel",
      "fields": [
        {
          "name": "domainPk",
          "dbName": "domain_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "channel",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "domain",
          "dbName": null,
          "kind": "object",
          "type": "Domain",
          "isRequired": true,
          "relationFromFields": [
            "domainPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "DomainShipsTo",
      "dbName": "domain_ships_to",
      "fields": [
        {
          "name": "domainPk",
          "dbName": "domain_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "countryCode",
          "dbName": "country_code",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "domain",
          "dbName": null,
          "kind": "object",
          "type": "Domain",
          "isRequired": true,
          "relationFromFields": [
            "domainPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "DomainContact",
      "dbName": "domain_contact",
      "fields": [
        {
          "name": "domainPk",
          "dbName": "domain_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "position",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "type",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "value",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "source",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "description",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": false
        },
        {
          "name": "followers",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "followers30d",
          "dbName": "followers_30d",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "followers90d",
          "dbName": "followers_90d",
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "posts",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "likes",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": false
        },
        {
          "name": "domain",
          "dbName": null,
          "kind": "object",
          "type": "Domain",
          "isRequired": true,
          "relationFromFields": [
            "domainPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "Technology",
      "dbName": "technology",
      "fields": [
        {
          "name": "pk",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "name",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "description",
          "dbName": null,
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "vendorUrl",
          "dbName": "vendor_url",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "iconUrl",
          "dbName": "icon_url",
          "kind": "scalar",
          "type": "String",
          "isRequired": true
        },
        {
          "name": "installs",
          "dbName": null,
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "categories",
          "dbName": null,
          "kind": "scalar",
          "type": "Json",
          "isRequired": false
        },
        {
          "name": "domains",
          "dbName": null,
          "kind": "object",
          "type": "DomainTechnology",
          "isRequired": true,
          "relationFromFields": [],
          "relationToFields": []
        }
      ]
    },
    {
      "name": "DomainTechnology",
      "dbName": "domain_technology",
      "fields": [
        {
          "name": "domainPk",
          "dbName": "domain_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "technologyPk",
          "dbName": "technology_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "installedAt",
          "dbName": "installed_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": true
        },
        {
          "name": "domain",
          "dbName": null,
          "kind": "object",
          "type": "Domain",
          "isRequired": true,
          "relationFromFields": [
            "domainPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        },
        {
          "name": "technology",
          "dbName": null,
          "kind": "object",
          "type": "Technology",
          "isRequired": true,
          "relationFromFields": [
            "technologyPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    },
    {
      "name": "DomainApp",
      "dbName": "domain_app",
      "fields": [
        {
          "name": "domainPk",
          "dbName": "domain_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "appPk",
          "dbName": "app_pk",
          "kind": "scalar",
          "type": "Int",
          "isRequired": true
        },
        {
          "name": "installedAt",
          "dbName": "installed_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": true
        },
        {
          "name": "removedAt",
          "dbName": "removed_at",
          "kind": "scalar",
          "type": "DateTime",
          "isRequired": false
        },
        {
          "name": "domain",
          "dbName": null,
          "kind": "object",
          "type": "Domain",
          "isRequired": true,
          "relationFromFields": [
            "domainPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        },
        {
          "name": "app",
          "dbName": null,
          "kind": "object",
          "type": "App",
          "isRequired": true,
          "relationFromFields": [
            "appPk"
          ],
          "relationToFields": [
            "pk"
          ],
          "relationOnDelete": "Cascade"
        }
      ]
    }
  ],
  "indexes": [
    {
      "model": "Snapshot",
      "type": "id",
      "fields": [
        {
          "name": "version"
        }
      ]
    },
    {
      "model": "Snapshot",
      "type": "normal",
      "fields": [
        {
          "name": "status"
        },
        {
          "name": "version"
        }
      ]
    },
    {
      "model": "ExportJob",
      "type": "id",
      "fields": [
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "ExportJob",
      "type": "normal",
      "fields": [
        {
          "name": "createdAt"
        }
      ]
    },
    {
      "model": "ExportJob",
      "type": "unique",
      "fields": [
        {
          "name": "owner"
        },
        {
          "name": "query"
        }
      ]
    },
    {
      "model": "ExportChunk",
      "type": "id",
      "fields": [
        {
          "name": "jobId"
        },
        {
          "name": "seq"
        }
      ]
    },
    {
      "model": "ApiKey",
      "type": "id",
      "fields": [
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "ApiKey",
      "type": "unique",
      "fields": [
        {
          "name": "hash"
        }
      ]
    },
    {
      "model": "ApiKey",
      "type": "normal",
      "fields": [
        {
          "name": "account"
        }
      ]
    },
    {
      "model": "DomainList",
      "type": "id",
      "fields": [
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "DomainList",
      "type": "unique",
      "fields": [
        {
          "name": "account"
        },
        {
          "name": "name"
        }
      ]
    },
    {
      "model": "DomainListItem",
      "type": "id",
      "fields": [
        {
          "name": "listId"
        },
        {
          "name": "domain"
        }
      ]
    },
    {
      "model": "DomainListItem",
      "type": "normal",
      "fields": [
        {
          "name": "domain"
        }
      ]
    },
    {
      "model": "Segment",
      "type": "id",
      "fields": [
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "Segment",
      "type": "unique",
      "fields": [
        {
          "name": "account"
        },
        {
          "name": "name"
        }
      ]
    },
    {
      "model": "SegmentLoad",
      "type": "id",
      "fields": [
        {
          "name": "segmentId"
        },
        {
          "name": "version"
        }
      ]
    },
    {
      "model": "Webhook",
      "type": "id",
      "fields": [
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "Webhook",
      "type": "normal",
      "fields": [
        {
          "name": "account"
        }
      ]
    },
    {
      "model": "WebhookDelivery",
      "type": "id",
      "fields": [
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "WebhookDelivery",
      "type": "normal",
      "fields": [
        {
          "name": "webhookId"
        },
        {
          "name": "createdAt"
        }
      ]
    },
    {
      "model": "WebhookDelivery",
      "type": "normal",
      "fields": [
        {
          "name": "nextAttemptAt"
        }
      ]
    },
    {
      "model": "WebhookDelivery",
      "type": "normal",
      "fields": [
        {
          "name": "webhookId"
        },
        {
          "name": "nextAttemptAt"
        }
      ]
    },
    {
      "model": "ChangeEvent",
      "type": "id",
      "fields": [
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "ChangeEvent",
      "type": "normal",
      "fields": [
        {
          "name": "version"
        }
      ]
    },
    {
      "model": "ChangeEvent",
      "type": "normal",
      "fields": [
        {
          "name": "loadedAt"
        }
      ]
    },
    {
      "model": "ChangeEvent",
      "type": "normal",
      "fields": [
        {
          "name": "domain"
        },
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "ChangeEvent",
      "type": "normal",
      "fields": [
        {
          "name": "app"
        },
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "ChangeEvent",
      "type": "normal",
      "fields": [
        {
          "name": "technology"
        },
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "ChangeEvent",
      "type": "normal",
      "fields": [
        {
          "name": "account"
        },
        {
          "name": "segment"
        },
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "ChangeEvent",
      "type": "normal",
      "fields": [
        {
          "name": "pos"
        },
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "ChangeFeed",
      "type": "id",
      "fields": [
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "FacetTrend",
      "type": "id",
      "fields": [
        {
          "name": "dimension"
        },
        {
          "name": "version"
        },
        {
          "name": "position"
        }
      ]
    },
    {
      "model": "FacetTrend",
      "type": "normal",
      "fields": [
        {
          "name": "dimension"
        },
        {
          "name": "value"
        },
        {
          "name": "version"
        }
      ]
    },
    {
      "model": "FacetTrend",
      "type": "normal",
      "fields": [
        {
          "name": "version"
        }
      ]
    },
    {
      "model": "SnapshotInfo",
      "type": "id",
      "fields": [
        {
          "name": "version"
        }
      ]
    },
    {
      "model": "App",
      "type": "id",
      "fields": [
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "App",
      "type": "unique",
      "fields": [
        {
          "name": "id"
        }
      ]
    },
    {
      "model": "App",
      "type": "normal",
      "fields": [
        {
          "name": "installs"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "App",
      "type": "normal",
      "fields": [
        {
          "name": "reviewCount"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "App",
      "type": "normal",
      "fields": [
        {
          "name": "averageRatingSort"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "App",
      "type": "normal",
      "fields": [
        {
          "name": "createdAt"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "App",
      "type": "normal",
      "fields": [
        {
          "name": "removedAt"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "App",
      "type": "normal",
      "fields": [
        {
          "name": "state"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "App",
      "type": "normal",
      "fields": [
        {
          "name": "vendorName"
        }
      ]
    },
    {
      "model": "App",
      "type": "normal",
      "fields": [
        {
          "name": "vendorCountryCode"
        }
      ]
    },
    {
      "model": "App",
      "type": "unique",
      "fields": [
        {
          "name": "platform"
        },
        {
          "name": "token"
        }
      ]
    },
    {
      "model": "AppCategory",
      "type": "id",
      "fields": [
        {
          "name": "appPk"
        },
        {
          "name": "category"
        }
      ]
    },
    {
      "model": "AppCategory",
      "type": "normal",
      "fields": [
        {
          "name": "category"
        },
        {
          "name": "appPk"
        }
      ]
    },
    {
      "model": "AppPlan",
      "type": "id",
      "fields": [
        {
          "name": "appPk"
        },
        {
          "name": "position"
        }
      ]
    },
    {
      "model": "AppIntegration",
      "type": "id",
      "fields": [
        {
          "name": "appPk"
        },
        {
          "name": "position"
        }
      ]
    },
    {
      "model": "AppInstallsPoint",
      "type": "id",
      "fields": [
        {
          "name": "appPk"
        },
        {
          "name": "date"
        }
      ]
    },
    {
      "model": "AppReview",
      "type": "id",
      "fields": [
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "AppReview",
      "type": "normal",
      "fields": [
        {
          "name": "appPk"
        },
        {
          "name": "updatedAt"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "AppReviewDomain",
      "type": "id",
      "fields": [
        {
          "name": "reviewPk"
        },
        {
          "name": "position"
        }
      ]
    },
    {
      "model": "AppReviewDomain",
      "type": "normal",
      "fields": [
        {
          "name": "domainPk"
        },
        {
          "name": "reviewPk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "id",
      "fields": [
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "unique",
      "fields": [
        {
          "name": "name"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "platformDomain"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "rank"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "platformRank"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "createdAt"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "createdWeek"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "estimatedSales"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "estimatedVisits"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "productCount"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "employeeCount"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "monthlyAppSpend"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "lastPlanChangeAt"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "lastPlatformChangeAt"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "avgPrice"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "state"
        },
        {
          "name": "rank"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "platform"
        },
        {
          "name": "rank"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "platform"
        },
        {
          "name": "platformRank"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "plan"
        },
        {
          "name": "rank"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "countryCode"
        },
        {
          "name": "administrativeAreaLevel1"
        },
        {
          "name": "city"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "countryCode"
        },
        {
          "name": "rank"
        },
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "currencyCode"
        },
        {
          "name": "rank"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "languageCode"
        },
        {
          "name": "rank"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "region"
        },
        {
          "name": "rank"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "subregion"
        },
        {
          "name": "rank"
        }
      ]
    },
    {
      "model": "Domain",
      "type": "normal",
      "fields": [
        {
          "name": "themeName"
        },
        {
          "name": "rank"
        }
      ]
    },
    {
      "model": "DomainCategory",
      "type": "id",
      "fields": [
        {
          "name": "domainPk"
        },
        {
          "name": "category"
        }
      ]
    },
    {
      "model": "DomainCategory",
      "type": "normal",
      "fields": [
        {
          "name": "category"
        },
        {
          "name": "domainPk"
        }
      ]
    },
    {
      "model": "DomainFeature",
      "type": "id",
      "fields": [
        {
          "name": "domainPk"
        },
        {
          "name": "feature"
        }
      ]
    },
    {
      "model": "DomainFeature",
      "type": "normal",
      "fields": [
        {
          "name": "feature"
        },
        {
          "name": "domainPk"
        }
      ]
    },
    {
      "model": "DomainTag",
      "type": "id",
      "fields": [
        {
          "name": "domainPk"
        },
        {
          "name": "tag"
        }
      ]
    },
    {
      "model": "DomainTag",
      "type": "normal",
      "fields": [
        {
          "name": "tag"
        },
        {
          "name": "domainPk"
        }
      ]
    },
    {
      "model": "DomainSalesChannel",
      "type": "id",
      "fields": [
        {
          "name": "domainPk"
        },
        {
          "name": "channel"
        }
      ]
    },
    {
      "model": "DomainSalesChannel",
      "type": "normal",
      "fields": [
        {
          "name": "channel"
        },
        {
          "name": "domainPk"
        }
      ]
    },
    {
      "model": "DomainShipsTo",
      "type": "id",
      "fields": [
        {
          "name": "domainPk"
        },
        {
          "name": "countryCode"
        }
      ]
    },
    {
      "model": "DomainShipsTo",
      "type": "normal",
      "fields": [
        {
          "name": "countryCode"
        },
        {
          "name": "domainPk"
        }
      ]
    },
    {
      "model": "DomainContact",
      "type": "id",
      "fields": [
        {
          "name": "domainPk"
        },
        {
          "name": "position"
        }
      ]
    },
    {
      "model": "DomainContact",
      "type": "normal",
      "fields": [
        {
          "name": "type"
        },
        {
          "name": "domainPk"
        }
      ]
    },
    {
      "model": "Technology",
      "type": "id",
      "fields": [
        {
          "name": "pk"
        }
      ]
    },
    {
      "model": "Technology",
      "type": "unique",
      "fields": [
        {
          "name": "name"
        }
      ]
    },
    {
      "model": "DomainTechnology",
      "type": "id",
      "fields": [
        {
          "name": "domainPk"
        },
        {
          "name": "technologyPk"
        }
      ]
    },
    {
      "model": "DomainTechnology",
      "type": "normal",
      "fields": [
        {
          "name": "technologyPk"
        },
        {
          "name": "domainPk"
        }
      ]
    },
    {
      "model": "DomainTechnology",
      "type": "normal",
      "fields": [
        {
          "name": "technologyPk"
        },
        {
          "name": "installedAt"
        }
      ]
    },
    {
      "model": "DomainApp",
      "type": "id",
      "fields": [
        {
          "name": "domainPk"
        },
        {
          "name": "appPk"
        }
      ]
    },
    {
      "model": "DomainApp",
      "type": "normal",
      "fields": [
        {
          "name": "appPk"
        },
        {
          "name": "domainPk"
        }
      ]
    },
    {
      "model": "DomainApp",
      "type": "normal",
      "fields": [
        {
          "name": "appPk"
        },
        {
          "name": "installedAt"
        }
      ]
    },
    {
      "model": "DomainApp",
      "type": "normal",
      "fields": [
        {
          "name": "appPk"
        },
        {
          "name": "removedAt"
        }
      ]
    }
  ]
};
