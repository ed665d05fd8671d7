import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import type { DomainRecord } from "../../src/dataset/record.ts";
import { Snapshots } from "../../src/db/snapshots.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { Metrics } from "../../src/ops/metrics.ts";
import {
  type DomainFilterInput,
  type DomainSortField,
  type ListArgs,
  type Oracle,
  oracleOf,
} from "../graphql/oracle.ts";
import { startApi, type TestApi, tempDir, testLoadSteps } from "../support/api.ts";
import { databaseKinds, TEST_SWITCHES } from "../support/databases.ts";

// Whole results of List Domains (docs/api.md 4.7, docs/decisions.md "cursor=all and export"): cursor=all
// jobs (202 while running, then 200 with the result, shared by server instances through the meta
// database, expiring with a new snapshot or after EXPORT_TTL_SECONDS) and GET /domain/export
// (JSON Lines streamed at once). Results are compared with test/graphql/oracle.ts. The dataset
// spans many of the 100-Domain batches the jobs and exports read.

const BASE = "http://localhost/json/api/v1/all/domain";
const POLL_MS = 100;
const POLL_LIMIT_MS = 30_000;

const scratch = tempDir("storegraph-rest-export-");
const dirA = join(scratch.dir, "a");
const dirB = join(scratch.dir, "b");
let oracle: Oracle;
let oracleB: Oracle;
let domains: DomainRecord[];
let platform: string;

beforeAll(async () => {
  await generateDataset({ domains: 2500, apps: 80, seed: 2024, outDir: dirA });
  await generateDataset({ domains: 500, apps: 40, seed: 2025, outDir: dirB });
  oracle = oracleOf(dirA);
  oracleB = oracleOf(dirB);
  domains = [...oracle.domains];
  const counts = new Map<string, number>();
  for (const d of domains) counts.set(d.platform, (counts.get(d.platform) ?? 0) + 1);
  platform = [...counts].sort((a, b) => b[1] - a[1])[0][0];
});

afterAll(() => scratch.remove());

/** A promise and the function that resolves it. */
function signal(): [Promise<void>, () => void] {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return [promise, resolve];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const url = (params: Record<string, string>, path = "") => `${BASE}${path}?${new URLSearchParams(params)}`;
/** Clients by name, each with its own real API key (jobs belong to a key). */
const CLIENTS = [
  "a",
  "handover",
  "key-a",
  "key-b",
  "instances",
  "race",
  "bad",
  "post",
  "get-aq",
  "export",
  "ttl",
  "mid-job",
  "long-job",
  "snapshot",
];
const clientKeys = new Map<string, string>();
const auth = (client: string) => {
  const key = clientKeys.get(client);
  if (!key) throw new Error(`no API key made for client "${client}"`);
  return { authorization: `Bearer ${key}` };
};

interface Progress {
  progress: number;
  total: number;
}

/** Lines of a JSON Lines body, each parsed; the body ends with a newline. */
function parseJsonl(text: string): Record<string, unknown>[] {
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function expectExactly(names: string[], expected: string[]) {
  expect(new Set(names).size).toBe(names.length);
  expect(names.length).toBe(expected.length);
  expect(names).toEqual(expected);
}

interface JobRow {
  id: string;
  owner: string;
  status: string;
  snapshot_version: number | string;
  location: string | null;
  progress: number | string;
  created_at: number | string;
  updated_at: number | string;
}

describe.each(databaseKinds())("cursor=all and Export Domains (%s)", (kind) => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi(kind, dirA);
    clientKeys.clear();
    for (const client of CLIENTS) clientKeys.set(client, await api.createKey("enterprise", client));
  });

  afterAll(async () => {
    await api?.close();
  });

  const jobs = async () =>
    (await api.snapshots.store.metaQuery("SELECT * FROM {meta}.export_job")) as unknown as JobRow[];
  /** The jobs that are not among `before` (ids). */
  const jobsSince = async (before: string[]) => (await jobs()).filter((j) => !before.includes(j.id));
  const jobIds = async () => (await jobs()).map((j) => j.id);
  /**
   * The stored results, by name: on SQLite the files under exports/ (`<job id>.<format>`, with
   * `.partial` while written); on PostgreSQL the ids of the jobs with chunks in the database.
   */
  const storedResults = async (): Promise<string[]> => {
    if (kind === "postgresql") {
      const rows = await api.snapshots.store.metaQuery("SELECT DISTINCT job_id FROM {meta}.export_chunk");
      return rows.map((r) => String(r.job_id));
    }
    const dir = join(api.db.config.dataDir, "exports");
    return existsSync(dir) ? readdirSync(dir) : [];
  };
  /** Whether a job's result is stored (its file, or its chunks). */
  const hasResult = async (job: JobRow): Promise<boolean> =>
    kind === "postgresql"
      ? (await storedResults()).includes(job.id)
      : existsSync(join(api.db.config.dataDir, job.location as string));

  /**
   * Polls a cursor=all request until it answers something other than 202, checking each 202 body;
   * returns the final response.
   */
  async function poll(app: App, target: string, key: string, total: number): Promise<Response> {
    const started = Date.now();
    let last = -1;
    for (;;) {
      const res = await app.fetch(target, { headers: auth(key) });
      if (res.status !== 202) return res;
      const body = (await res.json()) as Progress;
      expect(body.total).toBe(total);
      expect(body.progress).toBeGreaterThanOrEqual(last);
      expect(body.progress).toBeLessThanOrEqual(body.total);
      last = body.progress;
      if (Date.now() - started > POLL_LIMIT_MS)
        throw new Error(`${target} still 202 after ${POLL_LIMIT_MS} ms`);
      await sleep(POLL_MS);
    }
  }

  /** Starts a job (expecting 202 with the oracle's total) and polls it to 200. */
  async function runJob(
    target: string,
    key: string,
    expectedTotal: number,
    options: { app?: App; pollOn?: App } = {},
  ): Promise<Response> {
    const first = await (options.app ?? api.app).fetch(target, { headers: auth(key) });
    const body = (await first.json()) as Progress;
    expect(first.status, JSON.stringify(body)).toBe(202);
    expect(body.total).toBe(expectedTotal);
    expect(body.progress).toBeGreaterThanOrEqual(0);
    expect(body.progress).toBeLessThanOrEqual(body.total);
    const res = await poll(options.pollOn ?? options.app ?? api.app, target, key, expectedTotal);
    expect(res.status).toBe(200);
    return res;
  }

  const byPlatform = (): ListArgs<DomainFilterInput, DomainSortField> => ({
    filter: { platform: { values: [platform] } },
  });

  describe("cursor=all", () => {
    it("answers 202 with progress and total, then 200 with every matching Domain once, in order", async () => {
      const expected = oracle.domainNames(byPlatform());
      expect(expected.length).toBeGreaterThan(1000);
      const target = url({ "f:p": platform, cursor: "all" });

      const res = await runJob(target, "a", expected.length);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const text = await res.text();
      const body = JSON.parse(text) as { domains: Record<string, unknown>[] };
      expect(Object.keys(body)).toEqual(["domains"]);
      expectExactly(
        body.domains.map((d) => d.name as string),
        expected,
      );
      // Default fields: whole Domains.
      const byName = new Map(domains.map((d) => [d.name, d]));
      for (const d of body.domains) {
        expect(d.platform).toBe(platform);
        expect(d.rank).toBe(byName.get(d.name as string)?.rank);
      }

      // Polling again answers the same result.
      const again = await api.app.fetch(target, { headers: auth("a") });
      expect(again.status).toBe(200);
      expect(await again.text()).toBe(text);
      // One job, done, with its result stored.
      const done = (await jobs()).filter((j) => j.status === "done");
      expect(done).toHaveLength(1);
      expect(await hasResult(done[0])).toBe(true);
    });

    it("answers JSON Lines with for=jsonl, with the fields asked for", async () => {
      const args: ListArgs<DomainFilterInput, DomainSortField> = {
        ...byPlatform(),
        orderBy: [{ field: "ESTIMATED_SALES", direction: "DESC" }],
      };
      const expected = oracle.domainNames(args);
      const target = url({ "f:p": platform, sort: "-er", fields: "name,rank", cursor: "all", for: "jsonl" });

      const res = await runJob(target, "a", expected.length);
      expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
      const text = await res.text();
      const lines = parseJsonl(text);
      for (const d of lines) expect(Object.keys(d).sort()).toEqual(["name", "rank"]);
      expectExactly(
        lines.map((d) => d.name as string),
        expected,
      );
      const again = await api.app.fetch(target, { headers: auth("a") });
      expect(again.status).toBe(200);
      expect(await again.text()).toBe(text);
    });

    it("respects fields in the JSON result too", async () => {
      const expected = oracle.domainNames({ orderBy: [{ field: "NAME" }] });
      const res = await runJob(url({ sort: "name", fields: "name,platform", cursor: "all" }), "a", 2500);
      const body = (await res.json()) as { domains: Record<string, unknown>[] };
      for (const d of body.domains) expect(Object.keys(d).sort()).toEqual(["name", "platform"]);
      expectExactly(
        body.domains.map((d) => d.name as string),
        expected,
      );
    });

    it("keeps a job per API key: another Authorization header starts its own job", async () => {
      const expected = oracle.domainNames(byPlatform());
      const target = url({ "f:p": platform, fields: "name", cursor: "all" });
      const resA = await runJob(target, "key-a", expected.length);
      const textA = await resA.text();
      // Done for key-a; key-b asks the same and gets a job of its own.
      expect((await api.app.fetch(target, { headers: auth("key-a") })).status).toBe(200);
      const resB = await runJob(target, "key-b", expected.length);
      expect(await resB.text()).toBe(textA);
      // The options are part of the job too: another filter is another job.
      const other = url({ "f:p": platform, "f:ds": "Active", fields: "name", cursor: "all" });
      const activeCount = oracle.domainNames({
        filter: { platform: { values: [platform] }, state: { values: ["Active"] } },
      }).length;
      await runJob(other, "key-a", activeCount);
    });

    it("lets another server instance on the same database answer the polling", async () => {
      const snapshots2 = await Snapshots.open(api.db.config, { refreshMs: 0, graceMs: 0 });
      try {
        const app2 = createApp(api.db.config, snapshots2);
        const expected = oracle.domainNames({ ...byPlatform(), orderBy: [{ field: "CREATED_AT" }] });
        const target = url({ "f:p": platform, sort: "created_at", fields: "name", cursor: "all" });
        const res = await runJob(target, "instances", expected.length, { app: api.app, pollOn: app2 });
        const body = (await res.json()) as { domains: { name: string }[] };
        expectExactly(
          body.domains.map((d) => d.name),
          expected,
        );
        // And the first instance answers the same.
        const res1 = await api.app.fetch(target, { headers: auth("instances") });
        expect(res1.status).toBe(200);
        expect(((await res1.json()) as { domains: unknown[] }).domains).toHaveLength(expected.length);
      } finally {
        await snapshots2.close();
      }
    });

    it("runs one job when two instances are asked for it at once", async () => {
      const snapshots2 = await Snapshots.open(api.db.config, { refreshMs: 0, graceMs: 0 });
      try {
        const app2 = createApp(api.db.config, snapshots2);
        const expected = oracle.domainNames({
          ...byPlatform(),
          orderBy: [{ field: "NAME", direction: "DESC" }],
        });
        const target = url({ "f:p": platform, sort: "-name", fields: "name", cursor: "all", for: "jsonl" });
        const before = await jobIds();
        const answers = await Promise.all(
          [api.app, app2, api.app, app2].map((app) => app.fetch(target, { headers: auth("race") })),
        );
        // A request that arrives after the one job finished gets its result at once.
        for (const res of answers) {
          expect([200, 202]).toContain(res.status);
          if (res.status === 202) expect(((await res.json()) as Progress).total).toBe(expected.length);
          else await res.text();
        }
        expect(answers.some((r) => r.status === 202)).toBe(true);
        expect(await jobsSince(before)).toHaveLength(1);
        const res = await poll(app2, target, "race", expected.length);
        expect(res.status).toBe(200);
        expectExactly(
          parseJsonl(await res.text()).map((d) => d.name as string),
          expected,
        );
        expect(await jobsSince(before)).toHaveLength(1);
      } finally {
        await snapshots2.close();
      }
    });

    it.each([
      ["an unknown platform", { "f:p": "no-such-platform" }],
      ["an invalid country code", { "f:cc": "USA" }],
      ["an unknown filter", { "f:nope": "1" }],
      ["an unknown option", { colour: "blue" }],
      ["an unknown sort", { sort: "-colour" }],
      ["an unknown field", { fields: "name,colour" }],
      ["a bad op", { "f:p": platform, "f:p:op": "xor" }],
      ["page_size", { page_size: "100" }],
      ["for=xml", { for: "xml" }],
    ])("answers 400 to %s and starts no job", async (_what, options) => {
      const before = (await jobs()).map((j) => j.id).sort();
      const filesBefore = (await storedResults()).sort();
      const res = await api.app.fetch(url({ ...options, cursor: "all" }), { headers: auth("bad") });
      const body = (await res.json()) as { error: string; code: string };
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body.code).toBe("BAD_USER_INPUT");
      expect(typeof body.error).toBe("string");
      expect((await jobs()).map((j) => j.id).sort()).toEqual(before);
      expect((await storedResults()).sort()).toEqual(filesBefore);
    });

    it("answers 400 to a bad aq with cursor=all in a POST body and starts no job", async () => {
      const before = (await jobs()).length;
      const res = await api.app.fetch(BASE, {
        method: "POST",
        headers: { ...auth("bad"), "content-type": "application/json" },
        body: JSON.stringify({ cursor: "all", aq: [{ field: "nope", value: "x" }] }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe("BAD_USER_INPUT");
      expect(await jobs()).toHaveLength(before);
    });

    it("runs a job from a POST body with aq", async () => {
      const expected = oracle.domainNames({
        filter: { and: [{ platform: { values: [platform] } }, { state: { values: ["Active"], op: "NOT" } }] },
      });
      const send = (app: App) =>
        app.fetch(BASE, {
          method: "POST",
          headers: { ...auth("post"), "content-type": "application/json" },
          body: JSON.stringify({
            cursor: "all",
            for: "jsonl",
            fields: "name,state",
            aq: [
              { field: "p", value: platform },
              { field: "ds", value: "Active", operator: "nor" },
            ],
          }),
        });
      const first = await send(api.app);
      expect(first.status).toBe(202);
      expect(((await first.json()) as Progress).total).toBe(expected.length);
      const started = Date.now();
      let res = await send(api.app);
      while (res.status === 202 && Date.now() - started < POLL_LIMIT_MS) {
        await res.body?.cancel();
        await sleep(POLL_MS);
        res = await send(api.app);
      }
      expect(res.status).toBe(200);
      const lines = parseJsonl(await res.text());
      for (const d of lines) expect(d.state).not.toBe("Active");
      expectExactly(
        lines.map((d) => d.name as string),
        expected,
      );
    });
  });

  describe("aq in the query string (URL-encoded JSON, as in a POST body)", () => {
    const aq = () => [
      { field: "p", value: platform },
      { field: "ds", value: "Active", operator: "nor" },
    ];
    const expected = () =>
      oracle.domainNames({
        filter: { and: [{ platform: { values: [platform] } }, { state: { values: ["Active"], op: "NOT" } }] },
      });

    it("runs a cursor=all job from GET with aq", async () => {
      const send = () =>
        api.app.fetch(url({ cursor: "all", for: "jsonl", fields: "name,state", aq: JSON.stringify(aq()) }), {
          headers: auth("get-aq"),
        });
      const first = await send();
      expect(first.status).toBe(202);
      expect(((await first.json()) as Progress).total).toBe(expected().length);
      const started = Date.now();
      let res = await send();
      while (res.status === 202 && Date.now() - started < POLL_LIMIT_MS) {
        await res.body?.cancel();
        await sleep(POLL_MS);
        res = await send();
      }
      expect(res.status).toBe(200);
      const lines = parseJsonl(await res.text());
      for (const d of lines) expect(d.state).not.toBe("Active");
      expectExactly(
        lines.map((d) => d.name as string),
        expected(),
      );
    });

    it("filters an export with aq", async () => {
      const res = await api.app.fetch(url({ fields: "name", aq: JSON.stringify(aq()) }, "/export"), {
        headers: auth("get-aq"),
      });
      expect(res.status).toBe(200);
      expectExactly(
        parseJsonl(await res.text()).map((d) => d.name as string),
        expected(),
      );
    });

    it("a malformed aq is a 400 naming aq, and starts no job", async () => {
      const before = (await jobs()).length;
      for (const target of [url({ cursor: "all", aq: "[{" }), url({ aq: "[{" }, "/export")]) {
        const res = await api.app.fetch(target, { headers: auth("bad") });
        const body = (await res.json()) as { error: string; code: string };
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(body.error).toMatch(/^aq: must be JSON /);
      }
      expect(await jobs()).toHaveLength(before);
    });
  });

  describe("GET /domain/export", () => {
    it("streams JSON Lines of every matching Domain once, in sort order, with fields", async () => {
      const expected = oracle.domainNames({
        ...byPlatform(),
        orderBy: [{ field: "ESTIMATED_SALES", direction: "DESC" }],
      });
      const res = await api.app.fetch(url({ "f:p": platform, sort: "-er", fields: "name,rank" }, "/export"), {
        headers: auth("export"),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
      const lines = parseJsonl(await res.text());
      for (const d of lines) expect(Object.keys(d).sort()).toEqual(["name", "rank"]);
      expectExactly(
        lines.map((d) => d.name as string),
        expected,
      );
    });

    it("exports all Domains with the default fields", async () => {
      const res = await api.app.fetch(url({}, "/export"), { headers: auth("export") });
      expect(res.status).toBe(200);
      const lines = parseJsonl(await res.text());
      expect(lines).toHaveLength(2500);
      expectExactly(
        lines.map((d) => d.name as string),
        oracle.domainNames(),
      );
      const byName = new Map(domains.map((d) => [d.name, d]));
      for (const d of lines) {
        const r = byName.get(d.name as string);
        expect(d.platform).toBe(r?.platform);
        expect(d.rank).toBe(r?.rank);
      }
    });

    it.each([
      ["an unknown platform", { "f:p": "no-such-platform" }],
      ["an invalid country code", { "f:cc": "USA" }],
      ["an unknown sort", { sort: "colour" }],
      ["an unknown field", { fields: "colour" }],
      ["cursor", { cursor: "all" }],
      ["page_size", { page_size: "10" }],
    ])("answers 400 JSON to %s before streaming anything", async (_what, options) => {
      const res = await api.app.fetch(url(options, "/export"), { headers: auth("export") });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const body = (await res.json()) as { error: string; code: string };
      expect(body.code).toBe("BAD_USER_INPUT");
      expect(typeof body.error).toBe("string");
    });

    it("is consumed as a stream, chunk by chunk, over several batches", async () => {
      const res = await api.app.fetch(url({}, "/export"), { headers: auth("export") });
      expect(res.status).toBe(200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let chunks = 0;
      let bytes = 0;
      let largest = 0;
      let lines = 0;
      let rest = "";
      const names: string[] = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks++;
        bytes += value.byteLength;
        largest = Math.max(largest, value.byteLength);
        const text = rest + decoder.decode(value, { stream: true });
        const parts = text.split("\n");
        rest = parts.pop() as string;
        for (const p of parts) {
          names.push((JSON.parse(p) as { name: string }).name);
          lines++;
        }
      }
      rest += decoder.decode();
      expect(rest).toBe("");
      expect(lines).toBe(2500);
      expectExactly(names, oracle.domainNames());
      // Not one buffered body: several chunks, none of them the whole.
      expect(chunks).toBeGreaterThan(1);
      expect(largest).toBeLessThan(bytes);
    });

    it("stops cleanly when the client stops reading", async () => {
      const res = await api.app.fetch(url({}, "/export"), { headers: auth("export") });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const { value } = await reader.read();
      expect(value?.byteLength).toBeGreaterThan(0);
      await reader.cancel();
      // The server goes on answering.
      const next = await api.app.fetch(url({ fields: "name" }, "/export"), { headers: auth("export") });
      expect(next.status).toBe(200);
      expect(parseJsonl(await next.text())).toHaveLength(2500);
    });
  });

  describe("expiry", () => {
    it("replaces a result older than EXPORT_TTL_SECONDS by a new job", async () => {
      const c = api.db.config;
      const config = loadConfig(
        {
          DATA_DIR: c.dataDir,
          ...(c.database.kind === "postgresql" ? { DATABASE_URL: c.database.url } : {}),
          LOG_LEVEL: "silent",
          EXPORT_TTL_SECONDS: "1",
        },
        TEST_SWITCHES,
      );
      expect(config.exportTtlMs).toBe(1000);
      const snapshots2 = await Snapshots.open(config, { refreshMs: 0, graceMs: 0 });
      try {
        const app2 = createApp(config, snapshots2);
        // A small job, done well within the TTL.
        const expected = oracle.domainNames({ filter: { state: { values: ["Inactive"] } } });
        const target = url({ "f:ds": "Inactive", fields: "name", cursor: "all" });
        const before = await jobIds();
        await (await runJob(target, "ttl", expected.length, { app: app2 })).text();
        const started = await jobsSince(before);
        expect(started).toHaveLength(1);
        const [job] = started;
        expect(job.status).toBe("done");
        expect(await hasResult(job)).toBe(true);

        // Past the TTL, counted from when the job finished, the same request starts afresh.
        await sleep(Math.max(0, Number(job.updated_at) + 1000 - Date.now()) + 200);
        const res = await app2.fetch(target, { headers: auth("ttl") });
        expect(res.status).toBe(202);
        expect(((await res.json()) as Progress).total).toBe(expected.length);
        expect(await hasResult(job)).toBe(false);
        const now = (await jobs()).filter((j) => j.owner === job.owner);
        expect(now).toHaveLength(1);
        expect(now[0].id).not.toBe(job.id);
        // Let it finish before the instance goes away.
        const final = await poll(app2, target, "ttl", expected.length);
        expect(final.status).toBe(200);
        expect(((await final.json()) as { domains: unknown[] }).domains).toHaveLength(expected.length);
      } finally {
        await snapshots2.close();
      }
    });

    it("starts a new job when a new snapshot arrives while a job runs, and the server survives", async () => {
      // The biggest job there is (every Domain, default fields: several batches); a small snapshot
      // is loaded meanwhile, and published (through a store whose publish waits for a signal) once
      // the job has written its first batch: the job's next batch meets the new snapshot.
      const target = url({ cursor: "all" });
      const ids = await jobIds();
      const store = api.snapshots.store;
      const [atPublish, reachedPublish] = signal();
      const [gate, release] = signal();
      const gated = new Proxy(store, {
        get(target, prop) {
          if (prop === "publish") {
            return async (...args: Parameters<SnapshotStore["publish"]>) => {
              reachedPublish();
              await gate;
              return target.publish(...args);
            };
          }
          const value = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      // An error no one handles would end a real server's process.
      const uncaught: unknown[] = [];
      const onUncaught = (e: unknown) => uncaught.push(e);
      process.on("uncaughtException", onUncaught);
      // The job's worker waits before its second page until the new snapshot is published.
      const [secondPage, atSecondPage] = signal();
      const [resumed, resume] = signal();
      let pages = 0;
      const app = createApp(api.db.config, api.snapshots, {
        beforeExportPage: async () => {
          if (++pages !== 2) return;
          atSecondPage();
          await resumed;
        },
      });
      const loading = loadSnapshot(gated, dirB, { ...testLoadSteps(api.db.config, gated), keep: 1 });
      try {
        await atPublish;
        const first = await app.fetch(target, { headers: auth("mid-job") });
        expect(first.status).toBe(202);
        expect(((await first.json()) as Progress).total).toBe(2500);
        const [old] = await jobsSince(ids);
        await secondPage;
        // The second page is read ahead, while the first is written: wait for the first (its
        // reader's thread may still be starting).
        await vi.waitFor(
          async () => {
            const [row] = (await jobs()).filter((j) => j.id === old.id);
            expect(row?.status).toBe("running");
            expect(Number(row.progress)).toBeGreaterThan(0);
          },
          { timeout: 30_000, interval: 20 },
        );
        release();
        await loading;
        resume();

        const after = oracleB.domainNames();
        const res = await poll(app, target, "mid-job", after.length);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { domains: { name: string }[] };
        expectExactly(
          body.domains.map((d) => d.name),
          after,
        );
        // Only the new job is left; the old worker's partial file is gone once it noticed.
        await sleep(500);
        const rows = await jobsSince(ids);
        expect(rows).toHaveLength(1);
        expect(rows[0].id).not.toBe(old.id);
        expect((await storedResults()).filter((f) => f.startsWith(old.id))).toEqual([]);
      } finally {
        release();
        resume();
        await loading;
        process.off("uncaughtException", onUncaught);
        await api.load(dirA);
      }
      expect(uncaught.map(String)).toEqual([]);
    });

    it("keeps a job running longer than EXPORT_TTL_SECONDS until it is done", async () => {
      // A job held running (its second page waits) on an instance with the default TTL, polled
      // past 1 s on an instance with a TTL of 1 s.
      const c = api.db.config;
      const configOf = (ttl: Record<string, string>) =>
        loadConfig(
          {
            DATA_DIR: c.dataDir,
            ...(c.database.kind === "postgresql" ? { DATABASE_URL: c.database.url } : {}),
            LOG_LEVEL: "silent",
            ...ttl,
          },
          TEST_SWITCHES,
        );
      const snapshots1 = await Snapshots.open(configOf({}), { refreshMs: 0, graceMs: 0 });
      const snapshots2 = await Snapshots.open(configOf({ EXPORT_TTL_SECONDS: "1" }), {
        refreshMs: 0,
        graceMs: 0,
      });
      let pages = 0;
      const [held, release] = signal();
      const target = url({ cursor: "all" });
      const ids = await jobIds();
      try {
        const app1 = createApp(configOf({}), snapshots1, {
          beforeExportPage: () => (++pages > 1 ? held : Promise.resolve()),
        });
        const app2 = createApp(configOf({ EXPORT_TTL_SECONDS: "1" }), snapshots2);
        const first = await app1.fetch(target, { headers: auth("long-job") });
        expect(first.status).toBe(202);
        await first.body?.cancel();
        // Once the first page is written (its reader's thread may still be starting), past the
        // TTL from then.
        const [job] = await vi.waitFor(
          async () => {
            const rows = await jobsSince(ids);
            expect(Number(rows[0]?.progress)).toBeGreaterThan(0);
            return rows;
          },
          { timeout: 30_000, interval: 20 },
        );
        await sleep(Math.max(0, Number(job.updated_at) + 1000 - Date.now()) + 100);
        const [running] = await jobsSince(ids);
        expect(running?.status).toBe("running");
        const progress = Number(running.progress);
        expect(progress, "the first page was written, and no more").toBeGreaterThan(0);
        expect(progress).toBeLessThan(domains.length);

        // Polling a job past the TTL while it runs: still the same job, not a new one from zero.
        const res = await app2.fetch(target, { headers: auth("long-job") });
        const body = (await res.json()) as Progress;
        expect(res.status).toBe(202);
        const rows = await jobsSince(ids);
        expect(rows.map((j) => j.id)).toEqual([job.id]);
        expect(body.progress).toBe(progress);
        release();
        const done = await poll(app1, target, "long-job", 2500);
        expect(done.status).toBe(200);
        expect(((await done.json()) as { domains: unknown[] }).domains).toHaveLength(domains.length);
      } finally {
        release();
        await sleep(200);
        await snapshots1.close();
        await snapshots2.close();
      }
    });

    it("hands a running job over on shutdown, and a second gateway resumes it where it stopped", async () => {
      // Two gateways sharing the database and the data directory. The first is held before its
      // third page; it is told to hand its jobs over (a graceful shutdown), and the second,
      // polled next, resumes the job after the Domains already written.
      const c = api.db.config;
      const config = loadConfig(
        {
          DATA_DIR: c.dataDir,
          ...(c.database.kind === "postgresql" ? { DATABASE_URL: c.database.url } : {}),
          LOG_LEVEL: "silent",
        },
        TEST_SWITCHES,
      );
      // On PostgreSQL the gateways share nothing but the databases: results are chunks there.
      const own = tempDir("storegraph-gateway2-");
      const config2 = kind === "postgresql" ? { ...config, dataDir: own.dir } : config;
      const snapshots1 = await Snapshots.open(config, { refreshMs: 0, graceMs: 0 });
      const snapshots2 = await Snapshots.open(config2, { refreshMs: 0, graceMs: 0 });
      const [third, atThird] = signal();
      const [held, release] = signal();
      let pages = 0;
      // Written pages of about 256 KB (tens of Domains each): the default fields' rendered records
      // come in pages of 1,000, and the job would be near its end at its third.
      const target = url({ cursor: "all", fields: "name,title,description,apps,technologies,contact_info" });
      const ids = await jobIds();
      const gateway1 = createApp(config, snapshots1, {
        beforeExportPage: async () => {
          if (++pages !== 3) return;
          atThird();
          await held;
        },
      });
      const metrics2 = new Metrics(snapshots2);
      const gateway2 = createApp(config2, snapshots2, { metrics: metrics2 });
      try {
        const first = await gateway1.fetch(target, { headers: auth("handover") });
        expect(first.status).toBe(202);
        await first.body?.cancel();
        await third;
        const handing = gateway1.handOverJobs();
        release();
        const handed = await handing;
        // Shutting down, the gateway starts no job it would have to hand over half-begun.
        const refused = await gateway1.fetch(url({ cursor: "all", fields: "name" }), {
          headers: auth("handover"),
        });
        expect(refused.status).toBe(503);
        expect(refused.headers.get("retry-after")).toBe("1");
        const since = await jobsSince(ids);
        expect(since, "the refused request started no job").toHaveLength(1);
        const [job] = since;
        expect(handed).toEqual([{ id: job.id, progress: Number(job.progress) }]);
        expect(job.status).toBe("paused");
        const progress = Number(job.progress);
        expect(progress, "two pages were written, and no more").toBeGreaterThan(0);
        expect(progress).toBeLessThan(domains.length);
        await gateway1.dispose();

        const res = await poll(gateway2, target, "handover", domains.length);
        expect(res.status).toBe(200);
        // Resumed where it stopped: the second gateway wrote only the Domains after it.
        const written = (await metrics2.registry.getSingleMetric("storegraph_export_domains_total")?.get())
          ?.values;
        expect(written?.find((v) => v.labels.kind === "job")?.value).toBe(domains.length - progress);
        const body = (await res.json()) as { domains: { name: string }[] };
        expectExactly(
          body.domains.map((d) => d.name),
          oracle.domainNames(),
        );
        const rows = await jobsSince(ids);
        expect(rows.map((r) => [r.id, r.status])).toEqual([[job.id, "done"]]);
        // A gateway on the first one's data directory answers the same result.
        const gateway3 = createApp(config, snapshots1);
        try {
          const again = await gateway3.fetch(target, { headers: auth("handover") });
          expect(again.status).toBe(200);
          expect(((await again.json()) as { domains: unknown[] }).domains).toHaveLength(domains.length);
        } finally {
          await gateway3.dispose();
        }
      } finally {
        release();
        await gateway2.dispose();
        await snapshots1.close();
        await snapshots2.close();
        own.remove();
      }
    });

    it("breaks a PostgreSQL result's download when its chunks are gone, rather than ending it early", async () => {
      if (kind !== "postgresql") return;
      const target = url({ "f:ds": "Inactive", fields: "name,rank", cursor: "all", for: "jsonl" });
      const ids = await jobIds();
      const expected = oracle.domainNames({ filter: { state: { values: ["Inactive"] } } });
      await (await runJob(target, "a", expected.length)).text();
      const [job] = await jobsSince(ids);
      const chunks = await api.snapshots.store.metaQuery(
        "SELECT seq FROM {meta}.export_chunk WHERE job_id = ? ORDER BY seq",
        [job.id],
      );
      expect(job.location).toBe(`database:${chunks.length}`);
      // As a new snapshot's expiry would while a client reads it.
      await api.snapshots.store.metaQuery("DELETE FROM {meta}.export_chunk WHERE job_id = ? AND seq = ?", [
        job.id,
        chunks.length - 1,
      ]);
      const res = await api.app.fetch(target, { headers: auth("a") });
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
    });

    // Last: it replaces the served snapshot.
    it("starts a new job after a new snapshot and deletes the old result", async () => {
      const target = url({ "f:p": platform, fields: "name", cursor: "all" });
      const before = oracle.domainNames(byPlatform());
      const ids = await jobIds();
      await (await runJob(target, "snapshot", before.length)).text();
      const started = await jobsSince(ids);
      expect(started).toHaveLength(1);
      const [job] = started;
      expect(await hasResult(job)).toBe(true);

      await api.load(dirB);

      const after = oracleB.domainNames(byPlatform());
      expect(after.length).not.toBe(before.length);
      const res = await runJob(target, "snapshot", after.length);
      expect(await hasResult(job)).toBe(false);
      const body = (await res.json()) as { domains: { name: string }[] };
      expectExactly(
        body.domains.map((d) => d.name),
        after,
      );
      // No job of the old snapshot is left, nor a file of one.
      const rows = await jobs();
      const version = Number(rows.find((j) => j.owner === job.owner)?.snapshot_version);
      expect(version).toBeGreaterThan(Number(job.snapshot_version));
      expect(rows.every((j) => Number(j.snapshot_version) === version)).toBe(true);
      const live = new Set(rows.map((j) => j.id));
      for (const f of await storedResults()) expect(live.has(f.split(".")[0]), f).toBe(true);
    });
  });
});
