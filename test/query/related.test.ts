import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import type { DomainRecord } from "../../src/dataset/record.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

/**
 * Related stores (issue 74, item 2): every Domain's answer equals a brute force of the documented
 * rules (docs/decisions.md, "Related stores") over every Domain of the dataset, written here apart
 * from src/db/related-sql.ts and src/query/related.ts, on both databases. The generated data is
 * given values written several ways (an email in two letter cases, a phone in three forms, a link
 * with and without its scheme, www. and slash, a merchant name with spaces and capitals, one with a
 * capital beyond ASCII) and a contact more than the limit of Domains hold.
 */

const scratch = tempDir("storegraph-related-");
let domains: DomainRecord[];
const LIMIT = 100;

beforeAll(async () => {
  await generateDataset({ domains: 1500, apps: 60, seed: 23, outDir: scratch.dir });
  const file = join(scratch.dir, "domains.jsonl");
  domains = readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as DomainRecord);
  const add = (i: number, type: string, value: string) => {
    const d = domains[i] as { contact_info?: { type: string; value: string; source: string }[] };
    d.contact_info = [...(d.contact_info ?? []), { type, value, source: "/pages/contact" }];
  };
  // 150 Domains with a marketplace's address: too common to tell.
  for (let i = 0; i < 1500; i += 10)
    add(i, "email", i % 20 ? "help@marketplace.example" : "Help@Marketplace.EXAMPLE");
  // Threes with one phone written three ways.
  const forms = (g: number) => [`+1 (555) 010-${1000 + g}`, `1-555-010-${1000 + g}`, `1.555.010.${1000 + g}`];
  for (let g = 0; g < 20; g++) for (let k = 0; k < 3; k++) add(201 + g * 3 + k, "phone", forms(g)[k]);
  // Pairs with one profile linked two ways.
  for (let g = 0; g < 20; g++) {
    add(301 + g * 2, "instagram", `https://www.instagram.com/Shop${g}/`);
    add(302 + g * 2, "instagram", `instagram.com/shop${g}`);
  }
  // A pair with one address in two letter cases.
  add(601, "email", "Owner@Shop.example");
  add(602, "email", "owner@shop.EXAMPLE");
  // Pairs with one merchant name written two ways; and one with a capital beyond ASCII, which stays.
  for (let g = 0; g < 15; g++) {
    domains[401 + g * 2].merchant_name = `Acme Goods ${g}`;
    domains[402 + g * 2].merchant_name = ` acme GOODS ${g} `;
  }
  domains[451].merchant_name = "Ärger Laden";
  domains[452].merchant_name = "ärger laden";
  writeFileSync(file, `${domains.map((d) => JSON.stringify(d)).join("\n")}\n`);
}, 60_000);
afterAll(() => scratch.remove());

// The rules, from their documentation.
const lowerAscii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const trimSpaces = (s: string) => s.replace(/^ +| +$/g, "");
function contactValue(type: string, value: string): string {
  if (type === "email") return lowerAscii(trimSpaces(value));
  if (type === "phone") return value.replace(/[ \-./()+]/g, "");
  let v = lowerAscii(trimSpaces(value));
  for (const p of ["http://", "https://"]) if (v.startsWith(p)) v = v.slice(p.length);
  if (v.startsWith("www.")) v = v.slice(4);
  return v.replace(/\/+$/, "");
}

interface Expected {
  total: number;
  domains: { score: number; shared: { type: string; value: string }[]; domain: { name: string } }[];
  too_common?: { type: string; value: string; domains: number }[];
}

function bruteForce(): Map<string, Expected> {
  const valuesOf = new Map<string, Set<string>>();
  const key = (type: string, value: string) => `${type}\u0000${value}`;
  const give = (name: string, type: string, value: string) => {
    if (value === "") return;
    const s = valuesOf.get(name) ?? new Set<string>();
    valuesOf.set(name, s);
    s.add(key(type, value));
  };
  const names = new Set(domains.map((d) => d.name));
  for (const d of domains) {
    for (const c of (d as { contact_info?: { type: string; value: string }[] }).contact_info ?? [])
      give(d.name, c.type, contactValue(c.type, c.value));
    if (d.merchant_name !== undefined) give(d.name, "merchant_name", lowerAscii(trimSpaces(d.merchant_name)));
    give(d.name, "cluster", d.cluster_best_ranked);
    for (const t of d.redirects_to ?? []) {
      give(d.name, "redirect", t);
      if (names.has(t)) give(t, "redirect", t);
    }
  }
  const holders = new Map<string, string[]>();
  for (const [name, values] of valuesOf)
    for (const v of values) holders.set(v, [...(holders.get(v) ?? []), name]);
  const rank = new Map(domains.map((d) => [d.name, d.rank ?? Number.POSITIVE_INFINITY]));
  const split = (k: string) => {
    const [type, value] = k.split("\u0000");
    return { type, value };
  };
  const byValue = (a: { type: string; value: string }, b: { type: string; value: string }) =>
    a.type < b.type ? -1 : a.type > b.type ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  const out = new Map<string, Expected>();
  for (const d of domains) {
    const shared = new Map<string, string[]>();
    const tooCommon: { type: string; value: string; domains: number }[] = [];
    for (const v of valuesOf.get(d.name) ?? []) {
      const who = holders.get(v) ?? [];
      if (who.length > LIMIT) tooCommon.push({ ...split(v), domains: who.length });
      else for (const o of who) if (o !== d.name) shared.set(o, [...(shared.get(o) ?? []), v]);
    }
    const related = [...shared.entries()]
      .map(([name, vs]) => ({ name, score: vs.length, shared: vs.map(split).sort(byValue) }))
      .sort(
        (a, b) =>
          b.score - a.score ||
          (rank.get(a.name) as number) - (rank.get(b.name) as number) ||
          (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
      );
    out.set(d.name, {
      total: related.length,
      domains: related.map((r) => ({ score: r.score, shared: r.shared, domain: { name: r.name } })),
      ...(tooCommon.length ? { too_common: tooCommon.sort(byValue) } : {}),
    });
  }
  return out;
}

describe.each(databaseKinds())("related stores on %s", (kind) => {
  let api: TestApi;
  const rest = async (path: string) => {
    const res = await api.app.fetch(`http://localhost/json/api/v1/all${path}`);
    return { status: res.status, body: JSON.parse(await res.text()) };
  };

  beforeAll(async () => {
    api = await startApi(kind, scratch.dir);
  }, 120_000);
  afterAll(() => api?.close());

  it("answers every Domain as the rules do, by brute force", async () => {
    const expected = bruteForce();
    const fields = "total,domains.score,domains.shared,domains.domain.name,too_common";
    let related = 0;
    for (const d of domains) {
      const r = await rest(`/domain/${d.name}/related?page_size=1000&fields=${fields}`);
      expect(r.status, d.name).toBe(200);
      const want = expected.get(d.name) as Expected;
      // An empty list is written as such; too_common only where there is one.
      expect(r.body.related, d.name).toEqual({ ...want, too_common: want.too_common ?? [] });
      related += want.total;
    }
    // The data holds what the rules are about: each way of writing a value met another.
    const all = [...expected.values()];
    for (const type of ["email", "phone", "instagram", "merchant_name", "cluster"])
      expect(
        all.some((e) => e.domains.some((x) => x.shared.some((s) => s.type === type))),
        type,
      ).toBe(true);
    expect(all.filter((e) => e.too_common).length).toBe(150);
    expect(related).toBeGreaterThan(200);
    // Not lowered beyond ASCII: the two names with Ä and ä are two values.
    expect(expected.get(domains[451].name)?.domains.some((x) => x.domain.name === domains[452].name)).toBe(
      false,
    );
  }, 120_000);

  it("pages the best first; GraphQL's Domain.related gives the same; bad input is named", async () => {
    const name = domains[203].name;
    const whole = await rest(`/domain/${name}/related?page_size=1000`);
    const top = await rest(`/domain/${name}/related?page_size=1`);
    expect(top.body.related.total).toBe(whole.body.related.total);
    expect(top.body.related.domains).toEqual(whole.body.related.domains.slice(0, 1));
    // A related Domain's default fields.
    expect(Object.keys(whole.body.related.domains[0].domain)).toEqual(
      expect.arrayContaining(["name", "platform", "rank"]),
    );
    const gql = await api.gql<{
      domain: { related: { total: number; domains: { score: number; domain: { name: string } }[] } };
    }>(`{ domain(name: "${name}") { related(first: 1000) { total domains { score domain { name } } } } }`);
    expect(gql.data?.domain.related.total).toBe(whole.body.related.total);
    expect(gql.data?.domain.related.domains.map((x) => [x.score, x.domain.name])).toEqual(
      whole.body.related.domains.map((x: { score: number; domain: { name: string } }) => [
        x.score,
        x.domain.name,
      ]),
    );
    const bad = await rest(`/domain/${name}/related?page_size=0`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("page_size");
    const tooMany = await api.gql(`{ domain(name: "${name}") { related(first: 1001) { total } } }`);
    expect(tooMany.errors?.[0]?.message).toMatch(/first: must be 1 to 1000/);
    const unknown = await rest("/domain/no-such-domain.example/related");
    expect(unknown.status).toBe(404);
  });
});
