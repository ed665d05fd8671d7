import {
  appCountIndexOf,
  appCountOf,
  appIndexed,
  appValuesOf,
  appWhereBitmapOf,
} from "../db/app-count-index.ts";
import { type NumberColumn, plainColumn } from "../db/number-column.ts";
import type { SqlReader } from "../db/reader.ts";
import { countWhere } from "../db/where-sql.ts";
import type { IndexedMembers, RecordSet } from "./facets.ts";
import { bitmapFacet } from "./index-facet.ts";
import type { Where } from "./keyset.ts";

/**
 * A set of Apps: the Apps of one snapshot reader that one `where` matches (List Apps' filter and
 * search), as src/query/domain-set.ts is for Domains. It alone asks whether the App index
 * (src/db/app-count-index.ts, built from the snapshot's Apps when first read) answers for it: on
 * the parity tests' unindexed reader, SQL does.
 */
export class AppSet implements RecordSet {
  readonly table = "app" as const;
  #indexed: Promise<IndexedMembers | null> | undefined;

  constructor(
    readonly sql: SqlReader,
    readonly where: Where,
  ) {}

  hasIndex(): Promise<boolean> {
    return Promise.resolve(appIndexed(this.sql));
  }

  indexed(): Promise<IndexedMembers | null> {
    this.#indexed ??= appIndexed(this.sql)
      ? Promise.all([appCountIndexOf(this.sql), appWhereBitmapOf(this.sql, this.where)]).then(
          ([index, bitmap]) => ({
            bitmap,
            facet: (dimension: string, size: number) => {
              const values = index.dimensions.get(dimension);
              if (!values) throw new Error(`the App count index has no dimension ${dimension}`);
              return bitmapFacet(values, values.kind, bitmap, dimension, size);
            },
          }),
        )
      : Promise.resolve(null);
    return this.#indexed;
  }

  async numbers(field: string): Promise<NumberColumn | null> {
    return appIndexed(this.sql) ? plainColumn(await appValuesOf(this.sql, field)) : null;
  }

  count(): Promise<number> {
    return appIndexed(this.sql) ? appCountOf(this.sql, this.where) : countWhere(this.sql, "app", this.where);
  }

  /** Pages of Apps are read by SQL (20,000 Apps at a million Domains: their indexes serve them). */
  pageKeys(): Promise<number[] | null> {
    return Promise.resolve(null);
  }
}
