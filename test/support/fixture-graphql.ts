import { type Fixture, type Json, validFixture } from "./fixture.ts";

/**
 * validFixture() grown for query-count tests: the 4 Domains, 3 Apps and 2 reviews of the fixture,
 * plus
 * - `extraApps` shopify Apps `app-c0`, `app-c1`, … (token `clone-app-<k>`, with categories and plans);
 * - `clones` copies of the rich Domain shop.example.com, `shop-<i>.example.com` (i = 0..clones-1),
 *   each Active, rank 100 + i, platform rank 4 + i, with the fixture's two Apps (Klaviyo, and Old
 *   Reviews uninstalled) plus the extra App `app-c<i mod extraApps>`;
 * - one review of Klaviyo per clone, listing the clone and a store the dataset does not have.
 *
 * The loader's cross-record rules (docs/dataset.md) stay satisfied: Klaviyo's installs become
 * 1 + clones (every clone is Active and lists it without removed_at), each extra App's installs is
 * the number of clones listing it, Google Analytics' installs is 2 + clones on every Domain that
 * lists it, ranks and platform ranks are unique and their percentiles never rise as the rank gets
 * worse, and Klaviyo's review_count covers its 2 + clones reviews.
 */
export function manyDomainsFixture(clones: number, extraApps = 30): Fixture {
  const f = validFixture();
  const [klaviyo] = f.apps;
  const rich = f.domains[0];

  const extra: Json[] = [];
  for (let k = 0; k < extraApps; k++) {
    extra.push({
      id: `app-c${k}`,
      token: `clone-app-${k}`,
      platform: "shopify",
      name: `Clone App ${k}`,
      description: `Clone app number ${k}`,
      app_store_url: `https://apps.shopify.com/clone-app-${k}`,
      icon_url: `https://cdn.example.com/clone-app-${k}.png`,
      average_rating: "4.1",
      review_count: 0,
      categories: ["Marketing", `Group ${k % 3}`],
      state: "Active",
      created_at: "2020-02-02T02:02:02",
      installs: 0,
      plans: [
        { name: "Free", monthly_cost: "Free" },
        { name: "Plus", monthly_cost: "$9/month", monthly_cost_cents: 900 + k },
      ],
      vendor_name: `Clone Vendor ${k}`,
      vendor_url: `https://apps.shopify.com/partners/clone-vendor-${k}`,
    });
  }

  const technologyInstalls = 2 + clones;
  const withInstalls = (d: Json) => ({
    ...d,
    technologies: (d.technologies as Json[] | undefined)?.map((t) => ({
      ...t,
      installs: technologyInstalls,
    })),
  });
  const domains: Json[] = f.domains.map(withInstalls);

  const reviews: Json[] = [...f.reviews];
  for (let i = 0; i < clones; i++) {
    const name = `shop-${i}.example.com`;
    const platformDomain = `shop-${i}.myshopify.com`;
    const app = extraApps > 0 ? extra[i % extraApps] : null;
    if (app) app.installs = (app.installs as number) + 1;
    domains.push(
      withInstalls({
        ...rich,
        name,
        platform_domain: platformDomain,
        aliases: [`www.shop-${i}.example.com`],
        cluster_domains: [name],
        cluster_best_ranked: name,
        merchant_name: `Clone Shop ${i}`,
        title: `Clone Shop ${i}`,
        rank: 100 + i,
        rank_percentile: 90 - i * 0.01,
        platform_rank: 4 + i,
        platform_rank_percentile: 90 - i * 0.01,
        apps: [
          ...(rich.apps as Json[]),
          ...(app
            ? [
                {
                  id: app.id,
                  platform: "shopify",
                  token: app.token,
                  name: app.name,
                  installed_at: "2022-03-03T00:00:00Z",
                },
              ]
            : []),
        ],
      }),
    );
    reviews.push({
      updated_at: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString().replace(".000Z", "Z"),
      body: `Review ${i}`,
      merchant_name: `Clone Shop ${i}`,
      rating: 1 + (i % 5),
      app: {
        id: "app-1",
        name: "Klaviyo",
        app_store_url: "https://apps.shopify.com/klaviyo",
        vendor_name: "Klaviyo Inc.",
      },
      domains: [
        { platform_domain: platformDomain, name, platform_rank: 4 + i },
        {
          platform_domain: `gone-${i}.myshopify.com`,
          name: `gone-${i}.example.com`,
          platform_rank: 5000 + i,
        },
      ],
    });
  }

  const apps: Json[] = [
    { ...klaviyo, installs: 1 + clones, review_count: 2 + clones },
    ...f.apps.slice(1),
    ...extra,
  ];
  return { apps, domains, reviews };
}
