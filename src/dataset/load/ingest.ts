import type { z } from "zod";
import type { SnapshotCounts, SnapshotWriter } from "../../db/store.ts";
import { P1 } from "../platforms.ts";
import { AppRecord, DomainRecord, formatIssue, ReviewRecord } from "../record.ts";
import type { Problems } from "./problems.ts";
import type { LocatedFile, SnapshotFile } from "./read.ts";
import { readLines } from "./read.ts";
import type { Row, TableKey } from "./rows.ts";
import { appChildRows, appRow, domainChildRows, domainRow, reviewRows, TABLES } from "./rows.ts";

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
  signal?: AbortSignal;
}

/**
 * One pass over apps, domains and reviews: validates each record, writes its rows while the
 * snapshot is still clean (after the first problem it only validates, to list every problem),
 * and keeps just what the cross-record rules need — compact per-Domain arrays, not records.
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
    await this.each(apps, AppRecord, (r, line) => this.app(r, line));
    await this.each(domains, DomainRecord, (r, line) => this.domain(r, line));
    await this.each(reviews, ReviewRecord, (r, line) => this.review(r, line, reviews.name));
    this.checkApps();
    this.checkDomains();
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

  private async each<S extends z.ZodType>(
    file: LocatedFile,
    schema: S,
    handle: (record: z.infer<S>, line: number) => Promise<void>,
  ): Promise<void> {
    for await (const { line, text } of readLines(file, this.options.onBytes)) {
      if (this.options.signal?.aborted) throw new Error("the load was interrupted");
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        this.problems.add(file.name, line, `(record): is not valid JSON: ${(e as Error).message}`);
        continue;
      }
      const parsed = schema.safeParse(value, { reportInput: true });
      if (!parsed.success) {
        for (const issue of parsed.error.issues) this.problems.add(file.name, line, formatIssue(issue));
        continue;
      }
      await handle(parsed.data, line);
    }
  }

  private async app(a: AppRecord, line: number): Promise<void> {
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
    await this.write([["app", [appRow(pk, a)]], ...appChildRows(pk, a)]);
  }

  private async domain(d: DomainRecord, line: number): Promise<void> {
    const other = this.domainPk.get(d.name);
    if (other !== undefined) {
      this.problems.add(
        this.domainFile,
        line,
        `name: ${d.name} is also the Domain at line ${this.domainLine[other - 1]}`,
      );
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
    this.checkInstalledApps(d, line);
    this.checkTechnologies(d, line);
    await this.write([
      ["domain", [domainRow(pk, d)]],
      ...domainChildRows(
        pk,
        d,
        (name) => this.technologies.get(name)?.pk ?? 0,
        (id) => this.apps.get(id)?.pk,
      ),
    ]);
  }

  private checkInstalledApps(d: DomainRecord, line: number): void {
    d.apps?.forEach((entry, i) => {
      const app = this.apps.get(entry.id);
      if (!app) {
        this.problems.add(this.domainFile, line, `apps[${i}].id: names no App of ${this.appFile}`);
        return;
      }
      if (app.platform !== entry.platform || app.token !== entry.token) {
        this.problems.add(
          this.domainFile,
          line,
          `apps[${i}]: is ${entry.platform}.${entry.token} but App ${entry.id} is ${app.platform}.${app.token} (${this.appFile}:${app.line})`,
        );
        return;
      }
      if (d.state === "Active" && entry.removed_at === undefined) this.activeInstalls[app.pk]++;
    });
  }

  private checkTechnologies(d: DomainRecord, line: number): void {
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

  private async review(r: ReviewRecord, line: number, file: string): Promise<void> {
    const app = this.apps.get(r.app.id);
    if (!app) {
      this.problems.add(file, line, `app.id: names no App of ${this.appFile}`);
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
    await this.write(reviewRows(pk, app.pk, r, (name) => this.domainPk.get(name)));
  }

  /** App.installs equals its Active installs; review_count covers its reviews. */
  private checkApps(): void {
    for (const app of this.apps.values()) {
      const active = this.activeInstalls[app.pk];
      if (app.installs !== undefined && app.installs !== active) {
        this.problems.add(
          this.appFile,
          app.line,
          `installs: is ${app.installs} but ${active} Active Domain${active === 1 ? " has" : "s have"} the App installed`,
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
        t.categories === undefined ? null : JSON.parse(t.categories),
      ]);
    }
    await this.write([["technology", rows]]);
  }
}
