import { checkSegmentName } from "../db/segments.ts";
import { apiError } from "../errors.ts";
import { DOMAIN_MATCH, DOMAIN_TABLES, type Input } from "./inputs.ts";
import type { Route } from "./route.ts";
import { filterOptionsOf } from "./webhook-routes.ts";

/**
 * Beyond the legacy paths (docs/decisions.md, "Segments"): the segments of the key's account, each
 * path mapped onto its GraphQL operation (src/schema/segments.ts). PUT /segment/{name} takes List
 * Domains' options as its JSON body (f: options, q, aq, bq, as POST /domain takes them); a
 * segment's filter is answered in the same options, so what GET answers can be PUT back.
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

/** A segment as REST writes it: its filter and search in List Domains' options. */
const restSegment = (s: Record<string, unknown>) => {
  if (!("filter" in s) && !("search" in s)) return s;
  const { filter, search, ...rest } = s;
  const options = {
    ...(filterOptionsOf(filter) ?? {}),
    ...(typeof search === "string" ? { q: search } : {}),
  };
  return { ...rest, filter: options };
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
    "Save a segment: List Domains' options as the JSON body; made, or its filter replaced (compared from the next load on)",
  endpoint: "listDomains",
  type: "Segment",
  recordOf: restSegment,
  single: true,
  mutation: true,
  exclude: ["history"],
  inputs: [SEGMENT_PATH, DOMAIN_MATCH],
  option: segmentOption,
  query: [["saveSegment", ["name", "filter", "search"]]],
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
