import type { NonSharedBuffer } from "node:buffer";
import type { Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app.ts";
import { createHttpServer } from "../../src/http.ts";
import { MAX_BODY_BYTES } from "../../src/request-body.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { bomb, CODINGS, encode, UNSUPPORTED } from "../support/encodings.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { errorLines, logged } from "../support/logs.ts";
import { MCP_POST_HEADERS, toolCallBody } from "../support/mcp.ts";

// A request body with a Content-Encoding, on the three faces alike (REST, GraphQL, and MCP at /mcp) (docs/decisions.md, "Compressed
// request bodies"): gzip, deflate and br are decoded, identity is no coding, anything else is a
// JSON 415 naming it; a body that is not in its coding is a 400; the 1 MB limit holds for the
// decoded body too, and a bomb is stopped while it inflates.

vi.mock("../../src/logger.ts", async (original) =>
  (await import("../support/logs.ts")).capturingLogger(await original(), "debug"),
);

const GRAPHQL_RESPONSE = "application/graphql-response+json";
const QUERY = "{ snapshot { version } domains(first: 2) { edges { node { name } } } }";

/** A request of one face, and the one-byte filler that makes its body longer and means nothing. */
interface Face {
  name: string;
  path: string;
  type: string;
  body: string;
  pad: string;
  /** Its Accept, when not GraphQL's (a Streamable HTTP client's takes JSON and event streams). */
  accept?: string;
}

const FACES: Face[] = [
  {
    name: "REST POST /domain/bulk",
    path: "/json/api/v1/all/domain/bulk",
    type: "application/json",
    body: JSON.stringify({ domains: ["shop.example.com", "woo.example.org"], fields: "name" }),
    pad: " ",
  },
  {
    name: "REST POST /app",
    path: "/json/api/v1/all/app",
    type: "application/json",
    body: JSON.stringify({ fields: "name", page_size: 2 }),
    pad: " ",
  },
  {
    name: "GraphQL JSON",
    path: "/graphql",
    type: "application/json",
    body: JSON.stringify({ query: QUERY }),
    pad: " ",
  },
  {
    name: "GraphQL application/graphql",
    path: "/graphql",
    type: "application/graphql",
    body: QUERY,
    pad: " ",
  },
  {
    name: "GraphQL form",
    path: "/graphql",
    type: "application/x-www-form-urlencoded",
    body: new URLSearchParams({ query: QUERY }).toString(),
    // A `+` in a form's value is a space: the document gets longer, not different.
    pad: "+",
  },
  {
    name: "MCP POST /mcp (tools/call)",
    path: "/mcp",
    type: MCP_POST_HEADERS["content-type"],
    body: toolCallBody("search_domains", { fields: "name", page_size: 2 }),
    pad: " ",
    accept: MCP_POST_HEADERS.accept,
  },
];

/** The face's body made `size` bytes long with its filler. */
const padded = (face: Face, size: number) => face.body + face.pad.repeat(size - Buffer.byteLength(face.body));

interface Answer {
  status: number;
  type: string;
  json: Record<string, unknown>;
}

/** An error answer of either face: REST's `{error, code, request_id}`, GraphQL's first error. */
function errorOf(a: Answer): { code: unknown; message: unknown; requestId: unknown } {
  const errors = a.json.errors as { message: string; extensions?: Record<string, unknown> }[] | undefined;
  if (errors) {
    return {
      code: errors[0]?.extensions?.code,
      message: errors[0]?.message,
      requestId: errors[0]?.extensions?.requestId,
    };
  }
  return { code: a.json.code, message: a.json.error, requestId: a.json.request_id };
}

describe.each(databaseKinds())("compressed request bodies on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-encoding-");
  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  const send = async (face: Face, body: string | NonSharedBuffer, encoding?: string): Promise<Answer> => {
    const headers: Record<string, string> = {
      "content-type": face.type,
      accept: face.accept ?? GRAPHQL_RESPONSE,
    };
    if (encoding !== undefined) headers["content-encoding"] = encoding;
    const res = await api.app.fetch(`http://localhost${face.path}`, { method: "POST", headers, body });
    const type = res.headers.get("content-type") ?? "";
    const text = await res.text();
    expect(type, `${face.name} ${encoding}: ${res.status} ${text.slice(0, 300)}`).toMatch(/json/);
    return { status: res.status, type, json: JSON.parse(text) };
  };

  it.each(FACES)("$name: gzip, deflate and br are read as the same body plain", async (face) => {
    const plain = await send(face, face.body);
    expect(plain.status).toBe(200);
    for (const coding of CODINGS) {
      for (const label of [coding, coding.toUpperCase(), ` ${coding} `]) {
        const answer = await send(face, encode(face.body, coding), label);
        expect({ label, ...answer }).toEqual({ label, ...plain });
      }
    }
    // identity is no coding at all.
    expect(await send(face, face.body, "identity")).toEqual(plain);
  });

  it.each(FACES)("$name: a body not in its coding is a 400 naming the coding, not a fault", async (face) => {
    logged.length = 0;
    const gzipped = encode(face.body, "gzip");
    const cases: [NonSharedBuffer | string, string, string][] = [
      // The curl: a plain body labelled gzip.
      [face.body, "gzip", "gzip"],
      [face.body, "deflate", "deflate"],
      [face.body, "br", "br"],
      // Cut short, and in another coding than its label.
      [gzipped.subarray(0, gzipped.length >> 1), "gzip", "gzip"],
      [gzipped, "br", "br"],
      [encode(face.body, "br"), "deflate", "deflate"],
    ];
    for (const [body, label, named] of cases) {
      const answer = await send(face, body, label);
      const what = `${label}: ${JSON.stringify(answer.json)}`;
      expect(answer.status, what).toBe(400);
      expect(errorOf(answer), what).toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(
          new RegExp(`^the body is not valid ${named} \\(Content-Encoding: ${named}\\): `),
        ),
        requestId: expect.any(String),
      });
    }
    expect(errorLines()).toEqual([]);
  });

  it.each(FACES)("$name: a coding the server does not read is a JSON 415 naming it", async (face) => {
    logged.length = 0;
    for (const label of UNSUPPORTED) {
      // What the label says, as well as a client could make it: each refused all the same.
      const body = label.startsWith("gzip") ? encode(encode(face.body, "gzip"), "gzip") : face.body;
      const answer = await send(face, body, label);
      const what = `${label}: ${JSON.stringify(answer.json)}`;
      expect(answer.status, what).toBe(415);
      expect(errorOf(answer), what).toEqual({
        code: "UNSUPPORTED_MEDIA_TYPE",
        message: `the body's Content-Encoding ${JSON.stringify(label)} is not one this server reads: send the body as it is, or in one of gzip, deflate and br (one coding, not stacked)`,
        requestId: expect.any(String),
      });
    }
    expect(errorLines()).toEqual([]);
  });

  it.each(FACES)(
    "$name: exactly 1,000,000 bytes are read, as sent or decoded; one more is 413",
    async (face) => {
      const plain = await send(face, face.body);
      // As sent, plain: the bound of the body itself.
      expect(await send(face, padded(face, MAX_BODY_BYTES))).toEqual(plain);
      const large = await send(face, padded(face, MAX_BODY_BYTES + 1));
      expect(large.status).toBe(413);
      expect(errorOf(large)).toMatchObject({
        code: "PAYLOAD_TOO_LARGE",
        message: `the body is larger than ${MAX_BODY_BYTES} bytes`,
      });
      for (const coding of CODINGS) {
        const at = await send(face, encode(padded(face, MAX_BODY_BYTES), coding), coding);
        expect({ coding, ...at }).toEqual({ coding, ...plain });
        const over = await send(face, encode(padded(face, MAX_BODY_BYTES + 1), coding), coding);
        expect(over.status, coding).toBe(413);
        expect(errorOf(over), coding).toMatchObject({
          code: "PAYLOAD_TOO_LARGE",
          message: `the body is larger than ${MAX_BODY_BYTES} bytes once decoded (Content-Encoding: ${coding})`,
        });
      }
    },
  );

  it("a decompression bomb is a 413 on every face, stopped while it inflates: no memory spent on it", async () => {
    const DECODED = 500_000_000;
    const bombs = await Promise.all(CODINGS.map(async (c) => [c, await bomb(c, DECODED)] as const));
    logged.length = 0;
    // The memory held in buffers, sampled while the requests are answered: zlib hands its output
    // back a chunk at a time, between which the timer runs.
    const base = process.memoryUsage().arrayBuffers;
    let peak = 0;
    const sample = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - base);
    }, 1);
    try {
      for (const face of FACES) {
        for (const [coding, body] of bombs) {
          expect(body.length).toBeLessThan(MAX_BODY_BYTES);
          const answer = await send(face, body, coding);
          expect(answer.status, `${face.name} ${coding}`).toBe(413);
          expect(errorOf(answer).code).toBe("PAYLOAD_TOO_LARGE");
        }
      }
    } finally {
      clearInterval(sample);
    }
    // Inflated whole, any one of them would have held 500 MB at once.
    expect(peak).toBeLessThan(50_000_000);
    expect(errorLines()).toEqual([]);
  });

  describe("on a real socket", () => {
    let server: Server;
    let base = "";
    beforeAll(async () => {
      server = createHttpServer(createApp(api.db.config, api.snapshots).listener) as Server;
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    });

    const post = async (path: string, type: string, body: string | NonSharedBuffer, encoding: string) => {
      const res = await fetch(`${base}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${api.key}`,
          "content-type": type,
          "content-encoding": encoding,
          accept: MCP_POST_HEADERS.accept,
        },
        body,
      });
      return { status: res.status, type: res.headers.get("content-type"), json: await res.json() };
    };

    it("the issue's curl and its fellows, as Node's server reads them", async () => {
      logged.length = 0;
      // curl -H 'content-type: application/graphql' -H 'content-encoding: gzip' --data-binary '{ snapshot { version } }'
      const mislabelled = await post("/graphql", "application/graphql", "{ snapshot { version } }", "gzip");
      expect(mislabelled.status).toBe(400);
      expect(mislabelled.json.errors[0].extensions.code).toBe("BAD_REQUEST");
      const gzipped = await post(
        "/graphql",
        "application/graphql",
        encode("{ snapshot { version } }", "gzip"),
        "gzip",
      );
      expect(gzipped).toMatchObject({
        status: 200,
        json: { data: { snapshot: { version: expect.any(Number) } } },
      });
      const rest = await post(
        "/json/api/v1/all/app",
        "application/json",
        encode('{"fields":"name"}', "br"),
        "br",
      );
      expect(rest.status).toBe(200);
      expect(rest.json.apps.length).toBeGreaterThan(0);
      // The issue's /mcp: a tools/call sent br, and sent zstd (not read: 415, not taken as plain).
      const tool = toolCallBody("search_domains", { fields: "name", page_size: 1 });
      const mcp = await post("/mcp", "application/json", encode(tool, "br"), "br");
      expect(mcp.status).toBe(200);
      expect(mcp.json.result.structuredContent.domains).toHaveLength(1);
      const zstd = await post("/mcp", "application/json", tool, "zstd");
      expect(zstd.status).toBe(415);
      expect(zstd.json.code).toBe("UNSUPPORTED_MEDIA_TYPE");
      for (const path of ["/graphql", "/json/api/v1/all/app", "/mcp"]) {
        const refused = await post(path, "application/json", "{}", "bogus");
        expect(refused.status, path).toBe(415);
        expect(refused.type, path).toMatch(/^application\/(graphql-response\+)?json/);
        const blown = await post(path, "application/json", await bomb("gzip", 100_000_000), "gzip");
        expect(blown.status, path).toBe(413);
      }
      expect(errorLines()).toEqual([]);
    });
  });
});
