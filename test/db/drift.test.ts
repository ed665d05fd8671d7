/**
 * The SQL migrations (prisma/migrations/<provider>/) against the Prisma model: they must build
 * exactly its tables, columns and indexes, apply idempotently and in phases, and hold what the
 * generated clients write.
 */
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  applyPgMigrations,
  applySqliteMigrations,
  type MigrationPhase,
  type MigrationSet,
} from "../../src/db/migrate.ts";
import { DATAMODEL } from "../../src/generated/model.ts";
import { PrismaClient as PgPrismaClient } from "../../src/generated/postgresql/client.ts";
import { PrismaClient } from "../../src/generated/sqlite/client.ts";
import { fromRoot } from "../../src/root.ts";
import {
  createTestDatabase,
  type DatabaseKind,
  databaseKinds,
  type TestDatabase,
} from "../support/databases.ts";
import {
  compareModelWithDatabase,
  type Datamodel,
  type DbTable,
  introspectPg,
  introspectSqlite,
} from "./drift.ts";

/** The models whose tables live in the meta set; every other model is in the snapshot set. */
const META_MODELS = [
  "Snapshot",
  "ExportJob",
  "ExportChunk",
  "ApiKey",
  "ChangeEvent",
  "ChangeFeed",
  "DomainList",
  "DomainListItem",
  "Segment",
  "SegmentLoad",
  "Webhook",
  "WebhookDelivery",
  "FacetTrend",
];

/** A database of one set: "meta", or the snapshot copy of that version. */
type Target = "meta" | number;

/** The same operations on either database, so the tests below are written once. */
interface Harness {
  migrate(target: Target, phase?: MigrationPhase): Promise<string[]>;
  introspect(target: Target): Promise<DbTable[]>;
  exec(target: Target, sql: string): Promise<void>;
  /** One raw row, for checking how values are stored. */
  queryOne(target: Target, sql: string): Promise<Record<string, unknown>>;
  /** The two generated clients have the same API; tests use the SQLite client's type for both. */
  prisma(target: Target): PrismaClient;
  close(): Promise<void>;
}

const setOf = (target: Target): MigrationSet => (target === "meta" ? "meta" : "snapshot");

async function openHarness(db: TestDatabase): Promise<Harness> {
  const { database } = db.config;
  if (database.kind === "sqlite") {
    // The storage layout: state.db for meta, snapshots/snapshot-<version>.db per copy.
    const pathOf = (target: Target) =>
      target === "meta"
        ? join(database.dataDir, "state.db")
        : join(database.dataDir, "snapshots", `snapshot-${target}.db`);
    mkdirSync(join(database.dataDir, "snapshots"), { recursive: true });
    const withDb = <T>(target: Target, fn: (d: Database.Database) => T): T => {
      const d = new Database(pathOf(target));
      d.defaultSafeIntegers(true);
      try {
        return fn(d);
      } finally {
        d.close();
      }
    };
    return {
      migrate: async (target, phase) => withDb(target, (d) => applySqliteMigrations(d, setOf(target), phase)),
      introspect: async (target) => withDb(target, introspectSqlite),
      exec: async (target, sql) => withDb(target, (d) => void d.exec(sql)),
      queryOne: async (target, sql) => withDb(target, (d) => d.prepare(sql).get() as Record<string, unknown>),
      prisma: (target) =>
        new PrismaClient({
          adapter: new PrismaBetterSqlite3(
            { url: `file:${pathOf(target)}` },
            { timestampFormat: "unixepoch-ms" },
          ),
        }),
      close: async () => undefined,
    };
  }
  // The storage layout: schema storegraph for meta, storegraph_snapshot_<version> per copy.
  const schemaOf = (target: Target) => (target === "meta" ? "storegraph" : `storegraph_snapshot_${target}`);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  return {
    migrate: (target, phase) => applyPgMigrations(client, schemaOf(target), setOf(target), phase),
    introspect: (target) => introspectPg(client, schemaOf(target)),
    exec: async (target, sql) => {
      await client.query(`SET search_path TO "${schemaOf(target)}"`);
      await client.query(sql);
    },
    queryOne: async (target, sql) => {
      await client.query(`SET search_path TO "${schemaOf(target)}"`);
      return (await client.query(sql)).rows[0];
    },
    prisma: (target) =>
      new PgPrismaClient({
        adapter: new PrismaPg({ connectionString: database.url }, { schema: schemaOf(target) }),
      }) as unknown as PrismaClient,
    close: () => client.end(),
  };
}

let datamodel: Datamodel;
let snapshotModels: string[];

beforeAll(() => {
  // Prisma's own reading of prisma/schema.prisma, kept by `npm run generate` (the generated code is
  // current: test/db/generated.test.ts).
  datamodel = DATAMODEL;
  snapshotModels = datamodel.models.map((m) => m.name).filter((name) => !META_MODELS.includes(name));
});

/** The migration files of a set, in the order they apply: a new one needs no edit here. */
const migrationsOf = (kind: DatabaseKind, set: "meta" | "snapshot") =>
  readdirSync(fromRoot(`prisma/migrations/${kind}/${set}`))
    .filter((f) => f.endsWith(".sql"))
    .sort();

describe("migration files", () => {
  it.each(["meta", "snapshot"] as const)("%s: SQLite and PostgreSQL have the same migrations", (set) => {
    expect(migrationsOf("sqlite", set)).toEqual(migrationsOf("postgresql", set));
    expect(migrationsOf("sqlite", set).length).toBeGreaterThan(0);
  });
});

describe.each(databaseKinds())("migrations on %s", (kind: DatabaseKind) => {
  let db: TestDatabase;
  let h: Harness;
  const compare = async (target: Target) =>
    compareModelWithDatabase(
      datamodel,
      target === "meta" ? META_MODELS : snapshotModels,
      kind,
      await h.introspect(target),
    );

  beforeEach(async () => {
    db = await createTestDatabase(kind);
    h = await openHarness(db);
  });
  afterEach(async () => {
    await h.close();
    await db.drop();
  });

  it("build exactly the tables, columns, indexes and foreign keys of the model", async () => {
    expect(await h.migrate("meta")).toEqual(migrationsOf(kind, "meta"));
    expect(await h.migrate(1)).toEqual(migrationsOf(kind, "snapshot"));
    // Each comparison also reports tables of the other set, so this checks the split too.
    expect(await compare("meta")).toEqual([]);
    expect(await compare(1)).toEqual([]);
  });

  it("reports a dropped column, a dropped index and an extra column by name", async () => {
    await h.migrate(1);
    await h.exec(1, `ALTER TABLE "app" DROP COLUMN "vendor_website"`);
    await h.exec(1, `DROP INDEX "domain_rank_pk_idx"`);
    await h.exec(1, `ALTER TABLE "technology" ADD COLUMN "extra" TEXT`);
    expect(await compare(1)).toEqual([
      `App.vendorWebsite: column "app"."vendor_website" is missing`,
      `Domain @@index([rank, pk]): no non-unique index on "domain" (rank, pk)`,
      `Technology: column "technology"."extra" is not in the model`,
    ]);
  });

  it("are idempotent", async () => {
    await h.migrate("meta");
    await h.migrate(1);
    const before = [await h.introspect("meta"), await h.introspect(1)];
    expect(await h.migrate("meta")).toEqual([]);
    expect(await h.migrate(1)).toEqual([]);
    expect(await h.migrate(1, "before-load")).toEqual([]);
    expect(await h.migrate(1, "after-load")).toEqual([]);
    expect([await h.introspect("meta"), await h.introspect(1)]).toEqual(before);
  });

  it("apply in two phases around the bulk load", async () => {
    await expect(h.migrate(1, "after-load")).rejects.toThrow(/before-load/);
    expect(await h.migrate(1, "before-load")).toEqual(migrationsOf(kind, "snapshot"));
    expect(await h.queryOne(1, `SELECT "state" FROM "_migration" WHERE "name" = '0001_init.sql'`)).toEqual({
      state: "half-applied",
    });
    // Tables and primary keys exist; only secondary indexes (and PostgreSQL foreign keys) wait.
    const pending = await compare(1);
    expect(pending.length).toBeGreaterThan(0);
    expect(
      pending.filter((p) => !/: no (non-)?unique index on |: foreign key .* is missing$/.test(p)),
    ).toEqual([]);
    expect(await h.migrate(1, "before-load")).toEqual([]);
    expect(await h.migrate(1, "after-load")).toEqual(migrationsOf(kind, "snapshot"));
    expect(await h.queryOne(1, `SELECT "name" FROM "_migration" WHERE "state" <> 'applied'`)).toBeFalsy();
    expect(await compare(1)).toEqual([]);
  });

  it("hold one row of every model as the generated client writes and reads it", async () => {
    await h.migrate("meta");
    await h.migrate(1);
    const at = new Date("2024-02-29T12:34:56.789Z");
    const huge = 2n ** 62n + 1n; // beyond Number's exact range

    const meta = h.prisma("meta");
    const snap = h.prisma(1);
    try {
      const snapshot = {
        status: "ready",
        startedAt: at,
        finishedAt: null,
        location: "snapshot-1.db",
        source: "t",
      };
      const created = await meta.snapshot.create({ data: snapshot });
      expect(created.version).toBe(1);
      expect(await meta.snapshot.findUniqueOrThrow({ where: { version: 1 } })).toEqual({
        ...snapshot,
        version: 1,
        apps: 0,
        domains: 0,
        reviews: 0,
        error: null,
      });

      // Parents first: better-sqlite3 enforces foreign keys by default.
      const rows = {
        SnapshotInfo: { version: 1, loadedAt: at, source: "t" },
        App: {
          pk: 1,
          id: "app-1",
          platform: "shopify",
          token: "tok",
          name: "App",
          description: "d",
          descriptionLong: null,
          appStoreUrl: "https://apps.example/app",
          iconUrl: "https://apps.example/icon.png",
          averageRating: "4.5",
          averageRatingSort: 4.5,
          reviewCount: 3,
          state: "active",
          createdAt: at,
          removedAt: null,
          installs: 10,
          instp: 0.25,
          vendorName: "Vendor",
          searchText: "app d",
        },
        Domain: {
          pk: 1,
          name: "example.com",
          tld1: "com",
          state: "active",
          platform: "shopify",
          createdAt: at,
          createdWeek: new Date("2024-02-23T00:00:00.000Z"),
          rank: 1,
          rankPercentile: 0.5,
          platformRank: 2,
          platformRankPercentile: 0.25,
          estimatedSales: huge,
          avgPrice: -5n,
          aliases: ["www.example.com"],
          keywords: "shoes",
          mostRecentlyPublishedProduct: {
            title: "Shoe",
            handle: "shoe",
            product_id: 7,
            published_at: at.toISOString(),
          },
          searchText: "example.com",
        },
        Technology: {
          pk: 1,
          name: "Klaviyo",
          description: "d",
          vendorUrl: "u",
          iconUrl: "i",
          installs: 5,
          categories: ["email"],
        },
        AppCategory: { appPk: 1, category: "marketing" },
        AppPlan: { appPk: 1, position: 0, name: "Free", monthlyCost: "$0", monthlyCostCents: 0 },
        AppIntegration: { appPk: 1, position: 0, value: "Checkout" },
        AppInstallsPoint: { appPk: 1, date: new Date("2024-01-05T00:00:00.000Z"), installs: 7 },
        AppReview: { pk: 1, appPk: 1, updatedAt: at, body: "Great", merchantName: "Shop", rating: 5 },
        AppReviewDomain: { reviewPk: 1, position: 0, name: "example.com", platformDomain: null, domainPk: 1 },
        DomainCategory: { domainPk: 1, category: "/Apparel" },
        DomainFeature: { domainPk: 1, feature: "reviews" },
        DomainTag: { domainPk: 1, tag: "fast" },
        DomainSalesChannel: { domainPk: 1, channel: "pos" },
        DomainShipsTo: { domainPk: 1, countryCode: "US" },
        DomainContact: {
          domainPk: 1,
          position: 0,
          type: "email",
          value: "a@example.com",
          source: "s",
          followers: 3,
        },
        DomainTechnology: { domainPk: 1, technologyPk: 1, installedAt: at },
        DomainApp: { domainPk: 1, appPk: 1, installedAt: at, removedAt: null },
      };
      // Written one model at a time so a failure names the model.
      const roundTrips: Record<keyof typeof rows, () => Promise<unknown>> = {
        SnapshotInfo: () =>
          snap.snapshotInfo
            .create({ data: rows.SnapshotInfo })
            .then(() => snap.snapshotInfo.findFirstOrThrow()),
        App: () => snap.app.create({ data: rows.App }).then(() => snap.app.findFirstOrThrow()),
        Domain: () => snap.domain.create({ data: rows.Domain }).then(() => snap.domain.findFirstOrThrow()),
        Technology: () =>
          snap.technology.create({ data: rows.Technology }).then(() => snap.technology.findFirstOrThrow()),
        AppCategory: () =>
          snap.appCategory.create({ data: rows.AppCategory }).then(() => snap.appCategory.findFirstOrThrow()),
        AppPlan: () =>
          snap.appPlan.create({ data: rows.AppPlan }).then(() => snap.appPlan.findFirstOrThrow()),
        AppIntegration: () =>
          snap.appIntegration
            .create({ data: rows.AppIntegration })
            .then(() => snap.appIntegration.findFirstOrThrow()),
        AppInstallsPoint: () =>
          snap.appInstallsPoint
            .create({ data: rows.AppInstallsPoint })
            .then(() => snap.appInstallsPoint.findFirstOrThrow()),
        AppReview: () =>
          snap.appReview.create({ data: rows.AppReview }).then(() => snap.appReview.findFirstOrThrow()),
        AppReviewDomain: () =>
          snap.appReviewDomain
            .create({ data: rows.AppReviewDomain })
            .then(() => snap.appReviewDomain.findFirstOrThrow()),
        DomainCategory: () =>
          snap.domainCategory
            .create({ data: rows.DomainCategory })
            .then(() => snap.domainCategory.findFirstOrThrow()),
        DomainFeature: () =>
          snap.domainFeature
            .create({ data: rows.DomainFeature })
            .then(() => snap.domainFeature.findFirstOrThrow()),
        DomainTag: () =>
          snap.domainTag.create({ data: rows.DomainTag }).then(() => snap.domainTag.findFirstOrThrow()),
        DomainSalesChannel: () =>
          snap.domainSalesChannel
            .create({ data: rows.DomainSalesChannel })
            .then(() => snap.domainSalesChannel.findFirstOrThrow()),
        DomainShipsTo: () =>
          snap.domainShipsTo
            .create({ data: rows.DomainShipsTo })
            .then(() => snap.domainShipsTo.findFirstOrThrow()),
        DomainContact: () =>
          snap.domainContact
            .create({ data: rows.DomainContact })
            .then(() => snap.domainContact.findFirstOrThrow()),
        DomainTechnology: () =>
          snap.domainTechnology
            .create({ data: rows.DomainTechnology })
            .then(() => snap.domainTechnology.findFirstOrThrow()),
        DomainApp: () =>
          snap.domainApp.create({ data: rows.DomainApp }).then(() => snap.domainApp.findFirstOrThrow()),
      };
      // A new snapshot model must be added here.
      expect(Object.keys(rows).sort()).toEqual([...snapshotModels].sort());
      for (const [model, roundTrip] of Object.entries(roundTrips)) {
        const read = await roundTrip();
        expect(read, model).toMatchObject(rows[model as keyof typeof rows]);
      }
      // Optional fields left out read back as null.
      expect(await snap.domain.findFirstOrThrow()).toMatchObject({
        plan: null,
        redirectsTo: null,
        avgPriceUsd: null,
      });

      // How the values are stored: what other readers of the files and schemas rely on.
      const stored = await h.queryOne(
        1,
        kind === "sqlite"
          ? `SELECT typeof("created_at") AS type, "created_at" AS created_at, "estimated_sales" AS sales FROM "domain"`
          : `SELECT "created_at"::text AS created_at, "estimated_sales"::text AS sales FROM "domain"`,
      );
      expect(stored).toEqual(
        kind === "sqlite"
          ? { type: "integer", created_at: BigInt(at.getTime()), sales: huge }
          : { created_at: "2024-02-29 12:34:56.789", sales: huge.toString() },
      );
    } finally {
      await meta.$disconnect();
      await snap.$disconnect();
    }
  });
});
