import type { Scans } from "../cost.ts";
import { InputError } from "../errors.ts";
import { facetsOf } from "../query/facet-counts.ts";
import {
  APP_DIMENSIONS,
  APP_HISTOGRAMS,
  DEFAULT_BUCKETS,
  DEFAULT_FACET_SIZE,
  DOMAIN_DIMENSIONS,
  DOMAIN_HISTOGRAMS,
  type Facet,
  type FacetDimension,
  facetSize,
  type Histogram,
  type HistogramField,
  MAX_BUCKETS,
  MAX_DIMENSIONS,
  MAX_FACET_SIZE,
  type RecordSet,
  snakeName,
} from "../query/facets.ts";
import { histogramOf } from "../query/histograms.ts";
import type { Connection } from "../query/page.ts";
import { AppConnection } from "./app.ts";
import { builder, legacy } from "./builder.ts";
import { DomainConnection } from "./domain-queries.ts";

/**
 * `facets` and `histogram` on the Domain and App connections (src/query/facet-counts.ts and histograms.ts count them):
 * over the connection's own filter and search, whatever page it reads. Their cost is not the
 * page's (src/cost.ts charges each by its dimensions, once per connection, not per item).
 */

/** countryCode → COUNTRY_CODE, administrativeAreaLevel1 → ADMINISTRATIVE_AREA_LEVEL_1. */
export const enumName = (key: string) => snakeName(key).toUpperCase();

function dimensionEnum(name: string, dimensions: Record<string, FacetDimension>) {
  return builder.enumType(name, {
    description:
      "A dimension of the records: each is the list filter of the same name (its REST option in parentheses), so a value of a facet is a value that filter takes.",
    values: Object.fromEntries(
      Object.entries(dimensions).map(([key, d]) => [
        enumName(key),
        { value: key, description: `${d.description} (${d.option}).`, ...legacy(d.option) },
      ]),
    ) as Record<string, { value: string }>,
  });
}

function histogramEnum(name: string, fields: Record<string, HistogramField>) {
  return builder.enumType(name, {
    description: "A number of the records that a histogram spreads them over (its REST name in parentheses).",
    values: Object.fromEntries(
      Object.entries(fields).map(([key, f]) => [
        enumName(key),
        {
          value: key,
          description: `${f.description} (${f.option}); bounds chosen on a ${f.scale} scale by default.`,
          ...legacy(f.option),
        },
      ]),
    ) as Record<string, { value: string }>,
  });
}

export const DomainFacetDimension = dimensionEnum("DomainFacetDimension", DOMAIN_DIMENSIONS);
export const AppFacetDimension = dimensionEnum("AppFacetDimension", APP_DIMENSIONS);
export const DomainHistogramField = histogramEnum("DomainHistogramField", DOMAIN_HISTOGRAMS);
export const AppHistogramField = histogramEnum("AppHistogramField", APP_HISTOGRAMS);

export const HistogramScale = builder.enumType("HistogramScale", {
  description: "How a histogram's bounds are placed.",
  values: {
    LOG: { value: "log", description: "Equal ratios (1, 10, 100…), rounded to two significant digits." },
    LINEAR: { value: "linear", description: "Equal widths." },
    GIVEN: { value: "given", description: "As the request's bounds list them (output only)." },
  } as const,
});

const FacetValue = builder.objectRef<{ value: string; count: number }>("FacetValue").implement({
  description: "A value of a dimension and how many of the records have it.",
  fields: (t) => ({
    value: t.exposeString("value", { description: "As the dimension's filter takes it." }),
    count: t.exposeInt("count", { description: "Records with this value (each once)." }),
  }),
});

function facetType(name: string, dimension: typeof DomainFacetDimension) {
  return builder.objectRef<Facet>(name).implement({
    description:
      "How the records spread over one dimension: the values most of them have, by count (ties by value), and the rest.",
    fields: (t) => ({
      dimension: t.field({ type: dimension, resolve: (f) => f.dimension }),
      values: t.field({ type: [FacetValue], resolve: (f) => f.values }),
      otherCount: t.exposeInt("otherCount", {
        description: "Records with a value, none of which is among `values`.",
      }),
      missingCount: t.exposeInt("missingCount", { description: "Records without a value." }),
    }),
  });
}

const DomainFacet = facetType("DomainFacet", DomainFacetDimension);
const AppFacet = facetType("AppFacet", AppFacetDimension);

const HistogramBucket = builder
  .objectRef<{ from: number; to: number; count: number }>("HistogramBucket")
  .implement({
    description: "Records whose value v is from ≤ v < to.",
    fields: (t) => ({
      from: t.field({ type: "SafeInt", resolve: (b) => b.from }),
      to: t.field({ type: "SafeInt", resolve: (b) => b.to }),
      count: t.exposeInt("count"),
    }),
  });

const HistogramType = builder.objectRef<Histogram>("Histogram").implement({
  description: "How the records spread over the ranges of a number.",
  fields: (t) => ({
    field: t.exposeString("field", { description: "The field, as named in the request." }),
    scale: t.field({ type: HistogramScale, resolve: (h) => h.scale }),
    buckets: t.field({
      type: [HistogramBucket],
      description: "In order. Chosen bounds cover every value; none when no record has one.",
      resolve: (h) => h.buckets,
    }),
    missingCount: t.exposeInt("missingCount", { description: "Records without a value." }),
    outsideCount: t.exposeInt("outsideCount", {
      description: "Records with a value outside the bounds given (0 when chosen).",
    }),
  }),
});

const scopeOf = (c: unknown): RecordSet => {
  const scope = (c as Connection<Record<string, unknown>>).scope;
  if (!scope) throw new Error("a connection without a facet scope");
  return scope;
};

/** Facets and a histogram on a connection whose records are counted over `scope`. */
function facetFields(
  connection: typeof DomainConnection | typeof AppConnection,
  facet: typeof DomainFacet,
  dimension: typeof DomainFacetDimension,
  histogramField: typeof DomainHistogramField,
  table: Scans["table"],
) {
  builder.objectField(connection, "facets", (t) =>
    t.field({
      type: [facet],
      description: `How the connection's records (its filter and search, not only the page) spread over each dimension of by (at most ${MAX_DIMENSIONS}): the top size values of each (1 to ${MAX_FACET_SIZE}). Exact, and counted over the same snapshot as totalCount.`,
      extensions: {
        legacy: "facets",
        scans: { table, count: (a) => (a.by as unknown[]).length } satisfies Scans,
      },
      complexity: { field: 0, multiplier: 0 },
      args: {
        by: t.arg({ type: [dimension], required: true }),
        size: t.arg.int({ defaultValue: DEFAULT_FACET_SIZE }),
      },
      resolve: (c, args) => {
        if (args.by.length === 0) throw new InputError("by", "must name at least one dimension");
        return facetsOf(scopeOf(c), args.by as string[], facetSize(args.size));
      },
    }),
  );
  builder.objectField(connection, "histogram", (t) =>
    t.field({
      type: HistogramType,
      description: `How the connection's records spread over the ranges of a number: buckets bounds chosen (${DEFAULT_BUCKETS} by default, at most ${MAX_BUCKETS}), or the bounds given. Use aliases for several.`,
      // Its range (when bounds are chosen), then its counts.
      extensions: { legacy: "histogram", scans: { table, count: () => 2 } satisfies Scans },
      complexity: { field: 0, multiplier: 0 },
      args: {
        field: t.arg({ type: histogramField, required: true }),
        buckets: t.arg.int({ description: `How many buckets to choose bounds for (1 to ${MAX_BUCKETS}).` }),
        bounds: t.arg({
          type: ["SafeInt"],
          description:
            "The bounds, ascending: each bucket is from one to the next. Not with buckets or scale.",
        }),
        scale: t.arg({
          type: HistogramScale,
          description: "How chosen bounds are placed (default: the field's).",
        }),
      },
      resolve: (c, args) => {
        if (args.scale === "given")
          throw new InputError("scale", "GIVEN is what bounds do: give bounds instead");
        if (args.bounds && args.scale)
          throw new InputError("scale", "applies to chosen bounds, not to bounds given");
        return histogramOf(scopeOf(c), args.field as string, {
          buckets: args.buckets,
          bounds: args.bounds,
          scale: args.scale as "log" | "linear" | null | undefined,
        });
      },
    }),
  );
}

facetFields(DomainConnection, DomainFacet, DomainFacetDimension, DomainHistogramField, "domain");
facetFields(AppConnection, AppFacet, AppFacetDimension, AppHistogramField, "app");
