import { Kind, parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { EXAMPLE_OPERATIONS } from "../../src/graphiql.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";

// The operations GraphiQL opens with (src/graphiql.ts) say they run as they are against the demo
// dataset: each one does, without an error, on a generated dataset (its showcase records are in
// every one), and as a first click on ▶ sends it: the whole document, the operation's name, and no
// variables (GraphiQL opens on its Headers, which carry the key), so an operation that takes one
// has a default for it. Each answers its own operation, whichever ran before it.

const scratch = tempDir("storegraph-graphiql-examples-");
let api: TestApi;

beforeAll(async () => {
  await generateDataset({ domains: 300, apps: 40, seed: 5, outDir: scratch.dir });
  api = await startApi("sqlite", scratch.dir);
}, 60_000);

afterAll(async () => {
  await api?.close();
  scratch.remove();
});

const operations = parse(EXAMPLE_OPERATIONS).definitions.flatMap((d) =>
  d.kind === Kind.OPERATION_DEFINITION && d.name ? [d.name.value] : [],
);

/** The root fields (or their aliases) an operation of the examples asks for. */
function fieldsOf(name: string): string[] {
  const operation = parse(EXAMPLE_OPERATIONS).definitions.find(
    (d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name,
  );
  if (operation?.kind !== Kind.OPERATION_DEFINITION) throw new Error(`no operation ${name}`);
  return operation.selectionSet.selections.flatMap((s) =>
    s.kind === Kind.FIELD ? [(s.alias ?? s.name).value] : [],
  );
}

describe("GraphiQL's example operations", () => {
  it("are there", () => {
    expect(operations.length).toBeGreaterThanOrEqual(5);
    expect(operations).toContain("HowShopifyStoresInTheUSSpread");
  });

  it.each(operations)("%s runs without an error", async (name) => {
    const res = await api.app.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        query: EXAMPLE_OPERATIONS,
        operationName: name,
      }),
    });
    const body = (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect(Object.keys(body.data ?? {})).toEqual(fieldsOf(name));
    expect(Object.values(body.data ?? {}).every((v) => v !== null)).toBe(true);
  });
});
