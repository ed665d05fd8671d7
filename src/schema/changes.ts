import type { ChangeAppRow, ChangeRow } from "../db/change-feed.ts";
import { FEED_KINDS } from "../db/change-sql.ts";
import { type ChangeArgs, changeCursor, changePage, DEFAULT_CHANGES, MAX_CHANGES } from "../query/changes.ts";
import { liveChanges } from "../query/changes-live.ts";
import { reads } from "../query/domain-read/plan.ts";
import { instantText } from "../query/instant.ts";
import { appByIdentifier, domainByName } from "../query/loaders.ts";
import { App } from "./app.ts";
import { builder, fromParent, legacy, pagedComplexity, rateLimited } from "./builder.ts";
import { Domain } from "./domain.ts";
import { DomainFilter } from "./domain-parts.ts";

/**
 * The change feed (docs/graphql.md, "Change feed"): what each load changed, as typed events in
 * feed order (src/query/changes.ts reads them; src/db/change-sql.ts computes them).
 */

builder.scalarType("JSON", {
  description: "A JSON value: a change's value before or after (its kind says which shape).",
  serialize: (v) => v,
  parseValue: (v) => v,
});

export const ChangeKind = builder.enumType("ChangeKind", {
  description: 'What a change event says happened (docs/graphql.md, "Change feed").',
  // Named as the REST API, the export and the stream name them (docs/decisions.md, "Change feed").
  values: Object.fromEntries(FEED_KINDS.map((k) => [k, { value: k }])),
});

/**
 * Times of an App entry come as epoch milliseconds from the database: written as the API writes
 * times. The value is the row's own (parsed with its page), so it is rewritten in place, once. A
 * segment event's `after` holds the events of the load that moved the Domain (`changes`, kept as
 * the load staged them): each one's `before` and `after` are written as that event's own are.
 */
function changeValue(value: unknown): unknown {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    for (const key of ["installed_at", "removed_at"]) {
      if (typeof v[key] === "number") v[key] = instantText(new Date(v[key] as number));
    }
    if (Array.isArray(v.changes))
      for (const change of v.changes as { before?: unknown; after?: unknown }[]) {
        changeValue(change?.before);
        changeValue(change?.after);
      }
  }
  return value;
}

// Fields that expose a property of the row (src/db/change-feed.ts, ChangeRow) have no resolver
// of their own: graphql-jit reads the property inline.
const ChangeApp = builder.objectRef<ChangeAppRow>("ChangeApp").implement({
  description: "The App a change is about, as it was named when the change was found.",
  fields: (t) => ({
    id: t.exposeString("id", legacy("id")),
    platform: t.exposeString("platform", legacy("platform")),
    token: t.exposeString("token", legacy("token")),
    name: t.exposeString("name", legacy("name")),
    current: t.field({
      type: App,
      nullable: true,
      description: "The App in the served snapshot, when it has it.",
      resolve: (a, _args, ctx) => appByIdentifier(ctx).load(a.identifier),
    }),
  }),
});

export const Change = builder.objectRef<ChangeRow>("Change").implement({
  description: "One change a load found between a snapshot and the one before it.",
  fields: (t) => ({
    id: t.exposeString("id", {
      description:
        "The event's place among the events the reader sees (its cursor): the events every account sees are 1, 2, … with no gap; the account's own follow the one before them as `118.1`, `118.2`. Opaque text, in feed order, never reused.",
      ...legacy("id"),
    }),
    version: t.exposeInt("version", {
      description: "The snapshot version it appeared in.",
      ...legacy("version"),
    }),
    loadedAt: t.expose("loadedAt", {
      type: "DateTime",
      description: "When that snapshot was published.",
      ...legacy("loaded_at"),
    }),
    kind: t.expose("kind", {
      type: ChangeKind,
      ...legacy("kind"),
    }),
    domainName: t.exposeString("domainName", {
      nullable: true,
      description: "The Domain's name (Domain events).",
      ...legacy("domain"),
    }),
    domain: t.field({
      type: Domain,
      nullable: true,
      description: "The Domain as the served snapshot has it (null once it was removed).",
      resolve: (r, _args, ctx) => (r.domainName === null ? null : domainByName(ctx).load(r.domainName)),
    }),
    app: t.expose("app", {
      type: ChangeApp,
      nullable: true,
      description: "The App (App events, and a Domain's App events).",
      ...legacy("app"),
    }),
    technology: t.exposeString("technology", {
      nullable: true,
      description: "The technology (technology_added, technology_removed).",
      ...legacy("technology"),
    }),
    before: t.field({
      type: "JSON",
      nullable: true,
      description: 'The value before, where the kind has one (docs/graphql.md, "Change feed").',
      ...fromParent((r: ChangeRow) => changeValue(r.before), legacy("before")),
    }),
    after: t.field({
      type: "JSON",
      nullable: true,
      description: "The value after, where the kind has one.",
      ...fromParent((r: ChangeRow) => changeValue(r.after), legacy("after")),
    }),
    segment: t.exposeString("segment", {
      nullable: true,
      description:
        "The segment of the account that a segment_entered or segment_left is about (its `after` names the Domain's events of the load that moved it).",
      ...legacy("segment"),
    }),
  }),
});

const ChangeFilter = builder.inputType("ChangeFilter", {
  description: "Which changes: every condition given, ANDed.",
  fields: (t) => ({
    kinds: t.field({ type: [ChangeKind], description: "Only these kinds." }),
    since: t.string({
      description:
        "Changes after this point: a snapshot version (the changes of later loads) or an RFC 3339 time or date (loads published then or later).",
    }),
    until: t.string({
      description:
        "Changes up to this point: a snapshot version (included) or a time or date (loads published before it).",
    }),
    domain: t.field({
      type: DomainFilter,
      description:
        "Changes of the Domains this filter matches in the served snapshot (as List Domains' filter).",
    }),
    app: t.string({
      description:
        "Changes of this App, as <platform>.<token> (App events, and Domains installing or removing it).",
    }),
    technology: t.string({
      description: "Changes of this technology (technology_added, technology_removed).",
    }),
    segment: t.string({
      description:
        "The events of this segment of the API key's account (segment_entered, segment_left): a segment's events are seen by its account alone.",
    }),
  }),
});

const ChangeConnection = builder
  .objectRef<{ page: Awaited<ReturnType<typeof changePage>> }>("ChangeConnection")
  .implement({
    description: "A page of the change feed, in feed order.",
    fields: (t) => ({
      edges: t.field({
        type: [
          builder.objectRef<ChangeRow>("ChangeEdge").implement({
            fields: (e) => ({
              cursor: e.string({ resolve: (r) => changeCursor(r) }),
              node: e.field({ type: Change, resolve: (r) => r }),
            }),
          }),
        ],
        complexity: { field: 0, multiplier: 1 },
        resolve: (c) => c.page.nodes,
      }),
      nodes: t.field({
        type: [Change],
        complexity: { field: 0, multiplier: 1 },
        resolve: (c) => c.page.nodes,
      }),
      pageInfo: t.field({
        type: builder.objectRef<{ hasNextPage: boolean; endCursor: string }>("ChangePageInfo").implement({
          description:
            "hasNextPage: more events follow now; endCursor: where the next page goes on from. A feed cursor stays good across loads: the next load's events follow it.",
          fields: (p) => ({
            hasNextPage: p.exposeBoolean("hasNextPage"),
            endCursor: p.exposeString("endCursor"),
          }),
        }),
        resolve: (c) => c.page,
      }),
    }),
  });

const changeArgs = builder.args((t) => ({
  filter: t.field({ type: ChangeFilter }),
  first: t.int({ description: `Page size: default ${DEFAULT_CHANGES}, at most ${MAX_CHANGES}.` }),
  after: t.string({ description: "The endCursor of the previous page (it survives loads)." }),
}));

const resolveChanges = async (
  ctx: Parameters<typeof changePage>[0],
  args: ChangeArgs,
  base?: Parameters<typeof changePage>[2],
) => ({
  page: await changePage(ctx, args, base),
});

builder.queryField("changes", (t) =>
  t.field({
    type: ChangeConnection,
    description: "The change feed: what each load changed, in feed order (GET /changes).",
    ...rateLimited("listDomains"),
    complexity: pagedComplexity(DEFAULT_CHANGES),
    args: changeArgs,
    resolve: (_root, args, ctx) => resolveChanges(ctx, args),
  }),
);

builder.objectField(Domain, "changes", (t) =>
  t.field({
    type: ChangeConnection,
    description: "This Domain's changes, in feed order.",
    ...rateLimited("listDomains"),
    // It reads the Domain's name (src/query/domain-read/plan.ts), and the feed.
    extensions: { ...rateLimited("listDomains").extensions, ...reads(["name"]) },
    complexity: pagedComplexity(DEFAULT_CHANGES),
    args: changeArgs,
    resolve: (d, args, ctx) => resolveChanges(ctx, args, { domain: d.name }),
  }),
);

builder.objectField(App, "changes", (t) =>
  t.field({
    type: ChangeConnection,
    description: "This App's changes (its own, and Domains installing or removing it), in feed order.",
    ...rateLimited("listDomains"),
    complexity: pagedComplexity(DEFAULT_CHANGES),
    args: changeArgs,
    resolve: (a, args, ctx) => resolveChanges(ctx, args, { app: `${a.platform}.${a.token}` }),
  }),
);

builder.subscriptionType({
  description: "Changes as they are loaded (over Server-Sent Events: Accept: text/event-stream).",
});

builder.subscriptionField("changes", (t) =>
  t.withAuth({ client: true }).field({
    type: Change,
    description:
      "The change feed, live: each change after `after` (else from the next load on), in feed order, as GET /changes/stream sends them. It draws once on the List Domains budget, with its first change.",
    ...rateLimited("listDomains"),
    args: {
      filter: t.arg({ type: ChangeFilter }),
      after: t.arg.string({ description: "A change's id (a feed cursor): the changes after it." }),
    },
    subscribe: (_root, args, ctx) => liveChanges(ctx, args),
    resolve: (change) => change,
  }),
);
