import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLATFORM_LIST } from "../../src/dataset/platforms.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

// An unknown platform (f:p of Domains and Apps, GraphQL's filter.platform, an f:an App identifier)
// is refused with the platforms near it first ("did you mean", graphql-js's suggestionList, and the
// names that contain what was given), then the commonest platforms, shopify first, and how many
// there are: never 30 names cut from the top of an alphabetical list that leaves out shopify.

const BASE = "http://localhost/json/api/v1/all";

describe.each(databaseKinds())("an unknown platform, on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-unknown-platform-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  /** The 400's message for a GET of `path`. */
  async function refusal(path: string): Promise<string> {
    const res = await api.app.fetch(`${BASE}${path}`, {});
    const body = (await res.json()) as { error: string; code: string };
    expect(res.status, `${path}: ${body.error}`).toBe(400);
    expect(body.code).toBe("BAD_USER_INPUT");
    return body.error;
  }

  /** The names a message suggests, in order: what follows "did you mean". */
  const suggested = (message: string): string[] => {
    const m = /did you mean ([^?]*)\?/i.exec(message);
    return m ? [...m[1].matchAll(/"([^"]*)"/g)].map((x) => x[1]) : [];
  };

  it("suggests shopify for shopfy, on REST and GraphQL", async () => {
    const rest = await refusal("/domain?f:p=shopfy");
    expect(suggested(rest)[0], rest).toBe("shopify");
    const apps = await refusal("/app?f:p=Shopfy");
    expect(suggested(apps)[0], apps).toBe("shopify");
    const res = await api.app.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        query: '{ domains(filter: { platform: { values: ["shopfy"] } }) { edges { node { name } } } }',
      }),
    });
    const body = (await res.json()) as { errors: { message: string }[] };
    expect(suggested(body.errors[0].message)[0], body.errors[0].message).toBe("shopify");
  });

  it("suggests by a part of the name: bigcom, salesforce commerce cloud", async () => {
    expect(suggested(await refusal("/domain?f:p=bigcom"))).toContain("bigcommerce");
    expect(suggested(await refusal("/domain?f:p=salesforce%20commerce%20cloud"))[0]).toBe(
      "salesforce-commerce-cloud",
    );
  });

  it("always lists the commonest platforms and how many there are, and is bounded", async () => {
    const message = await refusal("/domain?f:p=zzqx");
    expect(message).not.toMatch(/did you mean/i);
    for (const p of ["shopify", "woocommerce", "wix", "squarespace", "bigcommerce", "magento"])
      expect(message).toContain(p);
    expect(message).toContain(`${PLATFORM_LIST.length}`);
    expect(message.length).toBeLessThan(500);
    const near = await refusal("/domain?f:p=shopfy");
    expect(near.length).toBeLessThan(600);
  });

  it("an App identifier with an unknown platform names the one meant", async () => {
    const message = await refusal("/domain?f:an=shopfy.klaviyo");
    expect(suggested(message)[0], message).toBe("shopify.klaviyo");
  });
});
