import { MANIFEST_FILE, type ManifestFile } from "../db/snapshot-manifest.ts";
import type { SnapshotRow } from "../db/store.ts";
import { builder, legacy, rateLimited } from "./builder.ts";

/** A file as GraphQL, REST and MCP list it: the manifest's entry and where to get it. */
interface FileRow extends Partial<ManifestFile> {
  name: string;
  url: string;
}

const SnapshotColumn = builder.objectRef<ManifestFile["columns"][number]>("SnapshotFileColumn").implement({
  description: "A column of a Parquet file: its name, type (DuckDB's SQL name) and whether it is never null.",
  fields: (t) => ({
    name: t.exposeString("name", { ...legacy("name") }),
    type: t.exposeString("type", {
      description:
        "BIGINT, DOUBLE, VARCHAR, DATE, TIMESTAMP, TIMESTAMPTZ, a list (T[]), STRUCT(…) or MAP(…), as DuckDB names it.",
      ...legacy("type"),
    }),
    required: t.exposeBoolean("required", { description: "Never null.", ...legacy("required") }),
  }),
});

const SnapshotFile = builder.objectRef<FileRow>("SnapshotFile").implement({
  description:
    "A file of a snapshot for data teams (docs/parquet.md): a Parquet file of a record kind, or the manifest. GET its url with the API key, whole or by byte ranges.",
  fields: (t) => ({
    name: t.exposeString("name", {
      description: "domains.parquet, apps.parquet, reviews.parquet, changes.parquet or manifest.json.",
      ...legacy("name"),
    }),
    url: t.exposeString("url", {
      description: "Where to GET it (Range requests welcome).",
      ...legacy("url"),
    }),
    rows: t.exposeInt("rows", {
      nullable: true,
      description: "Its rows (null for the manifest).",
      ...legacy("rows"),
    }),
    bytes: t.exposeFloat("bytes", {
      nullable: true,
      description: "Its size in bytes (null for the manifest): a Float, since a file may pass 2 GiB.",
      ...legacy("bytes"),
    }),
    sha256: t.exposeString("sha256", {
      nullable: true,
      description: "Its SHA-256, hex: also its ETag (null for the manifest).",
      ...legacy("sha256"),
    }),
    columns: t.field({
      type: [SnapshotColumn],
      nullable: true,
      description: "Its columns, in order (null for the manifest).",
      ...legacy("columns"),
      resolve: (f) => f.columns ?? null,
    }),
  }),
});

export const Snapshot = builder.objectRef<SnapshotRow>("Snapshot").implement({
  description: "A complete, immutable version of the dataset. Cursors and caches are tied to its version.",
  fields: (t) => ({
    version: t.exposeInt("version", { ...legacy("version") }),
    loadedAt: t.field({
      type: "DateTime",
      ...legacy("loaded_at"),
      resolve: (s) => s.finishedAt ?? s.startedAt,
    }),
    source: t.exposeString("source"),
    apps: t.exposeInt("apps", { description: "Number of Apps", ...legacy("apps") }),
    domains: t.exposeInt("domains", { description: "Number of Domains", ...legacy("domains") }),
    reviews: t.exposeInt("reviews", { description: "Number of App reviews", ...legacy("reviews") }),
    schemaVersion: t.string({
      nullable: true,
      description:
        "The files' schema version: it changes when a column of any file does. Null for a snapshot loaded before files were written.",
      ...legacy("schema_version"),
      resolve: async (s, _args, ctx) => (await ctx.files?.manifest(s.version))?.schema_version ?? null,
    }),
    files: t.field({
      type: [SnapshotFile],
      description:
        "Its files for data teams: a Parquet file per record kind and the manifest (none for a snapshot loaded before files were written).",
      ...legacy("files"),
      resolve: async (s, _args, ctx) => {
        const manifest = await ctx.files?.manifest(s.version);
        if (!manifest) return [];
        const files = ctx.files;
        if (!files) return [];
        const base = ctx.baseUrl?.() ?? "";
        const url = (name: string) => `${base}${files.path(s.version, name)}`;
        return [
          ...manifest.files.map((f) => ({ ...f, url: url(f.name) })),
          { name: MANIFEST_FILE, url: url(MANIFEST_FILE) },
        ];
      },
    }),
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

builder.queryField("snapshots", (t) =>
  t.withAuth({ client: true }).field({
    type: [Snapshot],
    description:
      "The snapshots the gateways keep, newest first, with their files for data teams (GET /snapshots). A snapshot's files go when it is pruned.",
    ...rateLimited("snapshotFiles"),
    complexity: { field: 1, multiplier: 10 },
    resolve: async (_root, _args, ctx) => (ctx.files ? ctx.files.list() : []),
  }),
);
