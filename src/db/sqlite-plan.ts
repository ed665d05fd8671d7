import { LRUCache } from "lru-cache";
import { perReader } from "./per-reader.ts";
import type { SqlReader } from "./reader.ts";
import type { TableKey } from "./tables.ts";
import { countWhere, type FindArgs, PLANNER, type SqlitePlan, WHOLE, type Where } from "./where-sql.ts";

/**
 * SQLite's plan of a sorted page or stream (the SqlitePlan src/db/where-sql.ts writes a statement
 * by): whether the filter's index or the sort's serves it, chosen from the share of the Domains
 * its most common terms match, counted once per snapshot.
 */

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !(v instanceof Date) && !Array.isArray(v);

/**
 * Domain columns that lists filter by most, with few distinct values (a country, a platform, a
 * state can hold half of all Domains), and the sorts an index of their own serves
 * ((country_code, rank, pk), (platform, platform_rank, pk), …).
 */
const SHARED_VALUES: Record<string, readonly string[]> = {
  countryCode: ["rank"],
  platform: ["rank", "platformRank"],
  state: ["rank"],
};

/**
 * SQLite plans a statement once, for any values (it cannot tell `country_code = 'US'` from a
 * country of ten Domains), and on its own it took an equality on an indexed column for a
 * selective one: sorted by anything but what that column's own index serves, a page of US Domains
 * gathered every US Domain (400,000 of a million) to sort them, 1.6–3.2 s for one page; and a
 * country of no Domain walked the sort's whole index looking for one (0.2–0.3 s). So the plan is
 * chosen here from the share of the table that the terms on such columns match (counted once per
 * snapshot and value set, over the column's index): a large share walks the sort's index and
 * tests each row (a page after about `page ÷ share` rows), a small one gathers the matches by the
 * filter's index and sorts them. The bound is where both read as many rows, √(page × rows): at a
 * million Domains a page costs at most about 7,000 rows either way. For an export (no page size)
 * the bound is a share of a tenth.
 *
 * `whole`: the statement is read to its end, each row narrow enough to sort (a stream of a few
 * columns: streamPlannedDomains). Its rows are then gathered and sorted on a large share too (WHOLE).
 */
export async function sqlitePlan(
  sql: SqlReader,
  table: TableKey,
  args: Omit<FindArgs, "take"> & { take?: number },
  whole = false,
): Promise<SqlitePlan> {
  if (sql.kind !== "sqlite" || table !== "domain") return PLANNER;
  const first = Object.keys(args.orderBy[0] ?? {})[0];
  // Read to its end, the rows are sorted once gathered (see WHOLE), unless they are in the
  // order's own: the table is kept in its key's.
  const gatherAll = whole && args.take === undefined && first !== "pk";
  // A term whose column's index serves the order too is left to that index, unless the rows
  // are sorted anyway: then a large share is scanned for (platform=shopify: 59% of the table).
  const terms = sharedTerms(args.where).filter(
    ([field]) => gatherAll || !SHARED_VALUES[field].includes(first),
  );
  if (!terms.length) return gatherAll ? WHOLE : PLANNER;
  const total = await matching(sql, "*");
  if (!total) return PLANNER;
  const shares = await Promise.all(
    terms.map(async ([field, values]) => ({
      field,
      share: (await matching(sql, `${field}|${JSON.stringify(values)}`)) / total,
    })),
  );
  const share = shares.reduce((product, t) => product * t.share, 1);
  const bound = args.take === undefined ? 0.1 : Math.sqrt(args.take / total);
  if (share >= bound) {
    const fields = new Set(shares.map((t) => t.field));
    return { scan: (field) => fields.has(field), gather: gatherAll };
  }
  // Gathering, only the index of the most selective term may serve: not another term's (a
  // country of no Domain, ANDed with shopify, gathered shopify's 700,000), nor the order's, nor
  // a sort key's IS NULL.
  const [best] = shares.sort((a, b) => a.share - b.share);
  return { scan: (field) => field !== best.field, gather: true };
}

/** The terms of `where` (ANDed at its top) that test a SHARED_VALUES column for values. */
function sharedTerms(where: Where): [string, (string | number)[]][] {
  const out: [string, (string | number)[]][] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === "AND") for (const w of Array.isArray(value) ? value : [value]) out.push(...sharedTerms(w));
    else if (!(key in SHARED_VALUES)) continue;
    else if (typeof value === "string") out.push([key, [value]]);
    else if (isPlain(value) && Object.keys(value).length === 1 && Array.isArray(value.in))
      out.push([key, [...(value.in as string[])].sort()]);
  }
  return out;
}

/** Rows of the domain table (`*`), or those whose `field|[values]` match: counted once per snapshot. */
function matching(sql: SqlReader, key: string): Promise<number> {
  const kept = counts(sql, 0);
  let count = kept.get(key);
  if (count === undefined) {
    const bar = key.indexOf("|");
    // Prisma's count of the same terms (countWhere), kept for the snapshot's life.
    const where: Where = key === "*" ? {} : { [key.slice(0, bar)]: { in: JSON.parse(key.slice(bar + 1)) } };
    count = countWhere(sql, "domain", where);
    kept.set(key, count);
    // A count that failed (the database did not answer) is asked again by the next page.
    count.catch(() => kept.delete(key));
  }
  return count;
}
const counts = perReader(() => new LRUCache<string, Promise<number>>({ max: 1000 }));
