import { usePrometheus } from "@graphql-yoga/plugin-prometheus";
import type { Plugin } from "graphql-yoga";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { ReplicaState } from "../db/replicas.ts";
import type { Snapshots } from "../db/snapshots.ts";
import type { SnapshotRow } from "../db/store.ts";
import type { AccessLine } from "./access-log.ts";

/**
 * The gateway's Prometheus metrics (prom-client), served by serveMetrics (src/ops/metrics-server.ts)
 * on a port of their own or behind a token, never openly on the API's port:
 * - `storegraph_http_request_duration_seconds{route,method,status}`: every request, REST routes
 *   by their id (listDomains, exportDomains...), GraphQL as `graphql`; its `_count` counts them.
 * - GraphQL's phases, by operation (`graphql_envelop_phase_parse|validate|context|execute`,
 *   `graphql_envelop_request_duration`, `graphql_envelop_error_result`): the yoga plugin's, for
 *   GraphQL requests and for the operation each REST request runs.
 * - `storegraph_rate_limit_refusals_total{plan,endpoint}`.
 * - `storegraph_webhook_attempts_total{outcome}`: succeeded, retried (failed, due again), failed (its last).
 * - `storegraph_db_connections{state}`: the served snapshot's reads (open, idle, waiting).
 * - `storegraph_snapshot_version`, `storegraph_snapshot_age_seconds`; `storegraph_loads_running`.
 * - `storegraph_export_jobs{status}` (cursor=all jobs of every gateway, from the shared table),
 *   `storegraph_exports_running{kind}`, `storegraph_export_domains_total{kind}` and
 *   `storegraph_export_bytes_total{kind}` (kind: export, job).
 * - Node's own (process CPU, memory, event-loop delay, GC), prefixed `storegraph_`.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly http = new Histogram({
    name: "storegraph_http_request_duration_seconds",
    help: "HTTP requests by route, method and status: seconds from the request to the end of its response.",
    labelNames: ["route", "method", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: "storegraph_rate_limit_refusals_total",
    help: "Requests refused for a spent budget (429), by the key's plan and the endpoint whose budget it was.",
    labelNames: ["plan", "endpoint"] as const,
    registers: [this.registry],
  });
  private readonly webhookAttempts = new Counter({
    name: "storegraph_webhook_attempts_total",
    help: "Webhook delivery attempts by outcome: succeeded, retried (failed, due again later), failed (the delivery's last attempt).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  private readonly exportsRunning = new Gauge({
    name: "storegraph_exports_running",
    help: "Exports (kind=export) and cursor=all jobs (kind=job) this gateway is writing now.",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  private readonly exportDomains = new Counter({
    name: "storegraph_export_domains_total",
    help: "Domains written by exports and cursor=all jobs.",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  private readonly exportBytes = new Counter({
    name: "storegraph_export_bytes_total",
    help: "Bytes of JSON written by exports and cursor=all jobs (before any compression).",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  private readonly writerFallbacks = new Counter({
    name: "storegraph_writer_fallbacks_total",
    help: "Batches of Domains (exports, jobs) and REST answers the generated row writer left to the resolver path (src/rest/row-writer.ts), by path.",
    labelNames: ["path"] as const,
    registers: [this.registry],
  });

  private readonly renderedDomains = new Counter({
    name: "storegraph_rendered_domains_total",
    help: "Domains answered with the default fields, by where their text came from: the snapshot's rendered records (fresh), or the row writer because the Domain's rendered piece was lost or another Domain's (broken) (src/db/rendered.ts).",
    labelNames: ["path", "state"] as const,
    registers: [this.registry],
  });

  constructor(snapshots: Snapshots) {
    const registers = [this.registry];
    // The loads under way, read once per scrape for the two gauges that report them.
    let listed: { at: number; loading: Promise<SnapshotRow[]> } | null = null;
    const loads = () => {
      if (!listed || Date.now() - listed.at > 1000) {
        const loading = snapshots.store
          .list()
          .then((rows) => rows.filter((r) => r.status === "loading"))
          .catch(() => []);
        listed = { at: Date.now(), loading };
      }
      return listed.loading;
    };
    collectDefaultMetrics({ register: this.registry, prefix: "storegraph_" });
    new Gauge({
      name: "storegraph_db_connections",
      help: "Connections of the served snapshot's reads: open (total), idle, and requests waiting for one.",
      labelNames: ["state"] as const,
      registers,
      async collect() {
        const served = await snapshots.current().catch(() => null);
        const c = served?.sql.connections() ?? { total: 0, idle: 0, waiting: 0 };
        this.set({ state: "total" }, c.total);
        this.set({ state: "idle" }, c.idle);
        this.set({ state: "waiting" }, c.waiting);
      },
    });
    new Gauge({
      name: "storegraph_snapshot_version",
      help: "The version of the snapshot this gateway serves (0 before the first load).",
      registers,
      async collect() {
        this.set((await snapshots.current().catch(() => null))?.snapshot.version ?? 0);
      },
    });
    new Gauge({
      name: "storegraph_read_source",
      help: "Where this gateway reads the served snapshot: 1 for the source (primary, or a replica's host:port) now used.",
      labelNames: ["source", "role"] as const,
      registers,
      async collect() {
        const served = await snapshots.current().catch(() => null);
        this.reset();
        if (served) this.set({ source: served.source.name, role: served.source.role }, 1);
      },
    });
    const replicaGauge = (name: string, help: string, value: (r: ReplicaState) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ["replica"] as const,
        registers,
        collect() {
          this.reset();
          for (const r of snapshots.replicas?.report() ?? []) {
            const v = value(r);
            if (v !== null) this.set({ replica: r.source.name }, v);
          }
        },
      });
    replicaGauge(
      "storegraph_replica_usable",
      "1 when the replica answers, is a standby, has a snapshot, and lags within REPLICA_MAX_LAG_MS; 0 when it is passed over.",
      (r) => (r.up && !r.reason ? 1 : 0),
    );
    replicaGauge(
      "storegraph_replica_lag_seconds",
      "How far the replica's replay is behind the primary's WAL as this gateway last saw it.",
      (r) => (r.lagMs === null ? null : r.lagMs / 1000),
    );
    replicaGauge("storegraph_replica_lag_bytes", "The same lag in bytes of WAL.", (r) => r.lagBytes);
    new Gauge({
      name: "storegraph_snapshot_age_seconds",
      help: "Seconds since the served snapshot was published (its load finished).",
      registers,
      async collect() {
        const s = (await snapshots.current().catch(() => null))?.snapshot;
        const at = s?.finishedAt ?? s?.startedAt;
        if (at) this.set((Date.now() - at.getTime()) / 1000);
      },
    });
    new Gauge({
      name: "storegraph_loads_running",
      help: "Loads of a new snapshot under way (0 or 1: one load at a time), with the seconds since the running one began in storegraph_load_running_seconds.",
      registers,
      async collect() {
        this.set((await loads()).length);
      },
    });
    new Gauge({
      name: "storegraph_load_running_seconds",
      help: "Seconds since the running load began (0 when none runs).",
      registers,
      async collect() {
        const [loading] = await loads();
        this.set(loading ? (Date.now() - loading.startedAt.getTime()) / 1000 : 0);
      },
    });
    new Gauge({
      name: "storegraph_export_jobs",
      help: "cursor=all jobs of every gateway, by status (running, paused: handed over, done, failed), from the shared job table.",
      labelNames: ["status"] as const,
      registers,
      async collect() {
        const rows = await snapshots.store
          .metaQuery("SELECT status, COUNT(*) AS n FROM {meta}.export_job GROUP BY status")
          .catch(() => []);
        this.reset();
        for (const status of ["running", "paused", "done", "failed"]) this.set({ status }, 0);
        for (const r of rows) this.set({ status: String(r.status) }, Number(r.n));
      },
    });
  }

  /** The yoga/envelop plugin's GraphQL metrics, into this registry (served by serveMetrics). */
  plugins(): Plugin[] {
    return [
      usePrometheus({
        registry: this.registry,
        endpoint: false,
        metrics: {
          // storegraph_http_request_duration_seconds counts every request, GraphQL or not.
          graphql_yoga_http_duration: false,
          // A summary's quantiles cost CPU on every request; the histograms give them in PromQL.
          graphql_envelop_request_time_summary: false,
          // Walks every document for deprecated fields on each request; none is deprecated.
          graphql_envelop_deprecated_field: false,
        },
      }),
    ];
  }

  /** A request is over (src/ops/access-log.ts). */
  request(line: AccessLine & { route: string }): void {
    this.http.observe(
      { route: line.route, method: line.method, status: String(line.status) },
      line.ms / 1000,
    );
  }

  /**
   * Domains of a REST answer with the default fields: from rendered records (fresh), or the
   * writer's as a Domain's was lost or another's (broken).
   */
  rendered(path: "rest", state: "fresh" | "broken", count: number): void {
    this.renderedDomains.inc({ path, state }, count);
  }

  /** A REST answer whose records the row writer left to the resolver path. */
  writerFallback(path: "rest"): void {
    this.writerFallbacks.inc({ path });
  }

  refused(plan: string, endpoint: string): void {
    this.refusals.inc({ plan, endpoint });
  }

  webhookAttempt(outcome: "succeeded" | "retried" | "failed"): void {
    this.webhookAttempts.inc({ outcome });
  }

  /** An export (or job) began; returns what it calls per page, and once at its end. */
  export(kind: "export" | "job"): {
    page(count: number, bytes: number, fallbacks?: number, rendered?: "fresh", broken?: number): void;
    end(): void;
  } {
    this.exportsRunning.inc({ kind });
    let ended = false;
    return {
      page: (count, bytes, fallbacks = 0, rendered, broken = 0) => {
        this.exportDomains.inc({ kind }, count);
        this.exportBytes.inc({ kind }, bytes);
        if (rendered && count > broken)
          this.renderedDomains.inc({ path: kind, state: rendered }, count - broken);
        if (broken) this.renderedDomains.inc({ path: kind, state: "broken" }, broken);
        if (fallbacks) this.writerFallbacks.inc({ path: kind }, fallbacks);
      },
      end: () => {
        if (ended) return;
        ended = true;
        this.exportsRunning.dec({ kind });
      },
    };
  }
}
