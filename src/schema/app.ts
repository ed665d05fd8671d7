import { servedOf } from "../context.ts";
import { notFound } from "../errors.ts";
import type { AppCategory, AppIntegration, AppPlan } from "../generated/sqlite/client.ts";
import {
  APP_LIST_FILTERS,
  APP_RANGE_FILTERS,
  type AppFilter as AppFilterShape,
  toAppWhere,
} from "../query/app-filter.ts";
import { AppSet } from "../query/app-set.ts";
import { allOf } from "../query/filter.ts";
import {
  type AppRow,
  appById,
  appByIdentifier,
  appByPk,
  appCategories,
  appDescriptionLong,
  appInstallsSeries,
  appIntegrations,
  appPlans,
} from "../query/loaders.ts";
import { connectionPage, DEFAULT_PAGE_SIZE } from "../query/page.ts";
import { searchCondition } from "../query/search.ts";
import { APP_SORTS, type Order, toSortKeys } from "../query/sort.ts";
import { builder, legacy, pagedComplexity, rateLimited, SortDirection } from "./builder.ts";
import { connectionOf, offsetArg, pageArgs, selectsPage } from "./connection.ts";
import { filterFields } from "./filter.ts";

export const App = builder.objectRef<AppRow>("App");

/** What the App's relation fields resolve to, given the rows of their batch reads. */
const APP_RELATIONS = {
  categories: (rows: AppCategory[]) => rows.map((c) => c.category),
  plans: (rows: AppPlan[]) => rows,
  integratesWith: (rows: AppIntegration[]) => (rows.length ? rows.map((r) => r.value) : null),
  descriptionLong: (text: string | null) => text,
};

/** `shape` of a value, at once when it is known (no promise), else once it is. */
const then = <V, T>(value: V | Promise<V>, shape: (v: V) => T): T | Promise<T> =>
  value instanceof Promise ? value.then(shape) : shape(value);

const Plan = builder
  .objectRef<{ name: string; monthlyCost: string; monthlyCostCents: number | null }>("Plan")
  .implement({
    description: "A pricing plan of an App.",
    fields: (t) => ({
      name: t.exposeString("name", legacy("name")),
      monthlyCost: t.exposeString("monthlyCost", {
        description: "Display text; free plans carry a label such as Free.",
        ...legacy("monthly_cost"),
      }),
      monthlyCostCents: t.exposeInt("monthlyCostCents", {
        nullable: true,
        description: "Monthly cost in cents; null for free plans.",
        ...legacy("monthly_cost_cents"),
      }),
    }),
  });

const InstallsPoint = builder.objectRef<{ date: Date; installs: number }>("InstallsPoint").implement({
  fields: (t) => ({
    date: t.expose("date", { type: "Date", ...legacy("date") }),
    installs: t.exposeInt("installs", legacy("installs")),
  }),
});

export const AppSortField = builder.enumType("AppSortField", {
  values: Object.fromEntries(
    Object.entries(APP_SORTS).map(([k, s]) => [k, { description: s.description, ...legacy(s.legacy[0]) }]),
  ) as unknown as Record<keyof typeof APP_SORTS, { description: string }>,
});

export const AppOrder = builder.inputRef<Order<keyof typeof APP_SORTS>>("AppOrder").implement({
  fields: (t) => ({
    field: t.field({ type: AppSortField, required: true }),
    direction: t.field({ type: SortDirection, defaultValue: "asc" }),
  }),
});

export const AppFilter = builder.inputRef<AppFilterShape>("AppFilter").implement({
  description: "App filters (docs/api.md 4.3); all given filters must match.",
  fields: (t) => filterFields(t, APP_LIST_FILTERS, APP_RANGE_FILTERS),
});

const DEFAULT_APP_ORDER: Order<keyof typeof APP_SORTS>[] = [{ field: "INSTALLS", direction: "desc" }];

builder.node(App, {
  description: "An app that a store can install through its platform's app store.",
  id: { resolve: (a) => a.id },
  loadMany: (ids, ctx) => Promise.all(ids.map((id) => appById(ctx).load(id))),
  fields: (t) => ({
    appId: t.exposeString("id", { description: "The App's own identifier.", ...legacy("id") }),
    token: t.exposeString("token", {
      description: "Identifies the App among the Apps of its platform.",
      ...legacy("token"),
    }),
    platform: t.exposeString("platform", legacy("platform")),
    name: t.exposeString("name", legacy("name")),
    description: t.exposeString("description", legacy("description")),
    descriptionLong: t.string({
      nullable: true,
      description: "Long description; read only when selected.",
      ...legacy("description_long", { onRequest: true }),
      resolve: async (a, _args, ctx) =>
        APP_RELATIONS.descriptionLong(await appDescriptionLong(ctx).load(a.pk)),
    }),
    appStoreUrl: t.exposeString("appStoreUrl", legacy("app_store_url")),
    iconUrl: t.exposeString("iconUrl", legacy("icon_url")),
    averageRating: t.exposeString("averageRating", {
      description: "A decimal number in a string, e.g. 4.7.",
      ...legacy("average_rating"),
    }),
    reviewCount: t.exposeInt("reviewCount", legacy("review_count")),
    categories: t.stringList({
      ...legacy("categories"),
      resolve: (a, _args, ctx) => then(appCategories.now(ctx, a.pk), APP_RELATIONS.categories),
    }),
    state: t.exposeString("state", { description: "Active or Inactive.", ...legacy("state") }),
    createdAt: t.expose("createdAt", { type: "LocalDateTime", ...legacy("created_at") }),
    removedAt: t.expose("removedAt", {
      type: "DateTime",
      nullable: true,
      description: "Set only for Inactive Apps.",
      ...legacy("removed_at"),
    }),
    installs: t.exposeInt("installs", { nullable: true, ...legacy("installs") }),
    instp: t.exposeFloat("instp", { nullable: true, ...legacy("instp") }),
    installs30d: t.exposeInt("installs30d", { nullable: true, ...legacy("installs_30d") }),
    installs90d: t.exposeInt("installs90d", { nullable: true, ...legacy("installs_90d") }),
    reviews30d: t.exposeInt("reviews30d", { nullable: true, ...legacy("reviews_30d") }),
    reviews90d: t.exposeInt("reviews90d", { nullable: true, ...legacy("reviews_90d") }),
    installsTimeSeries: t.field({
      type: [InstallsPoint],
      nullable: true,
      description: "Historical install counts; read only when selected.",
      ...legacy("installs_time_series", { onRequest: true, singleOnly: true }),
      resolve: async (a, _args, ctx) => {
        const points = await appInstallsSeries(ctx).load(a.pk);
        return points.length ? points : null;
      },
    }),
    integratesWith: t.stringList({
      nullable: true,
      description: "Set only for shopify Apps.",
      ...legacy("integrates_with"),
      resolve: (a, _args, ctx) => then(appIntegrations.now(ctx, a.pk), APP_RELATIONS.integratesWith),
    }),
    plans: t.field({
      type: [Plan],
      ...legacy("plans"),
      resolve: (a, _args, ctx) => then(appPlans.now(ctx, a.pk), APP_RELATIONS.plans),
    }),
    freeTrialDuration: t.exposeString("freeTrialDuration", {
      nullable: true,
      description: "<hours>h<minutes>m<seconds>s",
      ...legacy("free_trial_duration"),
    }),
    vendorName: t.exposeString("vendorName", legacy("vendor_name")),
    vendorEmail: t.exposeString("vendorEmail", { nullable: true, ...legacy("vendor_email") }),
    vendorUrl: t.exposeString("vendorUrl", { nullable: true, ...legacy("vendor_url") }),
    vendorWebsite: t.exposeString("vendorWebsite", { nullable: true, ...legacy("vendor_website") }),
    vendorAddress: t.exposeString("vendorAddress", { nullable: true, ...legacy("vendor_address") }),
    vendorCountryCode: t.exposeString("vendorCountryCode", {
      nullable: true,
      ...legacy("vendor_country_code"),
    }),
  }),
});

export const AppConnection = connectionOf(App, "App");

builder.queryField("app", (t) =>
  t.field({
    type: App,
    nullable: true,
    description: "One App by platform and token (GET /app/<platform>.<token>). NOT_FOUND when unknown.",
    ...rateLimited("retrieveApp"),
    args: { platform: t.arg.string({ required: true }), token: t.arg.string({ required: true }) },
    resolve: async (_root, { platform, token }, ctx) => {
      const app = await appByIdentifier(ctx).load(`${platform.trim().toLowerCase()}.${token.trim()}`);
      if (!app) throw notFound(`App ${platform}.${token}`, { argument: "token" });
      return app;
    },
  }),
);

builder.queryField("apps", (t) =>
  t.field({
    type: AppConnection,
    description:
      "Apps matching a filter and a search, sorted (GET /app). Default sort: installs, descending.",
    ...rateLimited("listApps"),
    complexity: pagedComplexity(DEFAULT_PAGE_SIZE),
    args: {
      filter: t.arg({ type: AppFilter }),
      orderBy: t.arg({ type: [AppOrder] }),
      search: t.arg.string({ description: "Words that must all occur in the name or description (q)." }),
      ...pageArgs(50),
      ...offsetArg(),
    },
    resolve: async (_root, args, ctx, info) => {
      const keys = toSortKeys(APP_SORTS, args.orderBy, DEFAULT_APP_ORDER);
      const { sql } = servedOf(ctx);
      const where = allOf([toAppWhere(args.filter), await searchCondition("app", args.search, () => sql)]);
      return connectionPage(ctx, {
        args,
        max: 50,
        keys,
        of: new AppSet(sql, where),
        scope: ["apps", args.filter, args.search],
        rows: appByPk(ctx),
        page: selectsPage(info),
      });
    },
  }),
);
