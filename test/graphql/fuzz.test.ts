import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { wrap, wrapping } from "../support/encodings.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { errorLines, logged } from "../support/logs.ts";

// Random GraphQL requests in every form yoga reads: GET with a query string, POST as JSON, as a
// form and as application/graphql, under every Accept. Documents are drawn from the schema's
// own fields with random arguments, from junk, from operations of every type, and from brackets
// nested up to thousands deep; variables and extensions are any JSON or not JSON at all. A POST's
// body goes out plain, compressed, mislabelled, cut short, under a Content-Encoding refused, or
// as a decompression bomb (test/support/encodings.ts).
// Whatever comes in, the answer is never a fault (no 5xx, no INTERNAL_SERVER_ERROR), and the
// gateway logs nothing at error level: a client's mistake is not ours (docs/decisions.md, Errors).

vi.mock("../../src/logger.ts", async (original) =>
  (await import("../support/logs.ts")).capturingLogger(await original(), "warn"),
);

const RUNS = 150;

// ------------------------------------------------------------------ arbitraries

const junk = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.stringMatching(/^[{}()[\]:$@!.,"a-z0-9 #\n]{0,40}$/),
);

const SCALARS = [
  "1",
  "-1",
  "0",
  "2147483648",
  "1e400",
  "1.5",
  '""',
  '"x"',
  '"\\u0000"',
  "null",
  "true",
  "[]",
  "{}",
];
const argument = fc.tuple(
  fc.constantFrom("first", "after", "last", "name", "filter", "search", "sort", "platform", "token", "x"),
  fc.oneof(fc.constantFrom(...SCALARS), fc.constantFrom("$v", "$w", '{ countryCode: "US" }', "[1, 2]")),
);
const args = fc
  .array(argument, { maxLength: 3 })
  .map((list) => (list.length ? `(${list.map(([k, v]) => `${k}: ${v}`).join(", ")})` : ""));

/** A selection over the schema's fields, a few levels deep, with random arguments. */
const selection: fc.Arbitrary<string> = fc.letrec((tie) => ({
  field: fc
    .tuple(
      fc.constantFrom(
        "domains",
        "domain",
        "apps",
        "app",
        "snapshot",
        "edges",
        "node",
        "name",
        "totalCount",
        "pageInfo",
        "__typename",
        "rank",
        "reviews",
        "cluster",
        "nope",
      ),
      args,
      fc.option(tie("set") as fc.Arbitrary<string>, { nil: "", freq: 2 }),
    )
    .map(([name, a, sub]) => `${name}${a}${sub}`),
  set: fc
    .array(tie("field") as fc.Arbitrary<string>, { minLength: 1, maxLength: 3, depthIdentifier: "s" })
    .map((fields) => `{ ${fields.join(" ")} }`),
})).set;

/** Brackets of every kind nested `depth` deep, around a body, well-formed or cut short. */
const nested = fc
  .tuple(
    fc.integer({ min: 1, max: 5000 }),
    fc.constantFrom("{a", "[", "(x: ", "{ and: ", "a{"),
    fc.boolean(),
    fc.constantFrom("query ", "", "{ domains(filter: "),
  )
  .map(([depth, open, closed, prefix]) => {
    const close = open.includes("[") ? "]" : open.includes("(") ? ")" : "}";
    return `${prefix}${open.repeat(depth)}1${closed ? close.repeat(depth) : ""}`;
  });

const document = fc.oneof(
  selection,
  fc
    .tuple(
      fc.constantFrom("query", "mutation", "subscription", "query Q($v: Int, $w: DomainFilter)"),
      selection,
    )
    .map(([op, set]) => `${op} ${set}`),
  fc.constant("fragment A on Query { ...B } fragment B on Query { ...A } { ...A }"),
  nested,
  junk,
);

const json = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom('{"v": 1}', '{"w": {"countryCode": "US"}}', '{"v": "x"}', "{bad", "[", "nope", ""),
  junk,
);

const ACCEPTS = [
  undefined,
  "application/json",
  "application/graphql-response+json",
  "*/*",
  "text/html",
  "text/event-stream",
  "application/graphql-response+json, application/json;q=0.9",
];

const request = fc.record({
  form: fc.constantFrom("GET", "POST json", "POST form", "POST graphql", "POST json value"),
  query: document,
  variables: fc.option(json, { nil: undefined }),
  extensions: fc.option(json, { nil: undefined }),
  operationName: fc.option(fc.oneof(fc.constantFrom("Q", ""), junk), { nil: undefined }),
  accept: fc.constantFrom(...ACCEPTS),
  wrapping,
});

type Fuzzed = typeof request extends fc.Arbitrary<infer T> ? T : never;

// ------------------------------------------------------------------ the property

describe.each(databaseKinds())("GraphQL fuzz on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-graphql-fuzz-");
  let sent = 0;
  let answered = 0;
  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  async function check(r: Fuzzed) {
    const params = new URLSearchParams({ query: r.query });
    if (r.variables !== undefined) params.set("variables", r.variables);
    if (r.extensions !== undefined) params.set("extensions", r.extensions);
    if (r.operationName !== undefined) params.set("operationName", r.operationName);
    const headers: Record<string, string> = r.accept ? { accept: r.accept } : {};
    let url = "http://localhost/graphql";
    const init: RequestInit = { method: "POST", headers };
    if (r.form === "GET") {
      url += `?${params}`;
      init.method = "GET";
    } else if (r.form === "POST form") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      init.body = params.toString();
    } else if (r.form === "POST graphql") {
      headers["content-type"] = "application/graphql";
      init.body = r.query;
    } else {
      headers["content-type"] = "application/json";
      const parse = (text: string | undefined) => {
        if (text === undefined) return undefined;
        try {
          return JSON.parse(text);
        } catch {
          return text;
        }
      };
      init.body =
        r.form === "POST json"
          ? JSON.stringify({
              query: r.query,
              variables: parse(r.variables),
              extensions: parse(r.extensions),
              operationName: r.operationName,
            })
          : (r.variables ?? "");
    }
    const plain = init.body;
    let decided: number | undefined;
    if (typeof plain === "string") {
      const wrapped = await wrap(plain, r.wrapping);
      init.body = wrapped.body;
      if (wrapped.encoding !== undefined) headers["content-encoding"] = wrapped.encoding;
      decided = wrapped.status;
    }
    logged.length = 0;
    const res = await api.app.fetch(url, init);
    sent++;
    const text = await res.text();
    const sentAs =
      headers["content-encoding"] === undefined
        ? ""
        : ` (${r.wrapping.kind}: ${headers["content-encoding"]})`;
    const what = `${r.form}${sentAs} ${url.slice(0, 300)} ${String(plain ?? "").slice(0, 300)} → ${res.status} ${text.slice(0, 300)}`;
    expect(res.status, what).toBeLessThan(500);
    // What the wrapping alone decides (as every refusal, a 406 where the Accept allows no JSON);
    // a body in a coding is answered as the same body plain.
    if (decided !== undefined) expect(res.status, what).toBe(r.accept === "text/html" ? 406 : decided);
    if (r.wrapping.kind === "coded" || r.wrapping.kind === "identity") {
      const { "content-encoding": _, ...plainHeaders } = headers;
      const unwrapped = await api.app.fetch(url, { ...init, headers: plainHeaders, body: plain });
      await unwrapped.arrayBuffer();
      expect(res.status, what).toBe(unwrapped.status);
    }
    if (res.status === 200) answered++;
    const type = res.headers.get("content-type") ?? "";
    // JSON, or the same results as Server-Sent Events (Accept: text/event-stream), or GraphiQL's page.
    const bodies = type.includes("json")
      ? [text]
      : type.startsWith("text/event-stream")
        ? text.split("\n").flatMap((line) => (line.startsWith("data: ") ? [line.slice(6)] : []))
        : [];
    if (!bodies.length) expect(type, what).toMatch(/^text\/(html|event-stream)/);
    for (const json of bodies) {
      const body = JSON.parse(json) as { errors?: { extensions?: { code?: string } }[]; code?: string };
      expect(body.code, what).not.toBe("INTERNAL_SERVER_ERROR");
      for (const e of body.errors ?? []) expect(e.extensions?.code, what).not.toBe("INTERNAL_SERVER_ERROR");
      expect(json, what).not.toMatch(/\n\s+at |"stack"|prisma|SQLITE|invocation/i);
    }
    const errors = errorLines();
    expect(errors, what).toEqual([]);
  }

  it("every form, every Accept, any document and parameters: never a fault, never an error line", async () => {
    await fc.assert(fc.asyncProperty(request, check), { numRuns: RUNS * 3 });
  });

  it("documents nested up to thousands deep, in every form", async () => {
    await fc.assert(
      fc.asyncProperty(request, nested, async (r, query) => check({ ...r, query })),
      { numRuns: RUNS },
    );
  });

  it("sent every request, and some were answered", () => {
    expect(sent).toBe(RUNS * 4);
    expect(answered).toBeGreaterThan(sent / 20);
  });
});
