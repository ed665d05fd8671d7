import type { ChangeRow } from "../db/change-feed.ts";
import { reads } from "../query/domain-read/plan.ts";
import { DEFAULT_FACET_SIZE, MAX_FACET_SIZE } from "../query/facets.ts";
import {
  AS_OF_FIELDS,
  DEFAULT_HISTORY,
  type DomainAsOf as DomainAsOfRow,
  domainAsOf,
  historyPage,
  MAX_HISTORY,
  MAX_TREND_VALUES,
  type TrendLoad as TrendLoadRow,
  type Trend as TrendRow,
  trendOf,
} from "../query/history.ts";
import { builder, legacy, pagedComplexity, rateLimited } from "./builder.ts";
import { Change } from "./changes.ts";
import { Domain } from "./domain.ts";
import { AppFacetDimension, DomainFacetDimension } from "./facets.ts";

/**
 * History (docs/decisions.md, "History"; src/query/history.ts reads it): a facet dimension's trend
 * across the loads kept, a Domain's events newest first, and a Domain as it was at a load.
 */

// ---------------------------------------------------------------------- trends

const TrendLoad = builder.objectRef<TrendLoadRow>("TrendLoad").implement({
  description: "A dimension's counts in one load.",
  fields: (t) => ({
    version: t.exposeInt("version", {
      description: "The snapshot version of the load.",
      ...legacy("version"),
    }),
    publishedAt: t.expose("publishedAt", {
      type: "DateTime",
      description: "When the load was published.",
      ...legacy("published_at"),
    }),
    counts: t.expose("counts", {
      type: "JSON",
      description: "Each value's count of records in this load, as a JSON object (0: none had it).",
      ...legacy("counts"),
    }),
    total: t.exposeInt("total", { description: "The records the load held.", ...legacy("total") }),
  }),
});

const Trend = builder.objectRef<TrendRow>("Trend").implement({
  description: "A facet dimension's counts in each load the meta database keeps, oldest first.",
  fields: (t) => ({
    dimension: t.exposeString("dimension", {
      description: "The dimension, as `domain.<dimension>` or `app.<dimension>`.",
      ...legacy("dimension"),
    }),
    values: t.exposeStringList("values", {
      description: "The values counted: those asked, or the newest load's top values.",
      ...legacy("values"),
    }),
    loads: t.expose("loads", {
      type: [TrendLoad],
      description:
        "The loads kept within since and until, oldest first. A load published before trends were kept, or pruned with its change events (CHANGES_RETENTION), has none.",
      ...legacy("loads"),
    }),
  }),
});

const trendArgs = builder.args((t) => ({
  values: t.stringList({
    description: `The values to count, as the facets name them (1 to ${MAX_TREND_VALUES}); without them, the top values of the newest load.`,
  }),
  top: t.int({
    description: `Without values: how many of the newest load's top values (1 to ${MAX_FACET_SIZE}, default ${DEFAULT_FACET_SIZE}).`,
  }),
  since: t.string({
    description:
      "The loads from this point: a snapshot version (included), or an RFC 3339 time or date (loads published then or later).",
  }),
  until: t.string({
    description:
      "The loads up to this point: a snapshot version (included), or a time or date (published before it).",
  }),
}));

builder.queryField("trends", (t) =>
  t.field({
    type: Trend,
    description: "How a Domain dimension's counts moved across the loads kept (GET /trends).",
    ...rateLimited("listDomains"),
    args: { dimension: t.arg({ type: DomainFacetDimension, required: true }), ...trendArgs },
    resolve: (_root, args, ctx) => trendOf(ctx, "domain", { ...args, dimension: args.dimension as string }),
  }),
);

builder.queryField("appTrends", (t) =>
  t.field({
    type: Trend,
    description: "How an App dimension's counts moved across the loads kept (GET /app/trends).",
    ...rateLimited("listApps"),
    args: { dimension: t.arg({ type: AppFacetDimension, required: true }), ...trendArgs },
    resolve: (_root, args, ctx) => trendOf(ctx, "app", { ...args, dimension: args.dimension as string }),
  }),
);

// ---------------------------------------------------------------------- a Domain's history

const HistoryConnection = builder
  .objectRef<Awaited<ReturnType<typeof historyPage>>>("DomainHistoryConnection")
  .implement({
    description: "A page of a Domain's changes, newest first.",
    fields: (t) => ({
      nodes: t.field({
        type: [Change],
        complexity: { field: 0, multiplier: 1 },
        resolve: (p) => p.nodes as ChangeRow[],
      }),
      pageInfo: t.field({
        type: builder
          .objectRef<{ hasNextPage: boolean; endCursor: string | null }>("DomainHistoryPageInfo")
          .implement({
            description: "hasNextPage: older changes follow; endCursor: the page's last (oldest) change.",
            fields: (p) => ({
              hasNextPage: p.exposeBoolean("hasNextPage"),
              endCursor: p.exposeString("endCursor", { nullable: true }),
            }),
          }),
        resolve: (p) => p,
      }),
    }),
  });

builder.objectField(Domain, "history", (t) =>
  t.field({
    type: HistoryConnection,
    description:
      "This Domain's changes across the feed, newest first (GET /domain/{name}/history); the feed keeps the events of the last loads (CHANGES_RETENTION).",
    ...rateLimited("listDomains"),
    extensions: { ...rateLimited("listDomains").extensions, ...reads(["name"]) },
    complexity: pagedComplexity(DEFAULT_HISTORY),
    args: {
      first: t.arg.int({ description: `Page size: default ${DEFAULT_HISTORY}, at most ${MAX_HISTORY}.` }),
      after: t.arg.string({ description: "The endCursor of the previous page: the changes before it." }),
    },
    resolve: (d, args, ctx) => historyPage(ctx, d.name, args),
  }),
);

// ---------------------------------------------------------------------- a Domain as it was

const DomainAsOf = builder.objectRef<DomainAsOfRow>("DomainAsOf").implement({
  description: `A Domain as it was at a load, replayed from the served snapshot through the change feed: only the fields the feed covers (${AS_OF_FIELDS.join(", ")}).`,
  fields: (t) => ({
    name: t.exposeString("name", legacy("name")),
    version: t.exposeInt("version", { description: "The load it is as of.", ...legacy("as_of_version") }),
    publishedAt: t.expose("publishedAt", {
      type: "DateTime",
      description: "When that load was published.",
      ...legacy("as_of_published_at"),
    }),
    covers: t.exposeStringList("covers", {
      description:
        "The fields answered (by their REST names): what the feed covers. No other field is known as of then.",
      ...legacy("covers"),
    }),
    state: t.exposeString("state", { nullable: true, ...legacy("state") }),
    platform: t.exposeString("platform", { nullable: true, ...legacy("platform") }),
    plan: t.exposeString("plan", { nullable: true, ...legacy("plan") }),
    countryCode: t.exposeString("country_code", { nullable: true, ...legacy("country_code") }),
    theme: t.exposeString("theme", { nullable: true, description: "The theme's name.", ...legacy("theme") }),
    rank: t.exposeInt("rank", {
      nullable: true,
      description:
        "The rank last recorded: the feed records a rank only when it moves past its threshold, so this is the rank of the load rankVersion names.",
      ...legacy("rank"),
    }),
    rankVersion: t.exposeInt("rankVersion", {
      description:
        "The load whose rank `rank` is (the as-of load, or a later one the rank moved less than the feed's threshold since).",
      ...legacy("rank_version"),
    }),
    apps: t.exposeStringList("apps", {
      description: "The Apps installed, as <platform>.<token>.",
      ...legacy("apps"),
    }),
    technologies: t.exposeStringList("technologies", {
      description: "The technologies detected.",
      ...legacy("technologies"),
    }),
  }),
});

builder.queryField("domainAsOf", (t) =>
  t.field({
    type: DomainAsOf,
    description:
      "A Domain as it was at a load (GET /domain/{name}?as_of=): 404 when it was not in that load, 410 when the feed pruned the events since.",
    ...rateLimited("retrieveDomain"),
    args: {
      name: t.arg.string({ required: true }),
      asOf: t.arg.string({
        required: true,
        description: "A published snapshot version, or an RFC 3339 time or date (the load served then).",
      }),
    },
    resolve: (_root, args, ctx) => domainAsOf(ctx, args.name, args.asOf),
  }),
);
