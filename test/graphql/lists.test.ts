import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/keys.ts";
import { DomainLists, LIST_LIMITS, ListError } from "../../src/db/lists.ts";
import { type GqlResult, startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * Lists of Domains (issue 38, docs/decisions.md "Lists"): an account's, kept in the meta database
 * across loads, changed whole or not at all, within their limits, on both databases.
 */
describe.each(databaseKinds())("lists on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-lists-");
  const keys = () => new ApiKeys(api.snapshots.store);

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s1"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  /** A GraphQL request with another key. */
  async function gqlAs<T = Record<string, unknown>>(
    key: string,
    query: string,
    variables: Record<string, unknown> = {},
  ): Promise<GqlResult<T>> {
    const res = await api.app.fetch("http://localhost/graphql", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${key}`,
      },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, ...(await res.json()) };
  }

  const ADD = `mutation($name: String!, $domains: [String!]!) {
    addDomainsToList(name: $name, domains: $domains) {
      list { name count } countDomainsAdded unrecognizedDomains
    }
  }`;
  const LISTS = "{ lists { name count createdAt updatedAt } }";
  const LIST = `query($name: String!) { list(name: $name, orderBy: [{ field: NAME }]) { edges { node { name } } } }`;

  it("a mutation is sent by POST: by GET it is refused (405, Allow: POST) and changes nothing", async () => {
    const query =
      'mutation { addDomainsToList(name: "by-get", domains: ["shop.example.com"]) { countDomainsAdded } }';
    const res = await api.app.fetch(`http://localhost/graphql?query=${encodeURIComponent(query)}`, {
      headers: { accept: "application/json" },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    const body = (await res.json()) as { errors?: { message: string }[] };
    expect(body.errors?.[0]?.message).toMatch(/POST/);
    const lists = await api.gql<{ lists: { name: string }[] }>("{ lists { name } }");
    expect(lists.data?.lists.map((l) => l.name)).not.toContain("by-get");
  });

  it("adds the names the snapshot has, each once, and reports the others as given", async () => {
    const res = await api.gql(ADD, {
      name: "prospects",
      domains: ["Shop.Example.com", "shop.example.com.", "nowhere.example", "woo.example.org", "not a name!"],
    });
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({
      addDomainsToList: {
        list: { name: "prospects", count: 2 },
        countDomainsAdded: 2,
        unrecognizedDomains: ["not a name!", "nowhere.example"],
      },
    });
    const again = await api.gql(ADD, { name: "prospects", domains: ["woo.example.org", "gone.example.net"] });
    expect(again.data).toEqual({
      addDomainsToList: {
        list: { name: "prospects", count: 3 },
        countDomainsAdded: 1,
        unrecognizedDomains: [],
      },
    });
    const lists = await api.gql<{ lists: { name: string; count: number; createdAt: string }[] }>(LISTS);
    expect(lists.data?.lists.map((l) => [l.name, l.count])).toEqual([["prospects", 3]]);
    const page = await api.gql<{ list: { edges: { node: { name: string } }[] } }>(LIST, {
      name: "prospects",
    });
    expect(page.errors).toBeUndefined();
    expect(page.data?.list.edges.map((e) => e.node.name).sort()).toEqual(
      ["gone.example.net", "shop.example.com", "woo.example.org"].sort(),
    );
  });

  it("belongs to the key's account: its other keys see it, another account's do not", async () => {
    const [mine] = (await keys().list()).filter((k) => k.name === "test");
    const colleague = (await keys().create("colleague", "pro", mine.account)).key;
    const stranger = (await keys().create("stranger", "pro")).key;
    await api.gql(ADD, { name: "shared", domains: ["shop.example.com"] });
    const seen = await gqlAs<{ lists: { name: string }[] }>(colleague, LISTS);
    expect(seen.data?.lists.map((l) => l.name)).toContain("shared");
    const unseen = await gqlAs<{ lists: { name: string }[] }>(stranger, LISTS);
    expect(unseen.data?.lists).toEqual([]);
    const theirs = await gqlAs(stranger, LIST, { name: "shared" });
    expect(theirs.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(theirs.errors?.[0]?.message).toMatch(/no list named "shared"/);
  });

  it("removes names and deletes lists; a list the account lacks is NOT_FOUND, named", async () => {
    await api.gql(ADD, { name: "short-lived", domains: ["shop.example.com", "woo.example.org"] });
    const removed = await api.gql(
      `mutation { removeDomainsFromList(name: "short-lived", domains: ["WOO.example.org", "nowhere.example"]) { list { count } countDomainsRemoved } }`,
    );
    expect(removed.data).toEqual({ removeDomainsFromList: { list: { count: 1 }, countDomainsRemoved: 1 } });
    const deleted = await api.gql(`mutation { deleteList(name: "short-lived") { name count } }`);
    expect(deleted.data).toEqual({ deleteList: { name: "short-lived", count: 1 } });
    for (const q of [
      `mutation { deleteList(name: "short-lived") { name } }`,
      `mutation { removeDomainsFromList(name: "short-lived", domains: ["shop.example.com"]) { countDomainsRemoved } }`,
    ]) {
      const res = await api.gql(q);
      expect(res.errors?.[0]?.extensions?.code, q).toBe("NOT_FOUND");
      expect(res.errors?.[0]?.message, q).toMatch(/no list named "short-lived"/);
    }
    expect(
      await api.snapshots.store.metaQuery("SELECT * FROM {meta}.domain_list WHERE name = ?", ["short-lived"]),
    ).toEqual([]);
  });

  it("refuses a bad name and too many names as the client's error, naming the argument", async () => {
    const bad = await api.gql(ADD, { name: "../etc", domains: ["shop.example.com"] });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", argument: "name" });
    expect(bad.errors?.[0]?.message).toMatch(/^name: "\.\.\/etc" is not a list name/);
    const none = await api.gql(ADD, { name: "empty", domains: [] });
    expect(none.errors?.[0]?.message).toBe("domains: must name at least one Domain");
    const many = await api.gql(ADD, {
      name: "big",
      domains: Array.from({ length: LIST_LIMITS.perRequest + 1 }, (_, i) => `d${i}.example.com`),
    });
    expect(many.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", argument: "domains" });
    expect(many.errors?.[0]?.message).toMatch(/^domains: takes at most 1000 names a request/);
    const lists = await api.gql<{ lists: { name: string }[] }>(LISTS);
    expect(lists.data?.lists.map((l) => l.name)).not.toContain("big");
  });

  it("keeps its limits whole: over them nothing is made or added", async () => {
    const lists = new DomainLists(api.snapshots.store);
    const names = Array.from({ length: LIST_LIMITS.domains }, (_, i) => `n${i}.example.com`);
    // A list that would start over the limit is not made at all.
    await expect(lists.add("acct-limits", "huge", [...names, "one-more.example.com"])).rejects.toThrow(
      /a list holds at most 10000/,
    );
    expect(await lists.get("acct-limits", "huge")).toBeNull();
    await lists.add("acct-limits", "full", names);
    const err = await lists
      .add("acct-limits", "full", ["one-more.example.com", "n0.example.com"])
      .catch((e) => e);
    expect(err).toBeInstanceOf(ListError);
    expect((err as ListError).argument).toBe("domains");
    expect((await lists.get("acct-limits", "full"))?.count).toBe(LIST_LIMITS.domains);
    // Names it holds already are no addition.
    expect((await lists.add("acct-limits", "full", ["n1.example.com"])).added).toBe(0);
    for (let i = 1; i < LIST_LIMITS.lists; i++) await lists.add("acct-limits", `l${i}`, []);
    await expect(lists.add("acct-limits", "one-too-many", ["a.example.com"])).rejects.toThrow(
      /holds 100 lists, the most it may/,
    );
    expect(await lists.get("acct-limits", "one-too-many")).toBeNull();
  }, 60_000);

  it("a change that fails holds back no other write, and changes of one account take turns", async () => {
    const store = api.snapshots.store;
    const lists = new DomainLists(store);
    const names = Array.from({ length: LIST_LIMITS.domains - 10 }, (_, i) => `m${i}.example.com`);
    await lists.add("acct-turns", "nearly-full", names);
    const [key] = (await keys().list()).filter((k) => k.name === "test");
    // Over the limit (rolled back) while other requests write the meta database: theirs stay.
    const over = lists.add(
      "acct-turns",
      "nearly-full",
      Array.from({ length: 20 }, (_, i) => `extra${i}.example.com`),
    );
    const writes = (async () => {
      for (let i = 1; i <= 5; i++)
        await store.metaQuery("UPDATE {meta}.api_key SET last_used_at = ? WHERE id = ?", [1000 + i, key.id]);
    })();
    await expect(over).rejects.toThrow(/a list holds at most 10000/);
    await writes;
    const [row] = await store.metaQuery("SELECT last_used_at FROM {meta}.api_key WHERE id = ?", [key.id]);
    expect(Number(row.last_used_at)).toBe(1005);
    // Five adds at once to a list none of them finds: one makes it, every name lands once.
    const batches = Array.from({ length: 5 }, (_, b) =>
      Array.from({ length: 30 }, (_, i) => `r${b}-${i}.example.com`),
    );
    const done = await Promise.all(batches.map((batch) => lists.add("acct-turns", "raced", batch)));
    expect(done.map((d) => d.added)).toEqual([30, 30, 30, 30, 30]);
    expect((await lists.get("acct-turns", "raced"))?.count).toBe(150);
  }, 60_000);

  it("survives a load: a Domain the new snapshot lacks stays listed, and its page shows the ones it has", async () => {
    await api.gql(ADD, { name: "watch", domains: ["shop.example.com", "old-shop.example.com"] });
    const next = validFixture();
    next.domains = next.domains.filter((d) => d.name !== "old-shop.example.com");
    await api.load(writeSnapshotDir(join(tmp.dir, "s2"), next));
    const lists = await api.gql<{ lists: { name: string; count: number }[] }>(LISTS);
    expect(lists.data?.lists.find((l) => l.name === "watch")?.count).toBe(2);
    const page = await api.gql<{ list: { edges: { node: { name: string } }[] } }>(LIST, { name: "watch" });
    expect(page.data?.list.edges.map((e) => e.node.name)).toEqual(["shop.example.com"]);
    // The feed reports the listed Domain the load removed, and nothing of Domains not listed.
    const feed = await api.gql<{ changes: { nodes: { kind: string; domainName: string }[] } }>(
      `{ changes(filter: { domain: { list: "watch" } }) { nodes { kind domainName } } }`,
    );
    expect(feed.errors).toBeUndefined();
    expect(feed.data?.changes.nodes).toContainEqual({
      kind: "domain_removed",
      domainName: "old-shop.example.com",
    });
    for (const n of feed.data?.changes.nodes ?? [])
      expect(["shop.example.com", "old-shop.example.com"]).toContain(n.domainName);
  });
});
