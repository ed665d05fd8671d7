import type { Culprit, Culprits } from "./culprits.ts";
import { clusterKey, type Kept, parseClusterKey } from "./kept.ts";
import type { FollowsFrom, Problems } from "./problems.ts";

/**
 * The rules that span records, checked once every record is read (src/dataset/load/ingest.ts
 * reads them and keeps what these need, Kept): an App's installs and review_count against the
 * Domains and reviews that name it, a technology's installs against the Domains that list it,
 * the Domains' names and ranks, and their clusters.
 */

/** What the checks read and where they report. */
export interface CheckScope {
  kept: Kept;
  problems: Problems;
  culprits: Culprits;
  appFile: string;
  domainFile: string;
}

/** App.installs equals its Active installs; review_count covers its reviews. */
export function checkApps(scope: CheckScope): void {
  const { kept, problems, appFile, domainFile, culprits } = scope;
  for (const [id, app] of kept.apps) {
    const active = kept.activeInstalls[app.pk];
    if (app.installs !== undefined && app.installs !== active) {
      problems.add(
        appFile,
        app.line,
        `installs: is ${app.installs} but ${active} Active Domain${active === 1 ? " has" : "s have"} the App installed`,
        shortBy(domainFile, app.installs, active, culprits.ofInstalls(id)),
      );
    }
    const reviews = kept.reviewsPerApp[app.pk];
    if (reviews > app.reviewCount) {
      problems.add(
        appFile,
        app.line,
        `review_count: is ${app.reviewCount} but reviews lists ${reviews} reviews of the App`,
      );
    }
  }
  for (const [name, t] of kept.technologies) {
    if (t.installs !== t.listedBy) {
      problems.add(
        domainFile,
        t.line,
        `technologies: ${name} has installs ${t.installs} but ${t.listedBy} Domain${t.listedBy === 1 ? " lists" : "s list"} it`,
        shortBy(domainFile, t.installs, t.listedBy, culprits.ofTechnology(name)),
      );
    }
  }
}

/** Unique names across name/platform_domain; ranks unique and consistent with percentiles. */
export function checkDomains(scope: CheckScope): void {
  const { kept, problems, domainFile } = scope;
  const n = kept.domainName.length;
  for (let i = 0; i < n; i++) {
    const pd = kept.platformDomain[i];
    const other = pd === undefined ? undefined : kept.domainPk.get(pd);
    if (other !== undefined && other !== i + 1) {
      problems.add(
        domainFile,
        kept.domainLine[i],
        `platform_domain: ${pd} is the name of the Domain at line ${kept.domainLine[other - 1]}`,
      );
    }
  }
  const byRank = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => kept.rank[a] - kept.rank[b]);
  const at = (i: number) => `${kept.domainName[i]} (line ${kept.domainLine[i]})`;
  for (let k = 1; k < n; k++) {
    const prev = byRank[k - 1];
    const cur = byRank[k];
    if (kept.rank[cur] === kept.rank[prev]) {
      problems.add(
        domainFile,
        kept.domainLine[cur],
        `rank: ${kept.rank[cur]} is also the rank of ${at(prev)}`,
      );
    } else if (kept.rankPct[cur] > kept.rankPct[prev]) {
      problems.add(
        domainFile,
        kept.domainLine[cur],
        `rank_percentile: is higher than that of the better-ranked ${at(prev)}`,
      );
    }
  }
  // Within a platform, in rank order, platform ranks strictly increase and percentiles don't.
  const lastOfPlatform = new Map<string, number>();
  for (const cur of byRank) {
    const prev = lastOfPlatform.get(kept.platform[cur]);
    lastOfPlatform.set(kept.platform[cur], cur);
    if (prev === undefined) continue;
    if (kept.platformRank[cur] <= kept.platformRank[prev]) {
      problems.add(
        domainFile,
        kept.domainLine[cur],
        `platform_rank: ${kept.platformRank[cur]} does not follow the rank order of ${kept.platform[cur]} Domains (${at(prev)} ranks better with platform_rank ${kept.platformRank[prev]})`,
      );
    } else if (kept.platformRankPct[cur] > kept.platformRankPct[prev]) {
      problems.add(
        domainFile,
        kept.domainLine[cur],
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
export function checkClusters(scope: CheckScope): void {
  const { kept, problems, domainFile } = scope;
  const keyOf = (pk: number) => kept.cluster[pk - 1] ?? clusterKey([kept.domainName[pk - 1]], "");
  for (let i = 0; i < kept.cluster.length; i++) {
    const key = kept.cluster[i];
    if (key === undefined) continue;
    const { members, best } = parseClusterKey(key);
    const line = kept.domainLine[i];
    const name = kept.domainName[i];
    for (const member of members) {
      const pk = kept.domainPk.get(member);
      if (pk === undefined || member === name) continue;
      const theirs = parseClusterKey(keyOf(pk));
      const at = `${member} (line ${kept.domainLine[pk - 1]})`;
      if (theirs.members.join(" ") !== members.join(" ")) {
        problems.add(
          domainFile,
          line,
          `cluster_domains: lists ${member}, whose cluster_domains (line ${kept.domainLine[pk - 1]}) are ${theirs.members.join(", ")}`,
        );
      } else if (theirs.best !== best) {
        problems.add(domainFile, line, `cluster_best_ranked: is ${best}, but ${at} names ${theirs.best}`);
      }
    }
    const claimed = kept.domainPk.get(best);
    if (claimed === undefined) continue;
    let top = claimed;
    for (const member of members) {
      const pk = kept.domainPk.get(member);
      if (pk !== undefined && kept.rank[pk - 1] < kept.rank[top - 1]) top = pk;
    }
    if (top !== claimed) {
      problems.add(
        domainFile,
        line,
        `cluster_best_ranked: is ${best} (rank ${kept.rank[claimed - 1]}), but ${kept.domainName[top - 1]} (line ${kept.domainLine[top - 1]}) ranks better (rank ${kept.rank[top - 1]})`,
      );
    }
  }
}

/**
 * The Domain lines a count `found` short of `declared` follows from: only when counting them
 * could make up the difference; otherwise the count is wrong in its own right.
 */
function shortBy(domainFile: string, declared: number, found: number, c: Culprit): FollowsFrom | undefined {
  if (!(found < declared && declared <= found + c.count)) return undefined;
  return { file: domainFile, lines: c.lines, more: c.count - c.lines.length };
}
