import { P1 } from "../platforms.ts";
import {
  APP_BRAND_ENDS,
  APP_BRAND_MIDDLES,
  APP_BRAND_STARTS,
  APP_FUNCTIONS,
  PLAN_NAMES,
  PRICES,
  TRIAL_DAYS,
} from "./app-words.ts";
import { COUNTRIES } from "./countries.ts";
import { APP_SHARES, appStoreUrl } from "./platform-profile.ts";
import { pools } from "./pools.ts";
import { hashKeys, mix32, pickerOf, Rng, WeightedPicker } from "./rng.ts";
import { SALT } from "./salt.ts";
import type { Plan, Vendor } from "./shapes.ts";
import { SHOWCASE_APPS, type ShowcaseApp } from "./showcase.ts";
import { DAY_MS, NOW_MS } from "./time.ts";
import { capitalize, slugify } from "./words.ts";

/** What other records need to know about an App, decided before any Domain is generated. */
export interface AppMeta {
  index: number;
  id: string;
  platform: string;
  token: string;
  name: string;
  functionIndex: number;
  vendor: Vendor;
  appStoreUrl: string;
  createdMs: number;
  inactive: boolean;
  removedMs?: number;
  plans: Plan[];
  /** Monthly cost of the cheapest paid plan (cents), 0 when the App is free: what a Domain spends on it. */
  spendCents: number;
  /** For a showcase App (showcase.ts): what it fixes beyond the fields above. */
  showcase?: ShowcaseApp;
}

const PLATFORM_PICKER = pickerOf(APP_SHARES);

/**
 * Plans all Apps up front: platform, identity, dates, plans. Tokens are unique per platform. The
 * showcase Apps come first (P1's, so that even tiny datasets have P1 Apps and reviews), and count
 * towards `count`; there are always at least they.
 */
export function planApps(seed: number, count: number): AppMeta[] {
  const tokens = new Map<string, Set<string>>([[P1, new Set(SHOWCASE_APPS.map((a) => a.token))]]);
  const idMask = hashKeys([seed, SALT.app]);
  const id = (index: number) => (mix32(index ^ idMask) >>> 0).toString(16).padStart(8, "0");
  const apps: AppMeta[] = SHOWCASE_APPS.map((a, index) => ({
    index,
    id: id(index),
    platform: P1,
    token: a.token,
    name: a.name,
    functionIndex: Math.max(
      0,
      APP_FUNCTIONS.findIndex((f) => a.categories.includes(f[1])),
    ),
    vendor: a.vendor,
    appStoreUrl: appStoreUrl(P1, a.token),
    createdMs: a.createdMs,
    inactive: false,
    plans: a.plans,
    spendCents: a.plans.find((p) => p.monthly_cost_cents !== undefined)?.monthly_cost_cents ?? 0,
    showcase: a,
  }));
  for (let index = apps.length; index < count; index++) {
    const rng = Rng.of(seed, SALT.app, index);
    const platform = PLATFORM_PICKER.pick(rng);
    const functionIndex = rng.int(0, APP_FUNCTIONS.length - 1);
    const name = appName(rng, APP_FUNCTIONS[functionIndex][0]);
    const token = uniqueToken(tokens, platform, slugify(name));
    const vendor = vendorOf(rng.chance(0.3) ? rng.int(0, 49) : rng.int(0, pools().companies.length - 1));
    const createdMs =
      NOW_MS - (14 + Math.min(4700, rng.exponential(1100))) * DAY_MS - rng.int(0, 86_399) * 1000;
    const inactive = rng.chance(0.08);
    const removedMs =
      inactive && rng.chance(0.9)
        ? createdMs + DAY_MS + Math.floor(rng.float() * (NOW_MS - createdMs - 2 * DAY_MS))
        : undefined;
    const plans = planPrices(rng);
    const paid = plans.filter((p) => p.monthly_cost_cents !== undefined);
    apps.push({
      index,
      id: id(index),
      platform,
      token,
      name,
      functionIndex,
      vendor,
      appStoreUrl: appStoreUrl(platform, token),
      createdMs,
      inactive,
      removedMs,
      plans,
      spendCents: paid.length > 0 ? (paid[0].monthly_cost_cents ?? 0) : 0,
    });
  }
  return apps;
}

function appName(rng: Rng, func: string): string {
  const brand = capitalize(
    rng.pick(APP_BRAND_STARTS) + rng.pick(APP_BRAND_MIDDLES) + rng.pick(APP_BRAND_ENDS),
  );
  const style = rng.float();
  if (style < 0.45) return `${brand}: ${func}`;
  if (style < 0.7) return `${brand} ${func}`;
  if (style < 0.85) return brand;
  return `${func} by ${brand}`;
}

function uniqueToken(tokens: Map<string, Set<string>>, platform: string, slug: string): string {
  let used = tokens.get(platform);
  if (!used) {
    used = new Set();
    tokens.set(platform, used);
  }
  let token = slug;
  for (let n = 2; used.has(token); n++) token = `${slug}-${n}`;
  used.add(token);
  return token;
}

/** A vendor is a function of its pool index, so the same vendor always has the same details. */
function vendorOf(index: number): Vendor {
  const { companies, streets } = pools();
  const name = companies[index];
  const h = mix32(index + 0x51ed27);
  const country = COUNTRIES[h % 4 === 0 ? h % COUNTRIES.length : 0];
  const area = country.areas[h % country.areas.length];
  const city = area.cities[(h >>> 8) % area.cities.length];
  return {
    name,
    slug: slugify(name),
    countryCode: country.code,
    address: `${streets[index % streets.length]}, ${city.name}, ${area.name}, ${country.code}`,
  };
}

function planPrices(rng: Rng): Plan[] {
  const kind = rng.float();
  if (kind < 0.2) return [{ name: "Free", monthly_cost: rng.chance(0.3) ? "Free to install" : "Free" }];
  const plans: Plan[] = kind < 0.65 ? [{ name: "Free", monthly_cost: "Free" }] : [];
  const names = rng.pick(PLAN_NAMES);
  let step = rng.int(0, 8);
  const tiers = rng.int(1, 3);
  for (let t = 0; t < tiers && step < PRICES.length; t++) {
    const cents = PRICES[step];
    const dollars = cents % 100 === 0 ? String(cents / 100) : (cents / 100).toFixed(2);
    plans.push({ name: names[t], monthly_cost: `$${dollars}/month`, monthly_cost_cents: cents });
    step += rng.int(1, 4);
  }
  return plans;
}

export function trialDuration(rng: Rng): string {
  return `${rng.pick(TRIAL_DAYS) * 24}h0m0s`;
}

/** Per platform: its Apps and a power-law popularity picker over them (Inactive Apps less popular). */
export interface PlatformApps {
  apps: Int32Array;
  picker: WeightedPicker;
}

export function groupAppsByPlatform(apps: readonly AppMeta[]): Map<string, PlatformApps> {
  const lists = new Map<string, number[]>();
  for (const app of apps) {
    const list = lists.get(app.platform);
    if (list) list.push(app.index);
    else lists.set(app.platform, [app.index]);
  }
  const out = new Map<string, PlatformApps>();
  for (const [platform, list] of lists) {
    const weights = list.map((a, k) => (apps[a].inactive ? 0.25 : 1) / (k + 1) ** 1.1);
    out.set(platform, { apps: Int32Array.from(list), picker: new WeightedPicker(weights) });
  }
  return out;
}
