/** Fixed word lists for Apps: what they do, how they are named and priced. */

/** [function, app store category, short description]. */
// biome-ignore format: a table
export const APP_FUNCTIONS: readonly (readonly [string, string, string])[] = [
  ["Product Reviews", "Product reviews", "Collect and showcase photo and video reviews that build trust."],
  ["Upsell & Cross-sell", "Upsell and cross-sell", "Raise order value with one-click upsells and smart bundles."],
  ["Email Marketing", "Email marketing", "Send beautiful campaigns and automated flows that convert."],
  ["SMS Marketing", "SMS marketing", "Reach shoppers with text campaigns and abandoned cart texts."],
  ["Subscriptions", "Subscriptions", "Sell subscriptions and recurring orders with flexible billing."],
  ["Loyalty & Rewards", "Loyalty and rewards", "Reward repeat customers with points, tiers and referrals."],
  ["Page Builder", "Page builder", "Build landing pages and product pages with drag and drop."],
  ["Translate & Localize", "Translation", "Translate your store and sell in every language."],
  ["SEO Booster", "SEO", "Fix SEO issues, optimize images and rank higher on search."],
  ["Order Tracking", "Order tracking", "Branded tracking pages and proactive shipping notifications."],
  ["Returns & Exchanges", "Returns and exchanges", "Automate returns and turn refunds into exchanges."],
  ["Shipping Rates", "Shipping rates", "Show accurate shipping rates and delivery dates at checkout."],
  ["Shipping Labels", "Shipping labels", "Print discounted shipping labels in bulk."],
  ["Inventory Sync", "Inventory", "Keep stock levels in sync across warehouses and channels."],
  ["Dropshipping", "Dropshipping", "Find winning products and fulfil orders from suppliers."],
  ["Print on Demand", "Print on demand", "Design custom products and ship them without inventory."],
  ["Wholesale & B2B", "Wholesale", "Sell wholesale with price lists, net terms and quick orders."],
  ["Pop Ups", "Pop-ups", "Grow your list with spin-to-win and exit-intent pop ups."],
  ["Countdown Timer", "Countdown timer", "Create urgency with countdown timers and stock counters."],
  ["Wishlist", "Wishlist", "Let shoppers save favourites and remind them to buy."],
  ["Search & Filter", "Search and filters", "Fast, typo-tolerant search and smart collection filters."],
  ["Live Chat", "Chat", "Chat with shoppers and answer questions in real time."],
  ["Helpdesk", "Customer support", "Manage every support ticket from one inbox."],
  ["FAQ Page", "FAQ", "Add a searchable FAQ page in minutes."],
  ["Size Chart", "Size charts", "Add size charts and fit recommendations to products."],
  ["Product Options", "Product options", "Add unlimited variants, custom fields and file uploads."],
  ["Bundles", "Bundles", "Create product bundles, kits and mix-and-match offers."],
  ["Discounts", "Discounts", "Tiered, volume and BOGO discounts without code."],
  ["Analytics", "Analytics", "Profit, attribution and customer analytics in one dashboard."],
  ["Accounting Sync", "Accounting", "Sync orders, payouts and fees to your accounting software."],
  ["Fraud Filter", "Fraud", "Block fraudulent orders and chargebacks automatically."],
  ["Backups", "Backups", "Back up products, themes and settings and restore in a click."],
  ["Contact Form", "Forms", "Custom forms for contact, quotes and registrations."],
  ["Sales Pop", "Social proof", "Show recent purchases and visitor counts to build trust."],
  ["Trust Badges", "Trust badges", "Display payment and security badges near checkout."],
  ["Currency Converter", "Currency converter", "Show prices in local currencies automatically."],
  ["Age Verification", "Age verification", "Verify visitor age before they enter your store."],
  ["Cookie Consent", "Cookie consent", "GDPR and CCPA compliant cookie banner."],
  ["Accessibility", "Accessibility", "Make your store accessible with one widget."],
  ["Store Locator", "Store locator", "Help customers find your physical stores and stockists."],
  ["Instagram Feed", "Social media", "Display shoppable Instagram and TikTok feeds."],
  ["Product Feeds", "Product feeds", "Sync products to Google Shopping, Meta and TikTok."],
  ["Invoices", "Invoices", "Send professional PDF invoices and packing slips."],
  ["Pre-order", "Preorder", "Take pre-orders and back-orders on sold out items."],
  ["Back in Stock", "Back in stock", "Notify customers when products are back in stock."],
  ["Gift Cards", "Gift cards", "Sell digital gift cards and store credit."],
  ["Affiliate Marketing", "Affiliate programs", "Launch an affiliate and influencer program."],
  ["Push Notifications", "Push notifications", "Recover carts with web push notifications."],
  ["Shoppable Video", "Video", "Add shoppable videos and stories to your store."],
  ["Image Optimizer", "Image optimizer", "Compress images and speed up your store."],
];

export const APP_BRAND_STARTS =
  `zi lu ko ve ra mo ti sa no qui bo fe ja pe xo wa ne da gi ha cy so vi re tro ple sno gla bri fla`.split(
    " ",
  );
export const APP_BRAND_MIDDLES = ["", "", "n", "r", "l", "v", "m", "x", "p", "k", "t", "d"];
export const APP_BRAND_ENDS = `ify ly io o a er hub kit go lab flow box wise zy ex ra on`.split(" ");

/** Price ladder of paid plans, in cents. */
export const PRICES = [
  499, 799, 999, 1499, 1999, 2499, 2900, 2999, 3900, 4900, 4999, 7900, 9900, 14900, 19900, 29900, 49900,
  99900,
];

export const PLAN_NAMES = [
  ["Basic", "Pro", "Premium", "Enterprise"],
  ["Starter", "Growth", "Plus", "Advanced"],
  ["Standard", "Professional", "Unlimited", "Scale"],
  ["Lite", "Business", "Elite", "Ultimate"],
] as const;

export const TRIAL_DAYS = [3, 5, 7, 7, 14, 14, 14, 21, 30, 60];

export const INTEGRATIONS = [
  "Checkout",
  "Customer accounts",
  "Shopify Flow",
  "Shopify POS",
  "Klaviyo",
  "Google Analytics",
  "Meta Pixel",
  "Mailchimp",
  "Gorgias",
  "Recharge",
  "Judge.me",
  "Yotpo",
  "Zapier",
  "Slack",
  "Omnisend",
  "Google Shopping",
  "PageFly",
  "Attentive",
];

export const LONG_DESCRIPTION_SENTENCES = [
  "Set up in minutes with no coding required.",
  "Works with every theme, including Online Store 2.0 themes.",
  "Our support team is available 24/7 by chat and email.",
  "Fully customizable to match your brand.",
  "Trusted by thousands of merchants around the world.",
  "Built for speed: no impact on your store's load time.",
  "Detailed reports show exactly what is working.",
  "Free onboarding and migration from other apps.",
  "Available in more than 20 languages.",
];

// biome-ignore format: review sentences by star rating
export const REVIEW_SENTENCES: Readonly<Record<number, readonly string[]>> = {
  5: ["Great app, does exactly what it says.", "Support was fast and super helpful.", "Easy to set up and our conversions went up.",
    "Best app we have installed so far.", "Highly recommend to any store owner.", "The team fixed our issue within an hour.",
    "Saved us hours every week.", "Works perfectly with our theme.", "Amazing value for the price.",
    "Our customers love it.", "Five stars, would install again."],
  4: ["Good app overall, a few features missing.", "Works well, setup took a little while.", "Solid app and responsive support.",
    "Does the job, pricing could be better.", "Very useful, the dashboard could be clearer."],
  3: ["It works but it is a bit basic.", "Okay for now, we might switch later.", "Decent, but support was slow to reply.",
    "Some bugs with our theme, otherwise fine."],
  2: ["Had several issues with the setup.", "Slowed down our store noticeably.", "Support took days to answer."],
  1: ["Did not work with our store at all.", "Charged us after we uninstalled.", "Broke our checkout, had to remove it.",
    "No response from support."],
};
