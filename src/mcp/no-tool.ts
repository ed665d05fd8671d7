/**
 * The REST operations no tool stands for, and why: a test (test/mcp/catalogue.test.ts) fails when an
 * operation is neither a tool's nor here.
 */
export const NO_TOOL: Readonly<Record<string, string>> = {
  listApps: "search_apps asks the same (its POST twin)",
  domainFacets: "facets asks the same (its POST twin)",
  appFacets: "facets with of apps asks the same (its POST twin)",
  listListDomains: "search_domains with f.list asks the same: a list's Domains, as List Domains answers them",
  lookupDomains: "lookup with companies asks the same for 1 to 100 companies (its POST twin)",
  domainSimilar: "similar_domains asks the same with one seed (its POST twin)",
  exportDomains:
    "a file of a whole segment, streamed: export_segment starts the job and answers the URL a client fetches",
  exportChanges: "the whole feed as one file: changes pages through it",
  downloadSnapshotFile:
    "a file's bytes (Parquet, hundreds of MB), fetched by the URL snapshot_files answers, not a tool's answer",
  streamChanges:
    "a stream held open, where a tool answers once: changes with the last cursor reads what came since",
  createWebhook:
    "webhooks post to a server the account runs, set up by its developer (docs/rest.md), not by an agent",
  listWebhooks: "as createWebhook",
  deleteWebhook: "as createWebhook",
  testWebhook: "as createWebhook",
  listWebhookDeliveries: "as createWebhook",
  retryWebhookDelivery: "as createWebhook",
};
