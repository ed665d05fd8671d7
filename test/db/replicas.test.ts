import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/keys.ts";
import { loadConfig } from "../../src/config.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { openSnapshotStore } from "../../src/db/open-store.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { testLoadSteps } from "../support/api.ts";
import type { TestDatabase } from "../support/databases.ts";
import { Cluster, canRunClusters } from "../support/pg-cluster.ts";
import { freePort, type Server, startServer } from "../support/server.ts";

/**
 * The real thing on one machine: a PostgreSQL primary and a hot standby of the test's own
 * (src/db/replicas.ts), and two built gateways (dist/server.js), each with a data directory of
 * its own, reading from the standby. The standby applies each commit APPLY_DELAY_MS after the
 * primary (recovery_min_apply_delay), so it lags on purpose: gateway A allows that lag, gateway B
 * (REPLICA_MAX_LAG_MS=1000) does not while a load runs.
 */
const APPLY_DELAY_MS = 4000;
const V1 = { domains: 240, apps: 30, seed: 1 };
const V2 = { domains: 310, apps: 30, seed: 2 };
const BOUND_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(what: string, attempt: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!(await attempt())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${BOUND_MS} ms`);
    await sleep(100);
  }
}

interface Gateway {
  name: string;
  port: number;
  server: Server;
  dataDir: string;
}

interface Ready {
  status: string;
  snapshot?: { version: number };
  read_source?: { name: string; role: "primary" | "replica" };
  replicas?: { name: string; used: boolean; up: boolean; lag_ms: number | null; reason?: string }[];
}

/** One read's outcome, for the checks after a run of reads. */
interface Read {
  gateway: string;
  loop: number;
  at: number;
  status: number;
  version?: number;
  total?: number;
  error?: string;
}

const QUERY = "{ snapshot { version domains } domains(first: 3) { totalCount edges { node { name } } } }";

describe.skipIf(!canRunClusters)(
  "PostgreSQL read replicas: a primary, a hot standby and two gateways",
  () => {
    let primary: Cluster;
    let standby: Cluster;
    let store: SnapshotStore;
    let key = "";
    const dirs: string[] = [];
    const gateways: Gateway[] = [];
    const counts = new Map<number, number>();

    const dataset = async (spec: typeof V1) => {
      const dir = mkdtempSync(join(tmpdir(), "storegraph-replica-data-"));
      dirs.push(dir);
      await generateDataset({ ...spec, outDir: dir });
      return dir;
    };

    async function startGateway(name: string, env: Record<string, string>): Promise<Gateway> {
      const dataDir = mkdtempSync(join(tmpdir(), `storegraph-gateway-${name}-`));
      dirs.push(dataDir);
      const port = await freePort();
      const db = {
        config: { dataDir, database: { kind: "postgresql", url: primary.url("storegraph") } },
      } as unknown as TestDatabase;
      const server = startServer(
        db,
        port,
        {
          DATABASE_REPLICA_URLS: standby.url("storegraph"),
          REPLICA_CHECK_MS: "200",
          LOG_LEVEL: "info",
          ...env,
        },
        ["--no-rate-limits"],
      );
      const gateway = { name, port, server, dataDir };
      gateways.push(gateway);
      await server.waitFor(/storegraph is listening/, BOUND_MS);
      return gateway;
    }

    const ready = async (g: Gateway): Promise<Ready> =>
      (await fetch(`http://127.0.0.1:${g.port}/readyz`)).json() as Promise<Ready>;

    async function read(g: Gateway, loop: number): Promise<Read> {
      const at = Date.now();
      try {
        const res = await fetch(`http://127.0.0.1:${g.port}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
          body: JSON.stringify({ query: QUERY }),
        });
        const body = (await res.json()) as {
          data?: { snapshot: { version: number; domains: number }; domains: { totalCount: number } };
          errors?: { message: string }[];
        };
        if (!body.data || body.errors)
          return { gateway: g.name, loop, at, status: res.status, error: JSON.stringify(body) };
        const { snapshot, domains } = body.data;
        if (snapshot.domains !== domains.totalCount) {
          return {
            gateway: g.name,
            loop,
            at,
            status: res.status,
            error: `mixed: ${JSON.stringify(body.data)}`,
          };
        }
        return {
          gateway: g.name,
          loop,
          at,
          status: res.status,
          version: snapshot.version,
          total: domains.totalCount,
        };
      } catch (e) {
        return { gateway: g.name, loop, at, status: 0, error: (e as Error).message };
      }
    }

    /** Reads on every gateway, `loops` at a time each, until stop() resolves with all of them. */
    function readLoad(loops = 3) {
      let running = true;
      const reads: Read[] = [];
      const sources: { gateway: string; at: number; source: string; version?: number }[] = [];
      const all = gateways.flatMap((g) => [
        ...Array.from({ length: loops }, async (_, loop) => {
          while (running) reads.push(await read(g, loop));
        }),
        (async () => {
          while (running) {
            const r = await ready(g).catch(() => null);
            sources.push({
              gateway: g.name,
              at: Date.now(),
              source: r?.read_source?.role ?? "none",
              version: r?.snapshot?.version,
            });
            await sleep(50);
          }
        })(),
      ]);
      return {
        reads,
        sources,
        stop: async () => {
          running = false;
          await Promise.all(all);
          return { reads, sources };
        },
      };
    }

    const failures = (reads: Read[]) => reads.filter((r) => r.error !== undefined || r.status !== 200);

    beforeAll(async () => {
      primary = await Cluster.primary();
      standby = await Cluster.standby(primary, [`recovery_min_apply_delay=${APPLY_DELAY_MS}ms`]);
      const admin = new pg.Client({ connectionString: primary.url() });
      await admin.connect();
      await admin.query("CREATE DATABASE storegraph");
      await admin.end();
      const config = loadConfig({ DATABASE_URL: primary.url("storegraph"), LOG_LEVEL: "silent" });
      store = await openSnapshotStore(config);
      const loaded = await loadSnapshot(store, await dataset(V1), {
        ...testLoadSteps(config, store),
        keep: 1,
      });
      counts.set(loaded.version, V1.domains);
      ({ key } = await new ApiKeys(store).create("replicas", "enterprise"));
      await startGateway("A", { REPLICA_MAX_LAG_MS: "30000" });
      await startGateway("B", { REPLICA_MAX_LAG_MS: "1000" });
      // Both read from the standby once it has replayed the first snapshot.
      for (const g of gateways) {
        await eventually(`gateway ${g.name} reads from the replica`, async () => {
          const r = await ready(g);
          return r.read_source?.role === "replica" && r.snapshot?.version === loaded.version;
        });
      }
    }, 180_000);

    afterAll(async () => {
      for (const g of gateways) await g.server.stop();
      await store?.close();
      await standby?.destroy();
      await primary?.destroy();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it("serves a snapshot loaded under read load with no failed read, no mixed versions, and the lag bound kept", async () => {
      const v2 = await dataset(V2);
      const load = readLoad();
      await sleep(500);
      const loaded = await loadSnapshot(store, v2, {
        ...testLoadSteps(loadConfig({ DATABASE_URL: primary.url("storegraph"), LOG_LEVEL: "silent" }), store),
        keep: 1,
      });
      const published = Date.now();
      counts.set(loaded.version, V2.domains);
      // Both gateways end on the new snapshot, read from the replica again.
      for (const g of gateways) {
        await eventually(`gateway ${g.name} serves snapshot ${loaded.version} from the replica`, async () => {
          const r = await ready(g);
          return r.read_source?.role === "replica" && r.snapshot?.version === loaded.version;
        });
      }
      await sleep(300);
      const { reads, sources } = await load.stop();
      const log = () => gateways.map((g) => `${g.name}:\n${g.server.output()}`).join("\n");

      expect(failures(reads), log()).toEqual([]);
      // Each read saw one snapshot whole: its count of Domains is that snapshot's.
      for (const r of reads) expect(r.total).toBe(counts.get(r.version ?? -1));
      // Each loop's reads never went back to an older snapshot.
      for (const g of gateways) {
        for (let loop = 0; loop < 3; loop++) {
          const versions = reads
            .filter((r) => r.gateway === g.name && r.loop === loop)
            .map((r) => r.version ?? 0);
          expect(versions).toEqual([...versions].sort((a, b) => a - b));
          expect(versions.at(-1)).toBe(loaded.version);
        }
      }
      const first = (g: string) =>
        reads.find((r) => r.gateway === g && r.version === loaded.version)?.at ?? 0;
      // A allows the standby's lag: it never left the replica, and served the new snapshot only
      // once the replica had replayed it, at least the apply delay after it was published.
      expect(sources.filter((s) => s.gateway === "A").map((s) => s.source)).not.toContain("primary");
      expect(first("A") - published).toBeGreaterThan(APPLY_DELAY_MS / 2);
      // B allows 1 s: while the standby lagged behind the load it read from the primary, which
      // has the new snapshot at once, and came back to the replica after.
      const b = sources.filter((s) => s.gateway === "B");
      expect(b.map((s) => s.source)).toContain("primary");
      expect(b.at(-1)?.source).toBe("replica");
      expect(first("B")).toBeLessThan(first("A"));
    }, 120_000);

    it("a cursor=all job started on one gateway is polled to completion on the other", async () => {
      const [a, b] = gateways;
      const target = (g: Gateway) =>
        `http://127.0.0.1:${g.port}/json/api/v1/all/domain?cursor=all&fields=name`;
      const headers = { authorization: `Bearer ${key}` };
      const started = await fetch(target(a), { headers });
      expect(started.status).toBe(202);
      await started.body?.cancel();
      let res: Response;
      const deadline = Date.now() + BOUND_MS;
      for (;;) {
        res = await fetch(target(b), { headers });
        if (res.status !== 202) break;
        await res.body?.cancel();
        if (Date.now() > deadline) throw new Error("the job was still running");
        await sleep(100);
      }
      expect(res.status).toBe(200);
      const body = (await res.json()) as { domains: { name: string }[] };
      expect(body.domains).toHaveLength(V2.domains);
      expect(new Set(body.domains.map((d) => d.name)).size).toBe(V2.domains);
      // Its result lives in the database: B's own data directory holds no file of it.
      const { readdirSync, existsSync } = await import("node:fs");
      for (const g of gateways) {
        const exports = join(g.dataDir, "exports");
        expect(existsSync(exports) ? readdirSync(exports) : []).toEqual([]);
      }
    }, 60_000);

    it("stopping the standby sends reads to the primary without an error, and its restart brings it back", async () => {
      const load = readLoad();
      await sleep(500);
      await standby.stop();
      for (const g of gateways) {
        await eventually(`gateway ${g.name} reads from the primary`, async () => {
          const r = await ready(g);
          return r.read_source?.role === "primary" && r.replicas?.[0]?.up === false;
        });
      }
      await sleep(1000);
      await standby.start();
      for (const g of gateways) {
        await eventually(`gateway ${g.name} reads from the replica again`, async () => {
          const r = await ready(g);
          return r.read_source?.role === "replica" && r.replicas?.[0]?.used === true;
        });
      }
      await sleep(300);
      const { reads } = await load.stop();
      const log = () => gateways.map((g) => `${g.name}:\n${g.server.output()}`).join("\n");
      expect(failures(reads), log()).toEqual([]);
      expect(reads.length).toBeGreaterThan(20);
      // The gateways said so in their logs.
      for (const g of gateways) {
        expect(g.server.output()).toMatch(/replica not used/);
        expect(g.server.output()).toMatch(/replica used/);
      }
    }, 120_000);
  },
);
