/**
 * What the load keeps of the records it has read for the rules that span records
 * (src/dataset/load/cross-checks.ts, and those src/dataset/load/ingest.ts checks as each record
 * comes): per App and technology a few fields, per Domain compact arrays indexed by pk - 1, not
 * records.
 */

export interface AppInfo {
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

export interface TechnologyInfo {
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

export class Kept {
  readonly apps = new Map<string, AppInfo>();
  readonly appKeys = new Map<string, number>(); // "platform.token" → line
  readonly activeInstalls: number[] = [];
  readonly reviewsPerApp: number[] = [];
  readonly technologies = new Map<string, TechnologyInfo>();
  // Per Domain, indexed by pk - 1.
  readonly domainPk = new Map<string, number>();
  readonly domainLine: number[] = [];
  readonly domainName: string[] = [];
  readonly platformDomain: (string | undefined)[] = [];
  readonly platform: string[] = [];
  readonly rank: number[] = [];
  readonly rankPct: number[] = [];
  readonly platformRank: number[] = [];
  readonly platformRankPct: number[] = [];
  /** clusterKey() of the Domain's cluster; undefined for a cluster of one (most Domains). */
  readonly cluster: (string | undefined)[] = [];
}

/** A cluster as one string: its members sorted, then its best-ranked member (compared whole). */
export function clusterKey(members: readonly string[], best: string): string {
  return `${[...members].sort().join(" ")}\n${best}`;
}

export function parseClusterKey(key: string): { members: string[]; best: string } {
  const [members, best] = key.split("\n");
  return { members: members.split(" "), best };
}
