import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApi } from "../../src/rest/openapi.ts";
import { OPERATIONS } from "../../src/rest/routes.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

const file = new URL("../../docs/openapi.json", import.meta.url);
const printed = `${JSON.stringify(buildOpenApi(), null, 2)}\n`;

// Committed for clients; locally a stale file is rewritten, in CI it only compares.
it("docs/openapi.json matches the document generated from the route table", () => {
  if (!process.env.CI && readFileSync(file, "utf8") !== printed) writeFileSync(file, printed);
  expect(readFileSync(file, "utf8")).toBe(printed);
});

describe("the OpenAPI document", () => {
  const doc = buildOpenApi() as {
    openapi: string;
    paths: Record<
      string,
      Record<string, { operationId: string; parameters: { name: string }[]; requestBody?: unknown }>
    >;
    components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
  };

  it("is OpenAPI 3.1 with every route of the table and every option it reads", () => {
    expect(doc.openapi).toBe("3.1.0");
    for (const route of OPERATIONS) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op?.operationId, `${route.method} ${route.path}`).toBe(route.id);
      if (route.body) {
        const props = (op.requestBody as { content: Record<string, { schema: { properties: object } }> })
          .content["application/json"].schema.properties;
        expect(Object.keys(props).sort()).toEqual(route.options.map((o) => o.name).sort());
      } else {
        const names = op.parameters.map((p) => p.name);
        for (const o of route.options) expect(names).toContain(o.name);
      }
    }
  });

  it("documents aq as URL-encoded JSON in the query strings of List Domains and Export Domains", () => {
    for (const [path, method] of [
      ["/domain", "get"],
      ["/domain/export", "get"],
    ]) {
      const aq = (doc.paths[path][method].parameters as Record<string, unknown>[]).find(
        (p) => p.name === "aq",
      );
      expect(aq, `${method} ${path}`).toMatchObject({
        in: "query",
        content: {
          "application/json": {
            schema: {
              type: "array",
              items: {
                required: ["field", "value"],
                properties: { operator: { enum: ["and", "or", "nand", "nor"] } },
              },
            },
          },
        },
      });
      expect(aq).not.toHaveProperty("schema");
    }
    const post = doc.paths["/domain"].post.requestBody as {
      content: Record<string, { schema: { properties: Record<string, unknown> } }>;
    };
    expect(post.content["application/json"].schema.properties.aq).toMatchObject({
      type: "array",
      items: { required: ["field", "value"] },
    });
  });

  it("documents the endpoint a 429 names, and the budgets of cursor=all and Export Domains apart", () => {
    const error = doc.components.schemas.Error.properties ?? {};
    expect(error.endpoint).toMatchObject({
      type: "string",
      enum: expect.arrayContaining(["listDomains", "listDomainsAll", "exportDomains"]),
    });
    const description = (path: string) =>
      (doc.paths[path].get as unknown as { description: string }).description;
    expect(description("/domain/export")).toBe("Rate limit: 1 per minute (Export Domains, `exportDomains`).");
    expect(description("/domain")).toContain(
      "With cursor=all, starting a job: 1 per minute (List Domains with cursor=all, `listDomainsAll`), a budget of its own",
    );
  });

  it("documents GET /json/api/v1/usage beside the legacy paths, with the legacy names of its type", () => {
    const usage = (doc as unknown as { paths: Record<string, Record<string, unknown>> }).paths["/usage"];
    expect(usage.servers).toEqual([{ url: "/json/api/v1" }]);
    expect(usage.get).toMatchObject({ operationId: "usage", parameters: [{ name: "fields" }] });
    const { Usage, EndpointUsage } = doc.components.schemas;
    expect(Object.keys(Usage.properties ?? {})).toEqual([
      "key_id",
      "key_name",
      "plan",
      "limits_enforced",
      "endpoints",
      "month",
      "exports",
      "cursor_all_jobs",
    ]);
    expect(Object.keys(EndpointUsage.properties ?? {})).toEqual([
      "endpoint",
      "title",
      "limit",
      "window_seconds",
      "remaining",
      "reset",
      "reset_at",
    ]);
  });

  it("documents for=csv on Export Domains and cursor=all, and the formats each takes", () => {
    type Op = {
      parameters: { name: string; schema?: { enum?: string[] } }[];
      responses: Record<string, { content: object }>;
    };
    const paths = doc.paths as unknown as Record<string, Record<string, Op>>;
    for (const [path, formats] of [
      ["/domain/export", ["jsonl", "csv"]],
      ["/domain", ["json", "jsonl", "csv"]],
    ] as const) {
      const op = paths[path].get;
      expect(op.parameters.find((p) => p.name === "for")?.schema?.enum, path).toEqual(formats);
      expect(Object.keys(op.responses["200"].content), path).toEqual(
        expect.arrayContaining(["application/x-ndjson", "text/csv"]),
      );
    }
  });

  it("describes the resources with their legacy field names", () => {
    const { App, Domain, AppReview } = doc.components.schemas;
    expect(Object.keys(App.properties ?? {})).toEqual(
      expect.arrayContaining(["id", "app_store_url", "description_long"]),
    );
    expect(Object.keys(Domain.properties ?? {})).toEqual(
      expect.arrayContaining([
        "name",
        "rank",
        "contact_info",
        "apps",
        "estimated_sales_yearly",
        "trustpilot",
      ]),
    );
    expect(Object.keys(AppReview.properties ?? {})).toEqual(
      expect.arrayContaining(["updated_at", "domains", "app"]),
    );
  });
});

describe("GET /json/api/v1/openapi.json", () => {
  let api: TestApi;
  const tmp = tempDir("storegraph-openapi-");
  beforeAll(async () => {
    api = await startApi("sqlite", writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it("serves the committed document", async () => {
    const res = await api.app.fetch("http://localhost/json/api/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(await res.json()).toEqual(JSON.parse(printed));
  });
});
