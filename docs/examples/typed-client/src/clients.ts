import createClient from "openapi-fetch";
import type { TypedDocumentString } from "./generated/graphql/graphql.ts";
import type { paths } from "./generated/openapi.ts";

export interface Server {
  /** e.g. http://localhost:8080 */
  url: string;
  /** An API key (sg_...). */
  key: string;
}

/** REST: every path, option and answer of docs/openapi.json, typed (openapi-fetch). */
export function restClient(server: Server) {
  return createClient<paths>({
    baseUrl: `${server.url.replace(/\/+$/, "")}/json/api/v1/all`,
    headers: { authorization: `Bearer ${server.key}` },
  });
}
export type RestClient = ReturnType<typeof restClient>;

/**
 * GraphQL with plain fetch: sends an operation that GraphQL Code Generator typed (a
 * TypedDocumentString, made by graphql(...) in src/operations.ts), so its variables are checked and
 * its result is typed, with no GraphQL client library.
 */
export function graphqlClient(server: Server) {
  return async function request<TResult, TVariables>(
    document: TypedDocumentString<TResult, TVariables>,
    variables: TVariables,
  ): Promise<TResult> {
    const response = await fetch(`${server.url.replace(/\/+$/, "")}/graphql`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${server.key}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({ query: document.toString(), variables }),
    });
    const body = (await response.json()) as {
      data?: TResult | null;
      errors?: { message: string; extensions?: { code?: string } }[];
    };
    if (body.errors?.length || !body.data) {
      const first = body.errors?.[0];
      throw new Error(
        `GraphQL: HTTP ${response.status} ${first?.extensions?.code ?? ""} ${first?.message ?? ""}`,
      );
    }
    return body.data;
  };
}
export type GraphqlRequest = ReturnType<typeof graphqlClient>;
