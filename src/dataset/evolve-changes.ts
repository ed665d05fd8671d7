import { PLANS, THEMES } from "./generate/platform-profile.ts";
import { Rng } from "./generate/rng.ts";
import { SHOWCASE_DOMAINS } from "./generate/showcase.ts";
import { DAY_MS, toDate, toTimestamp } from "./generate/time.ts";
import { P1 } from "./platforms.ts";
import { P1_DOMAIN_FIELDS } from "./record.ts";

/**
 * What a week (src/dataset/evolve.ts) does to one record: how much of a dataset it reaches (Churn),
 * and each change as a function of the record, the week's catalogues and a random stream seeded by
 * the record's name, so that the same dataset, seed and churn always give the same week.
 */

/**
 * How much of a dataset changes in a week, as the share of its Domains (or Apps) that each change
 * reaches. The defaults add up to about 2% of the Domains changed in some way a week, about what a
 * weekly crawl of the web's stores sees.
 */
export interface Churn {
  /** New Domains, as a share of the week's Domains. */
  added: number;
  /** Domains that leave the dataset. */
  removed: number;
  state: number;
  platform: number;
  plan: number;
  /** A Domain installs one more App / uninstalls one. */
  install: number;
  uninstall: number;
  technologyAdded: number;
  technologyRemoved: number;
  theme: number;
  country: number;
  /** The standard deviation of a week's move of log(rank). */
  rankDrift: number;
  appAdded: number;
  /** Apps that become Inactive. */
  appRemoved: number;
  appPlans: number;
}

export const DEFAULT_CHURN: Churn = {
  added: 0.006,
  removed: 0.005,
  state: 0.003,
  platform: 0.0008,
  plan: 0.003,
  install: 0.004,
  uninstall: 0.002,
  technologyAdded: 0.003,
  technologyRemoved: 0.002,
  theme: 0.001,
  country: 0.0002,
  rankDrift: 0.05,
  appAdded: 0.01,
  appRemoved: 0.004,
  appPlans: 0.006,
};

export interface Week {
  week: number;
  /** The week's "now": every date of its changes lies in the 7 days before it. */
  nowMs: number;
}

export type Json = Record<string, unknown>;
export interface AppEntry {
  id: string;
  platform: string;
  token: string;
  name: string;
  installed_at: string;
  removed_at?: string;
}
export interface Tech {
  name: string;
  description: string;
  vendor_url: string;
  icon_url: string;
  installed_at: string;
  installs: number;
  categories?: string[];
}

/** Salts of the week's random streams (apart from the generator's, src/dataset/generate/salt.ts). */
export const SALT = { domain: 101, app: 102, added: 103, rank: 104 } as const;

/** A string's 32-bit hash, so that a record's fate depends on its name, not on its line. */
export function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export const SHOWCASE = new Set(SHOWCASE_DOMAINS.map((d) => d.identity.name));
const SWITCH_PLATFORMS = [P1, "woocommerce", "wix", "squarespace", "bigcommerce", "magento"];
const STATES_FROM: Record<string, string[]> = {
  Active: ["Inactive", "Password Protected"],
  Inactive: ["Active"],
  "Password Protected": ["Active", "Inactive"],
  Redirect: ["Inactive", "Active"],
};

/** What the whole week knows before it changes a Domain: the catalogues its changes draw from. */
export interface Catalogue {
  week: Week;
  seed: number;
  churn: Churn;
  /** Active Apps by platform, as Domain entries without dates. */
  appsOf: Map<string, Omit<AppEntry, "installed_at">[]>;
  technologies: Tech[];
  countries: string[];
  /** Domains named by reviews: they keep their platform (a review's domains carry its platform_domain). */
  reviewers: Set<string>;
}

export const isShowcaseApp = (app: Json) => app.token === "klaviyo" && app.platform === P1;

/** A time within the week (the 7 days before its "now"), at whole seconds. */
export function weekTime(rng: Rng, week: Week): number {
  return week.nowMs - 7 * DAY_MS + Math.floor(rng.float() * 7 * 86_400) * 1000;
}

export function repricePlans(rng: Rng, app: Json): void {
  const plans = app.plans as { name: string; monthly_cost: string; monthly_cost_cents?: number }[];
  const paid = plans.filter((p) => p.monthly_cost_cents !== undefined);
  if (!paid.length) {
    plans.push({ name: "Pro", monthly_cost: "$9.99/month", monthly_cost_cents: 999 });
    return;
  }
  const plan = rng.pick(paid);
  const cents = Math.max(
    99,
    Math.round(((plan.monthly_cost_cents as number) * rng.between(1.05, 1.5)) / 100) * 100 - 1,
  );
  plan.monthly_cost_cents = cents;
  plan.monthly_cost = `$${(cents / 100).toFixed(2).replace(/\.00$/, "")}/month`;
}

/** A Domain as the week leaves it, or undefined when it leaves the dataset. Deterministic. */
export function changed(c: Catalogue, d: Json): Json | undefined {
  const name = d.name as string;
  if (SHOWCASE.has(name)) return d;
  const { churn, week } = c;
  const rng = Rng.of(c.seed, SALT.domain, week.week, hashOf(name));
  if (rng.chance(churn.removed)) return undefined;
  const day = toDate(weekTime(rng, week));
  if (rng.chance(churn.state)) setState(rng, d, day);
  if (rng.chance(churn.platform) && !c.reviewers.has(name)) switchPlatform(rng, d, day);
  const plans = PLANS[d.platform as string];
  if (rng.chance(churn.plan) && plans && d.plan !== undefined) {
    const others = plans.map((p) => p[0]).filter((p) => p !== d.plan);
    if (others.length) {
      d.last_plan = d.plan;
      d.last_plan_change_at = day;
      d.plan = rng.pick(others);
    }
  }
  const apps = (d.apps ?? []) as AppEntry[];
  if (rng.chance(churn.install)) {
    const pool = (c.appsOf.get(d.platform as string) ?? []).filter((a) => !apps.some((e) => e.id === a.id));
    if (pool.length) apps.push({ ...rng.pick(pool), installed_at: toTimestamp(weekTime(rng, week)) });
  }
  if (rng.chance(churn.uninstall)) {
    const installed = apps.filter((a) => a.removed_at === undefined);
    if (installed.length) {
      const a = rng.pick(installed);
      const at = Math.max(Date.parse(a.installed_at), weekTime(rng, week));
      a.removed_at = toTimestamp(at);
    }
  }
  if (apps.length) d.apps = apps;
  const techs = (d.technologies ?? []) as Tech[];
  if (rng.chance(churn.technologyAdded)) {
    const t = rng.pick(c.technologies);
    if (t && !techs.some((x) => x.name === t.name))
      techs.push({ ...t, installed_at: toTimestamp(weekTime(rng, week)) });
  }
  if (rng.chance(churn.technologyRemoved) && techs.length) techs.splice(rng.int(0, techs.length - 1), 1);
  if (techs.length) d.technologies = techs;
  else delete d.technologies;
  const themes = THEMES[d.platform as string];
  if (rng.chance(churn.theme) && themes) {
    const current = (d.theme as Json | undefined)?.name;
    const spec = rng.pick(
      themes.filter((t) => t.name !== current).length ? themes.filter((t) => t.name !== current) : themes,
    );
    d.theme = { name: spec.name, vendor: spec.vendor, cost: d.platform === P1 ? spec.cost : undefined };
  }
  if (rng.chance(churn.country) && c.countries.length) {
    const to = rng.pick(c.countries);
    if (to !== d.country_code) {
      d.country_code = to;
      for (const f of [
        "administrative_area_level_1",
        "city",
        "location",
        "postal_code",
        "street_address",
        "latitude",
        "longitude",
        "region",
        "subregion",
      ])
        delete d[f];
    }
  }
  return d;
}

function setState(rng: Rng, d: Json, day: string): void {
  const to = rng.pick(STATES_FROM[d.state as string] ?? ["Active"]);
  d.state = to;
  delete d.redirects_to;
  if (to === "Inactive") d.inactive_at = day;
  else delete d.inactive_at;
}

function switchPlatform(rng: Rng, d: Json, day: string): void {
  const from = d.platform as string;
  const to = rng.pick(SWITCH_PLATFORMS.filter((p) => p !== from));
  d.last_platform = from;
  d.last_platform_change_at = day;
  d.platform = to;
  // What belonged to the old platform goes: its Apps, theme, plan, platform domain, P1's fields.
  delete d.apps;
  delete d.theme;
  delete d.platform_domain;
  delete d.magento_version;
  delete d.last_plan;
  delete d.last_plan_change_at;
  const plans = PLANS[to];
  d.plan = plans ? rng.pick(plans)[0] : undefined;
  if (from === P1) {
    // The fields only P1 carries, and its review site (the generator gives yotpo to P1 alone).
    for (const f of [...P1_DOMAIN_FIELDS, "yotpo"]) delete d[f];
    const features = ((d.features ?? []) as string[]).filter((f) => f !== "Shopify POS");
    d.features = features.length ? features : undefined;
  }
}

/** The `j`th new Domain of the week: a copy of `template` made a new store. */
export function newDomain(c: Catalogue, template: Json, j: number, lines: number): Json {
  const d = structuredClone(template);
  const rng = Rng.of(c.seed, SALT.added, c.week.week, j);
  const name = `n${c.week.week}x${j}-${template.tld1 as string}`;
  const created = weekTime(rng, c.week);
  d.name = name;
  d.tld1 = name;
  d.state = "Active";
  d.created_at = toDate(created);
  d.last_updated_at = toDate(created);
  d.cluster_domains = [name];
  d.cluster_best_ranked = name;
  for (const f of [
    "platform_domain",
    "aliases",
    "alternates",
    "redirects_to",
    "inactive_at",
    "last_platform",
    "last_platform_change_at",
    "last_plan",
    "last_plan_change_at",
  ])
    delete d[f];
  for (const key of [
    "icon",
    "og_image",
    "contact_page",
    "brands_page",
    "retailer_page",
    "returns_page",
    "tracking_page",
    "warranty_page",
    "financing_page",
    "store_locator_page",
    "career_page",
    "sizing_page",
    "about_us",
  ]) {
    if (typeof d[key] === "string") d[key] = (d[key] as string).replace(template.name as string, name);
  }
  delete d.contact_info;
  const apps = ((d.apps ?? []) as AppEntry[]).filter(
    (a) => a.removed_at === undefined && c.appsOf.get(a.platform)?.some((x) => x.id === a.id),
  );
  for (const a of apps) a.installed_at = toTimestamp(Math.max(created, weekTime(rng, c.week)));
  d.apps = apps.length ? apps : undefined;
  for (const t of (d.technologies ?? []) as Tech[])
    t.installed_at = toTimestamp(Math.max(created, weekTime(rng, c.week)));
  // Its score for the week's ranks: anywhere, new stores mostly low.
  d.rank = 1 + Math.floor(lines * Math.sqrt(rng.float()));
  return d;
}
