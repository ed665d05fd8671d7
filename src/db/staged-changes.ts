import { type ChangeRow, type MetaStore, type RowArray, rowOf } from "./change-feed.ts";
import { STAGED, stagedInOrder } from "./change-sql.ts";
import type { SqlReader } from "./reader.ts";
import type { FeedTail } from "./store.ts";

/**
 * A load's change events before it is published, as the feed will hold them once it is: read from
 * the copy's staged events (src/db/change-sql.ts) in feed order and numbered from where the feed
 * ends now, as the publish numbers them (the stores' `publish`). Loads run one at a time (the
 * load lock) and only a publish appends to the feed, so the numbers are the ones the feed gives
 * them; the publish is told where the feed ended (PublishOptions.feedTail) and refuses to
 * publish if it moved. The load's files for data teams (changes.parquet) are written from them.
 */

export async function feedTail(meta: MetaStore): Promise<FeedTail> {
  const [row] = await meta.metaQuery("SELECT last_id, last_pos FROM {meta}.change_feed WHERE id = 1");
  return { lastId: Number(row?.last_id ?? 0), lastPos: Number(row?.last_pos ?? 0) };
}

/** The error a publish throws when the feed moved after the load numbered its events. */
export function checkFeedTail(expected: FeedTail | undefined, lastId: number, lastPos: number): void {
  if (expected && (expected.lastId !== lastId || expected.lastPos !== lastPos))
    throw new Error(
      `the change feed moved during the load (it ended at event ${expected.lastId}, place ${expected.lastPos}; now at ${lastId}, ${lastPos}): its events' numbers in the load's files would be wrong`,
    );
}

/**
 * The staged events of the copy `sql` reads, `batch` at a time in feed order, each as the feed's
 * reader makes it (rowOf), of `version`; `loadedAt` is not known before the publish: the epoch.
 */
export async function* stagedChanges(
  sql: SqlReader,
  tail: FeedTail,
  version: number,
  batch = 5000,
): AsyncGenerator<ChangeRow[]> {
  const dates = new Map<number, Date>();
  const select = `SELECT kind, domain, app, app_id, app_name, technology, before, after, seq FROM (${stagedInOrder(sql.kind, sql.table(STAGED))}) s ORDER BY seq`;
  for await (const rows of sql.stream(select, [], batch)) {
    yield rows.map((r) => {
      const seq = Number(r[8]);
      const json = (v: unknown) => (v === null || v === undefined ? null : JSON.parse(String(v)));
      const array: RowArray = [
        tail.lastId + seq,
        version,
        0,
        r[0] as RowArray[3],
        r[1] as string | null,
        r[2] as string | null,
        r[3] as string | null,
        r[4] as string | null,
        r[5] as string | null,
        json(r[6]),
        json(r[7]),
        null,
        String(tail.lastPos + seq),
      ];
      return rowOf(array, dates);
    });
  }
}
