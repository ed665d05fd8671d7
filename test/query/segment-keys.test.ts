import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDataset } from "../../src/dataset/generate.ts";
import { type CountIndex, countIndexOf, RoaringBitmap32 } from "../../src/db/count-index.ts";
import { DomainKeys } from "../../src/db/domain-keys.ts";
import { pageKeys } from "../../src/db/page-keys.ts";
import type { SqlReader } from "../../src/db/reader.ts";
import { whereKey } from "../../src/db/where-bitmap.ts";
import { countWhere } from "../../src/db/where-sql.ts";
import { DomainSet } from "../../src/query/domain-set.ts";
import type { Where } from "../../src/query/keyset.ts";
import { REST_BASE } from "../../src/rest/routes.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

// `f:segment` puts a segment's members in the `where` as a set of keys (src/db/domain-keys.ts), not
// as a list of numbers: the count index reads its ordinals as they are, SQL binds its keys, and a
// cache key names it in a few characters. It answers as the list of its keys would, on a snapshot
// with a count index and on one without, and a segment's members are read anew once its filter
// (or a list it names) changes.

const scratch = tempDir("storegraph-segment-keys-");

beforeAll(async () => {
  await generateDataset({ domains: 300, apps: 40, seed: 11, outDir: scratch.dir });
}, 60_000);
afterAll(() => scratch.remove());

describe.each(databaseKinds())("a segment's members in a where on %s", (kind) => {
  let api: TestApi;
  /** The same snapshot, read without its count index: by SQL (src/db/reader.ts, `unindexed`). */
  let older: TestApi;
  let sql: SqlReader;
  let index: CountIndex;
  let pks: number[];

  beforeAll(async () => {
    [api, older] = await Promise.all([
      startApi(kind, scratch.dir),
      startApi(kind, scratch.dir, {}, {}, { indexed: false }),
    ]);
    const served = await api.snapshots.current();
    const olderServed = await older.snapshots.current();
    if (!served || !olderServed) throw new Error("nothing served");
    sql = served.sql;
    const found = await countIndexOf(sql);
    if (!found) throw new Error("no count index");
    index = found;
    pks = (await sql.all(`SELECT "pk" FROM ${sql.table("domain")}`, [])).map((r) => Number(r[0]));
  }, 240_000);
  afterAll(async () => {
    await api?.close();
    await older?.close();
  });

  const others: (Where | null)[] = [
    null,
    { platform: "shopify" },
    { countryCode: { in: ["US", "CA"] } },
    { searchText: { contains: "shop" } },
  ];

  it("reads pk in a set of keys as pk in the list of them: by the count index and by SQL, negated, with other terms", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(pks),
        fc.constantFrom(...others),
        fc.boolean(),
        async (members, other, negate) => {
          const within = (keys: unknown): Where => {
            const term: Where = { pk: { in: keys } };
            const t = negate ? { NOT: term } : term;
            return other ? { AND: [t, other] } : t;
          };
          const byKeys = DomainKeys.ofKeys(sql, new RoaringBitmap32(members));
          const byOrdinals = DomainKeys.ofOrdinals(
            sql,
            index,
            new RoaringBitmap32(members.map((pk) => index.pkToOrd[pk])),
          );
          expect(byKeys.keys()).toEqual([...members].sort((a, b) => a - b));
          expect(byOrdinals.keys()).toEqual([...members].sort((a, b) => a - b));
          const want = await countWhere(sql, "domain", within(members));
          for (const keys of [byKeys, byOrdinals]) {
            expect(await new DomainSet(sql, within(keys)).count()).toBe(want);
            expect(await countWhere(sql, "domain", within(keys))).toBe(want);
          }
          const page = (where: Where) =>
            pageKeys(sql, "domain", { where, orderBy: [{ rank: "asc" }, { pk: "asc" }], take: 20 });
          expect(await page(within(byOrdinals))).toEqual(await page(within(members)));
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);

  it("gives its keys only to a statement on the table they are of: another table's rows number theirs apart", async () => {
    const all = DomainKeys.ofKeys(sql, new RoaringBitmap32(pks));
    expect(await countWhere(sql, "domain", { pk: { in: all } })).toBe(pks.length);
    // The Domains gone from the snapshot (the change feed's gone tables) are another table, with
    // keys of their own from 1: the snapshot's keys, bound there, would pick other Domains.
    const gone: SqlReader = { ...sql, table: (name) => sql.table(`gone_${name}`), gone: true };
    const counted = async (on: SqlReader, where: Where) => countWhere(on, "domain", where);
    for (const where of [{ pk: { in: all } }, { NOT: { pk: { in: all } } }])
      await expect(counted(gone, where)).rejects.toThrow(
        /keys of Domains of .*domain.* are applied to the rows of .*gone_domain/,
      );
    // Made of the gone rows, they are theirs.
    const own = DomainKeys.ofKeys(gone, new RoaringBitmap32([1]));
    await expect(counted(sql, { pk: { in: own } })).rejects.toThrow(/applied to the rows of/);
  });

  it("is named in a cache key by itself, in a few characters", () => {
    const all = new RoaringBitmap32(pks);
    const one = DomainKeys.ofKeys(sql, all);
    const same = DomainKeys.ofKeys(sql, all);
    const key = whereKey({ pk: { in: one } });
    expect(key.length).toBeLessThan(40);
    expect(whereKey({ pk: { in: one } })).toBe(key);
    // Two sets are never named alike, whatever they hold.
    expect(whereKey({ pk: { in: same } })).not.toBe(key);
  });

  async function call(on: TestApi, method: string, path: string, body?: unknown) {
    const res = await on.app.fetch(`http://localhost${REST_BASE}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text}`).toBe(200);
    return text;
  }
  /** An answer without its cursor (a cursor names its own query). */
  const json = async (on: TestApi, path: string) => {
    const { next_cursor: _, ...rest } = JSON.parse(await call(on, "GET", path));
    return rest;
  };

  it("answers f:segment alike with and without the count index, and as its filter does", async () => {
    const filter = { "f:p": "shopify", "f:cc": "US,CA", "f:cc:op": "or" };
    for (const on of [api, older]) await call(on, "PUT", "/segment/keys", filter);
    const options = new URLSearchParams(filter).toString();
    for (const path of [
      "/domain?fields=name&page_size=50",
      "/domain?fields=name&page_size=7&sort=-er",
      "/domain/facets?facets=p,plan,cc,tech&facet_size=20",
    ]) {
      const [mine, theirs] = await Promise.all([api, older].map((on) => json(on, `${path}&f:segment=keys`)));
      expect(mine, path).toEqual(theirs);
      expect(mine, path).toEqual(await json(api, `${path}&${options}`));
    }
    const exported = await Promise.all(
      [api, older].map((on) => call(on, "GET", "/domain/export?f:segment=keys&fields=name")),
    );
    expect(exported[0]).toBe(exported[1]);
    expect(exported[0]).toBe(await call(api, "GET", `/domain/export?${options}&fields=name`));
    // Its complement, in GraphQL.
    const outside = '{ domains(filter: { not: { segment: "keys" } }) { totalCount } }';
    const size = JSON.parse(await call(api, "GET", "/segment/keys")).segment.size;
    for (const on of [api, older]) {
      const g = await on.gql<{ domains: { totalCount: number } }>(outside);
      expect(g.errors).toBeUndefined();
      expect(g.data?.domains.totalCount).toBe(pks.length - size);
    }
  });

  it("reads a segment's new members once its filter is replaced, or a list it names changes", async () => {
    const total = async (on: TestApi, options: string) => {
      const { total } = JSON.parse(await call(on, "GET", `/domain/facets?${options}&facets=p`));
      expect(typeof total).toBe("number");
      return total as number;
    };
    const names = (await json(api, "/domain?fields=name&page_size=3")).domains.map(
      (d: { name: string }) => d.name,
    );
    for (const on of [api, older]) {
      await call(on, "PUT", "/segment/moving", { "f:cc": "US" });
      expect(await total(on, "f:segment=moving")).toBe(await total(on, "f:cc=US"));
      await call(on, "PUT", "/segment/moving", { "f:cc": "CA" });
      expect(await total(on, "f:segment=moving")).toBe(await total(on, "f:cc=CA"));
      await call(on, "PUT", "/list/watched/add-domains", { domains: names.slice(0, 2) });
      await call(on, "PUT", "/segment/listed", { "f:list": "watched" });
      expect(await total(on, "f:segment=listed")).toBe(2);
      await call(on, "PUT", "/list/watched/add-domains", { domains: names.slice(2) });
      expect(await total(on, "f:segment=listed")).toBe(3);
    }
  });

  it("refuses a segment the account does not have with 404, naming the argument, on either face", async () => {
    // Then the account's segments near the name, when it has some (a did you mean).
    const why = "no segment named \"nothing\" (GET /segment shows this key's account's segments)";
    const g = await api.gql('{ domains(filter: { and: [{ segment: "nothing" }] }) { totalCount } }');
    expect(g.errors).toHaveLength(1);
    expect(g.errors?.[0].message.startsWith(`filter.and[0].segment: ${why}`)).toBe(true);
    expect(g.errors?.[0].extensions).toMatchObject({
      code: "NOT_FOUND",
      argument: "filter.and[0].segment",
    });
    const res = await api.app.fetch(`http://localhost${REST_BASE}/domain?f:segment=nothing`);
    expect(res.status).toBe(404);
    expect((await res.json()).error.startsWith(`f:segment: ${why}`)).toBe(true);
  });
});
