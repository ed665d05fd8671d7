import type { ClientContext } from "../context.ts";
import {
  checkSegmentName,
  SEGMENT_LIMITS,
  type SegmentLoadRow,
  SegmentNotFoundError,
  type SegmentRow,
} from "../db/segments.ts";
import { InputError } from "../errors.ts";
import type { DomainFilter as DomainFilterShape } from "../query/domain-filter.ts";
import { domainFilterType } from "../query/segment-members.ts";
import {
  DEFAULT_SPREAD,
  SPREAD_LIMITS,
  segmentArgsOf,
  segmenting,
  segmentSize,
  segmentsOf,
  segmentWhere,
  spreadProblem,
} from "../query/segments.ts";
import { builder, legacy, rateLimited } from "./builder.ts";
import { DomainFilter } from "./domain-parts.ts";
import { DomainFacetDimension, enumName } from "./facets.ts";
import { asWritten } from "./webhooks.ts";

/**
 * An account's segments (docs/decisions.md, "Segments"; src/db/segments.ts keeps them): a saved
 * List Domains filter whose members are compared at every load (src/segments.ts), the Domains that
 * entered and left it being the feed's segment_entered and segment_left, seen by the account
 * alone. Every operation draws on the List Domains budget, as REST's /segment paths do.
 */

const SegmentLoad = builder.objectRef<SegmentLoadRow>("SegmentLoad").implement({
  description: "A segment at one load it lived through: its size, who entered and left, and its spread.",
  fields: (t) => ({
    version: t.exposeInt("version", { description: "The load's snapshot version.", ...legacy("version") }),
    loadedAt: t.expose("loadedAt", { type: "DateTime", ...legacy("loaded_at") }),
    size: t.exposeInt("size", {
      nullable: true,
      description: "Its members in that load's snapshot (null when its filter could not be read then).",
      ...legacy("size"),
    }),
    entered: t.exposeInt("entered", {
      description: "Domains that entered it at that load.",
      ...legacy("entered"),
    }),
    left: t.exposeInt("left", { description: "Domains that left it at that load.", ...legacy("left") }),
    counts: t.expose("counts", {
      type: "JSON",
      nullable: true,
      description: `Its members by each dimension of its spread at that load, a dimension by its name in snake case (COUNTRY_CODE: country_code) and its ${SPREAD_LIMITS.values} commonest values at most: {"platform": {"shopify": 120, …}, "plan": {…}, "country_code": {…}} (null for a snapshot without a count index; a dimension that snapshot's index lacks is left out).`,
      ...legacy("counts"),
    }),
    other: t.expose("other", {
      type: "JSON",
      nullable: true,
      description: `Per dimension whose values were cut to the ${SPREAD_LIMITS.values} commonest: the members with a value but none of those in counts ({"technologies": 31}); null when none was.`,
      ...legacy("other"),
    }),
    error: t.exposeString("error", {
      nullable: true,
      description: "Why its filter could not be read at that load (a list it names was deleted).",
      ...legacy("error"),
    }),
  }),
});

export const Segment = builder.objectRef<SegmentRow>("Segment").implement({
  description: `A saved search of the account (at most ${SEGMENT_LIMITS.segments} an account): its members are compared at every load.`,
  fields: (t) => ({
    name: t.exposeString("name", legacy("name")),
    filter: t.expose("filter", {
      type: "JSON",
      nullable: true,
      description:
        "Its DomainFilter, as saveSegment took it; in REST, List Domains' f: options, aq and bq (as PUT /segment/{name} takes them).",
      ...legacy("filter"),
    }),
    search: t.exposeString("search", {
      nullable: true,
      description: "Its search (List Domains' q).",
      ...legacy("search"),
    }),
    spread: t.field({
      type: [DomainFacetDimension],
      description: `The dimensions its members are counted over at each load (history's counts), from the next load after it was saved; default ${DEFAULT_SPREAD.map(enumName).join(", ")}. In REST, named as facets= names them.`,
      ...legacy("spread"),
      resolve: (s) => [...(s.spread ?? DEFAULT_SPREAD)],
    }),
    size: t.field({
      type: "Int",
      nullable: true,
      description:
        "Its members in the served snapshot now (null when its filter cannot be read: a list it names was deleted).",
      ...legacy("size"),
      resolve: async (s, _args, ctx) => {
        try {
          return await segmentSize(ctx, segmentArgsOf(s, domainFilterType()));
        } catch (e) {
          if (e instanceof InputError) return null;
          throw e;
        }
      },
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", ...legacy("created_at") }),
    updatedAt: t.expose("updatedAt", {
      type: "DateTime",
      description:
        "When its filter, search or spread was last changed (saving the same ones again changes nothing).",
      ...legacy("updated_at"),
    }),
    history: t.withAuth({ client: true }).field({
      type: [SegmentLoad],
      description:
        "The segment at each load it lived through, newest first (at most 52): its size, entries, exits and spread.",
      ...legacy("history"),
      resolve: (s, _args, ctx) => {
        const { segments, account } = segmentsOf(ctx);
        return segments.history(account, s.name);
      },
    }),
  }),
});

builder.queryField("segments", (t) =>
  t.withAuth({ client: true }).field({
    type: [Segment],
    description: "The segments of the API key's account, by name (GET /segment).",
    ...rateLimited("listDomains"),
    complexity: { field: 1, multiplier: SEGMENT_LIMITS.segments },
    resolve: (_root, _args, ctx) => {
      return segmenting(() => {
        const { segments, account } = segmentsOf(ctx);
        return segments.all(account);
      });
    },
  }),
);

builder.queryField("segment", (t) =>
  t.withAuth({ client: true }).field({
    type: Segment,
    description: "One of the account's segments, with its history (GET /segment/{name}).",
    ...rateLimited("listDomains"),
    complexity: { field: 2, multiplier: 1 },
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => {
      return segmenting(async () => {
        checkSegmentName(args.name);
        const { segments, account } = segmentsOf(ctx);
        const found = await segments.get(account, args.name);
        if (!found) throw new SegmentNotFoundError(args.name);
        return found;
      });
    },
  }),
);

builder.mutationField("saveSegment", (t) =>
  t.withAuth({ client: true }).field({
    type: Segment,
    description:
      "Saves a segment: List Domains' filter and search under a name, and the dimensions its members are counted over at each load, made when the account has none of that name, replaced otherwise (the next load compares its members under the new filter and counts the new spread; the loads before keep what they had). An invalid filter or spread is refused and nothing is stored.",
    ...rateLimited("listDomains"),
    complexity: { field: 10, multiplier: 1 },
    args: {
      name: t.arg.string({ required: true }),
      filter: t.arg({ type: DomainFilter }),
      search: t.arg.string(),
      spread: t.arg({
        type: [DomainFacetDimension],
        description: `The dimensions its members are counted over at each load: 1 to ${SPREAD_LIMITS.dimensions}, each once (default ${DEFAULT_SPREAD.map(enumName).join(", ")}).`,
      }),
    },
    resolve: (_root, args, ctx: ClientContext) => {
      return segmenting(async () => {
        checkSegmentName(args.name);
        const spread = (args.spread ?? null) as string[] | null;
        const refused = spread && spreadProblem(spread, enumName);
        if (refused) throw new InputError("spread", refused);
        const filter = (args.filter ?? null) as DomainFilterShape | null;
        if (filter?.segment != null)
          throw new InputError("filter.segment", "a segment cannot name another segment");
        // Read as List Domains reads it, on the served snapshot: its errors name the argument.
        await segmentWhere(ctx, { filter, search: args.search ?? null });
        const { segments, account } = segmentsOf(ctx);
        const written = filter ? asWritten(filter) : null;
        const search = args.search?.trim() ? args.search : null;
        const { segment } = await segments.save(account, args.name, {
          filter: written && Object.keys(written).length ? written : null,
          search,
          spread,
        });
        return segment;
      });
    },
  }),
);

builder.mutationField("deleteSegment", (t) =>
  t.withAuth({ client: true }).field({
    type: Segment,
    description: "Deletes a segment and its history; answers it as it was. Its events stay in the feed.",
    ...rateLimited("listDomains"),
    // A row a load of its history deleted too: weighed as a list's delete.
    complexity: { field: 10, multiplier: 1 },
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => {
      return segmenting(async () => {
        const { segments, account } = segmentsOf(ctx);
        const deleted = await segments.delete(account, args.name);
        if (!deleted) throw new SegmentNotFoundError(args.name);
        return deleted;
      });
    },
  }),
);
