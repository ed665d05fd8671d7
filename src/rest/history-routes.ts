import { apiError } from "../errors.ts";
import { FACETS } from "../query/facets.ts";
import { MAX_HISTORY, MAX_TREND_VALUES } from "../query/history.ts";
import { enumName } from "../schema/facets.ts";
import { unknownName } from "./facets.ts";
import { DOMAIN_PATH, type Input } from "./inputs.ts";
import type { Route } from "./route.ts";

/**
 * Beyond the legacy paths (docs/decisions.md, "History"): a facet dimension's trend across the
 * loads kept, a Domain's changes newest first, and a Domain as it was at a load (Retrieve a
 * Domain with `as_of`, answered by retrieveDomainAsOf), each mapped onto its GraphQL field
 * (src/schema/history.ts) as every route is.
 */

type Table = "domain" | "app";

/** `dimension`: a dimension named as `facets=` names it (its filter's option without `f:`). */
const dimensionInput = (table: Table): Input => {
  const names = new Map(Object.entries(FACETS[table].dimensions).map(([k, d]) => [d.option, k]));
  const valid = [...names.keys()];
  return {
    options: [
      {
        name: "dimension",
        type: "string",
        description: `The dimension, named as facets= names it: ${valid.join(", ")} (required).`,
      },
    ],
    variables: { dimension: table === "domain" ? "DomainFacetDimension!" : "AppFacetDimension!" },
    read(o) {
      const name = o.string("dimension")?.trim();
      if (!name) throw apiError("BAD_USER_INPUT", `dimension: is required; valid: ${valid.join(", ")}`);
      const key = names.get(name);
      // Named as facets= names it, and so suggested as facets= does (platform: p, as f:platform: f:p).
      if (!key) unknownName("dimension", "dimension", name, valid, table);
      return { dimension: enumName(key) };
    },
  };
};

const TREND_OPTIONS: Input = {
  options: [
    {
      name: "values",
      type: "string",
      description: `Comma-separated values to count, as the facets name them (1 to ${MAX_TREND_VALUES}); without it, the top values of the newest load.`,
    },
    {
      name: "top",
      type: "integer",
      description: "Without values: how many of the newest load's top values, 1 to 100 (default 10).",
    },
    {
      name: "since",
      type: "string",
      description:
        "The loads from this point: a snapshot version (included), or an RFC 3339 time or a date (loads published then or later).",
    },
    {
      name: "until",
      type: "string",
      description:
        "The loads up to this point: a snapshot version (included), or a time or a date (published before it).",
    },
  ],
  variables: { values: "[String!]", top: "Int", since: "String", until: "String" },
  read(o) {
    const values = o.string("values");
    return {
      values: values === undefined ? null : values.split(",").map((v) => v.trim()),
      top: o.int("top", { min: 1, max: 100 }) ?? null,
      since: o.string("since") || null,
      until: o.string("until") || null,
    };
  },
};

const trendRoute = (table: Table): Route => ({
  methods: { GET: table === "domain" ? "domainTrends" : "appTrends" },
  path: table === "domain" ? "/trends" : "/app/trends",
  summary: `Trends of a${table === "domain" ? " Domain" : "n App"} dimension: its counts in each load kept, oldest first`,
  endpoint: table === "domain" ? "listDomains" : "listApps",
  type: "TrendLoad",
  inputs: [dimensionInput(table), TREND_OPTIONS],
  query: [[table === "domain" ? "trends" : "appTrends", ["dimension", "values", "top", "since", "until"]]],
  envelope: {
    dimension: { value: "dimension", type: "string" },
    values: { value: "values", type: "string[]" },
    loads: { records: "loads" },
  },
});

const HISTORY_PAGE: Input = {
  options: [
    { name: "page_size", type: "integer", description: `Page size, 1 to ${MAX_HISTORY} (default 100).` },
    {
      name: "cursor",
      type: "string",
      description: "next_cursor of the previous page: the changes before it (older).",
    },
  ],
  variables: { first: "Int", after: "String" },
  read: (o) => ({
    first: o.int("page_size", { min: 1, max: MAX_HISTORY }) ?? 100,
    after: o.string("cursor") || null,
  }),
};

const domainHistory: Route = {
  methods: { GET: "domainHistory" },
  path: "/domain/{name}/history",
  summary: "A Domain's changes across the change feed, newest first, paged by cursor",
  // Its operation's root field is the Domain's (and its history draws on List Domains).
  endpoint: "retrieveDomain",
  type: "Change",
  inputs: [DOMAIN_PATH, HISTORY_PAGE],
  query: [
    ["domain", ["name"]],
    ["history", ["first", "after"]],
  ],
  envelope: {
    changes: { records: "nodes" },
    has_next_page: { value: "pageInfo.hasNextPage", type: "boolean" },
    next_cursor: { value: "pageInfo.endCursor", type: "string", when: "pageInfo.hasNextPage" },
  },
};

const AS_OF_DESCRIPTION =
  "The Domain as it was at a load: a published snapshot version, or an RFC 3339 time or a date (the load served then). Answers only the fields the change feed covers (covers lists them); 404 when the Domain was not in that load, 410 when the feed pruned the events since.";

/** Retrieve a Domain's `as_of`: read by its variant (retrieveDomainAsOf); the route itself takes none. */
export const AS_OF_OPTION: Input = {
  options: [{ name: "as_of", type: "string", description: AS_OF_DESCRIPTION }],
  variables: {},
  read: () => ({}),
};

/** Retrieve a Domain with `as_of`: the Domain as it was (GraphQL domainAsOf). */
export const retrieveDomainAsOf: Route = {
  methods: { GET: "retrieveDomain" },
  path: "/domain/{name}",
  summary: "Retrieve a Domain as it was at a load",
  endpoint: "retrieveDomain",
  type: "DomainAsOf",
  single: true,
  inputs: [
    DOMAIN_PATH,
    {
      options: [],
      variables: { asOf: "String!" },
      read(o) {
        if (o.has("follow_redirects"))
          throw apiError(
            "BAD_USER_INPUT",
            "follow_redirects: not served with as_of (a Domain as it was is looked up by its name)",
          );
        return { asOf: o.string("as_of") ?? "" };
      },
    },
  ],
  query: [["domainAsOf", ["name", "asOf"]]],
  envelope: { domain: { record: "" } },
  option: (argument) => (argument === "asOf" ? "as_of" : undefined),
};

export const HISTORY_ROUTES: readonly Route[] = [trendRoute("domain"), trendRoute("app"), domainHistory];
