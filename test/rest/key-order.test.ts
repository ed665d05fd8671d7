import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { type DatabaseKind, databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

// A Domain's `alternates` is a JSON object whose keys are data (locales), served as it is. Its keys
// keep the order of the source line on every database, and both databases answer the same bytes:
// REST (one, bulk, a list page, the export, cursor=all) and GraphQL. PostgreSQL's JSONB sorts an
// object's keys (shorter first, then by bytes), which changed 550 of 20,000 export lines.

const BASE = "http://localhost/json/api/v1/all";
/** In no order JSONB or a sort would give: not by length, not by bytes. */
const ALTERNATES = { "fr-FR": "fr.example.com", de: "de.example.com", "en-GB": "uk.example.com" };
const AS_SENT = `"alternates":${JSON.stringify(ALTERNATES)}`;

const kinds = databaseKinds();

describe(`alternates keep their source key order (${kinds.join(", ")})`, () => {
  const tmp = tempDir("storegraph-key-order-");
  const apis = new Map<DatabaseKind, TestApi>();

  beforeAll(async () => {
    const fixture = validFixture();
    fixture.domains[0].alternates = ALTERNATES;
    const dir = writeSnapshotDir(join(tmp.dir, "s"), fixture);
    for (const kind of kinds) apis.set(kind, await startApi(kind, dir));
  }, 120_000);
  afterAll(async () => {
    for (const api of apis.values()) await api.close();
    tmp.remove();
  });

  /** Each database's answer to the same request: status and body text, which must hold AS_SENT. */
  async function answers(
    path: string,
    init?: RequestInit,
    poll = false,
  ): Promise<{ kind: DatabaseKind; status: number; body: string }[]> {
    const out = [];
    for (const [kind, api] of apis) {
      let res = await api.app.fetch(path.startsWith("http") ? path : `${BASE}${path}`, init ?? {});
      for (let i = 0; poll && res.status === 202 && i < 300; i++) {
        await res.body?.cancel();
        await new Promise((r) => setTimeout(r, 100));
        res = await api.app.fetch(`${BASE}${path}`, init ?? {});
      }
      out.push({ kind, status: res.status, body: await res.text() });
    }
    return out;
  }

  async function expectSameBytes(path: string, init?: RequestInit, poll = false): Promise<void> {
    const got = await answers(path, init, poll);
    for (const a of got) {
      expect(a.status, `${a.kind} ${path}: ${a.body.slice(0, 300)}`).toBe(200);
      expect(a.body, `${a.kind} ${path}`).toContain(AS_SENT);
    }
    // Byte for byte the same on every database.
    for (const a of got.slice(1))
      expect(a.body, `${a.kind} against ${got[0].kind}: ${path}`).toBe(got[0].body);
  }

  it("REST: one Domain, by its default fields and by fields=alternates", async () => {
    await expectSameBytes("/domain/shop.example.com");
    await expectSameBytes("/domain/shop.example.com?fields=name,alternates");
  });

  it("REST: a bulk retrieve and a list page", async () => {
    await expectSameBytes("/domain/bulk?fields=name,alternates", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ domains: ["shop.example.com"] }),
    });
    await expectSameBytes("/domain?fields=name,alternates&page_size=50");
  });

  it("REST: the export and a cursor=all result", async () => {
    await expectSameBytes("/domain/export?fields=name,alternates");
    await expectSameBytes("/domain?fields=name,alternates&cursor=all", undefined, true);
  });

  it("GraphQL", async () => {
    const query = `{ domain(name: "shop.example.com") { name alternates }
      domains(first: 50) { edges { node { name alternates } } } }`;
    await expectSameBytes("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query }),
    });
  });
});

describe(`a generated dataset's export keeps every alternates as its source line has it (${kinds.join(", ")})`, () => {
  const tmp = tempDir("storegraph-key-order-generated-");
  const apis = new Map<DatabaseKind, TestApi>();
  /** Each Domain's alternates as domains.jsonl writes them. */
  const source = new Map<string, string>();

  beforeAll(async () => {
    const dir = join(tmp.dir, "g");
    await generateDataset({ domains: 1500, apps: 20, seed: 35, outDir: dir });
    for (const line of readFileSync(join(dir, "domains.jsonl"), "utf8").split("\n")) {
      if (!line) continue;
      const d = JSON.parse(line) as { name: string; alternates?: Record<string, string> };
      if (d.alternates) source.set(d.name, JSON.stringify(d.alternates));
    }
    for (const kind of kinds) apis.set(kind, await startApi(kind, dir));
  }, 180_000);
  afterAll(async () => {
    for (const api of apis.values()) await api.close();
    tmp.remove();
  });

  it("the export: the same bytes on every database, each alternates in its source order", async () => {
    const bodies: string[] = [];
    for (const [kind, api] of apis) {
      const res = await api.app.fetch(`${BASE}/domain/export?fields=name,alternates`);
      expect(res.status, kind).toBe(200);
      const body = await res.text();
      const lines = body.slice(0, -1).split("\n");
      expect(lines, kind).toHaveLength(1500);
      let withAlternates = 0;
      for (const line of lines) {
        const name = (JSON.parse(line) as { name: string }).name;
        const alternates = source.get(name);
        if (!alternates) continue;
        withAlternates++;
        expect(line, `${kind}: ${name}`).toBe(`{"name":${JSON.stringify(name)},"alternates":${alternates}}`);
      }
      // The dataset has some to compare, several of them in no sorted order.
      expect(withAlternates, kind).toBe(source.size);
      bodies.push(body);
    }
    const unsorted = [...source.values()].filter((a) => {
      const keys = Object.keys(JSON.parse(a));
      return keys.join() !== [...keys].sort().join();
    });
    expect(unsorted.length).toBeGreaterThan(5);
    for (const body of bodies.slice(1)) expect(body === bodies[0]).toBe(true);
  });
});
