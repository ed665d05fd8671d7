/**
 * A snapshot's manifest (docs/parquet.md): its version, the files' schema version, and each
 * file's name, rows, bytes, SHA-256 and columns. Written by the load (src/snapshot-files.ts),
 * kept in the copy (src/db/snapshot-files.ts), listed and served by every gateway (src/files/).
 */
export interface ManifestFile {
  name: string;
  rows: number;
  bytes: number;
  sha256: string;
  columns: { name: string; type: string; required: boolean }[];
}

export interface Manifest {
  version: number;
  /** Changes when a column of any file does (columns.ts). */
  schema_version: string;
  files: ManifestFile[];
}

/** The manifest as a file of its own (GET /snapshots/{version}/manifest.json). */
export const MANIFEST_FILE = "manifest.json";
