import type { Server } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { LIMITS } from "../../src/document-limits.ts";
import { MAX_ECHO } from "../../src/errors.ts";
import { createHttpServer } from "../../src/http.ts";
import { MAX_BODY_BYTES } from "../../src/request-body.ts";
import { startApi, type TestApi, tempDir, withKey } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { errorLines, logged } from "../support/logs.ts";
import { parseResponse } from "../support/raw-http.ts";

// Bad requests that were answered as faults of ours (200 INTERNAL_SERVER_ERROR, an error-level log
// line with a stack), and the smaller edges of the same round: each is a 4xx naming what was
// wrong, logged at warn or below, on every database (docs/decisions.md, Errors).

vi.mock("../../src/logger.ts", async (original) =>
  (await import("../support/logs.ts")).capturingLogger(await original(), "debug"),
);

type Body = { errors?: { message: string; extensions?: Record<string, unknown> }[]; data?: unknown };

const GRAPHQL_RESPONSE = "application/graphql-response+json";

describe.each(databaseKinds())("bad requests and edges on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-edges-");
  beforeAll(async () => {
    // Enough Domains for an export of several pages.
    const dir = join(tmp.dir, "a");
    await generateDataset({ domains: 600, apps: 30, seed: 33, outDir: dir });
    api = await startApi(kind, dir);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  const post = async (body: unknown, accept = GRAPHQL_RESPONSE, init: RequestInit = {}) => {
    const res = await api.app.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept },
      body: typeof body === "string" || body instanceof ReadableStream ? body : JSON.stringify(body),
      ...init,
    });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const get = async (query: string) => {
    const res = await api.app.fetch(`http://localhost/graphql?${query}`, {
      headers: { accept: GRAPHQL_RESPONSE },
    });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const codeOf = (b: Body) => b.errors?.[0]?.extensions?.code;

  describe("GraphQL requests that are the client's fault", () => {
    it.each([
      ["mutation", /^Cannot query field "x" on type "Mutation"/],
      ["subscription", /^Cannot query field "x" on type "Subscription"/],
    ])(
      "a %s the schema lacks is a validation error: 400, nothing logged as an error",
      async (op, message) => {
        logged.length = 0;
        for (const accept of [GRAPHQL_RESPONSE, "application/json"]) {
          const res = await post({ query: `${op} { x }` }, accept);
          expect(codeOf(res.body)).toBe("GRAPHQL_VALIDATION_FAILED");
          expect(res.body.errors?.[0]?.message).toMatch(message);
          // As every other validation error: 400, or 200 under the legacy application/json.
          expect(res.status).toBe(accept === GRAPHQL_RESPONSE ? 400 : 200);
        }
        // The same document through the REST layer's door (executeInternally) never compiles either.
        expect(errorLines()).toEqual([]);
      },
    );

    it.each([
      ["variables", "query=%7B__typename%7D&variables=%7Bbad"],
      ["extensions", "query=%7B__typename%7D&extensions=%7Bbad"],
      ["variables", "query=%7B__typename%7D&variables=nope&extensions=%7B%7D"],
    ])("GET with malformed %s: 400 BAD_REQUEST naming the parameter", async (param, query) => {
      logged.length = 0;
      const res = await get(query);
      expect(res.status).toBe(400);
      expect(codeOf(res.body)).toBe("BAD_REQUEST");
      expect(res.body.errors?.[0]?.message).toMatch(new RegExp(`^the ${param} parameter is not valid JSON`));
      expect(logged.filter((l) => l.level >= 40)).toEqual([]);
    });

    it("a form body with malformed variables: 400 BAD_REQUEST", async () => {
      logged.length = 0;
      const res = await api.app.fetch("http://localhost/graphql", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: GRAPHQL_RESPONSE },
        body: "query=%7B__typename%7D&variables=%7Bbad",
      });
      expect(res.status).toBe(400);
      expect(codeOf((await res.json()) as Body)).toBe("BAD_REQUEST");
      expect(errorLines()).toEqual([]);
    });

    it.each([
      ["selections", `{${"a{".repeat(3000)}b${"}".repeat(3000)}}`],
      [
        "list values",
        `{ domains(filter: { name: ${"[".repeat(3000)}"x"${"]".repeat(3000)} }) { totalCount } }`,
      ],
      [
        "object values",
        `{ domains(filter: ${"{ and: ".repeat(3000)}{}${" }".repeat(3000)}) { totalCount } }`,
      ],
    ])(
      "nesting %s 3,000 deep is refused before the parser recurses: GRAPHQL_PARSE_FAILED",
      async (_, query) => {
        logged.length = 0;
        for (const res of [await post({ query }), await get(`query=${encodeURIComponent(query)}`)]) {
          expect(res.status).toBe(400);
          expect(codeOf(res.body)).toBe("GRAPHQL_PARSE_FAILED");
          expect(res.body.errors?.[0]?.message).toMatch(/Nesting limit of 64 exceeded/);
          expect(res.body.errors?.[0]?.extensions).toMatchObject({ limit: "nesting", max: LIMITS.nesting });
        }
        expect(errorLines()).toEqual([]);
      },
    );

    it("nesting up to the limit is left to the parser and the depth limit", async () => {
      const res = await post({ query: `{${"a{".repeat(40)}b${"}".repeat(40)}}` });
      // Parsed: refused by the depth limit, which says by how much.
      expect(codeOf(res.body)).toBe("QUERY_TOO_COMPLEX");
      expect(res.body.errors?.[0]?.message).toMatch(/depth limit of 15 exceeded, found 4\d/);
    });
  });

  describe("smaller edges", () => {
    it("depth and alias limits say which limit they hit, as the token and cost limits do", async () => {
      const deep = `{ domain(name: "x.com") { ${"cluster { ".repeat(LIMITS.depth)} name ${"} ".repeat(LIMITS.depth)} } }`;
      const aliases = Array.from({ length: LIMITS.aliases + 1 }, (_, i) => `a${i}: snapshot { version }`);
      for (const accept of [GRAPHQL_RESPONSE, "application/json"]) {
        const d = await post({ query: deep }, accept);
        expect(d.status).toBe(400);
        expect(d.body.errors?.[0]?.extensions).toMatchObject({
          code: "QUERY_TOO_COMPLEX",
          limit: "depth",
          max: LIMITS.depth,
        });
        const a = await post({ query: `{ ${aliases.join(" ")} }` }, accept);
        expect(a.status).toBe(400);
        expect(a.body.errors?.[0]?.extensions).toMatchObject({
          code: "QUERY_TOO_COMPLEX",
          limit: "aliases",
          max: LIMITS.aliases,
        });
      }
      const t = await post({ query: `{ snapshot { ${"version ".repeat(LIMITS.tokens)} } }` });
      expect(t.body.errors?.[0]?.extensions).toMatchObject({
        code: "GRAPHQL_PARSE_FAILED",
        limit: "tokens",
        max: LIMITS.tokens,
      });
    });

    it("a long value is echoed cut short, in GraphQL and in REST", async () => {
      const long = "x".repeat(900_000);
      const cases = [
        await post({ query: "query($n: String!) { domain(name: $n) { name } }", variables: { n: long } }),
        await post({ query: "query($n: Int!) { apps(first: $n) { totalCount } }", variables: { n: long } }),
        await post({ query: `{ domain(name: ${JSON.stringify(long.slice(0, 200_000))}) { name } }` }),
      ];
      for (const { body } of cases) {
        const message = body.errors?.[0]?.message ?? "";
        expect(message).toMatch(/x{10}…" \([\d,]+ characters\)/);
        expect(message.length).toBeLessThan(MAX_ECHO * 4);
      }
      for (const path of [`/domain?f:cc=${"x".repeat(500_000)}`, `/domain?${"x".repeat(500_000)}=1`]) {
        const res = await api.app.fetch(`http://localhost/json/api/v1/all${path}`);
        expect(res.status).toBe(400);
        const { error } = (await res.json()) as { error: string };
        expect(error).toMatch(/x{10}…" \([\d,]+ characters\)/);
        // The message goes on to list the valid options; the value itself is cut.
        expect(error).not.toMatch(new RegExp(`x{${MAX_ECHO + 1}}`));
      }
    });

    it("GraphQL bodies stop at the REST limit: 413 JSON, with a length or sent in chunks", async () => {
      const big = JSON.stringify({ query: "{ __typename }", variables: { x: "y".repeat(MAX_BODY_BYTES) } });
      const sized = await post(big);
      expect(sized.status).toBe(413);
      expect(codeOf(sized.body)).toBe("PAYLOAD_TOO_LARGE");
      const chunked = new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(big);
          for (let i = 0; i < bytes.length; i += 65_536) controller.enqueue(bytes.subarray(i, i + 65_536));
          controller.close();
        },
      });
      const streamed = await post(chunked, GRAPHQL_RESPONSE, { duplex: "half" } as RequestInit);
      expect(streamed.status).toBe(413);
      expect(codeOf(streamed.body)).toBe("PAYLOAD_TOO_LARGE");
      // Under the limit, chunked or not, it runs.
      const small = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(JSON.stringify({ query: "{ __typename }" })));
          controller.close();
        },
      });
      const ok = await post(small, GRAPHQL_RESPONSE, { duplex: "half" } as RequestInit);
      expect(ok).toEqual({ status: 200, body: { data: { __typename: "Query" } } });
      const rest = await api.app.fetch("http://localhost/json/api/v1/all/domain/bulk", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ domains: ["a".repeat(MAX_BODY_BYTES)] }),
      });
      expect(rest.status).toBe(413);
      expect(((await rest.json()) as { code: string }).code).toBe("PAYLOAD_TOO_LARGE");
    });

    it("a path with a trailing slash is redirected (308) to the one without, query kept", async () => {
      for (const [path, to] of [
        ["/app/?page_size=2", "/app?page_size=2"],
        ["/domain/", "/domain"],
        ["/domain/bulk/", "/domain/bulk"],
      ]) {
        const res = await api.app.fetch(`http://localhost/json/api/v1/all${path}`, { redirect: "manual" });
        expect(res.status, path).toBe(308);
        expect(res.headers.get("location")).toBe(`/json/api/v1/all${to}`);
        expect(((await res.json()) as { location: string }).location).toBe(`/json/api/v1/all${to}`);
      }
      // The canonical path serves; a slash after nothing that is a route is a 404 as before.
      expect((await api.app.fetch("http://localhost/json/api/v1/all/app?page_size=2")).status).toBe(200);
      expect((await api.app.fetch("http://localhost/json/api/v1/all/nothing/")).status).toBe(404);
      expect((await api.app.fetch("http://localhost/json/api/v1/all/")).status).toBe(404);
    });
  });

  describe("on a real socket", () => {
    let server: Server;
    let port: number;
    let pageHook: () => Promise<void> = async () => {};
    beforeAll(async () => {
      const app = withKey(
        createApp(api.db.config, api.snapshots, { beforeExportPage: () => pageHook() }),
        api.key,
      );
      server = createHttpServer(app.listener) as Server;
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    });

    it.each([
      ["GET /json/api/v1/all/domain?page_size=5", "domains"],
      ["GET /graphql?query=%7Bdomains(first%3A5)%7BtotalCount%7D%7D", "data"],
    ])("a client that half-closes after a whole request gets its answer: %s", async (line, key) => {
      for (let i = 0; i < 5; i++) {
        const response = await new Promise<string>((resolve, reject) => {
          const socket = connect(port, "127.0.0.1");
          let received = Buffer.alloc(0);
          socket.on("connect", () => {
            socket.end(`${line} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.key}\r\n\r\n`);
          });
          socket.on("data", (chunk) => {
            received = Buffer.concat([received, chunk]);
          });
          socket.on("close", () => {
            const parsed = parseResponse(received, true);
            parsed ? resolve(parsed.body) : reject(new Error(`no answer: ${received.toString()}`));
          });
          socket.on("error", reject);
          setTimeout(() => socket.destroy(), 15_000).unref();
        });
        expect(Object.keys(JSON.parse(response))).toContain(key);
      }
    });

    it("a client that drops an export mid-stream is logged at info, not as an error", async () => {
      logged.length = 0;
      let pages = 0;
      let dropped!: () => void;
      const gone = new Promise<void>((resolve) => {
        dropped = resolve;
      });
      const atSecond = new Promise<void>((resolve) => {
        pageHook = async () => {
          if (++pages !== 2) return;
          resolve();
          await gone;
        };
      });
      const socket = connect(port, "127.0.0.1");
      await new Promise<void>((resolve) => socket.once("connect", resolve));
      socket.write(
        // Written pages of about 256 KB, tens of Domains each (the default fields' rendered records
        // come 1,000 a page: 600 Domains would be one).
        `GET /json/api/v1/all/domain/export?fields=name,title,description,apps,technologies HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.key}\r\n\r\n`,
      );
      await atSecond;
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      dropped();
      await vi.waitFor(
        () =>
          expect(logged.some((l) => l.msg === "export dropped by the client" || l.level >= 50)).toBe(true),
        {
          timeout: 20_000,
        },
      );
      // Whatever the export was doing when the client left settles without an error line.
      await new Promise((resolve) => setTimeout(resolve, 300));
      pageHook = async () => {};
      expect(errorLines()).toEqual([]);
      expect(logged.find((l) => l.msg === "export dropped by the client")).toMatchObject({ level: 30 });
    });
  });
});
