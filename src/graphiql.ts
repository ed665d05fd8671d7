/** The operations GraphiQL opens with: each runs as is against the demo dataset (pick one with ▶). */
export const EXAMPLE_OPERATIONS = `# storegraph: online stores (Domains), the Apps they install, and App reviews.
# Pick an operation with the ▶ button. Docs: the book icon on the left.

query TopStoresInGermany {
  domains(
    filter: { countryCode: { values: ["DE"] }, platform: { values: ["shopify"] } }
    orderBy: [{ field: RANK }]
    first: 10
  ) {
    totalCount
    edges { node { name rank merchantName estimatedSales technologies { name } } }
    pageInfo { hasNextPage endCursor }
  }
}

query StoresWithFeaturesAndApps {
  domains(
    filter: {
      features: { values: ["Free Returns", "International Shipping"], op: AND }
      tags: { values: ["Dropshipper"], op: NOT }
      productCount: { min: 100 }
    }
    orderBy: [{ field: ESTIMATED_SALES, direction: DESC }]
    first: 5
  ) {
    edges { node { name estimatedSales productCount features apps { installedAt app { name platform } } } }
  }
}

# How a segment spreads: counts of its filter (not only of the page), exact, over the same snapshot.
query HowShopifyStoresInTheUSSpread {
  domains(filter: { countryCode: { values: ["US"] }, platform: { values: ["shopify"] } }, first: 0) {
    totalCount
    facets(by: [PLAN, CATEGORIES, APPS, TECHNOLOGIES], size: 5) {
      dimension values { value count } otherCount missingCount
    }
    sales: histogram(field: ESTIMATED_SALES, buckets: 6) { scale buckets { from to count } missingCount }
  }
}

# A store by name: the default below, or another in Variables, e.g. {"name": "de.example.com"}.
query OneStore($name: String! = "shop.example.com") {
  domain(name: $name, followRedirects: true) {
    name state platform rank countryCode
    theme { name vendor }
    contactInfo { type value }
    appReviews(first: 3) { edges { node { rating body app { name } } } }
  }
}

query TopApps {
  apps(filter: { platform: { values: ["shopify"] } }, orderBy: [{ field: INSTALLS, direction: DESC }], first: 5) {
    edges {
      node {
        name token averageRating reviewCount installs
        plans { name monthlyCost }
        reviews(first: 2) { edges { node { rating body merchantName } } }
        installedOn(first: 3) { totalCount edges { node { name rank } } }
      }
    }
  }
}

# The change feed: what the last load changed. Page on with after: pageInfo.endCursor, which
# stays good across loads.
query WhatChanged {
  changes(filter: { kinds: [domain_added, platform_changed, app_installed] }, first: 10) {
    nodes { id version kind domainName app { name } before after }
    pageInfo { hasNextPage endCursor }
  }
}

query Snapshot {
  snapshot { version loadedAt domains apps reviews }
}
`;
