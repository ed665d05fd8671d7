import { LRUCache } from "lru-cache";
import { type Bitmap, type CountIndex, countIndexOf, RoaringBitmap32 } from "../db/count-index.ts";
import { DomainKeys } from "../db/domain-keys.ts";
import type { NumberColumn } from "../db/number-column.ts";
import { perReader } from "../db/per-reader.ts";
import type { SqlReader } from "../db/reader.ts";
import { localWhereBitmapOf, whereBitmapOf, whereKey } from "../db/where-bitmap.ts";
import { countWhere, statementOver } from "../db/where-sql.ts";
import type { IndexedMembers, RecordSet } from "./facets.ts";
import { indexFacet } from "./index-facet.ts";
import { selectPage } from "./index-page.ts";
import type { KeyValue, SortKey, Where } from "./keyset.ts";

/**
 * A set of Domains: the Domains of one snapshot reader that one `where` matches (a filter and
 * search with its keys resolved: src/query/domain-list.ts, domainSetOf), asked by every consumer
 * of a list of Domains (a page and its totalCount, facets, histograms, an export, a segment's
 * members and spread at a load, the change feed's `f:` options). It alone asks whether the
 * reader's count index answers (src/db/count-index.ts; src/db/where-bitmap.ts evaluates the
 * `where` over it): its members are then a bitmap of the index's ordinals; on a reader without
 * one (the Domains gone from a snapshot, the parity tests' unindexed reader) every answer is a
 * statement of src/db/where-sql.ts. Nothing of it changes once made.
 */
export class DomainSet implements RecordSet {
  readonly table = "domain" as const;
  #indexed: Promise<IndexedDomains | null> | undefined;

  constructor(
    readonly sql: SqlReader,
    readonly where: Where,
  ) {}

  async hasIndex(): Promise<boolean> {
    return (await countIndexOf(this.sql)) !== null;
  }

  /** Its members as ordinals of the reader's count index; null when the reader has none. */
  indexed(): Promise<IndexedDomains | null> {
    this.#indexed ??= whereBitmapOf(this.sql, this.where).then(
      (found) => found && indexedDomains(found.index, found.bitmap),
    );
    return this.#indexed;
  }

  async numbers(field: string): Promise<NumberColumn | null> {
    return (await countIndexOf(this.sql))?.numbers.get(field) ?? null;
  }

  async count(): Promise<number> {
    const found = await this.indexed();
    return found ? found.bitmap.size : countWhere(this.sql, "domain", this.where);
  }

  /**
   * A page's keys from the count index (src/query/index-page.ts, selectPage), when its members
   * are known without a statement (a search's text or a list's names ask the database: gathering
   * all their keys to read one page would cost more than the page's own statement) and the index
   * can place the cursor exactly; else null, and the page is read by SQL.
   */
  async pageKeys(
    keys: readonly SortKey[],
    after: readonly KeyValue[] | null,
    take: number,
  ): Promise<number[] | null> {
    if (take <= 0 || keys.at(-1)?.field !== "pk") return null;
    const found = await localWhereBitmapOf(this.sql, this.where);
    return found && selectPage(found.index, found.bitmap, keys, after, take);
  }

  /**
   * The keys of its best-ranked members, at most `max`, in rank order (unranked last, then key):
   * the index's smallest ordinals, which are in that order (src/db/count-index-build.ts), or a
   * statement on a reader without one.
   */
  async bestRanked(max: number): Promise<number[]> {
    const indexed = await this.indexed();
    if (indexed) {
      // roaring's rangeUint32Array(offset, limit) takes members by position.
      const ords = new RoaringBitmap32(indexed.bitmap.rangeUint32Array(0, max));
      return DomainKeys.ofOrdinals(this.sql, indexed.index, ords).keysIn(this.sql.table("domain"));
    }
    const { text, params } = statementOver(
      this.sql,
      "domain",
      this.where,
      (cond, bind) =>
        `SELECT r."pk" FROM ${this.sql.table("domain")} r WHERE ${cond} ORDER BY (CASE WHEN r."rank" IS NULL THEN 1 ELSE 0 END), r."rank", r."pk" LIMIT ${bind(max)}`,
    );
    return (await this.sql.all(text, params)).map((r) => Number(r[0]));
  }

  /** Its members' keys, as a bitmap (the ordinals mapped by DomainKeys, which its members are). */
  async pks(): Promise<Bitmap> {
    return new RoaringBitmap32((await this.members()).keys());
  }

  /**
   * Its members, to stand in another `where` for their keys (`f:segment`): made once per reader
   * and `where` (so that requests naming one segment share one set, and the caches keyed by their
   * `where` find it by its name), from the index's ordinals as they are, or SQL's keys without one.
   * Kept by the `where` rather than by a segment's name and time: a filter naming a list is another
   * `where` once the list changes, though the segment itself did not.
   */
  members(): Promise<DomainKeys> {
    const cache = kept(this.sql, "members");
    const key = whereKey(this.where);
    let found = cache.get(key);
    if (!found) {
      found = this.indexed().then(async (indexed) =>
        indexed
          ? DomainKeys.ofOrdinals(this.sql, indexed.index, indexed.bitmap)
          : DomainKeys.ofKeys(this.sql, await keysBySql(this.sql, this.where)),
      );
      cache.set(key, found);
      // A read that failed (the database did not answer) is made again by the next request.
      found.catch(() => cache.delete(key));
    }
    return found;
  }

  /**
   * The set as the export thread receives it (src/export/export-reader.ts): its `where` as
   * structured clone carries it, with the keys of the Domains it holds by key (a segment's
   * members) as an array, and the table they are of.
   */
  toWire(): DomainSetWire {
    const of = this.sql.table("domain");
    return { of, where: encode(this.where, of) };
  }

  /** The set `wire` describes, on the same snapshot read by another reader (the export thread's). */
  static fromWire(sql: SqlReader, wire: DomainSetWire): DomainSet {
    if (wire.of !== sql.table("domain"))
      throw new Error(`a set of Domains of ${wire.of} is read on ${sql.table("domain")}`);
    return new DomainSet(sql, decode(sql, wire.where) as Where);
  }
}

/** A set's members over the count index: the index too, for what only Domains have (spreads, ordinals). */
export interface IndexedDomains extends IndexedMembers {
  readonly index: CountIndex;
}

const indexedDomains = (index: CountIndex, bitmap: Bitmap): IndexedDomains => ({
  index,
  bitmap,
  facet: (dimension, size) => indexFacet(index, bitmap, dimension, size),
});

/** A DomainSet as it crosses to another thread (DomainSet.toWire). */
export interface DomainSetWire {
  /** The Domain table its keys are of. */
  of: string;
  where: unknown;
}

const KEYS = "$domainKeys";

/** `v` with each DomainKeys as its keys, which must be of the Domain table `of`. */
function encode(v: unknown, of: string): unknown {
  if (v instanceof DomainKeys) return { [KEYS]: Uint32Array.from(v.keysIn(of)) };
  if (Array.isArray(v)) return v.map((x) => encode(x, of));
  if (!v || typeof v !== "object" || v instanceof Date) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encode(x, of)]));
}

function decode(sql: SqlReader, v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => decode(sql, x));
  if (!v || typeof v !== "object" || v instanceof Date) return v;
  const keys = (v as Record<string, unknown>)[KEYS];
  if (keys instanceof Uint32Array) return DomainKeys.ofKeys(sql, new RoaringBitmap32(keys));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decode(sql, x)]));
}

async function keysBySql(sql: SqlReader, where: Where): Promise<Bitmap> {
  const { text, params } = statementOver(
    sql,
    "domain",
    where,
    (cond) => `SELECT r."pk" FROM ${sql.table("domain")} r WHERE ${cond}`,
  );
  const rows = await sql.all(text, params);
  return new RoaringBitmap32(rows.map((r) => Number(r[0])));
}

/**
 * Sets of members by reader and `where`, kept while memory allows (each holds a bitmap: a few
 * hundred KB at most, as src/db/where-bitmap.ts reckons its bitmaps).
 */
const kept = perReader<"members", LRUCache<string, Promise<DomainKeys>>>(
  () => new LRUCache({ maxSize: 64 * 1024 * 1024, sizeCalculation: () => 256 * 1024 }),
);
