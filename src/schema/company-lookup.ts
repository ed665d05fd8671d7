import { type ReadContext, servedOf } from "../context.ts";
import { InputError } from "../errors.ts";
import {
  type CompanyMatch,
  companyQuery,
  lookupCompany,
  MAX_COMPANIES,
  MAX_LOOKUP,
} from "../query/company-lookup.ts";
import { type DomainRead, domainReadOf, withFields } from "../query/domain-read/plan.ts";
import { plannedDomainByPk } from "../query/domain-read/read.ts";
import type { DomainRow } from "../query/loaders.ts";
import { builder, legacy, rateLimited } from "./builder.ts";
import { Domain } from "./domain.ts";

/**
 * Company to domain (src/query/company-lookup.ts): `domainLookup`, GET /domain/lookup, the MCP
 * tool lookup (with companies). Each match is the Domain with its score and the field that matched.
 */

interface Match {
  score: number;
  matched: CompanyMatch["matched"];
  domain: DomainRow;
}

/** What a lookup's REST answer gives of each Domain unless `fields` says otherwise. */
const MATCH_DOMAIN_FIELDS = ["name", "merchant_name", "title", "platform", "country_code", "rank"];

const DomainMatch = builder.objectRef<Match>("DomainMatch").implement({
  description: "A Domain that matches a company's name, with how well it does.",
  fields: (t) => ({
    score: t.exposeFloat("score", {
      description:
        "From 0 to 1: 1 when the text's words run together are the company's (docs/decisions.md, Company to domain).",
      ...legacy("score"),
    }),
    matched: t.exposeString("matched", {
      description: "The field whose text scored best: merchant_name, title or name.",
      ...legacy("matched"),
    }),
    domain: t.field({
      type: Domain,
      description: "The Domain.",
      ...legacy("domain", { defaultFields: MATCH_DOMAIN_FIELDS }),
      resolve: (m) => m.domain,
    }),
  }),
});

const DomainLookup = builder.objectRef<{ company: string; matches: Match[] }>("DomainLookup").implement({
  fields: (t) => ({
    company: t.exposeString("company", {
      description: "The company's name, as asked.",
      ...legacy("company"),
    }),
    matches: t.field({
      type: [DomainMatch],
      description: "The best matches, best first: by score, then rank, then name.",
      ...legacy("matches"),
      resolve: (r) => r.matches,
    }),
  }),
});

builder.queryField("domainLookup", (t) =>
  t.field({
    type: DomainLookup,
    description:
      "Company to domain (GET /domain/lookup): the Domains whose merchant name, title or name best match a company's name.",
    ...rateLimited("listDomains"),
    complexity: (args) => ({ field: 1, multiplier: args.first ?? 10 }),
    args: {
      company: t.arg.string({ required: true, description: "The company's name, as people write it." }),
      first: t.arg.int({ defaultValue: 10, description: `How many matches, 1 to ${MAX_LOOKUP}.` }),
    },
    resolve: (_root, args, ctx, info) =>
      domainLookup(ctx, domainReadOf(info, ["matches", "domain"]), args.company, args.first ?? 10),
  }),
);

builder.queryField("domainLookups", (t) =>
  t.field({
    type: [DomainLookup],
    description: `Company to domain for 1 to ${MAX_COMPANIES} companies at once (POST /domain/lookup): each company's best matches, in the order asked.`,
    ...rateLimited("listDomains"),
    complexity: (args) => ({ field: 1, multiplier: (args.companies?.length ?? 1) * (args.first ?? 10) }),
    args: {
      companies: t.arg.stringList({
        required: true,
        description: "The companies' names, as people write them.",
      }),
      first: t.arg.int({ defaultValue: 10, description: `How many matches for each, 1 to ${MAX_LOOKUP}.` }),
    },
    resolve: (_root, args, ctx, info) => {
      const { companies } = args;
      if (companies.length < 1 || companies.length > MAX_COMPANIES)
        throw new InputError(
          "companies",
          `must be 1 to ${MAX_COMPANIES} company names; got ${companies.length}`,
        );
      // Every name checked before any is looked up: the first bad one is named by its place.
      for (const [i, company] of companies.entries()) companyQuery(company, `companies[${i}]`);
      const read = domainReadOf(info, ["matches", "domain"]);
      return Promise.all(companies.map((c) => domainLookup(ctx, read, c, args.first ?? 10)));
    },
  }),
);

async function domainLookup(ctx: ReadContext, read: DomainRead, company: string, first: number) {
  const found = await lookupCompany(servedOf(ctx).sql, company, first);
  // One loader for every lookup of a request: a bulk's Domains are read together.
  const byPk = plannedDomainByPk(ctx, withFields(read, ["pk", "name"]));
  const rows = await Promise.all(found.map((m) => byPk.load(m.pk)));
  const matches: Match[] = [];
  for (const [i, m] of found.entries()) {
    const domain = rows[i];
    if (domain) matches.push({ score: m.score, matched: m.matched, domain });
  }
  return { company, matches };
}
