/* eslint-disable */
import * as types from './graphql.ts';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query AppInstalls($platform: String!, $token: String!, $installedOn: DomainFilter, $first: Int) {\n    app(platform: $platform, token: $token) {\n      name\n      vendorName\n      averageRating\n      reviewCount\n      plans {\n        name\n        monthlyCost\n      }\n      installedOn(filter: $installedOn, first: $first, orderBy: [{ field: ESTIMATED_SALES, direction: DESC }]) {\n        totalCount\n        edges {\n          node {\n            name\n            rank\n            countryCode\n            estimatedSales\n          }\n        }\n      }\n    }\n  }\n": typeof types.AppInstallsDocument,
};
const documents: Documents = {
    "\n  query AppInstalls($platform: String!, $token: String!, $installedOn: DomainFilter, $first: Int) {\n    app(platform: $platform, token: $token) {\n      name\n      vendorName\n      averageRating\n      reviewCount\n      plans {\n        name\n        monthlyCost\n      }\n      installedOn(filter: $installedOn, first: $first, orderBy: [{ field: ESTIMATED_SALES, direction: DESC }]) {\n        totalCount\n        edges {\n          node {\n            name\n            rank\n            countryCode\n            estimatedSales\n          }\n        }\n      }\n    }\n  }\n": types.AppInstallsDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AppInstalls($platform: String!, $token: String!, $installedOn: DomainFilter, $first: Int) {\n    app(platform: $platform, token: $token) {\n      name\n      vendorName\n      averageRating\n      reviewCount\n      plans {\n        name\n        monthlyCost\n      }\n      installedOn(filter: $installedOn, first: $first, orderBy: [{ field: ESTIMATED_SALES, direction: DESC }]) {\n        totalCount\n        edges {\n          node {\n            name\n            rank\n            countryCode\n            estimatedSales\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.ts').AppInstallsDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
