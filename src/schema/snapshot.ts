import type { SnapshotRow } from "../db/store.ts";
import { builder } from "./builder.ts";

export const Snapshot = builder.objectRef<SnapshotRow>("Snapshot").implement({
  description: "A complete, immutable version of the dataset. Cursors and caches are tied to its version.",
  fields: (t) => ({
    version: t.exposeInt("version"),
    loadedAt: t.field({ type: "DateTime", resolve: (s) => s.finishedAt ?? s.startedAt }),
    source: t.exposeString("source"),
    apps: t.exposeInt("apps", { description: "Number of Apps" }),
    domains: t.exposeInt("domains", { description: "Number of Domains" }),
    reviews: t.exposeInt("reviews", { description: "Number of App reviews" }),
  }),
});

builder.queryField("snapshot", (t) =>
  t.field({
    type: Snapshot,
    nullable: true,
    description: "The snapshot being served; null before the first load.",
    // The request's own snapshot: the one its reads go to.
    resolve: (_root, _args, ctx) => ctx.served?.snapshot ?? null,
  }),
);
