import { join } from "node:path";
import fc from "fast-check";
import {
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLNamedType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../src/schema/index.ts";
import { type GqlResult, startApi, type TestApi, tempDir } from "../support/api.ts";
import { insert, inserts, UNPAIRED } from "../support/control-text.ts";
import { type DatabaseKind, databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

// Text that no database value holds: NUL (U+0000), which PostgreSQL text cannot store (a statement
// carrying one fails as a whole), and unpaired UTF-16 surrogates, which are not Unicode (GraphQL's
// parser refuses them in a literal; the drivers would put U+FFFD in their place). Both are refused
// as BAD_USER_INPUT naming the argument, before anything is read, whether they come as literals,
// variables or REST options, so every database answers alike. Other control characters are text
// like any other.

const BASE = "http://localhost/json/api/v1/all";
type Res = GqlResult<Record<string, unknown>>;

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const b64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");

function expectRefused(res: Res, argument: string, problem = /NUL/): void {
  expect(res.status).toBe(200);
  expect(res.errors, JSON.stringify(res)).toHaveLength(1);
  const [e] = res.errors ?? [];
  expect(e.extensions).toMatchObject({ code: "BAD_USER_INPUT", argument });
  expect(e.message.startsWith(`${argument}: `), e.message).toBe(true);
  expect(e.message).toMatch(problem);
}

describe.each(databaseKinds())("NUL and unpaired surrogates on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-text-input-");
  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), validFixture()));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  describe("REST: a 400 naming the option or the path segment", () => {
    it.each([
      ["/app/shopify.x%00", "App"],
      ["/app/sho%00pify.klaviyo", "App"],
      ["/app/shopify.x%00/reviews", "App"],
      ["/domain/a%00b.com", "domain name"],
      ["/domain/a%00b.com/app_reviews", "domain name"],
      ["/domain?f:tech=a%00b", "f:tech"],
      ["/domain?f:tech=Google%20Analytics,a%00b&f:tech:op=or", "f:tech"],
      [
        "/domain?f:app_installed_at=shopify.kla%00viyo&f:app_installed_at:min=2020-01-01",
        "f:app_installed_at",
      ],
      ["/domain?q=shop%00", "q"],
      ["/domain?cursor=x%00", "cursor"],
      ["/app?f:categories=a%00", "f:categories"],
      ["/app?q=email%00", "q"],
      ["/domain/export?f:tech=a%00b", "f:tech"],
      ["/domain/export?q=shop%00", "q"],
      ["/domain?cursor=all&f:cc=US&f:city=a%00", "f:city"],
    ])("GET %s", async (path, option) => {
      const res = await api.app.fetch(`${BASE}${path}`);
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body).toEqual({
        error: expect.stringMatching(/NUL/),
        code: "BAD_USER_INPUT",
        request_id: expect.any(String),
      });
      expect(body.error.startsWith(`${option}: `), body.error).toBe(true);
    });

    it.each([
      ["/domain/bulk", { domains: ["shop.example.com", "a\u0000b.com"] }, "domains[1]", /NUL/],
      ["/domain", { aq: [{ field: "tech", value: "a\u0000b", operator: "and" }] }, "f:tech (aq[0])", /NUL/],
      ["/domain", { "f:tech": "a\ud800b" }, "f:tech", /unpaired surrogate \(U\+D800\)/],
      ["/app", { q: "email \udc00" }, "q", /unpaired surrogate \(U\+DC00\)/],
      ["/domain/bulk", { domains: ["\udbff.com"] }, "domains[0]", /unpaired surrogate \(U\+DBFF\)/],
    ])("POST %s %j", async (path, body, option, problem) => {
      const res = await api.app.fetch(`${BASE}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = await res.json();
      expect(res.status, JSON.stringify(answer)).toBe(400);
      expect(answer).toEqual({
        error: expect.stringMatching(problem),
        code: "BAD_USER_INPUT",
        request_id: expect.any(String),
      });
      expect(answer.error.startsWith(`${option}: `), answer.error).toBe(true);
    });

    it("other control characters are text: no match, as for any unknown value", async () => {
      const app = await api.app.fetch(`${BASE}/app/shopify.x%01%1f%7f`);
      expect(app.status).toBe(404);
      const list = await api.app.fetch(`${BASE}/domain?f:tech=a%01b&fields=name`);
      expect(await list.json()).toEqual({ domains: [], has_next_page: false });
    });
  });

  describe("GraphQL: BAD_USER_INPUT naming the argument, nothing executed", () => {
    const APP = `query($t: String!) { app(platform: "shopify", token: $t) { name } }`;

    it("in a literal", async () => {
      const res = await api.gql(`{ app(platform: "shopify", token: "x\\u0000") { name } }`);
      expectRefused(res, "token");
      expect(res.data ?? null).toBeNull();
    });

    it("in a variable, and in a variable's default value", async () => {
      expectRefused(await api.gql(APP, { t: "x\u0000" }), "token");
      expectRefused(
        await api.gql(`query($t: String = "x\\u0000") { app(platform: "shopify", token: $t) { name } }`),
        "token",
      );
    });

    it("deep in an input object, as a variable or inside a literal", async () => {
      const query = `query($f: DomainFilter) { domains(filter: $f) { totalCount } }`;
      const filter = { technologies: { values: ["Google Analytics", "a\u0000b"] } };
      expectRefused(await api.gql(query, { f: filter }), "filter.technologies.values[1]");
      expectRefused(
        await api.gql(
          `query($v: String!) { domains(filter: { and: [{ city: { values: ["x", $v] } }] }) { totalCount } }`,
          {
            v: "\u0000",
          },
        ),
        "filter.and[0].city.values[1]",
      );
      expectRefused(
        await api.gql(
          `{ domains(filter: { appInstalledAt: { app: "shopify.x\\u0000", min: "2020-01-01" } }) { totalCount } }`,
        ),
        "filter.appInstalledAt.app",
      );
    });

    it("in a nested field's argument and in a fragment", async () => {
      expectRefused(
        await api.gql(
          `{ app(platform: "shopify", token: "klaviyo") { reviews(after: "x\\u0000") { totalCount } } }`,
        ),
        "after",
      );
      expectRefused(
        await api.gql(`query { ...F } fragment F on Query { domain(name: "a\\u0000.com") { name } }`),
        "name",
      );
    });

    it("an unpaired surrogate in a variable, as the parser refuses it in a literal", async () => {
      expectRefused(await api.gql(APP, { t: "x\ud800" }), "token", /unpaired surrogate \(U\+D800\)/);
      expectRefused(await api.gql(APP, { t: "\udfffx" }), "token", /unpaired surrogate \(U\+DFFF\)/);
      const literal = await api.gql(`{ app(platform: "shopify", token: "x\\ud800") { name } }`);
      expect(literal.errors?.[0].extensions?.code).toBe("GRAPHQL_PARSE_FAILED");
      // A pair is one character, and fine.
      const pair = await api.gql(APP, { t: "x\ud83d\ude42" });
      expect(pair.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    });

    it("a variable nested deeper than the call stack is a type error, not a fault", async () => {
      const n = 100_000;
      const res = await api.app.fetch("http://localhost/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: `{"query":${JSON.stringify(APP)},"variables":{"t":${"[".repeat(n)}"x\\u0000"${"]".repeat(n)}}}`,
      });
      const body = await res.json();
      expect(res.status, JSON.stringify(body).slice(0, 300)).toBeLessThan(500);
      expect(body.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    });

    it("other control characters are text: NOT_FOUND as for any unknown App", async () => {
      const res = await api.gql(APP, { t: "x\u0001\t\u001f\u007f" });
      expect(res.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    });

    it("a global ID that decodes to text with NUL is not a global ID", async () => {
      for (const id of [b64("App:shopify.x\u0000"), b64("Domain:a\u0000b.com")]) {
        const one = await api.gql(`query($id: ID!) { node(id: $id) { id } }`, { id });
        expect(one.errors?.[0].extensions, JSON.stringify(one)).toMatchObject({
          code: "BAD_USER_INPUT",
          argument: "id",
        });
        const many = await api.gql(`query($id: ID!) { nodes(ids: [$id]) { id } }`, { id });
        expect(many.errors?.[0].extensions, JSON.stringify(many)).toMatchObject({ code: "BAD_USER_INPUT" });
      }
    });

    it("a cursor whose sort key has NUL is not a cursor of ours", async () => {
      const page = await api.gql<{ domains: { pageInfo: { endCursor: string } } }>(
        `{ domains(orderBy: [{ field: NAME }], first: 1) { pageInfo { endCursor } } }`,
      );
      const payload = JSON.parse(
        Buffer.from(page.data?.domains.pageInfo.endCursor ?? "", "base64url").toString(),
      );
      for (const bad of ["a\u0000", "a\ud800"]) {
        const k = payload.k.map((v: unknown) => (typeof v === "string" ? bad : v));
        const after = b64url(JSON.stringify({ ...payload, k }));
        const res = await api.gql(
          `query($a: String) { domains(orderBy: [{ field: NAME }], first: 1, after: $a) { totalCount } }`,
          { a: after },
        );
        expect(res.errors?.[0].extensions, JSON.stringify(res)).toMatchObject({
          code: "BAD_USER_INPUT",
          argument: "after",
        });
      }
    });
  });
});

// ------------------------------------------------------------------ every string argument, fuzzed

/** One place a string goes in an operation: `$v` stands for the fuzzed value. */
interface Position {
  label: string;
  /** The operation, with `$v` of type `variableType` (or the value written in as a literal). */
  operation: (value: string) => string;
  variableType: string;
}

/** Every String or ID leaf of an argument's type, as GraphQL value text around `$v`. */
function leaves(type: GraphQLInputType, depth = 0): { path: string; text: string; leaf: string }[] {
  if (isNonNullType(type)) return leaves(type.ofType, depth);
  if (isListType(type))
    return leaves(type.ofType, depth).map((l) => ({ ...l, path: `[0]${l.path}`, text: `[${l.text}]` }));
  if (isInputObjectType(type)) {
    if (depth > 2) return [];
    const fields = type.getFields();
    return Object.values(fields).flatMap((f) =>
      leaves(f.type, depth + 1).map((l) => {
        // A range needs a bound beside its subject.
        const beside = "min" in fields && f.name !== "min" ? ', min: "2000-01-01"' : "";
        return { ...l, path: `.${f.name}${l.path}`, text: `{ ${f.name}: ${l.text}${beside} }` };
      }),
    );
  }
  const named = getNamedType(type) as GraphQLNamedType;
  return named.name === "String" || named.name === "ID" ? [{ path: "", text: "$v", leaf: named.name }] : [];
}

/** What to select of a field's type, so that the field reads what it would. */
function selectionOf(type: GraphQLNamedType): string {
  if (!isObjectType(type)) return "{ __typename }";
  const fields = type.getFields();
  const picks = ["totalCount", "notFound", "name", "id"].filter((f) => f in fields);
  if ("edges" in fields) picks.push("edges { cursor }");
  return `{ __typename ${picks.join(" ")} }`;
}

function positions(): Position[] {
  const out: Position[] = [];
  const within: [string, string, string][] = [
    ["Query", "", ""],
    ["App", 'app(platform: "shopify", token: "klaviyo") { ', " }"],
    ["Domain", 'domain(name: "shop.example.com") { ', " }"],
  ];
  for (const [typeName, open, close] of within) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      for (const arg of field.args as readonly GraphQLArgument[]) {
        for (const l of leaves(arg.type)) {
          // The other required arguments get plausible values.
          const others = field.args
            .filter((a) => a !== arg && isNonNullType(a.type) && a.defaultValue === undefined)
            .map((a) => {
              // An enum (a trend's dimension) takes its first value, unquoted.
              const named = getNamedType(a.type);
              if (isEnumType(named)) return `${a.name}: ${named.getValues()[0].name}`;
              return `${a.name}: ${a.name === "platform" ? '"shopify"' : '"klaviyo"'}`;
            });
          const args = [`${arg.name}: ${l.text}`, ...others].join(", ");
          const sel = selectionOf(getNamedType(field.type));
          out.push({
            label: `${typeName}.${field.name}(${arg.name}${l.path})`,
            variableType: `${l.leaf}!`,
            operation: (v) =>
              `query${v === "$v" ? `($v: ${l.leaf}!)` : ""} { ${open}${field.name}(${args.replaceAll("$v", v)}) ${sel}${close} }`,
          });
        }
      }
    }
  }
  return out;
}

const SAMPLES = ["", "shopify", "klaviyo", "shop.example.com", "Google Analytics", "US", "Marketing", "a b"];
/** A plausible value with control characters put in at random places. */
const fuzzed = fc.tuple(fc.constantFrom(...SAMPLES), inserts).map(([base, at]) => insert(base, at));

/** The JSON of a response, with request ids (which differ by nature) blanked. */
const comparable = (res: Res) => JSON.stringify(res).replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<id>");

describe("every String and ID argument: never a fault, every database alike", () => {
  const apis = new Map<DatabaseKind, TestApi>();
  const tmp = tempDir("storegraph-text-fuzz-");
  const all = positions();

  beforeAll(async () => {
    for (const kind of databaseKinds()) {
      apis.set(kind, await startApi(kind, writeSnapshotDir(join(tmp.dir, kind), validFixture())));
    }
  });
  afterAll(async () => {
    for (const api of apis.values()) await api.close();
    tmp.remove();
  });

  it("the schema's string arguments are all here", () => {
    const labels = all.map((p) => p.label);
    for (const l of [
      "Query.app(token)",
      "Query.domains(filter.technologies.values[0])",
      "Query.domains(filter.and[0].city.values[0])",
      "Query.domains(filter.appInstalledAt.app)",
      "Query.domainsByName(names[0])",
      "Query.nodes(ids[0])",
      "App.reviews(after)",
      "App.installedOn(search)",
      "Domain.appReviews(after)",
    ]) {
      expect(labels).toContain(l);
    }
  });

  it("as variables and as literals", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...all), fuzzed, fc.boolean(), async (p, value, literal) => {
        // A literal cannot carry an unpaired surrogate (the parser refuses it): variables do.
        const asLiteral = literal && !UNPAIRED.test(value);
        const query = p.operation(asLiteral ? JSON.stringify(value) : "$v");
        const variables = asLiteral ? {} : { v: value };
        const answers: string[] = [];
        for (const api of apis.values()) {
          const res = await api.gql(query, variables);
          const what = `${p.label} ${JSON.stringify(value)} → ${JSON.stringify(res).slice(0, 400)}`;
          expect(res.status, what).toBeLessThan(500);
          for (const e of res.errors ?? [])
            expect(e.extensions?.code, what).not.toBe("INTERNAL_SERVER_ERROR");
          if (value.includes("\u0000") || UNPAIRED.test(value)) {
            expect(res.errors?.[0].extensions?.code, what).toBe("BAD_USER_INPUT");
          }
          answers.push(comparable(res));
        }
        expect(new Set(answers).size, `${p.label} ${JSON.stringify(value)}: ${answers.join("\n")}`).toBe(1);
      }),
      { numRuns: 300 },
    );
  });
});
