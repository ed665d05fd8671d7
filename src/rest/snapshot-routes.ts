import type { Input } from "./inputs.ts";
import type { Route } from "./route.ts";

/**
 * Beyond the legacy paths (docs/parquet.md): the kept snapshots with their files for data teams,
 * and each file, whole or by byte ranges (src/files/routes.ts answers it whole).
 */

/** The file the path names: `{version}/{file}`, read by the file route itself (src/files/routes.ts). */
const SNAPSHOT_FILE_PATH: Input = {
  fromPath: true,
  options: [],
  variables: {},
  read: () => ({}),
};

const listSnapshots: Route = {
  methods: { GET: "listSnapshots" },
  path: "/snapshots",
  summary:
    "The kept snapshots, newest first, each with its files for data teams (Parquet per record kind, and the manifest): rows, bytes, SHA-256, columns and URL",
  endpoint: "snapshotFiles",
  type: "Snapshot",
  inputs: [],
  query: [["snapshots", []]],
  envelope: { snapshots: { records: "" } },
};

const downloadSnapshotFile: Route = {
  methods: { GET: "downloadSnapshotFile" },
  path: "/snapshots/{version}/{file}",
  summary:
    "A kept snapshot's file (domains.parquet, apps.parquet, reviews.parquet, changes.parquet, manifest.json), whole or by one byte range (Range, If-Range; ETag is the SHA-256, If-None-Match answers 304)",
  endpoint: "snapshotFiles",
  type: "Snapshot",
  file: true,
  inputs: [SNAPSHOT_FILE_PATH],
  envelope: {},
  whole: { kind: "stream", endpoint: "snapshotFiles" },
};

export const SNAPSHOT_ROUTES: readonly Route[] = [listSnapshots, downloadSnapshotFile];
