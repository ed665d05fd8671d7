import type { GraphQLObjectType } from "graphql";
import { type CompiledQuery, compileQuery, isCompiledQuery } from "graphql-jit";
import { LRUCache } from "lru-cache";
import type { Context } from "../context.ts";
import type { SqlReader } from "../db/reader.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import { schema } from "../schema/index.ts";
import { field, operation, selection } from "./document.ts";
import { legacyWriter, parseFields, toSelectionSet } from "./fields.ts";

/**
 * The Domains of a page of an export or cursor=all job, as List Domains answers them, on the
 * export thread (src/rest/export-worker.ts): the same GraphQL schema and planned reads, the
 * operation compiled once per `fields` (graphql-jit), and each Domain written by the same legacy
 * writer as the REST envelope. One execution path: no second writer of Domains to keep equal.
 *
 * A page names up to a thousand Domains; domainsByName takes a hundred, so the page runs as
 * operations of a hundred, started together on one context: their lookups are one batch (one
 * planned read), and the rows they share (Apps, technologies) are read once.
 */
const CHUNK = 100;
const DOMAIN = schema.getType("Domain") as GraphQLObjectType;

const compiled = new LRUCache<string, CompiledQuery>({ max: 100 });

function compiledPage(fields: string): CompiledQuery {
  let query = compiled.get(fields);
  if (!query) {
    const sel = parseFields(fields, DOMAIN);
    const document = operation(
      "ExportPage",
      { names: "[String!]!" },
      field(
        "domainsByName",
        ["names"],
        selection(field("domains", [], toSelectionSet(sel)), field("notFound")),
      ),
    );
    const result = compileQuery(schema, document);
    if (!isCompiledQuery(result)) throw new Error(`export page: ${JSON.stringify(result.errors)}`);
    query = result;
    compiled.set(fields, query);
  }
  return query;
}

type Found = { domains: Record<string, unknown>[]; notFound: string[] };

/** The JSON text of the Domains `names` of the snapshot `sql` reads, in that order, with `fields`. */
export async function domainLines(
  sql: SqlReader,
  fields: string,
  names: readonly string[],
): Promise<string[]> {
  const query = compiledPage(fields);
  const write = legacyWriter(parseFields(fields, DOMAIN));
  // The context of a request, for the resolvers this operation reaches: they read the snapshot
  // through `sql` and the request's loaders, and nothing else of a request.
  const served = { sql } as ServedSnapshot;
  const ctx = { served, loaders: new Map(), apiKey: null } as unknown as Context;
  const chunks: Promise<string[]>[] = [];
  for (let i = 0; i < names.length; i += CHUNK) {
    chunks.push(
      Promise.resolve(query.query(undefined, ctx, { names: names.slice(i, i + CHUNK) })).then((result) => {
        if (result.errors?.length) throw result.errors[0].originalError ?? result.errors[0];
        const found = (result.data as { domainsByName: Found }).domainsByName;
        // The names come from a page of the same snapshot: one it lacks is a fault, not a gap.
        if (found.notFound.length)
          throw new Error(`${found.notFound.join(", ")} vanished from the snapshot that named them`);
        return found.domains.map(write);
      }),
    );
  }
  return (await Promise.all(chunks)).flat();
}
