import { join } from "node:path";
import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readContext } from "../../src/context.ts";
import { execute } from "../../src/schema/execute.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { writeSnapshotDir } from "../support/fixture.ts";
import { manyDomainsFixture } from "../support/fixture-graphql.ts";

/**
 * The reads the server makes itself (an export's lookups, the text of shared Apps and
 * technologies) run through `execute` (src/schema/execute.ts), on the same compiled path as a
 * client's operation: the same answers, the same errors, the same exceptions to compilation.
 */
describe.each(databaseKinds())("the one way into execution, on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-execute-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), manyDomainsFixture(12)));
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  const internal = async (query: string, variables: Record<string, unknown> = {}) =>
    execute(parse(query), variables, readContext(await api.snapshots.current()));

  it("answers as a client's operation answers", async () => {
    const query = `query($names: [String!]!) { domainsByName(names: $names) {
      domains { name rank apps { installedAt app { name plans { name } } } technologies { name } }
      notFound } }`;
    const variables = { names: ["shop-3.example.com", "nowhere.example.com", "shop.example.com"] };
    const ours = await internal(query, variables);
    const theirs = await api.gql(query, variables);
    expect(ours.errors).toBeUndefined();
    expect((ours.data as { domainsByName: { domains: unknown[] } }).domainsByName.domains).toHaveLength(2);
    expect(ours.data).toEqual(theirs.data);
  });

  it("keeps a calendar day literal a whole day, as a client's operation does (run uncompiled)", async () => {
    const all = await api.gql<{ domains: { edges: { node: { createdAt: string } }[] } }>(
      "{ domains(first: 100) { edges { node { createdAt } } } }",
    );
    const day = all.data?.domains.edges[0].node.createdAt.slice(0, 10);
    expect(day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const query = `{ domains(first: 100, filter: { createdAt: { max: "${day}" } }) { edges { node { name createdAt } } } }`;
    const ours = await internal(query);
    const theirs = await api.gql(query);
    expect(ours.errors).toBeUndefined();
    expect(ours.data).toEqual(theirs.data);
    // The day's own Domains are within `max` (as a whole day), not only those before its midnight.
    type Page = { domains: { edges: { node: { createdAt: string } }[] } };
    const times = (ours.data as Page).domains.edges.map((e) => e.node.createdAt);
    expect(times.some((at) => at.startsWith(day as string) && !at.endsWith("T00:00:00Z"))).toBe(true);
  });

  it("refuses a bad variable as a client's input, with the scalar's reason", async () => {
    const query = `query($f: DomainFilter) { domains(first: 1, filter: $f) { edges { node { name } } } }`;
    const ours = await internal(query, { f: { createdAt: { max: "not a date" } } });
    expect(ours.data).toBeUndefined();
    expect(ours.errors?.[0].message).toMatch(/DateTime must be an RFC 3339 timestamp/);
    expect(ours.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });

  it("runs the operation a document of several names, whichever ran before (GraphiQL's ▶)", async () => {
    const document = `query First { snapshot { version } }
      query Second { domain(name: "shop.example.com") { name } }`;
    const run = async (operationName: string) => {
      const res = await api.app.fetch("http://localhost/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ query: document, operationName }),
      });
      return (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    };
    // Each twice, so that a compiled form kept from the first run is met by the other name.
    for (const name of ["First", "Second", "First", "Second"]) {
      const body = await run(name);
      expect(body.errors).toBeUndefined();
      expect(Object.keys(body.data ?? {}), name).toEqual([name === "First" ? "snapshot" : "domain"]);
    }
  });
});
