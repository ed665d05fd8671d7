import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { PLATFORM_LIST } from "../dataset/platforms.ts";
import { openSnapshotStore } from "../db/open-store.ts";
import { SEGMENT_LIMITS, Segments } from "../db/segments.ts";
import { spreadProblem } from "../query/segment-members.ts";

/**
 * Saves `--count` segments of random List Domains filters (seeded), spread over accounts of at
 * most SEGMENT_LIMITS.segments each, in the database the environment names: `npm run bench:load
 * -- --segments N` runs it between two loads, so that the second compares them (docs/performance.md).
 * `--spread technologies,apps` gives each the dimensions its members are counted over at each load
 * (GraphQL names of the facet dimensions; the default spread without it).
 */
const { values } = parseArgs({
  options: {
    count: { type: "string", default: "1000" },
    seed: { type: "string", default: "1" },
    spread: { type: "string" },
  },
});
const spread = values.spread ? values.spread.split(",").map((d) => d.trim()) : null;
const refused = spread && spreadProblem(spread);
if (refused) throw new Error(`--spread ${refused}`);
const count = Number(values.count);
if (!Number.isInteger(count) || count < 0) throw new Error("--count must be a count");

let state = Number(values.seed) >>> 0 || 1;
const random = () => {
  // xorshift32: the same segments for the same seed.
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 2 ** 32;
};
const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
const some = <T>(xs: readonly T[]) => [
  ...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(xs))),
];

const COUNTRIES = ["US", "GB", "DE", "CA", "AU", "FR", "NL", "ES", "IT", "BR", "IN", "JP"];
const PLANS = ["Basic", "Shopify", "Advanced", "Shopify Plus", "Starter", "Trial"];
const TECHNOLOGIES = ["Google Analytics", "Klaviyo", "Hotjar", "Facebook Pixel", "Stripe", "PayPal"];
const TERMS: (() => Record<string, unknown>)[] = [
  () => ({ platform: { values: [pick(PLATFORM_LIST.slice(0, 12))] } }),
  () => ({ countryCode: { values: some(COUNTRIES), op: "OR" } }),
  () => ({ plan: { values: some(PLANS), op: "OR" } }),
  () => ({ technologies: { values: some(TECHNOLOGIES), op: "OR" } }),
  () => ({ rank: { max: 1 + Math.floor(random() * 500_000) } }),
  () => ({ estimatedSales: { min: Math.floor(random() * 10_000_000) } }),
  () => ({ state: { values: ["Active"] } }),
];

const config = loadConfig();
const store = await openSnapshotStore(config);
try {
  const segments = new Segments(store);
  const accounts = Math.max(1, Math.ceil(count / SEGMENT_LIMITS.segments));
  for (let i = 0; i < count; i++) {
    const filter = Object.assign(
      {},
      ...Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(TERMS)()),
    );
    await segments.save(`bench-${i % accounts}`, `s${i}`, { filter, search: null, spread });
  }
  console.log(`saved ${count} segments over ${accounts} accounts`);
} finally {
  await store.close();
}
