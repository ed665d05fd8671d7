import { slugify } from "./words.ts";

/** A technology as every Domain listing it shows it (installs are added by the generator). */
export interface Technology {
  name: string;
  description: string;
  vendor_url: string;
  icon_url: string;
  categories?: string[];
}

/** The ubiquitous ones, most installed first. */
const HEAD = [
  "Google Analytics",
  "Google Tag Manager",
  "Facebook Pixel",
  "jQuery",
  "Google Fonts",
  "Cloudflare",
  "reCAPTCHA",
  "PayPal",
  "Apple Pay",
  "Klaviyo",
  "Google Ads Conversion",
  "Font Awesome",
  "TikTok Pixel",
  "Hotjar",
  "Microsoft Clarity",
  "Stripe",
  "Pinterest Tag",
  "Google Pay",
  "Swiper",
  "Judge.me",
];

// biome-ignore format: category | names, one category a line
const BY_CATEGORY = `
Analytics|Google Analytics,Adobe Analytics,Mixpanel,Heap,Amplitude,Segment,Matomo,Plausible,Fathom,Kissmetrics,Clicky,StatCounter,Chartbeat,Parse.ly,Yandex Metrica,Woopra,Piwik PRO,Snowplow,Lucky Orange,Triple Whale,Northbeam,Elevar,Littledata,Polar Analytics
Advertising|Facebook Pixel,TikTok Pixel,Pinterest Tag,Snapchat Pixel,Twitter Pixel,LinkedIn Insight Tag,Google Ads Conversion,Microsoft Advertising UET,Criteo,AdRoll,Taboola,Outbrain,Google AdSense,Amazon Advertising,Reddit Pixel,Quora Pixel,StackAdapt,The Trade Desk
Affiliate Programs|Rakuten Advertising,Impact,Awin,ShareASale,CJ Affiliate,Refersion,PartnerStack,Tapfiliate,Everflow,UpPromote,GoAffPro
Tag Management|Google Tag Manager,Tealium,Adobe Launch,Ensighten,Zaraz
JavaScript Libraries|jQuery,jQuery Migrate,jQuery UI,Lodash,Underscore.js,Moment.js,Day.js,Swiper,Slick,Owl Carousel,Flickity,Lazysizes,GSAP,Alpine.js,core-js,Modernizr,Popper.js,Fancybox,Lightbox,AOS,Splide,Glide.js,Axios,Handlebars
Web Frameworks|React,Vue.js,Next.js,Nuxt.js,Angular,Svelte,Gatsby,Remix,Preact,Bootstrap,Tailwind CSS,Foundation,Bulma,Stimulus,htmx,Hydrogen,Astro
CDN|Cloudflare,Fastly,Amazon CloudFront,Akamai,jsDelivr,unpkg,cdnjs,Google Hosted Libraries,KeyCDN,BunnyCDN,Imgix,Cloudinary
Payment|PayPal,Stripe,Apple Pay,Google Pay,Amazon Pay,Braintree,Adyen,Square,Authorize.net,Worldpay,Mollie,Checkout.com,Venmo,Meta Pay,Alipay,iDEAL,Bancontact,Razorpay,PayU,Mercado Pago,Paystack,Bolt Checkout
Buy Now Pay Later|Afterpay,Klarna,Affirm,Sezzle,Zip,Clearpay,Laybuy,Splitit,Katapult,PayBright,Humm,Scalapay,Atome,Tabby,Tamara
Email Marketing|Klaviyo,Mailchimp,Omnisend,Privy,Drip,ActiveCampaign,Constant Contact,Campaign Monitor,Brevo,Listrak,Emarsys,Iterable,Braze,Customer.io,Sailthru,Cordial,Dotdigital,Mailjet,SendGrid,ConvertKit,AWeber,GetResponse,Seguno,Justuno,Wisepops,OptinMonster
SMS Marketing|Attentive,Postscript,SMSBump,Emotive,SimpleTexting,Recart
Reviews|Judge.me,Yotpo,Okendo,Stamped.io,Loox,Trustpilot,Bazaarvoice,PowerReviews,Reviews.io,Feefo,Junip,Fera,Ali Reviews,Trusted Shops,eKomi,Google Customer Reviews,Shopper Approved
Live Chat|Gorgias,Zendesk,Intercom,Tidio,LiveChat,Drift,Freshchat,HubSpot Chat,Tawk.to,Crisp,Olark,Re:amaze,Gladly,Kustomer,Richpanel,Help Scout,Chatra,Zoho SalesIQ,WhatsApp Chat
Fonts|Google Fonts,Adobe Fonts,Font Awesome,Fonts.com,Material Icons
Security|reCAPTCHA,hCaptcha,Cloudflare Turnstile,Sucuri,Imperva,Let's Encrypt,DigiCert,Sectigo
Fraud Prevention|Signifyd,Riskified,Forter,NoFraud,Kount,Sift
A/B Testing|Optimizely,VWO,AB Tasty,Convert,Kameleoon,Intelligems,Shoplift
Personalization|Dynamic Yield,Monetate,Nosto,Rebuy,LimeSpot,ReConvert,Bold Upsell
Session Recording|Hotjar,Microsoft Clarity,FullStory,Crazy Egg,Mouseflow,Smartlook,Contentsquare,Quantum Metric,LogRocket
Site Search|Algolia,Searchspring,Klevu,Boost Commerce,Searchanise,Constructor.io,Bloomreach,Coveo,Doofinder,Findify
Loyalty|Smile.io,LoyaltyLion,Rivo,ReferralCandy,Friendbuy,Mention Me,Talkable,BON Loyalty,Growave
Subscriptions|Recharge,Bold Subscriptions,Skio,Loop Subscriptions,Ordergroove,Stay.ai,Smartrr,Seal Subscriptions,Appstle,Chargebee,Recurly
Shipping|ShipStation,AfterShip,Route,Narvar,ShipBob,Shippo,EasyPost,Parcel Panel,Malomo
Returns|Loop Returns,Returnly,Happy Returns,Seel,Corso
Product Protection|Extend,Clyde,Mulberry
Consent Management|OneTrust,Cookiebot,Termly,Osano,TrustArc,Iubenda,CookieYes,Usercentrics,Didomi
Accessibility|accessiBe,UserWay,AudioEye,EqualWeb
Video|YouTube Embed,Vimeo,Wistia,Videowise,Tolstoy,Firework,Vidyard,JW Player
Social|Instagram Feed,Facebook SDK,Pinterest Save Button,AddThis,ShareThis,AddToAny,Elfsight,Foursixty
Hosting|Amazon Web Services,Google Cloud,Microsoft Azure,DigitalOcean,Vercel,Netlify,Heroku,WP Engine,Kinsta,SiteGround,Nginx,Apache,LiteSpeed,Varnish
Translation|Weglot,Langify,Transcy,GTranslate,Localize
Cross-border|Global-e,Flow Commerce,Borderfree,Zonos
Tax|Avalara,TaxJar,Vertex
Marketing Automation|HubSpot,Salesforce Marketing Cloud,Marketo,Insider,Yieldify,OptiMonk
Page Builders|Elementor,WPBakery,PageFly,Shogun,GemPages,Zipify Pages,Beaver Builder,Yoast SEO,Contentful,Sanity,Storyblok
`;

const DESCRIBE: Record<string, string> = {
  Analytics: "web analytics and reporting",
  Advertising: "advertising and conversion tracking",
  "Affiliate Programs": "affiliate and partner marketing",
  "Tag Management": "tag management",
  "JavaScript Libraries": "JavaScript library",
  "Web Frameworks": "web framework",
  CDN: "content delivery network",
  Payment: "online payment processing",
  "Buy Now Pay Later": "buy now, pay later financing",
  "Email Marketing": "email marketing and automation",
  "SMS Marketing": "SMS marketing",
  Reviews: "product and store reviews",
  "Live Chat": "live chat and customer support",
  Fonts: "web fonts and icons",
  Security: "website security",
  "Fraud Prevention": "fraud prevention for online orders",
  "A/B Testing": "A/B testing and experimentation",
  Personalization: "personalization and product recommendations",
  "Session Recording": "heatmaps and session recording",
  "Site Search": "site search and merchandising",
  Loyalty: "loyalty and referral programs",
  Subscriptions: "subscription billing",
  Shipping: "shipping and order tracking",
  Returns: "returns and exchanges",
  "Product Protection": "product protection plans",
  "Consent Management": "cookie consent management",
  Accessibility: "web accessibility",
  Video: "video hosting and shoppable video",
  Social: "social media widgets",
  Hosting: "hosting and web servers",
  Translation: "website translation",
  "Cross-border": "cross-border commerce",
  Tax: "sales tax calculation",
  "Marketing Automation": "marketing automation",
  "Page Builders": "page building and content management",
};

function buildTechnologies(): Technology[] {
  const categoriesOf = new Map<string, string[]>();
  const lines = BY_CATEGORY.trim().split("\n");
  const byCategory = lines.map((line) => {
    const [category, names] = line.split("|");
    const list = names.split(",");
    for (const name of list) categoriesOf.set(name, [...(categoriesOf.get(name) ?? []), category]);
    return list;
  });
  // Popularity order: the head, then the categories interleaved so that the long tail mixes kinds.
  const order = [...HEAD];
  const seen = new Set(order);
  for (let i = 0; byCategory.some((list) => i < list.length); i++) {
    for (const list of byCategory) {
      const name = list[i];
      if (name !== undefined && !seen.has(name)) {
        seen.add(name);
        order.push(name);
      }
    }
  }
  return order.map((name, index) => {
    const categories = categoriesOf.get(name) ?? [];
    const slug = slugify(name);
    const what = categories.map((c) => DESCRIBE[c]).join(" and ");
    const tech: Technology = {
      name,
      description: `${name} provides ${what}.`,
      vendor_url: `https://www.${slug.replace(/-/g, "")}.com/`,
      icon_url: `https://icons.storegraph.example/t/${slug}.png`,
    };
    // A few technologies carry no categories, as in the source data.
    if (index % 11 !== 5) tech.categories = categories;
    return tech;
  });
}

/** 300 technologies, most popular first. */
export const TECHNOLOGIES: readonly Technology[] = buildTechnologies().slice(0, 300);

/**
 * Each technology's JSON as Domains list it, split around `installed_at` (the only per-Domain
 * value): `head + timestamp + tail`. Technologies are over half of a Domain line, and every line
 * repeats the same few hundred entries, so serialising them once saves most of the JSON work.
 */
export function technologyFragments(installs: Int32Array): { head: string; tail: string }[] {
  return TECHNOLOGIES.map((tech, t) => {
    const marker = "\u0000installed_at\u0000";
    const json = JSON.stringify({
      name: tech.name,
      description: tech.description,
      vendor_url: tech.vendor_url,
      icon_url: tech.icon_url,
      installed_at: marker,
      installs: installs[t],
      categories: tech.categories,
    });
    const at = json.indexOf(JSON.stringify(marker));
    return { head: `${json.slice(0, at)}"`, tail: `"${json.slice(at + JSON.stringify(marker).length)}` };
  });
}
