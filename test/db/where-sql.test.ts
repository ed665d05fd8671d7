import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageKeys } from "../../src/db/page-keys.ts";
import { openSnapshotReader, type SqlReader } from "../../src/db/reader.ts";
import { sqlitePlan } from "../../src/db/sqlite-plan.ts";
import { TABLES, type TableKey } from "../../src/db/tables.ts";
import { countWhere, findStatement, RELATIONS } from "../../src/db/where-sql.ts";
import type { Where } from "../../src/query/keyset.ts";
import { fromRoot } from "../../src/root.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { writeSnapshotDir } from "../support/fixture.ts";
import { manyDomainsFixture } from "../support/fixture-graphql.ts";
import { openSnapshotClient, type Prisma } from "../support/prisma.ts";

/**
 * The page queries are compiled from Prisma's `where` language by src/db/where-sql.ts: the keys and
 * counts must be exactly Prisma's for the same arguments, NULLs, empty lists and relations included.
 */

const modelOf = (table: TableKey) => `${table[0].toUpperCase()}${table.slice(1)}`;

describe("relations", () => {
  // model Name { … field Type @relation(fields: [fk], references: [pk]) … }
  const schema = readFileSync(fromRoot("prisma/schema.prisma"), "utf8");
  const models = new Map(
    [...schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)].map((m) => [m[1], m[2]] as const),
  );
  const relationOf = (model: string, field: string) => {
    const body = models.get(model) ?? "";
    const line = new RegExp(`^\\s*${field}\\s+(\\w+)(\\[\\])?\\??\\s*(.*)$`, "m").exec(body);
    if (!line) return null;
    const fk = /@relation\([^)]*fields:\s*\[(\w+)\],\s*references:\s*\[(\w+)\]/.exec(line[3]);
    return { type: line[1], list: line[2] === "[]", fk: fk?.[1], references: fk?.[2] };
  };
  const column = (table: TableKey, field: string) =>
    TABLES[table].columns[TABLES[table].fields.indexOf(field)];

  const entries = Object.entries(RELATIONS).flatMap(([table, relations]) =>
    Object.entries(relations ?? {}).map(([field, r]) => [table as TableKey, field, r] as const),
  );
  it.each(entries)("%s.%s joins as prisma/schema.prisma declares", (table, field, r) => {
    const declared = relationOf(modelOf(table), field);
    expect(declared?.type).toBe(modelOf(r.table));
    expect(declared?.list).toBe(r.list);
    if (r.list) {
      // The child's side holds the key: its field that references this model's pk.
      const back = [
        ...(models.get(modelOf(r.table)) ?? "").matchAll(
          /@relation\(fields: \[(\w+)\], references: \[(\w+)\]/g,
        ),
      ].filter((m) => column(r.table, m[1]) === r.remote);
      expect(back.length).toBe(1);
      expect(column(table, back[0][2])).toBe(r.local);
    } else {
      expect(column(table, declared?.fk ?? "")).toBe(r.local);
      expect(column(r.table, declared?.references ?? "")).toBe(r.remote);
    }
  });
});

/** Wheres over the Domain and App models, in the forms the filters build and the edge cases. */
const DOMAIN_WHERES: [string, Where][] = [
  ["nothing", {}],
  ["equals", { countryCode: "US" }],
  ["IS NULL", { countryCode: null }],
  ["not null", { countryCode: { not: null } }],
  ["not a value (NULLs fail)", { countryCode: { not: "US" } }],
  ["in", { countryCode: { in: ["US", "DE"] } }],
  ["in []", { countryCode: { in: [] } }],
  ["notIn (NULLs fail)", { countryCode: { notIn: ["US"] } }],
  ["notIn []", { countryCode: { notIn: [] } }],
  ["ranges", { rank: { gte: 105, lt: 140 }, createdAt: { gte: new Date("2020-01-01T00:00:00Z") } }],
  ["time equality", { createdWeek: new Date("2024-01-05T00:00:00Z") }],
  ["bigint", { estimatedVisits: { gte: BigInt(1000) } }],
  ["contains", { searchText: { contains: "shop" } }],
  ["OR", { OR: [{ countryCode: "US" }, { rank: { lte: 110 } }] }],
  ["OR []", { OR: [] }],
  // Folded to "every row", its other member's value must not stay bound (PostgreSQL refuses a
  // parameter it cannot type).
  ["OR with an always-true member", { OR: [{ NOT: { countryCode: { in: [] } } }, { countryCode: "US" }] }],
  ["AND []", { AND: [] }],
  ["NOT object", { NOT: { countryCode: "US", rank: { lt: 130 } } }],
  ["NOT list", { NOT: [{ countryCode: "US" }, { rank: { lt: 130 } }] }],
  ["some", { apps: { some: { removedAt: null } } }],
  ["some {}", { features: { some: {} } }],
  ["none", { apps: { none: { removedAt: { not: null } } } }],
  [
    "to-one through a list",
    { technologies: { some: { technology: { name: { in: ["Klaviyo", "Shopify"] } } } } },
  ],
  [
    "to-one with a list relation inside",
    { apps: { some: { app: { platform: "shopify", categories: { none: {} } } } } },
  ],
  [
    "nested",
    {
      AND: [
        { OR: [{ categories: { some: { category: "Apparel" } } }, { tags: { none: {} } }] },
        { NOT: { countryCode: null } },
      ],
    },
  ],
];

const APP_WHERES: [string, Where][] = [
  ["equals", { platform: "shopify" }],
  ["relation", { categories: { some: { category: { in: ["Marketing", "Discounts"] } } } }],
  ["reviews none", { reviews: { none: {} } }],
  ["float", { averageRatingSort: { gte: 4.5 } }],
];

describe.each(databaseKinds())("page keys on %s", (kind) => {
  let api: TestApi;
  /** Prisma over the same snapshot: the oracle. */
  let prisma: Prisma;
  const tmp = tempDir("storegraph-where-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), manyDomainsFixture(30)));
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    prisma = openSnapshotClient(api.db.config, served.snapshot);
  }, 120_000);
  afterAll(async () => {
    await prisma?.$disconnect();
    await api?.close();
    tmp.remove();
  });

  const served = async () => {
    const s = await api.snapshots.current();
    if (!s) throw new Error("no snapshot");
    return s;
  };
  type Delegate = {
    findMany(args: object): Promise<{ pk: number }[]>;
    count(args: object): Promise<number>;
  };
  const delegate = async (table: TableKey) => prisma[table as "domain"] as unknown as Delegate;

  const same = async (table: TableKey, where: Where, orderBy: Where[] = [{ pk: "asc" }]) => {
    const s = await served();
    const prisma = await delegate(table);
    const args = { where, orderBy, take: 1000 };
    const theirs = (await prisma.findMany({ ...args, select: { pk: true } })).map((r) => r.pk);
    expect(await pageKeys(s.sql, table, args)).toEqual(theirs);
    expect(await countWhere(s.sql, table, where)).toBe(await prisma.count({ where }));
    return theirs.length;
  };

  it.each(DOMAIN_WHERES)("Domains: %s", async (_name, where) => {
    await same("domain", where);
  });

  it.each(APP_WHERES)("Apps: %s", async (_name, where) => {
    await same("app", where);
  });

  it("pages asked together give each its own keys, in order; on PostgreSQL in one statement, each alone if it fails", async () => {
    const s = await served();
    const prisma = await delegate("domain");
    const asks = DOMAIN_WHERES.flatMap(([, where], i) => [
      { where, orderBy: [{ rank: "asc" }, { pk: "asc" }], take: 5 + (i % 4) },
      { where, orderBy: [{ pk: "desc" }], take: 3, skip: i % 3 },
    ]);
    const theirs = await Promise.all(
      asks.map(async (args) => (await prisma.findMany({ ...args, select: { pk: true } })).map((r) => r.pk)),
    );
    const statements: string[] = [];
    const sql = openSnapshotReader(api.db.config, s.snapshot, { onQuery: (q) => statements.push(q) });
    try {
      expect(await Promise.all(asks.map((args) => pageKeys(sql, "domain", args)))).toEqual(theirs);
      if (kind === "postgresql") {
        expect(statements.filter((q) => q.startsWith("SELECT ARRAY("))).toHaveLength(1);
        expect(statements).toHaveLength(1);
      }
      // A batch that fails is read again page by page: each page still gets its keys.
      const flaky = Object.assign(Object.create(sql) as SqlReader, {
        all: (text: string, params: readonly unknown[], options?: object) =>
          text.startsWith("SELECT ARRAY(")
            ? Promise.reject(new Error("canceled"))
            : sql.all(text, params, options),
      });
      expect(await Promise.all(asks.map((args) => pageKeys(flaky, "domain", args)))).toEqual(theirs);
    } finally {
      await sql.close();
    }
  });

  it("contains is a substring, its wildcard characters taken literally (Prisma passes them to LIKE)", async () => {
    const s = await served();
    const all = (await (await delegate("domain")).findMany({ select: { pk: true, searchText: true } })) as {
      pk: number;
      searchText: string | null;
    }[];
    for (const text of ["%", "_", "shop", "ex_mple"]) {
      const expected = all.filter((r) => r.searchText?.includes(text)).map((r) => r.pk);
      const args = { where: { searchText: { contains: text } }, orderBy: [{ pk: "asc" }], take: 1000 };
      expect(await pageKeys(s.sql, "domain", args)).toEqual(expected);
    }
  });

  it("sorts as Prisma does: NULLs last, descending, skip and take", async () => {
    const s = await served();
    const prisma = await delegate("domain");
    const args = {
      where: { rank: { gte: 100 } },
      orderBy: [{ employeeCount: { sort: "desc", nulls: "last" } }, { rank: "asc" }, { pk: "asc" }],
      take: 7,
      skip: 5,
    };
    const theirs = (await prisma.findMany({ ...args, select: { pk: true } })).map((r) => r.pk);
    expect(theirs).toHaveLength(7);
    expect(await pageKeys(s.sql, "domain", args)).toEqual(theirs);
  });

  it("reads a common value by the sort's index and a rare one by its own (SQLite), with Prisma's keys", async () => {
    const s = await served();
    const prisma = await delegate("domain");
    const rows = await (
      prisma as unknown as {
        findMany(a: object): Promise<{ countryCode: string | null; platform: string }[]>;
      }
    ).findMany({ select: { countryCode: true, platform: true } });
    const counts = new Map<string, number>();
    for (const r of rows) if (r.countryCode) counts.set(r.countryCode, (counts.get(r.countryCode) ?? 0) + 1);
    const [common] = [...counts].sort((a, b) => b[1] - a[1])[0];
    // Pages of 3 of 30 Domains: the bound is a share of √(3 ÷ 30) ≈ 0.32.
    expect((counts.get(common) ?? 0) / rows.length).toBeGreaterThan(0.32);
    const orders: Where[][] = [
      [{ estimatedSales: "desc" }, { pk: "desc" }],
      [{ createdAt: "desc" }, { pk: "desc" }],
      [{ name: "asc" }, { pk: "asc" }],
    ];
    const cases: [string, Where, "walk" | "gather"][] = [
      ["common country", { countryCode: common }, "walk"],
      ["no such country", { countryCode: "ZZ" }, "gather"],
      [
        "no such country and a platform",
        { AND: [{ countryCode: { in: ["ZZ", "YY"] } }, { platform: rows[0].platform }] },
        "gather",
      ],
    ];
    for (const [name, where, way] of cases) {
      for (const orderBy of orders) {
        const args = { where, orderBy, take: 3 };
        const theirs = (await prisma.findMany({ ...args, select: { pk: true } })).map((r) => r.pk);
        expect(await pageKeys(s.sql, "domain", args), name).toEqual(theirs);
        if (kind !== "sqlite") continue;
        const plan = await sqlitePlan(s.sql, "domain", args);
        expect(plan.gather, name).toBe(way === "gather");
        const { text, params } = findStatement(s.sql, "domain", args, undefined, plan);
        const explained = (await s.sql.all(`EXPLAIN QUERY PLAN ${text}`, params)).map((r) => String(r[3]));
        // Walking, the order is the sort's index's (no sort of its own); gathering, the matches
        // are sorted (found by the country's index, or on 30 rows by a scan).
        if (way === "walk") expect(explained.join(" | "), name).not.toMatch(/TEMP B-TREE/);
        else expect(explained.join(" | "), name).toMatch(/TEMP B-TREE FOR ORDER BY/);
      }
    }
  });

  it("a narrow read to its end is gathered and sorted (SQLite), in Prisma's order; one in key order is not", async () => {
    const s = await served();
    const prisma = await delegate("domain");
    const orders: Where[][] = [
      [{ rank: "asc" }, { pk: "asc" }],
      [{ estimatedSales: { sort: "desc", nulls: "last" } }, { pk: "desc" }],
      [{ name: "asc" }, { pk: "asc" }],
      [{ pk: "asc" }],
    ];
    const wheres: [string, Where][] = [
      ["every Domain", {}],
      ["a platform", { platform: "shopify" }],
      ["a country of none", { countryCode: "ZZ" }],
      ["a range", { rank: { gte: 5 } }],
    ];
    for (const [name, where] of wheres) {
      for (const orderBy of orders) {
        const args = { where, orderBy };
        const theirs = (await prisma.findMany({ ...args, select: { pk: true } })).map((r) => r.pk);
        const plan = await sqlitePlan(s.sql, "domain", args, true);
        const { text, params } = findStatement(s.sql, "domain", args, undefined, plan);
        const ours: number[] = [];
        for await (const rows of s.sql.stream(text, params, 7)) ours.push(...rows.map((r) => Number(r[0])));
        expect(ours, `${name} by ${JSON.stringify(orderBy)}`).toEqual(theirs);
        if (kind !== "sqlite") continue;
        // In key order, the table's own order serves; in any other, the rows are sorted. A
        // filter that matches few rows gathers them by its index in either (as a page does).
        const byKey = Object.keys(orderBy[0])[0] === "pk";
        const few = name === "a country of none";
        expect(plan.gather, name).toBe(!byKey || few);
        const explained = (await s.sql.all(`EXPLAIN QUERY PLAN ${text}`, params)).map((r) => String(r[3]));
        if (plan.gather) expect(explained.join(" | "), name).toMatch(/TEMP B-TREE FOR ORDER BY/);
        else if (name === "every Domain") expect(explained.join(" | "), name).not.toMatch(/TEMP B-TREE/);
        // Not read to its end (a page), the planner's choice stands where no filter narrows.
        if (!Object.keys(where).length) expect((await sqlitePlan(s.sql, "domain", args)).gather).toBe(false);
      }
    }
  });

  it("property: random combinations match Prisma's keys and counts", async () => {
    // Without the empty conditions: Prisma answers NOT of one ({}, AND: [], OR: []) in ways of
    // its own (NOT of AND: [] matched one Domain of 34), and the filters never build one.
    const empty = new Set(["nothing", "OR []", "AND []"]);
    const leaf = fc.constantFrom<Where>(...DOMAIN_WHERES.filter(([n]) => !empty.has(n)).map(([, w]) => w));
    const where: fc.Arbitrary<Where> = fc.letrec<{ w: Where }>((tie) => ({
      w: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        leaf,
        // Lists of one or more, as the filters build them.
        fc.array(tie("w"), { minLength: 1, maxLength: 3 }).map((ws) => ({ AND: ws })),
        fc.array(tie("w"), { minLength: 1, maxLength: 3 }).map((ws) => ({ OR: ws })),
        tie("w").map((w) => ({ NOT: w })),
        tie("w").map((w) => ({ apps: { some: { app: {} } }, ...w })),
      ),
    })).w;
    let matched = 0;
    await fc.assert(
      fc.asyncProperty(where, async (w) => {
        if ((await same("domain", w)) > 0) matched++;
      }),
      { numRuns: 200 },
    );
    // The property is not vacuous: many of the combinations match some Domains.
    expect(matched).toBeGreaterThan(10);
  });
});
