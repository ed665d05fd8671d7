import { type ReadContext, servedOf } from "../context.ts";
import { RoaringBitmap32 } from "../db/count-index.ts";
import { InputError } from "../errors.ts";
import { decodeCursor, encodeCursor, fingerprint } from "../query/cursor.ts";
import type { DomainFilter } from "../query/domain-filter.ts";
import { checkPlans, domainSetOf } from "../query/domain-list.ts";
import { findDomain, findDomains } from "../query/domain-read/lookup.ts";
import { type DomainRead, domainReadOf, reads, withFields } from "../query/domain-read/plan.ts";
import { plannedDomainByPk } from "../query/domain-read/read.ts";
import type { SortKey } from "../query/keyset.ts";
import type { DomainRow } from "../query/loaders.ts";
import {
  DEFAULT_SIMILAR,
  MAX_SEEDS,
  MAX_SIMILAR,
  rankSimilar,
  type SharedFeature,
  WHY,
} from "../query/similar.ts";
import { builder, legacy, pagedComplexity, rateLimited } from "./builder.ts";
import { Domain } from "./domain.ts";
import { DomainFilter as DomainFilterInput } from "./domain-parts.ts";

/**
 * Lookalikes (src/query/similar.ts): `similarDomains(names)` (POST /domain/similar) and
 * `Domain.similar` (GET /domain/{name}/similar), drawing on List Domains, the MCP tool
 * similar_domains. Each result comes with its score and the shared features that weigh most; a
 * page's cursor is a position in the ranking of one snapshot, seeds, filter and search.
 */

/** What a lookalike's REST answer gives of its Domain unless `fields` says otherwise. */
const SIMILAR_DOMAIN_FIELDS = ["name", "merchant_name", "platform", "plan", "country_code", "rank"];

const Feature = builder.objectRef<SharedFeature>("SharedFeature").implement({
  description: "A feature of the seeds that a lookalike shares, with what it adds to the score.",
  fields: (t) => ({
    type: t.exposeString("type", {
      description:
        "app, technology, category, platform, plan, country, or a size band: estimated_sales, estimated_visits, product_count, employee_count.",
      ...legacy("type"),
    }),
    value: t.exposeString("value", {
      description:
        "An App as <platform>.<token>, a technology's name, a category, a platform, plan or country code, or a band's decade (1000-9999; 0).",
      ...legacy("value"),
    }),
    seeds: t.exposeInt("seeds", { description: "How many seeds hold it.", ...legacy("seeds") }),
    weight: t.exposeFloat("weight", {
      description: "What it adds to the score: seeds × ln(N / Domains holding it) / seeds found.",
      ...legacy("weight"),
    }),
  }),
});

interface SimilarRow {
  score: number;
  shared: number;
  why: SharedFeature[];
  domain: DomainRow;
}

const SimilarDomain = builder.objectRef<SimilarRow>("SimilarDomain").implement({
  description: "A Domain like the seeds, with its score and why.",
  fields: (t) => ({
    score: t.exposeFloat("score", {
      description:
        'The mean, over the seeds, of the rarity (ln(N / Domains holding it)) of the features it shares with each (docs/decisions.md, "Lookalikes").',
      ...legacy("score"),
    }),
    shared: t.exposeInt("shared", {
      description: "How many of the seeds' features it holds.",
      ...legacy("shared"),
    }),
    why: t.field({
      type: [Feature],
      description: `The ${WHY} shared features that weigh most, heaviest first (then by type, then value).`,
      ...legacy("why"),
      resolve: (r) => r.why,
    }),
    domain: t.field({
      type: Domain,
      description: "The Domain.",
      ...legacy("domain", { defaultFields: SIMILAR_DOMAIN_FIELDS }),
      resolve: (r) => r.domain,
    }),
  }),
});

interface SimilarPage {
  total: number;
  notFound: string[];
  domains: SimilarRow[];
  hasNextPage: boolean;
  endCursor: string | null;
}

const SimilarDomains = builder.objectRef<SimilarPage>("SimilarDomains").implement({
  description: "A page of the Domains most like the seeds, best first.",
  fields: (t) => ({
    total: t.exposeInt("total", {
      description: "How many candidates share a feature with the seeds (score above 0).",
      ...legacy("total"),
    }),
    notFound: t.exposeStringList("notFound", {
      description: "The seeds asked for that the snapshot does not have, as asked.",
      ...legacy("not_found"),
    }),
    domains: t.field({
      type: [SimilarDomain],
      description: "The page: by score, then rank (unranked last), then name.",
      ...legacy("domains"),
      resolve: (r) => r.domains,
    }),
    hasNextPage: t.exposeBoolean("hasNextPage", {
      description: "Whether more follow.",
      ...legacy("has_next_page"),
    }),
    endCursor: t.exposeString("endCursor", {
      nullable: true,
      description: "The cursor of the page's last Domain: `after` for the next page.",
      ...legacy("next_cursor"),
    }),
  }),
});

const similarArgs = builder.args((t) => ({
  filter: t.field({
    type: DomainFilterInput,
    description: "The candidates: List Domains' filter (only US, not on my list…).",
  }),
  search: t.string({ description: "The candidates: List Domains' search (q)." }),
  first: t.int({ description: `Page size: default ${DEFAULT_SIMILAR}, at most ${MAX_SIMILAR}.` }),
  after: t.string({ description: "The endCursor of the previous page." }),
}));

interface SimilarArgs {
  filter?: DomainFilter | null;
  search?: string | null;
  first?: number | null;
  after?: string | null;
}

builder.queryField("similarDomains", (t) =>
  t.field({
    type: SimilarDomains,
    description: `Lookalikes of 1 to ${MAX_SEEDS} seed Domains (POST /domain/similar): the Domains sharing the seeds' rarest Apps, technologies, categories, platform, plan, country and size bands, best first; the seeds left out.`,
    ...rateLimited("listDomains"),
    complexity: pagedComplexity(DEFAULT_SIMILAR),
    args: {
      names: t.arg.stringList({ required: true, description: `The seeds: 1 to ${MAX_SEEDS} domain names.` }),
      ...similarArgs,
    },
    resolve: async (_root, args, ctx, info) => {
      const seeds = await findDomains(ctx, SEED, { names: args.names }, MAX_SEEDS);
      return similarPage(ctx, domainReadOf(info, ["domains", "domain"]), seeds.domains, seeds.notFound, args);
    },
  }),
);

builder.objectField(Domain, "similar", (t) =>
  t.field({
    type: SimilarDomains,
    description: "Lookalikes of this Domain (GET /domain/{name}/similar), as similarDomains answers them.",
    ...rateLimited("listDomains"),
    extensions: { ...rateLimited("listDomains").extensions, ...reads(["pk", "name"]) },
    complexity: pagedComplexity(DEFAULT_SIMILAR),
    args: similarArgs,
    resolve: (d, args, ctx, info) =>
      similarPage(ctx, domainReadOf(info, ["domains", "domain"]), [d], [], args),
  }),
);

builder.queryField("similarToDomain", (t) =>
  t.field({
    type: SimilarDomains,
    description:
      "Lookalikes of the Domain `name` (GET /domain/{name}/similar), as Domain.similar answers them. NOT_FOUND when the Domain is unknown.",
    ...rateLimited("listDomains"),
    complexity: pagedComplexity(DEFAULT_SIMILAR),
    args: { name: t.arg.string({ required: true, description: "The seed's name." }), ...similarArgs },
    resolve: async (_root, args, ctx, info) =>
      similarPage(
        ctx,
        domainReadOf(info, ["domains", "domain"]),
        [await findDomain(ctx, SEED, args)],
        [],
        args,
      ),
  }),
);

/** A seed's own read: its key and name (what findDomains adds), no column of the selection. */
const SEED: DomainRead = { fields: [], children: [] };

/** A cursor's position: the raw score and the ordinal of a page's last Domain. */
const POSITION: SortKey[] = [
  { field: "raw", dir: "desc", nullable: false, kind: "float" },
  { field: "ord", dir: "asc", nullable: false, kind: "int" },
];

async function similarPage(
  ctx: ReadContext,
  read: DomainRead,
  seeds: DomainRow[],
  notFound: string[],
  args: SimilarArgs,
): Promise<SimilarPage> {
  await checkPlans(ctx, args.filter);
  const set = await domainSetOf(ctx, { filter: args.filter, search: args.search }, null);
  const indexed = await set.indexed();
  if (!indexed) throw new Error("lookalikes: the served snapshot has no count index");
  const { index } = indexed;
  const seedPks = [...new Set(seeds.map((d) => Number(d.pk)))].sort((a, b) => a - b);
  const { snapshot } = servedOf(ctx);
  const scope = fingerprint(["similar", seedPks, args.filter, args.search]);
  let after: [number, number] | null = null;
  if (args.after != null) {
    const [raw, ord] = decodeCursor(args.after, "after", snapshot.version, scope, POSITION) as number[];
    if (!Number.isInteger(ord) || ord < 0 || ord >= index.n)
      throw new InputError("after", "is not a cursor returned by this query");
    after = [raw, ord];
  }
  const ords = new RoaringBitmap32(seedPks.map((pk) => index.pkToOrd[pk]).filter((o) => o >= 0));
  const found = rankSimilar(index, ords, indexed.bitmap, args.first ?? DEFAULT_SIMILAR, after);
  const byPk = plannedDomainByPk(ctx, withFields(read, ["pk", "name"]));
  const rows = await Promise.all(found.domains.map((r) => byPk.load(r.pk)));
  const domains: SimilarRow[] = [];
  for (const [i, r] of found.domains.entries()) {
    const domain = rows[i];
    if (domain) domains.push({ score: r.score, shared: r.shared, why: r.why, domain });
  }
  const last = found.domains.at(-1);
  return {
    total: found.total,
    notFound,
    domains,
    hasNextPage: found.hasNextPage,
    endCursor: last ? encodeCursor(snapshot.version, scope, [last.raw, last.ord]) : null,
  };
}
