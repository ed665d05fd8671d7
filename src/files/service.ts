import { createHash } from "node:crypto";
import type { Config } from "../config.ts";
import { openSnapshotReader, type SqlReader } from "../db/reader.ts";
import { readFileRange, readManifest } from "../db/snapshot-files.ts";
import { MANIFEST_FILE, type Manifest, type SnapshotFiles } from "../db/snapshot-manifest.ts";
import type { SnapshotRow, SnapshotStore } from "../db/store.ts";

/**
 * The snapshots a gateway keeps and their files for data teams (docs/parquet.md): what GraphQL's
 * `snapshots`, GET /snapshots and the MCP tool list, and what GET /snapshots/{version}/{file}
 * sends. The files are in each snapshot's copy (src/db/snapshot-files.ts), so any gateway of a
 * fleet serves any of them; a copy's manifest is read once (a copy never changes), and a reader of
 * each kept copy stays open while it is kept.
 */

/** A reader of a kept copy, while reads of its files are under way and a while after. */
interface Lease {
  reader: SqlReader;
  active: number;
  idle: NodeJS.Timeout | null;
}

/** How long a copy's reader stays open after its last read (a remote query reads in bursts). */
const IDLE_MS = 30_000;

/** `base`: the REST API's path (src/rest/routes.ts, REST_BASE). */
export function snapshotFiles(
  config: Pick<Config, "database" | "timeouts">,
  store: SnapshotStore,
  base: string,
): SnapshotFiles {
  /** Each kept copy's manifest, read once (a copy never changes). */
  const manifests = new Map<number, Promise<Manifest | null>>();
  const leases = new Map<number, Lease>();
  let closed = false;

  const retire = (version: number, lease: Lease) => {
    if (leases.get(version) === lease) leases.delete(version);
    if (lease.idle) clearTimeout(lease.idle);
    void lease.reader.close().catch(() => {});
  };
  const acquire = (row: SnapshotRow): Lease => {
    if (closed) throw new Error("the snapshot files are closed");
    let lease = leases.get(row.version);
    if (!lease) {
      lease = { reader: openSnapshotReader(config, row, { poolSize: 2 }), active: 0, idle: null };
      leases.set(row.version, lease);
    }
    lease.active++;
    if (lease.idle) clearTimeout(lease.idle);
    lease.idle = null;
    return lease;
  };
  const release = (version: number, lease: Lease) => {
    lease.active--;
    if (lease.active > 0) return;
    if (leases.get(version) !== lease) return retire(version, lease);
    lease.idle = setTimeout(() => retire(version, lease), IDLE_MS);
    lease.idle.unref();
  };
  const manifestOfRow = (row: SnapshotRow): Promise<Manifest | null> => {
    let m = manifests.get(row.version);
    if (!m) {
      m = (async () => {
        const lease = acquire(row);
        try {
          return await readManifest(lease.reader);
        } finally {
          release(row.version, lease);
        }
      })();
      manifests.set(row.version, m);
      m.catch(() => manifests.delete(row.version));
    }
    return m;
  };
  /** The kept rows; what is held of copies no longer kept goes (a reader once its reads end). */
  const kept = async (): Promise<SnapshotRow[]> => {
    const rows = (await store.list())
      .filter((r) => r.status === "ready")
      .sort((a, b) => b.version - a.version);
    const versions = new Set(rows.map((r) => r.version));
    for (const version of manifests.keys()) if (!versions.has(version)) manifests.delete(version);
    for (const [version, lease] of leases)
      if (!versions.has(version)) {
        leases.delete(version);
        if (lease.active === 0) retire(version, lease);
      }
    return rows;
  };
  return {
    list: kept,
    async manifest(version) {
      const row = (await kept()).find((r) => r.version === version);
      return row ? manifestOfRow(row) : null;
    },
    path: (version, name) => `${base}/snapshots/${version}/${name}`,
    async file(version, name) {
      const rows = await kept();
      const row = rows.find((r) => r.version === version);
      if (!row) return { missing: "version", versions: rows.map((r) => r.version) };
      const manifest = await manifestOfRow(row);
      const files = manifest?.files ?? [];
      if (name === MANIFEST_FILE && manifest) {
        const text = Buffer.from(`${JSON.stringify(manifestOf(row, manifest), null, 2)}\n`);
        return {
          found: {
            version,
            name,
            bytes: text.byteLength,
            sha256: createHash("sha256").update(text).digest("hex"),
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
          async *read(start, end) {
            const lease = acquire(row);
            try {
              yield* readFileRange(lease.reader, name, start, end);
            } finally {
              release(version, lease);
            }
          },
        },
      };
    },
    async close() {
      closed = true;
      const all = [...leases];
      leases.clear();
      manifests.clear();
      for (const [version, lease] of all) retire(version, lease);
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
