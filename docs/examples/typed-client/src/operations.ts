import { graphql } from "./generated/graphql/index.ts";

// The GraphQL operations of the example. `npm run generate` reads them (GraphQL Code Generator's
// client preset) and types each one: graphql(...) returns a document that carries its result and
// variables types, from schema.graphql.

/** An App, and the stores of one filter that have it installed, by estimated sales. */
export const AppInstalls = graphql(`
  query AppInstalls($platform: String!, $token: String!, $installedOn: DomainFilter, $first: Int) {
    app(platform: $platform, token: $token) {
      name
      vendorName
      averageRating
      reviewCount
      plans {
        name
        monthlyCost
      }
      installedOn(filter: $installedOn, first: $first, orderBy: [{ field: ESTIMATED_SALES, direction: DESC }]) {
        totalCount
        edges {
          node {
            name
            rank
            countryCode
            estimatedSales
          }
        }
      }
    }
  }
`);
