import pg from "pg";
import type { Timeouts } from "../config.ts";
import { EVENT_DOC, pruneEventsStatements } from "./change-feed.ts";
import { STAGED, stagedInOrder } from "./change-sql.ts";
import { FACET_SUMMARY_TABLE } from "./facet-sql.ts";
import { keepTrendStatement, pruneTrendsStatement } from "./history.ts";
import { applyPgMigrations } from "./migrate.ts";
import { poolTimeouts } from "./pg-pool.ts";
import { PgSnapshotWriter } from "./pg-writer.ts";
import { utc } from "./reader.ts";
import { publishSegmentsPg } from "./segment-publish.ts";
import { assertLoadable, checkFormat, type FormatCheck } from "./snapshot-format.ts";
import { checkFeedTail } from "./staged-changes.ts";
import type {
  PublishOptions,
  RawSnapshotRow,
  SnapshotCounts,
  SnapshotRow,
  SnapshotStore,
  SnapshotWriter,
} from "./store.ts";
import {
  keptFrom,
  LoadInProgressError,
  type MetaQuery,
  type MetaQueryOptions,
  toSnapshotRow,
} from "./store.ts";

/** The registry lives in this schema; each snapshot in its own schema named by snapshotSchema(). */
export const META_SCHEMA = "storegraph";
export const snapshotSchema = (version: number) => `storegraph_snapshot_${version}`;

// pg_try_advisory_lock key: one load at a time per database, held by a dedicated session so that
// a killed loader releases it with its connection.
const LOAD_LOCK_KEY = 0x73746f72; // "stor"

const LOCK_WAIT_MS = 10_000;

export class PgSnapshotStore implements SnapshotStore {
  readonly kind = "postgresql" as const;

  /**
   * Names of the statements kept prepared (MetaQueryOptions.prepare): by text, never reused for
   * another, and few (the texts that ask for it are of a bounded set).
   */
  private readonly prepared = new Map<string, string>();

  private constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
  ) {}

  /** `timeouts` bound the pool's waits (the gateway's); null leaves them unbounded (loads). */
  static async open(url: string, timeouts: Timeouts | null = null): Promise<PgSnapshotStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: 4,
      ...poolTimeouts(timeouts),
      // Its TIMESTAMP columns hold UTC (written as now() in UTC, below), as the snapshots' do.
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === 1114 ? utc : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle connection that the server closes (restart, admin command) must not crash the
    // process: the pool drops it and the next query connects again.
    pool.on("error", () => {});
    const client = await pool.connect();
    try {
      await applyPgMigrations(client, META_SCHEMA, "meta", "all");
    } finally {
      client.release();
    }
    return new PgSnapshotStore(url, pool);
  }

  private async query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query<T>(sql, params)).rows;
  }

  async metaQuery(
    sql: string,
    params: unknown[] = [],
    options?: MetaQueryOptions,
  ): Promise<Record<string, unknown>[]> {
    let n = 0;
    const text = sql.replaceAll("{meta}.", `"${META_SCHEMA}".`).replace(/\?/g, () => `$${++n}`);
    if (!options?.prepare) return this.query(text, params);
    let name = this.prepared.get(text);
    if (!name) {
      name = `sg_meta_${this.prepared.size}`;
      this.prepared.set(text, name);
    }
    return (await this.pool.query({ name, text, values: params })).rows;
  }

  async metaTransaction<T>(work: (query: MetaQuery) => Promise<T>, options?: { lock?: string }): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query("BEGIN");
      // Read committed alone let two changes of one account's lists race (a list made twice, a
      // limit passed by two at once): the same lock makes them take turns.
      if (options?.lock !== undefined)
        await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [options.lock]);
      const result = await work(async (sql, params = []) => {
        let n = 0;
        const text = sql.replaceAll("{meta}.", `"${META_SCHEMA}".`).replace(/\?/g, () => `$${++n}`);
        return (await client.query(text, params)).rows;
      });
      await client.query("COMMIT");
      return result;
    } catch (e) {
      // A connection that cannot roll back is not given back to the pool.
      broken = await client.query("ROLLBACK").then(
        () => false,
        () => true,
      );
      throw e;
    } finally {
      client.release(broken);
    }
  }

  async current(): Promise<SnapshotRow | null> {
    const [r] = await this.query<RawSnapshotRow>(
      `SELECT * FROM "${META_SCHEMA}".snapshot WHERE status = 'ready' ORDER BY version DESC LIMIT 1`,
    );
    return r ? toSnapshotRow(r) : null;
  }

  async list(): Promise<SnapshotRow[]> {
    return (await this.query<RawSnapshotRow>(`SELECT * FROM "${META_SCHEMA}".snapshot ORDER BY version`)).map(
      toSnapshotRow,
    );
  }

  async lockForLoad(): Promise<() => Promise<void>> {
    const session = new pg.Client({ connectionString: this.url });
    await session.connect();
    // The lock of a loader that was killed is released when PostgreSQL notices its connection is
    // gone, which can take a moment on a busy server: wait a little before calling it taken.
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      const { rows } = await session.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1) AS ok", [
        LOAD_LOCK_KEY,
      ]);
      if (rows[0].ok) break;
      if (Date.now() > deadline) {
        await session.end();
        throw new LoadInProgressError("another load is in progress on this database");
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const r of await this.query<RawSnapshotRow>(
      `SELECT * FROM "${META_SCHEMA}".snapshot WHERE status = 'loading'`,
    )) {
      await this.fail(r.version, "interrupted: the loading process ended before finishing");
    }
    return async () => {
      await session.end(); // ending the session releases the advisory lock
    };
  }

  async format(location: string): Promise<FormatCheck> {
    return checkFormat({
      kind: "postgresql",
      table: (name) => `"${location}"."${name}"`,
      all: async (sql, params) =>
        (await this.pool.query({ text: sql, values: [...params], rowMode: "array" })).rows as unknown[][],
    });
  }

  async begin(source: string, changesRetention = 52): Promise<{ version: number; writer: SnapshotWriter }> {
    const served = await this.current();
    if (served) assertLoadable(served.version, await this.format(served.location));
    const published = (
      await this.query<{ version: number }>(
        `SELECT version FROM "${META_SCHEMA}".snapshot WHERE status IN ('ready', 'retired') ORDER BY version DESC`,
      )
    ).map((r) => r.version);
    const [{ version }] = await this.query<{ version: number }>(
      `INSERT INTO "${META_SCHEMA}".snapshot (status, started_at, location, source)
       VALUES ('loading', (now() AT TIME ZONE 'UTC'), '', $1) RETURNING version`,
      [source],
    );
    const schema = snapshotSchema(version);
    await this.query(`UPDATE "${META_SCHEMA}".snapshot SET location = $1 WHERE version = $2`, [
      schema,
      version,
    ]);
    const changes = served && {
      previous: served.location,
      version,
      keepFrom: keptFrom(version, published, changesRetention),
    };
    return { version, writer: await PgSnapshotWriter.create(this.url, schema, changes ?? undefined) };
  }

  async publish(version: number, counts: SnapshotCounts, options: PublishOptions): Promise<void> {
    const meta = `"${META_SCHEMA}"`;
    const client = await this.pool.connect();
    try {
      // The copy's staged events join the feed in the transaction that serves the copy.
      await client.query("BEGIN");
      const { rows } = await client.query<{ location: string; at: string }>(
        `UPDATE ${meta}.snapshot SET status = 'ready', finished_at = (now() AT TIME ZONE 'UTC'), apps = $1, domains = $2, reviews = $3
         WHERE version = $4 AND status = 'loading' RETURNING location, (extract(epoch from now()) * 1000)::bigint AS at`,
        [counts.apps, counts.domains, counts.reviews, version],
      );
      if (rows.length) {
        const [{ location, at }] = rows;
        await client.query(
          `INSERT INTO ${meta}.change_feed (id, last_id, pruned_through) VALUES (1, 0, 0) ON CONFLICT (id) DO NOTHING`,
        );
        const [feed] = (
          await client.query<{ last_id: string; last_pos: string; pruned_through: string }>(
            `SELECT last_id, last_pos, pruned_through FROM ${meta}.change_feed WHERE id = 1 FOR UPDATE`,
          )
        ).rows;
        let last = Number(feed.last_id);
        let lastPos = Number(feed.last_pos);
        checkFeedTail(options.feedTail, last, lastPos);
        const [{ staged }] = (
          await client.query<{ staged: string | null }>("SELECT to_regclass($1)::text AS staged", [
            `"${location}"."${STAGED}"`,
          ])
        ).rows;
        if (staged) {
          const inserted = await client.query(
            `INSERT INTO ${meta}.change_event (id, pos, seq, version, loaded_at, kind, domain, app, app_id, app_name, technology, before, after, doc)
             SELECT id, pos, seq, version, loaded_at, kind, domain, app, app_id, app_name, technology, before, after, ${EVENT_DOC.postgresql}
             FROM (SELECT $1::bigint + seq AS id, $4::bigint + seq AS pos, 0 AS seq, $2::integer AS version, $3::bigint AS loaded_at, kind, domain, app, app_id, app_name, technology, before, after, NULL::text AS segment
                   FROM (${stagedInOrder("postgresql", `"${location}"."${STAGED}"`)}) s) e`,
            [last, version, at, lastPos],
          );
          // Every account sees them: the public places count them too.
          last += inserted.rowCount ?? 0;
          lastPos += inserted.rowCount ?? 0;
        }
        // The load's unfiltered facet counts join the trends (src/db/history.ts).
        const [{ summary }] = (
          await client.query<{ summary: string | null }>("SELECT to_regclass($1)::text AS summary", [
            `"${location}"."${FACET_SUMMARY_TABLE}"`,
          ])
        ).rows;
        if (summary)
          await client.query(
            keepTrendStatement(`"${location}"."${FACET_SUMMARY_TABLE}"`, `${meta}.`, "postgresql"),
            [version, at],
          );
        if (options.segments)
          last = await publishSegmentsPg(client, meta, options.segments, version, Number(at), {
            last,
            lastPos,
          });
        // Retention: the events of the newest `changesRetention` published loads.
        const floor = (
          await client.query<{ version: number }>(
            `SELECT version FROM ${meta}.snapshot WHERE status IN ('ready', 'retired') ORDER BY version DESC LIMIT 1 OFFSET $1`,
            [Math.max(0, options.changesRetention - 1)],
          )
        ).rows[0];
        let pruned = Number(feed.pruned_through);
        if (floor) {
          const events = pruneEventsStatements(`${meta}.`, "postgresql");
          const [{ top }] = (await client.query<{ top: string | null }>(events.top, [floor.version])).rows;
          await client.query(events.prune, [floor.version]);
          if (top !== null) pruned = Math.max(pruned, Number(top));
          await client.query(pruneTrendsStatement(`${meta}.`, "postgresql"), [floor.version]);
        }
        await client.query(
          `UPDATE ${meta}.change_feed SET last_id = $1, pruned_through = $2, last_pos = $3 WHERE id = 1`,
          [last, pruned, lastPos],
        );
        // Every gateway listening learns of the load when it commits (FeedWatch).
        await client.query("SELECT pg_notify($1, $2)", [PUBLISHED_CHANNEL, String(version)]);
      }
      await client.query("COMMIT");
    } catch (e) {
      await client.query("ROLLBACK").catch(() => {});
      throw e;
    } finally {
      client.release();
    }
    // The feed's statistics with the load's events in them, for the readers' plans (a page by the
    // primary key from its place: test/db/feed-plan.test.ts), rather than when autovacuum comes.
    await this.query(`ANALYZE ${meta}.change_event`);
    const older = await this.query<RawSnapshotRow>(
      `SELECT * FROM ${meta}.snapshot WHERE status = 'ready' AND version < $1 ORDER BY version DESC`,
      [version],
    );
    for (const r of older.slice(options.keep)) {
      await this.query(`UPDATE ${meta}.snapshot SET status = 'retired' WHERE version = $1`, [r.version]);
      await this.dropSchema(r.location);
    }
  }

  async fail(version: number, error: string): Promise<void> {
    const [r] = await this.query<{ location: string }>(
      `UPDATE "${META_SCHEMA}".snapshot SET status = 'failed', finished_at = (now() AT TIME ZONE 'UTC'), error = $1
       WHERE version = $2 AND status = 'loading' RETURNING location`,
      [error.slice(0, 10_000), version],
    );
    if (r?.location) await this.dropSchema(r.location);
  }

  private async dropSchema(schema: string): Promise<void> {
    if (!/^storegraph_snapshot_\d+$/.test(schema)) throw new Error(`refusing to drop schema ${schema}`);
    await this.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }

  /**
   * Calls `onPublish` when any process publishes a snapshot (a NOTIFY in the publish's transaction),
   * on a connection of its own that LISTENs; it connects again a second after it is lost.
   * `listening()` says whether it listens now (the caller polls meanwhile).
   */
  listen(onPublish: () => void): { listening(): boolean; close(): Promise<void> } {
    let client: pg.Client | null = null;
    let up = false;
    let closed = false;
    let retry: NodeJS.Timeout | null = null;
    const connect = () => {
      if (closed) return;
      const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000 });
      client = c;
      const lost = () => {
        up = false;
        c.removeAllListeners("notification");
        c.end().catch(() => {});
        if (!closed && !retry) {
          retry = setTimeout(() => {
            retry = null;
            connect();
          }, 1000);
          retry.unref();
        }
      };
      c.on("error", lost);
      c.on("end", () => up && lost());
      c.on("notification", (n) => {
        if (n.channel === PUBLISHED_CHANNEL) onPublish();
      });
      c.connect()
        .then(() => c.query(`LISTEN ${PUBLISHED_CHANNEL}`))
        .then(() => {
          up = !closed;
          // A load published while it was not listening is seen at once.
          onPublish();
        })
        .catch(lost);
    };
    connect();
    return {
      listening: () => up,
      close: async () => {
        closed = true;
        up = false;
        if (retry) clearTimeout(retry);
        await client?.end().catch(() => {});
      },
    };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** The channel a publish notifies (its payload: the version). */
export const PUBLISHED_CHANNEL = "storegraph_snapshot_published";
