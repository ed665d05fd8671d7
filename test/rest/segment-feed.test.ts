import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHURN, evolveDataset } from "../../src/dataset/evolve.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { snapshotFilePath } from "../../src/db/sqlite-store.ts";
import { createLogger } from "../../src/logger.ts";
import { REST_BASE } from "../../src/rest/routes.ts";
import { upgradeSnapshot } from "../../src/snapshot-upgrade.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { connect } from "../support/mcp.ts";
import { Receiver } from "../webhooks/receiver.ts";

/**
 * `f:segment` on the change feed (issue 70, item 3): a removed Domain is matched as it was in the
 * snapshot it was last in, so a segment's members among removed Domains are those its filter
 * matched there, by their own keys, never the served snapshot's keys applied to the gone rows. Held
 * to a brute force over two exports (the segment's filter exported before the load, the load's
 * removals), through every face that reads the feed: GET /changes, /changes/export,
 * /changes/stream, GraphQL `changes`, a webhook and the MCP `changes` tool, on both databases. A
 * segment of many Domains reads the feed in order, one of few reads their events by name: both.
 */

const scratch = tempDir("storegraph-segment-feed-");
const weeks = [0, 1].map((w) => join(scratch.dir, `w${w}`));
const churn = Object.fromEntries(Object.entries(DEFAULT_CHURN).map(([k, v]) => [k, Math.min(1, v * 15)]));

beforeAll(async () => {
  await generateDataset({ domains: 400, apps: 40, seed: 70, outDir: weeks[0] as string });
  await evolveDataset({ from: weeks[0] as string, outDir: weeks[1] as string, seed: 3, churn });
}, 60_000);
afterAll(() => scratch.remove());

type Json = Record<string, unknown>;
const sorted = (names: Iterable<string>) => [...names].sort();

describe.each(databaseKinds())("f:segment on the change feed on %s", (kind) => {
  let api: TestApi;
  let receiver: Receiver;
  let mcp: Client;
  /** The version before the load, and the countries of the snapshot then, by Domain. */
  let before = 0;
  const countryThen = new Map<string, string>();
  /** The countries tested: the commonest (read in feed order) and a rare one (read by name). */
  let countries: string[] = [];
  const hooks = new Map<string, string>();
  let commonest: Record<string, string> = {};
  /** A word of the Domains' names, and the Domains its search (q) matched before the load. */
  let word = "";
  const searchedBefore = new Set<string>();

  const call = async (path: string, init: RequestInit = {}) => {
    const res = await api.app.fetch(`http://localhost${REST_BASE}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${api.key}`, "content-type": "application/json" },
    });
    return { status: res.status, text: await res.text() };
  };
  /** Every change GET /changes answers after the load's start with these options. */
  const changes = async (query: string): Promise<Json[]> => {
    const out: Json[] = [];
    let cursor = "";
    for (;;) {
      const res = await call(`/changes?since=${before}&page_size=1000${query}${cursor}`);
      expect(res.status, res.text).toBe(200);
      const page = JSON.parse(res.text) as { changes: Json[]; has_next_page: boolean; next_cursor: string };
      out.push(...page.changes);
      if (!page.has_next_page) return out;
      cursor = `&cursor=${page.next_cursor}`;
    }
  };
  const removedNames = (events: Json[]) => sorted(events.map((e) => e.domain as string));
  /** The names List Domains answers to `query`, every page. */
  const everyName = async (query: string): Promise<string[]> => {
    const names: string[] = [];
    let cursor = "";
    for (;;) {
      const res = await call(`/domain?${query}&fields=name&page_size=1000${cursor}`);
      expect(res.status, res.text).toBe(200);
      const page = JSON.parse(res.text) as { domains: { name: string }[]; next_cursor?: string };
      names.push(...page.domains.map((d) => d.name));
      if (!page.next_cursor) return names;
      cursor = `&cursor=${page.next_cursor}`;
    }
  };

  beforeAll(async () => {
    api = await startApi(
      kind,
      weeks[0] as string,
      { webhooks: { allowPrivateTargets: true, timeoutMs: 2000, concurrency: 4, deliver: true } },
      { webhooks: { schedule: { baseMs: 50, capMs: 1000, attempts: 3 }, pollMs: 50, leaseMs: 400 } },
    );
    receiver = await new Receiver().start();
    before = (await api.snapshots.current())?.snapshot.version ?? 0;
    const exported = await call("/domain/export?fields=name,country_code");
    expect(exported.status).toBe(200);
    for (const line of exported.text.split("\n").filter(Boolean)) {
      const d = JSON.parse(line) as { name: string; country_code?: string };
      countryThen.set(d.name, d.country_code ?? "");
    }
    const count = new Map<string, number>();
    for (const cc of countryThen.values()) if (cc) count.set(cc, (count.get(cc) ?? 0) + 1);
    const byCount = [...count].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    // The rare one: few enough, with those gone, to be read by name (at most 5% of the Domains).
    const rare = byCount.find(([, n]) => n >= 4 && n <= 10);
    if (!rare) throw new Error("no country of 4 to 10 Domains");
    countries = [byCount[0][0], rare[0]];
    for (const cc of countries) {
      expect(
        (await call(`/segment/in-${cc}`, { method: "PUT", body: JSON.stringify({ "f:cc": cc }) })).status,
      ).toBe(200);
      const made = await call("/webhooks", {
        method: "POST",
        body: JSON.stringify({
          url: `${receiver.url}?${cc}`,
          kinds: ["domain_removed"],
          filter: { "f:segment": `in-${cc}` },
        }),
      });
      expect(made.status, made.text).toBe(200);
      hooks.set(cc, (JSON.parse(made.text) as { id: string }).id);
    }
    // The commonest technology and App: a segment of each, counted over its own dimension.
    const facets = await call("/domain/facets?facets=tech,an&facet_size=1");
    const top = (JSON.parse(facets.text) as { facets: Record<string, { value: string }[]> }).facets;
    commonest = { tech: top.tech[0].value, an: top.an[0].value };
    for (const [dimension, value] of Object.entries(commonest)) {
      const body = { [`f:${dimension}`]: value, spread: [dimension] };
      const saved = await call(`/segment/by-${dimension}`, { method: "PUT", body: JSON.stringify(body) });
      expect(saved.status, saved.text).toBe(200);
    }
    // A segment of a search (q): its removed Domains are those the search matched before the load.
    const tokens = new Map<string, number>();
    for (const name of countryThen.keys())
      for (const t of new Set(name.split(/[^a-z]+/).filter((x) => x.length >= 4)))
        tokens.set(t, (tokens.get(t) ?? 0) + 1);
    const candidates = [...tokens].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    for (const [t] of candidates) {
      const names = await everyName(`q=${t}`);
      if (names.length >= countryThen.size * 0.05 && names.length <= countryThen.size * 0.5) {
        word = t;
        for (const n of names) searchedBefore.add(n);
        break;
      }
    }
    if (!word) throw new Error("no word of the names matches 5% to 50% of the Domains");
    const searched = await call("/segment/by-word", { method: "PUT", body: JSON.stringify({ q: word }) });
    expect(searched.status, searched.text).toBe(200);
    // A segment deleted after the load that gave it events.
    const doomed = await call("/segment/doomed", {
      method: "PUT",
      body: JSON.stringify({ "f:cc": countries[0] }),
    });
    expect(doomed.status).toBe(200);
    api.app.deliverer?.start();
    await api.load(weeks[1] as string);
    mcp = await connect(api, api.key);
  }, 240_000);
  afterAll(async () => {
    await mcp?.close();
    await receiver?.close();
    await api?.close();
  });

  /** The brute force: the load's removals whose country was `cc` in the snapshot before it. */
  const expectedRemoved = async (cc: string) => {
    const removed = await changes("&kinds=domain_removed");
    const names = removedNames(removed).filter((n) => countryThen.get(n) === cc);
    return { all: removed.length, names };
  };

  it("GET /changes: the removed Domains of a segment are those its filter matched before the load, as f:cc finds them", async () => {
    for (const cc of countries) {
      const { all, names } = await expectedRemoved(cc);
      expect(names.length, cc).toBeGreaterThan(0);
      expect(names.length, cc).toBeLessThan(all);
      expect(removedNames(await changes(`&kinds=domain_removed&f:segment=in-${cc}`)), cc).toEqual(names);
      expect(removedNames(await changes(`&kinds=domain_removed&f:cc=${cc}`)), cc).toEqual(names);
      // Every kind of event: the segment's and its filter's are the same events.
      const ids = (events: Json[]) => events.map((e) => e.id);
      const bySegment = await changes(`&f:segment=in-${cc}`);
      expect(bySegment.length).toBeGreaterThan(names.length);
      expect(ids(bySegment), cc).toEqual(ids(await changes(`&f:cc=${cc}`)));
    }
  });

  it("a segment of a search (q): its removed Domains are those the search matched before the load", async () => {
    const removed = removedNames(await changes("&kinds=domain_removed"));
    const expected = removed.filter((n) => searchedBefore.has(n));
    expect(expected.length, word).toBeGreaterThan(0);
    expect(expected.length, word).toBeLessThan(removed.length);
    expect(removedNames(await changes("&kinds=domain_removed&f:segment=by-word"))).toEqual(expected);
  });

  it("GET /changes/export and /changes/stream give the same removed Domains", async () => {
    for (const cc of countries) {
      const { names } = await expectedRemoved(cc);
      const q = `since=${before}&kinds=domain_removed&f:segment=in-${cc}`;
      const exported = await call(`/changes/export?${q}`);
      expect(exported.status, exported.text).toBe(200);
      const lines = exported.text.split("\n").filter(Boolean);
      expect(removedNames(lines.map((l) => JSON.parse(l) as Json)), cc).toEqual(names);
      const controller = new AbortController();
      const res = await api.app.fetch(
        `http://localhost${REST_BASE}/changes/stream?${q}&cursor=0&max_seconds=1`,
        {
          headers: { authorization: `Bearer ${api.key}` },
          signal: controller.signal,
        },
      );
      expect(res.status).toBe(200);
      const stop = setTimeout(() => controller.abort(), 5000);
      let text = "";
      try {
        text = await res.text();
      } catch {
        // aborted: what came is what was sent
      } finally {
        clearTimeout(stop);
      }
      const streamed = [...text.matchAll(/^data: (.*)$/gm)]
        .map((m) => JSON.parse(m[1]) as Json)
        .filter((e) => e.kind === "domain_removed");
      expect(removedNames(streamed), cc).toEqual(names);
    }
  });

  it("GraphQL changes and the MCP changes tool give the same removed Domains", async () => {
    for (const cc of countries) {
      const { names } = await expectedRemoved(cc);
      const res = await api.gql<{
        changes: { nodes: { domainName: string }[]; pageInfo: { hasNextPage: boolean } };
      }>(
        `query($f: ChangeFilter) { changes(filter: $f, first: 1000) { nodes { domainName } pageInfo { hasNextPage } } }`,
        { f: { since: String(before), kinds: ["domain_removed"], domain: { segment: `in-${cc}` } } },
      );
      expect(res.errors).toBeUndefined();
      expect(res.data?.changes.pageInfo.hasNextPage).toBe(false);
      expect(sorted(res.data?.changes.nodes.map((n) => n.domainName) ?? []), cc).toEqual(names);
      const tooled: Json[] = [];
      for (let cursor: string | null = null; ; ) {
        const tool = (await mcp.callTool({
          name: "changes",
          arguments: {
            since: String(before),
            kinds: "domain_removed",
            "f.segment": `in-${cc}`,
            page_size: 100,
            ...(cursor ? { cursor } : {}),
          },
        })) as CallToolResult;
        expect(tool.isError, JSON.stringify(tool.content)).toBeFalsy();
        const answer = tool.structuredContent as {
          changes: Json[];
          has_next_page: boolean;
          next_cursor: string;
        };
        tooled.push(...answer.changes);
        if (!answer.has_next_page) break;
        cursor = answer.next_cursor;
      }
      expect(removedNames(tooled), cc).toEqual(names);
    }
  });

  it("a webhook filtered by the segment is sent its members' removals, and no other", async () => {
    const expected = new Map<string, string[]>();
    for (const cc of countries) expected.set(cc, (await expectedRemoved(cc)).names);
    const deliveredTo = (cc: string) =>
      receiver
        .accepted()
        .map((r) => JSON.parse(r.body) as { data: { webhook: string; changes: Json[] } })
        .filter((b) => b.data.webhook === hooks.get(cc))
        .flatMap((b) => b.data.changes);
    await receiver.until(() =>
      countries.every((cc) => deliveredTo(cc).length >= (expected.get(cc)?.length ?? 0)),
    );
    // Whatever was due has been sent: the webhooks have nothing pending.
    for (let i = 0; i < 200; i++) {
      const listed = JSON.parse((await call("/webhooks")).text) as { webhooks: Json[] };
      if (listed.webhooks.every((w) => w.pending_deliveries === 0)) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    for (const cc of countries) expect(removedNames(deliveredTo(cc)), cc).toEqual(expected.get(cc));
  });

  it("a copy whose gone Domains keep no searched text (kept before they did) is upgraded, and a load after it carries them, unmatched by a search", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    const location = served.snapshot.location;
    const config = api.db.config;
    // As a load of the code before the searched text was kept, and before parts were versioned.
    const statements = (t: (name: string) => string) => [
      `ALTER TABLE ${t("gone_domain")} DROP COLUMN search_text`,
      `DELETE FROM ${t("snapshot_part")} WHERE "name" = 'gone'`,
    ];
    if (config.database.kind === "sqlite") {
      const db = new Database(snapshotFilePath(config.database.dataDir, location));
      for (const statement of statements((n) => `"${n}"`)) db.exec(statement);
      db.close();
    } else {
      const client = new pg.Client({ connectionString: config.database.url });
      await client.connect();
      for (const statement of statements((n) => `"${location}"."${n}"`)) await client.query(statement);
      await client.end();
    }
    const since = served.snapshot.version;
    // A load reads the served copy's gone Domains: it refuses one of an older format.
    await expect(api.load(weeks[0] as string)).rejects.toThrow(
      `snapshot ${since} is of an older format than this code (its gone): upgrade it with npm run load -- --upgrade`,
    );
    const release = await api.snapshots.store.lockForLoad();
    try {
      const r = await upgradeSnapshot(
        config,
        api.snapshots.store,
        served.snapshot,
        createLogger({ logLevel: "warn" }),
      );
      expect(r.built).toEqual(["gone"]);
    } finally {
      await release();
    }
    // The week before again: the Domains the last load removed come back, others go.
    await api.load(weeks[0] as string);
    const res = await call(`/changes?since=${since}&kinds=domain_removed&f:segment=by-word&page_size=1000`);
    expect(res.status, res.text).toBe(200);
    const carried = await call(`/changes?kinds=domain_removed&f:segment=by-word&page_size=1000`);
    expect(carried.status, carried.text).toBe(200);
  });
});

describe.each(databaseKinds())("segment events and history on %s", (kind) => {
  let api: TestApi;
  let before = 0;
  let commonest = "";
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await api.app.fetch(`http://localhost${REST_BASE}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${api.key}`, "content-type": "application/json" },
    });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text.split("\n")[0] || "null") as Json };
  };
  const put = (name: string, body: Json) =>
    call(`/segment/${name}`, { method: "PUT", body: JSON.stringify(body) });
  const changes = async (query: string): Promise<Json[]> => {
    const res = await call(`/changes?since=${before}&page_size=1000${query}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.has_next_page).toBe(false);
    return res.json.changes as Json[];
  };

  beforeAll(async () => {
    api = await startApi(kind, weeks[0] as string);
    before = (await api.snapshots.current())?.snapshot.version ?? 0;
    const facets = await call("/domain/facets?facets=tech,cc&facet_size=1");
    const top = (facets.json as { facets: Record<string, { value: string }[]> }).facets;
    commonest = top.tech[0].value;
    // Counted over technologies: every member has the commonest, and others past the top 100.
    expect((await put("by-tech", { "f:tech": commonest, spread: ["tech", "cc"] })).status).toBe(200);
    // Moved by App installs: each event names the installs of the load that moved the Domain.
    const apps = await call("/domain/facets?facets=an&facet_size=3");
    const an = (apps.json as { facets: Record<string, { value: string }[]> }).facets.an.map((v) => v.value);
    expect((await put("by-app", { "f:an": an.join(","), "f:an:op": "or" })).status).toBe(200);
    expect((await put("doomed", { "f:cc": top.cc[0].value })).status).toBe(200);
    await api.load(weeks[1] as string);
  }, 240_000);
  afterAll(() => api?.close());

  it("writes the App times of a segment event's changes as the feed writes those events (RFC 3339, not epoch ms)", async () => {
    const own = new Map<string, Json>();
    for (const e of await changes("&kinds=app_installed,app_uninstalled"))
      own.set(`${e.kind} ${e.domain} ${(e.app as Json).platform}.${(e.app as Json).token}`, e);
    const events = await changes("&segment=by-app");
    const nested = events.flatMap((e) => ((e.after as Json).changes as Json[]).map((c) => ({ e, c })));
    const appChanges = nested.filter(({ c }) => String(c.kind).startsWith("app_"));
    expect(appChanges.length).toBeGreaterThan(0);
    /** The App times of the App changes a segment event's `after` names (nulls left out). */
    const timesOf = (afters: Json[]) =>
      afters
        .flatMap((a) => a.changes as Json[])
        .filter((c) => String(c.kind).startsWith("app_"))
        .flatMap((c) => [c.before as Json | undefined, c.after as Json | undefined])
        .flatMap((v) => [v?.installed_at, v?.removed_at])
        .filter((t) => t != null);
    const times = timesOf(events.map((e) => e.after as Json));
    expect(times.length).toBeGreaterThan(0);
    for (const t of times) expect(t).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    for (const { e, c } of appChanges) {
      const mine = own.get(`${c.kind} ${e.domain} ${c.app}`);
      expect(mine, `${c.kind} ${e.domain} ${c.app}`).toBeDefined();
      expect(c.after ?? null).toEqual(mine?.after ?? null);
      expect(c.before ?? null).toEqual(mine?.before ?? null);
    }
    // GraphQL writes them alike.
    const res = await api.gql<{ changes: { nodes: { after: Json }[] } }>(
      `query($f: ChangeFilter) { changes(filter: $f, first: 1000) { nodes { after } } }`,
      { f: { since: String(before), segment: "by-app" } },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data?.changes.nodes).toHaveLength(events.length);
    expect(timesOf(res.data?.changes.nodes.map((n) => n.after) ?? [])).toEqual(times);
  });

  it("keeps in a history row's other every dimension cut to its top 100, its count 0 included", async () => {
    const history = (await call("/segment/by-tech")).json as { segment: { history: Json[] } };
    const row = history.segment.history[0] as {
      counts: Record<string, Json>;
      other: Record<string, number> | null;
    };
    // The brute force: the members' technologies, from an export.
    const exported = await call("/domain/export?f:segment=by-tech&fields=name,technologies");
    const held = new Set<string>();
    const without = { cc: 0 };
    for (const line of exported.text.split("\n").filter(Boolean)) {
      const d = JSON.parse(line) as { technologies?: (string | { name: string })[] };
      for (const t of d.technologies ?? []) held.add(typeof t === "string" ? t : t.name);
      without.cc++;
    }
    expect(held.size).toBeGreaterThan(100);
    expect(Object.keys(row.counts.technologies)).toHaveLength(100);
    // Every member holds the commonest, which is listed: none has only unlisted ones.
    expect(row.counts.technologies[commonest]).toBe(without.cc);
    expect(row.other).toEqual({ technologies: 0 });
    const gql = await api.gql<{ segment: { history: { other: unknown }[] } }>(
      '{ segment(name: "by-tech") { history { other } } }',
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data?.segment.history[0].other).toEqual({ technologies: 0 });
  });

  it("answers a segment the account lacks with 404 and the names near it, on every face; a deleted segment's events stay readable by name", async () => {
    const near = /no segment named "by-tec".*did you mean "by-tech"/;
    for (const path of [
      `/changes?segment=by-tec`,
      `/changes/export?segment=by-tec`,
      `/changes/stream?segment=by-tec&max_seconds=1`,
    ]) {
      const res = await call(path);
      expect(res.status, res.text).toBe(404);
      expect(res.json.code, path).toBe("NOT_FOUND");
      expect(res.json.error, path).toMatch(/^segment: /);
      expect(res.json.error, res.text).toMatch(near);
    }
    for (const path of [
      "/changes?f:segment=by-tec",
      "/changes/export?f:segment=by-tec",
      "/domain?f:segment=by-tec",
    ]) {
      const res = await call(path);
      expect(res.status, path).toBe(404);
      expect(res.json.error, path).toMatch(/^f:segment: /);
      expect(res.json.error, path).toMatch(near);
    }
    const export_ = await call("/domain/export?f:segment=by-tec&fields=name");
    expect(export_.status).toBe(404);
    expect(export_.json.error).toMatch(near);
    const hooked = await call("/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: "https://example.com/hook", segment: "by-tec" }),
    });
    expect(hooked.status).toBe(404);
    expect(hooked.json.error).toMatch(/^segment: /);
    expect(hooked.json.error).toMatch(near);
    const filtered = await call("/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: "https://example.com/hook", filter: { "f:segment": "by-tec" } }),
    });
    expect(filtered.status).toBe(404);
    expect(filtered.json.error).toMatch(near);
    for (const f of [{ segment: "by-tec" }, { domain: { segment: "by-tec" } }]) {
      const res = await api.gql(`query($f: ChangeFilter) { changes(filter: $f) { nodes { id } } }`, { f });
      expect(res.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
      expect(res.errors?.[0]?.message).toMatch(near);
    }
    // Deleted, its events are read by its name until they are pruned; its members are no more.
    const events = await changes("&segment=doomed");
    expect(events.length).toBeGreaterThan(0);
    expect((await call("/segment/doomed", { method: "DELETE" })).status).toBe(200);
    expect(await changes("&segment=doomed")).toEqual(events);
    const gone = await call("/changes?f:segment=doomed");
    expect(gone.status).toBe(404);
  });
});
