import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evolveDataset } from "../../src/dataset/evolve.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { startApi, type TestApi, tempDir, testLoadSteps } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { readJsonl } from "../support/jsonl.ts";

// History past the feed's retention (docs/decisions.md, "History", "A pruned week"): four
// generated weeks loaded one after another keeping the events of two loads (changesRetention: 2).
// The trends of the pruned loads are deleted with their events, a trend answers only the loads
// kept, an as-of older than the events kept is 410 naming as_of, and a Domain's history holds
// nothing of a pruned week; what is answered still equals the weeks' files.

const scratch = tempDir("storegraph-history-pruned-");
const weeks = [0, 1, 2, 3].map((i) => join(scratch.dir, `w${i}`));
const RETENTION = 2;

beforeAll(async () => {
  await generateDataset({ domains: 200, apps: 30, seed: 21, outDir: weeks[0] });
  for (let i = 1; i < weeks.length; i++)
    await evolveDataset({ from: weeks[i - 1], outDir: weeks[i], seed: 21 + i });
}, 120_000);
afterAll(() => scratch.remove());

type Rec = Record<string, unknown>;
const BASE = "http://localhost/json/api/v1/all";

describe.each(databaseKinds())("history past the retention on %s", (kind) => {
  let api: TestApi;
  const versions: number[] = [];
  let domains: Rec[][] = [];
  /** The versions whose events (and trends) the feed keeps: the newest RETENTION. */
  let kept: number[] = [];

  beforeAll(async () => {
    domains = weeks.map((w) => readJsonl<Rec>(join(w, "domains.jsonl")));
    for (const [i, week] of weeks.entries()) {
      if (i === 0) api = await startApi(kind, week);
      else
        await loadSnapshot(api.snapshots.store, week, {
          ...testLoadSteps(api.db.config, api.snapshots.store),
          keep: 1,
          changesRetention: RETENTION,
        });
      versions.push((await api.snapshots.current())?.snapshot.version as number);
    }
    kept = versions.slice(-RETENTION);
  }, 300_000);
  afterAll(() => api?.close());

  const rest = async (path: string) => {
    const res = await api.app.fetch(`${BASE}${path}`);
    return { status: res.status, body: (await res.json()) as Rec };
  };

  it("keeps the trends of the loads whose events it keeps, and no other", async () => {
    const rows = await api.snapshots.store.metaQuery(
      `SELECT DISTINCT "version" FROM {meta}.facet_trend ORDER BY "version"`,
    );
    expect(rows.map((r) => Number(r.version))).toEqual(kept);
    // The feed's own events are of those loads too.
    const events = await api.snapshots.store.metaQuery(
      `SELECT DISTINCT version FROM {meta}.change_event ORDER BY version`,
    );
    expect(events.map((r) => Number(r.version))).toEqual(kept);
  });

  it("a trend answers the loads kept only, whatever its since, with the weeks' counts", async () => {
    for (const since of ["", `&since=${versions[0]}`, `&since=${new Date(0).toISOString()}`]) {
      const t = await rest(`/trends?dimension=p&values=shopify,woocommerce${since}`);
      expect(t.status, since).toBe(200);
      const loads = t.body.loads as { version: number; counts: Record<string, number>; total: number }[];
      expect(
        loads.map((l) => l.version),
        since,
      ).toEqual(kept);
      for (const [j, load] of loads.entries()) {
        const week = domains[versions.indexOf(kept[j])];
        expect(load.total).toBe(week.length);
        for (const p of ["shopify", "woocommerce"])
          expect(load.counts[p], `${p} in version ${load.version}`).toBe(
            week.filter((d) => d.platform === p).length,
          );
      }
    }
    // Only pruned loads in range: no load, none invented.
    const pruned = await rest(`/trends?dimension=p&until=${versions[RETENTION - 1]}`);
    expect(pruned.status).toBe(200);
    expect(pruned.body.loads).toEqual([]);
    const g = await api.gql<{ trends: { loads: Rec[] } }>(
      `{ trends(dimension: PLATFORM, since: "${versions[0]}", until: "${versions[1]}") { loads { version } } }`,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data?.trends.loads).toEqual([]);
  });

  it("as_of answers from the load before the oldest kept event; older is 410 naming as_of", async () => {
    // The oldest events kept are the changes into kept[0]: the load before it is answered.
    const oldest = versions[versions.indexOf(kept[0]) - 1];
    const week = domains[versions.indexOf(oldest)];
    const served = new Set(domains[domains.length - 1].map((d) => d.name));
    const present = week.filter((d) => served.has(d.name)).slice(0, 5);
    expect(present.length).toBeGreaterThan(0);
    for (const d of present) {
      const r = await rest(`/domain/${d.name}?as_of=${oldest}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.domain).toMatchObject({
        name: d.name,
        as_of_version: oldest,
        platform: d.platform,
        state: d.state,
      });
    }
    for (const v of versions.filter((v) => v < oldest)) {
      const name = present[0].name as string;
      const r = await rest(`/domain/${name}?as_of=${v}`);
      expect(r.status, JSON.stringify(r.body)).toBe(410);
      expect(r.body.code).toBe("CURSOR_EXPIRED");
      expect(r.body.error).toMatch(/^as_of: /);
      expect(r.body.error).toContain(`the oldest load a Domain is answered as of is version ${oldest}`);
      const g = await api.gql(`{ domainAsOf(name: "${name}", asOf: "${v}") { version } }`);
      expect(g.errors?.[0]?.extensions).toMatchObject({ code: "CURSOR_EXPIRED", argument: "asOf" });
      expect(g.errors?.[0]?.message).toMatch(/^asOf: /);
    }
  });

  it("a Domain's history holds the events of the loads kept only", async () => {
    // Domains that changed in a pruned week (a covered field, or their Apps or technologies):
    // that change is in no history.
    const [w0, w1] = [0, 1].map((i) => new Map(domains[i].map((d) => [d.name as string, d])));
    const served = domains[domains.length - 1].map((d) => d.name as string);
    const covered = (d: Rec) =>
      JSON.stringify([
        d.platform,
        d.plan,
        d.state,
        d.country_code,
        (d.theme as Rec | undefined)?.name,
        ((d.apps ?? []) as Rec[]).filter((a) => a.removed_at === undefined).map((a) => a.token),
        ((d.technologies ?? []) as Rec[]).map((t) => t.name),
      ]);
    const movedThen = served.filter((n) => {
      const [a, b] = [w0.get(n), w1.get(n)];
      return a && b && covered(a) !== covered(b);
    });
    expect(movedThen.length).toBeGreaterThan(0);
    let seen = 0;
    for (const name of [...movedThen.slice(0, 5), ...served.slice(0, 10)]) {
      const h = await rest(`/domain/${name}/history?page_size=1000`);
      expect(h.status).toBe(200);
      const changes = h.body.changes as Rec[];
      seen += changes.length;
      for (const c of changes) expect(kept, `${name}: ${JSON.stringify(c)}`).toContain(c.version);
      // Every event the feed has of it, newest first.
      const feed = await api.gql<{ domain: { changes: { nodes: Rec[] } } }>(
        `query ($n: String!) { domain(name: $n) { changes(first: 1000) { nodes { id } } } }`,
        { n: name },
      );
      expect(feed.errors).toBeUndefined();
      expect(changes.map((c) => c.id)).toEqual(
        [...(feed.data?.domain.changes.nodes ?? [])].map((n) => n.id).reverse(),
      );
    }
    expect(seen).toBeGreaterThan(0);
  });
});
