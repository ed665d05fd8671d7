import type { ReadContext } from "../context.ts";
import type { AppReviewDomain, AppReview as AppReviewRow } from "../generated/sqlite/client.ts";
import { reads } from "../query/domain-read/plan.ts";
import type { Direction, Where } from "../query/keyset.ts";
import { appByPk, domainByPk, reviewByPk, reviewDomains } from "../query/loaders.ts";
import { connectionPage, DEFAULT_PAGE_SIZE, type PageArgs } from "../query/page.ts";
import { REVIEW_SORTS, toSortKeys } from "../query/sort.ts";
import { App } from "./app.ts";
import { builder, legacy, pagedComplexity, rateLimited, SortDirection } from "./builder.ts";
import { connectionOf, offsetArg, pageArgs } from "./connection.ts";
import { Domain } from "./domain.ts";

export const AppReview = builder.objectRef<AppReviewRow>("AppReview");

const ReviewDomain = builder.objectRef<AppReviewDomain>("ReviewDomain").implement({
  description: "A store that a review is associated with, as the review lists it.",
  fields: (t) => ({
    name: t.exposeString("name", legacy("name")),
    platformDomain: t.exposeString("platformDomain", { nullable: true, ...legacy("platform_domain") }),
    platformRank: t.exposeInt("platformRank", { nullable: true, ...legacy("platform_rank") }),
    domain: t.field({
      type: Domain,
      nullable: true,
      description: "The Domain of that name, when the dataset has it.",
      resolve: (r, _args, ctx) => (r.domainPk == null ? null : domainByPk(ctx).load(r.domainPk)),
    }),
  }),
});

builder.node(AppReview, {
  description: "A review of an App by a store (shopify Apps only).",
  id: { resolve: (r) => String(r.pk) },
  loadMany: (ids, ctx) =>
    Promise.all(ids.map((id) => (/^\d{1,15}$/.test(id) ? reviewByPk(ctx).load(Number(id)) : null))),
  fields: (t) => ({
    updatedAt: t.expose("updatedAt", { type: "DateTime", ...legacy("updated_at") }),
    body: t.exposeString("body", legacy("body")),
    merchantName: t.exposeString("merchantName", legacy("merchant_name")),
    rating: t.exposeInt("rating", legacy("rating")),
    domains: t.field({
      type: [ReviewDomain],
      ...legacy("domains"),
      resolve: (r, _args, ctx) => reviewDomains(ctx).load(r.pk),
    }),
    app: t.field({
      type: App,
      description: "The reviewed App.",
      // docs/api.md 2.2: in a Domain's review list, `app` carries these fields unless `fields` says otherwise.
      ...legacy("app", { defaultFields: ["app_store_url", "name", "vendor_name", "id"] }),
      resolve: async (r, _args, ctx) => {
        const app = await appByPk(ctx).load(r.appPk);
        if (!app) throw new Error(`review ${r.pk} refers to a missing App ${r.appPk}`);
        return app;
      },
    }),
  }),
});

export const AppReviewConnection = connectionOf(AppReview, "AppReview");

const ReviewOrder = builder
  .inputRef<{ field?: "UPDATED_AT" | null; direction?: Direction | null }>("ReviewOrder")
  .implement({
    fields: (t) => ({
      field: t.field({
        type: builder.enumType("ReviewSortField", {
          values: { UPDATED_AT: { description: "Last update", ...legacy("updated_at") } },
        }),
        defaultValue: "UPDATED_AT",
      }),
      direction: t.field({ type: SortDirection, defaultValue: "desc" }),
    }),
  });

const reviewArgs = builder.args((t) => ({
  orderBy: t.field({ type: ReviewOrder, description: "Default: updatedAt, descending." }),
  ...pageArgs(50),
  ...offsetArg(),
}));

function reviewPage(
  ctx: ReadContext,
  args: PageArgs & { orderBy?: { field?: "UPDATED_AT" | null; direction?: Direction | null } | null },
  where: Where,
  scope: unknown,
) {
  const order = args.orderBy && {
    field: args.orderBy.field ?? "UPDATED_AT",
    direction: args.orderBy.direction,
  };
  const keys = toSortKeys(REVIEW_SORTS, order ? [order] : null, [{ field: "UPDATED_AT", direction: "desc" }]);
  return connectionPage(ctx, {
    args,
    max: 50,
    keys,
    of: { table: "appReview", where },
    scope: [scope],
    rows: reviewByPk(ctx),
  });
}

builder.objectField(App, "reviews", (t) =>
  t.field({
    type: AppReviewConnection,
    description: "Reviews of the App (GET /app/<platform>.<token>/reviews); only shopify Apps have reviews.",
    ...rateLimited("listAppReviews"),
    complexity: pagedComplexity(DEFAULT_PAGE_SIZE),
    args: reviewArgs,
    resolve: (app, args, ctx) => reviewPage(ctx, args, { appPk: app.pk }, ["app.reviews", app.pk]),
  }),
);

const domainReviewsLimit = rateLimited("listDomainAppReviews");

builder.objectField(Domain, "appReviews", (t) =>
  t.field({
    type: AppReviewConnection,
    description: "Reviews of Apps associated with the Domain (GET /domain/<name>/app_reviews).",
    ...domainReviewsLimit,
    // Read by the Domain's key, which every Domain read plans.
    extensions: { ...domainReviewsLimit.extensions, ...reads([]) },
    complexity: pagedComplexity(DEFAULT_PAGE_SIZE),
    args: reviewArgs,
    resolve: (d, args, ctx) =>
      reviewPage(ctx, args, { domains: { some: { domainPk: d.pk } } }, ["domain.appReviews", d.pk]),
  }),
);
