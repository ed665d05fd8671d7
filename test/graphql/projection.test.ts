import { join } from "node:path";
import {
  type GraphQLField,
  type GraphQLObjectType,
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../src/schema/index.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { writeSnapshotDir } from "../support/fixture.ts";
import { manyDomainsFixture } from "../support/fixture-graphql.ts";

/**
 * Pages of Domains read only the columns their selection needs (src/query/domain-read/plan.ts). A
 * field whose columns were missed would come back null without an error, so every field of the
 * Domain type is asked for alone on a page and compared with the same Domains read whole
 * (domainsByName reads every column).
 */
const domainType = schema.getType("Domain") as GraphQLObjectType;

/** A selection of `field`: its leaves, and one level of its objects' leaves. */
function selectionOf(field: GraphQLField<unknown, unknown>, depth = 0): string | null {
  if (field.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) return null;
  const type = getNamedType(field.type);
  if (isLeafType(type)) return field.name;
  if (!isObjectType(type)) return null;
  // A Relay connection (edges), or one of nodes alone (a Domain's history).
  if (type.name.endsWith("Connection"))
    return "edges" in type.getFields()
      ? `${field.name}(first: 3) { edges { node { id } } }`
      : `${field.name}(first: 3) { nodes { id } }`;
  if (depth > 1) return null;
  const inner = Object.values(type.getFields())
    .map((f) => selectionOf(f, depth + 1))
    .filter((s): s is string => s !== null);
  return inner.length ? `${field.name} { ${inner.join(" ")} }` : null;
}

const FIELDS = Object.values(domainType.getFields())
  .map((f) => [f.name, selectionOf(f)] as const)
  .filter((e): e is readonly [string, string] => e[1] !== null);

describe.each(databaseKinds())("Domain pages read what their selection needs, on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-projection-");
  let names: string[] = [];

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), manyDomainsFixture(40)));
    const res = await api.gql<{ domains: { edges: { node: { name: string } }[] } }>(
      "{ domains(first: 40, orderBy: [{ field: CREATED_AT, direction: DESC }]) { edges { node { name } } } }",
    );
    names = res.data?.domains.edges.map((e) => e.node.name) ?? [];
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("covers every field of the Domain type", () => {
    expect(FIELDS.map(([name]) => name)).toEqual(Object.keys(domainType.getFields()));
    expect(names).toHaveLength(40);
  });

  it.each(FIELDS)("%s alone equals the whole Domain's", async (_name, selection) => {
    const page = await api.gql<{ domains: { edges: { node: Record<string, unknown> }[] } }>(
      `{ domains(first: 40, orderBy: [{ field: CREATED_AT, direction: DESC }]) { edges { node { ${selection} } } } }`,
    );
    const whole = await api.gql<{ domainsByName: { domains: Record<string, unknown>[] } }>(
      `query($names: [String!]!) { domainsByName(names: $names) { domains { ${selection} } } }`,
      { names },
    );
    expect(page.errors).toBeUndefined();
    expect(whole.errors).toBeUndefined();
    expect(page.data?.domains.edges.map((e) => e.node)).toEqual(whole.data?.domainsByName.domains);
  });

  it("a page whose selection is two columns reads only those, its key and its sort key", async () => {
    api.resetQueries();
    await api.gql("{ domains(first: 5) { edges { node { name rank } } } }");
    const rows = api.queries.find((q) => /\bSELECT d\."/.test(q) && /"domain" d\b/.test(q));
    expect(rows).toBeDefined();
    const columns = /SELECT (.*?) FROM/.exec(rows ?? "")?.[1].split(", ");
    expect(columns?.sort()).toEqual(['d."name"', 'd."pk"', 'd."rank"']);
  });
});
