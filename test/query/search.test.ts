import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import type { AppRecord, DomainRecord } from "../../src/dataset/record.ts";
import type { SqlReader } from "../../src/db/reader.ts";
import { searchCondition } from "../../src/query/search.ts";
import { type Oracle, oracleOf, searchText } from "../graphql/oracle.ts";
import { type GqlResult, startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

// Searches (q) through the trigram indexes (prisma/migrations/…/0003_search_trigram.sql): the
// same matches as the reference implementation whichever way a search is answered (SQLite: keys
// read from the FTS5 table first, or the scan; PostgreSQL: the GIN index serves the LIKE).

const scratch = tempDir("storegraph-search-");
let domains: readonly DomainRecord[];
let apps: readonly AppRecord[];
let oracle: Oracle;

/** Words of at least `min` letters in `texts`, with how many of the texts contain each. */
function wordCounts(texts: string[], min: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of texts)
    for (const w of new Set(t.match(/[\p{L}\p{N}]+/gu) ?? []))
      if (w.length >= min) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

beforeAll(async () => {
  // Over 1,000 Domains, so that a common word has more matches than the keys a search hands over.
  await generateDataset({ domains: 1500, apps: 60, seed: 11, outDir: scratch.dir });
  oracle = oracleOf(scratch.dir);
  ({ domains, apps } = oracle);
});
afterAll(() => scratch.remove());

const FTS = /FROM "(app|domain)_search"/;

describe.each(databaseKinds())("search through trigram indexes on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi(kind, scratch.dir);
  });
  afterAll(async () => {
    await api?.close();
  });

  interface DomainPage {
    domains: {
      totalCount: number;
      edges: { node: { name: string } }[];
      pageInfo: { hasNextPage: boolean; endCursor: string };
    };
  }

  /** Every Domain name a search matches (pages of 1000), and its totalCount. */
  async function domainSearch(search: string): Promise<{ names: string[]; total: number; fts: boolean }> {
    api.resetQueries();
    const names: string[] = [];
    let after: string | null = null;
    let total = -1;
    for (;;) {
      const res: GqlResult<DomainPage> = await api.gql<DomainPage>(
        `query($s: String, $after: String) { domains(search: $s, first: 1000, after: $after) {
          totalCount edges { node { name } } pageInfo { hasNextPage endCursor } } }`,
        { s: search, after },
      );
      expect(res.errors, search).toBeUndefined();
      const page: DomainPage["domains"] | undefined = res.data?.domains;
      if (!page) throw new Error("no page");
      total = page.totalCount;
      names.push(...page.edges.map((e) => e.node.name));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    return { names, total, fts: api.queries.some((q) => FTS.test(q)) };
  }

  it("finds what the scan finds: rare, common and short words, several words, none", async () => {
    const texts = domains.map((d) => searchText([d.name, d.title, d.description, d.merchant_name]));
    const counts = wordCounts(texts, 3);
    const byCount = [...counts].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]));
    const rare = byCount.find(([, n]) => n >= 2 && n <= 20)?.[0];
    const common = byCount.at(-1)?.[0];
    const short = [...wordCounts(texts, 2)].find(([w, n]) => w.length === 2 && n > 5)?.[0];
    if (!rare || !common || !short) throw new Error("the dataset lacks the words this test needs");
    expect(counts.get(common), "a word of over 1,000 Domains").toBeGreaterThan(1000);
    const searches = [rare, common, short, `${rare} ${common}`, `${short} ${rare}`, "zqxjkv"];
    for (const search of searches) {
      const expected = oracle.domainNames({ search });
      const got = await domainSearch(search);
      expect(new Set(got.names), search).toEqual(new Set(expected));
      expect(got.names.length, search).toBe(expected.length);
      expect(got.total, `${search}: totalCount`).toBe(expected.length);
      // SQLite reads keys from the FTS5 table for words of three letters or more, and only then.
      if (kind === "sqlite") expect(got.fts, `${search}: keys read first`).toBe(search !== short);
      else expect(got.fts, search).toBe(false);
    }
  });

  it("finds the Apps the scan finds", async () => {
    const texts = apps.map((a) => searchText([a.name, a.description]));
    const words = [...wordCounts(texts, 3)].sort((a, b) => a[1] - b[1]).map(([w]) => w);
    for (const search of [words[0], words[Math.floor(words.length / 2)], words.at(-1) as string]) {
      const expected = oracle.appIds({ search });
      api.resetQueries();
      const res = await api.gql<{
        apps: { totalCount: number; edges: { node: { platform: string; token: string } }[] };
      }>(
        "query($s: String) { apps(search: $s, first: 50) { totalCount edges { node { platform token } } } }",
        { s: search },
      );
      expect(res.errors, search).toBeUndefined();
      const got = res.data?.apps.edges.map((e) => `${e.node.platform}.${e.node.token}`) ?? [];
      expect(res.data?.apps.totalCount, search).toBe(expected.length);
      // The first page of 50 in the App sort: all of them when they are fewer.
      if (expected.length <= 50) expect(new Set(got), search).toEqual(new Set(expected));
      else expect(got.length, search).toBe(50);
      for (const id of got) expect(expected, search).toContain(id);
      // 60 Apps: any word of three letters or more has few enough matches for SQLite's keys.
      expect(
        api.queries.some((q) => FTS.test(q)),
        `${search}: keys read first`,
      ).toBe(kind === "sqlite");
    }
  });

  it.runIf(kind === "postgresql")("keeps GIN trigram indexes of the searched text", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    const rows = await served.sql.all(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE '%_trgm_idx' ORDER BY 1",
      [served.snapshot.location],
    );
    expect(rows.map((r) => r[0])).toEqual(["app_search_text_trgm_idx", "domain_search_text_trgm_idx"]);
    for (const r of rows) expect(r[1]).toMatch(/USING gin \(search_text (public\.)?gin_trgm_ops\)/);
  });
});

describe("searchCondition", () => {
  /** A SQLite reader that answers the FTS query with `keys`. */
  function reader(keys: number[]): SqlReader & { sqls: string[] } {
    const sqls: string[] = [];
    return {
      kind: "sqlite",
      sqls,
      table: (name: string) => `"${name}"`,
      anyOf: () => "",
      keysParam: () => "",
      async all(sql: string) {
        sqls.push(sql);
        return keys.map((k) => [k]);
      },
      async close() {},
    } as unknown as SqlReader & { sqls: string[] };
  }
  const words = (w: unknown) => JSON.stringify(w);

  it("hands over the keys of up to 1,000 matches, with the words' own conditions", async () => {
    const r = reader([3, 5]);
    const where = await searchCondition("domain", "Shop Boots", () => r);
    expect(where).toEqual({
      AND: [
        { pk: { in: [3, 5] } },
        { AND: [{ searchText: { contains: "shop" } }, { searchText: { contains: "boots" } }] },
      ],
    });
    expect(r.sqls.at(-1)).toMatch(
      /FROM "domain_search" WHERE search_text LIKE \$1 AND search_text LIKE \$2 LIMIT 1001/,
    );
  });

  it("scans instead for over 1,000 matches, and for words under three letters", async () => {
    const plain = { searchText: { contains: "shop" } };
    expect(
      await searchCondition("app", "shop", () => reader(Array.from({ length: 1001 }, (_, i) => i))),
    ).toEqual(plain);
    const short = reader([1]);
    expect(words(await searchCondition("app", "ab", () => short))).toBe(
      words({ searchText: { contains: "ab" } }),
    );
    expect(short.sqls).toEqual([]);
  });

  it("reports a bad search before asking for the snapshot", async () => {
    await expect(
      searchCondition("app", "%%", () => {
        throw new Error("asked for the reader");
      }),
    ).rejects.toThrow(/search/);
    expect(await searchCondition("app", "  ", () => reader([]))).toBeNull();
  });
});
