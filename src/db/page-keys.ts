import DataLoader from "dataloader";
import { perReader } from "./per-reader.ts";
import type { SqlReader } from "./reader.ts";
import { sqlitePlan } from "./sqlite-plan.ts";
import type { TableKey } from "./tables.ts";
import { type FindArgs, findStatement } from "./where-sql.ts";

/**
 * The keys of a page (src/db/where-sql.ts writes its statement, src/db/sqlite-plan.ts plans it on
 * SQLite): on PostgreSQL, the pages asked in one turn of the event loop read by one statement.
 */

/** The keys of a page of `table`, as findMany({ ...args, select: { pk: true } }) reads them. */
export async function pageKeys(sql: SqlReader, table: TableKey, args: FindArgs): Promise<number[]> {
  const { text, params } = findStatement(sql, table, args, undefined, await sqlitePlan(sql, table, args));
  if (sql.kind === "postgresql") return batchedKeys(sql, text, params);
  return (await sql.all(text, params, { planEach: true })).map((r) => Number(r[0]));
}

/**
 * The key statements of pages that requests make in one turn of the event loop, read by one
 * statement on PostgreSQL: `SELECT ARRAY(<page 1>), ARRAY(<page 2>), …`, each page's keys an array
 * in its own order (ARRAY keeps its subquery's ORDER BY), each planned for its own values as
 * before. A statement costs the gateway a pooled connection, a socket write and a result, and the
 * database a round of its protocol: after the pages' rows came to be read together
 * (src/query/domain-read/read.ts, `coalesced`), the key statement was the one left per request
 * (21% of a deep page's busy CPU was node-postgres writing statements). A DataLoader per snapshot
 * reader batches them, without a cache, when the turn's I/O callbacks have run. If the batch
 * fails, each page is read alone, so that a page fails only for its own statement.
 */
interface KeyStatement {
  text: string;
  params: unknown[];
}
/** The most pages in one batch; a page binding more values than KEY_PARAMS is read alone. */
const KEY_BATCH = 64;
/** 64 pages of this many values stay far below PostgreSQL's 65,535 per statement. */
const KEY_PARAMS = 500;
const keyLoaders = perReader<"keys", DataLoader<KeyStatement, number[]>>(
  (sql) =>
    new DataLoader((batch) => readKeyBatch(sql, batch), {
      cache: false,
      maxBatchSize: KEY_BATCH,
      batchScheduleFn: (run) => setImmediate(run),
    }),
);

function batchedKeys(sql: SqlReader, text: string, params: unknown[]): Promise<number[]> {
  return params.length > KEY_PARAMS
    ? readAlone(sql, { text, params })
    : keyLoaders(sql, "keys").load({ text, params });
}

async function readAlone(sql: SqlReader, s: KeyStatement): Promise<number[]> {
  return (await sql.all(s.text, s.params, { planEach: true })).map((r) => Number(r[0]));
}

async function readKeyBatch(sql: SqlReader, batch: readonly KeyStatement[]): Promise<(number[] | Error)[]> {
  if (batch.length === 1) return [await readAlone(sql, batch[0] as KeyStatement)];
  const params: unknown[] = [];
  const arrays = batch.map((s) => {
    const shift = params.length;
    params.push(...s.params);
    return `ARRAY(${s.text.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + shift}`)})`;
  });
  try {
    const [row] = await sql.all(`SELECT ${arrays.join(", ")}`, params, { planEach: true });
    return batch.map((_s, i) => ((row?.[i] as unknown[] | null) ?? []).map(Number));
  } catch {
    return Promise.all(batch.map((s) => readAlone(sql, s).catch((e: unknown) => asError(e))));
  }
}

const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));
