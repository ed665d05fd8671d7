import DataLoader from "dataloader";
import { type Context, servedOf } from "../context.ts";
import type { Prisma } from "../db/client.ts";
import type {
  App,
  AppReview,
  AppReviewDomain,
  Domain,
  DomainApp,
  DomainContact,
  Technology,
} from "../generated/sqlite/client.ts";

/**
 * Per-request batch loaders: every relation and lookup by key is read with one query per batch,
 * so a page costs a constant number of queries whatever its size.
 */
export type DomainRow = Omit<Domain, "mostRecentlyPublishedProduct" | "searchText">;
export type AppRow = Omit<App, "descriptionLong" | "searchText">;

/** Columns read only when their field is selected (api.md: returned on request only). */
export const DOMAIN_OMIT = { mostRecentlyPublishedProduct: true, searchText: true } as const;
export const APP_OMIT = { descriptionLong: true, searchText: true } as const;

function loader<K, V>(
  ctx: Context,
  name: string,
  batch: (prisma: Prisma, keys: readonly K[]) => Promise<V[]>,
) {
  let l = ctx.loaders.get(name) as DataLoader<K, V> | undefined;
  if (!l) {
    const { prisma } = servedOf(ctx);
    // Prisma binds at most 999 parameters per SQLite statement: batches of 500 keys stay under it.
    l = new DataLoader<K, V>((keys) => batch(prisma, keys), { maxBatchSize: 500 });
    ctx.loaders.set(name, l as DataLoader<unknown, unknown>);
  }
  return l;
}

/** Rows grouped under their key, in key order; `[]` for keys without rows. */
function groupBy<K, R>(keys: readonly K[], rows: R[], keyOf: (r: R) => K): R[][] {
  const groups = new Map<K, R[]>(keys.map((k) => [k, []]));
  for (const r of rows) groups.get(keyOf(r))?.push(r);
  return keys.map((k) => groups.get(k) ?? []);
}

function byKey<K, R>(keys: readonly K[], rows: R[], keyOf: (r: R) => K): (R | null)[] {
  const map = new Map(rows.map((r) => [keyOf(r), r]));
  return keys.map((k) => map.get(k) ?? null);
}

const pkIn = (keys: readonly number[]) => ({ in: [...keys] });

/** A Domain by its name or, failing that, its platform domain; keys are lower-case. */
export const domainByName = (ctx: Context) =>
  loader<string, DomainRow | null>(ctx, "domainByName", async (prisma, names) => {
    const rows = await prisma.domain.findMany({
      where: { OR: [{ name: { in: [...names] } }, { platformDomain: { in: [...names] } }] },
      omit: DOMAIN_OMIT,
    });
    const byName = new Map(rows.map((r) => [r.name, r]));
    const byPlatformDomain = new Map(rows.filter((r) => r.platformDomain).map((r) => [r.platformDomain, r]));
    return names.map((n) => byName.get(n) ?? byPlatformDomain.get(n) ?? null);
  });

export const domainByPk = (ctx: Context) =>
  loader<number, DomainRow | null>(ctx, "domainByPk", async (prisma, pks) =>
    byKey(pks, await prisma.domain.findMany({ where: { pk: pkIn(pks) }, omit: DOMAIN_OMIT }), (r) => r.pk),
  );

export const appByPk = (ctx: Context) =>
  loader<number, AppRow | null>(ctx, "appByPk", async (prisma, pks) =>
    byKey(pks, await prisma.app.findMany({ where: { pk: pkIn(pks) }, omit: APP_OMIT }), (r) => r.pk),
  );

/** An App by `<platform>.<token>`. */
export const appByIdentifier = (ctx: Context) =>
  loader<string, AppRow | null>(ctx, "appByIdentifier", async (prisma, ids) => {
    const pairs = ids.map((id) => ({
      platform: id.slice(0, id.indexOf(".")),
      token: id.slice(id.indexOf(".") + 1),
    }));
    const rows = await prisma.app.findMany({ where: { OR: pairs }, omit: APP_OMIT });
    primeApps(ctx, rows);
    return byKey(ids, rows, (r) => `${r.platform}.${r.token}`);
  });

/** An App by its `id`. */
export const appById = (ctx: Context) =>
  loader<string, AppRow | null>(ctx, "appById", async (prisma, ids) => {
    const rows = await prisma.app.findMany({ where: { id: { in: [...ids] } }, omit: APP_OMIT });
    primeApps(ctx, rows);
    return byKey(ids, rows, (r) => r.id);
  });

/** Apps read by another key are known by pk too: AppReview.app then costs no query. */
function primeApps(ctx: Context, rows: AppRow[]): void {
  const byPk = appByPk(ctx);
  for (const r of rows) byPk.prime(r.pk, r);
}

// ---------------------------------------------------------------------- Domain relations

const domainValues = <R>(
  ctx: Context,
  name: string,
  read: (prisma: Prisma, pks: number[]) => Promise<(R & { domainPk: number })[]>,
) =>
  loader<number, R[]>(ctx, name, async (prisma, pks) =>
    groupBy(pks, await read(prisma, [...pks]), (r) => r.domainPk),
  );

export const domainCategories = (ctx: Context) =>
  domainValues(ctx, "domainCategories", (p, pks) =>
    p.domainCategory.findMany({
      where: { domainPk: { in: pks } },
      orderBy: [{ domainPk: "asc" }, { category: "asc" }],
    }),
  );
export const domainFeatures = (ctx: Context) =>
  domainValues(ctx, "domainFeatures", (p, pks) =>
    p.domainFeature.findMany({
      where: { domainPk: { in: pks } },
      orderBy: [{ domainPk: "asc" }, { feature: "asc" }],
    }),
  );
export const domainTags = (ctx: Context) =>
  domainValues(ctx, "domainTags", (p, pks) =>
    p.domainTag.findMany({
      where: { domainPk: { in: pks } },
      orderBy: [{ domainPk: "asc" }, { tag: "asc" }],
    }),
  );
export const domainSalesChannels = (ctx: Context) =>
  domainValues(ctx, "domainSalesChannels", (p, pks) =>
    p.domainSalesChannel.findMany({
      where: { domainPk: { in: pks } },
      orderBy: [{ domainPk: "asc" }, { channel: "asc" }],
    }),
  );
export const domainShipsTo = (ctx: Context) =>
  domainValues(ctx, "domainShipsTo", (p, pks) =>
    p.domainShipsTo.findMany({
      where: { domainPk: { in: pks } },
      orderBy: [{ domainPk: "asc" }, { countryCode: "asc" }],
    }),
  );
export const domainContacts = (ctx: Context) =>
  domainValues<DomainContact>(ctx, "domainContacts", (p, pks) =>
    p.domainContact.findMany({
      where: { domainPk: { in: pks } },
      orderBy: [{ domainPk: "asc" }, { position: "asc" }],
    }),
  );
export const domainTechnologies = (ctx: Context) =>
  domainValues(ctx, "domainTechnologies", (p, pks) =>
    p.domainTechnology.findMany({
      where: { domainPk: { in: pks } },
      orderBy: [{ domainPk: "asc" }, { installedAt: "asc" }, { technologyPk: "asc" }],
    }),
  );

/** Technologies by key: few and shared by many Domains, so read once per distinct key. */
export const technologyByPk = (ctx: Context) =>
  loader<number, Technology | null>(ctx, "technologyByPk", async (prisma, pks) =>
    byKey(pks, await prisma.technology.findMany({ where: { pk: pkIn(pks) } }), (r) => r.pk),
  );
export const domainApps = (ctx: Context) =>
  domainValues<DomainApp>(ctx, "domainApps", (p, pks) =>
    p.domainApp.findMany({
      where: { domainPk: { in: pks } },
      orderBy: [{ domainPk: "asc" }, { installedAt: "asc" }, { appPk: "asc" }],
    }),
  );

export const domainProduct = (ctx: Context) =>
  loader<number, unknown>(ctx, "domainProduct", async (prisma, pks) => {
    const rows = await prisma.domain.findMany({
      where: { pk: pkIn(pks) },
      select: { pk: true, mostRecentlyPublishedProduct: true },
    });
    return byKey(pks, rows, (r) => r.pk).map((r) => r?.mostRecentlyPublishedProduct ?? null);
  });

// ---------------------------------------------------------------------- App relations

const appValues = <R>(
  ctx: Context,
  name: string,
  read: (prisma: Prisma, pks: number[]) => Promise<(R & { appPk: number })[]>,
) =>
  loader<number, R[]>(ctx, name, async (prisma, pks) =>
    groupBy(pks, await read(prisma, [...pks]), (r) => r.appPk),
  );

export const appCategories = (ctx: Context) =>
  appValues(ctx, "appCategories", (p, pks) =>
    p.appCategory.findMany({
      where: { appPk: { in: pks } },
      orderBy: [{ appPk: "asc" }, { category: "asc" }],
    }),
  );
export const appPlans = (ctx: Context) =>
  appValues(ctx, "appPlans", (p, pks) =>
    p.appPlan.findMany({ where: { appPk: { in: pks } }, orderBy: [{ appPk: "asc" }, { position: "asc" }] }),
  );
export const appIntegrations = (ctx: Context) =>
  appValues(ctx, "appIntegrations", (p, pks) =>
    p.appIntegration.findMany({
      where: { appPk: { in: pks } },
      orderBy: [{ appPk: "asc" }, { position: "asc" }],
    }),
  );
export const appInstallsSeries = (ctx: Context) =>
  appValues(ctx, "appInstallsSeries", (p, pks) =>
    p.appInstallsPoint.findMany({
      where: { appPk: { in: pks } },
      orderBy: [{ appPk: "asc" }, { date: "asc" }],
    }),
  );
export const appDescriptionLong = (ctx: Context) =>
  loader<number, string | null>(ctx, "appDescriptionLong", async (prisma, pks) => {
    const rows = await prisma.app.findMany({
      where: { pk: pkIn(pks) },
      select: { pk: true, descriptionLong: true },
    });
    return byKey(pks, rows, (r) => r.pk).map((r) => r?.descriptionLong ?? null);
  });

// ---------------------------------------------------------------------- Review relations

export const reviewDomains = (ctx: Context) =>
  loader<number, AppReviewDomain[]>(ctx, "reviewDomains", async (prisma, pks) =>
    groupBy(
      pks,
      await prisma.appReviewDomain.findMany({
        where: { reviewPk: pkIn(pks) },
        orderBy: [{ reviewPk: "asc" }, { position: "asc" }],
      }),
      (r) => r.reviewPk,
    ),
  );

export const reviewByPk = (ctx: Context) =>
  loader<number, AppReview | null>(ctx, "reviewByPk", async (prisma, pks) =>
    byKey(pks, await prisma.appReview.findMany({ where: { pk: pkIn(pks) } }), (r) => r.pk),
  );
