/**
 * Never run, only compiled (npm run typecheck, and the repository's test/docs/typed-client.test.ts):
 * mistakes the generated types refuse. Each line after `@ts-expect-error` must not compile; if the
 * types let one through (say they became `any`), the directive itself is the error.
 */
import type { GraphqlRequest, RestClient } from "./clients.ts";
import { AppInstalls } from "./operations.ts";

export async function mistakes(rest: RestClient, request: GraphqlRequest): Promise<void> {
  // @ts-expect-error: no such path (it is /domain)
  await rest.GET("/domains", {});

  // @ts-expect-error: Retrieve a Domain takes no filter options
  await rest.GET("/domain/{name}", { params: { path: { name: "example.com" }, query: { "f:cc": "US" } } });

  // @ts-expect-error: page_size is an integer
  await rest.GET("/domain", { params: { query: { page_size: "5" } } });

  const { data } = await rest.GET("/domain/{name}", { params: { path: { name: "example.com" } } });
  // @ts-expect-error: the REST Domain spells it country_code
  data?.domain?.countryCode;

  // @ts-expect-error: token is required by the operation
  await request(AppInstalls, { platform: "shopify" });

  await request(AppInstalls, {
    platform: "shopify",
    token: "klaviyo",
    // @ts-expect-error: a list filter takes values as a list
    installedOn: { countryCode: { values: "DE" } },
  });

  const { app } = await request(AppInstalls, { platform: "shopify", token: "klaviyo" });
  // @ts-expect-error: title is a field of Domain, but the operation does not select it
  app?.installedOn.edges[0]?.node.title;
}
