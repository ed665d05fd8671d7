import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHURN, evolveDataset } from "../../src/dataset/evolve.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { CHANGE_KINDS, RANK_SHARE, rankMove } from "../../src/db/change-sql.ts";
import { type GqlResult, startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { readJsonl } from "../support/jsonl.ts";

// The change feed (src/db/change-sql.ts, src/query/changes.ts) against a brute force: for random
// weeks (fast-check over the churn's scale and seed), the events a load publishes equal a diff of
// the two weeks' files computed here, and replaying them on the week before gives the week after
// for every field they cover. Loading the week before again is a week too (every change undone).

const scratch = tempDir("storegraph-changes-");
const base = join(scratch.dir, "base");

beforeAll(async () => {
  await generateDataset({ domains: 400, apps: 50, seed: 21, outDir: base });
}, 60_000);
afterAll(() => scratch.remove());

// ------------------------------------------------------------------ the brute force

type Rec = Record<string, unknown>;
interface AppEntry {
  id: string;
  platform: string;
  token: string;
  name: string;
  installed_at: string;
  removed_at?: string;
}
interface Event {
  kind: string;
  domain?: string;
  app?: string;
  technology?: string;
  before?: unknown;
  after?: unknown;
}

const installedOf = (d: Rec) => ((d.apps ?? []) as AppEntry[]).filter((a) => a.removed_at === undefined);
const techsOf = (d: Rec) => ((d.technologies ?? []) as { name: string }[]).map((t) => t.name);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The part of a Domain the feed covers, as domain_added / domain_removed carry it. */
function covered(d: Rec) {
  return {
    state: d.state,
    platform: d.platform,
    plan: d.plan ?? null,
    country_code: d.country_code ?? null,
    theme: (d.theme as Rec | undefined)?.name ?? null,
    rank: d.rank,
    apps: installedOf(d)
      .map((a) => `${a.platform}.${a.token}`)
      .sort(cmp),
    technologies: techsOf(d).sort(cmp),
  };
}

const plansOf = (a: Rec) =>
  ((a.plans ?? []) as Rec[]).map((p) => ({
    name: p.name,
    monthly_cost: p.monthly_cost,
    monthly_cost_cents: p.monthly_cost_cents ?? null,
  }));

/** Every event between two weeks' files, as the feed should carry them. */
function diff(before: string, after: string): Event[] {
  const events: Event[] = [];
  const oldApps = new Map(readJsonl<Rec>(join(before, "apps.jsonl")).map((a) => [a.id as string, a]));
  const newApps = new Map(readJsonl<Rec>(join(after, "apps.jsonl")).map((a) => [a.id as string, a]));
  const key = (a: Rec) => `${a.platform}.${a.token}`;
  for (const [id, a] of newApps) {
    const o = oldApps.get(id);
    if (!o) events.push({ kind: "app_added", app: key(a), after: { state: a.state, plans: plansOf(a) } });
    else if (JSON.stringify(plansOf(o)) !== JSON.stringify(plansOf(a)))
      events.push({ kind: "app_plans_changed", app: key(a), before: plansOf(o), after: plansOf(a) });
  }
  for (const [id, o] of oldApps) {
    const a = newApps.get(id);
    if (o.state !== "Inactive" && (!a || a.state === "Inactive"))
      events.push({ kind: "app_removed", app: key(o), before: o.state, after: a ? a.state : null });
  }
  const oldDomains = new Map(readJsonl<Rec>(join(before, "domains.jsonl")).map((d) => [d.name as string, d]));
  const newDomains = new Map(readJsonl<Rec>(join(after, "domains.jsonl")).map((d) => [d.name as string, d]));
  for (const [name, d] of newDomains) {
    const o = oldDomains.get(name);
    if (!o) {
      events.push({ kind: "domain_added", domain: name, after: covered(d) });
      continue;
    }
    const [a, b] = [covered(o), covered(d)];
    for (const [kind, field] of [
      ["state_changed", "state"],
      ["platform_changed", "platform"],
      ["plan_changed", "plan"],
      ["country_changed", "country_code"],
      ["theme_changed", "theme"],
    ] as const) {
      if (a[field] !== b[field]) events.push({ kind, domain: name, before: a[field], after: b[field] });
    }
    const move = Math.abs((b.rank as number) - (a.rank as number));
    if (move >= rankMove(newDomains.size) && move >= RANK_SHARE * (a.rank as number))
      events.push({ kind: "rank_changed", domain: name, before: a.rank, after: b.rank });
    const had = new Set(a.apps);
    const has = new Set(b.apps);
    const entry = (x: Rec, app: string) =>
      ((x.apps ?? []) as AppEntry[]).find((e) => `${e.platform}.${e.token}` === app);
    for (const app of has) {
      if (had.has(app)) continue;
      const e = entry(d, app) as AppEntry;
      events.push({
        kind: "app_installed",
        domain: name,
        app,
        after: { installed_at: e.installed_at, removed_at: null },
      });
    }
    for (const app of had) {
      if (has.has(app)) continue;
      // The entry as it is now, with its removed_at; else (it went: the Domain switched platform,
      // or the App left the dataset) as it was the week before.
      const e = entry(d, app) ?? (entry(o, app) as AppEntry);
      events.push({
        kind: "app_uninstalled",
        domain: name,
        app,
        after: { installed_at: e.installed_at, removed_at: e.removed_at ?? null },
      });
    }
    const techsBefore = new Set(a.technologies);
    const techsAfter = new Set(b.technologies);
    for (const t of techsAfter)
      if (!techsBefore.has(t)) events.push({ kind: "technology_added", domain: name, technology: t });
    for (const t of techsBefore)
      if (!techsAfter.has(t)) events.push({ kind: "technology_removed", domain: name, technology: t });
  }
  for (const [name, o] of oldDomains) {
    if (!newDomains.has(name)) events.push({ kind: "domain_removed", domain: name, before: covered(o) });
  }
  return events;
}

/** Replays events on a week's covered state: the covered state of the week after. */
function replay(state: Map<string, ReturnType<typeof covered>>, events: Event[]) {
  const next = new Map([...state].map(([k, v]) => [k, structuredClone(v)]));
  for (const e of events) {
    const name = e.domain as string;
    const d = next.get(name);
    switch (e.kind) {
      case "domain_added":
        next.set(name, structuredClone(e.after) as ReturnType<typeof covered>);
        break;
      case "domain_removed":
        next.delete(name);
        break;
      case "state_changed":
      case "platform_changed":
      case "plan_changed":
      case "country_changed":
      case "theme_changed": {
        const field = {
          state_changed: "state",
          platform_changed: "platform",
          plan_changed: "plan",
          country_changed: "country_code",
          theme_changed: "theme",
        }[e.kind] as "state";
        if (d) (d as Rec)[field] = e.after ?? null;
        break;
      }
      case "app_installed":
        d?.apps.push(e.app as string);
        break;
      case "app_uninstalled":
        if (d) d.apps = d.apps.filter((a) => a !== e.app);
        break;
      case "technology_added":
        d?.technologies.push(e.technology as string);
        break;
      case "technology_removed":
        if (d) d.technologies = d.technologies.filter((t) => t !== e.technology);
        break;
    }
  }
  for (const d of next.values()) {
    d.apps.sort(cmp);
    d.technologies.sort(cmp);
  }
  return next;
}

const coveredOf = (dir: string) =>
  new Map(readJsonl<Rec>(join(dir, "domains.jsonl")).map((d) => [d.name as string, covered(d)]));
/** Rank is covered only past the threshold: compared apart. */
const withoutRank = (m: Map<string, ReturnType<typeof covered>>) =>
  new Map([...m].map(([k, v]) => [k, { ...v, rank: 0 }]));

/**
 * The kinds in the order docs/decisions.md lists them ("Change feed", its "Kinds" item): the order
 * of a Domain's events, and of an App's, in the feed.
 */
function documentedKinds(): string[] {
  const doc = readFileSync(join(import.meta.dirname, "../../docs/decisions.md"), "utf8");
  const item = /^- \*\*Kinds\.\*\*[\s\S]*?(?=^- )/m.exec(doc.slice(doc.indexOf("## Change feed")))?.[0] ?? "";
  const known = new Set<string>(CHANGE_KINDS);
  return [...new Set([...item.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((k) => known.has(k)))];
}

/**
 * Events in feed order as docs/decisions.md says it ("Feed order"): the App events (by App, each
 * App's in the documented order of kinds), then each Domain's (by name, in that order of kinds,
 * then by App or technology), names compared byte by byte.
 */
function inFeedOrder(events: Event[]): Event[] {
  const kinds = documentedKinds();
  const bytes = (s: string | undefined) => Buffer.from(s ?? "");
  const key = (e: Event) =>
    [
      e.domain === undefined ? 0 : 1,
      bytes(e.domain ?? e.app),
      kinds.indexOf(e.kind),
      bytes(e.app),
      bytes(e.technology),
    ] as const;
  return [...events].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return (
      x[0] - y[0] ||
      Buffer.compare(x[1], y[1]) ||
      x[2] - y[2] ||
      Buffer.compare(x[3], y[3]) ||
      Buffer.compare(x[4], y[4])
    );
  });
}

const canonical = (e: Event) =>
  JSON.stringify([
    e.kind,
    e.domain ?? null,
    e.app ?? null,
    e.technology ?? null,
    e.before ?? null,
    e.after ?? null,
  ]);

// ------------------------------------------------------------------ reading the feed

interface Node {
  id: string;
  version: number;
  kind: string;
  domainName: string | null;
  app: { platform: string; token: string } | null;
  technology: string | null;
  before: unknown;
  after: unknown;
}
const NODE = "id version kind domainName app { platform token } technology before after";

async function feed(api: TestApi, filter: Record<string, unknown>, first = 1000): Promise<Node[]> {
  const out: Node[] = [];
  let after: string | null = null;
  for (;;) {
    type Page = { changes: { nodes: Node[]; pageInfo: { hasNextPage: boolean; endCursor: string } } };
    const r: GqlResult<Page> = await api.gql<{
      changes: { nodes: Node[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
    }>(
      `query($filter: ChangeFilter, $first: Int, $after: String) { changes(filter: $filter, first: $first, after: $after) { nodes { ${NODE} } pageInfo { hasNextPage endCursor } } }`,
      { filter, first, after },
    );
    expect(r.errors).toBeUndefined();
    const page: Page["changes"] | undefined = r.data?.changes;
    if (!page) throw new Error("no page");
    out.push(...page.nodes);
    if (!page.pageInfo.hasNextPage) return out;
    after = page.pageInfo.endCursor;
  }
}

const asEvent = (n: Node): Event => {
  const e: Event = { kind: n.kind.toLowerCase() };
  if (n.domainName) e.domain = n.domainName;
  if (n.app) e.app = `${n.app.platform}.${n.app.token}`;
  if (n.technology) e.technology = n.technology;
  if (n.before !== null) e.before = n.before;
  if (n.after !== null) e.after = n.after;
  return e;
};

/** The tables of a snapshot's copy, with their row counts. */
async function tablesOf(api: TestApi, location: string): Promise<[string, number][]> {
  const { config } = api.db;
  if (config.database.kind === "sqlite") {
    const db = new Database(join(config.dataDir, location), { readonly: true });
    try {
      const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
        name: string;
      }[];
      return names.map(({ name }) => [
        name,
        (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n,
      ]);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: config.database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [location],
    );
    const out: [string, number][] = [];
    for (const { name } of rows)
      out.push([
        name,
        Number((await client.query(`SELECT count(*) AS n FROM "${location}"."${name}"`)).rows[0].n),
      ]);
    return out;
  } finally {
    await client.end();
  }
}

it("lists the kinds in the order the docs give a Domain's events", () => {
  const documented = documentedKinds();
  expect(documented).toHaveLength(CHANGE_KINDS.length);
  // The load numbers its events by CHANGE_KINDS; GET /changes' `kinds` lists them from it too.
  expect([...CHANGE_KINDS]).toEqual(documented);
});

describe.each(databaseKinds())("the change feed on %s", (kind) => {
  let api: TestApi;
  let version = 1;
  /** The week served now: what the next load's events are a diff from (a failed run leaves its own). */
  let served = base;
  beforeAll(async () => {
    api = await startApi(kind, base);
  }, 120_000);
  afterAll(() => api?.close());

  it("a first load emits nothing", async () => {
    expect(await feed(api, {})).toEqual([]);
  });

  it("publishes exactly the diff of the two weeks, and replaying it gives the week after", async () => {
    let run = 0;
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0.5, max: 40, noNaN: true }),
        fc.integer({ min: 1, max: 1000 }),
        async (scale, seed) => {
          const week = join(scratch.dir, `${kind}-w${run++}`);
          const churn = Object.fromEntries(
            Object.entries(DEFAULT_CHURN).map(([k, v]) => [k, Math.min(1, v * scale)]),
          );
          await evolveDataset({ from: base, outDir: week, seed, churn });
          for (const to of [week, base]) {
            const from = served;
            const before = await api.snapshots.current();
            const tables = await tablesOf(api, before?.snapshot.location as string);
            await api.load(to);
            // The copy served before is read, never written: it keeps every table and row it had.
            expect(await tablesOf(api, before?.snapshot.location as string)).toEqual(tables);
            served = to;
            const previous = version;
            version = (await api.snapshots.current())?.snapshot.version ?? 0;
            const got = (await feed(api, { since: String(previous) })).map(asEvent);
            const want = diff(from, to);
            expect(got.map(canonical).sort()).toEqual(want.map(canonical).sort());
            // In the documented order, the same on both databases.
            expect(got.map(canonical)).toEqual(inFeedOrder(want).map(canonical));
            for (const e of got) seen.add(e.kind);
            expect(withoutRank(replay(coveredOf(from), got))).toEqual(withoutRank(coveredOf(to)));
          }
        },
      ),
      { numRuns: 5, seed: 37, examples: [[40, 7]] },
    );
    // Every kind of event was met, so every statement of the load was held to the brute force.
    expect([...seen].sort()).toEqual([...CHANGE_KINDS].sort());
  }, 300_000);
});
