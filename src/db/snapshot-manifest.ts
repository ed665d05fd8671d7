import type { SnapshotRow } from "./store.ts";

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

/** A file to send: its size and SHA-256, and its bytes by range. */
export interface SnapshotFile {
  version: number;
  name: string;
  bytes: number;
  sha256: string;
  contentType: string;
  read(start: number, end: number): AsyncIterable<Uint8Array>;
}

export type FileLookup =
  | { found: SnapshotFile }
  | { missing: "version"; versions: number[] }
  | { missing: "file"; files: string[] };

export interface SnapshotFiles {
  /** The kept (ready) snapshots, newest first. */
  list(): Promise<SnapshotRow[]>;
  /** A kept snapshot's manifest; null for one without files, or not kept. */
  manifest(version: number): Promise<Manifest | null>;
  /** The path a file is sent at (GET /snapshots/{version}/{file}). */
  path(version: number, name: string): string;
  /** A file of a kept snapshot, or what is kept instead. */
  file(version: number, name: string): Promise<FileLookup>;
  close(): Promise<void>;
}
