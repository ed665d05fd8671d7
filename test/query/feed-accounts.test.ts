import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  type GraphQLField,
  type GraphQLNamedType,
  GraphQLObjectType,
  type GraphQLOutputType,
  getNamedType,
  isInputObjectType,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHURN, evolveDataset } from "../../src/dataset/evolve.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { loadSnapshot } from "../../src/load-pipeline.ts";
import { TOOLS } from "../../src/mcp/catalogue.ts";
import { argumentName, formsOf, operationOf } from "../../src/mcp/tool-spec.ts";
import { OPERATIONS, REST_BASE } from "../../src/rest/routes.ts";
import { schema } from "../../src/schema/index.ts";
import { startApi, type TestApi, tempDir, testLoadSteps } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { connect, textOf } from "../support/mcp.ts";
import { Receiver } from "../webhooks/receiver.ts";

/**
 * An account's own events (segment_entered, segment_left) are read by that account alone
 * (docs/decisions.md, "Segments"), whichever face reads the feed (issue 70). The faces are found,
 * not listed: every GraphQL field whose type holds the change type (through a connection's nodes
 * too), every REST route whose records are changes, every MCP tool answered by such a route, and
 * the webhooks. Two accounts save a segment of the same name and filter, so that every Domain that
 * moves has an event of each: an answer that shows one account the other's as well as its own is
 * caught by the count of each cursor (the two accounts' own events have the same places, so that a
 * cursor tells neither anything of the other's: issue 70, item 2).
 * And every statement that reads the feed's table is written in the one module that applies the
 * rule (src/db/change-feed.ts, seenBy).
 */

const SRC = join(import.meta.dirname, "../../src");
const FEED_MODULE = "db/change-feed.ts";
/** A statement's text reading the events: FROM or JOIN the table, however its schema is written. */
const READS_EVENTS = /\b(?:FROM|JOIN)\s+(?:\{meta\}\.|\$\{[^}]+\}\.?)?change_event\b/gi;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("the feed's reads", () => {
  it("every statement reading change_event is in src/db/change-feed.ts", () => {
    const outside: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const name = relative(SRC, file);
      if (name === FEED_MODULE || name.startsWith("generated/")) continue;
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(READS_EVENTS)) {
        // A DELETE FROM is a write (the stores' prune is built in the module too).
        if (/DELETE\s+$/i.test(text.slice(Math.max(0, (m.index ?? 0) - 10), m.index))) continue;
        outside.push(`${name}: ${m[0]}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it("in it, every function reading events for a reader takes the reader and applies seenBy", () => {
    const text = readFileSync(join(SRC, FEED_MODULE), "utf8");
    // Functions that answer no event to a reader: the feed's ends and bounds of no account, the
    // oldest load kept, a bench's counts, the publish's prune.
    const noReader = new Set([
      "feedBounds",
      "feedStart",
      "lastEventOfAll",
      "loadEventCounts",
      "pruneEventsStatements",
    ]);
    const functions = [
      ...text.matchAll(/^export (?:async )?function (\w+)\(([^)]*)\)[^{]*\{([\s\S]*?)^\}/gm),
    ];
    const reads = new RegExp(READS_EVENTS.source, "i");
    const checked: string[] = [];
    for (const [, name, params, body] of functions) {
      if (!reads.test(body ?? "") || noReader.has(name as string)) continue;
      checked.push(name as string);
      expect(params, `${name} takes its reader`).toMatch(/: (FeedReader|FeedWhere)\b/);
      expect(body, `${name} applies seenBy`).toMatch(/\bseenBy\(/);
    }
    expect(checked).toEqual(expect.arrayContaining(["readFeed", "feedEnd", "domainEvents"]));
  });
});

const scratch = tempDir("storegraph-feed-accounts-");
const weeks = [0, 1, 2].map((w) => join(scratch.dir, `w${w}`));

beforeAll(async () => {
  await generateDataset({ domains: 300, apps: 30, seed: 70, outDir: weeks[0] as string });
  const churn = Object.fromEntries(Object.entries(DEFAULT_CHURN).map(([k, v]) => [k, Math.min(1, v * 4)]));
  await evolveDataset({ from: weeks[0] as string, outDir: weeks[1] as string, seed: 70, churn });
  await evolveDataset({ from: weeks[1] as string, outDir: weeks[2] as string, seed: 71, churn });
}, 60_000);
afterAll(() => scratch.remove());

type Json = Record<string, unknown>;
const SEGMENT_KINDS = ["segment_entered", "segment_left"];

/** The segment events of an answer (JSON, JSON Lines or Server-Sent Events): their ids. */
function segmentIds(text: string): string[] {
  const values: unknown[] = [];
  try {
    values.push(JSON.parse(text));
  } catch {
    for (const line of text.split("\n")) {
      const json = line.replace(/^data: ?/, "");
      try {
        values.push(JSON.parse(json));
      } catch {
        // an id, event or comment line
      }
    }
  }
  const ids: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      const o = v as Json;
      if (SEGMENT_KINDS.includes(o.kind as string) && o.id !== undefined) ids.push(String(o.id));
      else Object.values(o).forEach(walk);
    }
  };
  walk(values);
  return ids;
}

/** The change type's fields: a field holds changes when its type is Change, or has nodes of it. */
function holdsChanges(type: GraphQLOutputType): "change" | "connection" | null {
  const named = getNamedType(type) as GraphQLNamedType;
  if (named.name === "Change") return "change";
  if (named instanceof GraphQLObjectType) {
    const nodes = named.getFields().nodes;
    if (nodes && getNamedType(nodes.type).name === "Change") return "connection";
  }
  return null;
}

describe.each(databaseKinds())("an account's own events on every face, on %s", (kind) => {
  let api: TestApi;
  let other: string;
  let receiver: Receiver;
  /** Each account's own events (GET /changes?segment=, which names the account's segment): ids. */
  const own: Record<string, string[]> = {};
  /** A Domain both accounts have an event of. */
  let domain = "";

  const call = async (path: string, key: string, init: RequestInit = {}) => {
    const controller = new AbortController();
    const res = await api.app.fetch(`http://localhost${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
      signal: controller.signal,
    });
    return { status: res.status, text: await readFor(res, controller, 1500) };
  };
  /** What came of an answer within `ms` (a stream is cut there). */
  async function readFor(res: Response, controller: AbortController, ms: number): Promise<string> {
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const stop = setTimeout(() => {
      controller.abort();
      reader.cancel().catch(() => {});
    }, ms);
    let text = "";
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
  }

  beforeAll(async () => {
    api = await startApi(kind, weeks[0] as string, {
      webhooks: { allowPrivateTargets: true, timeoutMs: 2000, concurrency: 8, deliver: true },
    });
    other = await api.createKey("enterprise", "other");
    receiver = await new Receiver().start();
    // The same name and filter in both accounts: each moved Domain has an event of each.
    for (const key of [api.key, other]) {
      const put = await call(`${REST_BASE}/segment/a-p`, key, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ "f:ds": "Active" }),
      });
      expect(put.status, put.text).toBe(200);
      const hook = await call(`${REST_BASE}/webhooks`, key, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: `${receiver.url}?${key === api.key ? "a" : "b"}` }),
      });
      expect(hook.status, hook.text).toBe(200);
    }
    api.app.deliverer?.start();
    await api.load(weeks[1] as string);
    for (const key of [api.key, other]) {
      const res = await call(`${REST_BASE}/changes?segment=a-p&page_size=1000`, key);
      expect(res.status, res.text).toBe(200);
      own[key] = segmentIds(res.text);
      expect(own[key]?.length).toBeGreaterThan(0);
    }
    const mine = JSON.parse((await call(`${REST_BASE}/changes?segment=a-p&page_size=1`, api.key)).text);
    domain = mine.changes[0].domain;
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await api?.close();
  });

  /** Checks what each account was answered: its own events of those of the answer's scope, none of the other's. */
  function expectOwn(seen: (key: string) => string[], scope: (id: string) => boolean, face: string) {
    const a = seen(api.key);
    const b = seen(other);
    expect(new Set(own[api.key]).size).toBe(own[api.key]?.length);
    expect(
      b.filter((id) => own[api.key]?.includes(id) && !own[other]?.includes(id)),
      `${face}: another account's`,
    ).toEqual([]);
    expect(
      a.filter((id) => own[other]?.includes(id) && !own[api.key]?.includes(id)),
      `${face}: another account's`,
    ).toEqual([]);
    expect(b.sort(), `${face}: its own`).toEqual((own[other] ?? []).filter(scope).sort());
    expect(a.sort(), `${face}: its own`).toEqual((own[api.key] ?? []).filter(scope).sort());
  }

  /** The cursor of the last event `key` reads in the feed (GET /changes, page by page). */
  async function lastSeen(key: string): Promise<string> {
    let cursor = "0";
    let last = "0";
    for (;;) {
      const page = JSON.parse((await call(`${REST_BASE}/changes?page_size=1000&cursor=${cursor}`, key)).text);
      const changes = page.changes as Json[];
      if (changes.length) last = String(changes.at(-1)?.id);
      if (!page.has_next_page) break;
      cursor = page.next_cursor;
    }
    return last;
  }

  /** The ids of the events of `domain` (each account's, by GET /changes?segment=). */
  async function ofDomain(key: string): Promise<Set<string>> {
    const res = await call(`${REST_BASE}/changes?segment=a-p&page_size=1000`, key);
    const rows = (JSON.parse(res.text).changes as Json[]).filter((c) => c.domain === domain);
    return new Set(rows.map((c) => String(c.id)));
  }

  it("the two accounts' own events of the same segment have the same places: a cursor tells neither of the other's", () => {
    expect(own[api.key]?.length).toBeGreaterThan(0);
    expect(own[other]).toEqual(own[api.key]);
    // Each at the place of the public event before it, numbered 1, 2, … (FeedCursor).
    for (const id of own[api.key] ?? []) expect(id).toMatch(/^\d+\.[1-9]\d*$/);
  });

  it("the public events' cursors count no account's events: 1, 2, … with no gap, the same for every account", async () => {
    const third = await api.createKey("enterprise", "third");
    const publicIds = async (key: string) => {
      const ids: string[] = [];
      let cursor = "0";
      for (;;) {
        const page = JSON.parse(
          (await call(`${REST_BASE}/changes?page_size=1000&cursor=${cursor}`, key)).text,
        );
        for (const c of page.changes as Json[])
          if (!SEGMENT_KINDS.includes(c.kind as string)) ids.push(String(c.id));
        if (!page.has_next_page) break;
        cursor = page.next_cursor;
      }
      return ids;
    };
    const seen = await publicIds(third);
    expect(seen.length).toBeGreaterThan(0);
    for (const [i, id] of seen.entries()) expect(id, `event ${i}`).toBe(String(Number(seen[0]) + i));
    expect(await publicIds(api.key)).toEqual(seen);
    expect(await publicIds(other)).toEqual(seen);
    // An account with no events of its own is answered the last public event as the end, on a page
    // and a stream alike: the accounts' own events after it are not counted.
    const end = seen.at(-1) as string;
    expect(JSON.parse((await call(`${REST_BASE}/changes?cursor=${end}`, third)).text).next_cursor).toBe(end);
    const stream = await call(`${REST_BASE}/changes/stream?max_seconds=1`, third);
    expect(/^id: ?(\S+)$/m.exec(stream.text)?.[1]).toBe(end);
  });

  it("on every REST route whose records are changes", async () => {
    const routes = [...new Set(OPERATIONS.filter((o) => o.route.type === "Change").map((o) => o.route))];
    expect(routes.map((r) => r.path)).toEqual(
      expect.arrayContaining(["/changes", "/changes/export", "/changes/stream", "/domain/{name}/history"]),
    );
    const scoped = { [api.key]: await ofDomain(api.key), [other]: await ofDomain(other) };
    for (const route of routes) {
      const options = new Set(route.inputs.flatMap((i) => i.options.map((o) => o.name)));
      const q = new URLSearchParams();
      if (options.has("kinds")) q.set("kinds", SEGMENT_KINDS.join(","));
      if (options.has("page_size")) q.set("page_size", "1000");
      // A live route starts at the end without a cursor: from the feed's start, for a second.
      if (options.has("max_seconds")) {
        q.set("max_seconds", "1");
        q.set("cursor", "0");
      }
      const path = route.path.replace("{name}", domain);
      const byDomain = route.path.includes("{name}");
      const seen: Record<string, string[]> = {};
      for (const key of [api.key, other]) {
        const res = await call(`${REST_BASE}${path}?${q}`, key);
        expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(200);
        seen[key] = segmentIds(res.text);
      }
      expectOwn(
        (key) => seen[key] ?? [],
        (id) => !byDomain || [...Object.values(scoped)].some((s) => s.has(id)),
        `GET ${route.path}`,
      );
    }
  });

  it("on every GraphQL field whose type holds changes", async () => {
    const scoped = new Set([...(await ofDomain(api.key)), ...(await ofDomain(other))]);
    const faces: { parent: string; field: GraphQLField<unknown, unknown>; shape: "change" | "connection" }[] =
      [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!(type instanceof GraphQLObjectType) || type.name.startsWith("__")) continue;
      // A connection's or an edge's own fields are read through the field that answers it.
      const fields = type.getFields();
      if (holdsChanges(type) || (fields.node && holdsChanges(fields.node.type))) continue;
      for (const field of Object.values(fields)) {
        const shape = holdsChanges(field.type);
        if (shape) faces.push({ parent: type.name, field, shape });
      }
    }
    // How a field's parent is reached (a parent not here fails: a new reader must be covered).
    const reach: Record<string, (inner: string) => { operation: string; byDomain: boolean }> = {
      Query: (inner) => ({ operation: `query { ${inner} }`, byDomain: false }),
      Subscription: (inner) => ({ operation: `subscription { ${inner} }`, byDomain: false }),
      Domain: (inner) => ({
        operation: `query { domain(name: ${JSON.stringify(domain)}) { ${inner} } }`,
        byDomain: true,
      }),
      App: (inner) => ({
        operation: `query { apps(first: 3) { edges { node { ${inner} } } } }`,
        byDomain: false,
      }),
    };
    const names = faces.map((f) => `${f.parent}.${f.field.name}`);
    expect(names).toEqual(
      expect.arrayContaining(["Query.changes", "Subscription.changes", "Domain.history", "Domain.changes"]),
    );
    for (const { parent, field, shape } of faces) {
      const how = reach[parent];
      expect(how, `${parent}.${field.name}: how to reach ${parent}`).toBeDefined();
      if (!how) continue;
      const args: string[] = [];
      for (const arg of field.args) {
        if (arg.name === "first") args.push("first: 1000");
        if (arg.name === "after" && parent === "Subscription") args.push('after: "0"');
        const input = getNamedType(arg.type);
        if (arg.name === "filter" && isInputObjectType(input) && input.getFields().kinds)
          args.push(`filter: { kinds: [${SEGMENT_KINDS.join(", ")}] }`);
      }
      const selection = shape === "change" ? "{ id kind }" : "{ nodes { id kind } }";
      const { operation, byDomain } = how(
        `${field.name}${args.length ? `(${args.join(", ")})` : ""} ${selection}`,
      );
      const seen: Record<string, string[]> = {};
      for (const key of [api.key, other]) {
        const res = await call("/graphql", key, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: parent === "Subscription" ? "text/event-stream" : "application/json",
          },
          body: JSON.stringify({ query: operation }),
        });
        expect(res.status, `${parent}.${field.name}: ${res.text.slice(0, 300)}`).toBe(200);
        expect(res.text, `${parent}.${field.name}`).not.toMatch(/"errors"/);
        seen[key] = segmentIds(res.text);
      }
      expectOwn(
        (key) => seen[key] ?? [],
        (id) => (byDomain ? scoped.has(id) : parent !== "App"),
        `${parent}.${field.name}`,
      );
    }
  });

  it("on every MCP tool answered by a route whose records are changes", async () => {
    // Each form of a tool that answers changes (changes: the feed, and one Domain's with name).
    const tools = TOOLS.flatMap((t) =>
      formsOf(t)
        .filter(([, form]) => operationOf(form)?.route.type === "Change")
        .map(([, form]) => form),
    );
    expect(tools.map((t) => t.name)).toEqual(["changes", "changes"]);
    const clients: Record<string, Client> = {};
    try {
      for (const key of [api.key, other]) clients[key] = await connect(api, key);
      const scoped = new Set([...(await ofDomain(api.key)), ...(await ofDomain(other))]);
      for (const tool of tools) {
        const options = new Set(operationOf(tool)?.options.map((o) => o.name));
        // A Domain's (changes with name) reads that Domain's, newest first from its start.
        const byDomain = tool.path?.name !== undefined;
        const seen: Record<string, string[]> = {};
        for (const key of [api.key, other]) {
          seen[key] = [];
          let cursor: string | undefined = byDomain ? undefined : "0";
          for (let page = 0; page < 50; page++) {
            const r = (await clients[key]?.callTool({
              name: tool.name,
              arguments: {
                ...(options.has("kinds") ? { [argumentName("kinds")]: SEGMENT_KINDS.join(",") } : {}),
                ...(byDomain ? { name: domain } : {}),
                ...(cursor !== undefined ? { cursor } : {}),
              },
            })) as CallToolResult;
            expect(r.isError, textOf(r)).toBeFalsy();
            const answer = r.structuredContent as Json;
            seen[key].push(...segmentIds(JSON.stringify(answer)));
            if (!answer.has_next_page) break;
            cursor = String(answer.next_cursor);
          }
        }
        expectOwn(
          (key) => seen[key] ?? [],
          (id) => !byDomain || scoped.has(id),
          `MCP ${tool.name}`,
        );
      }
    } finally {
      for (const c of Object.values(clients)) await c.close();
    }
  });

  it("the end of the feed answered to an account is the last event it sees, on every face that answers one", async () => {
    const ends: Record<string, string> = {};
    for (const key of [api.key, other]) ends[key] = await lastSeen(key);
    // Both accounts' own events are the load's last, each at the same places: neither's end tells
    // of the other's (in the feed's internal order, one account's come after the other's).
    expect(ends[api.key]).toMatch(/\./);
    expect(ends[api.key]).toBe(ends[other]);
    const hook = async (key: string) =>
      JSON.parse(
        (
          await call(`${REST_BASE}/webhooks`, key, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ url: `${receiver.url}?end`, kinds: ["domain_added"] }),
          })
        ).text,
      ).webhook;
    const clients: Record<string, Client> = {};
    try {
      for (const key of [api.key, other]) {
        const end = ends[key] as string;
        clients[key] = await connect(api, key);
        const faces: Record<string, unknown> = {};
        // An empty page, with and without a filter that matches nothing after it.
        faces.rest = JSON.parse((await call(`${REST_BASE}/changes?cursor=${end}`, key)).text).next_cursor;
        faces.restFiltered = JSON.parse(
          (await call(`${REST_BASE}/changes?cursor=${end}&kinds=app_added`, key)).text,
        ).next_cursor;
        const gql = JSON.parse(
          (
            await call("/graphql", key, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ query: `{ changes(after: "${end}") { pageInfo { endCursor } } }` }),
            })
          ).text,
        );
        faces.graphql = gql.data.changes.pageInfo.endCursor;
        // A stream without a cursor starts after the end: its first id.
        const stream = await call(`${REST_BASE}/changes/stream?max_seconds=1`, key);
        faces.stream = /^id: ?(\S+)$/m.exec(stream.text)?.[1];
        const mcp = (await clients[key]?.callTool({
          name: "changes",
          arguments: { cursor: end },
        })) as CallToolResult;
        faces.mcp = (mcp.structuredContent as Json).next_cursor;
        const made = await hook(key);
        faces.webhook = made.cursor;
        await call(`${REST_BASE}/webhooks/${made.id}`, key, { method: "DELETE" });
        expect(faces, key === api.key ? "the first account" : "the other").toEqual(
          Object.fromEntries(Object.keys(faces).map((k) => [k, end])),
        );
      }
    } finally {
      for (const c of Object.values(clients)) await c.close();
    }
  });

  it("a cursor past an account's last event is past the end, on every face, though other accounts' events follow it", async () => {
    // The account's last event: one of its own, at the place of the load's last public event. The
    // other account's events follow it in the feed's internal order; no cursor after it is good.
    const key = api.key;
    const end = await lastSeen(key);
    const [pos, seq] = end.split(".").map(Number) as [number, number];
    // A cursor one past its end tells it nothing more, and one at another account's last event the same.
    /** A REST answer's status and error (or what began a stream, which is no error). */
    const answer = (r: { status: number; text: string }) => {
      try {
        return `${r.status} ${JSON.parse(r.text).error}`;
      } catch {
        return `${r.status} ${r.text.slice(0, 60)}`;
      }
    };
    for (const cursor of [`${pos}.${seq + 1}`, `${pos}.${seq + 1000}`, String(pos + 1)]) {
      const faces: Record<string, string> = {};
      const rest = await call(`${REST_BASE}/changes?cursor=${cursor}`, key);
      faces.rest = answer(rest);
      const filtered = await call(`${REST_BASE}/changes?cursor=${cursor}&kinds=app_added`, key);
      faces.restFiltered = answer(filtered);
      const stream = await call(`${REST_BASE}/changes/stream?max_seconds=1&cursor=${cursor}`, key);
      faces.stream = answer(stream);
      const gql = JSON.parse(
        (
          await call("/graphql", key, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ query: `{ changes(after: "${cursor}") { pageInfo { endCursor } } }` }),
          })
        ).text,
      );
      faces.graphql = `400 ${gql.errors?.[0]?.message}`;
      const client = await connect(api, key);
      try {
        const mcp = (await client.callTool({ name: "changes", arguments: { cursor } })) as CallToolResult;
        faces.mcp = `${mcp.isError ? 400 : 200} ${textOf(mcp)}`;
      } finally {
        await client.close();
      }
      for (const [face, answer] of Object.entries(faces))
        expect(answer, `${face}, cursor ${cursor}`).toMatch(
          /^400 .*(cursor|after): is past the end of the change feed/,
        );
    }
    // Its own last event is no such cursor.
    const own = await call(`${REST_BASE}/changes?cursor=${end}`, key);
    expect(own.status, own.text).toBe(200);
  });

  it("on webhooks: each account's deliveries hold its own events", async () => {
    const expected = (own[api.key]?.length ?? 0) + (own[other]?.length ?? 0);
    const delivered = () =>
      receiver
        .accepted()
        .flatMap((r) => segmentIds(r.body))
        .filter((id) => own[api.key]?.includes(id) || own[other]?.includes(id)).length;
    await receiver.until(() => delivered() >= expected, 30_000);
    const byUrl = (mark: string) =>
      receiver.accepted().filter((r) => {
        const hook = JSON.parse(r.body).data.webhook as string;
        return marks.get(hook) === mark;
      });
    const marks = new Map<string, string>();
    for (const [key, mark] of [
      [api.key, "a"],
      [other, "b"],
    ] as const) {
      const list = JSON.parse((await call(`${REST_BASE}/webhooks`, key)).text).webhooks as Json[];
      for (const w of list) marks.set(String(w.id), mark);
    }
    expectOwn(
      (key) => byUrl(key === api.key ? "a" : "b").flatMap((r) => segmentIds(r.body)),
      () => true,
      "webhooks",
    );
  });
  it("a load that brings an account's own events and no one's is delivered to its webhooks", async () => {
    // The week again, one Domain's estimated sales raised: a move the feed has no event of.
    const week = join(scratch.dir, `${kind}-sales`);
    cpSync(weeks[1] as string, week, { recursive: true });
    const lines = readFileSync(join(week, "domains.jsonl"), "utf8").split("\n").filter(Boolean);
    const moved = JSON.parse(lines[0] as string) as Json;
    lines[0] = JSON.stringify({ ...moved, estimated_sales: 2_000_000_000 });
    writeFileSync(join(week, "domains.jsonl"), `${lines.join("\n")}\n`);
    const put = await call(`${REST_BASE}/segment/rich`, other, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ "f:ermin": "1999999999" }),
    });
    expect(put.status, put.text).toBe(200);
    const before = receiver.accepted().length;
    const since = (await api.snapshots.current())?.snapshot.version;
    await api.load(week);
    // No one's events, and the other account's own one.
    expect(JSON.parse((await call(`${REST_BASE}/changes?since=${since}`, api.key)).text).changes).toEqual([]);
    const page = JSON.parse((await call(`${REST_BASE}/changes?segment=rich`, other)).text);
    expect(page.changes.map((c: Json) => c.domain)).toEqual([moved.name]);
    const id = String(page.changes[0].id);
    await receiver.until((r) =>
      r
        .accepted()
        .slice(before)
        .some((x) => segmentIds(x.body).includes(id)),
    );
  });

  it("once the feed is pruned, the end answered to an account counts no other account's events", async () => {
    let publicEnd = 0;
    let cursor = "0";
    for (;;) {
      const page = JSON.parse(
        (await call(`${REST_BASE}/changes?page_size=1000&cursor=${cursor}`, other)).text,
      );
      for (const c of page.changes as Json[])
        if (!SEGMENT_KINDS.includes(c.kind as string)) publicEnd = Math.max(publicEnd, Number(c.id));
      if (!page.has_next_page) break;
      cursor = page.next_cursor;
    }
    // The week the test before loaded, again (segments are compared at every load: weeks[1] would
    // move its Domain out of "rich" again), keeping one load's events: nothing changed, and the
    // load before is pruned.
    await loadSnapshot(api.snapshots.store, join(scratch.dir, `${kind}-sales`), {
      ...testLoadSteps(api.db.config, api.snapshots.store),
      keep: 1,
      changesRetention: 1,
    });
    for (const key of [api.key, other]) {
      const page = JSON.parse((await call(`${REST_BASE}/changes`, key)).text);
      expect(page.changes).toEqual([]);
      expect(page.next_cursor).toBe(String(publicEnd));
    }
  });

  it("a load after accounts' own events numbers its public events on from the last public one, with no gap", async () => {
    const third = await api.createKey("enterprise", "fourth");
    const publicCursors = async () => {
      const ids: string[] = [];
      // From the feed's first kept event (a cursor of 0 is into the events pruned above).
      let cursor = "";
      for (;;) {
        const page = JSON.parse(
          (await call(`${REST_BASE}/changes?page_size=1000${cursor && `&cursor=${cursor}`}`, third)).text,
        );
        for (const c of page.changes as Json[]) ids.push(String(c.id));
        if (!page.has_next_page) break;
        cursor = page.next_cursor;
      }
      return ids;
    };
    const before = await publicCursors();
    // Both accounts' segments get events of this load too, after its public ones.
    await api.load(weeks[2] as string);
    const after = await publicCursors();
    expect(after.length).toBeGreaterThan(before.length);
    const first = Number(after[0]);
    for (const [i, id] of after.entries()) expect(id, `event ${i}`).toBe(String(first + i));
    const mine = JSON.parse((await call(`${REST_BASE}/changes?segment=a-p&page_size=1000`, api.key)).text);
    expect((mine.changes as Json[]).some((c) => Number(c.version) > 3)).toBe(true);
  });
});
