import { type GraphQLResolveInfo, Kind } from "graphql";
import { type Connection, MAX_OFFSET } from "../query/page.ts";
import { builder } from "./builder.ts";

/** `offset` for the small connections (Apps, reviews), which the legacy `page` option needs. */
export const offsetArg = () =>
  builder.args((t) => ({
    offset: t.int({
      description: `Rows to skip before the page (at most ${MAX_OFFSET}); not with after. Prefer after.`,
    }),
  }));

/** Forward keyset paging arguments shared by every connection. */
export const pageArgs = (max: number) =>
  builder.args((t) => ({
    first: t.int({ description: `Page size: default ${Math.min(50, max)}, at most ${max}.` }),
    after: t.string({ description: "The endCursor of the previous page." }),
  }));

/** A connection type with `totalCount`, over resolvers that return src/query/page.ts Connection. */
export function connectionOf<T extends Parameters<typeof builder.connectionObject>[0]["type"]>(
  type: T,
  name: string,
) {
  return builder.connectionObject(
    {
      type,
      name: `${name}Connection`,
      fields: (t) => ({
        totalCount: t.int({
          description: "Number of matching nodes (counted only when selected).",
          resolve: (c) => (c as unknown as Connection<unknown & Record<string, unknown>>).totalCount(),
        }),
      }),
    },
    { name: `${name}Edge` },
  );
}

/**
 * Whether a connection field's selection reads its page: `edges` or `pageInfo`, or a fragment
 * (which is not looked into: it may). `totalCount`, `facets` and `histogram` alone read no row.
 */
export function selectsPage(info: GraphQLResolveInfo): boolean {
  return info.fieldNodes.some((node) =>
    (node.selectionSet?.selections ?? []).some(
      (s) => s.kind !== Kind.FIELD || s.name.value === "edges" || s.name.value === "pageInfo",
    ),
  );
}
