import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

// A refusal that names what was meant (issue 35): an unknown option or filter, and an unknown `aq`
// field, say "did you mean" the near one, found by name (graphql-js's suggestionList, as GraphQL's
// own "Did you mean" is) or by the filter's long name (f:cc is the country code: f:country,
// f:country_code). The messages stay bounded whatever the request. Unknown platforms:
// test/rest/unknown-platform.test.ts.

const BASE = "http://localhost/json/api/v1/all";

describe.each(databaseKinds())("did you mean, on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-suggestions-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  /** The 400's message for a GET of `path`. */
  async function refusal(path: string, init?: RequestInit): Promise<string> {
    const res = await api.app.fetch(`${BASE}${path}`, init ?? {});
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

  describe("an unknown option or filter", () => {
    it.each([
      ["/domain?f:country=US", "f:cc"],
      ["/domain?f:country_code=US", "f:cc"],
      ["/domain?f:countryCode=US", "f:cc"],
      ["/domain?f:platform=shopify", "f:p"],
      ["/domain?f:currency=EUR", "f:curr"],
      ["/domain?f:language=de", "f:lang"],
      ["/domain?f:state=Active", "f:ds"],
      ["/domain?f:category=Shoes", "f:cat"],
      ["/domain?f:technology=React", "f:tech"],
      ["/domain?f:country:op=or&f:cc=US,DE", "f:cc:op"],
      ["/domain?f:estimated_sales:min=100", "f:ermin"],
      ["/domain?f:employee_count_max=10", "f:empcmax"],
      ["/domain?f:ccc=US", "f:cc"],
      ["/domain?page_sise=10", "page_size"],
      ["/domain?sort_by=rank", "sort"],
      ["/app?f:categroies=Email", "f:categories"],
      ["/app?f:platform=shopify", "f:p"],
      ["/domain/export?f:country=US", "f:cc"],
    ])("%s: did you mean %s", async (path, meant) => {
      const message = await refusal(path);
      expect(suggested(message), message).toContain(meant);
      // The best is named first, and the valid options are still listed.
      expect(suggested(message)[0], message).toBe(meant);
      expect(message).toContain("valid options: ");
    });

    it("in a POST body too", async () => {
      const message = await refusal("/domain", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ "f:country": "US" }),
      });
      expect(suggested(message)).toEqual(["f:cc"]);
    });

    it("is bounded: at most 5 suggestions each, and at most 5 unknown options named", async () => {
      const message = await refusal("/domain?f:created=2024-01-01");
      expect(suggested(message).length).toBeGreaterThan(0);
      expect(suggested(message).length).toBeLessThanOrEqual(5);
      const many = Array.from({ length: 200 }, (_, i) => `f:country${i}=US`).join("&");
      const long = await refusal(`/domain?${many}`);
      expect(long).toContain("and 195 more");
      // Nothing near: nothing suggested.
      const alone = await refusal("/domain?f:zzqx=1");
      expect(alone).toMatch(/^unknown filter "f:zzqx"; valid options: /);
      // The valid options (about 80 on List Domains), plus a bounded part for what was refused.
      expect(long.length).toBeLessThan(alone.length + 1000);
    });

    it.each([
      ["/domain?limit=10", ["page_size"]],
      ["/domain?offset=50", ["cursor"]],
      ["/changes?limit=10", ["page_size"]],
      ["/changes?offset=10", ["cursor"]],
      // Reviews page by offset: a page number, and no cursor.
      ["/app/shopify.klaviyo/reviews?offset=50", ["page"]],
    ])("%s: other APIs' paging options name this one's (%s)", async (path, meant) => {
      const message = await refusal(path);
      expect(suggested(message), message).toEqual(meant);
    });

    it("an aq field names the filter meant, without its f:", async () => {
      const aq = encodeURIComponent(JSON.stringify([{ field: "country", value: "US" }]));
      const message = await refusal(`/domain?aq=${aq}`);
      expect(message).toMatch(/^aq\[0\]\.field: unknown filter "country"/);
      expect(suggested(message)[0], message).toBe("cc");
    });
  });

  describe("an unknown plan (the snapshot's own vocabulary, as it spells it)", () => {
    it.each([
      ["/domain?f:plan=Shopify%20Pluss", "Shopify Pluss", "f:plan"],
      ["/domain?f:plan=shopify%20plus", "shopify plus", "f:plan"],
      ["/domain?f:plan=Shopify%20Plus,Shopify%20Pluss&f:plan:op=or", "Shopify Pluss", "f:plan"],
      ["/domain/facets?f:plan=shopify%20plus&facets=cc", "shopify plus", "f:plan"],
      ["/domain/export?f:plan=shopify%20plus", "shopify plus", "f:plan"],
      [
        `/domain?aq=${encodeURIComponent('[{"field":"plan","value":"Shopify Pluss","operator":"and"}]')}`,
        "Shopify Pluss",
        "f:plan (aq[0])",
      ],
    ])("%s: refused naming it, did you mean Shopify Plus", async (path, value, option) => {
      const message = await refusal(path);
      expect(message).toContain(`unknown plan "${value}"`);
      expect(message.startsWith(option), message).toBe(true);
      expect(suggested(message)[0], message).toBe("Shopify Plus");
    });

    it("GraphQL's filter.plan, and its terms, alike; the plan as spelled answers", async () => {
      for (const filter of [
        '{ plan: { values: ["Shopify Pluss"] } }',
        '{ or: [{ plan: { values: ["shopify plus"] } }] }',
      ]) {
        const r = await api.gql(`{ domains(filter: ${filter}) { totalCount } }`);
        expect(r.errors?.[0]?.extensions?.code, filter).toBe("BAD_USER_INPUT");
        expect(suggested(r.errors?.[0]?.message ?? "")[0], filter).toBe("Shopify Plus");
      }
      const ok = await api.gql<{ domains: { totalCount: number } }>(
        '{ domains(filter: { plan: { values: ["Shopify Plus"] } }) { totalCount } }',
      );
      expect(ok.errors).toBeUndefined();
      expect(ok.data?.domains.totalCount).toBeGreaterThan(0);
    });
  });

  describe("an unknown dimension of trends", () => {
    it.each([
      ["/trends?dimension=platform", "p"],
      ["/trends?dimension=country", "cc"],
      ["/trends?dimension=technology", "tech"],
      ["/trends?dimension=plann", "plan"],
      ["/app/trends?dimension=platform", "p"],
    ])("%s: did you mean %s, as facets= says", async (path, meant) => {
      const message = await refusal(path);
      expect(message).toMatch(/^dimension: unknown dimension "/);
      expect(suggested(message)[0], message).toBe(meant);
      expect(message).toContain("; valid: ");
    });
  });

  describe("an unknown field of fields", () => {
    it.each([
      ["/domain?fields=name,nmae", "nmae", "name"],
      ["/domain/shop.example.com?fields=name,contry_code", "contry_code", "country_code"],
      ["/app?fields=name,review_cout", "review_cout", "review_count"],
      ["/domain?fields=name,apps.nmae", "apps.nmae", "apps.name"],
    ])("%s: did you mean", async (path, unknown, meant) => {
      const message = await refusal(path);
      expect(message, message).toMatch(new RegExp(`^fields: unknown field "${unknown}" \\(did you mean `));
      // The nearest first (graphql-js's suggestionList, as for an unknown option).
      expect(suggested(message)[0], message).toBe(meant);
      // The known fields are still listed.
      expect(message).toContain("; known fields");
    });

    it("nothing near: no guess", async () => {
      expect(await refusal("/domain?fields=zzqx")).toMatch(/^fields: unknown field "zzqx"; known fields: /);
    });
  });

  describe("a path that is not a route", () => {
    /** The 404's message for a GET of `path` (absolute). */
    async function notFound(path: string): Promise<string> {
      const res = await api.app.fetch(`http://localhost${path}`);
      const body = (await res.json()) as { error: string; code: string };
      expect(res.status, `${path}: ${body.error}`).toBe(404);
      expect(body.code).toBe("NOT_FOUND");
      return body.error;
    }

    it.each([
      ["/json/api/v1/all/domains", "/json/api/v1/all/domain"],
      ["/json/api/v1/all/domains/shop.example.com", "/json/api/v1/all/domain/shop.example.com"],
      ["/json/api/v1/all/apps", "/json/api/v1/all/app"],
      ["/json/api/v1/all/change", "/json/api/v1/all/changes"],
      ["/json/api/v1/all/webhook", "/json/api/v1/all/webhooks"],
      // The usage and OpenAPI routes are beside /all, not under it.
      ["/json/api/v1/all/usage", "/json/api/v1/usage"],
      ["/json/api/v1/all/openapi.json", "/json/api/v1/openapi.json"],
      // A segment after the first, at any depth.
      [
        "/json/api/v1/all/domain/shop.example.com/histroy",
        "/json/api/v1/all/domain/shop.example.com/history",
      ],
      [
        "/json/api/v1/all/domain/shop.example.com/app_review",
        "/json/api/v1/all/domain/shop.example.com/app_reviews",
      ],
      ["/json/api/v1/all/app/shopify.klaviyo/review", "/json/api/v1/all/app/shopify.klaviyo/reviews"],
      [
        "/json/api/v1/all/domains/shop.example.com/history",
        "/json/api/v1/all/domain/shop.example.com/history",
      ],
      ["/json/api/v1/all/trend", "/json/api/v1/all/trends"],
    ])("%s: did you mean %s", async (path, meant) => {
      const message = await notFound(path);
      expect(message).toMatch(new RegExp(`^no such path: ${path} \\(did you mean `));
      expect(suggested(message), message).toEqual([meant]);
      // What it names is a route.
      const res = await api.app.fetch(`http://localhost${meant}`);
      expect(res.status, meant).not.toBe(404);
    });

    it("nothing near: no guess", async () => {
      expect(await notFound("/json/api/v1/all/domain/shop.example.com/zzqx")).toBe(
        "no such path: /json/api/v1/all/domain/shop.example.com/zzqx (see /json/api/v1/openapi.json)",
      );
      const message = await notFound("/json/api/v1/all/zzqx");
      expect(message).toBe("no such path: /json/api/v1/all/zzqx (see /json/api/v1/openapi.json)");
    });
  });

  describe("a www. name the dataset lacks", () => {
    it("when it has the bare name, the 404 names it, and does not answer it instead", async () => {
      const res = await api.app.fetch(`${BASE}/domain/www.shop.example.com`);
      const body = (await res.json()) as { error: string; code: string };
      expect(res.status).toBe(404);
      expect(body.code).toBe("NOT_FOUND");
      expect(body.error).toMatch(/^Domain www\.shop\.example\.com not found/);
      expect(suggested(body.error)).toEqual(["shop.example.com"]);
      // The same in GraphQL: the one resolver answers both.
      const gql = await api.gql('{ domain(name: "WWW.shop.example.com") { name } }');
      expect(gql.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
      expect(suggested(gql.errors?.[0]?.message ?? "")).toEqual(["shop.example.com"]);
    });

    it("when it lacks the bare name too, or the name is no www. name: no guess", async () => {
      for (const name of ["www.nowhere.example", "ww.shop.example.com", "wwwshop.example.com"]) {
        const res = await api.app.fetch(`${BASE}/domain/${name}`);
        const body = (await res.json()) as { error: string };
        expect(res.status, name).toBe(404);
        expect(body.error).toBe(`Domain ${name} not found`);
      }
    });
  });
});
