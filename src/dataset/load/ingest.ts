import type { SnapshotCounts, SnapshotWriter } from "../../db/store.ts";
import type { Row, TableKey } from "../../db/tables.ts";
import { TABLES } from "../../db/tables.ts";
import { P1 } from "../platforms.ts";
import { type NamedKeys, namedKeys } from "../record-issues.ts";
import { type Culprit, Culprits } from "./culprits.ts";
import type { FollowsFrom, Problems } from "./problems.ts";
import type { LocatedFile, SnapshotFile } from "./read.ts";
import { readLines } from "./read.ts";
import { type Facts, prepareLines, ValidationPool } from "./validate.ts";

interface AppInfo {
  pk: number;
  line: number;
  platform: string;
  token: string;
  installs: number | undefined;
  reviewCount: number;
  name: string;
  appStoreUrl: string;
  vendorName: string;
}

interface TechnologyInfo {
  pk: number;
  line: number;
  /** Everything but installed_at, to check that every Domain describes it the same way. */
  description: string;
  vendorUrl: string;
  iconUrl: string;
  installs: number;
  categories: string | undefined;
  listedBy: number;
}

export interface IngestOptions {
  onBytes?: (n: number) => void;
  /** Validation worker threads; 0 validates in this thread. */
  workers?: number;
  signal?: AbortSignal;
}

/**
 * One pass over apps, domains and reviews: validates each record, writes its rows while the
 * snapshot is still clean (after the first problem it only validates, to list every problem),
 * and keeps just what the cross-record rules need — compact per-Domain arrays, not records —
 * and, of the records that failed, what they named (Culprits), so that the problems their
 * absence causes are reported as following from them.
 */
export class Ingest {
  readonly counts: SnapshotCounts = { apps: 0, domains: 0, reviews: 0 };
  private readonly apps = new Map<string, AppInfo>();
  private readonly appKeys = new Map<string, number>(); // "platform.token" → line
  private readonly activeInstalls: number[] = [];
  private readonly reviewsPerApp: number[] = [];
  private readonly technologies = new Map<string, TechnologyInfo>();
  // Per Domain, indexed by pk - 1.
  private readonly domainPk = new Map<string, number>();
  private readonly domainLine: number[] = [];
  private readonly domainName: string[] = [];
  private readonly platformDomain: (string | undefined)[] = [];
  private readonly platform: string[] = [];
  private readonly rank: number[] = [];
  private readonly rankPct: number[] = [];
  private readonly platformRank: number[] = [];
  private readonly platformRankPct: number[] = [];
  private readonly culprits = new Culprits();
  /** clusterKey() of the Domain's cluster; undefined for a cluster of one (most Domains). */
  private readonly cluster: (string | undefined)[] = [];
  private pool: ValidationPool | null = null;
  private appFile = "apps.jsonl";
  private domainFile = "domains.jsonl";

  constructor(
    private readonly writer: SnapshotWriter,
    private readonly problems: Problems,
    private readonly options: IngestOptions = {},
  ) {}

  async run(files: LocatedFile[]): Promise<SnapshotCounts> {
    const byKind = new Map<SnapshotFile, LocatedFile>(files.map((f) => [f.kind, f]));
    const apps = byKind.get("apps");
    const domains = byKind.get("domains");
    const reviews = byKind.get("reviews");
    if (!apps || !domains || !reviews) throw new Error("apps, domains and reviews files are all required");
    this.appFile = apps.name;
    this.domainFile = domains.name;
    this.problems.orderFiles([apps.name, domains.name, reviews.name]);
    const workers = this.options.workers ?? 0;
    this.pool = workers > 0 ? new ValidationPool(workers) : null;
    try {
      await this.each(apps, "apps", (f, rows, line) => this.app(f, rows, line));
      await this.each(domains, "domains", (f, rows, line) => this.domain(f, rows, line));
      await this.each(reviews, "reviews", (f, rows, line) => this.review(f, rows, line, reviews.name));
    } finally {
      await this.pool?.close();
    }
    this.checkApps();
    this.checkDomains();
    this.checkClusters();
    await this.writeTechnologies();
    return this.counts;
  }

  private get clean(): boolean {
    return this.problems.total === 0;
  }

  private async write(batches: [TableKey, Row[]][]): Promise<void> {
    if (!this.clean) return;
    for (const [table, rows] of batches) await this.writer.write(TABLES[table], rows);
  }

  private async each<K extends SnapshotFile>(
    file: LocatedFile,
    kind: K,
    handle: (facts: Facts[K], rows: [TableKey, Row[]][], line: number) => Promise<void>,
  ): Promise<void> {
    const lines = readLines(file, this.options.onBytes);
    for await (const p of prepareLines(kind, lines, this.pool)) {
      if (this.options.signal?.aborted) throw new Error("the load was interrupted");
      if (p.problems) {
        for (const problem of p.problems) this.problems.add(file.name, p.line, problem);
        this.remember(p.named, p.line);
      } else await handle(p.facts, p.rows, p.line);
    }
  }

  /** What a dropped record at `line` named (see Culprits). */
  private remember(named: NamedKeys | undefined, line: number): void {
    if (named?.app !== undefined) this.culprits.app(named.app, line);
    for (const id of named?.installs ?? []) this.culprits.uncounted(id, line);
    for (const name of named?.technologies ?? []) this.culprits.unlisted(name, line);
  }

  /** The dropped App record that `id` would have named, if any. */
  private droppedApp(id: string): FollowsFrom | undefined {
    const line = this.culprits.ofApp(id);
    return line === undefined ? undefined : { file: this.appFile, lines: [line], more: 0 };
  }

  /**
   * The Domain lines a count `found` short of `declared` follows from: only when counting them
   * could make up the difference; otherwise the count is wrong in its own right.
   */
  private shortBy(declared: number, found: number, c: Culprit): FollowsFrom | undefined {
    if (!(found < declared && declared <= found + c.count)) return undefined;
    return { file: this.domainFile, lines: c.lines, more: c.count - c.lines.length };
  }

  private async app(a: Facts["apps"], rows: [TableKey, Row[]][], line: number): Promise<void> {
    const key = `${a.platform}.${a.token}`;
    if (this.apps.has(a.id)) {
      this.problems.add(
        this.appFile,
        line,
        `id: ${a.id} is also the id of the App at line ${this.apps.get(a.id)?.line}`,
      );
      return;
    }
    if (this.appKeys.has(key)) {
      this.problems.add(this.appFile, line, `token: ${key} is also the App at line ${this.appKeys.get(key)}`);
      this.culprits.app(a.id, line);
      return;
    }
    const pk = ++this.counts.apps;
    this.appKeys.set(key, line);
    this.apps.set(a.id, {
      pk,
      line,
      platform: a.platform,
      token: a.token,
      installs: a.installs,
      reviewCount: a.review_count,
      name: a.name,
      appStoreUrl: a.app_store_url,
      vendorName: a.vendor_name,
    });
    this.activeInstalls[pk] = 0;
    this.reviewsPerApp[pk] = 0;
    for (const [, list] of rows) for (const row of list) row[0] = pk; // app pk comes first in every App table
    await this.write(rows);
  }

  private async domain(d: Facts["domains"], rows: [TableKey, Row[]][], line: number): Promise<void> {
    const other = this.domainPk.get(d.name);
    if (other !== undefined) {
      this.problems.add(
        this.domainFile,
        line,
        `name: ${d.name} is also the Domain at line ${this.domainLine[other - 1]}`,
      );
      this.remember(namedKeys("domains", d), line);
      return;
    }
    const pk = ++this.counts.domains;
    this.domainPk.set(d.name, pk);
    this.domainLine.push(line);
    this.domainName.push(d.name);
    this.platformDomain.push(d.platform_domain);
    this.platform.push(d.platform);
    this.rank.push(d.rank);
    this.rankPct.push(d.rank_percentile);
    this.platformRank.push(d.platform_rank);
    this.platformRankPct.push(d.platform_rank_percentile);
    this.cluster.push(
      d.cluster_domains.length === 1 ? undefined : clusterKey(d.cluster_domains, d.cluster_best_ranked),
    );
    this.checkInstalledApps(d, line);
    this.checkTechnologies(d, line);
    // Resolve what only the whole load knows: the Domain's pk, technology pks, App pks (an unknown
    // App is already a problem, so its row is dropped).
    for (const entry of rows) {
      const [table, list] = entry;
      for (const row of list) {
        row[0] = pk;
        if (table === "domainTechnology") row[1] = this.technologies.get(row[1] as string)?.pk ?? null;
        if (table === "domainApp") row[1] = this.apps.get(row[1] as string)?.pk ?? null;
      }
      if (table === "domainApp") entry[1] = list.filter((row) => row[1] !== null);
    }
    await this.write(rows);
  }

  private checkInstalledApps(d: Facts["domains"], line: number): void {
    d.apps?.forEach((entry, i) => {
      const app = this.apps.get(entry.id);
      if (!app) {
        this.problems.add(
          this.domainFile,
          line,
          `apps[${i}].id: names no App of ${this.appFile}`,
          this.droppedApp(entry.id),
        );
        return;
      }
      const counts = d.state === "Active" && entry.removed_at === undefined;
      if (app.platform !== entry.platform || app.token !== entry.token) {
        this.problems.add(
          this.domainFile,
          line,
          `apps[${i}]: is ${entry.platform}.${entry.token} but App ${entry.id} is ${app.platform}.${app.token} (${this.appFile}:${app.line})`,
        );
        if (counts) this.culprits.uncounted(entry.id, line);
        return;
      }
      if (counts) this.activeInstalls[app.pk]++;
    });
  }

  private checkTechnologies(d: Facts["domains"], line: number): void {
    d.technologies?.forEach((t, i) => {
      const categories = t.categories === undefined ? undefined : JSON.stringify(t.categories);
      const known = this.technologies.get(t.name);
      if (!known) {
        this.technologies.set(t.name, {
          pk: this.technologies.size + 1,
          line,
          description: t.description,
          vendorUrl: t.vendor_url,
          iconUrl: t.icon_url,
          installs: t.installs,
          categories,
          listedBy: 1,
        });
        return;
      }
      known.listedBy++;
      const differs = (field: string, a: unknown, b: unknown) => {
        if (a !== b) {
          this.problems.add(
            this.domainFile,
            line,
            `technologies[${i}].${field}: differs from ${t.name}'s ${field} at ${this.domainFile}:${known.line}`,
          );
        }
      };
      differs("description", t.description, known.description);
      differs("vendor_url", t.vendor_url, known.vendorUrl);
      differs("icon_url", t.icon_url, known.iconUrl);
      differs("installs", t.installs, known.installs);
      differs("categories", categories, known.categories);
    });
  }

  private async review(
    r: Facts["reviews"],
    rows: [TableKey, Row[]][],
    line: number,
    file: string,
  ): Promise<void> {
    const app = this.apps.get(r.app.id);
    if (!app) {
      this.problems.add(file, line, `app.id: names no App of ${this.appFile}`, this.droppedApp(r.app.id));
      return;
    }
    if (app.platform !== P1) {
      this.problems.add(
        file,
        line,
        `app.id: App ${r.app.id} is a ${app.platform} App; reviews exist only for ${P1} Apps`,
      );
      return;
    }
    const same = (field: string, given: string, expected: string) => {
      if (given !== expected)
        this.problems.add(
          file,
          line,
          `app.${field}: is not the App's ${field} (${this.appFile}:${app.line})`,
        );
    };
    same("name", r.app.name, app.name);
    same("app_store_url", r.app.app_store_url, app.appStoreUrl);
    same("vendor_name", r.app.vendor_name, app.vendorName);
    r.domains.forEach((entry, i) => {
      const pk = this.domainPk.get(entry.name);
      if (pk === undefined) return;
      const at = `${this.domainFile}:${this.domainLine[pk - 1]}`;
      if (entry.platform_domain !== undefined && entry.platform_domain !== this.platformDomain[pk - 1]) {
        this.problems.add(
          file,
          line,
          `domains[${i}].platform_domain: is not ${entry.name}'s platform_domain (${at})`,
        );
      }
      if (entry.platform_rank !== undefined && entry.platform_rank !== this.platformRank[pk - 1]) {
        this.problems.add(
          file,
          line,
          `domains[${i}].platform_rank: is not ${entry.name}'s platform_rank (${at})`,
        );
      }
    });
    this.reviewsPerApp[app.pk]++;
    const pk = ++this.counts.reviews;
    for (const [table, list] of rows) {
      for (const row of list) {
        row[0] = pk;
        if (table === "appReview") row[1] = app.pk;
        else row[5] = this.domainPk.get(row[5] as string) ?? null;
      }
    }
    await this.write(rows);
  }

  /** App.installs equals its Active installs; review_count covers its reviews. */
  private checkApps(): void {
    for (const [id, app] of this.apps) {
      const active = this.activeInstalls[app.pk];
      if (app.installs !== undefined && app.installs !== active) {
        this.problems.add(
          this.appFile,
          app.line,
          `installs: is ${app.installs} but ${active} Active Domain${active === 1 ? " has" : "s have"} the App installed`,
          this.shortBy(app.installs, active, this.culprits.ofInstalls(id)),
        );
      }
      const reviews = this.reviewsPerApp[app.pk];
      if (reviews > app.reviewCount) {
        this.problems.add(
          this.appFile,
          app.line,
          `review_count: is ${app.reviewCount} but reviews lists ${reviews} reviews of the App`,
        );
      }
    }
    for (const [name, t] of this.technologies) {
      if (t.installs !== t.listedBy) {
        this.problems.add(
          this.domainFile,
          t.line,
          `technologies: ${name} has installs ${t.installs} but ${t.listedBy} Domain${t.listedBy === 1 ? " lists" : "s list"} it`,
          this.shortBy(t.installs, t.listedBy, this.culprits.ofTechnology(name)),
        );
      }
    }
  }

  /** Unique names across name/platform_domain; ranks unique and consistent with percentiles. */
  private checkDomains(): void {
    const n = this.domainName.length;
    for (let i = 0; i < n; i++) {
      const pd = this.platformDomain[i];
      const other = pd === undefined ? undefined : this.domainPk.get(pd);
      if (other !== undefined && other !== i + 1) {
        this.problems.add(
          this.domainFile,
          this.domainLine[i],
          `platform_domain: ${pd} is the name of the Domain at line ${this.domainLine[other - 1]}`,
        );
      }
    }
    const byRank = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => this.rank[a] - this.rank[b]);
    const at = (i: number) => `${this.domainName[i]} (line ${this.domainLine[i]})`;
    for (let k = 1; k < n; k++) {
      const prev = byRank[k - 1];
      const cur = byRank[k];
      if (this.rank[cur] === this.rank[prev]) {
        this.problems.add(
          this.domainFile,
          this.domainLine[cur],
          `rank: ${this.rank[cur]} is also the rank of ${at(prev)}`,
        );
      } else if (this.rankPct[cur] > this.rankPct[prev]) {
        this.problems.add(
          this.domainFile,
          this.domainLine[cur],
          `rank_percentile: is higher than that of the better-ranked ${at(prev)}`,
        );
      }
    }
    // Within a platform, in rank order, platform ranks strictly increase and percentiles don't.
    const lastOfPlatform = new Map<string, number>();
    for (const cur of byRank) {
      const prev = lastOfPlatform.get(this.platform[cur]);
      lastOfPlatform.set(this.platform[cur], cur);
      if (prev === undefined) continue;
      if (this.platformRank[cur] <= this.platformRank[prev]) {
        this.problems.add(
          this.domainFile,
          this.domainLine[cur],
          `platform_rank: ${this.platformRank[cur]} does not follow the rank order of ${this.platform[cur]} Domains (${at(prev)} ranks better with platform_rank ${this.platformRank[prev]})`,
        );
      } else if (this.platformRankPct[cur] > this.platformRankPct[prev]) {
        this.problems.add(
          this.domainFile,
          this.domainLine[cur],
          `platform_rank_percentile: is higher than that of the better-ranked ${at(prev)}`,
        );
      }
    }
  }

  /**
   * Every member of a cluster that the snapshot holds lists the same members and the same
   * best-ranked one, and that one ranks best of the members it holds. (Members the snapshot lacks
   * cannot be checked: a snapshot may hold part of the web.)
   */
  private checkClusters(): void {
    const keyOf = (pk: number) => this.cluster[pk - 1] ?? clusterKey([this.domainName[pk - 1]], "");
    for (let i = 0; i < this.cluster.length; i++) {
      const key = this.cluster[i];
      if (key === undefined) continue;
      const { members, best } = parseClusterKey(key);
      const line = this.domainLine[i];
      const name = this.domainName[i];
      for (const member of members) {
        const pk = this.domainPk.get(member);
        if (pk === undefined || member === name) continue;
        const theirs = parseClusterKey(keyOf(pk));
        const at = `${member} (line ${this.domainLine[pk - 1]})`;
        if (theirs.members.join(" ") !== members.join(" ")) {
          this.problems.add(
            this.domainFile,
            line,
            `cluster_domains: lists ${member}, whose cluster_domains (line ${this.domainLine[pk - 1]}) are ${theirs.members.join(", ")}`,
          );
        } else if (theirs.best !== best) {
          this.problems.add(
            this.domainFile,
            line,
            `cluster_best_ranked: is ${best}, but ${at} names ${theirs.best}`,
          );
        }
      }
      const claimed = this.domainPk.get(best);
      if (claimed === undefined) continue;
      let top = claimed;
      for (const member of members) {
        const pk = this.domainPk.get(member);
        if (pk !== undefined && this.rank[pk - 1] < this.rank[top - 1]) top = pk;
      }
      if (top !== claimed) {
        this.problems.add(
          this.domainFile,
          line,
          `cluster_best_ranked: is ${best} (rank ${this.rank[claimed - 1]}), but ${this.domainName[top - 1]} (line ${this.domainLine[top - 1]}) ranks better (rank ${this.rank[top - 1]})`,
        );
      }
    }
  }

  private async writeTechnologies(): Promise<void> {
    const rows: Row[] = [];
    for (const [name, t] of this.technologies) {
      rows.push([
        t.pk,
        name,
        t.description,
        t.vendorUrl,
        t.iconUrl,
        t.installs,
        t.categories ?? null, // already JSON text
      ]);
    }
    await this.write([["technology", rows]]);
  }
}

/** A cluster as one string: its members sorted, then its best-ranked member (compared whole). */
function clusterKey(members: readonly string[], best: string): string {
  return `${[...members].sort().join(" ")}\n${best}`;
}

function parseClusterKey(key: string): { members: string[]; best: string } {
  const [members, best] = key.split("\n");
  return { members: members.split(" "), best };
}
