import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import type { DomainRecord } from "../../src/dataset/record.ts";
import {
  COUNT_INDEX_TABLE,
  type CountIndex,
  countIndexFromParts,
  countIndexOf,
} from "../../src/db/count-index.ts";
import { sortBuckets } from "../../src/db/count-index-build.ts";
import { valueAt } from "../../src/db/number-column.ts";
import { pageKeys } from "../../src/db/page-keys.ts";
import type { SqlReader } from "../../src/db/reader.ts";
import { TABLES } from "../../src/db/tables.ts";
import { localWhereBitmapOf } from "../../src/db/where-bitmap.ts";
import { DomainSet } from "../../src/query/domain-set.ts";
import { searchWords } from "../../src/query/filter.ts";
import { selectPage } from "../../src/query/index-page.ts";
import { type KeyValue, readPage, type SortKey, type Where } from "../../src/query/keyset.ts";
import { DOMAIN_SORTS, toSortKeys } from "../../src/query/sort.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { readJsonl } from "../support/jsonl.ts";

// A Domain page read from the snapshot's count index (src/query/index-page.ts) is the page its
// SQL statements read (src/query/keyset.ts), key for key: for random filters, every Domain sort in
// both directions (and pairs of them), and random cursors, on both databases; and GET /domain
// answers the same bytes, cursors included, with and without the index.

const scratch = tempDir("storegraph-index-page-");
let domains: DomainRecord[];

beforeAll(async () => {
  await generateDataset({ domains: 300, apps: 40, seed: 5, outDir: scratch.dir });
  domains = readJsonl<DomainRecord>(join(scratch.dir, "domains.jsonl"));
}, 60_000);

afterAll(() => scratch.remove());

type SortName = keyof typeof DOMAIN_SORTS;
const SORT_NAMES = Object.keys(DOMAIN_SORTS) as SortName[];
const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const distinct = <T>(xs: (T | null | undefined)[]) =>
  [...new Set(xs.filter((x): x is T => x !== null && x !== undefined))].sort();

/** Each Domain's sort values as the page reads them (Date for times, bigint for bigints), by pk. */
async function sortValues(sql: SqlReader): Promise<Record<string, KeyValue>[]> {
  const t = TABLES.domain;
  const fields = Object.values(DOMAIN_SORTS);
  const column = (field: string) => t.columns[t.fields.indexOf(field)];
  const select = fields.map((s) => {
    const c = `r."${column(s.field)}"`;
    if (sql.kind === "sqlite") return c;
    return s.kind === "time"
      ? `(extract(epoch from ${c}) * 1000)::float8`
      : s.kind === "bigint"
        ? `${c}::text`
        : c;
  });
  const rows = await sql.all(`SELECT r."pk", ${select.join(", ")} FROM ${sql.table(t.name)} r`, []);
  return rows.map((r) => {
    const out: Record<string, KeyValue> = { pk: Number(r[0]) };
    fields.forEach((s, i) => {
      const v = r[1 + i];
      out[s.field] =
        v === null || v === undefined
          ? null
          : s.kind === "time"
            ? new Date(Number(v))
            : s.kind === "bigint"
              ? BigInt(v as string | number)
              : s.kind === "string"
                ? String(v)
                : Number(v);
    });
    return out;
  });
}

describe.each(databaseKinds())("Domain pages from the count index on %s", (kind) => {
  let api: TestApi;
  let sql: SqlReader;
  let values: Record<string, KeyValue>[];
  /** The index with slices of 7 Domains, so that a page of a few hundred is read slice by slice. */
  let sliced: CountIndex;

  beforeAll(async () => {
    api = await startApi(kind, scratch.dir);
    const served = await api.snapshots.current();
    if (!served) throw new Error("nothing served");
    sql = served.sql;
    values = await sortValues(sql);
    const index = await countIndexOf(sql);
    if (!index) throw new Error("no count index");
    sliced = {
      ...index,
      sorts: new Map(
        [...index.sorts].map(([field, held]) => [
          field,
          { ...held, buckets: sortBuckets(held.values, index.ordToPk, 7) },
        ]),
      ),
    };
  }, 120_000);
  afterAll(() => api?.close());

  /** A random condition of the kinds a filter compiles to; `database`: one the index cannot answer. */
  function condition(): fc.Arbitrary<{ where: Where; database: boolean }> {
    const countries = distinct(domains.map((d) => d.country_code));
    const platforms = distinct(domains.map((d) => d.platform));
    const categories = distinct(domains.flatMap((d) => d.categories ?? []));
    const sales = distinct(domains.map((d) => d.estimated_sales));
    // Search words (q): common and rare words of the Domains' own texts, parts of them, and none.
    const words = distinct(
      domains.slice(0, 20).flatMap((d) => searchWords(`${d.name} ${d.title ?? ""}`).slice(0, 3)),
    );
    const index = (w: Where) => ({ where: w, database: false });
    const term = fc.oneof(
      fc
        .uniqueArray(pick(countries), { minLength: 1, maxLength: 3 })
        .map((cs) => index({ countryCode: { in: cs } })),
      pick(platforms).map((p) => index({ platform: p })),
      fc
        .uniqueArray(pick(categories), { minLength: 1, maxLength: 2 })
        .map((cs) => index({ categories: { some: { category: { in: cs } } } })),
      pick(sales).map((s) => index({ estimatedSales: { gte: BigInt(s) } })),
      fc.integer({ min: 1, max: 300 }).map((n) => index({ rank: { lte: n } })),
      pick(countries).map((c) => index({ NOT: { countryCode: c } })),
      pick(["a", "e", "shop"]).map((s) => ({ where: { name: { contains: s } }, database: true })),
      pick([...words, "a", "e", "shop", "zzqx"]).map((w) => index({ searchText: { contains: w } })),
    );
    return fc.array(term, { minLength: 0, maxLength: 3 }).map((terms) => ({
      where: terms.length ? { AND: terms.map((t) => t.where) } : {},
      database: terms.some((t) => t.database),
    }));
  }

  /** One or two sort keys, each way, completed by pk. */
  const sorts = fc
    .uniqueArray(fc.tuple(pick(SORT_NAMES), pick(["asc", "desc"] as const)), {
      minLength: 1,
      maxLength: 2,
      selector: ([name]) => name,
    })
    .map((order) =>
      toSortKeys(
        DOMAIN_SORTS,
        order.map(([field, direction]) => ({ field, direction })),
        [],
      ),
    );

  /** A cursor: a Domain's own values, or values moved off any Domain's (nulls among them). */
  const cursor = (keys: SortKey[]) =>
    fc.oneof(
      { arbitrary: fc.constant(null), weight: 1 },
      {
        arbitrary: fc.integer({ min: 0, max: 299 }).map((i) => keys.map((k) => values[i][k.field])),
        weight: 3,
      },
      {
        arbitrary: fc
          .tuple(
            fc.integer({ min: 0, max: 299 }),
            fc.array(fc.integer({ min: -1, max: 1 }), { minLength: 3 }),
          )
          .map(([i, moves]) =>
            keys.map((k, j): KeyValue => {
              const v = values[i][k.field];
              const move = moves[j] ?? 0;
              if (k.nullable && move < 0) return null;
              if (typeof v === "number") return v + move;
              if (typeof v === "bigint") return v + BigInt(move);
              if (v instanceof Date) return new Date(v.getTime() + move);
              return v;
            }),
          ),
        weight: 2,
      },
    );

  const bySql = (keys: SortKey[], where: Where, after: KeyValue[] | null, take: number) =>
    readPage(keys, where, after, take, (args) => pageKeys(sql, "domain", args));

  it("reads every sort's page of random filters and cursors as SQL does", async () => {
    let served = 0;
    await fc.assert(
      fc.asyncProperty(
        condition(),
        sorts.chain((keys) => fc.tuple(fc.constant(keys), cursor(keys))),
        fc.integer({ min: 1, max: 40 }),
        async ({ where, database }, [keys, after], take) => {
          const want = await bySql(keys, where, after, take);
          const got = await new DomainSet(sql, where).pageKeys(keys, after, take);
          // Read by SQL only when the set would ask the database, or a name must be placed.
          const placesName = !!after && keys.some((k, i) => k.kind === "string" && after[i] !== null);
          expect(
            got === null,
            JSON.stringify({ where, keys, placesName }, (_k, v) => (typeof v === "bigint" ? `${v}` : v)),
          ).toBe(database || placesName);
          if (got) {
            served++;
            expect(got).toEqual(want);
            // Read slice by slice of the key's order (as a large set is), the same page.
            const found = await localWhereBitmapOf(sql, where);
            if (!found) throw new Error("no bitmap");
            expect(selectPage(sliced, found.bitmap, keys, after, take, 0)).toEqual(want);
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(served).toBeGreaterThan(150);
  }, 300_000);

  it("pages through every sort both ways to the end, as SQL does", async () => {
    const where: Where = { platform: "shopify" };
    for (const name of SORT_NAMES) {
      for (const direction of ["asc", "desc"] as const) {
        const keys = toSortKeys(DOMAIN_SORTS, [{ field: name, direction }], []);
        const seen: number[] = [];
        let after: KeyValue[] | null = null;
        for (;;) {
          const got = await new DomainSet(sql, where).pageKeys(keys, after, 37);
          const want = await bySql(keys, where, after, 37);
          // Past the first page a name's cursor is placed by SQL.
          if (after && name === "NAME") expect(got).toBeNull();
          else expect(got, `${name} ${direction}`).toEqual(want);
          seen.push(...want);
          if (want.length < 37) break;
          const last = values.find((v) => v.pk === want[want.length - 1]);
          if (!last) throw new Error("no such Domain");
          after = keys.map((k) => last[k.field]);
        }
        expect(seen.length).toBe(domains.filter((d) => d.platform === "shopify").length);
      }
    }
  }, 120_000);

  it("reads the stored parts to the database's own values, and names a part that is missing", async () => {
    const rows = await sql.all(`SELECT x."name", x."body" FROM ${sql.table(COUNT_INDEX_TABLE)} x`, []);
    const parts = new Map(rows.map((r) => [String(r[0]), r[1] as Uint8Array]));
    const full = await countIndexFromParts(parts);
    expect([...full.sorts.keys()].sort()).toEqual(
      Object.values(DOMAIN_SORTS)
        .map((s) => s.field)
        .sort(),
    );
    // Coded in fewer bytes than doubles: at least one column in 1 or 2 bytes, none wider than 8.
    const widths = [...full.numbers.values()].map((c) => c.codes.BYTES_PER_ELEMENT);
    expect(Math.min(...widths)).toBeLessThanOrEqual(2);
    // The values are the database's own, ordinal by ordinal.
    const rank = full.numbers.get("rank");
    if (!rank) throw new Error("no rank");
    const ranks = new Map(
      (await sql.all(`SELECT r."pk", r."rank" FROM ${sql.table(TABLES.domain.name)} r`, [])).map((r) => [
        Number(r[0]),
        r[1] === null ? Number.NaN : Number(r[1]),
      ]),
    );
    for (let i = 0; i < full.n; i++) expect(valueAt(rank, i)).toBe(ranks.get(full.ordToPk[i]));
    // The snapshot's format says its index is whole (src/db/snapshot-format.ts): a part missing is
    // a fault that names it, never a count made some other way.
    for (const missing of ["sort.name", "order.rank", "coded.rank", "search.words"]) {
      const lacking = new Map([...parts].filter(([n]) => n !== missing));
      await expect(countIndexFromParts(lacking), missing).rejects.toThrow(`has no part ${missing}`);
    }
  });

  it("answers GET /domain alike with and without the index, cursors included, reading no page by SQL with it", async () => {
    const get = async (on: TestApi, path: string) => {
      const res = await on.app.fetch(`http://localhost/json/api/v1/all/domain?${path}`);
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return text;
    };
    const app = domains.flatMap((d) => d.apps ?? []).find((a) => !a.removed_at);
    if (!app) throw new Error("no installed App");
    const category = distinct(domains.flatMap((d) => d.categories ?? []))[0];
    const filters = [
      "",
      "f:cc=US",
      `f:an=${encodeURIComponent(`${app.platform}.${app.token}`)}`,
      `f:cat=${encodeURIComponent(category)}`,
      "f:p=shopify&f:ermin=1000",
    ];
    const sortNames = Object.values(DOMAIN_SORTS).flatMap((s) => [s.legacy[0], `-${s.legacy[0]}`]);
    const fields = `fields=${Object.values(DOMAIN_SORTS)
      .map((s) => s.legacy[0])
      .join(",")}`;
    // The same snapshot read without its index: by SQL (src/db/reader.ts, `unindexed`).
    const older = await startApi(kind, scratch.dir, {}, {}, { indexed: false });
    try {
      await get(api, "f:cc=CA&page_size=1"); // the index is loaded once
      for (const filter of filters) {
        for (const sort of sortNames) {
          let cursor = "";
          for (let page = 0; page < 3; page++) {
            const path = `${filter}&sort=${sort}&page_size=20&${fields}${cursor}`;
            api.resetQueries();
            const mine = await get(api, path);
            // The page's keys are no statement (a name's deeper pages are).
            if (!(cursor && sort.endsWith("name")))
              expect(
                api.queries.filter((q) => /ORDER BY/.test(q)),
                path,
              ).toEqual([]);
            expect(mine, path).toBe(await get(older, path));
            const next = JSON.parse(mine).next_cursor;
            if (!next) break;
            cursor = `&cursor=${next}`;
          }
        }
      }
    } finally {
      await older.close();
    }
  }, 300_000);
});
