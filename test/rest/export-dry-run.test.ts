import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { connect } from "../support/mcp.ts";

/**
 * dry_run=true on Export Domains and on a cursor=all job (docs/decisions.md, "Dry runs"): the count
 * a real start would write, its bytes (exact when its first page holds every Domain, an estimate
 * from that page otherwise), and what starting would draw, without starting anything: the start's
 * budget and the month's counts are left as they were, and the dry run draws on List Domains.
 */

const BASE = "http://localhost/json/api/v1/all/domain";
const scratch = tempDir("storegraph-dry-run-");
const dir = join(scratch.dir, "d");

beforeAll(async () => {
  await generateDataset({ domains: 400, apps: 30, seed: 77, outDir: dir });
});
afterAll(() => scratch.remove());

interface DryRun {
  domains: number;
  format: string;
  fields: string;
  bytes: number;
  gzip_bytes: number;
  sample: number;
  exact: boolean;
  job: { status: string; progress: number; total: number } | null;
  would_draw: {
    endpoint: string;
    title: string;
    limit: number;
    remaining: number;
    reset: number;
    month: string;
    counted_as: string;
    this_month: number;
  };
}

describe.each(databaseKinds())("dry_run on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi(kind, dir, { rateLimits: { enabled: true, redisUrl: null } });
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (key: string, path: string, init: RequestInit = {}) =>
    api.app.fetch(`${BASE}${path}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}` },
    });
  const dryRun = async (key: string, path: string): Promise<{ res: Response; body: DryRun }> => {
    const res = await get(key, path);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return { res, body: (JSON.parse(text) as { dry_run: DryRun }).dry_run };
  };
  const usage = async (key: string) =>
    (
      (await (
        await api.app.fetch("http://localhost/json/api/v1/usage", {
          headers: { authorization: `Bearer ${key}` },
        })
      ).json()) as { usage: { exports: number; cursor_all_jobs: number } }
    ).usage;

  it("Export Domains: the exact count and bytes of a one-page export, and nothing started or counted", async () => {
    const key = await api.createKey("enterprise", "export dry run");
    const { res, body } = await dryRun(key, "/export?fields=name,rank&f:p=shopify&dry_run=true");
    // It drew on List Domains (like facets), not on the minute's one export.
    expect(res.headers.get("ratelimit-policy")).toBe('"listDomains";q=6;w=1');
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(body.exact).toBe(true);
    expect(body.sample).toBe(body.domains);
    expect(body.format).toBe("jsonl");
    expect(body.fields).toBe("name,rank");
    expect(body.would_draw).toEqual({
      endpoint: "exportDomains",
      title: "Export Domains",
      limit: 1,
      remaining: 1,
      reset: 0,
      month: new Date().toISOString().slice(0, 7),
      counted_as: "exports",
      this_month: 0,
    });
    expect(body.gzip_bytes).toBeGreaterThan(0);
    expect(body.gzip_bytes).toBeLessThan(body.bytes);
    expect((await usage(key)).exports).toBe(0);
    // The export itself: the count and the bytes the dry run said, and the minute's export is still there.
    const real = await get(key, "/export?fields=name,rank&f:p=shopify", {
      headers: { "accept-encoding": "identity" },
    });
    expect(real.status).toBe(200);
    const bytes = new Uint8Array(await real.arrayBuffer());
    expect(bytes.byteLength).toBe(body.bytes);
    expect(new TextDecoder().decode(bytes).split("\n").length - 1).toBe(body.domains);
    expect((await usage(key)).exports).toBe(1);
    // Asked again: the start's budget is spent now, and the month counts one.
    const after = await dryRun(key, "/export?fields=name,rank&f:p=shopify&dry_run=true");
    expect(after.body.would_draw).toMatchObject({ remaining: 0, this_month: 1 });
    expect(after.body.would_draw.reset).toBeGreaterThan(50);
  });

  it("CSV: the header record and every Domain's, exactly", async () => {
    const key = await api.createKey("enterprise", "csv dry run");
    const { body } = await dryRun(key, "/export?fields=name,country_code&for=csv&dry_run=true");
    expect(body).toMatchObject({ format: "csv", exact: true, domains: 400 });
    const real = await get(key, "/export?fields=name,country_code&for=csv", {
      headers: { "accept-encoding": "identity" },
    });
    expect((await real.arrayBuffer()).byteLength).toBe(body.bytes);
  });

  it("a wide selection: an estimate from the first page, near the export's size", async () => {
    const key = await api.createKey("enterprise", "wide dry run");
    const fields = "fields=name,title,description,apps,technologies,contact_info,categories,features";
    const { body } = await dryRun(key, `/export?${fields}&dry_run=true`);
    expect(body.domains).toBe(400);
    expect(body.exact).toBe(false);
    expect(body.sample).toBeGreaterThan(0);
    expect(body.sample).toBeLessThan(400);
    const real = await get(key, `/export?${fields}`, { headers: { "accept-encoding": "identity" } });
    const size = (await real.arrayBuffer()).byteLength;
    expect(Math.abs(body.bytes - size) / size).toBeLessThan(0.15);
  });

  it("the default fields: the rendered records' first page holds all 400, so the bytes are exact", async () => {
    const key = await api.createKey("enterprise", "default dry run");
    const { body } = await dryRun(key, "/export?dry_run=true");
    expect(body.domains).toBe(400);
    expect(body.fields).toBe("*");
    expect(body.exact).toBe(true);
    expect(body.sample).toBe(400);
    const real = await get(key, "/export", { headers: { "accept-encoding": "identity" } });
    const size = (await real.arrayBuffer()).byteLength;
    expect(body.bytes).toBe(size);
    // Compressed: what a client that takes gzip is sent, within the same margin.
    const zipped = await dryRun(await api.createKey("enterprise", "gzip"), "/export?dry_run=true");
    const gz = await get(await api.createKey("enterprise", "gzip real"), "/export", {
      headers: { "accept-encoding": "gzip" },
    });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    const { gunzipSync } = await import("node:zlib");
    const gzBody = Buffer.from(await gz.arrayBuffer());
    // app.fetch hands the body as sent: gzip, whose inflated text is the export's.
    expect(gunzipSync(gzBody).byteLength).toBe(size);
    expect(Math.abs(zipped.body.gzip_bytes - gzBody.byteLength) / gzBody.byteLength).toBeLessThan(0.2);
  });

  it("cursor=all: the job's total and its JSON result's bytes, and no job started", async () => {
    const key = await api.createKey("enterprise", "job dry run");
    const { res, body } = await dryRun(key, "?fields=name&f:p=shopify&cursor=all&dry_run=true");
    expect(res.headers.get("ratelimit-policy")).toBe('"listDomains";q=6;w=1');
    expect(body).toMatchObject({ format: "json", exact: true });
    expect(body.would_draw).toMatchObject({
      endpoint: "listDomainsAll",
      remaining: 1,
      counted_as: "cursor_all_jobs",
      this_month: 0,
    });
    const jobs = await api.snapshots.store.metaQuery("SELECT id FROM {meta}.export_job");
    expect(jobs).toHaveLength(0);
    expect((await usage(key)).cursor_all_jobs).toBe(0);
    // The same Domains as JSON Lines, exported: the JSON result is their lines joined by commas.
    const lines = await (
      await get(key, "/export?fields=name&f:p=shopify", { headers: { "accept-encoding": "identity" } })
    ).text();
    const n = lines.split("\n").length - 1;
    expect(body.bytes).toBe('{"domains":['.length + Buffer.byteLength(lines) - n + (n - 1) + "]}".length);
    // The real start: 202 with the same total, drawing on the minute's start.
    const start = await get(key, "?fields=name&f:p=shopify&cursor=all");
    expect(start.status).toBe(202);
    expect(((await start.json()) as { total: number }).total).toBe(body.domains);
    // Asked again, the dry run tells of the job the request would now answer, starting none.
    expect(body.job).toBeNull();
    const again = await dryRun(key, "?fields=name&f:p=shopify&cursor=all&dry_run=true");
    expect(again.body.job).toMatchObject({ total: body.domains });
    expect(["running", "done"]).toContain(again.body.job?.status);
    // Another question's dry run has none.
    expect((await dryRun(key, "?fields=name,rank&f:p=shopify&cursor=all&dry_run=true")).body.job).toBeNull();
  });

  it("bad input: a 400 that names it, and draws on no budget", async () => {
    const key = await api.createKey("pro", "bad dry run");
    for (const [path, message] of [
      ["/export?dry_run=maybe", /^dry_run: must be true or false; got "maybe"/],
      ["?dry_run=true", /^dry_run: applies only with cursor=all/],
      ["/export?f:cc=ZZZ&dry_run=true", /f:cc/],
      ["?cursor=all&for=xml&dry_run=true", /^for: must be json, jsonl or csv/],
    ] as const) {
      const res = await get(key, path);
      const body = (await res.json()) as { error: string; code: string };
      expect(res.status, path).toBe(400);
      expect(body.code).toBe("BAD_USER_INPUT");
      expect(body.error, path).toMatch(message);
    }
    const ok = await get(key, "/export?fields=name&dry_run=true");
    expect(ok.headers.get("ratelimit")).toMatch(/^"listDomains";r=1;/);
  });

  it("GraphQL: exportEstimate answers what REST's dry_run does, on List Domains' budget", async () => {
    const key = await api.createKey("enterprise", "graphql dry run");
    const gql = async (query: string) => {
      const res = await api.app.fetch("http://localhost/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ query }),
      });
      return {
        res,
        body: (await res.json()) as { data: Record<string, unknown> | null; errors?: unknown[] },
      };
    };
    const selection =
      "domains format bytes gzipBytes sample exact wouldDraw { endpoint limit remaining resetSeconds month countedAs thisMonth }";
    const { res, body } = await gql(
      `{ exportEstimate(filter: { platform: { values: ["shopify"] } }, fields: "name,rank", format: CSV) { ${selection} } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(res.headers.get("ratelimit-policy")).toBe('"listDomains";q=6;w=1');
    const rest = (await dryRun(key, "/export?fields=name,rank&f:p=shopify&for=csv&dry_run=true")).body;
    const w = rest.would_draw;
    expect(body.data?.exportEstimate).toEqual({
      domains: rest.domains,
      format: "csv",
      bytes: rest.bytes,
      gzipBytes: rest.gzip_bytes,
      sample: rest.sample,
      exact: rest.exact,
      wouldDraw: {
        endpoint: w.endpoint,
        limit: w.limit,
        remaining: w.remaining,
        resetSeconds: w.reset,
        month: w.month,
        countedAs: w.counted_as,
        thisMonth: w.this_month,
      },
    });
    const job = await gql(
      `{ exportEstimate(cursorAll: true, fields: "name") { format wouldDraw { endpoint } } }`,
    );
    expect(job.body.data?.exportEstimate).toEqual({
      format: "json",
      wouldDraw: { endpoint: "listDomainsAll" },
    });
    // Bad input names what was wrong.
    const bad = await gql("{ exportEstimate(format: JSON) { domains } }");
    expect(JSON.stringify(bad.body.errors)).toContain("format: an export is JSONL or CSV");
    // A bad fields value or filter value is the client's error, named, never a masked fault (in
    // the next second: the calls above drew on List Domains' budget).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (const [query, argument, named] of [
      ['{ exportEstimate(fields: "nope") { domains } }', "fields", 'unknown field \\"nope\\"'],
      ['{ exportEstimate(filter: { tags: { values: ["Nope"] } }) { domains } }', "filter", "unknown tag"],
    ]) {
      const refused = await gql(query);
      const [error] = (refused.body.errors ?? []) as {
        message?: string;
        extensions?: Record<string, unknown>;
      }[];
      expect(error?.extensions?.code, query).toBe("BAD_USER_INPUT");
      expect(error?.extensions?.argument, query).toBe(argument);
      expect(JSON.stringify(error?.message), query).toContain(named);
    }
  });

  it("MCP: export_segment with dry_run answers the estimate and starts nothing", async () => {
    const key = await api.createKey("enterprise", "mcp dry run");
    const client = await connect(api, key);
    const jobs = async () => (await api.snapshots.store.metaQuery("SELECT id FROM {meta}.export_job")).length;
    const before = await jobs();
    try {
      const r = (await client.callTool({
        name: "export_segment",
        arguments: { "f.p": "shopify", fields: "name", dry_run: true },
      })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      const s = r.structuredContent as { status: string; url: string; dry_run: DryRun };
      expect(s.status).toBe("dry_run");
      expect(s.url).not.toContain("dry_run");
      const rest = await dryRun(key, "?fields=name&f:p=shopify&cursor=all&dry_run=true");
      expect(s.dry_run).toEqual(rest.body);
      expect(await jobs()).toBe(before);
      // search_domains pages; it has no dry_run.
      const search = (await client.callTool({
        name: "search_domains",
        arguments: { dry_run: true },
      })) as CallToolResult;
      expect(search.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
