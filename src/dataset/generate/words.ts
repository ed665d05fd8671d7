/** Word lists for store names, products and store pages. Fixed data: randomness comes from the seed only. */

/** First part of store names ("Blue" in "Blue Harbor"). Made prefix-free in identity.ts. */
export const BRAND_WORDS = `
amber arctic aspen atlas aurora autumn azure bamboo barefoot bay bayou bear bee bella berry big birch black
bloom blossom blue bold bonny boreal brass brave bright bristol brook brown bubble cactus calm canyon cedar
charm cherry chic citrus city clay clever cloud clover coastal cobalt cocoa coral cosmic cotton country cozy
crafty crimson crystal daisy dapper dawn desert dream drift dune dusk eagle earth east echo eden elm ember
emerald epic ever fable fair fern fiesta fig fine fire flora forest fox free fresh frost fuji gentle ginger
glacier glow gold golden good grace grand green grove happy harbor harvest haven hazel heart hidden high
holly honey hope humble hush indigo iron island ivory ivy jade jasmine jolly juniper just kind kinship
lagoon lake lark lavender leaf lemon liberty lily lime linen little lotus loyal lucky lumen lunar lush
magic magnolia maple marble meadow mellow merry metro midnight mighty mint misty modern moon moss mountain
native nectar neon nest noble nomad north nova oak oasis ocean olive onyx orchid orbit pacific palm paper
peach pearl pebble pepper petal pine pixel plum polar poppy prairie prime pure quartz quiet rain raven
rebel red ridge river robin rose royal ruby rustic saffron sage salt sand sapphire scarlet sea sequoia
shadow silk silver simple sky slate snow solar south spark spice spring spruce star stone storm summit
sun sunny sweet swift tidal tiger timber tiny true tulip twin urban valley velvet vine vintage violet
vivid wander warm wave west whisper wild willow wind winter wise wolf wonder wood yellow zen zephyr
`
  .trim()
  .split(/\s+/);

/** Optional third part ("Supply" in "Blue Harbor Supply"); "" is the common case of none. */
export const BRAND_SUFFIXES = [
  "",
  "shop",
  "co",
  "store",
  "goods",
  "studio",
  "supply",
  "boutique",
  "market",
  "hq",
  "official",
  "collective",
  "club",
  "house",
  "lab",
  "company",
  "outfitters",
  "designs",
  "apparel",
  "home",
  "living",
  "trading",
  "works",
  "emporium",
] as const;

/** Store verticals (slash-delimited, like the service's categories) with a few product words each. */
export const STORE_CATEGORIES: readonly (readonly [string, readonly string[]])[] = [
  ["/Apparel/Women's Clothing", ["dresses", "tops", "jeans", "skirts"]],
  ["/Apparel/Men's Clothing", ["shirts", "chinos", "jackets", "hoodies"]],
  ["/Apparel/Activewear", ["leggings", "sports bras", "running shorts"]],
  ["/Apparel/Swimwear", ["bikinis", "swim trunks", "cover-ups"]],
  ["/Apparel/Footwear", ["sneakers", "boots", "sandals", "loafers"]],
  ["/Apparel/Children's Clothing", ["baby onesies", "kids' tees", "rompers"]],
  ["/Apparel/Jewelry", ["necklaces", "earrings", "rings", "bracelets"]],
  ["/Apparel/Accessories", ["bags", "wallets", "hats", "sunglasses"]],
  ["/Beauty & Fitness/Cosmetics", ["lipstick", "foundation", "mascara"]],
  ["/Beauty & Fitness/Skin Care", ["serums", "moisturizers", "cleansers"]],
  ["/Beauty & Fitness/Hair Care", ["shampoo", "hair oil", "conditioner"]],
  ["/Beauty & Fitness/Fragrances", ["perfume", "candles", "body mist"]],
  ["/Beauty & Fitness/Fitness Equipment", ["kettlebells", "yoga mats", "resistance bands"]],
  ["/Health/Vitamins & Supplements", ["vitamins", "protein powder", "collagen"]],
  ["/Food & Drink/Coffee & Tea", ["coffee beans", "loose leaf tea", "matcha"]],
  ["/Food & Drink/Snacks", ["jerky", "granola", "chocolate"]],
  ["/Food & Drink/Wine & Spirits", ["wine", "craft gin", "whiskey"]],
  ["/Food & Drink/Gourmet Food", ["hot sauce", "olive oil", "spices"]],
  ["/Home & Garden/Home Decor", ["wall art", "vases", "throw pillows"]],
  ["/Home & Garden/Furniture", ["sofas", "coffee tables", "bed frames"]],
  ["/Home & Garden/Kitchen & Dining", ["cookware", "knives", "mugs"]],
  ["/Home & Garden/Bed & Bath", ["bedding", "towels", "bath robes"]],
  ["/Home & Garden/Gardening", ["seeds", "planters", "garden tools"]],
  ["/Home & Garden/Candles", ["soy candles", "wax melts", "diffusers"]],
  ["/Pets & Animals/Pet Supplies", ["dog collars", "cat toys", "pet beds"]],
  ["/Pets & Animals/Pet Food", ["dog treats", "cat food", "chews"]],
  ["/Hobbies & Leisure/Arts & Crafts", ["yarn", "stickers", "paint sets"]],
  ["/Hobbies & Leisure/Outdoors", ["tents", "backpacks", "fishing gear"]],
  ["/Hobbies & Leisure/Cycling", ["bike lights", "jerseys", "helmets"]],
  ["/Hobbies & Leisure/Toys & Games", ["board games", "puzzles", "plush toys"]],
  ["/Books & Literature/Books", ["novels", "cookbooks", "journals"]],
  ["/Arts & Entertainment/Music", ["vinyl records", "guitar strings", "merch"]],
  ["/Computers & Electronics/Consumer Electronics", ["headphones", "chargers", "phone cases"]],
  ["/Computers & Electronics/Computer Accessories", ["keyboards", "mouse pads", "laptop stands"]],
  ["/Autos & Vehicles/Auto Parts", ["floor mats", "car care kits", "led bulbs"]],
  ["/Business & Industrial/Office Supplies", ["notebooks", "pens", "planners"]],
  ["/Business & Industrial/Industrial Equipment", ["safety gloves", "workwear", "tool kits"]],
  ["/People & Society/Wedding", ["invitations", "bridesmaid gifts", "veils"]],
  ["/Sports/Team Sports", ["jerseys", "soccer balls", "shin guards"]],
  ["/Sports/Golf", ["golf balls", "golf gloves", "polo shirts"]],
  ["/Shopping/Gifts", ["gift boxes", "gift cards", "personalized gifts"]],
  ["/Shopping/Print on Demand", ["custom t-shirts", "posters", "tote bags"]],
];

export const PRODUCT_ADJECTIVES = `
classic essential everyday signature premium organic handmade vintage minimal deluxe limited original
soft light heritage coastal linen cotton recycled natural wild bold mini
`
  .trim()
  .split(/\s+/);

export const COLLECTIONS = [
  "Best Sellers",
  "New Arrivals",
  "Sale",
  "All Products",
  "Gift Cards",
  "Featured",
  "Bundles",
  "Last Chance",
  "Gifts Under $50",
  "Home page",
  "Limited Edition",
  "Back in Stock",
  "Frontpage",
  "Holiday Shop",
] as const;

export const SHIPPING_CARRIERS = [
  "UPS",
  "FedEx",
  "USPS",
  "DHL",
  "Royal Mail",
  "Canada Post",
  "Australia Post",
  "DPD",
  "GLS",
  "Hermes",
  "PostNL",
  "La Poste",
  "Japan Post",
  "Purolator",
  "Evri",
] as const;

export const SALES_CHANNELS = [
  "Amazon",
  "eBay",
  "Etsy",
  "Facebook Shop",
  "Instagram Shopping",
  "TikTok Shop",
  "Google Shopping",
  "Walmart Marketplace",
  "Pinterest",
  "Target Plus",
] as const;

export const TITLE_TAGLINES = [
  "Official Online Store",
  "Shop Online",
  "Free Shipping on Orders Over $50",
  "Home",
  "Handmade with Love",
  "Sustainable & Ethical",
  "Designed in Small Batches",
] as const;

export const DESCRIPTION_ENDINGS = [
  "Free shipping on orders over $50.",
  "Designed with care and shipped worldwide.",
  "Easy 30-day returns.",
  "Small batch, big heart.",
  "Join thousands of happy customers.",
  "Sustainably made, built to last.",
  "New drops every week.",
  "",
] as const;

export const CONTACT_SOURCES = [
  "/",
  "/pages/contact",
  "/contact",
  "/pages/about-us",
  "/about",
  "/pages/faq",
] as const;

export const CONTACT_DESCRIPTIONS = [
  "Customer support",
  "Wholesale inquiries",
  "Press",
  "Order questions",
  "Follow us",
  "Main line",
] as const;

/** Makes a list prefix-free (no word a prefix of another), which makes word concatenations unambiguous. */
export function prefixFree(words: readonly string[]): string[] {
  const sorted = [...new Set(words)].sort();
  const kept: string[] = [];
  for (const w of sorted) {
    const last = kept[kept.length - 1];
    if (last === undefined || !w.startsWith(last)) kept.push(w);
  }
  return kept;
}

export function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
