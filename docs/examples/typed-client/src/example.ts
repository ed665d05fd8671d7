/**
 * Calls a running storegraph through generated types only: the REST API with openapi-fetch over the
 * types openapi-typescript wrote from docs/openapi.json, and GraphQL with plain fetch over the types
 * GraphQL Code Generator wrote from schema.graphql and src/operations.ts.
 *
 *   STOREGRAPH_URL=http://localhost:8080 STOREGRAPH_KEY=sg_... npm run example
 */
import { graphqlClient, restClient } from "./clients.ts";
import type { components } from "./generated/openapi.ts";
import { AppInstalls } from "./operations.ts";

const key = process.env.STOREGRAPH_KEY;
if (!key) throw new Error("set STOREGRAPH_KEY to an API key (the first npm start prints a demo key)");
const server = { url: process.env.STOREGRAPH_URL ?? "http://localhost:8080", key };
const rest = restClient(server);
const request = graphqlClient(server);

type Domain = components["schemas"]["Domain"];

/** A REST error ({error, code}) or a failed request, as an exception. */
function fail(what: string, error: { error?: string; code?: string } | undefined, response: Response): never {
  throw new Error(`${what}: HTTP ${response.status} ${error?.code ?? ""} ${error?.error ?? ""}`.trim());
}

const line = (d: Domain) =>
  `${d.name.padEnd(20)} rank ${String(d.rank).padStart(5)}  ${d.platform.padEnd(12)} ${d.country_code ?? "--"}  ${d.state}`;

// 1. Retrieve a Domain, with the default fields.
{
  const { data, error, response } = await rest.GET("/domain/{name}", {
    params: { path: { name: "example.com" } },
  });
  if (!data?.domain) fail("Retrieve a Domain", error, response);
  const d = data.domain;
  console.log("REST  GET /domain/example.com");
  console.log(`  ${line(d)}`);
  console.log(
    `  merchant ${d.merchant_name ?? "-"}, created ${d.created_at}, cluster ${d.cluster_domains.join(", ")}`,
  );
  console.log(`  apps: ${(d.apps ?? []).map((a) => `${a.platform}.${a.token}`).join(", ") || "-"}`);
}

// 2. List Domains with filters: US or German stores with free returns, by estimated sales.
{
  const { data, error, response } = await rest.GET("/domain", {
    params: {
      query: {
        "f:cc": "US,DE",
        "f:cc:op": "or",
        "f:features": "Free Returns",
        sort: "-er",
        page_size: 5,
        fields: "name,rank,platform,country_code,state,estimated_sales",
      },
    },
  });
  // A 2xx is a page of Domains, or (with cursor=all, not asked here) a job's progress, or its
  // result as JSON Lines or CSV text.
  if (!data || typeof data === "string" || !("domains" in data) || !data.domains)
    fail("List Domains", error, response);
  console.log("\nREST  GET /domain?f:cc=US,DE&f:cc:op=or&f:features=Free Returns&sort=-er&page_size=5");
  for (const d of data.domains) console.log(`  ${line(d)}  sales ${d.estimated_sales ?? "-"}`);
  console.log(`  has_next_page ${data.has_next_page}, next_cursor ${data.next_cursor ? "present" : "none"}`);
}

// 3. GraphQL: an App, and the German stores that have it installed (src/operations.ts).
{
  const { app } = await request(AppInstalls, {
    platform: "shopify",
    token: "klaviyo",
    installedOn: { countryCode: { values: ["DE"] } },
    first: 3,
  });
  if (!app) throw new Error("GraphQL: no App shopify.klaviyo");
  console.log("\nGraphQL  query AppInstalls: app(platform: shopify, token: klaviyo) { ... installedOn(DE) }");
  console.log(`  ${app.name} by ${app.vendorName}: rating ${app.averageRating}, ${app.reviewCount} reviews`);
  console.log(`  plans: ${app.plans.map((p) => `${p.name} (${p.monthlyCost})`).join(", ")}`);
  console.log(`  installed on ${app.installedOn.totalCount} German stores; by estimated sales:`);
  for (const { node } of app.installedOn.edges) {
    console.log(
      `    ${node.name.padEnd(20)} rank ${String(node.rank).padStart(5)}  sales ${node.estimatedSales ?? "-"}`,
    );
  }
}
