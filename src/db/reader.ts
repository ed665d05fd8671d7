import { existsSync } from "node:fs";
import { join } from "node:path";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import Database from "better-sqlite3";
import { LRUCache } from "lru-cache";
import type pg from "pg";
import type { Config, Timeouts } from "../config.ts";
import { copyRows } from "./copy-binary.ts";
import { pgModule, poolTimeouts } from "./pg-pool.ts";
import { spanName, sqlTracer } from "./sql-tracing.ts";
import { sqliteParams, sqliteText } from "./sqlite-text.ts";
import { sqliteReadThreads } from "./sqlite-threads.ts";
import type { SnapshotRow } from "./store.ts";

/**
 * Hand-written reads of a snapshot, for the hot paths (the batch loaders of src/query/loaders.ts).
 * Prisma costs about 0.3 ms per query in its client and adapter, and its SQLite adapter prepares
 * every statement anew; these reads keep one prepared statement per SQL text (better-sqlite3
 * statements, node-postgres named statements) and map rows to the Prisma model's shape
 * (field names, Date, BigInt, parsed JSON: src/db/model-rows.ts) themselves, so resolvers cannot
 * tell the difference. What is kept per reader is src/db/per-reader.ts.
 *
 * SQL is written once for both databases: `$1`… placeholders, and `keysParam` for a list of keys
 * matched by `anyOf`, so that a batch of any size is one statement.
 */
/** A row as the database returns it: its values in the order of the select list. */
export type RawRow = unknown[];

export interface SqlReader {
  readonly kind: "sqlite" | "postgresql";
  /**
   * The quoted, schema-qualified name of a snapshot table, to read it by. Always alias it
   * (`FROM ${table("x")} x`): the reader of the Domains gone from a snapshot names other tables.
   */
  table(name: string): string;
  /**
   * Set on a reader whose Domain tables are those of the Domains gone from the snapshot (the change
   * feed's, src/query/changes.ts: GONE_TABLES): they have no count index nor search table of their
   * own, and what the snapshot's hold describes other Domains, numbered apart.
   */
  readonly gone?: true;
  /**
   * Set on a reader opened with `indexed: false` (ReaderOptions): its snapshot's count index is
   * not used (src/db/count-index.ts: countIndexOf), so every count, facet and page of Domains is
   * answered by SQL. Only the parity tests open one, to hold the index to SQL's answers.
   */
  readonly unindexed?: true;
  /** `column` equals one of the keys bound at placeholder `$n` (see keysParam), or at `placeholder`. */
  anyOf(column: string, n: number | string): string;
  /** How a list of keys is bound for anyOf. */
  keysParam(keys: readonly (number | string)[]): unknown;
  /**
   * The rows of a query, each as its values in select-list order (arrays: better-sqlite3's raw
   * mode and node-postgres' array rowMode, about 3× faster than objects keyed by column name on
   * the wide domain table).
   */
  all(sql: string, params: readonly unknown[], options?: QueryOptions): Promise<RawRow[]>;
  /**
   * The rows of a query read through one database cursor, `batch` at a time (for exports: a
   * result of any size in bounded memory, read once). It runs on a connection of its own (a
   * PostgreSQL transaction holding a cursor, or a second SQLite connection whose statement stays
   * open between batches), which closes when the iteration ends, however it ends. Each batch is
   * read within the statement timeout, as any query.
   *
   * `copy` (PostgreSQL only): each batch is handed on as the rows of the binary COPY of the
   * statement `copy` makes of it (src/db/copy-binary.ts: each value its bytes as sent, a bytea
   * as stored), read on the cursor's connection after the batch: a bytea then travels as its
   * bytes, not as hex text the server writes and the driver decodes.
   */
  stream(sql: string, params: readonly unknown[], batch: number, copy?: CopyOf): AsyncGenerator<RawRow[]>;
  /**
   * PostgreSQL only: the rows of the binary COPY of `statement` (a SELECT with its values written
   * in it: COPY takes no parameters), each value the bytes the server sent: a bytea as stored,
   * where a query's result brings it as hex text to decode (a snapshot's file chunks:
   * src/db/snapshot-files.ts).
   */
  copy(statement: string): Promise<RawRow[]>;
  /** Its connections now (for /metrics): open, idle, and requests waiting for one. */
  connections(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export interface QueryOptions {
  /**
   * Plan the statement for the values bound (PostgreSQL: an unnamed statement, planned anew each
   * time) rather than reuse a plan made for any values. For filtered, sorted pages: how selective
   * `country_code = $1` or an App's installs are decides between walking the sort's index and
   * gathering the matches first, and a plan made for an average value picks wrong on skewed ones.
   */
  planEach?: boolean;
}

export interface ReaderOptions {
  /** Called with the SQL of every query (tests count them to catch N+1 regressions). */
  onQuery?: (sql: string) => void;
  /** PostgreSQL: the pool's connections at most (POOL_SIZE by default). */
  poolSize?: number;
  /** false: a reader whose counts and pages are all SQL's (`unindexed`): the parity tests'. */
  indexed?: boolean;
}

/** A PostgreSQL snapshot reader's connections at most, unless its opener says otherwise. */
export const POOL_SIZE = 10;

const placeholder = (n: number | string) => (typeof n === "number" ? `$${n}` : n);

/** Statements are cached by SQL text; the texts come from code, so there are few of them. */
const MAX_STATEMENTS = 500;

export function openSnapshotReader(
  config: Pick<Config, "database" | "timeouts">,
  snapshot: Pick<SnapshotRow, "location"> & {
    /** PostgreSQL: the server to read it on (a replica's URL); DATABASE_URL's when not given. */
    url?: string;
  },
  options: ReaderOptions = {},
): SqlReader {
  const db = config.database;
  const reader = traced(
    db.kind === "sqlite"
      ? sqliteReader(join(db.dataDir, snapshot.location), db.readThreads ?? 0, options)
      : pgReader(snapshot.url ?? db.url, snapshot.location, config.timeouts, options),
  );
  return options.indexed === false ? Object.assign(reader, { unindexed: true as const }) : reader;
}

/** Each statement in a span of its own while tracing is on (src/db/sql-tracing.ts). */
function traced(reader: SqlReader): SqlReader {
  const { all, stream } = reader;
  const system = reader.kind;
  return Object.assign(reader, {
    all(sql: string, params: readonly unknown[], options?: QueryOptions) {
      const tracer = sqlTracer();
      if (!tracer) return all(sql, params, options);
      return tracer.startActiveSpan(
        spanName(sql),
        { kind: SpanKind.CLIENT, attributes: { "db.system": system, "db.statement": sql } },
        async (span) => {
          try {
            const rows = await all(sql, params, options);
            span.setAttribute("db.rows", rows.length);
            return rows;
          } catch (e) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
            throw e;
          } finally {
            span.end();
          }
        },
      );
    },
    stream(sql: string, params: readonly unknown[], batch: number, copy?: CopyOf) {
      const tracer = sqlTracer();
      if (!tracer) return stream(sql, params, batch, copy);
      // The cursor's whole life, from its first batch to its close.
      const span = tracer.startSpan(spanName(sql), {
        kind: SpanKind.CLIENT,
        attributes: { "db.system": system, "db.statement": sql, "db.cursor": true },
      });
      return (async function* () {
        let rows = 0;
        try {
          for await (const chunk of stream(sql, params, batch, copy)) {
            rows += chunk.length;
            yield chunk;
          }
        } catch (e) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
          throw e;
        } finally {
          span.setAttribute("db.rows", rows);
          span.end();
        }
      })();
    },
  });
}

/**
 * A snapshot file's reader. With `threads` (SQLITE_READ_THREADS), its queries run on the
 * process's SQLite read threads (src/db/sqlite-threads.ts), off the server's thread; with none,
 * on a connection of its own, synchronously. Streams run on a connection of their own either way.
 */
function sqliteReader(file: string, threads: number, { onQuery }: ReaderOptions): SqlReader {
  const pool = threads > 0 ? sqliteReadThreads(threads) : null;
  // The file must exist, as an in-process connection checks when it opens.
  const db = pool ? null : new Database(file, { readonly: true, fileMustExist: true });
  if (pool) {
    if (!existsSync(file)) throw new Error(`unable to open database file: ${file} does not exist`);
    pool.acquire(file);
  }
  const statements = new LRUCache<string, Database.Statement>({ max: MAX_STATEMENTS });
  let closed = false;
  /** Streams running, each on a connection of its own. */
  let streams = 0;
  return {
    kind: "sqlite",
    table: (name) => `"${name}"`,
    anyOf: (column, n) => `${column} IN (SELECT value FROM json_each(${placeholder(n)}))`,
    keysParam: (keys) => JSON.stringify(keys),
    async all(sql, params) {
      onQuery?.(sql);
      if (closed) throw new TypeError("The database connection is not open");
      // On a read thread, the thread converts the text (once per statement) and the values.
      if (pool) return pool.all(file, sql, params) as Promise<RawRow[]>;
      let s = statements.get(sql);
      if (!s) {
        s = (db as Database.Database).prepare(sqliteText(sql)).raw(true);
        statements.set(sql, s);
      }
      return s.all(sqliteParams(params)) as RawRow[];
    },
    async copy() {
      throw new Error("a binary COPY is PostgreSQL's: SQLite reads its values as they are");
    },
    async *stream(sql, params, batch, copy) {
      if (copy) throw new Error("a binary COPY is PostgreSQL's: SQLite reads its values as they are");
      onQuery?.(sql);
      // A connection of its own: better-sqlite3 runs nothing else on a connection while one of
      // its statements iterates, and the App rows of a batch are read meanwhile.
      const own = new Database(file, { readonly: true, fileMustExist: true });
      streams++;
      let rows: IterableIterator<RawRow> | null = null;
      try {
        rows = own
          .prepare(sqliteText(sql))
          .raw(true)
          .iterate(sqliteParams(params)) as IterableIterator<RawRow>;
        for (;;) {
          const chunk: RawRow[] = [];
          for (let r = rows.next(); !r.done; r = rows.next()) {
            chunk.push(r.value);
            if (chunk.length === batch) break;
          }
          if (chunk.length) yield chunk;
          if (chunk.length < batch) return;
        }
      } finally {
        // A connection closes only once its statement is done: one stopped early is ended first.
        rows?.return?.();
        own.close();
        streams--;
      }
    },
    // One connection for queries (synchronous: never waited for), and one per running stream.
    connections: () => ({ total: 1 + streams, idle: 1, waiting: 0 }),
    async close() {
      if (closed) return;
      closed = true;
      if (pool) await pool.release(file);
      else db?.close();
    },
  };
}

/** What a stream's batch is read as by a binary COPY (SqlReader.stream): its statement, made of the batch. */
export type CopyOf = (rows: RawRow[]) => string;

/** The rows of a binary COPY of `statement` (a SELECT) on `client`, read whole. */
async function copied(client: pg.PoolClient, statement: string): Promise<RawRow[]> {
  const { to } = await import("pg-copy-streams");
  const chunks: Buffer[] = [];
  const out = client.query(to(`COPY (${statement}) TO STDOUT (FORMAT binary)`));
  for await (const chunk of out) chunks.push(chunk as Buffer);
  return copyRows(chunks);
}

/** TIMESTAMP(3) holds UTC without a zone: read it as UTC, not as the process's local time. */
export const utc = (s: string) => new Date(`${s.replace(" ", "T")}Z`);

function pgReader(
  url: string,
  schema: string,
  timeouts: Timeouts,
  { onQuery, poolSize = POOL_SIZE }: ReaderOptions,
): SqlReader {
  const pg = pgModule();
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...poolTimeouts(timeouts),
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") => {
        if (oid === 1114) return utc;
        if (oid === 20) return BigInt;
        // JSONB and JSON as text, parsed by toModel like SQLite's TEXT (a JSON string stays a string).
        if (oid === 3802 || oid === 114) return (s: string) => s;
        return pg.types.getTypeParser(oid, format);
      }) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection's error (the server restarted) must not end the process: the pool drops it.
  pool.on("error", () => {});
  const names = new LRUCache<string, string>({ max: MAX_STATEMENTS });
  let counter = 0;
  return {
    kind: "postgresql",
    connections: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    table: (name) => `"${schema}"."${name}"`,
    anyOf: (column, n) => `${column} = ANY(${placeholder(n)})`,
    keysParam: (keys) => [...keys],
    async all(text, values, options) {
      onQuery?.(text);
      if (options?.planEach) {
        const res = await pool.query({ text, values: values as unknown[], rowMode: "array" });
        return res.rows as RawRow[];
      }
      let name = names.get(text);
      if (!name) {
        name = `sg_${counter++}`;
        names.set(text, name);
      }
      const res = await pool.query({ name, text, values: values as unknown[], rowMode: "array" });
      return res.rows as RawRow[];
    },
    async copy(statement) {
      onQuery?.(statement);
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        return await copied(client, statement);
      } catch (e) {
        // A COPY cut short may leave the connection mid-protocol: it is not put back.
        broken = e instanceof Error ? e : new Error(String(e));
        throw e;
      } finally {
        client.release(broken);
      }
    },
    async *stream(text, values, batch, copy) {
      onQuery?.(text);
      const client = await pool.connect();
      try {
        // A cursor lives in a transaction; each FETCH is a statement of its own, so the statement
        // timeout bounds a batch, not the whole stream. Planned for its values, like a page, and
        // for reading every row (cursor_tuple_fraction 1): PostgreSQL plans a cursor for its first
        // tenth by default, which chose walking the rank index to the rows, scattered in the heap,
        // over reading the table and sorting it: a million Domains' name and rank in 4.0–4.2 s
        // against 1.2–1.3 s (docs/performance-history.md, "A cursor planned for every row").
        await client.query("BEGIN READ ONLY; SET LOCAL cursor_tuple_fraction = 1");
        await client.query({
          text: `DECLARE export NO SCROLL CURSOR FOR ${text}`,
          values: values as unknown[],
        });
        // A batch's rows, or (copy) its keys and then the binary COPY they make, asked at once:
        // the COPY is queued on the connection as soon as its keys come, before the next FETCH.
        const fetch = () =>
          client.query({ text: `FETCH ${batch} FROM export`, rowMode: "array" }).then((r) => {
            const rows = r.rows as RawRow[];
            const held = { more: rows.length === batch, rows: Promise.resolve(rows) };
            if (copy && rows.length) held.rows = copied(client, copy(rows));
            held.rows.catch(() => {});
            return held;
          });
        // The next batch is fetched while this one is handed on: the database reads as the
        // consumer writes. (Awaited or, if the consumer stops first, dropped: marked handled.)
        let next = fetch();
        for (;;) {
          const { more, rows } = await next;
          if (more) {
            next = fetch();
            next.catch(() => {});
          }
          const read = await rows;
          if (read.length) yield read;
          if (!more) break;
        }
      } finally {
        // However it ended (done, failed, or the consumer went away), the transaction ends with
        // its cursor; a connection that cannot even roll back is not put back in the pool.
        const broken = await client.query("ROLLBACK").then(
          () => undefined,
          (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
        );
        client.release(broken);
      }
    },
    async close() {
      await pool.end();
    },
  };
}
