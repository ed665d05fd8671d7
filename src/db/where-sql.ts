import { LRUCache } from "lru-cache";
import { DomainKeys } from "./domain-keys.ts";
import { perReader } from "./per-reader.ts";
import type { SqlReader } from "./reader.ts";
import { type ColumnKind, TABLES, type TableKey } from "./tables.ts";

/**
 * The page queries of the snapshot (which keys a filtered, sorted page holds, and how many match),
 * written as SQL here rather than by Prisma: the filters of src/query build Prisma's `where`
 * language (so that it stays the one way a filter is stated), and this compiles that language to
 * one statement, run through the snapshot's reader as a prepared statement like every other read
 * of the hot path. Prisma cost about 11% of a list page's CPU in its query compiler and adapter.
 *
 * The subset of Prisma's language the filters use, with Prisma's meaning:
 * - `AND` / `OR` / `NOT` (an object or a list; `OR: []` matches nothing, `NOT` of a list negates
 *   each member); several keys of one object are ANDed;
 * - a scalar field: a value (equals; `null`: IS NULL), or `{ in, notIn, gt, gte, lt, lte, not,
 *   contains }` (`not: null`: IS NOT NULL; `in: []` matches nothing, `notIn: []` everything);
 *   NULLs fail every comparison, as in SQL and in Prisma; a key's `in` may be a set of Domains
 *   (src/db/domain-keys.ts), read as the list of its keys;
 * - a list relation: `{ some, none }` (EXISTS / NOT EXISTS on the child table);
 * - a to-one relation: its own filter (EXISTS on the related row).
 * Anything else is a fault of ours (not a client's input), and throws.
 */

/** A condition in Prisma's `where` language (the filters of src/query build them). */
export type Where = Record<string, unknown>;

/** A page's arguments, as Prisma's findMany takes them. */
export interface FindArgs {
  where: Where;
  orderBy: Where[];
  take: number;
  skip?: number;
}

/** A relation of a table: the related table and how it joins. */
interface Relation {
  table: TableKey;
  /** Column of this table, and of the related one, that must be equal. */
  local: string;
  remote: string;
  /** A list of related rows (some/none), or one (to-one). */
  list: boolean;
}

const list = (table: TableKey, remote: string): Relation => ({ table, local: "pk", remote, list: true });
const one = (table: TableKey, local: string): Relation => ({ table, local, remote: "pk", list: false });

/**
 * The relations of prisma/schema.prisma that filters follow, by model field name (a test checks
 * each against the schema's @relation(fields, references)).
 */
export const RELATIONS: Partial<Record<TableKey, Record<string, Relation>>> = {
  domain: {
    categories: list("domainCategory", "domain_pk"),
    features: list("domainFeature", "domain_pk"),
    tags: list("domainTag", "domain_pk"),
    salesChannels: list("domainSalesChannel", "domain_pk"),
    shipsTo: list("domainShipsTo", "domain_pk"),
    contacts: list("domainContact", "domain_pk"),
    technologies: list("domainTechnology", "domain_pk"),
    apps: list("domainApp", "domain_pk"),
    reviewMentions: list("appReviewDomain", "domain_pk"),
  },
  app: {
    categories: list("appCategory", "app_pk"),
    plans: list("appPlan", "app_pk"),
    integratesWith: list("appIntegration", "app_pk"),
    installsSeries: list("appInstallsPoint", "app_pk"),
    reviews: list("appReview", "app_pk"),
    domains: list("domainApp", "app_pk"),
  },
  appReview: {
    app: one("app", "app_pk"),
    domains: list("appReviewDomain", "review_pk"),
  },
  domainApp: { app: one("app", "app_pk"), domain: one("domain", "domain_pk") },
  domainTechnology: { technology: one("technology", "technology_pk"), domain: one("domain", "domain_pk") },
  appReviewDomain: { review: one("appReview", "review_pk") },
};

/** Model field → column and kind, per table. */
const COLUMNS = new Map<TableKey, Map<string, { column: string; kind: ColumnKind }>>(
  (Object.keys(TABLES) as TableKey[]).map((key) => [
    key,
    new Map(
      TABLES[key].columns.map((c, i) => [TABLES[key].fields[i], { column: c, kind: TABLES[key].kinds[i] }]),
    ),
  ]),
);

/**
 * A statement being written. Values are bound by markers, numbered `$1`… by `text` in the order
 * they appear in the finished text: a part that folding drops (`x OR 1=1`) takes its values along.
 */
class Statement {
  private readonly values: unknown[] = [];
  private aliases = 0;
  /** How SQLite is to read a sorted page (see sqlitePlan, src/db/sqlite-plan.ts). */
  constructor(
    readonly sql: SqlReader,
    readonly plan: SqlitePlan = PLANNER,
  ) {}
  bind(value: unknown): string {
    this.values.push(value);
    return `«${this.values.length - 1}»`;
  }
  alias(): string {
    return `t${this.aliases++}`;
  }
  /** The finished text with `$n` placeholders, and the values they bind. */
  finish(text: string): { text: string; params: unknown[] } {
    const params: unknown[] = [];
    const out = text.replace(/«(\d+)»/g, (_m, i: string) => {
      params.push(this.values[Number(i)]);
      return `$${params.length}`;
    });
    return { text: out, params };
  }
}

/**
 * How SQLite is to read a sorted page: `scan(field)`, whether no index may serve the terms on a
 * column of the statement's own table; `gather`, whether no index may serve the order (the
 * matches are gathered by the filter's index, or by reading the table where none may serve, then
 * sorted). Unary + leaves a value as it is, but hides its column from the planner.
 */
export interface SqlitePlan {
  scan: (field: string) => boolean;
  gather: boolean;
}
/** The planner's own choice. */
export const PLANNER: SqlitePlan = { scan: () => false, gather: false };
/**
 * A narrow read to the end of a large share of the table (an export of `fields=name,rank`): the
 * rows are gathered as the filter finds them (on no filter, in the table's order) and sorted,
 * not read one by one down the order's index. The index's order is not the table's, so each of
 * its rows was a page read of its own: stepping every Domain's name and rank in rank order took
 * 745 ms of CPU at 100,000 Domains (a third of it in the kernel, reading pages), against 186 ms
 * gathered and sorted (docs/performance-history.md, "SQLite's exports sorted once"). PostgreSQL's streams
 * do the same by their cursor's plan (src/db/reader.ts: cursor_tuple_fraction).
 */
export const WHOLE: SqlitePlan = { scan: () => false, gather: true };
const TRUE = "1=1";
const FALSE = "1=0";

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !(v instanceof Date) && !Array.isArray(v);

function conjunction(parts: string[]): string {
  const kept = parts.filter((p) => p !== TRUE);
  if (kept.includes(FALSE)) return FALSE;
  return kept.length === 0 ? TRUE : kept.length === 1 ? kept[0] : kept.map((p) => `(${p})`).join(" AND ");
}

function disjunction(parts: string[]): string {
  if (parts.includes(TRUE)) return TRUE;
  const kept = parts.filter((p) => p !== FALSE);
  return kept.length === 0 ? FALSE : kept.length === 1 ? kept[0] : kept.map((p) => `(${p})`).join(" OR ");
}

const negation = (p: string) => (p === TRUE ? FALSE : p === FALSE ? TRUE : `NOT (${p})`);

/**
 * An instant as PostgreSQL's TIMESTAMP(3) text. Past the year 9999, toISOString writes a signed
 * six-digit year (+010000-01-01), which PostgreSQL refuses; it reads the year as digits alone. The
 * first such instant is a bound of the last day there is (a `max` of 9999-12-31 is "before
 * 10000-01-01"). Years before 1 never get here: the options refuse them (src/rest/filter-options.ts).
 */
function pgTimestamp(d: Date): string {
  const iso = d.toISOString();
  const text = iso.startsWith("+") ? iso.slice(1).replace(/^0+(?=\d{5})/, "") : iso;
  return text.replace("T", " ").replace("Z", "");
}

/** A value as the column stores it: times as SQLite's epoch ms or PostgreSQL's TIMESTAMP(3) text. */
function stored(sql: SqlReader, kind: ColumnKind, value: unknown): unknown {
  if (value instanceof Date) {
    if (kind !== "time") throw new Error(`a time compared with a ${kind} column`);
    return sql.kind === "sqlite" ? value.getTime() : pgTimestamp(value);
  }
  if (typeof value === "bigint") return sql.kind === "sqlite" ? value : value.toString();
  return value;
}

const bound = (s: Statement, kind: ColumnKind, value: unknown) => s.bind(stored(s.sql, kind, value));

/** The condition of `where` on rows of `table` aliased `alias`. */
function condition(s: Statement, table: TableKey, alias: string, where: Where): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (key === "AND") {
      parts.push(
        conjunction((Array.isArray(value) ? value : [value]).map((w) => condition(s, table, alias, w))),
      );
    } else if (key === "OR") {
      parts.push(disjunction((value as Where[]).map((w) => condition(s, table, alias, w))));
    } else if (key === "NOT") {
      const members = Array.isArray(value) ? value : [value];
      parts.push(conjunction(members.map((w) => negation(condition(s, table, alias, w)))));
    } else {
      const relation = RELATIONS[table]?.[key];
      parts.push(relation ? related(s, alias, relation, key, value) : field(s, table, alias, key, value));
    }
  }
  return conjunction(parts);
}

function related(s: Statement, alias: string, r: Relation, key: string, value: unknown): string {
  if (!isPlain(value)) throw new Error(`relation filter ${key}: not an object`);
  const exists = (where: Where | undefined) => {
    const a = s.alias();
    const cond = conjunction([
      `${a}."${r.remote}" = ${alias}."${r.local}"`,
      condition(s, r.table, a, where ?? {}),
    ]);
    return `EXISTS (SELECT 1 FROM ${s.sql.table(TABLES[r.table].name)} ${a} WHERE ${cond})`;
  };
  if (r.list) {
    const parts: string[] = [];
    for (const [op, w] of Object.entries(value)) {
      if (op === "some") parts.push(exists(w as Where));
      else if (op === "none") parts.push(negation(exists(w as Where)));
      else throw new Error(`relation filter ${key}.${op} is not supported`);
    }
    return conjunction(parts);
  }
  return exists(value as Where);
}

function field(s: Statement, table: TableKey, alias: string, key: string, value: unknown): string {
  const c = COLUMNS.get(table)?.get(key);
  if (!c) throw new Error(`filter on ${table}.${key}: no such column`);
  // SQLite's unary + leaves the value as it is, but no index serves the term.
  const col = `${alias === "r" && s.plan.scan(key) ? "+" : ""}${alias}."${c.column}"`;
  if (value === null) return `${col} IS NULL`;
  if (!isPlain(value)) return `${col} = ${bound(s, c.kind, value)}`;
  const parts: string[] = [];
  for (const [op, v] of Object.entries(value)) {
    if (v === undefined) continue;
    switch (op) {
      case "not":
        if (isPlain(v)) throw new Error(`filter ${table}.${key}.not: a nested filter is not supported`);
        parts.push(v === null ? `${col} IS NOT NULL` : `${col} <> ${bound(s, c.kind, v)}`);
        break;
      case "in":
      case "notIn": {
        // A set of Domains (a segment's members) is bound as the list of its keys, when they are
        // the keys of the Domain table read.
        const keys =
          v instanceof DomainKeys
            ? v.keysIn(s.sql.table(TABLES[table].name))
            : (v as unknown[]).map((x) => stored(s.sql, c.kind, x) as number | string);
        if (!keys.length) {
          parts.push(op === "in" ? FALSE : TRUE);
          break;
        }
        // One parameter for the whole list, so that lists of any length share a statement.
        const member = s.sql.anyOf(col, s.bind(s.sql.keysParam(keys)));
        parts.push(op === "in" ? member : `NOT (${member})`);
        break;
      }
      case "gt":
      case "gte":
      case "lt":
      case "lte": {
        const sign = { gt: ">", gte: ">=", lt: "<", lte: "<=" }[op];
        parts.push(`${col} ${sign} ${bound(s, c.kind, v)}`);
        break;
      }
      case "contains": {
        const escaped = String(v).replace(/[\\%_]/g, (m) => `\\${m}`);
        parts.push(`${col} LIKE ${s.bind(`%${escaped}%`)} ESCAPE '\\'`);
        break;
      }
      default:
        throw new Error(`filter ${table}.${key}.${op} is not supported`);
    }
  }
  return conjunction(parts);
}

/** ORDER BY of FindArgs' orderBy (`{ field: dir }` or `{ field: { sort, nulls } }`). */
function orderList(table: TableKey, alias: string, orderBy: readonly Where[], gather = false): string {
  return orderBy
    .flatMap((o) =>
      Object.entries(o).map(([key, spec]) => {
        const c = COLUMNS.get(table)?.get(key);
        if (!c) throw new Error(`sort on ${table}.${key}: no such column`);
        const { sort, nulls } = isPlain(spec)
          ? (spec as { sort: string; nulls?: string })
          : { sort: spec as string, nulls: undefined };
        return `${gather ? "+" : ""}${alias}."${c.column}" ${sort === "desc" ? "DESC" : "ASC"}${nulls ? ` NULLS ${nulls === "last" ? "LAST" : "FIRST"}` : ""}`;
      }),
    )
    .join(", ");
}

/**
 * The statement (text and parameters) of findMany(args): the rows of `table` (aliased `r`) that
 * match, in order, `select` of each (the key by default); without `take`, every one; on SQLite,
 * read as `plan` says. `join` is joined to `r` (rows read beside each match, never filtered on).
 */
export function findStatement(
  sql: SqlReader,
  table: TableKey,
  args: Omit<FindArgs, "take"> & { take?: number },
  select = 'r."pk"',
  plan: SqlitePlan = PLANNER,
  join = "",
): { text: string; params: unknown[] } {
  const s = new Statement(sql, plan);
  const where = condition(s, table, "r", args.where);
  const order = orderList(table, "r", args.orderBy, plan.gather);
  const limit = args.take === undefined ? "" : ` LIMIT ${s.bind(args.take)}`;
  const offset = args.skip ? ` OFFSET ${s.bind(args.skip)}` : "";
  return s.finish(
    `SELECT ${select} FROM ${sql.table(TABLES[table].name)} r${join} WHERE ${where}${order ? ` ORDER BY ${order}` : ""}${limit}${offset}`,
  );
}

/**
 * A statement over the rows of `table` (aliased `r`) that match `where`: `build` writes its text
 * around the condition, binding any values of its own by `bind`, in the order they appear in it.
 * The facets and histograms of a list (src/query/facets.ts) are counted by such statements, so
 * they match exactly the rows its page and totalCount do.
 */
export function statementOver(
  sql: SqlReader,
  table: TableKey,
  where: Where,
  build: (condition: string, bind: (value: unknown) => string) => string,
): { text: string; params: unknown[] } {
  const s = new Statement(sql);
  const cond = condition(s, table, "r", where);
  return s.finish(build(cond, (v) => s.bind(v)));
}

/**
 * How many rows of `table` match `where` (Prisma's count). A snapshot never changes, so a count is
 * kept for the reader's life (by its statement and values, the most recent 5,000): a list's
 * totalCount, and a facets answer's total, asked again is not counted again. A count that failed
 * is asked again.
 */
export function countWhere(sql: SqlReader, table: TableKey, where: Where): Promise<number> {
  const s = new Statement(sql);
  const cond = condition(s, table, "r", where);
  const { text, params } = s.finish(`SELECT count(*) FROM ${sql.table(TABLES[table].name)} r WHERE ${cond}`);
  const kept = keptCounts(sql, 0);
  const key = statementKey({ text, params });
  let count = kept.get(key);
  if (count === undefined) {
    count = sql.all(text, params, { planEach: true }).then((rows) => Number(rows[0][0]));
    kept.set(key, count);
    count.catch(() => kept.delete(key));
  }
  return count;
}
/** A statement and its values as one text (a cache's key). */
export const statementKey = (s: { text: string; params: unknown[] }) =>
  `${s.text}|${JSON.stringify(s.params, (_k, v) => (typeof v === "bigint" ? `${v}n` : v))}`;
const keptCounts = perReader(() => new LRUCache<string, Promise<number>>({ max: 5000 }));
