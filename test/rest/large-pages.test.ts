import pino from "pino";
import { describe, expect, it } from "vitest";
import { type ExecuteGraphQL, type RestContext, useRest } from "../../src/rest/handler.ts";

// Pages of many records wait for their turn (src/rest/handler.ts, LARGE_PAGES): 32 concurrent
// pages of 1000 Domains took the server to 1.6 GB, and at most 4 at once keep it near 550 MB
// (the bench's "list, page of 1000" scenario measures it). Smaller pages never wait.

/** The REST layer over an execute that counts the operations running at once. */
function restWith(delayMs: number) {
  let running = 0;
  let most = 0;
  const execute: ExecuteGraphQL = async () => {
    running++;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    running--;
    return {
      data: { domains: { edges: [], pageInfo: { hasNextPage: false, endCursor: null } } },
      served: null,
    };
  };
  const ctx: RestContext = {
    execute,
    logger: pino({ level: "silent" }),
    limits: {} as RestContext["limits"],
    version: async () => null,
    // Through GraphQL (the stand-in above): pages read from their rows wait their turn the same way.
    writer: "resolvers",
    readContext: async () => {
      throw new Error("not read here");
    },
  };
  const plugin = useRest(ctx) as { onRequest: (args: unknown) => Promise<void> };
  const get = async (path: string) => {
    let response: Response | undefined;
    const request = new Request(`http://localhost${path}`);
    await plugin.onRequest({
      request,
      url: new URL(request.url),
      endResponse: (r: Response) => (response = r),
    });
    return response as Response;
  };
  return { get, most: () => most };
}

describe("large pages", () => {
  it("at most 4 pages of more than 100 records are read at once; the others wait and are answered", async () => {
    const rest = restWith(30);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => rest.get("/json/api/v1/all/domain?page_size=500")),
    );
    for (const a of answers) expect(await a.json()).toEqual({ domains: [], has_next_page: false });
    expect(rest.most()).toBe(4);
  });

  it("pages of 100 or fewer never wait", async () => {
    const rest = restWith(30);
    await Promise.all(Array.from({ length: 12 }, () => rest.get("/json/api/v1/all/domain?page_size=100")));
    expect(rest.most()).toBe(12);
  });
});
