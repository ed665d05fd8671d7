import { existsSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { percentile } from "./generate/domain-record.ts";
import { PLANS, THEMES } from "./generate/platform-profile.ts";
import { hashKeys, Rng } from "./generate/rng.ts";
import { SHOWCASE_DOMAINS } from "./generate/showcase.ts";
import { DAY_MS, NOW_MS, toDate, toTimestamp } from "./generate/time.ts";
import { JsonlWriter } from "./generate/writer.ts";
import { type LocatedFile, locateSnapshotFiles, readLines } from "./load/read.ts";
import { P1 } from "./platforms.ts";
import { P1_DOMAIN_FIELDS } from "./record.ts";

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

export interface EvolveOptions {
  /** The week before: a dataset directory (docs/dataset.md). */
  from: string;
  outDir: string;
  seed: number;
  churn?: Partial<Churn>;
  gzip?: boolean;
}

export interface EvolveResult {
  week: number;
  apps: number;
  domains: number;
  reviews: number;
  files: string[];
}

/** The week a dataset stands for, kept beside its files (absent: week 0, the generator's own). */
export const WEEK_FILE = "week.json";

interface Week {
  week: number;
  /** The week's "now": every date of its changes lies in the 7 days before it. */
  nowMs: number;
}

function weekOf(dir: string): Week {
  const path = join(dir, WEEK_FILE);
  if (!existsSync(path)) return { week: 0, nowMs: NOW_MS };
  const { week } = JSON.parse(readFileSync(path, "utf8")) as { week: number };
  return { week, nowMs: NOW_MS + 7 * week * DAY_MS };
}

type Json = Record<string, unknown>;
interface AppEntry {
  id: string;
  platform: string;
  token: string;
  name: string;
  installed_at: string;
  removed_at?: string;
}
interface Tech {
  name: string;
  description: string;
  vendor_url: string;
  icon_url: string;
  installed_at: string;
  installs: number;
  categories?: string[];
}

/** Salts of the week's random streams (apart from the generator's, src/dataset/generate/salt.ts). */
const SALT = { domain: 101, app: 102, added: 103, rank: 104 } as const;

/** A string's 32-bit hash, so that a record's fate depends on its name, not on its line. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const SHOWCASE = new Set(SHOWCASE_DOMAINS.map((d) => d.identity.name));
const SWITCH_PLATFORMS = [P1, "woocommerce", "wix", "squarespace", "bigcommerce", "magento"];
const STATES_FROM: Record<string, string[]> = {
  Active: ["Inactive", "Password Protected"],
  Inactive: ["Active"],
  "Password Protected": ["Active", "Inactive"],
  Redirect: ["Inactive", "Active"],
};

/** What the whole week knows before it changes a Domain: the catalogues its changes draw from. */
interface Catalogue {
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

/**
 * Writes the week after the dataset in `from`: the same records, changed as a week of the web
 * changes them (stores open and close, change state, platform, plan, theme and country, install
 * and remove Apps and technologies, drift in rank; Apps are added, retired and repriced), every
 * record still honouring every rule of docs/dataset.md. The same dataset, seed and churn always
 * give the same week. The week's number is kept in `week.json`, so weeks chain.
 */
export async function evolveDataset(options: EvolveOptions): Promise<EvolveResult> {
  const churn = { ...DEFAULT_CHURN, ...options.churn };
  for (const [key, value] of Object.entries(churn)) {
    if (!(value >= 0 && value <= 1)) throw new RangeError(`churn.${key} must be from 0 to 1, got ${value}`);
  }
  const files = locateSnapshotFiles(options.from);
  const file = (kind: string) => files.find((f) => f.kind === kind) as LocatedFile;
  const before = weekOf(options.from);
  const week: Week = { week: before.week + 1, nowMs: before.nowMs + 7 * DAY_MS };
  const seed = options.seed;

  // Apps: read whole (tens of thousands at most), changed in place.
  const apps: Json[] = [];
  for await (const { text } of readLines(file("apps"))) apps.push(JSON.parse(text));
  const appIds = new Set(apps.map((a) => a.id as string));
  const tokens = new Set(apps.map((a) => `${a.platform}.${a.token}`));
  const added: Json[] = [];
  for (const app of apps) {
    const rng = Rng.of(seed, SALT.app, week.week, hashOf(app.id as string));
    if (app.state === "Active" && rng.chance(churn.appRemoved) && !isShowcaseApp(app)) {
      app.state = "Inactive";
      app.removed_at = toTimestamp(weekTime(rng, week));
    }
    if (rng.chance(churn.appPlans)) repricePlans(rng, app);
    if (rng.chance(churn.appAdded)) {
      let k = 0;
      let id: string;
      do
        id = (hashKeys([seed, week.week, hashOf(app.id as string), k++]) >>> 0).toString(16).padStart(8, "0");
      while (appIds.has(id));
      let token = `${app.token}-${week.week}`;
      for (let n = 2; tokens.has(`${app.platform}.${token}`); n++) token = `${app.token}-${week.week}-${n}`;
      appIds.add(id);
      tokens.add(`${app.platform}.${token}`);
      const created = weekTime(rng, week);
      const copy: Json = {
        ...app,
        id,
        token,
        name: `${app.name} ${week.week + 1}`,
        app_store_url: `${String(app.app_store_url).replace(/[?#].*$/, "")}-${week.week}`,
        review_count: 0,
        reviews_30d: 0,
        reviews_90d: 0,
        state: "Active",
        created_at: toTimestamp(created).slice(0, 19),
        installs_time_series: undefined,
        installs_30d: undefined,
        installs_90d: undefined,
      };
      delete copy.removed_at;
      added.push(copy);
    }
  }
  apps.push(...added);

  // Pass 0 over the Domains: the catalogues their changes draw from.
  const catalogue: Catalogue = {
    week,
    seed,
    churn,
    appsOf: new Map(),
    technologies: [],
    countries: [],
    reviewers: new Set(),
  };
  for (const a of apps) {
    if (a.state !== "Active") continue;
    const list = catalogue.appsOf.get(a.platform as string) ?? [];
    list.push({
      id: a.id as string,
      platform: a.platform as string,
      token: a.token as string,
      name: a.name as string,
    });
    catalogue.appsOf.set(a.platform as string, list);
  }
  for await (const { text } of readLines(file("reviews"))) {
    for (const d of (JSON.parse(text) as { domains: { name: string }[] }).domains)
      catalogue.reviewers.add(d.name);
  }
  const techs = new Map<string, Tech>();
  const countries = new Set<string>();
  let lines = 0;
  for await (const { text } of readLines(file("domains"))) {
    lines++;
    const d = JSON.parse(text) as Json;
    for (const t of (d.technologies ?? []) as Tech[]) if (!techs.has(t.name)) techs.set(t.name, t);
    if (d.country_code) countries.add(d.country_code as string);
  }
  catalogue.technologies = [...techs.values()];
  catalogue.countries = [...countries].sort();

  // New Domains: each a copy of a Domain of the week before (its template), made a new store.
  const newCount = Math.round(lines * churn.added);
  const templates = new Map<number, number[]>();
  const pick = Rng.of(seed, SALT.added, week.week);
  for (let j = 0; j < newCount; j++) {
    const line = pick.int(0, lines - 1);
    templates.set(line, [...(templates.get(line) ?? []), j]);
  }

  // Pass 1: every Domain's changes, and what spans records: ranks, installs, clusters.
  interface Kept {
    name: string;
    platform: string;
    score: number;
  }
  const kept: Kept[] = [];
  const activeInstalls = new Map<string, number>();
  const techInstalls = new Map<string, number>();
  const platformActive = new Map<string, number>();
  const count = (d: Json) => {
    if (d.state === "Active") {
      platformActive.set(d.platform as string, (platformActive.get(d.platform as string) ?? 0) + 1);
      for (const a of (d.apps ?? []) as AppEntry[]) {
        if (a.removed_at === undefined) activeInstalls.set(a.id, (activeInstalls.get(a.id) ?? 0) + 1);
      }
    }
    for (const t of (d.technologies ?? []) as Tech[])
      techInstalls.set(t.name, (techInstalls.get(t.name) ?? 0) + 1);
  };
  let index = 0;
  for await (const { text } of readLines(file("domains"))) {
    const line = index++;
    const original = JSON.parse(text) as Json;
    for (const j of templates.get(line) ?? []) {
      const d = newDomain(catalogue, original, j, lines);
      count(d);
      kept.push({ name: d.name as string, platform: d.platform as string, score: d.rank as number });
    }
    const d = changed(catalogue, original);
    if (!d) continue;
    count(d);
    const rng = Rng.of(seed, SALT.rank, week.week, hashOf(d.name as string));
    kept.push({
      name: d.name as string,
      platform: d.platform as string,
      score: SHOWCASE.has(d.name as string)
        ? (d.rank as number)
        : (d.rank as number) * Math.exp(churn.rankDrift * rng.normal()),
    });
  }
  // Ranks: 1..n in order of the drifted scores; platform ranks follow within each platform.
  kept.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rankOf = new Map<string, { rank: number; platformRank: number }>();
  const platformCount = new Map<string, number>();
  for (let k = 0; k < kept.length; k++) {
    const { name, platform } = kept[k];
    const platformRank = (platformCount.get(platform) ?? 0) + 1;
    platformCount.set(platform, platformRank);
    rankOf.set(name, { rank: k + 1, platformRank });
  }
  const n = kept.length;
  const bestOf = (members: string[]) => {
    let best: string | undefined;
    for (const m of members) {
      const r = rankOf.get(m)?.rank;
      if (r !== undefined && (best === undefined || r < (rankOf.get(best)?.rank ?? 0))) best = m;
    }
    return best;
  };

  await mkdir(options.outDir, { recursive: true });
  const gzip = options.gzip ?? false;
  const pathOf = (f: string) => join(options.outDir, gzip ? `${f}.gz` : f);
  await Promise.all(
    ["apps.jsonl", "domains.jsonl", "reviews.jsonl"].map((f) =>
      rm(join(options.outDir, gzip ? f : `${f}.gz`), { force: true }),
    ),
  );

  // Pass 2: the Domains, written.
  const finish = (d: Json) => {
    const r = rankOf.get(d.name as string) as { rank: number; platformRank: number };
    d.rank = r.rank;
    d.rank_percentile = percentile(r.rank, n);
    d.platform_rank = r.platformRank;
    d.platform_rank_percentile = percentile(r.platformRank, platformCount.get(d.platform as string) ?? 1);
    const members = d.cluster_domains as string[];
    if (members.length > 1) d.cluster_best_ranked = bestOf(members) ?? d.cluster_best_ranked;
    for (const t of (d.technologies ?? []) as Tech[]) t.installs = techInstalls.get(t.name) ?? 0;
    return JSON.stringify(d);
  };
  const domainsOut = JsonlWriter.open(pathOf("domains.jsonl"), gzip);
  index = 0;
  for await (const { text } of readLines(file("domains"))) {
    const line = index++;
    const original = JSON.parse(text) as Json;
    const d = changed(catalogue, original);
    if (d) await domainsOut.write(finish(d));
    for (const j of templates.get(line) ?? []) {
      await domainsOut.write(finish(newDomain(catalogue, JSON.parse(text) as Json, j, lines)));
    }
  }
  const out = [await domainsOut.close()];

  const appsOut = JsonlWriter.open(pathOf("apps.jsonl"), gzip);
  for (const app of apps) {
    if (app.installs !== undefined) {
      app.installs = activeInstalls.get(app.id as string) ?? 0;
      const active = platformActive.get(app.platform as string) ?? 0;
      if (app.instp !== undefined)
        app.instp = active ? Math.min(1, Number(((app.installs as number) / active).toFixed(5))) : 0;
    }
    await appsOut.write(JSON.stringify(app));
  }
  out.unshift(await appsOut.close());

  // Reviews: a reviewer's platform_rank follows its new rank.
  const reviewsOut = JsonlWriter.open(pathOf("reviews.jsonl"), gzip);
  for await (const { text } of readLines(file("reviews"))) {
    const review = JSON.parse(text) as { domains: { name: string; platform_rank?: number }[] };
    for (const d of review.domains) {
      const r = rankOf.get(d.name);
      if (r && d.platform_rank !== undefined) d.platform_rank = r.platformRank;
    }
    await reviewsOut.write(JSON.stringify(review));
  }
  const reviews = reviewsOut.lines;
  out.push(await reviewsOut.close());
  await writeFile(join(options.outDir, WEEK_FILE), `${JSON.stringify({ week: week.week, seed })}\n`);
  return { week: week.week, apps: apps.length, domains: n, reviews, files: out };
}
const isShowcaseApp = (app: Json) => app.token === "klaviyo" && app.platform === P1;

/** A time within the week (the 7 days before its "now"), at whole seconds. */
function weekTime(rng: Rng, week: Week): number {
  return week.nowMs - 7 * DAY_MS + Math.floor(rng.float() * 7 * 86_400) * 1000;
}

function repricePlans(rng: Rng, app: Json): void {
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
function changed(c: Catalogue, d: Json): Json | undefined {
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
function newDomain(c: Catalogue, template: Json, j: number, lines: number): Json {
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
