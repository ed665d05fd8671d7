import { checkSegmentName } from "../db/segments.ts";
import { apiError } from "../errors.ts";
import { DOMAIN_DIMENSIONS } from "../query/facets.ts";
import { DEFAULT_SPREAD, SPREAD_LIMITS, spreadProblem } from "../query/segments.ts";
import { enumName } from "../schema/facets.ts";
import { optionNames, readDimensions } from "./facets.ts";
import { DOMAIN_MATCH, DOMAIN_TABLES, type Input } from "./inputs.ts";
import type { Route } from "./route.ts";
import { filterOptionsOf } from "./webhook-routes.ts";

/**
 * Beyond the legacy paths (docs/decisions.md, "Segments"): the segments of the key's account, each
 * path mapped onto its GraphQL operation (src/schema/segments.ts). PUT /segment/{name} takes List
 * Domains' options as its JSON body (f: options, q, aq, bq, as POST /domain takes them) and
 * `spread`, the dimensions counted at each load named as `facets=` names them; a segment's filter
 * and spread are answered in the same options, so what GET answers can be PUT back.
 */

/** The segment the path names. */
const SEGMENT_PATH: Input = {
  fromPath: true,
  options: [],
  variables: { name: "String!" },
  read(_o, params) {
    try {
      return { name: checkSegmentName(params.segment) };
    } catch (e) {
      throw apiError("BAD_USER_INPUT", `segment: ${(e as Error).message}`);
    }
  },
};

/** The path's segment is `segment` in error messages; the body's options name themselves. */
const segmentOption = (argument: string) => (argument === "name" ? "segment" : undefined);

/** A dimension's `facets=` name (cc) by its GraphQL enum name (COUNTRY_CODE), and by its own. */
const OPTION_OF_ENUM = new Map(Object.entries(DOMAIN_DIMENSIONS).map(([k, d]) => [enumName(k), d.option]));
const optionOf = (dimension: string) =>
  DOMAIN_DIMENSIONS[dimension as keyof typeof DOMAIN_DIMENSIONS]?.option ?? dimension;

/** `spread`: dimensions named as `facets=` names them, a JSON array or one comma-separated string. */
const SEGMENT_SPREAD: Input = {
  options: [
    {
      name: "spread",
      type: "array",
      items: { type: "string", enum: [...optionNames("domain").dimensions.keys()] },
      description: `The dimensions its members are counted over at each load, named as facets= names them (1 to ${SPREAD_LIMITS.dimensions}, each once; a JSON array, or one comma-separated string); default ${DEFAULT_SPREAD.map(optionOf).join(", ")}. Each keeps its ${SPREAD_LIMITS.values} commonest values; the next load counts it.`,
    },
  ],
  variables: { spread: "[DomainFacetDimension!]" },
  read(o) {
    const raw = o.raw("spread");
    if (raw === undefined || raw === null) return { spread: null };
    if (typeof raw !== "string" && !Array.isArray(raw))
      throw apiError(
        "BAD_USER_INPUT",
        `spread: must be a list of dimensions (a JSON array of strings, or one comma-separated string); got ${JSON.stringify(raw)}`,
      );
    const dimensions = readDimensions(o, "spread", "domain", SPREAD_LIMITS.dimensions).map(
      (d) => d.dimension,
    );
    const refused = spreadProblem(dimensions, optionOf);
    if (refused) throw apiError("BAD_USER_INPUT", `spread: ${refused}`);
    return { spread: dimensions.map(enumName) };
  },
};

/** A segment as REST writes it: its filter and search in List Domains' options, its spread as facets= names it. */
const restSegment = (s: Record<string, unknown>) => {
  const { filter, search, spread, ...rest } = s;
  const out: Record<string, unknown> = { ...rest };
  if ("filter" in s || "search" in s)
    out.filter = {
      ...(filterOptionsOf(filter) ?? {}),
      ...(typeof search === "string" ? { q: search } : {}),
    };
  if (Array.isArray(spread)) out.spread = spread.map((d) => OPTION_OF_ENUM.get(d as string) ?? d);
  return out;
};

const listSegments: Route = {
  methods: { GET: "listSegments" },
  path: "/segment",
  summary: "The segments of the API key's account, with their sizes in the served snapshot",
  endpoint: "listDomains",
  type: "Segment",
  recordOf: restSegment,
  uncached: true,
  exclude: ["history"],
  inputs: [],
  query: [["segments", []]],
  envelope: { segments: { records: "" } },
};

const retrieveSegment: Route = {
  methods: { GET: "retrieveSegment" },
  path: "/segment/{segment}",
  summary: "A segment: its filter, its size now, and its size, entries, exits and spread at each load",
  endpoint: "listDomains",
  type: "Segment",
  recordOf: restSegment,
  uncached: true,
  single: true,
  inputs: [SEGMENT_PATH],
  option: segmentOption,
  query: [["segment", ["name"]]],
  envelope: { segment: { record: "" } },
};

const saveSegment: Route = {
  methods: { PUT: "saveSegment" },
  path: "/segment/{segment}",
  summary:
    "Save a segment: List Domains' options and its spread as the JSON body; made, or its filter and spread replaced (compared and counted from the next load on)",
  endpoint: "listDomains",
  type: "Segment",
  recordOf: restSegment,
  single: true,
  mutation: true,
  exclude: ["history"],
  inputs: [SEGMENT_PATH, DOMAIN_MATCH, SEGMENT_SPREAD],
  option: segmentOption,
  query: [["saveSegment", ["name", "filter", "search", "spread"]]],
  envelope: { segment: { record: "" } },
  filters: DOMAIN_TABLES,
};

const deleteSegment: Route = {
  methods: { DELETE: "deleteSegment" },
  path: "/segment/{segment}",
  summary: "Delete a segment and its history; answers it as it was (its events stay in the feed)",
  endpoint: "listDomains",
  type: "Segment",
  recordOf: restSegment,
  single: true,
  mutation: true,
  exclude: ["history", "size"],
  inputs: [SEGMENT_PATH],
  option: segmentOption,
  query: [["deleteSegment", ["name"]]],
  envelope: { segment: { record: "" } },
};

export const SEGMENT_ROUTES: readonly Route[] = [listSegments, retrieveSegment, saveSegment, deleteSegment];
