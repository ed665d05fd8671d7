import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/errors.ts";
import { decodeCursor, encodeCursor } from "../../src/query/cursor.ts";
import {
  type Direction,
  type FindArgs,
  follow,
  type KeyValue,
  positionOf,
  readPage,
  type SortKey,
  type Where,
} from "../../src/query/keyset.ts";
import { DOMAIN_SORTS, type SortField, toSortKeys } from "../../src/query/sort.ts";

const key = (field: string, dir: Direction, nullable = false, kind: SortKey["kind"] = "int"): SortKey => ({
  field,
  dir,
  nullable,
  kind,
});

describe("follow", () => {
  it("a single non-null key", () => {
    expect(follow([key("pk", "asc")], [5])).toEqual({ pk: { gt: 5 } });
    expect(follow([key("pk", "desc")], [5])).toEqual({ pk: { lt: 5 } });
  });

  it("a non-null key and the tie-breaker", () => {
    expect(follow([key("rank", "asc"), key("pk", "asc")], [3, 10])).toEqual({
      OR: [{ rank: { gt: 3 } }, { AND: [{ rank: 3 }, { pk: { gt: 10 } }] }],
    });
  });

  it("a nullable key with a known value: greater values, then the NULLs", () => {
    expect(follow([key("installs", "desc", true), key("pk", "desc")], [100, 7])).toEqual({
      OR: [
        { OR: [{ installs: { lt: 100 } }, { installs: null }] },
        { AND: [{ installs: 100 }, { pk: { lt: 7 } }] },
      ],
    });
    expect(follow([key("installs", "asc", true), key("pk", "asc")], [0, 7])).toEqual({
      OR: [
        { OR: [{ installs: { gt: 0 } }, { installs: null }] },
        { AND: [{ installs: 0 }, { pk: { gt: 7 } }] },
      ],
    });
  });

  it("a nullable key with a NULL value: only later rows among the NULLs", () => {
    expect(follow([key("installs", "desc", true), key("pk", "desc")], [null, 7])).toEqual({
      AND: [{ installs: null }, { pk: { lt: 7 } }],
    });
    expect(follow([key("installs", "asc", true), key("pk", "asc")], [null, 7])).toEqual({
      AND: [{ installs: null }, { pk: { gt: 7 } }],
    });
  });

  it("two keys with mixed directions and the tie-breaker", () => {
    const keys = [key("rank", "desc"), key("name", "asc", false, "string"), key("pk", "asc")];
    expect(follow(keys, [3, "b", 9])).toEqual({
      OR: [
        { rank: { lt: 3 } },
        { AND: [{ rank: 3 }, { name: { gt: "b" } }] },
        { AND: [{ rank: 3 }, { name: "b" }, { pk: { gt: 9 } }] },
      ],
    });
  });

  it("a NULL in a later nullable key", () => {
    const at = new Date("2024-03-01T00:00:00Z");
    const keys = [
      key("createdAt", "asc", false, "time"),
      key("removedAt", "desc", true, "time"),
      key("pk", "desc"),
    ];
    expect(follow(keys, [at, null, 4])).toEqual({
      OR: [{ createdAt: { gt: at } }, { AND: [{ createdAt: at }, { removedAt: null }, { pk: { lt: 4 } }] }],
    });
    const removed = new Date("2024-04-01T00:00:00Z");
    expect(follow(keys, [at, removed, 4])).toEqual({
      OR: [
        { createdAt: { gt: at } },
        { AND: [{ createdAt: at }, { OR: [{ removedAt: { lt: removed } }, { removedAt: null }] }] },
        { AND: [{ createdAt: at }, { removedAt: removed }, { pk: { lt: 4 } }] },
      ],
    });
  });

  it("bigint values pass through unchanged", () => {
    expect(follow([key("estimatedSales", "desc", false, "bigint")], [2n ** 62n])).toEqual({
      estimatedSales: { lt: 2n ** 62n },
    });
  });
});

describe("readPage", () => {
  const base = { state: "Active" };

  /** A `find` that records its calls and answers with the given results in turn. */
  function recorder(...results: unknown[][]) {
    const calls: FindArgs[] = [];
    const find = async (args: FindArgs) => {
      calls.push(args);
      return results[calls.length - 1] ?? [];
    };
    return { calls, find };
  }

  it("a non-null first key is one query", async () => {
    const keys = [key("rank", "asc"), key("installs", "desc", true), key("pk", "desc")];
    const { calls, find } = recorder([{ pk: 1 }]);
    expect(await readPage(keys, base, null, 3, find)).toEqual([{ pk: 1 }]);
    expect(calls).toEqual([
      {
        where: { state: "Active" },
        orderBy: [{ rank: "asc" }, { installs: { sort: "desc", nulls: "last" } }, { pk: "desc" }],
        take: 3,
      },
    ]);
    const again = recorder([]);
    await readPage(keys, base, [3, null, 8], 3, again.find);
    // The first key's bound lets the database start an index range scan at the cursor.
    expect(again.calls[0].where).toEqual({
      AND: [{ state: "Active" }, { rank: { gte: 3 } }, follow(keys, [3, null, 8])],
    });
    const desc = recorder([]);
    await readPage([key("rank", "desc"), key("pk", "desc")], {}, [3, 8], 3, desc.find);
    expect(desc.calls[0].where).toEqual({
      AND: [{ rank: { lte: 3 } }, follow([key("rank", "desc"), key("pk", "desc")], [3, 8])],
    });
  });

  const keys = [key("installs", "desc", true), key("pk", "desc")];

  it("a nullable first key: the known values first, then the NULLs", async () => {
    const { calls, find } = recorder([{ pk: 1 }], [{ pk: 2 }, { pk: 3 }]);
    expect(await readPage(keys, base, null, 3, find)).toEqual([{ pk: 1 }, { pk: 2 }, { pk: 3 }]);
    expect(calls).toEqual([
      {
        where: { AND: [{ state: "Active" }, { installs: { not: null } }] },
        orderBy: [{ installs: "desc" }, { pk: "desc" }],
        take: 3,
      },
      { where: { AND: [{ state: "Active" }, { installs: null }] }, orderBy: [{ pk: "desc" }], take: 2 },
    ]);
  });

  it("a nullable first key after a known value seeks in phase 1", async () => {
    const { calls, find } = recorder([{ pk: 1 }]);
    await readPage(keys, base, [100, 7], 3, find);
    expect(calls).toEqual([
      {
        where: {
          AND: [
            { state: "Active" },
            { installs: { not: null } },
            { installs: { lte: 100 } },
            {
              OR: [
                { OR: [{ installs: { lt: 100 } }, { installs: null }] },
                { AND: [{ installs: 100 }, { pk: { lt: 7 } }] },
              ],
            },
          ],
        },
        orderBy: [{ installs: "desc" }, { pk: "desc" }],
        take: 3,
      },
      // The NULLs all follow a known value: from their start.
      { where: { AND: [{ state: "Active" }, { installs: null }] }, orderBy: [{ pk: "desc" }], take: 2 },
    ]);
    const asc = recorder([]);
    await readPage([key("installs", "asc", true), key("pk", "asc")], {}, [100, 7], 3, asc.find);
    expect((asc.calls[0].where as { AND: Where[] }).AND[1]).toEqual({ installs: { gte: 100 } });
  });

  it("a full first phase ends the page", async () => {
    const { calls, find } = recorder([{ pk: 1 }, { pk: 2 }]);
    expect(await readPage(keys, base, null, 2, find)).toEqual([{ pk: 1 }, { pk: 2 }]);
    expect(calls).toHaveLength(1);
  });

  it("after a NULL only the NULLs are read", async () => {
    const { calls, find } = recorder([{ pk: 5 }]);
    expect(await readPage(keys, base, [null, 7], 3, find)).toEqual([{ pk: 5 }]);
    expect(calls).toEqual([
      {
        where: { AND: [{ state: "Active" }, { installs: null }, { pk: { lt: 7 } }] },
        orderBy: [{ pk: "desc" }],
        take: 3,
      },
    ]);
  });
});

describe("positionOf", () => {
  it("reads the key values, undefined as NULL", () => {
    const at = new Date(0);
    const keys = [key("installs", "desc", true), key("createdAt", "asc", false, "time"), key("pk", "asc")];
    expect(positionOf(keys, { pk: 3, createdAt: at, name: "x" })).toEqual([null, at, 3]);
    expect(positionOf(keys, { pk: 3, createdAt: at, installs: 0 })).toEqual([0, at, 3]);
  });
});

describe("toSortKeys", () => {
  it("adds pk in the direction of the last key", () => {
    expect(toSortKeys(DOMAIN_SORTS, [{ field: "ESTIMATED_SALES", direction: "desc" }], [])).toEqual([
      { field: "estimatedSales", kind: "bigint", nullable: true, dir: "desc" },
      { field: "pk", kind: "int", nullable: false, dir: "desc" },
    ]);
    expect(
      toSortKeys(DOMAIN_SORTS, [{ field: "NAME", direction: "desc" }, { field: "RANK" }], []).map(
        (k) => k.dir,
      ),
    ).toEqual(["desc", "asc", "asc"]);
  });

  it("uses the fallback for no orderBy", () => {
    const fallback = [{ field: "RANK" as const }];
    for (const orderBy of [null, undefined, []]) {
      expect(toSortKeys(DOMAIN_SORTS, orderBy, fallback).map((k) => k.field)).toEqual(["rank", "pk"]);
    }
  });

  it("rejects a field twice and more than 5 fields", () => {
    let e: unknown;
    try {
      toSortKeys(DOMAIN_SORTS, [{ field: "RANK" }, { field: "RANK", direction: "desc" }], []);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(InputError);
    expect((e as InputError).argument).toBe("orderBy[1]");
    expect((e as InputError).problem).toBe("sorts by RANK twice");
    const six = (
      ["RANK", "NAME", "CREATED_AT", "PLATFORM_RANK", "PRODUCT_COUNT", "EMPLOYEE_COUNT"] as const
    ).map((field) => ({ field }));
    expect(() => toSortKeys(DOMAIN_SORTS, six, [])).toThrow("orderBy: takes at most 5 sort fields");
  });
});

// ---------------------------------------------------------------------------------------------
// An in-memory `find` for the subset of Prisma `where` and `orderBy` that keyset.ts produces.

type Value = number | string | bigint | Date | null;
type Row = Record<string, Value>;

function compare(x: Value, y: Value): number {
  if (x === null || y === null) throw new Error("compare() takes known values");
  if (x instanceof Date || y instanceof Date) {
    if (!(x instanceof Date && y instanceof Date))
      throw new Error(`comparing ${String(x)} with ${String(y)}`);
    return Math.sign(x.getTime() - y.getTime());
  }
  if (typeof x !== typeof y) throw new Error(`comparing a ${typeof x} with a ${typeof y}`);
  return x < y ? -1 : x > y ? 1 : 0;
}

const isValue = (v: unknown): v is Value => v === null || v instanceof Date || typeof v !== "object";

function matches(row: Row, where: Where): boolean {
  return Object.entries(where).every(([name, cond]) => {
    if (name === "AND") return (cond as Where[]).every((w) => matches(row, w));
    if (name === "OR") return (cond as Where[]).some((w) => matches(row, w));
    if (name === "NOT") {
      if (Array.isArray(cond) || !cond || typeof cond !== "object") throw new Error("NOT takes one object");
      return !matches(row, cond as Where);
    }
    if (!(name in row)) throw new Error(`unknown field ${name}`);
    const v = row[name];
    // SQL semantics: a comparison with NULL is never true.
    if (isValue(cond)) return cond === null ? v === null : v !== null && compare(v, cond) === 0;
    return Object.entries(cond as Record<string, unknown>).every(([op, x]) => {
      if (op === "not" && x === null) return v !== null;
      if (!isValue(x) || x === null) throw new Error(`unsupported ${op}: ${String(x)}`);
      if (v === null) return false;
      const c = compare(v, x);
      switch (op) {
        case "gt":
          return c > 0;
        case "gte":
          return c >= 0;
        case "lt":
          return c < 0;
        case "lte":
          return c <= 0;
        default:
          throw new Error(`unsupported operator ${op}`);
      }
    });
  });
}

function comparator(orderBy: Where[]) {
  return (r1: Row, r2: Row): number => {
    for (const o of orderBy) {
      const entries = Object.entries(o);
      if (entries.length !== 1) throw new Error("one field per orderBy entry");
      const [field, spec] = entries[0];
      let dir: unknown = spec;
      let nullsLast = false;
      if (typeof spec === "object" && spec !== null) {
        const s = spec as { sort?: unknown; nulls?: unknown };
        if (s.nulls !== "last") throw new Error(`unsupported nulls ${String(s.nulls)}`);
        dir = s.sort;
        nullsLast = true;
      }
      if (dir !== "asc" && dir !== "desc") throw new Error(`unsupported direction ${String(dir)}`);
      const x = r1[field];
      const y = r2[field];
      if (x === undefined || y === undefined) throw new Error(`unknown field ${field}`);
      if (x === null || y === null) {
        if (x === null && y === null) continue;
        // Without a nulls clause SQLite puts NULLs first and PostgreSQL last: the reader must not
        // depend on it.
        if (!nullsLast) throw new Error(`NULL in ${field} ordered without nulls: "last"`);
        return x === null ? 1 : -1;
      }
      const c = compare(x, y);
      if (c !== 0) return dir === "asc" ? c : -c;
    }
    return 0;
  };
}

function memoryFind(rows: Row[]) {
  return async ({ where, orderBy, take }: FindArgs): Promise<Row[]> => {
    if (!Number.isInteger(take) || take < 1) throw new Error(`take ${take}`);
    return rows
      .filter((r) => matches(r, where))
      .sort(comparator(orderBy))
      .slice(0, take);
  };
}

describe("the in-memory evaluator", () => {
  const rows: Row[] = [
    { pk: 1, a: null, c: new Date(5) },
    { pk: 2, a: 3, c: null },
    { pk: 3, a: 1, c: new Date(5) },
  ];
  const pks = async (args: Partial<FindArgs>) =>
    (await memoryFind(rows)({ where: {}, orderBy: [{ pk: "asc" }], take: 10, ...args })).map((r) => r.pk);

  it("filters and orders as Prisma would", async () => {
    expect(await pks({ where: { a: null } })).toEqual([1]);
    expect(await pks({ where: { a: { not: null } } })).toEqual([2, 3]);
    expect(await pks({ where: { a: { gt: 1 } } })).toEqual([2]);
    expect(await pks({ where: { c: new Date(5) } })).toEqual([1, 3]);
    expect(await pks({ where: { OR: [{ a: 1 }, { AND: [{ c: null }, { pk: { lte: 2 } }] }] } })).toEqual([
      2, 3,
    ]);
    expect(await pks({ where: { NOT: { a: 3 } } })).toEqual([1, 3]);
    expect(await pks({ orderBy: [{ a: { sort: "desc", nulls: "last" } }] })).toEqual([2, 3, 1]);
    expect(await pks({ orderBy: [{ a: { sort: "asc", nulls: "last" } }] })).toEqual([3, 2, 1]);
    expect(await pks({ orderBy: [{ pk: "desc" }], take: 2 })).toEqual([3, 2]);
    await expect(pks({ orderBy: [{ a: "asc" }] })).rejects.toThrow("ordered without nulls");
    await expect(pks({ where: { a: { in: [1] } } })).rejects.toThrow("unsupported");
  });
});

// ---------------------------------------------------------------------------------------------

const field = (name: string, kind: SortField["kind"], nullable: boolean): SortField => ({
  field: name,
  kind,
  nullable,
  legacy: [],
  description: name,
});
const SORTS = {
  A: field("a", "int", true),
  B: field("b", "string", false),
  C: field("c", "time", true),
  D: field("d", "bigint", true),
  E: field("e", "float", false),
  F: field("f", "int", false),
};
type SortName = keyof typeof SORTS;
const SORT_NAMES = Object.keys(SORTS) as SortName[];

/** The expected order: each key in its direction with NULLs last, then pk in the last key's direction. */
function referenceOrder(rows: Row[], orderBy: { field: SortName; direction?: Direction }[]): Row[] {
  const spec = orderBy.map((o) => ({ name: SORTS[o.field].field, dir: o.direction ?? "asc" }));
  spec.push({ name: "pk", dir: spec[spec.length - 1].dir });
  return [...rows].sort((r1, r2) => {
    for (const { name, dir } of spec) {
      const x = r1[name];
      const y = r2[name];
      if (x === null && y === null) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      const c = compare(x, y);
      if (c !== 0) return dir === "asc" ? c : -c;
    }
    return 0;
  });
}

const FILTERS: [Where, (r: Row) => boolean][] = [
  [{}, () => true],
  [{ f: { gte: 1 } }, (r) => (r.f as number) >= 1],
  [{ a: { not: null } }, (r) => r.a !== null],
  [{ OR: [{ a: null }, { b: "a" }] }, (r) => r.a === null || r.b === "a"],
  [{ NOT: { c: null } }, (r) => r.c !== null],
];

const day = (i: number) => new Date(Date.UTC(2024, 0, 1 + i));
const rowArb = fc.record({
  a: fc.option(fc.integer({ min: -2, max: 2 }), { nil: null, freq: 3 }),
  b: fc.constantFrom("", "a", "ab", "b", "B"),
  // A new Date object per row: equal times must compare equal although the objects differ.
  c: fc.option(fc.integer({ min: 0, max: 3 }).map(day), { nil: null, freq: 3 }),
  d: fc.option(fc.oneof(fc.bigInt(-2n, 2n), fc.constantFrom(2n ** 62n, -(2n ** 62n))), {
    nil: null,
    freq: 3,
  }),
  e: fc.constantFrom(-1.5, 0, 0.25, 0.5),
  f: fc.integer({ min: 0, max: 2 }),
});
const rowsArb = fc
  .uniqueArray(fc.integer({ min: -1000, max: 1000 }), { maxLength: 40 })
  .chain((pks) => fc.tuple(...pks.map((pk) => rowArb.map((r): Row => ({ pk, ...r })))))
  .map((rows) => rows as Row[]);
const orderByArb = fc
  .uniqueArray(fc.constantFrom(...SORT_NAMES), { minLength: 1, maxLength: 3 })
  .chain((fields) =>
    fc.tuple(
      ...fields.map((f) =>
        fc.record({
          field: fc.constant(f),
          direction: fc.option(fc.constantFrom<Direction>("asc", "desc"), { nil: undefined }),
        }),
      ),
    ),
  );

describe("readPage pages through every row exactly once, in order", () => {
  it("property", async () => {
    await fc.assert(
      fc.asyncProperty(
        rowsArb,
        orderByArb,
        fc.constantFrom(...FILTERS),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 4 }),
        async (rows, orderBy, [where, keep], sizes) => {
          const keys = toSortKeys(SORTS, orderBy, []);
          const expected = referenceOrder(rows.filter(keep), orderBy).map((r) => r.pk);
          const find = memoryFind(rows);
          const seen: Value[] = [];
          let after: KeyValue[] | null = null;
          for (let i = 0; i <= expected.length + 1; i++) {
            const size = sizes[i % sizes.length];
            const page = await readPage(keys, where, after, size, find);
            expect(page.length).toBe(Math.min(size, expected.length - seen.length));
            if (page.length === 0) break;
            seen.push(...page.map((r) => r.pk));
            // As a client would: the position of the last row, through a cursor.
            const cursor = encodeCursor(1, "scope", positionOf(keys, page[page.length - 1]));
            after = decodeCursor(cursor, "after", 1, "scope", keys);
          }
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("with every key nullable and all values NULL", async () => {
    const rows: Row[] = [5, 3, 9, 1].map((pk) => ({ pk, a: null, b: "x", c: null, d: null, e: 0, f: 0 }));
    const orderBy = [
      { field: "A" as const, direction: "desc" as const },
      { field: "C" as const, direction: "asc" as const },
    ];
    const keys = toSortKeys(SORTS, orderBy, []);
    const seen: Value[] = [];
    let after: KeyValue[] | null = null;
    for (let i = 0; i < 10; i++) {
      const page = await readPage(keys, {}, after, 1, memoryFind(rows));
      if (page.length === 0) break;
      seen.push(page[0].pk);
      after = positionOf(keys, page[0]);
    }
    expect(seen).toEqual([1, 3, 5, 9]);
  });
});
