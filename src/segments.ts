import { readContext } from "./context.ts";
import { STAGED } from "./db/change-sql.ts";
import { type Bitmap, type CountIndex, RoaringBitmap32 } from "./db/count-index.ts";
import type { SqlReader } from "./db/reader.ts";
import { Segments, type StoredSegment } from "./db/segments.ts";
import type { ServedSnapshot } from "./db/snapshots.ts";
import type { SegmentEvent, SegmentLoadOutcome, SegmentOutcome, SnapshotStore } from "./db/store.ts";
import { DomainSet } from "./query/domain-set.ts";
import type { Where } from "./query/keyset.ts";
import { DEFAULT_SPREAD, type Spread, spreadOf } from "./query/segment-members.ts";
import { segmentArgsOf, segmentWhere } from "./query/segments.ts";
import { domainFilterInput } from "./schema/index.ts";

/**
 * A load's segments (docs/decisions.md, "Segments"): every account's segment evaluated on the new
 * snapshot and on the one served before it, under its filter as saved now, and the Domains that
 * entered and left it made into the feed's segment_entered and segment_left (seen by the segment's
 * account alone), with its size and its spread at the load (over the dimensions it names as the
 * load starts: src/query/segment-members.ts spreadOf). A step of the load (src/load-pipeline.ts),
 * which reads both copies as a gateway would, and publishes the outcome with the load.
 *
 * Members are each snapshot's set of Domains (src/query/domain-set.ts), as ordinals of its count
 * index or keys of that snapshot; the two snapshots' numbers differ, so they are compared through
 * the Domains' names, read once per load.
 */
export interface SegmentsResult extends SegmentOutcome {
  ms: number;
}

export async function evaluateSegments(
  store: SnapshotStore,
  now: ServedSnapshot,
  then: ServedSnapshot | null,
): Promise<SegmentsResult> {
  const started = performance.now();
  const segments = await new Segments(store).every();
  if (!segments.length) return { events: [], loads: [], ms: performance.now() - started };
  const after = now.sql;
  const before = then?.sql ?? null;
  const names = await namesOf(after, before);
  // Both sets indexed: members are compared as ordinals, the old ones mapped to the new (one
  // array for the load); else as keys. The spread is counted on the new snapshot's index only.
  let ordAfter: Int32Array | null = null;
  const moved = async (where: Where, whereThen: Where | null, dimensions: readonly string[]) => {
    const set = new DomainSet(after, where);
    const setThen = whereThen && before ? new DomainSet(before, whereThen) : null;
    const [indexed, was] = await Promise.all([set.indexed(), setThen?.indexed()]);
    const spread = indexed ? spreadOf(indexed.index, indexed.bitmap, dimensions) : null;
    if (indexed && was) {
      ordAfter ??= ordinalMap(was.index, indexed.index, names);
      const nameOf = (ord: number) => names.after[indexed.index.ordToPk[ord]];
      const wasName = (ord: number) => names.before[was.index.ordToPk[ord]];
      return {
        size: indexed.bitmap.size,
        spread,
        ...compare(indexed.bitmap, was.bitmap, ordAfter, nameOf, wasName),
      };
    }
    const members = await set.pks();
    const wasKeys = setThen ? await setThen.pks() : null;
    const nameOf = (pk: number) => names.after[pk];
    const wasName = (pk: number) => names.before[pk];
    const changes = wasKeys
      ? compare(members, wasKeys, names.keyAfter, nameOf, wasName)
      : { entered: [], left: [] };
    return { size: members.size, spread, ...changes };
  };
  const loads: SegmentLoadOutcome[] = [];
  const moves: { segment: StoredSegment; entered: string[]; left: string[]; where: Where }[] = [];
  for (const segment of segments) {
    const scope = { meta: store, account: { account: segment.account, lists: store } };
    let where: Where;
    let whereThen: Where | null = null;
    try {
      const args = segmentArgsOf(segment, domainFilterInput);
      where = await segmentWhere(readContext(now, scope), args);
      if (then) whereThen = await segmentWhere(readContext(then, scope), args);
    } catch (e) {
      // A list it names was deleted since it was saved: no events, and why, at this load.
      loads.push({
        segmentId: segment.id,
        size: null,
        entered: 0,
        left: 0,
        counts: null,
        other: null,
        error: (e as Error).message,
      });
      continue;
    }
    const { size, spread, entered, left } = await moved(where, whereThen, segment.spread ?? DEFAULT_SPREAD);
    loads.push({
      segmentId: segment.id,
      size,
      entered: entered.length,
      left: left.length,
      ...spreadColumns(spread),
      error: null,
    });
    if (entered.length || left.length) moves.push({ segment, entered, left, where });
  }
  const why = await changesOf(
    after,
    moves.flatMap((m) => [...m.entered, ...m.left]),
  );
  const events: SegmentEvent[] = [];
  for (const { segment, entered, left, where } of moves) {
    const kinds = movingKinds(where);
    for (const [kind, domains] of [
      ["segment_entered", entered],
      ["segment_left", left],
    ] as const) {
      for (const domain of domains) {
        const changes = (why.get(domain) ?? []).filter((c) => kinds.has(c.kind));
        events.push({
          kind,
          domain,
          account: segment.account,
          segment: segment.name,
          after: JSON.stringify({ segment: segment.name, changes }),
        });
      }
    }
  }
  return { events, loads, ms: performance.now() - started };
}

/** A spread as segment_load keeps it: JSON text, `other` null when no dimension was cut. */
function spreadColumns(spread: Spread | null): { counts: string | null; other: string | null } {
  if (!spread) return { counts: null, other: null };
  const cut = Object.keys(spread.other).length > 0;
  return { counts: JSON.stringify(spread.counts), other: cut ? JSON.stringify(spread.other) : null };
}

/** Each snapshot's Domain names by key, and the key in the new snapshot of each key of the one before. */
interface Names {
  after: string[];
  before: string[];
  /** By key before: the key after, -1 for a Domain the new snapshot does not have. */
  keyAfter: Int32Array;
}

async function namesOf(after: SqlReader, before: SqlReader | null): Promise<Names> {
  const read = async (sql: SqlReader) => {
    const names: string[] = [];
    for await (const rows of sql.stream(`SELECT "pk", "name" FROM ${sql.table("domain")}`, [], 10_000)) {
      for (const r of rows) names[Number(r[0])] = r[1] as string;
    }
    return names;
  };
  const a = await read(after);
  if (!before) return { after: a, before: [], keyAfter: new Int32Array(0) };
  const b = await read(before);
  const byName = new Map<string, number>();
  a.forEach((name, pk) => {
    byName.set(name, pk);
  });
  const keyAfter = new Int32Array(b.length).fill(-1);
  b.forEach((name, pk) => {
    keyAfter[pk] = byName.get(name) ?? -1;
  });
  return { after: a, before: b, keyAfter };
}

/** By ordinal of the index before: the Domain's ordinal in the index after, -1 for one it lacks. */
function ordinalMap(before: CountIndex, after: CountIndex, names: Names): Int32Array {
  const map = new Int32Array(before.n);
  for (let ord = 0; ord < before.n; ord++) {
    const key = names.keyAfter[before.ordToPk[ord]] ?? -1;
    map[ord] = key < 0 ? -1 : (after.pkToOrd[key] ?? -1);
  }
  return map;
}

/**
 * The Domains that entered (members now, not before) and left (members before, not now: those
 * the new snapshot no longer has among them), each list by name. `now` and `was` are members as
 * numbers of their own snapshot (ordinals or keys), `map` the number after of each number before.
 */
function compare(
  now: Bitmap,
  was: Bitmap,
  map: Int32Array,
  nameOf: (n: number) => string,
  wasName: (n: number) => string,
): { entered: string[]; left: string[] } {
  const members = was.toUint32Array();
  const mapped = new Uint32Array(members.length);
  let m = 0;
  const gone: string[] = [];
  for (const n of members) {
    const k = map[n] ?? -1;
    if (k < 0) gone.push(wasName(n));
    else mapped[m++] = k;
  }
  const wasNow = new RoaringBitmap32(mapped.subarray(0, m));
  const entered = RoaringBitmap32.andNot(now, wasNow).toArray().map(nameOf);
  const left = [...RoaringBitmap32.andNot(wasNow, now).toArray().map(nameOf), ...gone];
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return { entered: entered.sort(order), left: left.sort(order) };
}

/** One of a Domain's events of the load, as a segment event names it. */
interface Moving {
  kind: string;
  app?: string;
  technology?: string;
  before?: unknown;
  after?: unknown;
}

/** The load's events of these Domains (staged in the new copy: src/db/change-sql.ts), by name. */
async function changesOf(sql: SqlReader, domains: string[]): Promise<Map<string, Moving[]>> {
  const out = new Map<string, Moving[]>();
  const unique = [...new Set(domains)];
  for (let i = 0; i < unique.length; i += 1000) {
    const batch = unique.slice(i, i + 1000);
    const rows = await sql.all(
      `SELECT domain, kind, app, technology, before, after FROM ${sql.table(STAGED)} WHERE ${sql.anyOf("domain", 1)} ORDER BY domain, ord, app, technology`,
      [sql.keysParam(batch)],
    );
    for (const r of rows) {
      const change: Moving = { kind: r[1] as string };
      if (r[2] != null) change.app = r[2] as string;
      if (r[3] != null) change.technology = r[3] as string;
      if (r[4] != null) change.before = JSON.parse(r[4] as string);
      if (r[5] != null) change.after = JSON.parse(r[5] as string);
      const list = out.get(r[0] as string);
      if (list) list.push(change);
      else out.set(r[0] as string, [change]);
    }
  }
  return out;
}

/** The kinds of event about what a `where` tests: those that may have moved a Domain in or out. */
const KINDS_OF: Record<string, string[]> = {
  state: ["state_changed"],
  platform: ["platform_changed"],
  plan: ["plan_changed"],
  countryCode: ["country_changed"],
  themeName: ["theme_changed"],
  rank: ["rank_changed"],
  apps: ["app_installed", "app_uninstalled"],
  appPk: ["app_installed", "app_uninstalled"],
  technologies: ["technology_added", "technology_removed"],
};

function movingKinds(where: Where): Set<string> {
  const kinds = new Set(["domain_added", "domain_removed"]);
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object" && !(v instanceof Date)) {
      for (const [k, x] of Object.entries(v)) {
        for (const kind of KINDS_OF[k] ?? []) kinds.add(kind);
        walk(x);
      }
    }
  };
  walk(where);
  return kinds;
}
