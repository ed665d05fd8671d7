import type { GraphQLResolveInfo } from "graphql";
import type { ReadContext } from "../context.ts";
import type { DomainListArgs } from "../query/domain-list.ts";
import { domainListPage, findDomain, findDomains, MAX_NAMES } from "../query/domain-read/lookup.ts";
import { domainReadOf } from "../query/domain-read/plan.ts";
import type { Where } from "../query/keyset.ts";
import type { DomainRow } from "../query/loaders.ts";
import { DEFAULT_PAGE_SIZE, type PageArgs } from "../query/page.ts";
import { App } from "./app.ts";
import { builder, legacy, pagedComplexity, rateLimited } from "./builder.ts";
import { connectionOf, pageArgs, selectsPage } from "./connection.ts";
import { Domain } from "./domain.ts";
import { DomainFilter, DomainOrder } from "./domain-parts.ts";

/**
 * The root fields that find Domains (src/schema/domain.ts is the Domain type): `domain` by name,
 * `domainsByName` in bulk, the `domains` connection and App.installedOn, with the list's
 * arguments and page (domainListArgs, domainPage) that the lists' and facets' connections share.
 */

export const DomainConnection = connectionOf(Domain, "Domain");

builder.queryField("domain", (t) =>
  t.field({
    type: Domain,
    nullable: true,
    description:
      "One Domain by its DNS name or platform domain (GET /domain/<name>). NOT_FOUND when unknown.",
    ...rateLimited("retrieveDomain"),
    args: {
      name: t.arg.string({ required: true }),
      followRedirects: t.arg.boolean({
        defaultValue: false,
        description: "For a Redirect Domain, return the Domain it redirects to (first target, up to 5 hops).",
      }),
    },
    resolve: (_root, args, ctx, info) => findDomain(ctx, domainReadOf(info, []), args),
  }),
);

const DomainsByName = builder
  .objectRef<{ domains: DomainRow[]; notFound: string[] }>("DomainsByName")
  .implement({
    fields: (t) => ({
      domains: t.field({
        type: [Domain],
        description: "The Domains found, in request order.",
        ...legacy("domains"),
        // domainsByName counts one per name asked for.
        complexity: { field: 1, multiplier: 1 },
        resolve: (r) => r.domains,
      }),
      notFound: t.exposeStringList("notFound", {
        description: "Requested names the dataset does not have.",
        ...legacy("not_found"),
      }),
    }),
  });

builder.queryField("domainsByName", (t) =>
  t.field({
    type: DomainsByName,
    description: `Up to ${MAX_NAMES} Domains by name (POST /domain/bulk).`,
    ...rateLimited("bulkRetrieveDomains"),
    complexity: (args) => ({ field: 1, multiplier: args.names.length }),
    args: {
      names: t.arg.stringList({ required: true }),
      followRedirects: t.arg.boolean({ defaultValue: false }),
    },
    resolve: (_root, args, ctx, info) => findDomains(ctx, domainReadOf(info, ["domains"]), args),
  }),
);

export const domainListArgs = builder.args((t) => ({
  filter: t.field({ type: DomainFilter }),
  orderBy: t.field({ type: [DomainOrder], description: "Default: rank, ascending." }),
  search: t.string({
    description: "Words that must all occur in the name, title, description or merchant name (q).",
  }),
  ...pageArgs(1000),
}));

/** A page of Domains for a connection field: its selection's plan, within `base` (a parent's condition). */
export const domainPage = (
  ctx: ReadContext,
  info: GraphQLResolveInfo,
  args: DomainListArgs & PageArgs,
  base: Where | null,
  scope: unknown,
) => domainListPage(ctx, domainReadOf(info, ["edges", "node"]), args, base, scope, selectsPage(info));

builder.queryField("domains", (t) =>
  t.field({
    type: DomainConnection,
    description: "Domains matching a filter and a search, sorted (GET /domain).",
    ...rateLimited("listDomains"),
    complexity: pagedComplexity(DEFAULT_PAGE_SIZE),
    args: domainListArgs,
    resolve: (_root, args, ctx, info) => domainPage(ctx, info, args, null, "domains"),
  }),
);

builder.objectField(App, "installedOn", (t) =>
  t.field({
    type: DomainConnection,
    description: "The Domains that have the App installed (not since uninstalled), filterable like domains.",
    ...rateLimited("listDomains"),
    complexity: pagedComplexity(DEFAULT_PAGE_SIZE),
    args: domainListArgs,
    resolve: (app, args, ctx, info) =>
      domainPage(ctx, info, args, { apps: { some: { appPk: app.pk, removedAt: null } } }, [
        "app.installedOn",
        app.pk,
      ]),
  }),
);
