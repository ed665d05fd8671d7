import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHURN, evolveDataset } from "../../src/dataset/evolve.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { REST_BASE } from "../../src/rest/routes.ts";
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
});
