import type roaring from "roaring";

// Of src/db/count-index.ts's types, what this file needs (that file imports src/db/where-sql.ts,
// which reads a DomainKeys).
type Bitmap = InstanceType<typeof roaring.RoaringBitmap32>;
/** A count index, whose ordinals a DomainKeys may be made of. */
interface Ordinals {
  readonly ordToPk: Int32Array;
}
/** A reader of a snapshot's tables (src/db/reader.ts's SqlReader: what this file needs of it). */
interface Tables {
  table(name: string): string;
}

let made = 0;

/**
 * Domains of one snapshot, standing in a `where` for the list of their keys (`pk: { in: keys }`):
 * a segment's members, for `f:segment` (src/query/domain-list.ts). It matches what the list would,
 * without being one: the count index reads the ordinals it was made of as they are
 * (src/db/where-bitmap.ts), SQL binds its keys (src/db/where-sql.ts), and a cache key names it by
 * itself (whereKey, through toJSON) rather than by every key. Made once per snapshot reader and
 * segment filter (src/query/segment-members.ts), and never changed.
 *
 * Keys are a table's own: a snapshot's Domains and the Domains gone from it (its gone tables,
 * src/db/change-sql.ts) number theirs apart, as two snapshots do. So the set knows the table its
 * keys are of (`of`), and gives them only to a statement on that table (keysIn): applied to
 * another's rows, the same numbers would name other Domains (issue 70: `f:segment` on the change
 * feed once picked removed Domains by the served snapshot's keys).
 */
export class DomainKeys {
  /** Its name in a cache key: never another's, even after one is dropped from its cache. */
  readonly #name = `DomainKeys#${++made}`;

  private constructor(
    /** The Domain table whose keys these are, as its reader names it (`table("domain")`). */
    readonly of: string,
    private readonly pks: Bitmap | null,
    private readonly indexed: { index: Ordinals; ords: Bitmap } | null,
  ) {}

  /** The Domains of these ordinals of `index`, the count index of the Domains `sql` reads. */
  static ofOrdinals(sql: Tables, index: Ordinals, ords: Bitmap): DomainKeys {
    return new DomainKeys(sql.table("domain"), null, { index, ords });
  }

  /** The Domains of these keys of the Domains `sql` reads. */
  static ofKeys(sql: Tables, pks: Bitmap): DomainKeys {
    return new DomainKeys(sql.table("domain"), pks, null);
  }

  /** Their keys, for a statement on `table` (as its reader names it): an error if it is another table. */
  keysIn(table: string): number[] {
    if (table !== this.of)
      throw new Error(
        `the keys of Domains of ${this.of} are applied to the rows of ${table}, which number theirs apart`,
      );
    return this.keys();
  }

  /** Their ordinals in `index`, when they were made of that index's (else null: map their keys). */
  ordinalsIn(index: Ordinals): Bitmap | null {
    return this.indexed?.index === index ? this.indexed.ords : null;
  }

  /** Their keys, ascending: made anew at each call (a statement binds them, an export keeps them). */
  keys(): number[] {
    if (this.pks) return this.pks.toArray();
    const { index, ords } = this.indexed as { index: Ordinals; ords: Bitmap };
    const members = ords.toUint32Array();
    const pks = new Uint32Array(members.length);
    for (let i = 0; i < members.length; i++) pks[i] = index.ordToPk[members[i]];
    return Array.from(pks.sort());
  }

  toJSON(): string {
    return this.#name;
  }
}
