import { P1, PLATFORM_LIST } from "../platforms.ts";
import { mix32 } from "./rng.ts";

/**
 * What the generator knows about each platform: its share of Domains (and how much more often it
 * powers the best-ranked ones), its share of Apps, its plans, themes, platform domain and app store.
 */

/** [platform, share of Domains, multiplier of that share among the top 1% of ranks]. */
// biome-ignore format: a table
const DOMAIN_SHARES: [string, number, number][] = [
  [P1, 0.6, 1], ["woocommerce", 0.13, 0.5], ["wix", 0.045, 0.2], ["squarespace", 0.04, 0.3],
  ["bigcommerce", 0.025, 2], ["magento", 0.02, 4], ["custom", 0.02, 6], ["ecwid", 0.012, 0.3],
  ["prestashop", 0.012, 1], ["webflow", 0.01, 1], ["opencart", 0.008, 0.5], ["shopware", 0.006, 3],
  ["weebly", 0.006, 0.1], ["godaddy-online-store", 0.006, 0.1], ["square-online", 0.006, 0.1],
  ["bigcartel", 0.004, 0.1], ["salesforce-commerce-cloud", 0.003, 25], ["shift4shop", 0.003, 0.5],
  ["volusion", 0.003, 0.5], ["kajabi", 0.003, 0.5], ["tiendanube", 0.003, 0.5], ["nuvemshop", 0.003, 0.5],
  ["lightspeed-ecom", 0.003, 1], ["jimdo", 0.003, 0.1], ["vtex", 0.002, 6], ["duda", 0.002, 0.2],
  ["shoptet", 0.002, 0.5], ["cafe24", 0.002, 1], ["salla", 0.002, 0.5], ["tilda", 0.002, 0.3],
  ["gumroad", 0.002, 0.2], ["shopline", 0.002, 0.5], ["shoplazza", 0.002, 0.5], ["shopbase", 0.002, 0.3],
  ["sap-commerce-cloud", 0.001, 20], ["miva", 0.001, 3], ["x-cart", 0.001, 1], ["cs-cart", 0.001, 1],
  ["zen-cart", 0.001, 0.5], ["nopcommerce", 0.001, 1], ["ekm", 0.001, 0.5], ["plentymarkets", 0.001, 1],
  ["jtl-shop", 0.001, 1], ["gambio", 0.001, 0.5], ["epages", 0.001, 0.5], ["zid", 0.001, 0.5],
  ["insales", 0.001, 0.5], ["oscommerce", 0.0008, 0.5], ["commercetools", 0.0005, 20],
  ["oracle-commerce", 0.0005, 15], ["hcl-commerce", 0.0005, 15], ["kibo-commerce", 0.0003, 10],
  ["elastic-path", 0.0003, 10], ["spryker", 0.0003, 10],
];
const TAIL_SHARE = 0.01;

/** Share of Apps by platform: most Apps are P1's. */
export const APP_SHARES: readonly (readonly [string, number])[] = [
  [P1, 72],
  ["woocommerce", 9],
  ["bigcommerce", 5],
  ["wix", 4],
  ["magento", 3],
  ["prestashop", 2],
  ["shopware", 1.5],
  ["ecwid", 1.5],
  ["squarespace", 1],
  ["opencart", 1],
];

export interface DomainShare {
  platform: string;
  weight: number;
  topWeight: number;
}

/** Every platform of platforms.txt with a share; the tail follows a power law in a fixed scrambled order. */
export function domainShares(): DomainShare[] {
  const head = new Set(DOMAIN_SHARES.map((d) => d[0]));
  const tail = PLATFORM_LIST.filter((p) => !head.has(p)).sort((a, b) => hashName(a) - hashName(b));
  const tailWeights = tail.map((_, i) => 1 / (i + 1));
  const tailTotal = tailWeights.reduce((s, w) => s + w, 0);
  return [
    ...DOMAIN_SHARES.map(([platform, weight, boost]) => ({ platform, weight, topWeight: weight * boost })),
    ...tail.map((platform, i) => {
      const weight = (TAIL_SHARE * tailWeights[i]) / tailTotal;
      return { platform, weight, topWeight: weight };
    }),
  ];
}

function hashName(name: string): number {
  let h = 7;
  for (let i = 0; i < name.length; i++) h = mix32(h ^ name.charCodeAt(i));
  return h;
}

// biome-ignore format: a table
export const PLANS: Readonly<Record<string, readonly (readonly [string, number])[]>> = {
  [P1]: [["Basic", 38], ["Shopify", 16], ["Advanced", 4], ["Shopify Plus", 3], ["Starter", 5], ["Trial", 6],
    ["Development", 4], ["Paused", 3], ["Frozen", 2], ["Dormant", 2], ["Staff", 1], ["Affiliate", 1]],
  bigcommerce: [["Standard", 5], ["Plus", 4], ["Pro", 2], ["Enterprise", 1]],
  wix: [["Light", 3], ["Core", 4], ["Business", 3], ["Business Elite", 1], ["Free", 2]],
  squarespace: [["Personal", 2], ["Business", 5], ["Commerce Basic", 3], ["Commerce Advanced", 1]],
  webflow: [["Basic", 2], ["CMS", 3], ["Business", 1], ["Standard Ecommerce", 3], ["Plus Ecommerce", 1]],
  ecwid: [["Free", 4], ["Venture", 3], ["Business", 2], ["Unlimited", 1]],
  shift4shop: [["End-to-End Ecommerce", 3], ["Basic Store", 1], ["Plus Store", 1]],
  volusion: [["Personal", 2], ["Professional", 3], ["Business", 1], ["Prime", 1]],
};

export interface ThemeSpec {
  name: string;
  vendor: string;
  /** Cents, for P1 themes sold in its theme store. */
  cost?: number;
  versions?: string[];
}

// biome-ignore format: name|vendor|cost|versions, one theme a line
const THEME_TABLE = `
shopify|Dawn|Shopify||15.2.0,15.1.0,14.0.0,12.0.0
shopify|Refresh|Shopify||15.2.0,13.0.1
shopify|Sense|Shopify||15.2.0,13.0.0
shopify|Craft|Shopify||15.2.0
shopify|Studio|Shopify||15.0.0
shopify|Taste|Shopify||15.0.0
shopify|Crave|Shopify||15.0.0
shopify|Origin|Shopify||15.1.0
shopify|Spotlight|Shopify||15.2.0
shopify|Debut|Shopify||17.14.0
shopify|Brooklyn|Shopify||17.5.0
shopify|Minimal|Shopify||
shopify|Simple|Shopify||
shopify|Narrative|Shopify||
shopify|Prestige|Maestrooo|40000|10.3.0,9.3.0,8.0.0
shopify|Impact|Maestrooo|40000|6.4.0,6.0.1
shopify|Warehouse|Maestrooo|38000|6.4.0
shopify|Focal|Maestrooo|38000|12.4.0
shopify|Impulse|Archetype Themes|38000|7.6.1,7.4.0
shopify|Motion|Archetype Themes|38000|11.0.0
shopify|Streamline|Archetype Themes|38000|6.4.0
shopify|Expanse|Archetype Themes|38000|5.1.0
shopify|Empire|Pixel Union|38000|11.1.2
shopify|Symmetry|Clean Canvas|40000|7.3.1
shopify|Broadcast|Invisible Themes|36000|7.0.0
shopify|Pipeline|Groupthought|38000|8.0.0
shopify|Be Yours|RoarTheme|28000|7.3.0
shopify|Turbo|Out of the Sandbox||9.1.0
shopify|Kalles|The4||4.3.0
shopify|Minimog|Foxecom||5.6.0
shopify|Ella|HaloThemes||6.7.0
woocommerce|Astra|Brainstorm Force||4.8.3
woocommerce|Flatsome|UX-Themes||3.19.6
woocommerce|Storefront|WooCommerce||4.6.0
woocommerce|OceanWP|OceanWP||3.6.1
woocommerce|Divi|Elegant Themes||4.27.0
woocommerce|Kadence|Kadence WP||1.2.9
woocommerce|Hello Elementor|Elementor||3.1.1
woocommerce|Woodmart|xtemos||7.6.0
woocommerce|Blocksy|Creative Themes||2.0.60
magento|Luma|Magento||
magento|Porto|P-THEMES||4.2.3
magento|Hyvä|Hyvä Themes||1.3.7
magento|Ultimo|Infortis||2.10.1
bigcommerce|Cornerstone|BigCommerce||6.14.0
bigcommerce|Chiara|Pixel Union||
prestashop|Classic|PrestaShop||2.1.0
prestashop|Warehouse|IQIT-COMMERCE||4.6.1
opencart|Journal|Digital Atelier||3.2.0
shopware|Shopware Storefront|shopware AG||6.5.8
`;

function parseThemes(): Record<string, ThemeSpec[]> {
  const out: Record<string, ThemeSpec[]> = {};
  for (const line of THEME_TABLE.trim().split("\n")) {
    const [platform, name, vendor, cost, versions] = line.split("|");
    const theme: ThemeSpec = { name, vendor };
    if (cost) theme.cost = Number(cost);
    if (versions) theme.versions = versions.split(",");
    out[platform] = [...(out[platform] ?? []), theme];
  }
  return out;
}

export const THEMES: Readonly<Record<string, readonly ThemeSpec[]>> = parseThemes();

export const THEME_STYLES = [
  "Default",
  "Light",
  "Dark",
  "Bold",
  "Classic",
  "Modern",
  "Minimal",
  "Elegant",
] as const;

/** Suffix of the platform-assigned domain, and the share of the platform's Domains known to have one. */
export const PLATFORM_DOMAINS: Readonly<Record<string, readonly [string, number]>> = {
  [P1]: ["myshopify.com", 1],
  bigcommerce: ["mybigcommerce.com", 0.7],
  wix: ["wixsite.com", 0.6],
  squarespace: ["squarespace.com", 0.6],
  webflow: ["webflow.io", 0.5],
  ecwid: ["company.site", 0.5],
  bigcartel: ["bigcartel.com", 0.8],
  "square-online": ["square.site", 0.6],
};

/** The App's page in its platform's app store. */
export function appStoreUrl(platform: string, token: string): string {
  switch (platform) {
    case P1:
      return `https://apps.shopify.com/${token}`;
    case "woocommerce":
      return `https://woocommerce.com/products/${token}/`;
    case "bigcommerce":
      return `https://www.bigcommerce.com/apps/${token}/`;
    case "wix":
      return `https://www.wix.com/app-market/${token}`;
    case "magento":
      return `https://commercemarketplace.adobe.com/${token}.html`;
    case "prestashop":
      return `https://addons.prestashop.com/en/${token}.html`;
    case "shopware":
      return `https://store.shopware.com/en/${token}.html`;
    default:
      return `https://www.${platform.replace(/-/g, "")}.com/apps/${token}`;
  }
}
