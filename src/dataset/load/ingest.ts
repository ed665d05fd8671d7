import type { SnapshotCounts, SnapshotWriter } from "../../db/store.ts";
import type { Row, TableKey } from "../../db/tables.ts";
import { TABLES } from "../../db/tables.ts";
import { P1 } from "../platforms.ts";
import { type NamedKeys, namedKeys } from "../record-issues.ts";
import { checkApps, checkClusters, checkDomains } from "./cross-checks.ts";
import { Culprits } from "./culprits.ts";
import { clusterKey, Kept } from "./kept.ts";
import type { FollowsFrom, Problems } from "./problems.ts";
import type { LocatedFile, SnapshotFile } from "./read.ts";
import { readBatches } from "./read.ts";
import { type Facts, prepareBatches, ValidationPool } from "./validate.ts";

export interface IngestOptions {
  onBytes?: (n: number) => void;
  /** Validation worker threads; 0 validates in this thread. */
  workers?: number;
  signal?: AbortSignal;
}

/**
 * One pass over apps, domains and reviews: validates each record, writes its rows while the
 * snapshot is still clean (after the first problem it only validates, to list every problem),
 * and keeps just what the cross-record rules need (Kept, in kept.ts: compact per-Domain arrays,
 * not records; the rules checked once every record is read are cross-checks.ts) and, of the
 * records that failed, what they named (Culprits), so that the problems their absence causes are
 * reported as following from them.
 */
export class Ingest {
  readonly counts: SnapshotCounts = { apps: 0, domains: 0, reviews: 0 };
  private readonly kept = new Kept();
  private readonly culprits = new Culprits();
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
    const scope = {
      kept: this.kept,
      problems: this.problems,
      culprits: this.culprits,
      appFile: this.appFile,
      domainFile: this.domainFile,
    };
    checkApps(scope);
    checkDomains(scope);
    checkClusters(scope);
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
    const batches = readBatches(file, this.options.onBytes);
    for await (const p of prepareBatches(kind, batches, this.pool)) {
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

  private async app(a: Facts["apps"], rows: [TableKey, Row[]][], line: number): Promise<void> {
    const key = `${a.platform}.${a.token}`;
    if (this.kept.apps.has(a.id)) {
      this.problems.add(
        this.appFile,
        line,
        `id: ${a.id} is also the id of the App at line ${this.kept.apps.get(a.id)?.line}`,
      );
      return;
    }
    if (this.kept.appKeys.has(key)) {
      this.problems.add(
        this.appFile,
        line,
        `token: ${key} is also the App at line ${this.kept.appKeys.get(key)}`,
      );
      this.culprits.app(a.id, line);
      return;
    }
    const pk = ++this.counts.apps;
    this.kept.appKeys.set(key, line);
    this.kept.apps.set(a.id, {
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
    this.kept.activeInstalls[pk] = 0;
    this.kept.reviewsPerApp[pk] = 0;
    for (const [, list] of rows) for (const row of list) row[0] = pk; // app pk comes first in every App table
    await this.write(rows);
  }

  private async domain(d: Facts["domains"], rows: [TableKey, Row[]][], line: number): Promise<void> {
    const other = this.kept.domainPk.get(d.name);
    if (other !== undefined) {
      this.problems.add(
        this.domainFile,
        line,
        `name: ${d.name} is also the Domain at line ${this.kept.domainLine[other - 1]}`,
      );
      this.remember(namedKeys("domains", d), line);
      return;
    }
    const pk = ++this.counts.domains;
    this.kept.domainPk.set(d.name, pk);
    this.kept.domainLine.push(line);
    this.kept.domainName.push(d.name);
    this.kept.platformDomain.push(d.platform_domain);
    this.kept.platform.push(d.platform);
    this.kept.rank.push(d.rank);
    this.kept.rankPct.push(d.rank_percentile);
    this.kept.platformRank.push(d.platform_rank);
    this.kept.platformRankPct.push(d.platform_rank_percentile);
    this.kept.cluster.push(
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
        if (table === "domainTechnology") row[1] = this.kept.technologies.get(row[1] as string)?.pk ?? null;
        if (table === "domainApp") row[1] = this.kept.apps.get(row[1] as string)?.pk ?? null;
      }
      if (table === "domainApp") entry[1] = list.filter((row) => row[1] !== null);
    }
    await this.write(rows);
  }

  private checkInstalledApps(d: Facts["domains"], line: number): void {
    d.apps?.forEach((entry, i) => {
      const app = this.kept.apps.get(entry.id);
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
      if (counts) this.kept.activeInstalls[app.pk]++;
    });
  }

  private checkTechnologies(d: Facts["domains"], line: number): void {
    d.technologies?.forEach((t, i) => {
      const categories = t.categories === undefined ? undefined : JSON.stringify(t.categories);
      const known = this.kept.technologies.get(t.name);
      if (!known) {
        this.kept.technologies.set(t.name, {
          pk: this.kept.technologies.size + 1,
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
    const app = this.kept.apps.get(r.app.id);
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
      const pk = this.kept.domainPk.get(entry.name);
      if (pk === undefined) return;
      const at = `${this.domainFile}:${this.kept.domainLine[pk - 1]}`;
      if (entry.platform_domain !== undefined && entry.platform_domain !== this.kept.platformDomain[pk - 1]) {
        this.problems.add(
          file,
          line,
          `domains[${i}].platform_domain: is not ${entry.name}'s platform_domain (${at})`,
        );
      }
      if (entry.platform_rank !== undefined && entry.platform_rank !== this.kept.platformRank[pk - 1]) {
        this.problems.add(
          file,
          line,
          `domains[${i}].platform_rank: is not ${entry.name}'s platform_rank (${at})`,
        );
      }
    });
    this.kept.reviewsPerApp[app.pk]++;
    const pk = ++this.counts.reviews;
    for (const [table, list] of rows) {
      for (const row of list) {
        row[0] = pk;
        if (table === "appReview") row[1] = app.pk;
        else row[5] = this.kept.domainPk.get(row[5] as string) ?? null;
      }
    }
    await this.write(rows);
  }

  private async writeTechnologies(): Promise<void> {
    const rows: Row[] = [];
    for (const [name, t] of this.kept.technologies) {
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
