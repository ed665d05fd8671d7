import { apiError } from "../errors.ts";
import { MAX_COMPANIES, MAX_LOOKUP } from "../query/company-lookup.ts";
import { DEFAULT_RELATED, MAX_RELATED } from "../query/related.ts";
import { DEFAULT_SIMILAR, MAX_SEEDS, MAX_SIMILAR } from "../query/similar.ts";
import { DOMAIN_MATCH, DOMAIN_PATH, DOMAIN_TABLES, domainNames, type Input } from "./inputs.ts";
import type { Route } from "./route.ts";

/**
 * Company to domain (docs/rest.md; src/query/company-lookup.ts): GET /domain/lookup?company=…, the
 * Domains whose merchant name, title or name best match, each with its score and the field that
 * matched, best first.
 */

const COMPANY: Input = {
  options: [
    {
      name: "company",
      type: "string",
      description:
        "The company's name as people write it (Allbirds, All Birds Inc.): matched against each Domain's merchant name, title and name (required).",
    },
    { name: "page_size", type: "integer", description: `How many matches, 1 to ${MAX_LOOKUP} (default 10).` },
  ],
  variables: { company: "String!", first: "Int" },
  read(o) {
    // Each option checked in the order they are listed: a bad page_size is named as such.
    const first = o.int("page_size", { min: 1, max: MAX_LOOKUP }) ?? 10;
    // Absent here; blank or without a word, by companyQuery, as on every face.
    const company = o.string("company");
    if (company === undefined)
      throw apiError("BAD_USER_INPUT", "company: is required: give the company's name (company=Allbirds)");
    return { company, first };
  },
};

const lookupDomains: Route = {
  methods: { GET: "lookupDomains" },
  path: "/domain/lookup",
  summary:
    "Company to domain: the Domains whose merchant name, title or name best match a company's name, with their scores, best first",
  endpoint: "listDomains",
  type: "DomainMatch",
  inputs: [COMPANY],
  query: [["domainLookup", ["company", "first"]]],
  envelope: {
    company: { value: "company", type: "string" },
    matches: { records: "matches" },
  },
};

/** The bulk's body: `companies`, 1 to MAX_COMPANIES names, and a page size for each. */
const COMPANIES: Input = {
  options: [
    {
      name: "companies",
      type: "array",
      items: { type: "string" },
      description: `1 to ${MAX_COMPANIES} companies' names as people write them, answered in this order.`,
    },
    {
      name: "page_size",
      type: "integer",
      description: `How many matches for each, 1 to ${MAX_LOOKUP} (default 10).`,
    },
  ],
  variables: { companies: "[String!]!", first: "Int" },
  read(o) {
    const first = o.int("page_size", { min: 1, max: MAX_LOOKUP }) ?? 10;
    const companies = o.raw("companies");
    const refuse = (what: string, problem: string) => {
      throw apiError("BAD_USER_INPUT", `${what}: ${problem}`);
    };
    if (!Array.isArray(companies))
      refuse(
        "companies",
        `must be a list of 1 to ${MAX_COMPANIES} company names; got ${companies === undefined ? "none" : typeof companies}`,
      );
    const list = companies as unknown[];
    if (list.length === 0 || list.length > MAX_COMPANIES)
      refuse("companies", `must be a list of 1 to ${MAX_COMPANIES} company names; got ${list.length}`);
    for (const [i, c] of list.entries())
      if (typeof c !== "string")
        refuse(
          `companies[${i}]`,
          `must be a company's name (a string); got ${c === null ? "null" : typeof c}`,
        );
    return { companies: list as string[], first };
  },
};

const bulkLookupDomains: Route = {
  methods: { POST: "bulkLookupDomains" },
  path: "/domain/lookup",
  summary:
    "Company to domain for up to 100 companies at once: each company's best-matching Domains, scored, in the order asked",
  endpoint: "listDomains",
  type: "DomainLookup",
  inputs: [COMPANIES],
  query: [["domainLookups", ["companies", "first"]]],
  envelope: { lookups: { records: "" } },
};

/**
 * Related stores (docs/rest.md; src/query/related.ts): GET /domain/{name}/related, the Domains that
 * share an email, a phone, a social profile, a merchant name, a cluster or a redirect with it.
 */
const RELATED_PAGE: Input = {
  options: [
    {
      name: "page_size",
      type: "integer",
      description: `How many related Domains, best first, 1 to ${MAX_RELATED} (default ${DEFAULT_RELATED}).`,
    },
  ],
  variables: { first: "Int" },
  read: (o) => ({ first: o.int("page_size", { min: 1, max: MAX_RELATED }) ?? DEFAULT_RELATED }),
};

const relatedDomains: Route = {
  methods: { GET: "relatedDomains" },
  path: "/domain/{name}/related",
  summary:
    "Related stores: the Domains that share an email, a phone, a social profile, a merchant name, a cluster or a redirect with a Domain, each with the values shared",
  endpoint: "listDomains",
  type: "DomainRelated",
  inputs: [DOMAIN_PATH, RELATED_PAGE],
  query: [["relatedDomains", ["name", "first"]]],
  envelope: { related: { record: "" } },
};

/**
 * Lookalikes (docs/rest.md; src/query/similar.ts): POST /domain/similar with 1 to MAX_SEEDS seeds,
 * GET /domain/{name}/similar for one, the candidates narrowed by any List Domains filter, paged by
 * cursor through the ranking.
 */
/** Lookalikes' seeds: a body's `domains`, 1 to MAX_SEEDS names. */
const SEED_NAMES: Input = {
  options: [
    {
      name: "domains",
      type: "array",
      description: `The seeds: 1 to ${MAX_SEEDS} domain names (your best customers, say). Names the snapshot does not have are listed in not_found.`,
      items: { type: "string" },
    },
  ],
  variables: { names: "[String!]!" },
  read: (o) => ({ names: domainNames(o, MAX_SEEDS) }),
};

const SIMILAR_PAGE: Input = {
  options: [
    {
      name: "page_size",
      type: "integer",
      description: `How many lookalikes, best first, 1 to ${MAX_SIMILAR} (default ${DEFAULT_SIMILAR}).`,
    },
    { name: "cursor", type: "string", description: "next_cursor of the previous page." },
  ],
  variables: { first: "Int", after: "String" },
  read: (o) => ({
    first: o.int("page_size", { min: 1, max: MAX_SIMILAR }) ?? DEFAULT_SIMILAR,
    after: o.string("cursor") || null,
  }),
};

const SIMILAR_ENVELOPE = {
  total: { value: "total", type: "integer" },
  similar: { records: "domains" },
  has_next_page: { value: "hasNextPage", type: "boolean" },
  next_cursor: { value: "endCursor", type: "string", when: "hasNextPage" },
} as const;

/** What the two lookalike routes share: their budget, records and filters. */
const SIMILAR = { endpoint: "listDomains", type: "SimilarDomain", filters: DOMAIN_TABLES } as const;

const similarDomains: Route = {
  ...SIMILAR,
  methods: { POST: "similarDomains" },
  path: "/domain/similar",
  summary:
    "Lookalikes: the Domains most like 1 to 1000 seed Domains (sharing their rarest Apps, technologies, categories, platform, plan, country and size bands), scored and explained, best first; any List Domains filter narrows the candidates",
  inputs: [SEED_NAMES, SIMILAR_PAGE, DOMAIN_MATCH],
  query: [["similarDomains", ["names", "filter", "search", "first", "after"]]],
  envelope: { ...SIMILAR_ENVELOPE, not_found: { value: "notFound", type: "string[]" } },
};

const domainSimilar: Route = {
  ...SIMILAR,
  methods: { GET: "domainSimilar" },
  path: "/domain/{name}/similar",
  summary:
    "Lookalikes of one Domain, as POST /domain/similar answers them for one seed; any List Domains filter narrows the candidates",
  inputs: [DOMAIN_PATH, SIMILAR_PAGE, DOMAIN_MATCH],
  query: [["similarToDomain", ["name", "filter", "search", "first", "after"]]],
  envelope: SIMILAR_ENVELOPE,
};

export const LOOKUP_ROUTES: readonly Route[] = [
  lookupDomains,
  bulkLookupDomains,
  relatedDomains,
  similarDomains,
  domainSimilar,
];
