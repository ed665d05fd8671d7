import type { FieldNode } from "graphql";
import { apiError } from "../errors.ts";
import {
  DEFAULT_BUCKETS,
  DEFAULT_FACET_SIZE,
  FACETS,
  type Facet,
  type Histogram,
  MAX_BUCKETS,
  MAX_DIMENSIONS,
  MAX_FACET_SIZE,
} from "../query/facets.ts";
import { MAX_SUGGESTIONS, meant, nearNames, unique } from "../query/suggest.ts";
import { enumName } from "../schema/facets.ts";
import { cachedDocument, call, field, operation, selection } from "./document.ts";
import { optionSuggester } from "./filter-options.ts";
import { APP_TABLES, DOMAIN_TABLES, type Input, type OptionDoc, optionOf } from "./inputs.ts";
import { type Options, splitList } from "./options.ts";
import { type Plan, type Route, readInto } from "./route.ts";
import { TextBytes } from "./text-bytes.ts";

/**
 * GET|POST /domain/facets and /app/facets (docs/decisions.md, "Facets"): the
 * facets and histograms of a list (src/query/facets.ts) for clients of the REST API. A request
 * takes the list's own filter options (`f:*`, `q`, `aq` for Domains) plus `facets`, `facet_size`
 * and `histogram`, and is the GraphQL operation of the same question, `domains(filter, search,
 * first: 0) { totalCount facets(by, size) { … } h0: histogram(…) { … } … }`, drawing once on the
 * list's budget. Dimensions and fields are named by their REST options (cc for countryCode, er
 * for estimatedSales), as the answer names them:
 *
 *   { "total": 1234,
 *     "facets": { "cc": [{ "value": "US", "count": 700 }, …], … },
 *     "other": { "cc": 30, "er": 0 }, "missing": { "cc": 4, "er": 12 },
 *     "histograms": { "er": [{ "from": 0, "to": 1000, "count": 17 }, …] } }
 *
 * `other` holds, per facet, the records with a value none of whose values is listed, and per
 * histogram, the records outside the bounds given; `missing`, the records without a value.
 */
type Table = keyof typeof FACETS;

/** The facets of a request that names neither facets nor histogram. */
export const DEFAULT_FACETS: Record<Table, readonly string[]> = {
  domain: ["cc", "p", "plan", "cat", "tech"],
  app: ["p", "categories", "as", "pricing"],
};

interface HistogramAsked {
  /** The REST name, as asked. */
  option: string;
  /** The GraphQL enum value. */
  field: string;
  buckets: number | null;
  bounds: number[] | null;
}

/** REST name → dimension or field, per table, made once. */
const OPTION_NAMES = Object.fromEntries(
  (Object.keys(FACETS) as Table[]).map((table) => [
    table,
    {
      dimensions: new Map(Object.entries(FACETS[table].dimensions).map(([k, d]) => [d.option, k])),
      histograms: new Map(Object.entries(FACETS[table].histograms).map(([k, h]) => [h.option, k])),
    },
  ]),
) as Record<Table, { dimensions: Map<string, string>; histograms: Map<string, string> }>;
/** A table's facet dimensions and histogram fields by their REST names (cc → countryCode). */
export const optionNames = (table: Table) => OPTION_NAMES[table];

/** A list option given as comma-separated text, or (in a JSON body) as an array of strings. */
export function listOption(o: Options, key: string): string[] {
  const raw = o.raw(key);
  if (raw === undefined || raw === null || raw === "") return [];
  if (Array.isArray(raw)) {
    if (raw.some((v) => typeof v !== "string"))
      throw apiError("BAD_USER_INPUT", `${key}: must be a list of strings, or one comma-separated string`);
    return raw.map((v) => v.trim()).filter((v) => v !== "");
  }
  return splitList(o.string(key) ?? "").filter((v) => v !== "");
}

/**
 * Names near an unknown one: a dimension or field is named as its filter is (cc for f:cc), so the
 * filters' own "did you mean" (country: f:cc) answers, and spelling (ccc: cc) where it does not.
 */
export function unknownName(key: string, what: string, name: string, valid: string[], table: Table): never {
  const tables = table === "domain" ? DOMAIN_TABLES : APP_TABLES;
  const filters = valid.map((v) => `f:${v}`);
  const near = unique([
    ...optionSuggester(
      filters,
      tables,
    )(`f:${name}`)
      .filter((o) => filters.includes(o))
      .map((o) => o.slice(2)),
    ...nearNames(name, valid),
  ]).slice(0, MAX_SUGGESTIONS);
  throw apiError(
    "BAD_USER_INPUT",
    `${key}: unknown ${what} "${name}"${meant(near)}; valid: ${valid.join(", ")}`,
  );
}

/**
 * The list option `key` of dimensions named as `facets=` names them (a segment's `spread` too):
 * each known, each once, at most `max`; a mistake is a 400 naming `key`.
 */
export function readDimensions(
  o: Options,
  key: string,
  table: Table,
  max: number,
): { option: string; dimension: string }[] {
  const names = optionNames(table);
  const dimensions = listOption(o, key).map((name) => {
    const d = names.dimensions.get(name);
    if (!d) unknownName(key, "dimension", name, [...names.dimensions.keys()], table);
    return { option: name, dimension: d };
  });
  const seen = new Set<string>();
  for (const d of dimensions) {
    if (seen.has(d.option)) throw apiError("BAD_USER_INPUT", `${key}: names ${d.option} twice`);
    seen.add(d.option);
  }
  if (dimensions.length > max)
    throw apiError("BAD_USER_INPUT", `${key}: takes at most ${max} dimensions; got ${dimensions.length}`);
  return dimensions;
}

/** `facets`, `facet_size` and `histogram` of a request, checked; a mistake is a 400 naming it. */
export function readFacetOptions(o: Options, table: Table) {
  const names = optionNames(table);
  const dimensions = readDimensions(o, "facets", table, MAX_DIMENSIONS);
  const size = o.int("facet_size", { min: 1, max: MAX_FACET_SIZE }) ?? DEFAULT_FACET_SIZE;
  const histograms = listOption(o, "histogram").map((item): HistogramAsked => {
    const colon = item.indexOf(":");
    const name = (colon < 0 ? item : item.slice(0, colon)).trim();
    const spec = colon < 0 ? "" : item.slice(colon + 1).trim();
    const f = names.histograms.get(name);
    if (!f) unknownName("histogram", "field", name, [...names.histograms.keys()], table);
    const asked = { option: name, field: enumName(f), buckets: null, bounds: null };
    if (spec === "") return asked;
    if (/^\d+$/.test(spec)) {
      const n = Number(spec);
      if (n < 1 || n > MAX_BUCKETS)
        throw apiError(
          "BAD_USER_INPUT",
          `histogram: ${name}: buckets must be from 1 to ${MAX_BUCKETS}; got ${n}`,
        );
      return { ...asked, buckets: n };
    }
    const bounds = spec.split("|").map((b) => b.trim());
    if (bounds.length < 2 || bounds.some((b) => !/^-?\d+$/.test(b) || !Number.isSafeInteger(Number(b))))
      throw apiError(
        "BAD_USER_INPUT",
        `histogram: ${name}: after the colon, a number of buckets (${name}:10) or two or more whole-number bounds separated by | (${name}:0|1000|100000); got "${spec}"`,
      );
    const numbers = bounds.map(Number);
    numbers.forEach((b, i) => {
      if (i > 0 && b <= numbers[i - 1])
        throw apiError(
          "BAD_USER_INPUT",
          `histogram: ${name}: bounds must increase strictly; ${b} follows ${numbers[i - 1]}`,
        );
    });
    if (numbers.length > MAX_BUCKETS + 1)
      throw apiError(
        "BAD_USER_INPUT",
        `histogram: ${name}: takes at most ${MAX_BUCKETS + 1} bounds; got ${numbers.length}`,
      );
    return { ...asked, bounds: numbers };
  });
  const fields = new Set<string>();
  for (const h of histograms) {
    if (fields.has(h.option)) throw apiError("BAD_USER_INPUT", `histogram: names ${h.option} twice`);
    fields.add(h.option);
  }
  // Neither asked: the dimensions a segment is first looked at by.
  if (!dimensions.length && !histograms.length)
    for (const option of DEFAULT_FACETS[table])
      dimensions.push({ option, dimension: names.dimensions.get(option) as string });
  return { dimensions, size, histograms };
}

/** The options of `facets`, `facet_size` and `histogram`, for the route table and OpenAPI. */
export function facetInput(table: Table): Input {
  const names = optionNames(table);
  const options: OptionDoc[] = [
    {
      name: "facets",
      type: "string",
      description: `Comma-separated dimensions to count the matching records by (at most ${MAX_DIMENSIONS}), each named as its filter: ${[...names.dimensions.keys()].join(", ")}. Without facets and histogram: ${DEFAULT_FACETS[table].join(",")}.`,
    },
    {
      name: "facet_size",
      type: "integer",
      description: `How many values of each dimension, the commonest first: 1 to ${MAX_FACET_SIZE} (default ${DEFAULT_FACET_SIZE}).`,
    },
    {
      name: "histogram",
      type: "string",
      description: `Comma-separated numbers to spread the records over: ${[...names.histograms.keys()].join(", ")}; each alone (${DEFAULT_BUCKETS} buckets, bounds chosen), with :n for n buckets (1 to ${MAX_BUCKETS}), or with :b1|b2|… for the bounds themselves.`,
    },
  ];
  // The variables are made per request (planFacets): the route's document is not the generic one.
  return { options, variables: {}, read: () => ({}) };
}

const FACET_SELECTION = selection(
  field("dimension"),
  field("values", [], selection(field("value"), field("count"))),
  field("otherCount"),
  field("missingCount"),
);
const HISTOGRAM_SELECTION = selection(
  field("buckets", [], selection(field("from"), field("to"), field("count"))),
  field("missingCount"),
  field("outsideCount"),
);

const ROOTS = { domain: "domains", app: "apps" } as const;
const TYPES = { domain: "Domain", app: "App" } as const;

/** GraphQL argument → the option it came from, beyond the filter's. */
const FACET_ARGUMENTS: Record<string, string> = {
  by: "facets",
  size: "facet_size",
  buckets: "histogram",
  bounds: "histogram",
};

/**
 * The plan of a facets request (a route with `facets`): the list's filter variables, read by the
 * route's inputs, and the operation asking for the facets and histograms of the request.
 */
export function planFacets(
  route: Route,
  table: Table,
  params: Record<string, string>,
  options: Options,
): Plan {
  const filterVariables = readInto({}, route.inputs, options, params);
  const { dimensions, size, histograms } = readFacetOptions(options, table);
  const type = TYPES[table];
  const variables: Record<string, unknown> = { ...filterVariables, first: 0 };
  const types: Record<string, string> = {
    filter: `${type}Filter`,
    search: "String",
    first: "Int",
  };
  const fields: FieldNode[] = [field("totalCount")];
  if (dimensions.length) {
    variables.by = dimensions.map((d) => enumName(d.dimension));
    variables.size = size;
    Object.assign(types, { by: `[${type}FacetDimension!]!`, size: "Int" });
    fields.push(call("facets", { by: "by", size: "size" }, FACET_SELECTION));
  }
  histograms.forEach((h, i) => {
    const v = `h${i}`;
    variables[`${v}field`] = h.field;
    variables[`${v}buckets`] = h.buckets;
    variables[`${v}bounds`] = h.bounds;
    Object.assign(types, {
      [`${v}field`]: `${type}HistogramField!`,
      [`${v}buckets`]: "Int",
      [`${v}bounds`]: "[SafeInt!]",
    });
    fields.push(
      call(
        "histogram",
        { field: `${v}field`, buckets: `${v}buckets`, bounds: `${v}bounds` },
        HISTOGRAM_SELECTION,
        v,
      ),
    );
  });
  const root = call(
    ROOTS[table],
    { filter: "filter", search: "search", first: "first" },
    selection(...fields),
  );
  const name = `${type}Facets`;
  const key = `${name}:${dimensions.length ? "f" : ""}:${histograms.length}`;
  return {
    key,
    document: () => cachedDocument(key, () => operation(name, types, root)),
    variables,
    envelope: (data) => {
      const list = data[ROOTS[table]] as {
        totalCount: number;
        facets?: Facet[];
        [alias: string]: unknown;
      };
      const answer = {
        total: list.totalCount,
        facets: {} as Record<string, { value: string; count: number }[]>,
        other: {} as Record<string, number>,
        missing: {} as Record<string, number>,
        histograms: {} as Record<string, { from: number; to: number; count: number }[]>,
      };
      // The facets come in the order of `by` (facetsOf), each naming its dimension as GraphQL does.
      dimensions.forEach((d, i) => {
        const f = list.facets?.[i];
        if (f?.dimension !== enumName(d.dimension))
          throw new Error(`facet ${i} of the answer is not ${d.dimension}'s`);
        answer.facets[d.option] = f.values;
        answer.other[d.option] = f.otherCount;
        answer.missing[d.option] = f.missingCount;
      });
      histograms.forEach((h, i) => {
        const got = list[`h${i}`] as Histogram;
        answer.histograms[h.option] = got.buckets;
        answer.other[h.option] = got.outsideCount;
        answer.missing[h.option] = got.missingCount;
      });
      const out = TextBytes.fresh(1024);
      out.write(JSON.stringify(answer));
      return out.done();
    },
    option: (argument) =>
      FACET_ARGUMENTS[argument.split(".")[0]] ?? optionOf(route.filters ?? null, argument),
  };
}

/** The JSON Schema of a facets answer (OpenAPI). */
export const FACETS_RESPONSE = {
  type: "object",
  required: ["total", "facets", "other", "missing", "histograms"],
  properties: {
    total: { type: "integer", description: "Matching records." },
    facets: {
      type: "object",
      description: "Per dimension asked for: its commonest values, by count (ties by value).",
      additionalProperties: {
        type: "array",
        items: {
          type: "object",
          required: ["value", "count"],
          properties: { value: { type: "string" }, count: { type: "integer" } },
        },
      },
    },
    other: {
      type: "object",
      description:
        "Per dimension: records with a value, none of whose values is listed. Per histogram: records outside the bounds given.",
      additionalProperties: { type: "integer" },
    },
    missing: {
      type: "object",
      description: "Per dimension and histogram: records without a value.",
      additionalProperties: { type: "integer" },
    },
    histograms: {
      type: "object",
      description: "Per histogram asked for: its buckets in order, from ≤ value < to.",
      additionalProperties: {
        type: "array",
        items: {
          type: "object",
          required: ["from", "to", "count"],
          properties: { from: { type: "integer" }, to: { type: "integer" }, count: { type: "integer" } },
        },
      },
    },
  },
} as const;
