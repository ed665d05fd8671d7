import { existsSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type AppEntry,
  type Catalogue,
  type Churn,
  changed,
  DEFAULT_CHURN,
  hashOf,
  isShowcaseApp,
  type Json,
  newDomain,
  repricePlans,
  SALT,
  SHOWCASE,
  type Tech,
  type Week,
  weekTime,
} from "./evolve-changes.ts";
import { percentile } from "./generate/domain-record.ts";
import { hashKeys, Rng } from "./generate/rng.ts";
import { DAY_MS, NOW_MS, toTimestamp } from "./generate/time.ts";
import { JsonlWriter } from "./generate/writer.ts";
import { type LocatedFile, locateSnapshotFiles, readLines } from "./load/read.ts";

/**
 * The week after a dataset (npm run generate-data -- --from DIR, the demo's week after, the tests'
 * weeks): every file read and written again with the week's changes, the records changed one by
 * one as src/dataset/evolve-changes.ts says.
 */

export type { Churn };
export { DEFAULT_CHURN };

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
function weekOf(dir: string): Week {
  const path = join(dir, WEEK_FILE);
  if (!existsSync(path)) return { week: 0, nowMs: NOW_MS };
  const { week } = JSON.parse(readFileSync(path, "utf8")) as { week: number };
  return { week, nowMs: NOW_MS + 7 * week * DAY_MS };
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
