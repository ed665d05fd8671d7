import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "../../src/context.ts";
import { CHILD_ROWS_TABLE, DOMAIN_CHILDREN, type DomainChild } from "../../src/db/domain-children.ts";
import { columnsOf, selectList, toModel } from "../../src/db/model-rows.ts";
import { openSnapshotReader, type SqlReader } from "../../src/db/reader.ts";
import { TABLES, type TableKey } from "../../src/db/tables.ts";
import { Prisma } from "../../src/generated/sqlite/client.ts";
import {
  plannedApp,
  plannedRows,
  plannedTechnology,
  readPlannedDomains,
} from "../../src/query/domain-read/read.ts";
import { DOMAIN_OMITTED, READS } from "../../src/query/loaders.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { writeSnapshotDir } from "../support/fixture.ts";
import { manyDomainsFixture } from "../support/fixture-graphql.ts";
import { openSnapshotClient } from "../support/prisma.ts";

/**
 * The hand-written reads of src/db/reader.ts stand in for Prisma on the hot paths: their rows must
 * be exactly Prisma's (field names, Date, BigInt, parsed JSON, nulls), table by table.
 */
const SNAPSHOT_TABLES = (Object.keys(TABLES) as TableKey[]).filter((t) => t !== "snapshotInfo");

/** Prisma's delegate for a table key (the keys of TABLES are the model names, camel-cased). */
type Delegate = { findMany(args: object): Promise<Record<string, unknown>[]> };

describe("column names", () => {
  it.each(SNAPSHOT_TABLES)("%s: every column maps to its Prisma field", (table) => {
    const model = `${table[0].toUpperCase()}${table.slice(1)}ScalarFieldEnum` as keyof typeof Prisma;
    const fields = Object.keys(Prisma[model] as Record<string, string>).sort();
    expect([...TABLES[table].fields].sort()).toEqual(fields);
  });
});

describe.each(databaseKinds())("reads on %s", (kind) => {
  let api: TestApi;
  const tmp = tempDir("storegraph-reader-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), manyDomainsFixture(20)));
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  it.each(SNAPSHOT_TABLES)("%s: the rows equal Prisma's", async (table) => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    const columns = columnsOf(table);
    // Ordered by every column but JSON ones (PostgreSQL's JSON, unlike JSONB, has no order): each
    // table's key is among the others.
    const ordered = columns.filter((c) => c.kind !== "json");
    const key = ordered.map((c) => `"${c.column}"`).join(", ");
    const raw = await served.sql.all(
      `SELECT ${selectList(columns)} FROM ${served.sql.table(TABLES[table].name)} ORDER BY ${key}`,
      [],
    );
    const ours = toModel<Record<string, unknown>>(columns, raw);
    const prisma = openSnapshotClient(api.db.config, served.snapshot);
    const delegate = (prisma as unknown as Record<string, Delegate>)[table];
    const theirs = await delegate.findMany({ orderBy: ordered.map((c) => ({ [c.field]: "asc" })) });
    expect(ours.length).toBeGreaterThan(0);
    expect(ours).toEqual(theirs);
    await prisma.$disconnect();
  });

  it("anyOf matches a batch of keys with one statement, whatever its size", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    const { sql } = served;
    const text = `SELECT "pk" FROM ${sql.table("domain")} WHERE ${sql.anyOf('"pk"', 1)} ORDER BY "pk"`;
    const all = (await sql.all(`SELECT "pk" FROM ${sql.table("domain")} ORDER BY "pk"`, [])).map(
      ([pk]) => pk as number,
    );
    const some = all.filter((_pk, i) => i % 3 === 0);
    const rows = await sql.all(text, [sql.keysParam([...some, -1])]);
    expect(rows.map(([pk]) => pk)).toEqual(some);
    expect(await sql.all(text, [sql.keysParam([])])).toEqual([]);
  });

  it("streams a query through one cursor in batches, and lets its connection go however it ends", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    const { sql } = served;
    const text = `SELECT "pk" FROM ${sql.table("domain")} WHERE "pk" > $1 ORDER BY "pk"`;
    const all = (await sql.all(text, [0])).map(([pk]) => pk);
    expect(all.length).toBeGreaterThan(12);
    const batches: unknown[][] = [];
    for await (const batch of sql.stream(text, [0], 6)) batches.push(batch.map(([pk]) => pk));
    const sizes = Array.from({ length: Math.ceil(all.length / 6) }, (_, i) =>
      Math.min(6, all.length - 6 * i),
    );
    expect(batches.map((b) => b.length)).toEqual(sizes);
    expect(batches.flat()).toEqual(all);
    // Stopped after a batch: the cursor closes, and (PostgreSQL) no transaction is left open.
    for await (const batch of sql.stream(text, [0], 6)) {
      expect(batch).toHaveLength(6);
      break;
    }
    await expect(
      (async () => {
        for await (const _ of sql.stream(`SELECT * FROM ${sql.table("no_such_table")}`, [], 6)) {
          // never reached
        }
      })(),
    ).rejects.toThrow(/no_such_table/);
    if (kind === "postgresql") {
      const open = await sql.all(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
        [],
      );
      expect(Number(open[0][0])).toBe(0);
    }
    // Nothing was left holding the reader: it still answers.
    expect((await sql.all(text, [0])).length).toBe(all.length);
  });

  it.runIf(kind === "postgresql")(
    "plans a stream's cursor for reading every row, and only within it (PostgreSQL)",
    async () => {
      const served = await api.snapshots.current();
      if (!served) throw new Error("no snapshot");
      const { sql } = served;
      // PostgreSQL plans a cursor for its first tenth by default (cursor_tuple_fraction 0.1): a
      // rank-ordered export then walked the rank index into a scattered heap, 3× slower.
      const setting = "SELECT current_setting('cursor_tuple_fraction')";
      const within: unknown[] = [];
      for await (const batch of sql.stream(setting, [], 10)) within.push(...batch.map(([v]) => v));
      expect(within).toEqual(["1"]);
      // Set for the stream's transaction only: the pool's connections keep the server's own value.
      const [[own]] = await sql.all(
        "SELECT reset_val FROM pg_settings WHERE name = 'cursor_tuple_fraction'",
        [],
      );
      expect(own).not.toBe("1");
      expect((await sql.all(setting, [], { planEach: true }))[0][0]).toBe(own);
    },
  );

  /** A planned read of `sql`'s snapshot gives what the loaders' reads give. */
  async function plannedReadsMatch(sql: SqlReader): Promise<void> {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    const all = (await sql.all(`SELECT "name" FROM ${sql.table("domain")} ORDER BY "name" DESC`, [])).map(
      ([n]) => n as string,
    );
    const children = Object.keys(DOMAIN_CHILDREN) as DomainChild[];
    const reads: Record<DomainChild, (pks: number[]) => Promise<unknown[][]>> = {
      categories: (pks) => READS.domainCategories(sql, pks),
      features: (pks) => READS.domainFeatures(sql, pks),
      tags: (pks) => READS.domainTags(sql, pks),
      salesChannels: (pks) => READS.domainSalesChannels(sql, pks),
      shipsToCountries: (pks) => READS.domainShipsTo(sql, pks),
      contactInfo: (pks) => READS.domainContacts(sql, pks),
      technologies: (pks) => READS.domainTechnologies(sql, pks),
      apps: (pks) => READS.domainApps(sql, pks),
    };
    /** An object's own string-keyed fields (a planned row also carries symbol-keyed ones). */
    const plain = (o: object) => Object.fromEntries(Object.entries(o));
    // A page, a page with a name the snapshot lacks, one name, and some columns only.
    const cases: [string[], string[] | null][] = [
      [all, null],
      [[all[3], "missing.example.com", all[0]], null],
      [[all[5]], null],
      [all.slice(0, 7), ["name", "pk", "rank"]],
    ];
    let seen = 0;
    for (const [names, fields] of cases) {
      const ctx = { served, loaders: new Map() } as unknown as Context;
      const planned = await readPlannedDomains(ctx, sql, "name", names, { fields, children });
      const omit = fields
        ? columnsOf("domain")
            .map((c) => c.field)
            .filter((f) => !fields.includes(f))
        : DOMAIN_OMITTED;
      const columns = columnsOf("domain", omit);
      const text = `SELECT ${selectList(columns)} FROM ${sql.table("domain")} WHERE ${sql.anyOf('"name"', 1)}`;
      const rows = toModel<{ pk: number; name: string }>(
        columns,
        await sql.all(text, [sql.keysParam(names)]),
      );
      const byName = (a: Record<string, unknown>, b: Record<string, unknown>) =>
        String(a.name).localeCompare(String(b.name));
      expect(planned.map(plain).sort(byName)).toEqual(rows.sort(byName));
      for (const row of planned) {
        for (const child of children) {
          const [expected] = await reads[child]([row.pk]);
          const got = plannedRows<Record<string | symbol, unknown>>(row, child) ?? [];
          expect(got.map(plain), child).toEqual(expected);
          seen += got.length;
          for (const r of got) {
            if (child === "apps") expect(plannedApp(r as never)?.pk).toBe(r.appPk);
            if (child === "technologies") expect(plannedTechnology(r as never)?.pk).toBe(r.technologyPk);
          }
        }
      }
      const ctx2 = { served, loaders: new Map() } as unknown as Context;
      const some = await readPlannedDomains(ctx2, sql, "name", names, { fields, children: ["apps"] });
      for (const row of some) expect(plannedRows(row, "features")).toBeUndefined();
    }
    // The fixture's Domains have rows in their child tables (times among them: installs).
    expect(seen).toBeGreaterThan(50);
  }

  it("a planned read gives what the loaders' reads give: the rows, and each child's rows per Domain", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    // A snapshot keeps its Domains' child rows once loaded, and the planned reads join them.
    const statements: string[] = [];
    const sql = openSnapshotReader(api.db.config, served.snapshot, { onQuery: (q) => statements.push(q) });
    try {
      await plannedReadsMatch(sql);
      expect(statements.some((q) => q.includes(CHILD_ROWS_TABLE))).toBe(true);
    } finally {
      await sql.close();
    }
  });

  it("reads made together give each what its own statement gives, and on PostgreSQL are one statement", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    const statements: string[] = [];
    const sql = openSnapshotReader(api.db.config, served.snapshot, { onQuery: (q) => statements.push(q) });
    try {
      const some = await sql.all(
        `SELECT "name", "platform_domain", "pk" FROM ${sql.table("domain")} d WHERE "platform_domain" IS NOT NULL ORDER BY "name" LIMIT 6`,
        [],
      );
      expect(some.length).toBe(6);
      const names = some.map((r) => String(r[0]));
      // By name, by platform domain, a name asked twice, names the dataset does not have, and reads
      // of several keys (one whose name and platform domain are the same Domain's).
      const keys: string[][] = [
        ...names.map((n) => [n]),
        [String(some[0]?.[1])],
        [names[2] as string],
        ["nowhere.example"],
        ["nowhere.example"],
        [names[3] as string, names[4] as string, "nowhere.example"],
        [names[0] as string, String(some[0]?.[1])],
      ];
      const read = {
        fields: ["pk", "name", "platformDomain", "state", "rank"],
        children: ["apps"] as DomainChild[],
      };
      const plain = (o: object) => Object.fromEntries(Object.entries(o));
      const plainRows = (rows: Record<string | symbol, unknown>[]) =>
        rows
          .map(
            (r): Record<string, unknown> => ({
              ...plain(r),
              apps: (plannedRows<object>(r, "apps") ?? []).map(plain),
            }),
          )
          .sort((a, b) => String(a.name).localeCompare(String(b.name)));
      const ctx = () => ({ served, loaders: new Map() }) as unknown as Context;
      // One at a time: each is read by its own statement.
      const alone: unknown[] = [];
      for (const k of keys)
        alone.push(plainRows(await readPlannedDomains(ctx(), sql, "nameOrPlatformDomain", k, read)));
      statements.length = 0;
      const together = await Promise.all(
        keys.map(async (k) =>
          plainRows(await readPlannedDomains(ctx(), sql, "nameOrPlatformDomain", k, read)),
        ),
      );
      expect(together).toEqual(alone);
      expect(alone[names.length + 2]).toEqual([]);
      expect((alone[0] as unknown[]).length).toBe(1);
      expect((alone.at(-2) as unknown[]).length).toBe(2);
      expect((alone.at(-1) as unknown[]).length).toBe(1);
      if (kind === "postgresql") expect(statements.length).toBe(1);
      // By key, too.
      const pks = some.map((r) => Number(r[2]));
      const byPk = await Promise.all(
        [...pks.map((pk) => [pk]), [pks[0] as number, pks[1] as number]].map((k) =>
          readPlannedDomains(ctx(), sql, "pk", k, read),
        ),
      );
      expect(byPk.map((rows) => rows.map((r) => r.name).sort())).toEqual([
        ...names.map((n) => [n]),
        [names[0], names[1]].sort(),
      ]);
      // A statement that fails fails every read it was for.
      const broken = Object.assign(Object.create(sql) as SqlReader, {
        all: async () => {
          throw new Error("the database went away");
        },
      });
      const failed = await Promise.allSettled(
        names.map((n) =>
          readPlannedDomains(ctx(), broken, "name", [n], { fields: read.fields, children: [] }),
        ),
      );
      expect(failed.map((f) => f.status)).toEqual(names.map(() => "rejected"));
    } finally {
      await sql.close();
    }
  });
});
