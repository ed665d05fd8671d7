/**
 * The fixed value lists of docs/api.md and docs/decisions.md, shared by the generator and the loader.
 */

/** docs/api.md 4.7 `f:features` values; `<P1> POS` is `Shopify POS`, `Gift Messasging` is spelled as the spec spells it. */
export const FEATURES = [
  "Brand Advocate Page",
  "Brands Page",
  "Contact Page",
  "Financing Page",
  "Free Returns",
  "Gift Messasging",
  "Has Android App",
  "Has iOS App",
  "International Shipping",
  "Public Company",
  "Returns Page",
  "Shopify POS",
  "Signature Required",
  "Store Locator Page",
  "Storefront API",
  "Tracking Page",
  "Tracking or Returns",
  "UPS Access Point",
  "Warranty Page",
  "Wholesale/Retailers Page",
] as const;
export type Feature = (typeof FEATURES)[number];

/** The four networks of the `Trending on` / `Dropping on` tags (docs/decisions.md). */
export const TAG_NETWORKS = ["TikTok", "Instagram", "Pinterest", "YouTube"] as const;
export type TagNetwork = (typeof TAG_NETWORKS)[number];

export const TAGS = [
  "Dropshipper",
  "Print on Demand",
  "Trending on TikTok",
  "Trending on Instagram",
  "Trending on Pinterest",
  "Trending on YouTube",
  "Dropping on TikTok",
  "Dropping on Instagram",
  "Dropping on Pinterest",
  "Dropping on YouTube",
] as const;
export type Tag = (typeof TAGS)[number];

/** `contact_info[].type` values (docs/decisions.md). */
export const CONTACT_TYPES = [
  "email",
  "phone",
  "facebook",
  "facebook_group",
  "instagram",
  "twitter",
  "tiktok",
  "youtube",
  "pinterest",
  "linkedin",
  "snapchat",
  "yelp",
] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];

/** The contact types that carry `followers`, `followers_30d` and `followers_90d`. */
export const FOLLOWER_CONTACT_TYPES = ["facebook", "instagram", "tiktok", "pinterest"] as const;
export type FollowerContactType = (typeof FOLLOWER_CONTACT_TYPES)[number];

export const DOMAIN_STATES = ["Active", "Inactive", "Password Protected", "Redirect"] as const;
export type DomainState = (typeof DOMAIN_STATES)[number];

export const APP_STATES = ["Active", "Inactive"] as const;
export type AppState = (typeof APP_STATES)[number];
