import { Kind, parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { EXAMPLE_OPERATIONS } from "../../src/graphiql.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";

// The operations GraphiQL opens with (src/graphiql.ts) say they run as they are against the demo
// dataset: each one does, without an error, on a generated dataset (its showcase records are in
// every one), the variables OneStore asks for set as its comment says.

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
        variables: { name: "shop.example.com" },
      }),
    });
    const body = (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect(Object.values(body.data ?? {}).every((v) => v !== null)).toBe(true);
  });
});
