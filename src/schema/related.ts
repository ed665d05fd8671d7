import { type ReadContext, servedOf } from "../context.ts";
import { findDomain } from "../query/domain-read/lookup.ts";
import { type DomainRead, domainReadOf, reads, withFields } from "../query/domain-read/plan.ts";
import { plannedDomainByPk } from "../query/domain-read/read.ts";
import type { DomainRow } from "../query/loaders.ts";
import {
  DEFAULT_RELATED,
  MAX_RELATED,
  MAX_SHARED,
  type Related,
  relatedDomains,
  type SharedValue,
} from "../query/related.ts";
import { builder, legacy, pagedComplexity, rateLimited } from "./builder.ts";
import { Domain } from "./domain.ts";

/**
 * Related stores (src/query/related.ts): `Domain.related`, `relatedDomains(name)` (GET
 * /domain/{name}/related, drawing on List Domains as the issue asks of every way to find stores),
 * the MCP tool similar_domains (with name). Each related Domain comes with its score and the values it shares.
 */

/** What a related Domain's REST answer gives of it unless `fields` says otherwise. */
const RELATED_DOMAIN_FIELDS = ["name", "merchant_name", "platform", "country_code", "rank"];

const Shared = builder.objectRef<SharedValue>("SharedValue").implement({
  description:
    "A value two Domains share: an email, a phone, a social profile, a merchant name, a cluster, a redirect.",
  fields: (t) => ({
    type: t.exposeString("type", {
      description:
        "What the value is: email, phone, a social or review network's contact type, merchant_name, cluster (its best-ranked Domain) or redirect (the Domain redirected to).",
      ...legacy("type"),
    }),
    value: t.exposeString("value", {
      description:
        'The value as compared (docs/decisions.md, "Related stores"): an email lower-cased, a phone without its separators, a link without its scheme.',
      ...legacy("value"),
    }),
  }),
});

const TooCommon = builder.objectRef<SharedValue & { domains: number }>("TooCommonValue").implement({
  description: `One of the Domain's values that more than ${MAX_SHARED} Domains hold: no evidence, and its Domains are not listed.`,
  fields: (t) => ({
    type: t.exposeString("type", { description: "As in SharedValue.", ...legacy("type") }),
    value: t.exposeString("value", { description: "As in SharedValue.", ...legacy("value") }),
    domains: t.exposeInt("domains", { description: "How many Domains hold it.", ...legacy("domains") }),
  }),
});

interface RelatedRow {
  score: number;
  shared: SharedValue[];
  domain: DomainRow;
}

const RelatedDomain = builder.objectRef<RelatedRow>("RelatedDomain").implement({
  description: "A Domain that shares values with another, with which.",
  fields: (t) => ({
    score: t.exposeInt("score", { description: "How many values it shares.", ...legacy("score") }),
    shared: t.field({
      type: [Shared],
      description: "The values it shares, by type then value.",
      ...legacy("shared"),
      resolve: (r) => r.shared,
    }),
    domain: t.field({
      type: Domain,
      description: "The Domain.",
      ...legacy("domain", { defaultFields: RELATED_DOMAIN_FIELDS }),
      resolve: (r) => r.domain,
    }),
  }),
});

interface DomainRelatedRow extends Omit<Related, "related"> {
  domains: RelatedRow[];
}

const DomainRelated = builder.objectRef<DomainRelatedRow>("DomainRelated").implement({
  description: "The Domains related to one, best first, and the values too common to tell.",
  fields: (t) => ({
    total: t.exposeInt("total", { description: "How many Domains are related.", ...legacy("total") }),
    domains: t.field({
      type: [RelatedDomain],
      description: "The best `first` of them: by score, then rank (unranked last), then name.",
      ...legacy("domains"),
      resolve: (r) => r.domains,
    }),
    tooCommon: t.field({
      type: [TooCommon],
      description: `The Domain's values more than ${MAX_SHARED} Domains hold, by type then value.`,
      ...legacy("too_common"),
      resolve: (r) => r.tooCommon,
    }),
  }),
});

builder.objectField(Domain, "related", (t) =>
  t.field({
    type: DomainRelated,
    description:
      "The Domains that share an email, a phone, a social profile, a merchant name, a cluster or a redirect with this one (GET /domain/{name}/related).",
    ...rateLimited("listDomains"),
    extensions: { ...rateLimited("listDomains").extensions, ...reads(["pk", "name"]) },
    complexity: pagedComplexity(DEFAULT_RELATED),
    args: {
      first: t.arg.int({ description: `How many: default ${DEFAULT_RELATED}, at most ${MAX_RELATED}.` }),
    },
    resolve: (d, args, ctx, info) =>
      domainRelated(ctx, domainReadOf(info, ["domains", "domain"]), d, args.first ?? DEFAULT_RELATED),
  }),
);

/** The seed's own read: its key and name (what findDomain adds), no column of the selection. */
const SEED: DomainRead = { fields: [], children: [] };

builder.queryField("relatedDomains", (t) =>
  t.field({
    type: DomainRelated,
    description:
      "Related stores of the Domain `name` (GET /domain/{name}/related), as Domain.related answers them. NOT_FOUND when the Domain is unknown.",
    ...rateLimited("listDomains"),
    complexity: pagedComplexity(DEFAULT_RELATED),
    args: {
      name: t.arg.string({ required: true, description: "The Domain's name." }),
      first: t.arg.int({ description: `How many: default ${DEFAULT_RELATED}, at most ${MAX_RELATED}.` }),
    },
    resolve: async (_root, args, ctx, info) =>
      domainRelated(
        ctx,
        domainReadOf(info, ["domains", "domain"]),
        await findDomain(ctx, SEED, { name: args.name }),
        args.first ?? DEFAULT_RELATED,
      ),
  }),
);

async function domainRelated(
  ctx: ReadContext,
  read: DomainRead,
  d: DomainRow,
  first: number,
): Promise<DomainRelatedRow> {
  const found = await relatedDomains(servedOf(ctx).sql, Number(d.pk), first);
  const byPk = plannedDomainByPk(ctx, withFields(read, ["pk", "name"]));
  const rows = await Promise.all(found.related.map((r) => byPk.load(r.pk)));
  const domains: RelatedRow[] = [];
  for (const [i, r] of found.related.entries()) {
    const domain = rows[i];
    if (domain) domains.push({ score: r.score, shared: r.shared, domain });
  }
  return { total: found.total, domains, tooCommon: found.tooCommon };
}
