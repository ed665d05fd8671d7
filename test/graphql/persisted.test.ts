import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../src/document-limits.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

// Persisted documents (src/persisted-documents.ts; docs/graphql.md, "Persisted documents"): the
// protocol of Apollo's automatic persisted queries, as its clients speak it.

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const extension = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

describe.each(databaseKinds())("persisted documents on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-persisted-");
  const QUERY = "query ($name: String!) { domain(name: $name) { name platform } }";
  let name: string;

  beforeAll(async () => {
    const fixture = validFixture();
    name = fixture.domains[0].name as string;
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "a"), fixture));
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  /** GET /graphql with the hash alone, as a client asks once the document is kept. */
  const byHash = (hash: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) =>
    api.app.fetch(
      `http://localhost/graphql?${new URLSearchParams({
        variables: JSON.stringify(variables),
        extensions: JSON.stringify(extension(hash)),
      })}`,
      { headers: { accept: "application/json", ...headers } },
    );
  const post = (body: Record<string, unknown>) =>
    api.app.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
    });

  it("answers an unknown hash PERSISTED_QUERY_NOT_FOUND (404), then runs it by hash once sent with its text", async () => {
    const text = `${QUERY} # ${kind} first`;
    const hash = sha256(text);
    const missing = await byHash(hash, { name });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await missing.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors).toEqual([
      expect.objectContaining({
        message: "PersistedQueryNotFound",
        extensions: expect.objectContaining({ code: "PERSISTED_QUERY_NOT_FOUND" }),
      }),
    ]);

    const sent = await post({ query: text, variables: { name }, extensions: extension(hash) });
    expect(sent.status).toBe(200);
    const first = await sent.json();
    expect(first).toEqual({ data: { domain: { name, platform: expect.any(String) } } });

    const again = await byHash(hash, { name });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(first);
    // By POST with the hash alone, too.
    const posted = await post({ variables: { name }, extensions: extension(hash) });
    expect(await posted.json()).toEqual(first);
  });

  it("refuses a text that does not match its hash (400 PERSISTED_QUERY_MISMATCH), and keeps nothing", async () => {
    const hash = sha256(`${QUERY} # another text`);
    const res = await post({
      query: `${QUERY} # ${kind} mismatch`,
      variables: { name },
      extensions: extension(hash),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0].extensions.code).toBe("PERSISTED_QUERY_MISMATCH");
    expect((await byHash(hash, { name })).status).toBe(404);
  });

  it("limits a kept document each time it runs, as any other", async () => {
    const aliases = Array.from(
      { length: LIMITS.aliases + 1 },
      (_, i) => `a${i}: domain(name: "${name}") { name }`,
    );
    const text = `{ ${aliases.join(" ")} }`;
    const hash = sha256(text);
    const sent = await post({ query: text, extensions: extension(hash) });
    const again = await byHash(hash, {});
    for (const res of [sent, again]) {
      expect(res.status).toBe(400);
      const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0].extensions.code).toBe("QUERY_TOO_COMPLEX");
    }
  });

  it("asks for the key first: a hash without one is 401, whether kept or not", async () => {
    const text = `${QUERY} # ${kind} auth`;
    const hash = sha256(text);
    await post({ query: text, variables: { name }, extensions: extension(hash) });
    const res = await api.app.fetch(
      `http://localhost/graphql?${new URLSearchParams({ extensions: JSON.stringify(extension(hash)) })}`,
      { headers: { accept: "application/json", authorization: "Bearer nope" } },
    );
    expect(res.status).toBe(401);
  });

  it("reads an extension that is not the protocol's as none: a request without a document is refused", async () => {
    for (const persistedQuery of [{ version: 2, sha256Hash: "ab" }, { version: 1, sha256Hash: 7 }, "x"]) {
      const res = await post({ extensions: { persistedQuery } });
      const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors).toEqual([
        expect.objectContaining({
          message: "Must provide query string.",
          extensions: expect.objectContaining({ code: "BAD_REQUEST" }),
        }),
      ]);
    }
  });
});
