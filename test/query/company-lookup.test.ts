import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import type { DomainRecord } from "../../src/dataset/record.ts";
import { lookupCompany } from "../../src/query/company-lookup.ts";
import { oracleOf } from "../graphql/oracle.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

/**
 * Company to domain (issue 74, item 3): every answer equals a brute force of the documented
 * formula (docs/decisions.md, "Company to domain") over every Domain of the dataset, written here
 * apart from src/query/company-lookup.ts, on both databases, for company names taken from the
 * data as people write them (whole, in part, with "Inc.", run together, in other letter case).
 */

const scratch = tempDir("storegraph-company-");
let domains: readonly DomainRecord[];

beforeAll(async () => {
  await generateDataset({ domains: 1500, apps: 60, seed: 17, outDir: scratch.dir });
  ({ domains } = oracleOf(scratch.dir));
});
afterAll(() => scratch.remove());

// The formula, from its documentation.
const CORPORATE =
  "inc incorporated llc ltd limited co corp corporation company gmbh ag sa sas sarl srl spa bv nv plc pty the and of";
const corporate = new Set(CORPORATE.split(" "));
const words = (t: string) => t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const own = (ws: string[]) => (ws.some((w) => !corporate.has(w)) ? ws.filter((w) => !corporate.has(w)) : ws);

function brute(company: string, first: number, maxCandidates = 5000) {
  const q = [...new Set(own(words(company)))].slice(0, 10);
  const run = q.join("");
  const search = (d: DomainRecord) =>
    [d.name, d.title, d.description, d.merchant_name].filter(Boolean).join(" \u001f ").toLowerCase();
  const rankOf = (d: DomainRecord) => d.rank ?? Number.POSITIVE_INFINITY;
  const score = (text: string | undefined) => {
    if (!text) return 0;
    const ws = words(text);
    const a = q.every((w) => ws.some((x) => x.startsWith(w)));
    const b = ws.some((x) => x.includes(run));
    if (!a && !b) return 0;
    const mine = own(ws).join("");
    if (mine === run) return 1;
    return (a ? 0.5 : 0.4) + 0.4 * Math.min(1, run.length / Math.max(1, mine.length));
  };
  const label = (name: string) => (name.lastIndexOf(".") > 0 ? name.slice(0, name.lastIndexOf(".")) : name);
  // Every Domain scored, whether or not a search would find it.
  const scored = domains.map((d) => {
    const scores: [string, number][] = [
      ["merchant_name", Math.round(score(d.merchant_name) * 1000) / 1000],
      ["title", Math.round(score(d.title) * 0.95 * 1000) / 1000],
      ["name", Math.round(score(label(d.name)) * 0.9 * 1000) / 1000],
    ];
    const [matched, s] = scores.reduce((best, x) => (x[1] > best[1] ? x : best));
    return { d, name: d.name, rank: rankOf(d), score: s, matched };
  });
  // The candidates: what q finds for the words, or for them run together; of them, the best-ranked.
  const found = (d: DomainRecord) =>
    q.every((w) => search(d).includes(w)) || (q.length > 1 && search(d).includes(run));
  // Every Domain the formula scores is one the search finds (else the lookup could never see it).
  const unseen = scored.filter((m) => m.score > 0 && !found(m.d)).map((m) => m.name);
  expect(unseen, company).toEqual([]);
  const candidates = new Set(
    domains
      .filter(found)
      .sort((a, b) => rankOf(a) - rankOf(b))
      .slice(0, maxCandidates),
  );
  return scored
    .filter((m) => m.score > 0 && candidates.has(m.d))
    .sort((a, b) => b.score - a.score || a.rank - b.rank || (a.name < b.name ? -1 : 1))
    .slice(0, first)
    .map(({ name, score, matched }) => ({ name, score, matched }));
}

/** Company names as people write them, from the data. */
function companies(): string[] {
  const out = new Set<string>([
    "Example Goods",
    "example goods inc.",
    "EXAMPLE",
    "zzqqx nothing",
    "Café Zürich GmbH",
    "the shop of the store and the goods and the home of the best things for all of you",
  ]);
  // Across the whole dataset, not its first records alone.
  for (const d of domains.filter((_, i) => i % 7 === 0)) {
    if (d.merchant_name) {
      out.add(d.merchant_name);
      out.add(`${d.merchant_name} Inc.`);
      out.add(words(d.merchant_name)[0] ?? "x");
      const ws = words(d.merchant_name);
      if (ws.length > 1) out.add(ws.join(""));
    }
    if (d.title) out.add(words(d.title).slice(0, 2).join(" "));
    out.add(d.name.split(".")[0]);
  }
  return [...out];
}

describe.each(databaseKinds())("company to domain on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi(kind, scratch.dir);
  });
  afterAll(async () => {
    await api?.close();
  });

  it("answers as the formula's brute force over every Domain", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    const nameOf = new Map(
      (await served.sql.all(`SELECT "pk", "name" FROM ${served.sql.table("domain")}`, [])).map((r) => [
        Number(r[0]),
        String(r[1]),
      ]),
    );
    let found = 0;
    for (const company of companies()) {
      const got = (await lookupCompany(served.sql, company, 10)).map((m) => ({
        name: nameOf.get(m.pk),
        score: m.score,
        matched: m.matched,
      }));
      expect(got, company).toEqual(brute(company, 10));
      if (got.length) found++;
    }
    expect(found).toBeGreaterThan(50);
    // Of more candidates than the bound, the best-ranked are scored.
    for (const company of ["shop", "store", "the"]) {
      const got = (await lookupCompany(served.sql, company, 20, 7)).map((m) => nameOf.get(m.pk));
      expect(got, company).toEqual(brute(company, 20, 7).map((m) => m.name));
    }
  });

  it("answers the same from a reader without the count index (the candidates by SQL)", async () => {
    const unindexed = await startApi(kind, scratch.dir, {}, {}, { indexed: false });
    try {
      const served = await unindexed.snapshots.current();
      if (!served) throw new Error("nothing served");
      const nameOf = new Map(
        (await served.sql.all(`SELECT "pk", "name" FROM ${served.sql.table("domain")}`, [])).map((r) => [
          Number(r[0]),
          String(r[1]),
        ]),
      );
      for (const [company, max] of [
        ["Example Goods Inc.", 5000],
        ["shop", 7],
        ["store", 7],
      ] as const) {
        const got = (await lookupCompany(served.sql, company, 20, max)).map((m) => nameOf.get(m.pk));
        expect(got, company).toEqual(brute(company, 20, max).map((m) => m.name));
      }
    } finally {
      await unindexed.close();
    }
  });

  it("answers GET /domain/lookup with the matches and their Domains, and refuses a bad request", async () => {
    const get = async (query: string) => {
      const res = await api.app.fetch(`http://localhost/json/api/v1/all/domain/lookup?${query}`, {
        headers: { authorization: `Bearer ${api.key}` },
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const { status, body } = await get("company=Example%20Goods%20Inc.&page_size=3");
    expect(status).toBe(200);
    expect(body.company).toBe("Example Goods Inc.");
    const matches = body.matches as { score: number; matched: string; domain: Record<string, unknown> }[];
    expect(matches.map((m) => m.domain.name)).toEqual(brute("Example Goods Inc.", 3).map((m) => m.name));
    expect(matches[0]).toMatchObject({ score: 1, matched: "merchant_name" });
    expect(Object.keys(matches[0].domain)).toEqual(
      expect.arrayContaining(["name", "merchant_name", "title", "platform", "country_code", "rank"]),
    );
    // fields reach into each match's Domain.
    const some = await get("company=Example%20Goods&fields=score,domain.name");
    expect((some.body.matches as Record<string, unknown>[])[0]).toEqual({
      score: 1,
      domain: { name: expect.any(String) },
    });
    for (const [query, message] of [
      ["company=", /^company: is required/],
      ["company=%20%2C%20", /^company: must name a company/],
      ["company=x&page_size=0", /^page_size: must be at least 1/],
      ["company=x&page_size=101", /^page_size: must be at most 100/],
      [`company=${"a".repeat(201)}`, /^company: must be at most 200 characters/],
      ["company=x&fields=domain.nme", /did you mean "domain.name"/],
    ] as const) {
      const r = await get(query);
      expect(r.status, query).toBe(400);
      expect(String(r.body.error), query).toMatch(message);
    }
  });

  it("answers GraphQL's domainLookup as REST", async () => {
    const res = await api.gql(
      `{ domainLookup(company: "Example Goods", first: 2) { company matches { score matched domain { name } } } }`,
    );
    expect(res.errors).toBeUndefined();
    const data = res.data as { domainLookup: { matches: { domain: { name: string } }[] } };
    expect(data.domainLookup.matches.map((m) => m.domain.name)).toEqual(
      brute("Example Goods", 2).map((m) => m.name),
    );
  });

  it("answers POST /domain/lookup for many companies, each as one is answered, in the order given", async () => {
    const post = async (body: unknown) => {
      const res = await api.app.fetch("http://localhost/json/api/v1/all/domain/lookup", {
        method: "POST",
        headers: { authorization: `Bearer ${api.key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    // Names from the data, as people write them, one twice, one that matches nothing.
    const companies = [
      ...domains.flatMap((d) => (d.merchant_name ? [d.merchant_name] : [])).slice(0, 30),
      "Example Goods Inc.",
      "example goods inc.",
      "zzqx nothing",
    ];
    const { status, body } = await post({
      companies,
      page_size: 4,
      fields: "company,matches.score,matches.domain.name",
    });
    expect(status, JSON.stringify(body)).toBe(200);
    const lookups = body.lookups as {
      company: string;
      matches: { score: number; domain: { name: string } }[];
    }[];
    expect(lookups.map((l) => l.company)).toEqual(companies);
    for (const [i, l] of lookups.entries())
      expect(
        l.matches.map((m) => [m.domain.name, m.score]),
        companies[i],
      ).toEqual(brute(companies[i], 4).map((m) => [m.name, m.score]));
    expect(lookups.at(-1)?.matches).toEqual([]);
    // GraphQL's domainLookups answers the same.
    const gql = await api.gql<{
      domainLookups: { company: string; matches: { domain: { name: string } }[] }[];
    }>(
      "query($c: [String!]!) { domainLookups(companies: $c, first: 4) { company matches { domain { name } } } }",
      { c: companies },
    );
    expect(gql.data?.domainLookups.map((l) => l.matches.map((m) => m.domain.name))).toEqual(
      lookups.map((l) => l.matches.map((m) => m.domain.name)),
    );
    for (const [bad, message] of [
      [{ companies: [] }, /^companies: must be a list of 1 to 100 company names; got 0$/],
      [{ companies: Array.from({ length: 101 }, () => "x") }, /^companies: .*; got 101$/],
      [{ companies: ["Allbirds", 3] }, /^companies\[1\]: must be a company's name \(a string\); got number$/],
      [{ companies: "Allbirds" }, /^companies: must be a list .*; got string$/],
      [{ companies: ["Allbirds", " "] }, /^companies\[1\]: is required/],
      [{ companies: ["x"], page_size: 0 }, /^page_size: must be at least 1/],
      [{}, /^companies: must be a list .*; got none$/],
    ] as const) {
      const r = await post(bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(String(r.body.error), JSON.stringify(bad)).toMatch(message);
    }
  });
});
