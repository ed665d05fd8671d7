import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHURN, evolveDataset } from "../../src/dataset/evolve.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { SEGMENT_LIMITS } from "../../src/db/segments.ts";
import { DomainSet } from "../../src/query/domain-set.ts";
import { SPREAD_LIMITS, spreadOf } from "../../src/query/segment-members.ts";
import { REST_BASE } from "../../src/rest/routes.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { readJsonl } from "../support/jsonl.ts";

/**
 * Segments (issue 57, docs/decisions.md "Segments"): saved List Domains filters whose members are
 * compared at every load. The events a load publishes for a segment equal a brute force: the
 * difference of the segment's members in two exports (one before the load, one after, with the
 * same options), for random filters (fast-check), on both databases. A segment's events are its
 * account's alone, on every face of the feed.
 */

const scratch = tempDir("storegraph-segments-");
const base = join(scratch.dir, "base");

beforeAll(async () => {
  await generateDataset({ domains: 400, apps: 40, seed: 57, outDir: base });
}, 60_000);
afterAll(() => scratch.remove());

type Rec = Record<string, unknown>;

/** Values of the base week to build filters from (each held by some Domain). */
function valuesOf(dir: string) {
  const domains = readJsonl<Rec>(join(dir, "domains.jsonl"));
  const set = (f: (d: Rec) => unknown) =>
    [...new Set(domains.map(f).filter((v): v is string => typeof v === "string"))].sort();
  return {
    platforms: set((d) => d.platform),
    plans: set((d) => d.plan),
    countries: set((d) => d.country_code),
    states: set((d) => d.state),
    technologies: [
      ...new Set(domains.flatMap((d) => ((d.technologies ?? []) as { name: string }[]).map((t) => t.name))),
    ]
      .sort()
      .slice(0, 12),
  };
}

/** A random List Domains filter, as its options (the body PUT /segment/{name} takes): one to three terms. */
function filterArb(v: ReturnType<typeof valuesOf>): fc.Arbitrary<Record<string, string>> {
  const some = (values: string[]) =>
    fc.subarray(values, { minLength: 1, maxLength: 3 }).map((x) => x.join(","));
  const terms: fc.Arbitrary<Record<string, string>>[] = [
    fc.constantFrom(...v.platforms).map((p) => ({ "f:p": p })),
    some(v.plans).map((p) => ({ "f:plan": p, "f:plan:op": "or" })),
    fc
      .tuple(some(v.countries), fc.constantFrom("or", "not"))
      .map(([c, op]) => ({ "f:cc": c, "f:cc:op": op })),
    fc.constantFrom("Active", "Inactive", "Password Protected").map((d) => ({ "f:ds": d })),
    fc.constantFrom(...v.technologies).map((t) => ({ "f:tech": t })),
    fc
      .tuple(fc.integer({ min: 1, max: 420 }), fc.integer({ min: 1, max: 420 }))
      .map(([a, b]) => ({ "f:rankmin": String(Math.min(a, b)), "f:rankmax": String(Math.max(a, b)) })),
  ];
  return fc
    .uniqueArray(fc.integer({ min: 0, max: terms.length - 1 }), { minLength: 1, maxLength: 3 })
    .chain((picked) => fc.tuple(...picked.map((i) => terms[i])))
    .map((parts) => Object.assign({}, ...parts) as Record<string, string>);
}

/**
 * A brute-force spread: per dimension, the members having each value (a set-valued one counts each
 * of a Domain's values once), the `size` commonest kept (ties by value, byte by byte), and the
 * members having a value but none of those kept, as a facet counts them.
 */
function bruteSpread(
  members: Rec[],
  dimensions: Record<string, (d: Rec) => string[]>,
  size: number,
): {
  counts: Record<string, Record<string, number>>;
  other: Record<string, number>;
  values: Record<string, number>;
} {
  const counts: Record<string, Record<string, number>> = {};
  const other: Record<string, number> = {};
  const values: Record<string, number> = {};
  for (const [key, of] of Object.entries(dimensions)) {
    const n = new Map<string, number>();
    for (const d of members)
      for (const v of new Set(of(d).filter((x) => x !== ""))) n.set(v, (n.get(v) ?? 0) + 1);
    const top = [...n].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, size);
    counts[key] = Object.fromEntries(top);
    values[key] = n.size;
    const kept = new Set(top.map(([v]) => v));
    const outside = members.filter((d) => {
      const vs = of(d).filter((x) => x !== "");
      return vs.length > 0 && !vs.some((v) => kept.has(v));
    }).length;
    // Every dimension cut to the top is in other, 0 included (a Domain may hold a kept value and
    // cut ones).
    if (n.size > size) other[key] = outside;
  }
  return { counts, other, values };
}

/** How each dimension a test spreads over reads a Domain of the export. */
const one = (v: unknown) => (typeof v === "string" ? [v] : []);
const DIMENSIONS: Record<string, (d: Rec) => string[]> = {
  platform: (d) => one(d.platform),
  plan: (d) => one(d.plan),
  country_code: (d) => one(d.country_code),
  technologies: (d) => ((d.technologies ?? []) as Rec[]).map((t) => String(t.name)),
  apps: (d) =>
    ((d.apps ?? []) as Rec[]).filter((a) => a.removed_at == null).map((a) => `${a.platform}.${a.token}`),
  categories: (d) => ((d.categories ?? []) as unknown[]).map(String),
};
const pick = (keys: string[]) => Object.fromEntries(keys.map((k) => [k, DIMENSIONS[k]]));

describe.each(databaseKinds())("segments on %s", (kind) => {
  let api: TestApi;
  let served = base;
  let run = 0;
  beforeAll(async () => {
    api = await startApi(kind, base);
  }, 120_000);
  afterAll(() => api?.close());

  async function call(method: string, path: string, body?: unknown, key?: string) {
    const res = await api.app.fetch(`http://localhost${REST_BASE}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, text, json: text && !text.includes("\n{") ? safeJson(text) : null };
  }
  const safeJson = (t: string) => {
    try {
      return JSON.parse(t);
    } catch {
      return null;
    }
  };

  /** The names an export with these options answers (the brute force's members). */
  async function exported(options: Record<string, string>): Promise<Set<string>> {
    const q = new URLSearchParams({ ...options, fields: "name" });
    const res = await call("GET", `/domain/export?${q}`);
    expect(res.status).toBe(200);
    return new Set(
      res.text
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { name: string }).name),
    );
  }

  /** Every event of the feed after `since` (a version) for these options, as the key's account. */
  async function feed(options: Record<string, string>, key?: string): Promise<Rec[]> {
    const out: Rec[] = [];
    let cursor = "";
    for (;;) {
      const q = new URLSearchParams({ ...options, page_size: "1000", ...(cursor ? { cursor } : {}) });
      const res = await call("GET", `/changes?${q}`, undefined, key);
      expect(res.status, res.text).toBe(200);
      out.push(...(res.json.changes as Rec[]));
      if (!res.json.has_next_page) return out;
      cursor = res.json.next_cursor;
    }
  }

  async function nextWeek(scale: number, seed: number): Promise<string> {
    const week = join(scratch.dir, `${kind}-w${run++}`);
    const churn = Object.fromEntries(
      Object.entries(DEFAULT_CHURN).map(([k, v]) => [k, Math.min(1, v * scale)]),
    );
    await evolveDataset({ from: served, outDir: week, seed, churn });
    return week;
  }

  const version = async () => (await api.snapshots.current())?.snapshot.version ?? 0;

  it("saves, lists, answers and deletes a segment; refuses an invalid filter, naming it, storing nothing", async () => {
    const put = await call("PUT", "/segment/us-shopify", { "f:p": "shopify", "f:cc": "US" });
    expect(put.status, put.text).toBe(200);
    expect(put.json.segment).toMatchObject({
      name: "us-shopify",
      filter: { "f:p": "shopify", "f:cc": "US" },
    });
    expect(typeof put.json.segment.size).toBe("number");
    const bad = await call("PUT", "/segment/bad", { "f:cc": "USA" });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/f:cc/);
    const unknown = await call("PUT", "/segment/bad", { "f:nope": "x" });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatch(/f:nope/);
    const list = await call("GET", "/segment");
    expect(list.status).toBe(200);
    expect(list.json.segments.map((s: Rec) => s.name)).toEqual(["us-shopify"]);
    expect(list.json.segments[0]).not.toHaveProperty("history");
    const one = await call("GET", "/segment/us-shopify");
    expect(one.status).toBe(200);
    expect(one.json.segment.history).toEqual([]);
    // What GET answers can be PUT back.
    const again = await call("PUT", "/segment/us-shopify", one.json.segment.filter);
    expect(again.status).toBe(200);
    expect(again.json.segment.filter).toEqual(one.json.segment.filter);
    expect((await call("GET", "/segment/nothing")).status).toBe(404);
    expect((await call("PUT", "/segment/-bad-", {})).status).toBe(400);
    // GraphQL sees the same.
    const g = await api.gql<{ segments: { name: string; size: number }[] }>("{ segments { name size } }");
    expect(g.data?.segments).toEqual([{ name: "us-shopify", size: put.json.segment.size }]);
    // f:segment reads the segment's members wherever f:list is accepted.
    const members = await exported({ "f:p": "shopify", "f:cc": "US" });
    expect(await exported({ "f:segment": "us-shopify" })).toEqual(members);
    const same = async (path: string) => {
      const a = await call("GET", `${path}${path.includes("?") ? "&" : "?"}f:segment=us-shopify`);
      const b = await call("GET", `${path}${path.includes("?") ? "&" : "?"}f:p=shopify&f:cc=US`);
      expect(a.status, a.text).toBe(200);
      // The same answer (a cursor names its own query).
      const { next_cursor: _a, ...x } = a.json;
      const { next_cursor: _b, ...y } = b.json;
      expect(x).toEqual(y);
    };
    await same("/domain?fields=name&page_size=50");
    // Its answer is not the snapshot's alone (the segment's filter may change before the next load).
    const tagged = await api.app.fetch(
      `http://localhost${REST_BASE}/domain?f:segment=us-shopify&fields=name`,
    );
    expect(tagged.headers.get("etag")).toBeNull();
    await tagged.body?.cancel();
    await same("/domain/facets?facets=plan,p");
    await same("/changes?page_size=1000");
    expect((await call("GET", "/domain?f:segment=nothing")).json.error).toMatch(
      /^f:segment: no segment named/,
    );
    // A segment names no other segment.
    const nested = await call("PUT", "/segment/nested", { "f:segment": "us-shopify" });
    expect(nested.status).toBe(400);
    expect(nested.json.error).toMatch(/f:segment/);
    // Nor in a term of and, or and not (where two segments could name each other round for ever).
    for (const term of ["and", "or", "not"]) {
      const deep = await api.gql(
        `mutation { saveSegment(name: "nested", filter: { ${term}: [{ segment: "us-shopify" }] }) { name } }`,
      );
      expect(deep.errors?.[0].message, term).toMatch(
        /^filter\.segment: a segment's filter cannot name a segment/,
      );
      expect(deep.errors?.[0].extensions, term).toMatchObject({ code: "BAD_USER_INPUT" });
    }
    expect((await call("GET", "/segment/nested")).status).toBe(404);
    const del = await call("DELETE", "/segment/us-shopify");
    expect(del.status).toBe(200);
    expect((await call("GET", "/segment")).json.segments).toEqual([]);
    expect((await call("DELETE", "/segment/us-shopify")).status).toBe(404);
  });

  it(`holds at most ${SEGMENT_LIMITS.segments} segments an account`, async () => {
    const key = await api.createKey("enterprise", "limits");
    for (let i = 0; i < SEGMENT_LIMITS.segments; i++) {
      const r = await call("PUT", `/segment/s${i}`, { "f:p": "shopify" }, key);
      expect(r.status, r.text).toBe(200);
    }
    const over = await call("PUT", "/segment/one-more", { "f:p": "shopify" }, key);
    expect(over.status).toBe(400);
    expect(over.json.error).toMatch(/100 segments/);
    // Replacing one is no new segment.
    expect((await call("PUT", "/segment/s0", { "f:p": "woocommerce" }, key)).status).toBe(200);
    const r = await call("GET", "/segment", undefined, key);
    expect(r.json.segments).toHaveLength(SEGMENT_LIMITS.segments);
    for (let i = 0; i < SEGMENT_LIMITS.segments; i++) await call("DELETE", `/segment/s${i}`, undefined, key);
  }, 120_000);

  it("entered and left equal a brute-force diff of two exports, for random filters", async () => {
    const values = valuesOf(base);
    const other = await api.createKey("enterprise", "other");
    let moves = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(filterArb(values), { minLength: 1, maxLength: 4 }),
        fc.double({ min: 2, max: 30, noNaN: true }),
        fc.integer({ min: 1, max: 1000 }),
        async (filters, scale, seed) => {
          const names = filters.map((_, i) => `r${run}-${i}`);
          try {
            for (const [i, f] of filters.entries()) {
              const r = await call("PUT", `/segment/${names[i]}`, f);
              expect(r.status, r.text).toBe(200);
            }
            const before = await Promise.all(filters.map((f) => exported(f)));
            const previous = await version();
            const week = await nextWeek(scale, seed);
            await api.load(week);
            served = week;
            const after = await Promise.all(filters.map((f) => exported(f)));
            for (const [i, name] of names.entries()) {
              const events = await feed({ segment: name, since: String(previous) });
              const got = (kind: string) =>
                events
                  .filter((e) => e.kind === kind)
                  .map((e) => e.domain as string)
                  .sort();
              const entered = [...after[i]].filter((n) => !before[i].has(n)).sort();
              const left = [...before[i]].filter((n) => !after[i].has(n)).sort();
              moves += entered.length + left.length;
              expect(got("segment_entered")).toEqual(entered);
              expect(got("segment_left")).toEqual(left);
              for (const e of events) {
                expect(e.segment).toBe(name);
                expect((e.after as Rec).segment).toBe(name);
                expect(Array.isArray((e.after as Rec).changes)).toBe(true);
              }
              // The size history is the segment's own rows.
              const one = await call("GET", `/segment/${name}`);
              expect(one.json.segment.history[0]).toMatchObject({
                version: await version(),
                size: after[i].size,
                entered: entered.length,
                left: left.length,
              });
              const counts = one.json.segment.history[0].counts as Record<string, Record<string, number>>;
              const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
              expect(sum(counts.platform)).toBe(after[i].size);
              // Another account sees none of it: on the feed, and segment= naming it is a segment
              // that account does not have (404).
              const theirs = await call(
                "GET",
                `/changes?segment=${name}&since=${previous}`,
                undefined,
                other,
              );
              expect(theirs.status, theirs.text).toBe(404);
              expect(theirs.json.error).toMatch(/^segment: no segment named/);
            }
            const theirs = await feed({ since: String(previous) }, other);
            expect(theirs.filter((e) => String(e.kind).startsWith("segment_"))).toEqual([]);
          } finally {
            for (const name of names) await call("DELETE", `/segment/${name}`);
          }
        },
      ),
      { numRuns: 5, seed: 57, endOnFailure: true },
    );
    // Domains did move, so the comparison was held to the brute force.
    expect(moves).toBeGreaterThan(0);
  }, 600_000);

  it("a segment's events are seen by its account alone: GET /changes, GraphQL changes, the export, the stream and the subscription", async () => {
    const other = await api.createKey("enterprise", "visibility");
    const kinds = "segment_entered,segment_left";
    const mine = await feed({ kinds });
    expect(mine.length).toBeGreaterThan(0);
    expect(await feed({ kinds }, other)).toEqual([]);
    const gql = async (key: string, query: string) => {
      const res = await api.app.fetch("http://localhost/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ query }),
      });
      return (await res.json()) as { data: { changes: { nodes: { id: string; segment: string }[] } } };
    };
    const q =
      "{ changes(filter: { kinds: [segment_entered, segment_left] }, first: 1000) { nodes { id segment } } }";
    expect((await gql(api.key, q)).data.changes.nodes.map((n) => n.id)).toEqual(mine.map((c) => c.id));
    expect((await gql(other, q)).data.changes.nodes).toEqual([]);
    // The export, the stream (from the start of the feed) and the subscription.
    const exported = async (key: string) =>
      (await call("GET", `/changes/export?kinds=${kinds}&fields=id`, undefined, key)).text
        .split("\n")
        .filter(Boolean);
    expect((await exported(api.key)).length).toBe(mine.length);
    expect(await exported(other)).toEqual([]);
    const streamed = async (url: string, init: RequestInit) => {
      const controller = new AbortController();
      const res = await api.app.fetch(url, { ...init, signal: controller.signal });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let text = "";
      const stop = setTimeout(() => {
        controller.abort();
        reader.cancel().catch(() => {});
      }, 1500);
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          text += new TextDecoder().decode(value);
        }
      } catch {
        // aborted: what came is what was sent
      } finally {
        clearTimeout(stop);
      }
      return text;
    };
    const stream = (key: string) =>
      streamed(`http://localhost${REST_BASE}/changes/stream?kinds=${kinds}&cursor=0&max_seconds=1`, {
        headers: { authorization: `Bearer ${key}` },
      });
    // The ids of the stream's events that carry a change of a segment (not its opening event).
    const ids = (text: string) =>
      text
        .split("\n\n")
        .filter((block) => block.includes("segment_"))
        .map((block) => /^id: ?(\S+)$/m.exec(block)?.[1]);
    expect(ids(await stream(api.key))).toEqual(mine.map((c) => String(c.id)));
    expect(ids(await stream(other))).toEqual([]);
    const subscription = (key: string) =>
      streamed("http://localhost/graphql", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          authorization: `Bearer ${key}`,
        },
        body: JSON.stringify({
          query:
            'subscription { changes(after: "0", filter: { kinds: [segment_entered, segment_left] }) { id } }',
        }),
      });
    const sent = (text: string) => [...text.matchAll(/"id":"([^"]+)"/g)].map((m) => m[1]);
    expect(sent(await subscription(api.key))).toEqual(mine.map((c) => String(c.id)));
    expect(sent(await subscription(other))).toEqual([]);
  });

  it("each event names the Domain's changes of the load that moved it, of the kinds its filter tests", async () => {
    const name = `platform-${run}`;
    expect((await call("PUT", `/segment/${name}`, { "f:p": "shopify" })).status).toBe(200);
    const previous = await version();
    const week = await nextWeek(25, 3);
    await api.load(week);
    served = week;
    const events = await feed({ segment: name, since: String(previous) });
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      const kinds = ((e.after as Rec).changes as Rec[]).map((c) => c.kind);
      const moved =
        e.kind === "segment_entered"
          ? ["domain_added", "platform_changed"]
          : ["domain_removed", "platform_changed"];
      expect(
        kinds.some((k) => moved.includes(k as string)),
        JSON.stringify(e),
      ).toBe(true);
      expect(
        kinds.every((k) => ["domain_added", "domain_removed", "platform_changed"].includes(k as string)),
      ).toBe(true);
    }
    await call("DELETE", `/segment/${name}`);
  }, 120_000);

  it("a segment saved between loads sends only its entries and exits; replacing its filter emits nothing until the next load", async () => {
    const name = `between-${run}`;
    expect((await call("PUT", `/segment/${name}`, { "f:p": "shopify" })).status).toBe(200);
    const atSave = await version();
    // Replaced before any load: nothing emitted now.
    expect((await call("PUT", `/segment/${name}`, { "f:ds": "Active" })).status).toBe(200);
    expect(await feed({ segment: name })).toEqual([]);
    const before = await exported({ "f:ds": "Active" });
    await api.load(await nextWeek(5, 9));
    served = join(scratch.dir, `${kind}-w${run - 1}`);
    const events = await feed({ segment: name, since: String(atSave) });
    const after = await exported({ "f:ds": "Active" });
    // Only the moves, never the whole membership.
    const moved =
      new Set([...after].filter((n) => !before.has(n))).size +
      [...before].filter((n) => !after.has(n)).length;
    expect(events).toHaveLength(moved);
    expect(events.length).toBeLessThan(after.size);
    await call("DELETE", `/segment/${name}`);
  }, 120_000);

  it("counts a segment's spread at each load: the default as before, the dimensions it names as a brute force over the export, a change from the next load", async () => {
    const wide = `spread-${run}`;
    const plain = `plain-${run}`;
    const spread = ["tech", "an", "cat", "cc"];
    expect((await call("PUT", `/segment/${plain}`, { "f:ds": "Active" })).status).toBe(200);
    const put = await call("PUT", `/segment/${wide}`, { "f:ds": "Active", spread });
    expect(put.status, put.text).toBe(200);
    expect(put.json.segment.spread).toEqual(spread);
    // The default, answered as facets= names it (REST) and as the enum (GraphQL).
    expect((await call("GET", `/segment/${plain}`)).json.segment.spread).toEqual(["p", "plan", "cc"]);
    // A comma-separated string is a list too.
    const comma = await call("PUT", "/segment/spread-comma", { "f:p": "shopify", spread: "plan, p" });
    expect(comma.status, comma.text).toBe(200);
    expect(comma.json.segment.spread).toEqual(["plan", "p"]);
    await call("DELETE", "/segment/spread-comma");

    // Refusals name spread and the bad value, and store nothing.
    const refused = async (body: unknown, pattern: RegExp) => {
      const r = await call("PUT", "/segment/spread-bad", body);
      expect(r.status, r.text).toBe(400);
      expect(r.json.error).toMatch(pattern);
    };
    await refused({ spread: ["techh"] }, /^spread: unknown dimension "techh" \(did you mean "tech"/);
    await refused({ spread: ["country"] }, /^spread: unknown dimension "country" \(did you mean "cc"/);
    await refused({ spread: ["cc", "p", "cc"] }, /^spread: names cc twice/);
    await refused(
      { spread: ["cc", "p", "plan", "tech", "an", "cat", "ds", "curr", "lang"] },
      new RegExp(`^spread: takes at most ${SPREAD_LIMITS.dimensions} dimensions; got 9`),
    );
    await refused({ spread: 5 }, /^spread: must be a list of dimensions/);
    await refused({ spread: { cc: true } }, /^spread: must be a list of dimensions/);
    await refused({ spread: ["cc", 3] }, /^spread: must be a list of strings/);
    await refused(
      { spread: [] },
      /^spread: names no dimension; leave it out for the default \(p, plan, cc\)/,
    );
    expect((await call("GET", "/segment/spread-bad")).status).toBe(404);
    const gqlRefused = await api.gql(
      'mutation { saveSegment(name: "spread-bad", spread: [COUNTRY_CODE, COUNTRY_CODE]) { name } }',
    );
    expect(gqlRefused.errors?.[0].message).toBe("spread: names COUNTRY_CODE twice");
    expect(gqlRefused.errors?.[0].extensions).toMatchObject({ code: "BAD_USER_INPUT", argument: "spread" });
    const gqlUnknown = await api.gql('mutation { saveSegment(name: "spread-bad", spread: [TECH]) { name } }');
    // Refused by validation, before the resolver: the enum's own error, and that one only.
    expect(gqlUnknown.errors?.map((e) => [e.message, e.extensions?.code])).toEqual([
      ['Value "TECH" does not exist in "DomainFacetDimension" enum.', "GRAPHQL_VALIDATION_FAILED"],
    ]);
    expect((await call("GET", "/segment/spread-bad")).status).toBe(404);

    // The next load counts each over its own spread: a brute force over the export of its members.
    const fields = "name,platform,plan,country_code,technologies,apps,categories";
    const membersNow = async () => {
      const res = await call("GET", `/domain/export?f:ds=Active&fields=${fields}`);
      expect(res.status).toBe(200);
      return res.text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Rec);
    };
    const loadNext = async (scale: number, seed: number) => {
      const week = await nextWeek(scale, seed);
      await api.load(week);
      served = week;
    };
    await loadNext(5, 11);
    const members = await membersNow();
    const history = async (name: string) =>
      (await call("GET", `/segment/${name}`)).json.segment.history as Rec[];
    const [plainLoad] = await history(plain);
    const [wideLoad] = await history(wide);
    const defaults = bruteSpread(members, pick(["platform", "plan", "country_code"]), SPREAD_LIMITS.values);
    expect(plainLoad.size).toBe(members.length);
    expect(plainLoad.counts).toEqual(defaults.counts);
    expect(Object.keys(plainLoad.counts as Rec)).toEqual(["platform", "plan", "country_code"]);
    expect(plainLoad.other ?? {}).toEqual(defaults.other);
    const brute = bruteSpread(
      members,
      pick(["technologies", "apps", "categories", "country_code"]),
      SPREAD_LIMITS.values,
    );
    expect(wideLoad.counts).toEqual(brute.counts);
    expect(Object.keys(wideLoad.counts as Rec)).toEqual([
      "technologies",
      "apps",
      "categories",
      "country_code",
    ]);
    expect(wideLoad.other ?? {}).toEqual(brute.other);
    // The technologies were more than a dimension keeps: cut to the commonest, the rest as other.
    expect(brute.values.technologies).toBeGreaterThan(SPREAD_LIMITS.values);
    expect(Object.keys((wideLoad.counts as Record<string, Rec>).technologies)).toHaveLength(
      SPREAD_LIMITS.values,
    );
    // A cut held to the same brute force at a smaller size, from the served snapshot's index; a
    // dimension the index lacks is left out.
    const current = await api.snapshots.current();
    if (!current) throw new Error("no served snapshot");
    const found = await new DomainSet(current.sql, { state: { in: ["Active"] } }).indexed();
    if (!found) throw new Error("no count index");
    const small = spreadOf(found.index, found.bitmap, ["technologies", "apps", "countryCode"], 5);
    const bruteSmall = bruteSpread(members, pick(["technologies", "apps", "country_code"]), 5);
    expect(small).toEqual({ counts: bruteSmall.counts, other: bruteSmall.other });
    expect(Object.keys(small.other).length).toBeGreaterThan(0);
    const lacking = { ...found.index, children: new Map() };
    expect(Object.keys(spreadOf(lacking, found.bitmap, ["technologies", "countryCode"]).counts)).toEqual([
      "country_code",
    ]);

    // GraphQL answers the same.
    const g = await api.gql<{
      segment: {
        spread: string[];
        history: { version: number; size: number; counts: Rec; other: Rec | null }[];
      };
    }>(`{ segment(name: "${wide}") { spread history { version size counts other } } }`);
    expect(g.data?.segment.spread).toEqual(["TECHNOLOGIES", "APPS", "CATEGORIES", "COUNTRY_CODE"]);
    expect(g.data?.segment.history[0]).toEqual({
      version: wideLoad.version,
      size: wideLoad.size,
      counts: wideLoad.counts,
      other: wideLoad.other ?? null,
    });
    const gPlain = await api.gql<{ segment: { spread: string[] } }>(
      `{ segment(name: "${plain}") { spread } }`,
    );
    expect(gPlain.data?.segment.spread).toEqual(["PLATFORM", "PLAN", "COUNTRY_CODE"]);
    // saveSegment takes the enum; REST answers it as facets= names it.
    const saved = await api.gql<{ saveSegment: { spread: string[] } }>(
      `mutation { saveSegment(name: "${wide}", filter: { state: { values: ["Active"] } }, spread: [PLATFORM]) { spread } }`,
    );
    expect(saved.data?.saveSegment.spread).toEqual(["PLATFORM"]);
    expect((await call("GET", `/segment/${wide}`)).json.segment.spread).toEqual(["p"]);

    // A changed spread counts from the next load; the loads before keep what they had.
    expect((await history(wide))[0]).toEqual(wideLoad);
    await loadNext(5, 12);
    const after = await history(wide);
    expect(after[1]).toEqual(wideLoad);
    expect(Object.keys(after[0].counts as Rec)).toEqual(["platform"]);
    expect(after[0].counts).toEqual(
      bruteSpread(await membersNow(), pick(["platform"]), SPREAD_LIMITS.values).counts,
    );
    await call("DELETE", `/segment/${wide}`);
    await call("DELETE", `/segment/${plain}`);
  }, 300_000);
});
