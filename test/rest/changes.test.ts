import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHURN, evolveDataset } from "../../src/dataset/evolve.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { EVENT_DOC } from "../../src/db/change-feed.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { startApi, type TestApi, tempDir, testLoadSteps } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { readJsonl } from "../support/jsonl.ts";

// The change feed's REST face (GET /changes, GET /changes/export) and its filters, paging across
// loads, retention and errors. Which events a load publishes is held to a brute force in
// test/query/changes.test.ts; here the expectations are derived from the whole feed and from
// List Domains (GET /domain/export) of the same f: options, never hard-coded.

const scratch = tempDir("storegraph-changes-rest-");
const weeks = [0, 1, 2].map((w) => join(scratch.dir, `w${w}`));
const churn = Object.fromEntries(Object.entries(DEFAULT_CHURN).map(([k, v]) => [k, Math.min(1, v * 15)]));

beforeAll(async () => {
  await generateDataset({ domains: 400, apps: 50, seed: 5, outDir: weeks[0] });
  await evolveDataset({ from: weeks[0], outDir: weeks[1], seed: 1, churn });
  await evolveDataset({ from: weeks[1], outDir: weeks[2], seed: 2, churn });
}, 60_000);
afterAll(() => scratch.remove());

/** What the f: options of these tests test, over a Domain's record. */
const RECORD_MATCH: Record<string, (d: Record<string, unknown>) => boolean> = {
  "f:p=shopify&f:ds=Active": (d) => d.platform === "shopify" && d.state === "Active",
  "f:cc=US&f:cc:op=not": (d) => d.country_code !== "US",
  "f:an=shopify.klaviyo": (d) =>
    ((d.apps ?? []) as { platform: string; token: string; removed_at?: string }[]).some(
      (a) => `${a.platform}.${a.token}` === "shopify.klaviyo" && a.removed_at === undefined,
    ),
};

type Change = Record<string, unknown> & { id: string; kind: string; domain?: string; version: number };
interface Feed {
  changes: Change[];
  has_next_page: boolean;
  next_cursor: string;
}

describe.each(databaseKinds())("GET /changes on %s", (kind) => {
  let api: TestApi;
  const rest = async (path: string) => {
    const res = await api.app.fetch(`http://localhost/json/api/v1/all${path}`);
    return { status: res.status, body: (await res.text()) as string };
  };
  const page = async (query: string): Promise<Feed> => {
    const r = await rest(`/changes?${query}`);
    expect(r.status, r.body).toBe(200);
    return JSON.parse(r.body) as Feed;
  };
  /** Every change of `query` (after `from`), paged by `size`. */
  const all = async (query: string, size = 1000, from = ""): Promise<Change[]> => {
    const out: Change[] = [];
    let cursor = from;
    for (;;) {
      const p = await page(`${query}&page_size=${size}${cursor ? `&cursor=${cursor}` : ""}`);
      out.push(...p.changes);
      if (!p.has_next_page) return out;
      cursor = p.next_cursor;
    }
  };
  const exported = async (query: string) => {
    const r = await rest(`/changes/export?${query}`);
    expect(r.status, r.body).toBe(200);
    return r.body
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Change);
  };
  /** The names of the served Domains that List Domains' options match. */
  const matching = async (query: string) => {
    const r = await rest(`/domain/export?${query}&fields=name`);
    expect(r.status, r.body).toBe(200);
    return new Set(
      r.body
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { name: string }).name),
    );
  };

  beforeAll(async () => {
    api = await startApi(kind, weeks[0]);
    await api.load(weeks[1]);
  }, 120_000);
  afterAll(() => api?.close());

  it("pages in feed order, as GraphQL and the export give it", async () => {
    const whole = await all("", 1000);
    expect(whole.length).toBeGreaterThan(50);
    const ids = whole.map((c) => Number(c.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(await all("", 7)).toEqual(whole);
    expect(await exported("")).toEqual(whole);
    const gql = await api.gql<{ changes: { nodes: { id: string; kind: string }[] } }>(
      "{ changes(first: 1000) { nodes { id kind } } }",
    );
    expect(gql.data?.changes.nodes.map((n) => [n.id, n.kind])).toEqual(whole.map((c) => [c.id, c.kind]));
    // The legacy shape: snake_case names, null values left out.
    const installed = whole.find((c) => c.kind === "app_installed") as Change;
    expect(Object.keys(installed)).toEqual(["id", "version", "loaded_at", "kind", "domain", "app", "after"]);
    expect(Object.keys(installed.app as object)).toEqual(["id", "platform", "token", "name"]);
    expect((installed.after as { installed_at: string }).installed_at).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    // fields selects, as everywhere.
    const narrow = await page("fields=id,kind&page_size=3");
    expect(narrow.changes.map((c) => Object.keys(c))).toEqual([
      ["id", "kind"],
      ["id", "kind"],
      ["id", "kind"],
    ]);
  });

  it("reads events published without their doc (before it was kept) as those with one", async () => {
    const whole = await all("", 1000);
    const store = api.snapshots.store;
    const [{ n }] = await store.metaQuery("SELECT count(*) AS n FROM {meta}.change_event WHERE doc IS NULL");
    expect(Number(n)).toBe(0);
    // The doc written at publish is, byte for byte, the one made from the columns at read time.
    const [{ d }] = await store.metaQuery(
      `SELECT count(*) AS d FROM {meta}.change_event WHERE doc <> ${EVENT_DOC[store.kind]}`,
    );
    expect(Number(d)).toBe(0);
    const [{ doc }] = await store.metaQuery("SELECT doc FROM {meta}.change_event ORDER BY id LIMIT 1");
    // Integers as integers (not 1.0): the ids, versions and times of a doc are the columns' own.
    expect(doc as string).toMatch(/^\[\d+, ?\d+, ?\d+, ?"/);
    // Every other event as a feed migrated from before 0006 holds it: columns only.
    await store.metaQuery("UPDATE {meta}.change_event SET doc = NULL WHERE id % 2 = 0");
    try {
      expect(await all("", 1000)).toEqual(whole);
      expect(await all("", 7)).toEqual(whole);
      expect(await exported("")).toEqual(whole);
    } finally {
      await store.metaQuery(
        `UPDATE {meta}.change_event SET doc = ${EVENT_DOC[store.kind]} WHERE doc IS NULL`,
      );
    }
    expect(await all("", 1000)).toEqual(whole);
  });

  /**
   * The changes `q` (f: options) matches: those of the served Domains List Domains' same options
   * match, and those of Domains since removed that matched as they were in the last week that
   * held them (evaluated here over that week's file, for the options `RECORD_MATCH` knows).
   */
  const expectedFor = async (q: string, whole: Change[], loaded: string[]) => {
    const names = await matching(q);
    const last = new Map<string, Record<string, unknown>>();
    for (const week of loaded)
      for (const d of readJsonl<Record<string, unknown>>(join(week, "domains.jsonl")))
        last.set(d.name as string, d);
    const test = RECORD_MATCH[q];
    return whole.filter((c) => {
      if (c.domain === undefined) return false;
      if (names.has(c.domain)) return true;
      const gone = last.get(c.domain);
      return gone !== undefined && !names.has(c.domain) && !servedNames.has(c.domain) && test(gone);
    });
  };
  let servedNames = new Set<string>();

  it("matches f: options against the Domains as served, and removed ones as they were, for few Domains and for many", async () => {
    const whole = await all("");
    servedNames = await matching("");
    const counts = new Map<string, number>();
    // A common and a rare value of a few filters, drawn from the served Domains.
    const domains = (await rest("/domain/export?fields=name,country_code,platform")).body
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { name: string; country_code?: string; platform: string });
    for (const d of domains)
      if (d.country_code) counts.set(d.country_code, (counts.get(d.country_code) ?? 0) + 1);
    const byCount = [...counts].sort((a, b) => b[1] - a[1]);
    const [common, rare] = [byCount[0][0], byCount[byCount.length - 1][0]];
    RECORD_MATCH[`f:cc=${common}`] = (d) => d.country_code === common;
    RECORD_MATCH[`f:cc=${rare}`] = (d) => d.country_code === rare;
    const queries = [
      `f:cc=${common}`, // many Domains: the feed is scanned
      `f:cc=${rare}`, // few: read by name
      "f:p=shopify&f:ds=Active",
      "f:cc=US&f:cc:op=not",
      "f:an=shopify.klaviyo",
    ];
    let removed = 0;
    for (const q of queries) {
      const want = await expectedFor(q, whole, weeks.slice(0, 2));
      removed += want.filter((c) => c.kind === "domain_removed").length;
      expect(await all(q, 5), q).toEqual(want);
      expect(await exported(q), q).toEqual(want);
    }
    // Removed Domains were matched as they were: the check above met some.
    expect(removed).toBeGreaterThan(0);
  });

  it("filters by kinds, since, until, app and technology", async () => {
    const whole = await all("");
    const version = whole[0].version;
    const kinds = ["domain_added", "app_installed"];
    expect(await all(`kinds=${kinds.join(",")}`)).toEqual(whole.filter((c) => kinds.includes(c.kind)));
    expect(await all(`since=${version}`)).toEqual([]);
    expect(await all(`since=${version - 1}`)).toEqual(whole);
    expect(await all(`until=${version - 1}`)).toEqual([]);
    expect(await all(`until=${version}`)).toEqual(whole);
    const loaded = whole[0].loaded_at as string;
    expect(await all(`since=${encodeURIComponent(loaded)}`)).toEqual(whole);
    expect(await all(`until=${encodeURIComponent(loaded)}`)).toEqual([]);
    const app = whole.find((c) => c.kind === "app_installed")?.app as { platform: string; token: string };
    const key = `${app.platform}.${app.token}`;
    const ofApp = (c: Change) => {
      const a = c.app as { platform: string; token: string } | undefined;
      return a !== undefined && `${a.platform}.${a.token}` === key;
    };
    expect(await all(`app=${key}`)).toEqual(whole.filter(ofApp));
    const tech = whole.find((c) => c.kind === "technology_added")?.technology as string;
    expect(await all(`technology=${encodeURIComponent(tech)}`)).toEqual(
      whole.filter((c) => c.technology === tech),
    );
    // The same on a Domain and an App, in GraphQL.
    const name = whole.find((c) => c.domain)?.domain as string;
    const r = await api.gql<{ domain: { changes: { nodes: { id: string }[] } } }>(
      "query($n: String!) { domain(name: $n) { changes { nodes { id } } } }",
      { n: name },
    );
    if (r.data?.domain)
      expect(r.data.domain.changes.nodes.map((n) => n.id)).toEqual(
        whole.filter((c) => c.domain === name).map((c) => c.id),
      );
    const a = await api.gql<{ app: { changes: { nodes: { id: string }[] } } }>(
      "query($p: String!, $t: String!) { app(platform: $p, token: $t) { changes { nodes { id } } } }",
      { p: app.platform, t: app.token },
    );
    expect(a.errors).toBeUndefined();
    expect(a.data?.app.changes.nodes.map((n) => n.id)).toEqual(whole.filter(ofApp).map((c) => c.id));
  });

  it("answers a bad option with a 400 that names it", async () => {
    const cases: [string, RegExp][] = [
      ["kinds=domain_add", /kinds: unknown kind "domain_add" \(did you mean "domain_added"\?\)/],
      ["since=last-week", /since: must be a snapshot version \(an integer\) or/],
      ["cursor=abc", /cursor: is not a cursor of the change feed/],
      ["cursor=999999999", /cursor: is past the end of the change feed/],
      ["page_size=1001", /page_size/],
      ["f:ccc=US", /f:ccc/],
      ["sort=rank", /sort/],
    ];
    for (const [q, message] of cases) {
      const r = await rest(`/changes?${q}`);
      expect(r.status, q).toBe(400);
      expect(JSON.parse(r.body).error, q).toMatch(message);
      const e = await rest(`/changes/export?${q}`);
      if (!q.startsWith("page_size") && !q.startsWith("sort")) expect(e.status, q).toBe(400);
    }
  });

  it("an App a platform switch uninstalled carries its entry's dates from the week before", async () => {
    const switched = new Set((await all("kinds=platform_changed")).map((c) => c.domain));
    const uninstalled = (await all("kinds=app_uninstalled")).filter((c) => switched.has(c.domain));
    expect(uninstalled.length).toBeGreaterThan(0);
    const before = new Map(
      readJsonl<Record<string, unknown>>(join(weeks[0], "domains.jsonl")).map((d) => [d.name as string, d]),
    );
    for (const c of uninstalled) {
      const { platform, token } = c.app as { platform: string; token: string };
      const entry = ((before.get(c.domain as string)?.apps ?? []) as Record<string, string>[]).find(
        (a) => a.platform === platform && a.token === token && a.removed_at === undefined,
      );
      // Its removed_at is null, left out as REST leaves nulls out.
      expect(c.after, JSON.stringify(c)).toEqual({ installed_at: expect.any(String) });
      const after = c.after as { installed_at: string };
      expect(Date.parse(after.installed_at)).toBe(Date.parse(entry?.installed_at as string));
    }
  });

  it("an empty page's next_cursor is the end of the feed, asked with a cursor or without", async () => {
    const whole = await all("");
    const end = whole[whole.length - 1].id;
    const version = whole[0].version;
    // A Domain filter of few Domains reads by name, one of many scans the feed.
    const [few, many] = ["f:cc=JP", "f:ds=Active"];
    expect((await matching(few)).size).toBeLessThanOrEqual(20);
    expect((await matching(many)).size).toBeGreaterThan(20);
    // Nothing after: the whole feed, and either Domain filter.
    for (const q of [`since=${version}`, `since=${version}&${few}`, `since=${version}&${many}`]) {
      for (const cursor of ["", `&cursor=${whole[0].id}`, `&cursor=${end}`]) {
        const p = await page(`${q}${cursor}`);
        expect(p, `${q}${cursor}`).toEqual({ changes: [], has_next_page: false, next_cursor: end });
        // The export and GraphQL read the same pages.
        expect(await exported(`${q}${cursor}`)).toEqual([]);
      }
    }
    const gql = await api.gql<{ changes: { pageInfo: { endCursor: string } } }>(
      "query($s: String) { changes(filter: { since: $s }) { pageInfo { endCursor } } }",
      { s: String(version) },
    );
    expect(gql.data?.changes.pageInfo.endCursor).toBe(end);
  });

  it("goes on across a load: paging through it neither skips nor repeats a change", async () => {
    // A client polling for what later loads add: its empty page's cursor gives it those only.
    const before = await all("");
    const polling = (await page(`since=${before[0].version}`)).next_cursor;
    const seen: Change[] = [];
    let p = await page("page_size=9");
    seen.push(...p.changes);
    p = await page(`page_size=9&cursor=${p.next_cursor}`);
    seen.push(...p.changes);
    await api.load(weeks[2]);
    let cursor = p.next_cursor;
    for (;;) {
      p = await page(`page_size=9&cursor=${cursor}`);
      seen.push(...p.changes);
      if (!p.has_next_page) break;
      cursor = p.next_cursor;
    }
    const whole = await all("");
    expect(seen).toEqual(whole);
    expect(new Set(whole.map((c) => c.version)).size).toBe(2);
    const added = whole.filter((c) => c.version > before[0].version);
    expect(added.length).toBeGreaterThan(0);
    expect(await all("", 1000, polling)).toEqual(added);
    // The Domains removed by the load before are still matched as they were (carried over).
    servedNames = await matching("");
    for (const q of ["f:p=shopify&f:ds=Active", "f:cc=US&f:cc:op=not"]) {
      const want = await expectedFor(q, whole, weeks);
      expect(want.some((c) => c.kind === "domain_removed" && c.version === whole[0].version)).toBe(true);
      expect(await all(q, 50), q).toEqual(want);
    }
    // At the end, the cursor stays where it is, to be asked again after the next load.
    expect(p.next_cursor).toBe(whole[whole.length - 1].id);
    expect((await page(`cursor=${p.next_cursor}`)).changes).toEqual([]);
  });

  it("prunes past the retention, and a cursor into what it pruned is 410", async () => {
    const before = await all("");
    const old = before[0].id;
    // A load keeping the events of one load: its own.
    await loadSnapshot(api.snapshots.store, weeks[1], {
      ...testLoadSteps(api.db.config, api.snapshots.store),
      keep: 1,
      changesRetention: 1,
    });
    const after = await all("");
    expect(after.every((c) => Number(c.id) > Number(before[before.length - 1].id))).toBe(true);
    expect(new Set(after.map((c) => c.version)).size).toBe(1);
    // The 410 names REST's option, or the header the stream resumed from; GraphQL's names `after`.
    for (const [path, headers, name] of [
      [`/changes?cursor=${old}`, {}, "cursor"],
      [`/changes/export?cursor=${old}`, {}, "cursor"],
      [`/changes/stream?cursor=${old}`, {}, "cursor"],
      ["/changes/stream", { "last-event-id": old }, "Last-Event-ID"],
    ] as const) {
      const res = await api.app.fetch(`http://localhost/json/api/v1/all${path}`, { headers });
      const body = (await res.json()) as { code: string; error: string };
      expect(res.status, path).toBe(410);
      expect(body.code, path).toBe("CURSOR_EXPIRED");
      expect(body.error, path).toMatch(new RegExp(`^${name}: the events after this cursor were pruned`));
      expect(body.error, path).not.toMatch(/\bafter:/);
    }
    const gql = await api.gql("query($a: String) { changes(after: $a) { nodes { id } } }", { a: old });
    expect(gql.errors?.[0].message).toMatch(/^after: the events after this cursor were pruned/);
    expect(gql.errors?.[0].extensions).toMatchObject({ code: "CURSOR_EXPIRED", argument: "after" });
    // An empty page asked without a cursor gives the end of the feed, which pruning left good.
    const empty = await page(`since=${after[0].version}`);
    expect(empty).toEqual({ changes: [], has_next_page: false, next_cursor: after[after.length - 1].id });
    expect((await rest(`/changes?cursor=${empty.next_cursor}`)).status).toBe(200);
    // The cursor is answered for before the filter's own errors, and before a Domain filter's work.
    for (const q of ["since=last-week", "f:cc=US&since=last-week", "f:cc=US"]) {
      const e = await rest(`/changes?cursor=${old}&${q}`);
      expect(e.status, `${q}: ${e.body}`).toBe(410);
      const past = await rest(`/changes?cursor=999999999&${q}`);
      expect(past.status, q).toBe(400);
      expect(JSON.parse(past.body).error, q).toMatch(/cursor: is past the end of the change feed/);
    }
    // The cursor at the end of what was pruned is still good: nothing after it was lost.
    expect((await rest(`/changes?cursor=${before[before.length - 1].id}`)).status).toBe(200);
  });
});
