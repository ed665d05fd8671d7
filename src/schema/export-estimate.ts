import { astFromValue, type GraphQLInputType, valueFromASTUntyped } from "graphql";
import type { ExportEstimate as Estimate } from "../context.ts";
import { InputError, isApiError } from "../errors.ts";
import { newRequestId } from "../ops/request-id.ts";
import { builder, legacy, rateLimited } from "./builder.ts";
import { DomainFilter } from "./domain-parts.ts";

/**
 * `exportEstimate`: GraphQL's dry run of Export Domains or a cursor=all job (REST's `dry_run=true`,
 * docs/decisions.md "Dry runs"), answered by the export layer through the context
 * (src/export/estimate.ts), so the three faces give the same numbers.
 */
const ExportFormat = builder.enumType("ExportFormat", {
  description: "The format of a whole result: JSON ({domains}, a cursor=all job's), JSON Lines or CSV.",
  values: {
    JSON: { value: "json" },
    JSONL: { value: "jsonl" },
    CSV: { value: "csv" },
  } as const,
});

const ExportDraw = builder.objectRef<Estimate["wouldDraw"]>("ExportDraw").implement({
  description: "What starting the export or job would draw: its start's budget now, and the month's count.",
  fields: (t) => ({
    endpoint: t.exposeString("endpoint", {
      description: "The start's budget: exportDomains or listDomainsAll (once a minute).",
      ...legacy("endpoint"),
    }),
    title: t.exposeString("title", { ...legacy("title") }),
    limit: t.exposeInt("limit", {
      nullable: true,
      description: "Null without rate limits.",
      ...legacy("limit"),
    }),
    remaining: t.exposeInt("remaining", { nullable: true, ...legacy("remaining") }),
    resetSeconds: t.exposeInt("reset", {
      nullable: true,
      description: "Seconds until remaining is back to limit; 0 when it is.",
      ...legacy("reset"),
    }),
    month: t.exposeString("month", { description: "The calendar month (UTC), YYYY-MM.", ...legacy("month") }),
    countedAs: t.exposeString("countedAs", {
      description: "The month's count it adds one to (usage): exports or cursor_all_jobs.",
      ...legacy("counted_as"),
    }),
    thisMonth: t.exposeInt("thisMonth", {
      nullable: true,
      description: "That count so far this month.",
      ...legacy("this_month"),
    }),
  }),
});

const ExportJobState = builder.objectRef<NonNullable<Estimate["job"]>>("ExportJobState").implement({
  description: "A cursor=all job of the same key and question already there.",
  fields: (t) => ({
    status: t.exposeString("status", {
      description: "running, paused (handed over by a gateway that shut down), done or failed.",
      ...legacy("status"),
    }),
    progress: t.exposeInt("progress", { description: "The Domains written so far.", ...legacy("progress") }),
    total: t.exposeInt("total", { description: "The Domains it writes.", ...legacy("total") }),
  }),
});

const ExportEstimate = builder.objectRef<Estimate>("ExportEstimate").implement({
  description:
    "What an export or a cursor=all job would write, not started: the count, and its bytes estimated from a page of its Domains written as it would write them.",
  fields: (t) => ({
    domains: t.exposeInt("domains", { description: "Domains it would write (exact).", ...legacy("domains") }),
    format: t.exposeString("format", { ...legacy("format") }),
    bytes: t.exposeFloat("bytes", {
      description: "Estimated bytes without compression, framing included (exact when exact is true).",
      ...legacy("bytes"),
    }),
    gzipBytes: t.exposeFloat("gzipBytes", {
      description: "Estimated bytes gzipped.",
      ...legacy("gzip_bytes"),
    }),
    sample: t.exposeInt("sample", { description: "The Domains measured.", ...legacy("sample") }),
    exact: t.exposeBoolean("exact", {
      description: "Whether the sample was every Domain (then bytes is exact).",
      ...legacy("exact"),
    }),
    wouldDraw: t.field({ type: ExportDraw, resolve: (e) => e.wouldDraw, ...legacy("would_draw") }),
    job: t.field({
      type: ExportJobState,
      nullable: true,
      description:
        "A cursor=all job of the same question already there: the request would answer it (its progress or its result) and start none, drawing on neither the start's budget nor the month's count. Null for none, and for exports.",
      resolve: (e) => e.job,
      ...legacy("job"),
    }),
  }),
});

builder.queryField("exportEstimate", (t) =>
  t.withAuth({ client: true }).field({
    type: ExportEstimate,
    description:
      "A dry run of Export Domains (cursorAll false) or of a cursor=all job: what it would write and draw, nothing started (REST: dry_run=true). Draws on List Domains' budget.",
    args: {
      filter: t.arg({ type: DomainFilter }),
      search: t.arg.string({ description: "As List Domains' search (q)." }),
      fields: t.arg.string({
        description: "The REST fields option (fields=name,rank); default: the defaults.",
      }),
      format: t.arg({ type: ExportFormat, description: "Default: JSONL (an export), JSON (a job)." }),
      cursorAll: t.arg.boolean({
        defaultValue: false,
        description: "A cursor=all job rather than an export.",
      }),
    },
    ...rateLimited("listDomains"),
    resolve: async (_root, args, ctx, info) => {
      if (!ctx.exports) throw new Error("exportEstimate without the export layer's estimator");
      const cursorAll = args.cursorAll ?? false;
      try {
        return await ctx.exports.estimate(
          { apiKey: ctx.apiKey, requestId: newRequestId() },
          {
            filter: asVariable(args.filter, info.schema.getType("DomainFilter") as GraphQLInputType),
            search: args.search ?? null,
            fields: args.fields ?? "",
            format: args.format ?? (cursorAll ? "json" : "jsonl"),
            cursorAll,
          },
        );
      } catch (e) {
        // The estimate answers as REST does, with an API error whose message names the REST option
        // (`fields: …`, `f:tags (…): …`): handed on as the input error every other field throws,
        // naming the GraphQL argument the option came from.
        if (isApiError(e) && e.extensions.code === "BAD_USER_INPUT")
          throw new InputError(argumentOf(e.message), problemOf(e.message));
        throw e;
      }
    },
  }),
);

/**
 * An argument's value as a variable's (its enums by name, its scalars serialized): the estimate
 * runs List Domains' own operation with it, which coerces it again.
 */
function asVariable(value: unknown, type: GraphQLInputType): Record<string, unknown> | null {
  if (value == null) return null;
  const ast = astFromValue(value, type);
  return ast ? (valueFromASTUntyped(ast) as Record<string, unknown>) : null;
}

/** The option an estimate's message names first (`fields: …`, `f:tags (…): …`), as GraphQL's argument. */
function argumentOf(message: string): string {
  const name = /^([\w:.]+?)(?::\s| \()/.exec(message)?.[1] ?? "";
  if (name === "fields" || name === "format") return name;
  return name === "q" ? "search" : "filter";
}

/** The message, less the argument's name where it begins with it (InputError writes it again). */
function problemOf(message: string): string {
  const argument = argumentOf(message);
  return message.startsWith(`${argument}: `) ? message.slice(argument.length + 2) : message;
}
