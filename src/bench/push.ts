import { fork } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { PUBLISHED_CHANNEL } from "../db/pg-store.ts";
import { benchLoader } from "./loader.ts";
import { runMeasured } from "./measure.ts";
import { cpuMs } from "./peer.ts";
import type { PushResult } from "./report.ts";

/**
 * Pushed changes in `npm run bench` (issue 38), on a database of its own per kind, with a dataset of
 * its own (PUSH_DOMAINS Domains and weeks of ten times the usual churn, so that a load makes many
 * deliveries without the minutes a million-Domain load takes):
 * - **delivery**: DELIVERY_WEBHOOKS webhooks of the whole feed, a load, and the events a second that
 *   reach a receiver in this process, from the load's publication to the last event (making the
 *   deliveries included), with the largest request's events and the gateway's CPU a delivery;
 * - **kill**: KILL_WEBHOOKS webhooks (about 10,000 deliveries a load), the gateway killed with
 *   SIGKILL when a third of them came, and a second gateway that carries on (beside it on
 *   PostgreSQL; started after it on SQLite, whose one process delivers): every event must come,
 *   and a delivery twice only if it was in flight at the kill (at most WEBHOOK_CONCURRENCY);
 * - **streams**: STREAMS open `GET /changes/stream` connections to one gateway, a load of a week at
 *   the usual churn, and how long after its publication each stream's first change came, and its
 *   last (every change of the load), with the gateway's peak RSS.
 */
const PUSH_DOMAINS = 20_000;
const PUSH_APPS = 1_000;
const CHURN = "10";
const DELIVERY_WEBHOOKS = 10;
const KILL_WEBHOOKS = 72;
const STREAMS = 1_000;
/** Attempts a gateway makes at once (WEBHOOK_CONCURRENCY): the most deliveries a kill can leave in flight. */
const CONCURRENCY = 16;

interface Proc {
  child: { pid?: number; kill(signal?: NodeJS.Signals): boolean; once(e: "exit", f: () => void): unknown };
  url: string;
  rssMb(): number;
  stop(): Promise<void>;
}

export interface PushDeps {
  root: string;
  /** A gateway as npm start runs it (rate limits off), with the server flags `args`. */
  startServer: (env: NodeJS.ProcessEnv, args?: string[]) => Promise<Proc>;
  /** A fresh database of `kind` for the push bench: its environment. */
  databaseEnv: (kind: "sqlite" | "postgresql") => Promise<NodeJS.ProcessEnv>;
  pgUrl: string;
}

/** A webhook receiver in this process: every delivery, by webhook-id, with its events. */
class Receiver {
  /** Deliveries taken, by webhook-id: how many times each came. */
  readonly times = new Map<string, number>();
  /** "<webhook> <change id>" of every event taken. */
  readonly events = new Set<string>();
  eventCount = 0;
  largest = 0;
  lastAt = 0;
  url = "";
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const id = String(req.headers["webhook-id"]);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        data: { webhook: string; changes?: { id: string }[] };
      };
      this.times.set(id, (this.times.get(id) ?? 0) + 1);
      const changes = body.data.changes ?? [];
      this.largest = Math.max(this.largest, changes.length);
      for (const c of changes) {
        this.events.add(`${body.data.webhook} ${c.id}`);
        this.eventCount++;
      }
      this.lastAt = Date.now();
      res.writeHead(204).end();
    });
  });
  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }
  reset(): void {
    this.times.clear();
    this.events.clear();
    this.eventCount = 0;
    this.largest = 0;
  }
  async until(done: () => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
    return true;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

export async function pushBench(deps: PushDeps, kind: "sqlite" | "postgresql"): Promise<PushResult> {
  const weeks = await ensureWeeks(deps.root);
  const env: NodeJS.ProcessEnv = {
    ...(await deps.databaseEnv(kind)),
    WEBHOOK_TIMEOUT_MS: "2000",
    WEBHOOK_CONCURRENCY: String(CONCURRENCY),
  };
  const { loadEventCounts } = await import("../db/change-feed.ts");
  const { ApiKeys } = await import("../auth/keys.ts");
  const { store, load: loadDir } = await benchLoader(env);
  const receiver = await new Receiver().start();
  const procs: Proc[] = [];
  const gateway = async () => {
    // Without --demo: the gateways start on the empty database, and wait for the loads here.
    const p = await deps.startServer(env, ["--allow-private-webhook-targets"]);
    procs.push(p);
    return p;
  };
  // When a load commits: on PostgreSQL the publish's NOTIFY, heard here as a gateway hears it (the
  // registry's finished_at is the publish transaction's start, before its events are written); on
  // SQLite the registry's time, taken in its short publish transaction.
  const heard = new Map<number, number>();
  const listener = kind === "postgresql" ? new pg.Client({ connectionString: env.DATABASE_URL }) : null;
  if (listener) {
    await listener.connect();
    listener.on("notification", (n) => heard.set(Number(n.payload), Date.now()));
    await listener.query(`LISTEN ${PUBLISHED_CHANNEL}`);
  }
  /** Loads a week; when it was published (ms), and its events. */
  const load = async (dir: string) => {
    console.log(`push: loading ${dir} (${kind})`);
    const r = await loadDir(dir, { keep: 1, changesRetention: 52 });
    const served = await store.current();
    const { events, firstId, lastId } = await loadEventCounts(store, r.version);
    const published = heard.get(r.version) ?? served?.finishedAt?.getTime() ?? Date.now();
    return { published, events, firstId, lastId };
  };
  const keys = new ApiKeys(store);
  const makeWebhooks = async (base: string, n: number) => {
    let key = "";
    for (let i = 0; i < n; i++) {
      // 25 webhooks an account: a key of a new account every 25.
      if (i % 25 === 0) key = (await keys.create(`push bench ${i}`, "enterprise")).key;
      const res = await fetch(`${base}/json/api/v1/all/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ url: receiver.url }),
      });
      if (res.status !== 200) throw new Error(`POST /webhooks answered ${res.status}: ${await res.text()}`);
    }
  };
  try {
    await load(weeks[0] as string);
    // Delivery: one gateway, DELIVERY_WEBHOOKS webhooks of the whole feed.
    const first = await gateway();
    const base = first.url.replace("localhost", "127.0.0.1");
    await makeWebhooks(base, DELIVERY_WEBHOOKS);
    const cpuBefore = cpuMs(first.child.pid as number);
    const week1 = await load(weeks[1] as string);
    const expected1 = week1.events * DELIVERY_WEBHOOKS;
    const delivered = await receiver.until(() => receiver.events.size >= expected1, 300_000);
    const seconds = (receiver.lastAt - week1.published) / 1000;
    const delivery = {
      webhooks: DELIVERY_WEBHOOKS,
      events: receiver.events.size,
      expected: expected1,
      deliveries: receiver.times.size,
      largest: receiver.largest,
      seconds,
      eventsPerSecond: receiver.events.size / Math.max(0.001, seconds),
      cpuMsPerDelivery: (cpuMs(first.child.pid as number) - cpuBefore) / Math.max(1, receiver.times.size),
      complete: delivered,
    };
    console.log(`push: delivery ${JSON.stringify(delivery)}`);

    // Kill: KILL_WEBHOOKS webhooks in all, the first gateway killed a third of the way.
    await makeWebhooks(base, KILL_WEBHOOKS - DELIVERY_WEBHOOKS);
    receiver.reset();
    const second = kind === "postgresql" ? await gateway() : null;
    const week2 = await load(weeks[2] as string);
    const expected2 = week2.events * KILL_WEBHOOKS;
    const deliveries = Math.ceil(week2.events / 100) * KILL_WEBHOOKS;
    await receiver.until(() => receiver.times.size >= deliveries / 3, 300_000);
    const killedAt = receiver.times.size;
    first.child.kill("SIGKILL");
    await new Promise<void>((r) => first.child.once("exit", () => r()));
    const carrier = second ?? (await gateway());
    const started = Date.now();
    const complete = await receiver.until(() => receiver.events.size >= expected2, 600_000);
    // Deliveries that came twice: only those in flight at the kill may, attempted again when their
    // lease ended (which may be after every event came): counted once none is pending.
    const pending = async () =>
      Number(
        (
          await store.metaQuery(
            "SELECT count(*) AS n FROM {meta}.webhook_delivery WHERE next_attempt_at IS NOT NULL",
          )
        )[0]?.n ?? 0,
      );
    const settledBy = Date.now() + 120_000;
    while ((await pending()) > 0 && Date.now() < settledBy) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 500));
    const twice = [...receiver.times.values()].filter((n) => n > 1).length;
    const kill = {
      webhooks: KILL_WEBHOOKS,
      deliveries: receiver.times.size,
      events: receiver.events.size,
      expected: expected2,
      killedAfter: killedAt,
      lost: expected2 - receiver.events.size,
      duplicates: twice,
      inFlightBound: CONCURRENCY,
      carriedSeconds: (Date.now() - started) / 1000,
      complete,
    };
    console.log(`push: kill ${JSON.stringify(kill)}`);

    // Streams: STREAMS live streams on the gateway that carried on, alone: the webhooks (which
    // would deliver the same load meanwhile) are deleted first.
    await store.metaQuery("DELETE FROM {meta}.webhook_delivery");
    await store.metaQuery("DELETE FROM {meta}.webhook");
    const streamKey = (await keys.create("push bench streams", "enterprise")).key;
    const streams = await streamsOf(carrier, streamKey, () => load(weeks[3] as string));
    console.log(`push: streams ${JSON.stringify(streams)}`);
    return { kind, domains: PUSH_DOMAINS, delivery, kill, streams };
  } finally {
    for (const p of procs) await p.stop().catch(() => {});
    await receiver.close();
    await listener?.end();
    await store.close();
  }
}

/** STREAMS streams open, then a load: when each stream's first change came after its publication. */
async function streamsOf(
  proc: Proc,
  key: string,
  loadNext: () => Promise<{ published: number; events: number; firstId: number; lastId: number }>,
) {
  const base = proc.url.replace("localhost", "127.0.0.1");
  // The clients run in a process of their own: in this one, the load (which goes on after its
  // publication, retiring the copy before) would hold their reads back.
  const clients = fork(join(import.meta.dirname, "stream-clients.ts"), [base, key, String(STREAMS)], {
    execArgv: ["--import", "tsx"],
  });
  const message = <T>(has: (m: Record<string, unknown>) => boolean) =>
    new Promise<T>((resolve, reject) => {
      const on = (m: Record<string, unknown>) => {
        if (!has(m)) return;
        clients.off("message", on);
        resolve(m as T);
      };
      clients.on("message", on);
      clients.once("exit", (code) => code && reject(new Error(`the stream clients exited with ${code}`)));
    });
  await message((m) => m.open === true);
  let peak = proc.rssMb();
  const openRss = peak;
  const sampler = setInterval(() => {
    peak = Math.max(peak, proc.rssMb());
  }, 100);
  const cpuBefore = cpuMs(proc.child.pid as number);
  const loaded = await loadNext();
  const published = loaded.published;
  // Feed cursors are dense within a load: its events are the ids from its first to its last.
  if (loaded.lastId - loaded.firstId + 1 !== loaded.events)
    throw new Error(`the load's ${loaded.events} events are not ids ${loaded.firstId}..${loaded.lastId}`);
  // Time for every change to reach every stream (it takes seconds; the report says when each came).
  await new Promise((r) => setTimeout(r, 15_000));
  clearInterval(sampler);
  peak = Math.max(peak, proc.rssMb());
  // The gateway's CPU for the load's changes on every stream (it is idle otherwise meanwhile).
  const gatewayCpuMs = cpuMs(proc.child.pid as number) - cpuBefore;
  clients.send({ report: true });
  // Each stream's log: [time, the largest event id come so far]; its first change came with its
  // first id of the load, and every change with the load's last id (events come in feed order).
  const { logs } = await message<{ logs: [number, number][][] }>((m) => Array.isArray(m.logs));
  const at = (id: number) =>
    logs.flatMap((l) => {
      const came = l.find(([, seen]) => seen >= id);
      return came ? [came[0]] : [];
    });
  const firstAt = at(loaded.firstId);
  const allAt = at(loaded.lastId);
  const sorted = (ts: number[]) => ts.map((t) => t - published).sort((a, b) => a - b);
  const first = sorted(firstAt);
  const all = sorted(allAt);
  const quantile = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
  return {
    streams: STREAMS,
    events: loaded.events,
    reached: first.length,
    complete: all.length,
    openRssMb: openRss,
    peakRssMb: peak,
    firstP50Ms: quantile(first, 0.5),
    firstMaxMs: first.at(-1) ?? 0,
    allP50Ms: quantile(all, 0.5),
    allMaxMs: all.at(-1) ?? 0,
    gatewayCpuMs,
  };
}

/** The push bench's dataset and its three weeks after (churn ×10), written once into bench/out. */
async function ensureWeeks(root: string): Promise<string[]> {
  const base = join(root, "bench", "out", `push-${PUSH_DOMAINS}-${PUSH_APPS}`);
  const weeks = [base, `${base}-w1`, `${base}-w2`, `${base}-w3`];
  if (!existsSync(join(base, "reviews.jsonl"))) {
    const g = await runMeasured(
      join(root, "src/cli/generate-data.ts"),
      ["--domains", String(PUSH_DOMAINS), "--apps", String(PUSH_APPS), "--out", base],
      process.env,
    );
    if (g.code !== 0) throw new Error(`generate-data failed with exit code ${g.code}`);
  }
  for (let w = 1; w < weeks.length; w++) {
    if (existsSync(join(weeks[w] as string, "reviews.jsonl"))) continue;
    const g = await runMeasured(
      join(root, "src/cli/generate-data.ts"),
      // The streams' week (the last) at the usual churn: about 2% of the Domains change.
      ["--from", weeks[w - 1] as string, "--churn", w === 3 ? "1" : CHURN, "--out", weeks[w] as string],
      process.env,
    );
    if (g.code !== 0) throw new Error(`generate-data --from failed with exit code ${g.code}`);
  }
  return weeks;
}

/** A fresh push database of `kind` (dropped and made again: the bench starts from nothing). */
export async function freshPushEnv(
  root: string,
  kind: "sqlite" | "postgresql",
  pgUrl: string,
): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn" };
  delete env.REQUIRE_HTTPS;
  delete env.NODE_ENV;
  env.DATA_DIR = join(root, "bench", "out", `push-db-${kind}`);
  rmSync(env.DATA_DIR, { recursive: true, force: true });
  if (kind === "sqlite") {
    delete env.DATABASE_URL;
    return env;
  }
  const name = "storegraph_bench_push";
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  return env;
}
