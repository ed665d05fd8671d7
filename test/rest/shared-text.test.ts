import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { type Json, validFixture, writeSnapshotDir } from "../support/fixture.ts";

// The text of an installed App or a detected technology is written once per snapshot and kept
// (src/rest/shared-text.ts): every response must still carry the text of the snapshot it read,
// in the order and shape of the fields asked for, whichever response met the object first.

type Domain = Record<string, unknown> & { apps?: Json[]; technologies?: Json[] };

describe.each(databaseKinds())("shared App and technology text on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-shared-text-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  async function domain(name: string, fields = ""): Promise<Domain> {
    const res = await api.app.fetch(`http://localhost/json/api/v1/all/domain/${name}?fields=${fields}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { domain: Domain }).domain;
  }

  async function listed(fields: string): Promise<Domain[]> {
    const res = await api.app.fetch(`http://localhost/json/api/v1/all/domain?sort=rank&fields=${fields}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { domains: Domain[] }).domains;
  }

  it("writes a technology's fields around installed_at, as the legacy API orders them", async () => {
    const d = await domain("shop.example.com", "technologies");
    expect(JSON.stringify(d.technologies)).toBe(
      JSON.stringify([
        {
          name: "Google Analytics",
          description: "Web analytics",
          vendor_url: "https://analytics.google.com",
          icon_url: "https://cdn.example.com/ga.png",
          installed_at: "2020-01-01T00:00:00Z",
          installs: 2,
          categories: ["Analytics"],
        },
      ]),
    );
  });

  it("writes the App's fields in the order asked for, around the install's own, kept or not", async () => {
    const fields = "apps.name,apps.installed_at,apps.token,apps.removed_at,apps.plans.name";
    const first = await domain("shop.example.com", fields);
    const again = await domain("shop.example.com", fields);
    expect(again).toEqual(first);
    expect(JSON.stringify(first.apps)).toBe(
      JSON.stringify([
        {
          name: "Old Reviews",
          installed_at: "2019-01-01T00:00:00Z",
          token: "old-reviews",
          removed_at: "2023-01-01T00:00:00Z",
          plans: [],
        },
        {
          name: "Klaviyo",
          installed_at: "2021-01-01T00:00:00Z",
          token: "klaviyo",
          plans: [{ name: "Free" }, { name: "Pro" }],
        },
      ]),
    );
    // The same App with other fields is other text: each selection keeps its own.
    const names = await domain("shop.example.com", "apps.token");
    expect(names.apps).toEqual([{ token: "old-reviews" }, { token: "klaviyo" }]);
  });

  it("answers a list whose Domains share Apps and technologies with each its own installs", async () => {
    const domains = await listed(
      "name,apps.id,apps.installed_at,technologies.name,technologies.installed_at",
    );
    const shop = domains.find((d) => d.name === "shop.example.com");
    const woo = domains.find((d) => d.name === "woo.example.org");
    expect(shop?.technologies).toEqual([{ name: "Google Analytics", installed_at: "2020-01-01T00:00:00Z" }]);
    expect(woo?.technologies).toEqual([{ name: "Google Analytics", installed_at: "2021-05-05T10:00:00Z" }]);
    expect(woo?.apps).toEqual([{ id: "app-3", installed_at: "2022-02-02T00:00:00Z" }]);
  });

  it("serves a technology as a node of GraphQL: by the Domains it is on, and by its global ID", async () => {
    const r = await api.gql<{ domain: { technologies: { technology: Json }[] } }>(
      `{ domain(name: "shop.example.com") { technologies { installedAt technology { id name installs categories } } } }`,
    );
    const technology = r.data?.domain.technologies[0].technology as Json;
    expect(technology).toMatchObject({ name: "Google Analytics", installs: 2, categories: ["Analytics"] });
    expect(Buffer.from(technology.id as string, "base64").toString()).toBe("Technology:Google Analytics");
    const byId = await api.gql<{ node: Json | null; nodes: (Json | null)[] }>(
      `query ($id: ID!, $unknown: ID!) {
        node(id: $id) { ... on Technology { name vendorUrl } }
        nodes(ids: [$id, $unknown]) { id }
      }`,
      { id: technology.id, unknown: Buffer.from("Technology:Nope").toString("base64") },
    );
    expect(byId.errors).toBeUndefined();
    expect(byId.data?.node).toEqual({ name: "Google Analytics", vendorUrl: "https://analytics.google.com" });
    expect(byId.data?.nodes).toEqual([{ id: technology.id }, null]);
  });

  // Keep last: it loads another snapshot.
  it("writes the text of the snapshot a response read: a new snapshot's Apps and technologies", async () => {
    const fields = "apps.name,apps.installed_at,technologies.description,technologies.installed_at";
    const before = await domain("shop.example.com", fields);
    expect(before.apps?.[1]).toMatchObject({ name: "Klaviyo" });
    const other = validFixture();
    const klaviyo = other.apps.find((a) => a.id === "app-1") as Json;
    klaviyo.name = "Klaviyo 2";
    for (const d of other.domains as Domain[]) {
      for (const a of d.apps ?? []) if (a.id === "app-1") a.name = "Klaviyo 2";
      for (const t of d.technologies ?? []) t.description = "Web analytics, reloaded";
    }
    for (const r of other.reviews) {
      const app = r.app as Json;
      if (app.id === "app-1") app.name = "Klaviyo 2";
    }
    await api.load(writeSnapshotDir(join(tmp.dir, "b"), other));
    const after = await domain("shop.example.com", fields);
    expect(after.apps?.[1]).toEqual({ name: "Klaviyo 2", installed_at: "2021-01-01T00:00:00Z" });
    expect(after.technologies).toEqual([
      { description: "Web analytics, reloaded", installed_at: "2020-01-01T00:00:00Z" },
    ]);
    const res = await api.app.fetch(`http://localhost/json/api/v1/all/domain/export?fields=${fields}`);
    const lines = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Domain);
    expect(lines.flatMap((d) => d.apps ?? []).filter((a) => a.name === "Klaviyo")).toEqual([]);
    expect(lines.flatMap((d) => d.apps ?? []).filter((a) => a.name === "Klaviyo 2").length).toBeGreaterThan(
      0,
    );
  });
});
