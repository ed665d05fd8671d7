import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REST_BASE } from "../../src/rest/routes.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * GET /changes/stream (issue 38): the change feed as Server-Sent Events, on both databases. A
 * stream learns of a load without polling by the client, each event's id is its feed cursor, and
 * Last-Event-ID resumes after it with nothing lost or repeated.
 */
interface Event {
  id?: string;
  event?: string;
  data?: string;
}

/** An open stream: its events as they come, and its comments. */
class Stream {
  private text = "";
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  ended = false;
  constructor(readonly response: Response) {
    this.reader = (response.body as ReadableStream<Uint8Array>).getReader();
  }
  /** The blocks received so far (an event, a comment or the retry line each). */
  blocks(): string[] {
    return this.text.split("\n\n").slice(0, -1);
  }
  events(): Event[] {
    return this.blocks()
      .filter((b) => b.includes("event: "))
      .map((b) =>
        Object.fromEntries(
          b.split("\n").map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]),
        ),
      );
  }
  /** Reads until `done` holds of what came, the stream ends, or `ms` pass. */
  async until(done: (s: Stream) => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done(this) && !this.ended && Date.now() < deadline) {
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<null>((r) => setTimeout(() => r(null), Math.max(1, deadline - Date.now()))),
      ]);
      if (chunk === null) break;
      if (chunk.done) this.ended = true;
      else this.text += this.decoder.decode(chunk.value, { stream: true });
    }
  }
  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}

describe.each(databaseKinds())("GET /changes/stream on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-stream-");
  let week = 0;

  /** Loads the next week: the fixture, without one of its Domains every other week. */
  const loadNext = async () => {
    week++;
    const f = validFixture();
    if (week % 2 === 1) f.domains = f.domains.filter((d) => d.name !== "old-shop.example.com");
    await api.load(writeSnapshotDir(join(tmp.dir, `w${week}`), f));
  };

  beforeAll(async () => {
    api = await startApi(
      kind,
      writeSnapshotDir(join(tmp.dir, "w0"), validFixture()),
      {},
      { streamHeartbeatMs: 300 },
    );
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  const open = async (query = "", headers: Record<string, string> = {}) =>
    new Stream(await api.app.fetch(`http://localhost${REST_BASE}/changes/stream${query}`, { headers }));

  it("pushes the next load's changes as events whose ids are feed cursors, and keeps the stream alive", async () => {
    const s = await open("?fields=id,kind,domain");
    expect(s.response.status).toBe(200);
    expect(s.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    await s.until((x) => x.blocks().some((b) => b.startsWith(": keep-alive")), 5000);
    expect(s.blocks()[0]).toMatch(/^retry: 2000\nid: \d+$/);
    expect(s.blocks()).toContain(": keep-alive");
    expect(s.events()).toEqual([]);
    await loadNext();
    await s.until((x) => x.events().some((e) => e.data?.includes('"domain_removed"')));
    await s.close();
    const events = s.events();
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(e.event).toBe("change");
      const data = JSON.parse(e.data as string);
      expect(e.id).toBe(data.id);
    }
    expect(events.map((e) => JSON.parse(e.data as string))).toContainEqual({
      id: expect.any(String),
      kind: "domain_removed",
      domain: "old-shop.example.com",
    });
    // In feed order.
    const ids = events.map((e) => Number(e.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it("resumes after Last-Event-ID or cursor with nothing lost or repeated, and ends after max_seconds", async () => {
    const feed = await api.gql<{ changes: { nodes: { id: string }[] } }>(
      "{ changes(first: 1000) { nodes { id } } }",
    );
    const all = (feed.data?.changes.nodes ?? []).map((n) => n.id);
    expect(all.length).toBeGreaterThan(0);
    for (const [query, headers, expected] of [
      ["?max_seconds=1&fields=id", { "last-event-id": "0" }, all],
      ["?max_seconds=1&fields=id", { "last-event-id": all[0] }, all.slice(1)],
      [`?max_seconds=1&fields=id&cursor=${all[0]}`, {}, all.slice(1)],
      // An EventSource reconnects to the URL it opened, with the last event it took: that wins.
      ["?max_seconds=1&fields=id&cursor=0", { "last-event-id": all[0] }, all.slice(1)],
    ] as const) {
      const s = await open(query, headers);
      expect(s.response.status).toBe(200);
      await s.until(() => false, 5000);
      expect(s.ended, "max_seconds ended it").toBe(true);
      expect(s.events().map((e) => e.id)).toEqual(expected);
    }
  });

  it("filters as the feed does: kinds, and f:list with the account's list", async () => {
    await api.gql(
      'mutation { addDomainsToList(name: "watched", domains: ["shop.example.com"]) { countDomainsAdded } }',
    );
    const listed = await open("?fields=kind,domain&f:list=watched&max_seconds=8");
    const removals = await open("?fields=kind,domain&kinds=domain_added&max_seconds=8");
    await loadNext(); // old-shop.example.com comes back: domain_added
    // Both read at once: a stream reads the feed only as its client takes what it sent.
    await Promise.all([listed.until(() => false, 12_000), removals.until(() => false, 12_000)]);
    expect(listed.events().map((e) => JSON.parse(e.data as string).domain)).not.toContain(
      "old-shop.example.com",
    );
    for (const e of listed.events()) expect(JSON.parse(e.data as string).domain).toBe("shop.example.com");
    expect(removals.events().map((e) => JSON.parse(e.data as string))).toEqual([
      { kind: "domain_added", domain: "old-shop.example.com" },
    ]);
  });

  it("GraphQL's changes subscription over SSE: the feed after `after`, then the next load's changes", async () => {
    const subscribe = async (query: string, variables: Record<string, unknown> = {}) =>
      new Stream(
        await api.app.fetch("http://localhost/graphql", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ query, variables }),
        }),
      );
    const changesOf = (s: Stream) =>
      s
        .blocks()
        .filter((b) => b.startsWith("event: next"))
        .map(
          (b) =>
            JSON.parse(b.slice(b.indexOf("data: ") + 6)) as {
              data?: { changes: { id: string; kind: string; domainName: string } };
              errors?: unknown[];
            },
        );
    const feed = await api.gql<{ changes: { nodes: { id: string }[] } }>(
      "{ changes(first: 1000) { nodes { id } } }",
    );
    const all = (feed.data?.changes.nodes ?? []).map((n) => n.id);
    // From the feed's start: every change there is, in order.
    const past = await subscribe('subscription { changes(after: "0") { id kind domainName } }');
    expect(past.response.status).toBe(200);
    expect(past.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await past.until((x) => changesOf(x).length >= all.length, 5000);
    await past.close();
    expect(changesOf(past).map((c) => c.data?.changes.id)).toEqual(all);
    // Live: the next load's changes, and no error.
    const live = await subscribe(
      "subscription($k: [ChangeKind!]) { changes(filter: { kinds: $k }) { id kind domainName } }",
      {
        k: ["domain_removed", "domain_added"],
      },
    );
    await loadNext();
    await live.until((x) => changesOf(x).length > 0, 10_000);
    await live.close();
    const got = changesOf(live);
    expect(got.length).toBeGreaterThan(0);
    for (const c of got) {
      expect(c.errors).toBeUndefined();
      expect(["domain_removed", "domain_added"]).toContain(c.data?.changes.kind);
      expect(Number(c.data?.changes.id)).toBeGreaterThan(Number(all[all.length - 1]));
    }
    // A cursor that is none is the client's error.
    const bad = await subscribe('subscription { changes(after: "x") { id } }');
    await bad.until((x) => x.blocks().some((b) => b.includes("errors")), 5000);
    await bad.close();
    expect(bad.blocks().join("\n")).toMatch(/after: is not a cursor of the change feed/);
  });

  it("streams of the same options, woken by the same load, share its reads and each get every change", async () => {
    const streams = await Promise.all([1, 2, 3].map(() => open("?fields=id,kind&max_seconds=6")));
    await loadNext();
    await Promise.all(streams.map((s) => s.until(() => false, 10_000)));
    const ids = streams.map((s) => s.events().map((e) => e.id));
    expect(ids[0].length).toBeGreaterThan(0);
    expect(ids[1]).toEqual(ids[0]);
    expect(ids[2]).toEqual(ids[0]);
  });

  it("a bad option, cursor or Last-Event-ID is a 400 naming it, before any event", async () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ["?cursor=abc", {}, /^cursor: is not a cursor of the change feed/],
      ["", { "last-event-id": "x1" }, /^Last-Event-ID: is not a cursor of the change feed/],
      ["?kinds=nope", {}, /^kinds: unknown kind "nope"/],
      ["?max_seconds=0", {}, /^max_seconds: must be at least 1/],
      ["?f:list=nope", {}, /^f:list: no list named "nope"/],
      ["?cursor=999999999", {}, /^cursor: is past the end of the change feed/],
      ["?page_size=10", {}, /page_size/],
    ];
    for (const [query, headers, message] of cases) {
      const res = await api.app.fetch(`http://localhost${REST_BASE}/changes/stream${query}`, { headers });
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: string }).error, query).toMatch(message);
    }
  });
});

describe("GET /changes/stream, two gateways in one process", () => {
  const tmp = tempDir("storegraph-stream-two-");
  afterAll(() => tmp.remove());

  it("keeps each gateway's shared pages its own (a snapshot's version names it only in its database)", async () => {
    // Two databases at the same version with different changes: each stream reads its own.
    const apis: TestApi[] = [];
    try {
      for (const [i, gone] of ["old-shop.example.com", "gone.example.net"].entries()) {
        const api = await startApi("sqlite", writeSnapshotDir(join(tmp.dir, `a${i}`), validFixture()));
        apis.push(api);
        const f = validFixture();
        f.domains = f.domains.filter((d) => d.name !== gone);
        await api.load(writeSnapshotDir(join(tmp.dir, `b${i}`), f));
      }
      const removed = [];
      for (const api of apis) {
        const s = new Stream(
          await api.app.fetch(
            `http://localhost${REST_BASE}/changes/stream?kinds=domain_removed&fields=domain&max_seconds=1`,
            { headers: { "last-event-id": "0" } },
          ),
        );
        await s.until(() => false, 3000);
        removed.push(s.events().map((e) => JSON.parse(e.data as string).domain));
      }
      expect(removed).toEqual([["old-shop.example.com"], ["gone.example.net"]]);
    } finally {
      for (const api of apis) await api.close();
    }
  });
});
