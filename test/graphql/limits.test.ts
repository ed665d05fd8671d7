import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../src/document-limits.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/** Document shape limits (graphql-armor): depth, aliases, tokens. */
describe("GraphQL document limits", () => {
  let api: TestApi;
  const tmp = tempDir("storegraph-limits-");
  beforeAll(async () => {
    api = await startApi("sqlite", writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  const message = (r: { errors?: { message: string }[] }) => r.errors?.map((e) => e.message).join(" ") ?? "";

  it("runs the deepest useful operation", async () => {
    const res = await api.gql(`{ domains(first: 1) { edges { node { apps { app {
      reviews(first: 1) { edges { node { domains { domain { name } } } } } } } } } } }`);
    expect(res.errors).toBeUndefined();
  });

  it(`refuses a document deeper than ${LIMITS.depth}`, async () => {
    // domain → cluster → cluster → … nests one level per step.
    const deep = `{ domain(name: "shop.example.com") { ${"cluster { ".repeat(LIMITS.depth)} name ${"} ".repeat(LIMITS.depth)} } }`;
    const res = await api.gql(deep);
    expect(res.data ?? null).toBeNull();
    expect(message(res)).toMatch(/depth limit/i);
  });

  it(`refuses more than ${LIMITS.aliases} aliases`, async () => {
    const aliases = Array.from({ length: LIMITS.aliases + 1 }, (_, i) => `a${i}: snapshot { version }`).join(
      " ",
    );
    const res = await api.gql(`{ ${aliases} }`);
    expect(res.data ?? null).toBeNull();
    expect(message(res)).toMatch(/aliases/i);
    const ok = Array.from({ length: LIMITS.aliases }, (_, i) => `a${i}: snapshot { version }`).join(" ");
    expect((await api.gql(`{ ${ok} }`)).errors).toBeUndefined();
  });

  it(`refuses a document of more than ${LIMITS.tokens} tokens`, async () => {
    const res = await api.gql(`{ snapshot { ${"version ".repeat(LIMITS.tokens)} } }`);
    expect(res.data ?? null).toBeNull();
    expect(message(res)).toMatch(/token/i);
  });

  it("leaves the REST layer's largest documents within the limits", async () => {
    for (const path of [
      "/domain?fields=*,most_recently_published_product",
      "/domain/shop.example.com",
      "/app/shopify.klaviyo?fields=*,description_long,installs_time_series",
    ]) {
      const res = await api.app.fetch(`http://localhost/json/api/v1/all${path}`);
      expect(res.status, path).toBe(200);
    }
  });
});

describe("batched operations", () => {
  let api: TestApi;
  const tmp = tempDir("storegraph-batch-");
  beforeAll(async () => {
    api = await startApi("sqlite", writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("are refused: one operation per request, so limits and costs apply per operation", async () => {
    const res = await api.app.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify([{ query: "{ snapshot { version } }" }, { query: "{ snapshot { version } }" }]),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors?: { message: string }[] };
    expect(body.errors?.[0]?.message).toMatch(/batch|object/i);
  });
});
