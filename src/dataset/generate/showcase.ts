import type { DomainState, Feature } from "../vocabulary.ts";
import { COUNTRIES, type Country } from "./countries.ts";
import type { Identity, Plan, Vendor } from "./shapes.ts";
import { TECHNOLOGIES } from "./technologies.ts";

/**
 * Fixed records that every generated dataset holds, whatever its seed and size: the names the
 * examples of README.md and docs/rest.md use (`shopify.klaviyo`, `shop.example.com`, ...), so that
 * each example answers something on the demo data. They take the first indices (Apps 0.., Domains 0..) and go through the
 * same generator as the rest: only the parts named here are fixed, everything else (ranks, dates,
 * traffic, the other Apps and technologies) is drawn as for any record, so every rule still holds.
 */

export interface ShowcaseApp {
  token: string;
  name: string;
  description: string;
  categories: string[];
  vendor: Vendor;
  plans: Plan[];
  createdMs: number;
  /** Reviews it has at least (in reviews.jsonl), so that its review list is never empty. */
  minReviews: number;
}

export const SHOWCASE_APPS: readonly ShowcaseApp[] = [
  {
    token: "klaviyo",
    name: "Klaviyo: Email Marketing & SMS",
    description: "Email and SMS marketing with automated flows that grow your store.",
    categories: ["Marketing", "Email marketing", "SMS marketing"],
    vendor: {
      name: "Klaviyo",
      slug: "klaviyo",
      countryCode: "US",
      address: "125 Summer St, Boston, Massachusetts, US",
    },
    plans: [
      { name: "Free", monthly_cost: "Free" },
      { name: "Email", monthly_cost: "$20/month", monthly_cost_cents: 2000 },
      { name: "Email and SMS", monthly_cost: "$35/month", monthly_cost_cents: 3500 },
    ],
    createdMs: Date.UTC(2016, 3, 12, 9, 30),
    minReviews: 25,
  },
];

export interface ShowcaseDomain {
  identity: Identity;
  state: DomainState;
  redirectsTo?: string[];
  /** Added to what the Domain draws. */
  features: Feature[];
  /** Showcase Apps (indices) it installs and reviews, first in its lists. */
  apps: number[];
  /** Technologies (names) it lists, besides those it draws. */
  technologies: string[];
}

const country = (code: string): Country => {
  const c = COUNTRIES.find((x) => x.code === code);
  if (!c) throw new Error(`no country ${code}`);
  return c;
};

const store = (name: string, handle: string, code: string) => ({
  name,
  tld1: "example.com",
  base: "example",
  handle,
  merchantName: "Example Goods",
  country: country(code),
});

/** One store under three names: its old address (redirecting), its home and its German shop. */
export const SHOWCASE_DOMAINS: readonly ShowcaseDomain[] = [
  {
    identity: store("shop.example.com", "example-goods-shop", "US"),
    state: "Redirect",
    redirectsTo: ["example.com"],
    features: ["Free Returns"],
    apps: [0],
    technologies: ["Klaviyo"],
  },
  {
    identity: store("example.com", "example-goods", "US"),
    state: "Active",
    features: ["Free Returns"],
    apps: [0],
    technologies: ["Klaviyo"],
  },
  {
    identity: store("de.example.com", "example-goods-de", "DE"),
    state: "Active",
    features: ["Free Returns"],
    apps: [0],
    technologies: ["Klaviyo"],
  },
];

/** The TECHNOLOGIES indices of each showcase Domain's fixed technologies. */
export const SHOWCASE_TECHNOLOGIES: readonly number[][] = SHOWCASE_DOMAINS.map((d) =>
  d.technologies.map((name) => {
    const t = TECHNOLOGIES.findIndex((x) => x.name === name);
    if (t < 0) throw new Error(`no technology ${name}`);
    return t;
  }),
);

/** The showcase Domains (indices) that review each showcase App, in order. */
export function showcaseReviewers(app: number): number[] {
  return SHOWCASE_DOMAINS.flatMap((d, i) => (d.apps.includes(app) ? [i] : []));
}
