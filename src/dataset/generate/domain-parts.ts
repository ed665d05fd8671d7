import { type ContactType, type Feature, FOLLOWER_CONTACT_TYPES, TAG_NETWORKS, TAGS } from "../vocabulary.ts";
import type { Country } from "./countries.ts";
import { pools } from "./pools.ts";
import type { Rng } from "./rng.ts";
import type { Identity } from "./shapes.ts";
import { CONTACT_DESCRIPTIONS, CONTACT_SOURCES, slugify } from "./words.ts";

export interface LocationFields {
  administrative_area_level_1?: string;
  city?: string;
  location?: string;
  region?: string;
  subregion?: string;
  postal_code?: string;
  street_address?: string;
  latitude?: number;
  longitude?: number;
}

/**
 * Where the merchant is: administrative area, city and the text and coordinates derived from them.
 * Returns every key (undefined when absent) so that records keep one shape.
 */
export function locationFields(rng: Rng, country: Country | undefined): LocationFields {
  if (!country) return {};
  const known = rng.chance(0.92);
  const area = rng.chance(0.7) ? rng.pick(country.areas) : undefined;
  const city = area && rng.chance(0.85) ? rng.pick(area.cities) : undefined;
  const precise = city !== undefined && rng.chance(0.04);
  const coords = city !== undefined && rng.chance(0.85);
  return {
    administrative_area_level_1: area?.name,
    city: city?.name,
    location: area && rng.chance(0.9) ? (city ? `${city.name}, ${area.name}` : area.name) : undefined,
    region: known ? country.region : undefined,
    subregion: known ? country.subregion : undefined,
    postal_code: precise && country.postal !== "" ? postalCode(rng, country.postal) : undefined,
    street_address: precise ? rng.pick(pools().streets) : undefined,
    latitude: coords ? round(city.lat + rng.between(-0.05, 0.05), 4) : undefined,
    longitude: coords ? round(city.lon + rng.between(-0.05, 0.05), 4) : undefined,
  };
}

function postalCode(rng: Rng, pattern: string): string {
  let out = "";
  for (const ch of pattern) {
    if (ch === "#") out += String(rng.int(0, 9));
    else if (ch === "@") out += String.fromCharCode(65 + rng.int(0, 25));
    else out += ch;
  }
  return out;
}

// biome-ignore format: a table
const CONTACT_SHARES: readonly (readonly [ContactType, number])[] = [
  ["email", 0.7], ["phone", 0.4], ["facebook", 0.5], ["instagram", 0.55], ["twitter", 0.2], ["tiktok", 0.2],
  ["youtube", 0.15], ["pinterest", 0.15], ["linkedin", 0.1], ["snapchat", 0.03], ["yelp", 0.03], ["facebook_group", 0.02],
];
const FOLLOWER_TYPES: ReadonlySet<string> = new Set(FOLLOWER_CONTACT_TYPES);
const MAILBOXES = ["hello", "info", "support", "contact", "orders", "care", "team"];

export interface ContactEntry {
  type: ContactType;
  value: string;
  source: string;
  description?: string;
  followers?: number;
  followers_30d?: number;
  followers_90d?: number;
  posts?: number;
  likes?: number;
}

export function contactInfo(rng: Rng, who: Identity, rank: number, city?: string): ContactEntry[] {
  const out: ContactEntry[] = [];
  const reach = 2e6 * rank ** -0.6;
  for (const [type, share] of CONTACT_SHARES) {
    if (!rng.chance(share)) continue;
    const entry: ContactEntry = {
      type,
      value: contactValue(rng, type, who, city),
      source: rng.pick(CONTACT_SOURCES),
      description: rng.chance(0.15) ? rng.pick(CONTACT_DESCRIPTIONS) : undefined,
    };
    if (FOLLOWER_TYPES.has(type) && rng.chance(0.85)) {
      const followers = Math.round(Math.min(5e7, reach * rng.logNormal(0, 1.2)));
      entry.followers = followers;
      if (rng.chance(0.65)) {
        const gain90 = Math.round(followers * rng.between(0, 0.08));
        entry.followers_90d = gain90;
        entry.followers_30d = Math.round(gain90 * rng.between(0.2, 0.5));
      }
      if (type !== "facebook" && rng.chance(0.4)) entry.posts = rng.int(3, 3000);
      if ((type === "facebook" || type === "tiktok") && rng.chance(0.4)) {
        entry.likes = Math.round(Math.min(1.5e9, followers * rng.between(0.5, 4)));
      }
    }
    out.push(entry);
  }
  return out;
}

function contactValue(rng: Rng, type: ContactType, who: Identity, city?: string): string {
  const { base, handle } = who;
  switch (type) {
    case "email":
      return `${rng.pick(MAILBOXES)}@${who.tld1}`;
    case "phone":
      return `${who.country?.phone ?? "+1"} ${rng.int(200, 989)} ${rng.int(100, 999)} ${rng.int(1000, 9999)}`;
    case "facebook":
      return `https://www.facebook.com/${base}`;
    case "facebook_group":
      return `https://www.facebook.com/groups/${handle}`;
    case "instagram":
      return `https://www.instagram.com/${base}`;
    case "twitter":
      return `https://twitter.com/${base.slice(0, 15)}`;
    case "tiktok":
      return `https://www.tiktok.com/@${base}`;
    case "youtube":
      return `https://www.youtube.com/@${base}`;
    case "pinterest":
      return `https://www.pinterest.com/${base}`;
    case "linkedin":
      return `https://www.linkedin.com/company/${handle}`;
    case "snapchat":
      return `https://www.snapchat.com/add/${base.slice(0, 15)}`;
    case "yelp":
      return `https://www.yelp.com/biz/${handle}-${city ? slugify(city) : "online"}`;
  }
}

export interface Pages {
  contact_page?: string;
  brands_page?: string;
  retailer_page?: string;
  returns_page?: string;
  tracking_page?: string;
  warranty_page?: string;
  financing_page?: string;
  store_locator_page?: string;
  career_page?: string;
  sizing_page?: string;
  about_us?: string;
}

// biome-ignore format: [field, share, P1 path, other path, implied feature]
const PAGES: readonly (readonly [keyof Pages, number, string, string, Feature | undefined])[] = [
  ["contact_page", 0.6, "/pages/contact", "/contact", "Contact Page"],
  ["brands_page", 0.03, "/pages/brands", "/brands", "Brands Page"],
  ["retailer_page", 0.03, "/pages/wholesale", "/wholesale", "Wholesale/Retailers Page"],
  ["returns_page", 0.35, "/pages/returns", "/returns", "Returns Page"],
  ["tracking_page", 0.25, "/apps/track-order", "/track-order", "Tracking Page"],
  ["warranty_page", 0.08, "/pages/warranty", "/warranty", "Warranty Page"],
  ["financing_page", 0.05, "/pages/financing", "/financing", "Financing Page"],
  ["store_locator_page", 0.05, "/pages/store-locator", "/stores", "Store Locator Page"],
  ["career_page", 0.04, "/pages/careers", "/careers", undefined],
  ["sizing_page", 0.1, "/pages/size-guide", "/size-guide", undefined],
  ["about_us", 0.5, "/pages/about-us", "/about", undefined],
];

// biome-ignore format: [feature, share among stores, P1 only]
const OTHER_FEATURES: readonly (readonly [Feature, number, boolean])[] = [
  ["Free Returns", 0.08, false], ["Gift Messasging", 0.05, false], ["Has Android App", 0.02, false],
  ["Has iOS App", 0.03, false], ["International Shipping", 0.15, false], ["Public Company", 0.002, false],
  ["Shopify POS", 0.15, true], ["Signature Required", 0.01, false], ["Storefront API", 0.05, true],
  ["UPS Access Point", 0.01, false], ["Brand Advocate Page", 0.01, false],
];

/** Page URLs, and the features they imply plus a few independent ones. */
export function pagesAndFeatures(
  rng: Rng,
  name: string,
  isP1: boolean,
): { pages: Pages; features: Feature[] } {
  const urls: (string | undefined)[] = [];
  const features: Feature[] = [];
  for (const [, share, p1Path, otherPath, feature] of PAGES) {
    const present = rng.chance(share);
    urls.push(present ? `https://${name}${isP1 ? p1Path : otherPath}` : undefined);
    if (present && feature) features.push(feature);
  }
  // One literal with every key keeps a single object shape (see buildDomain).
  const pages: Pages = {
    contact_page: urls[0],
    brands_page: urls[1],
    retailer_page: urls[2],
    returns_page: urls[3],
    tracking_page: urls[4],
    warranty_page: urls[5],
    financing_page: urls[6],
    store_locator_page: urls[7],
    career_page: urls[8],
    sizing_page: urls[9],
    about_us: urls[10],
  };
  if (pages.returns_page || pages.tracking_page) features.push("Tracking or Returns");
  for (const [feature, share, p1Only] of OTHER_FEATURES) {
    if ((isP1 || !p1Only) && rng.chance(share)) features.push(feature);
  }
  return { pages, features };
}

export function tags(rng: Rng): string[] {
  const out: string[] = [];
  if (rng.chance(0.5)) out.push(TAGS[0]);
  if (rng.chance(0.25)) out.push(TAGS[1]);
  const network = rng.pick(TAG_NETWORKS);
  if (out.length === 0 || rng.chance(0.4))
    out.push(`${rng.chance(0.6) ? "Trending" : "Dropping"} on ${network}`);
  return out;
}

export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
