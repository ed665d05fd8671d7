import { type Bitmap, type CountIndex, RoaringBitmap32, type TextColumn } from "./count-index.ts";
import { DomainKeys } from "./domain-keys.ts";
import type { NumberColumn } from "./number-column.ts";
import type { SqlReader } from "./reader.ts";
import { wordBitmap } from "./search-index.ts";
import { TABLES } from "./tables.ts";
import { RELATIONS, statementOver, type Where } from "./where-sql.ts";

/**
 * The evaluation of a where's bitmap (src/db/where-bitmap.ts keeps them): the Domains a filter's
 * `where` matches, as a bitmap of their ordinals in the snapshot's count index
 * (src/db/count-index.ts). The `where` is the same one a page and its totalCount read
 * (src/db/where-sql.ts compiles it to SQL), evaluated here with SQL's meaning:
 *
 * - three-valued, as SQL is: a comparison with a Domain that has no value is neither true nor false,
 *   so `NOT` of it does not match that Domain either. Each part is evaluated to the Domains where it
 *   is true and those where it is false (the rest are unknown); NOT swaps them, AND and OR combine
 *   them as SQL's truth tables do;
 * - set membership (a column's value, `in`, `notIn`, `not`, IS NULL; a child table's `some` and
 *   `none` of its values: categories, technologies, installed Apps…) is bitmap algebra;
 * - a number's or a time's comparisons are one pass over the column's values;
 * - anything else (the searched text, a list's names, an App's install dates…) is asked of the
 *   database, by the same compiled SQL, for the keys it matches (and, only if a NOT needs them,
 *   those it does not), which then take part in the algebra.
 */

type Leaf = { t: Bitmap; f: () => Promise<Bitmap> };

const empty = () => new RoaringBitmap32();
const now = (b: Bitmap) => () => Promise.resolve(b);

function lazy(make: () => Promise<Bitmap>): () => Promise<Bitmap> {
  let p: Promise<Bitmap> | null = null;
  return () => {
    p ??= make();
    return p;
  };
}

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !(v instanceof Date) && !Array.isArray(v);

/** Thrown by an evaluation that may not ask the database (localWhereBitmapOf) when a part needs it. */
export class NeedsDatabase extends Error {}

export class Evaluator {
  constructor(
    private readonly index: CountIndex,
    private readonly sql: SqlReader,
    /** Whether a part the index cannot evaluate may be asked of the database. */
    private readonly database = true,
  ) {}

  private constant(value: boolean): Leaf {
    return value ? { t: this.index.all, f: now(empty()) } : { t: empty(), f: now(this.index.all) };
  }

  private and(parts: Leaf[]): Leaf {
    if (!parts.length) return this.constant(true);
    if (parts.length === 1) return parts[0];
    let t = parts[0].t;
    for (const p of parts.slice(1)) t = RoaringBitmap32.and(t, p.t);
    return { t, f: lazy(async () => RoaringBitmap32.orMany(await Promise.all(parts.map((p) => p.f())))) };
  }

  private or(parts: Leaf[]): Leaf {
    if (!parts.length) return this.constant(false);
    if (parts.length === 1) return parts[0];
    const t = RoaringBitmap32.orMany(parts.map((p) => p.t));
    return {
      t,
      f: lazy(async () => {
        const fs = await Promise.all(parts.map((p) => p.f()));
        let f = fs[0];
        for (const x of fs.slice(1)) f = RoaringBitmap32.and(f, x);
        return f;
      }),
    };
  }

  private async not(part: Leaf): Promise<Leaf> {
    return { t: await part.f(), f: now(part.t) };
  }

  /** The Domains matching `where` (its true part). */
  async bitmap(where: Where): Promise<Bitmap> {
    return (await this.condition(where)).t;
  }

  private async condition(where: Where): Promise<Leaf> {
    const parts = Object.entries(where)
      .filter(([, value]) => value !== undefined)
      .map(async ([key, value]): Promise<Leaf> => {
        if (key === "AND") {
          const members = (Array.isArray(value) ? value : [value]) as Where[];
          return this.and(await Promise.all(members.map((w) => this.condition(w))));
        }
        if (key === "OR") return this.or(await Promise.all((value as Where[]).map((w) => this.condition(w))));
        if (key === "NOT") {
          const members = (Array.isArray(value) ? value : [value]) as Where[];
          return this.and(await Promise.all(members.map(async (w) => this.not(await this.condition(w)))));
        }
        return this.term(key, value) ?? this.fromDatabase({ [key]: value });
      });
    return this.and(await Promise.all(parts));
  }

  /** One key of a `where` from the index, or null when the index cannot answer it. */
  private term(key: string, value: unknown): Leaf | null {
    if (key === "pk") return this.keys(value);
    if (key === "searchText") return this.searched(value);
    const relation = RELATIONS.domain?.[key];
    if (relation) return relation.list ? this.related(key, value) : null;
    const text = this.textColumn(key);
    if (text) return this.textTerm(text, value);
    const numbers = this.index.numbers.get(key);
    if (numbers) return this.numberTerm(numbers, value);
    return null;
  }

  private textColumn(field: string): TextColumn | undefined {
    for (const c of this.index.text.values()) if (c.field === field) return c;
    return undefined;
  }

  private union(c: { bitmaps: Bitmap[]; byKey: Map<string, number> }, keys: readonly unknown[]): Bitmap {
    const found: Bitmap[] = [];
    for (const k of keys) {
      const i = c.byKey.get(String(k));
      if (i !== undefined) found.push(c.bitmaps[i]);
    }
    return found.length === 1 ? found[0] : RoaringBitmap32.orMany(found);
  }

  private textTerm(c: TextColumn, value: unknown): Leaf | null {
    const valued = (t: Bitmap): Leaf => ({ t, f: lazy(async () => RoaringBitmap32.andNot(c.nonNull, t)) });
    const against = (f: Bitmap): Leaf => ({ t: RoaringBitmap32.andNot(c.nonNull, f), f: now(f) });
    if (value === null) return { t: c.nulls, f: now(c.nonNull) };
    if (typeof value === "string") return valued(this.union(c, [value]));
    if (!isPlain(value)) return null;
    const parts: Leaf[] = [];
    for (const [op, v] of Object.entries(value)) {
      if (v === undefined) continue;
      if (op === "not") {
        if (v === null) parts.push({ t: c.nonNull, f: now(c.nulls) });
        else if (typeof v === "string") parts.push(against(this.union(c, [v])));
        else return null;
      } else if (op === "in" || op === "notIn") {
        if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) return null;
        if (!v.length) parts.push(this.constant(op === "notIn"));
        else parts.push(op === "in" ? valued(this.union(c, v)) : against(this.union(c, v)));
      } else return null;
    }
    return this.and(parts);
  }

  private numberTerm(values: NumberColumn, value: unknown): Leaf | null {
    const asNumber = (v: unknown): number | null => {
      if (v instanceof Date) return v.getTime();
      if (typeof v === "number") return v;
      if (
        typeof v === "bigint" &&
        v <= BigInt(Number.MAX_SAFE_INTEGER) &&
        v >= -BigInt(Number.MAX_SAFE_INTEGER)
      )
        return Number(v);
      return null;
    };
    const nulls = () => this.nones(values);
    if (value === null) {
      const t = nulls();
      return { t, f: lazy(async () => RoaringBitmap32.andNot(this.index.all, t)) };
    }
    const ops: [string, unknown][] = isPlain(value) ? Object.entries(value) : [["equals", value]];
    const parts: Leaf[] = [];
    for (const [op, v] of ops) {
      if (v === undefined) continue;
      if (op === "not" && v === null) {
        const f = nulls();
        parts.push({ t: RoaringBitmap32.andNot(this.index.all, f), f: now(f) });
        continue;
      }
      if (op === "in" || op === "notIn") {
        if (!Array.isArray(v)) return null;
        const set = new Set<number>();
        for (const x of v) {
          const n = asNumber(x);
          if (n === null) return null;
          set.add(n);
        }
        if (!set.size) {
          parts.push(this.constant(op === "notIn"));
          continue;
        }
        parts.push(this.compare(values, (x) => set.has(x) === (op === "in")));
        continue;
      }
      const n = asNumber(v);
      if (n === null) return null;
      const test: Record<string, (x: number) => boolean> = {
        equals: (x) => x === n,
        not: (x) => x !== n,
        gt: (x) => x > n,
        gte: (x) => x >= n,
        lt: (x) => x < n,
        lte: (x) => x <= n,
      };
      if (!test[op]) return null;
      parts.push(this.compare(values, test[op]));
    }
    return this.and(parts);
  }

  /**
   * A comparison over a column: true where `test` holds, false where not, unknown where there is no
   * value. The false part is scanned only if a NOT asks for it.
   */
  private compare(column: NumberColumn, test: (x: number) => boolean): Leaf {
    const { codes, none, base, step } = column;
    const where = (want: boolean) => {
      const out = new Uint32Array(codes.length);
      let k = 0;
      for (let i = 0; i < codes.length; i++) {
        const c = codes[i];
        // No value is neither true nor false: the coded none, or a double's NaN.
        if (c !== none && !Number.isNaN(c) && test(base + c * step) === want) out[k++] = i;
      }
      return new RoaringBitmap32(out.subarray(0, k));
    };
    return { t: where(true), f: lazy(async () => where(false)) };
  }

  /** The Domains without a value in a column. */
  private nones(column: NumberColumn): Bitmap {
    const { codes, none } = column;
    const out = new Uint32Array(codes.length);
    let k = 0;
    if (Number.isNaN(none)) {
      for (let i = 0; i < codes.length; i++) if (Number.isNaN(codes[i])) out[k++] = i;
    } else for (let i = 0; i < codes.length; i++) if (codes[i] === none) out[k++] = i;
    return new RoaringBitmap32(out.subarray(0, k));
  }

  /** `searchText: { contains: word }` (a search's word) from the index's words. */
  private searched(value: unknown): Leaf | null {
    if (!isPlain(value) || Object.keys(value).length !== 1) return null;
    const t = wordBitmap(this.index.search, value.contains);
    // The searched text is never NULL: a Domain not containing the word is false.
    return t && { t, f: lazy(async () => RoaringBitmap32.andNot(this.index.all, t)) };
  }

  /**
   * `pk: { in: [...] }` (a search's keys on SQLite), `pk: { in: DomainKeys }` (a saved segment's members:
   * its ordinals as they are when made of this index), or a key.
   */
  private keys(value: unknown): Leaf | null {
    const only = isPlain(value) && Object.keys(value).length === 1 ? value.in : undefined;
    let t: Bitmap;
    if (only instanceof DomainKeys)
      t = only.ordinalsIn(this.index) ?? this.ordinals(only.keysIn(this.sql.table("domain")));
    else if (Array.isArray(only)) t = this.ordinals(only.map(Number));
    else if (typeof value === "number") t = this.ordinals([value]);
    else return null;
    return { t, f: lazy(async () => RoaringBitmap32.andNot(this.index.all, t)) };
  }

  private ordinals(pks: number[]): Bitmap {
    const { pkToOrd } = this.index;
    const out: number[] = [];
    for (const pk of pks) {
      const o = Number.isInteger(pk) && pk >= 0 && pk < pkToOrd.length ? pkToOrd[pk] : -1;
      if (o >= 0) out.push(o);
    }
    return new RoaringBitmap32(out);
  }

  /** `{ some: w }` / `{ none: w }` on a child table the index holds, where `w` tests its value only. */
  private related(key: string, value: unknown): Leaf | null {
    if (!isPlain(value)) return null;
    const dim = [...this.index.children.values()].find((d) => d.relation === key);
    if (!dim) return null;
    const parts: Leaf[] = [];
    for (const [op, w] of Object.entries(value)) {
      if (w === undefined) continue;
      if ((op !== "some" && op !== "none") || !isPlain(w)) return null;
      let rest: Where = w;
      if (dim.requiresNull) {
        if (w[dim.requiresNull] !== null) return null;
        const { [dim.requiresNull]: _, ...others } = w;
        rest = others;
      }
      if (!Object.keys(rest).length) return null;
      const test = valueTest(rest, dim.idField);
      if (!test) return null;
      const found: Bitmap[] = [];
      dim.keys.forEach((k, i) => {
        if (test(k)) found.push(dim.bitmaps[i]);
      });
      const t = RoaringBitmap32.orMany(found);
      // EXISTS is true or false, never unknown.
      const f = RoaringBitmap32.andNot(this.index.all, t);
      parts.push(op === "some" ? { t, f: now(f) } : { t: f, f: now(t) });
    }
    return this.and(parts);
  }

  /** A part the index cannot evaluate: its keys, and (when asked) its non-matching keys, by SQL. */
  private async fromDatabase(where: Where): Promise<Leaf> {
    if (!this.database) throw new NeedsDatabase();
    const keysOf = async (w: Where) => {
      const s = statementOver(
        this.sql,
        "domain",
        w,
        (cond) => `SELECT r."pk" FROM ${this.sql.table(TABLES.domain.name)} r WHERE ${cond}`,
      );
      const rows = await this.sql.all(s.text, s.params, { planEach: true });
      return this.ordinals(rows.map((r) => Number(r[0])));
    };
    return { t: await keysOf(where), f: lazy(() => keysOf({ NOT: where })) };
  }
}

/** The value tests of a child's value field: `w` holds only that field, AND, OR and NOT. */
function valueTest(w: Where, field: string): ((key: string) => boolean) | null {
  const tests: ((key: string) => boolean)[] = [];
  for (const [k, v] of Object.entries(w)) {
    if (v === undefined) continue;
    if (k === "AND" || k === "NOT") {
      const members = (Array.isArray(v) ? v : [v]) as Where[];
      const each = members.map((m) => valueTest(m, field));
      if (each.some((t) => !t)) return null;
      const ts = each as ((key: string) => boolean)[];
      tests.push(k === "AND" ? (x) => ts.every((t) => t(x)) : (x) => ts.every((t) => !t(x)));
    } else if (k === "OR") {
      const each = (v as Where[]).map((m) => valueTest(m, field));
      if (each.some((t) => !t)) return null;
      const ts = each as ((key: string) => boolean)[];
      tests.push((x) => ts.some((t) => t(x)));
    } else if (k === field) {
      const t = fieldTest(v);
      if (!t) return null;
      tests.push(t);
    } else return null;
  }
  return (x) => tests.every((t) => t(x));
}

/** The test of one value (never null: the index holds no row without one). */
function fieldTest(v: unknown): ((key: string) => boolean) | null {
  const scalar = (x: unknown) => typeof x === "string" || typeof x === "number" || typeof x === "bigint";
  if (scalar(v)) return (k) => k === String(v);
  if (!isPlain(v)) return null;
  const tests: ((key: string) => boolean)[] = [];
  for (const [op, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (op === "in" || op === "notIn") {
      if (!Array.isArray(x) || !x.every(scalar)) return null;
      const set = new Set(x.map(String));
      tests.push(op === "in" ? (k) => set.has(k) : (k) => !set.has(k));
    } else if (op === "not" && scalar(x)) tests.push((k) => k !== String(x));
    else return null;
  }
  return (k) => tests.every((t) => t(k));
}
