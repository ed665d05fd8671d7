import type { Config } from "../config.ts";
import { openSnapshotReader, type SqlReader } from "../db/reader.ts";
import { readFileRange, readManifest } from "../db/snapshot-files.ts";
import type { SnapshotRow, SnapshotStore } from "../db/store.ts";
import { MANIFEST_FILE, type Manifest, type ManifestFile } from "../parquet/manifest.ts";

/**
 * The snapshots a gateway keeps and their files for data teams (docs/parquet.md): what GraphQL's
 * `snapshots`, GET /snapshots and the MCP tool list, and what GET /snapshots/{version}/{file}
 * sends. The files are in each snapshot's copy (src/db/snapshot-files.ts), so any gateway of a
 * fleet serves any of them; a copy's manifest is read once (a copy never changes), and a reader of
 * each kept copy stays open while it is kept.
 */

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

interface Open {
  reader: SqlReader;
  manifest: Manifest | null;
}

/** `base`: the REST API's path (src/rest/routes.ts, REST_BASE). */
export function snapshotFiles(
  config: Pick<Config, "database" | "timeouts">,
  store: SnapshotStore,
  base: string,
): SnapshotFiles {
  const open = new Map<number, Promise<Open>>();
  const openOf = (row: SnapshotRow): Promise<Open> => {
    let o = open.get(row.version);
    if (!o) {
      o = (async () => {
        const reader = openSnapshotReader(config, row, { poolSize: 2 });
        try {
          return { reader, manifest: await readManifest(reader) };
        } catch (e) {
          await reader.close().catch(() => {});
          throw e;
        }
      })();
      open.set(row.version, o);
      o.catch(() => open.delete(row.version));
    }
    return o;
  };
  /** The kept rows; readers of copies no longer kept are closed. */
  const kept = async (): Promise<SnapshotRow[]> => {
    const rows = (await store.list())
      .filter((r) => r.status === "ready")
      .sort((a, b) => b.version - a.version);
    const versions = new Set(rows.map((r) => r.version));
    for (const [version, o] of open)
      if (!versions.has(version)) {
        open.delete(version);
        void o.then((x) => x.reader.close()).catch(() => {});
      }
    return rows;
  };
  return {
    list: kept,
    async manifest(version) {
      const row = (await kept()).find((r) => r.version === version);
      return row ? (await openOf(row)).manifest : null;
    },
    path: (version, name) => `${base}/snapshots/${version}/${name}`,
    async file(version, name) {
      const rows = await kept();
      const row = rows.find((r) => r.version === version);
      if (!row) return { missing: "version", versions: rows.map((r) => r.version) };
      const { reader, manifest } = await openOf(row);
      const files = manifest?.files ?? [];
      if (name === MANIFEST_FILE && manifest) {
        const text = Buffer.from(`${JSON.stringify(manifestOf(row, manifest), null, 2)}\n`);
        return {
          found: {
            version,
            name,
            bytes: text.byteLength,
            sha256: await sha256(text),
            contentType: "application/json",
            async *read(start, end) {
              yield text.subarray(start, end);
            },
          },
        };
      }
      const file = files.find((f) => f.name === name);
      if (!file)
        return { missing: "file", files: manifest ? [MANIFEST_FILE, ...files.map((f) => f.name)] : [] };
      return {
        found: {
          version,
          name,
          bytes: file.bytes,
          sha256: file.sha256,
          contentType: "application/vnd.apache.parquet",
          read: (start, end) => readFileRange(reader, name, start, end),
        },
      };
    },
    async close() {
      const all = [...open.values()];
      open.clear();
      await Promise.all(all.map((o) => o.then((x) => x.reader.close()).catch(() => {})));
    },
  };
}

/** The manifest as served: the stored one with the snapshot's publish time. */
export function manifestOf(
  row: Pick<SnapshotRow, "finishedAt" | "startedAt">,
  manifest: Manifest,
): Manifest & { loaded_at: string } {
  const { version, schema_version, files } = manifest;
  return { version, loaded_at: (row.finishedAt ?? row.startedAt).toISOString(), schema_version, files };
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const { createHash } = await import("node:crypto");
  return createHash("sha256").update(bytes).digest("hex");
}

export type { ManifestFile };
