import { once } from "node:events";
import type { Writable } from "node:stream";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { changeStatements, goneStatements } from "./change-sql.ts";
import { pgIndexSource, storeCountIndex } from "./count-index-build.ts";
import { childRowsStatements } from "./domain-children.ts";
import { facetStatements } from "./facet-sql.ts";
import { applyPgMigrations } from "./migrate.ts";
import { relatedStatements } from "./related-sql.ts";
import type { ChangesFrom, SnapshotWriter } from "./store.ts";
import type { Row, Table, Value } from "./tables.ts";

/** A table's COPY: its connection, its stream, its end, and the text gathered for it. */
interface Copy {
  client: pg.Client;
  stream: Writable;
  done: Promise<void>;
  text: string;
}

/**
 * Builds one snapshot schema with COPY: one connection and one long COPY stream per table, so
 * tables load in parallel and writes wait on the stream's backpressure. The schema is not served
 * until the registry names it, so nothing here needs a transaction spanning the tables.
 */
export class PgSnapshotWriter implements SnapshotWriter {
  private readonly copies = new Map<string, Copy>();

  private constructor(
    private readonly url: string,
    readonly schema: string,
    private readonly changes?: ChangesFrom,
  ) {}

  /** `changes`: the snapshot served when the load began (its schema), to compute changes from. */
  static async create(url: string, schema: string, changes?: ChangesFrom): Promise<PgSnapshotWriter> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await applyPgMigrations(client, schema, "snapshot", "before-load");
    } finally {
      await client.end();
    }
    return new PgSnapshotWriter(url, schema, changes);
  }

  private async copyFor(table: Table): Promise<Copy> {
    let c = this.copies.get(table.name);
    if (!c) {
      const client = new pg.Client({ connectionString: this.url });
      await client.connect();
      // abort() ends connections mid-COPY; their "Connection terminated" is expected then, and a
      // real failure surfaces through the stream or the query anyway.
      client.on("error", () => {});
      const cols = table.columns.map((n) => `"${n}"`).join(", ");
      const stream = client.query(copyFrom(`COPY "${this.schema}"."${table.name}" (${cols}) FROM STDIN`));
      // Created with the stream, so an error that happens before anyone awaits is not missed.
      const done = new Promise<void>((resolve, reject) => {
        stream.on("finish", resolve);
        stream.on("error", (e) => reject(new Error(`COPY into ${table.name} failed: ${e.message}`)));
      });
      done.catch(() => {}); // observed in write() and endRows()
      c = { client, stream, done, text: "" };
      this.copies.set(table.name, c);
    }
    return c;
  }

  /**
   * Rows are gathered per table and sent COPY_BYTES at a time: a load writes each record's rows
   * as it comes (a Domain's go to about ten tables), and a write to a COPY stream per record was
   * a socket write and a backend's wake-up each (at 200,000 Domains, two million of them, the
   * ingest's CPU spent in switching).
   */
  async write(table: Table, rows: Row[]): Promise<void> {
    if (rows.length === 0) return;
    const c = await this.copyFor(table);
    for (const row of rows) c.text += `${encodeRow(row, table)}\n`;
    if (c.text.length >= COPY_BYTES) await this.send(c);
  }

  private async send(c: Copy): Promise<void> {
    const text = c.text;
    c.text = "";
    if (c.stream.destroyed) await c.done; // throws the COPY's error
    if (!c.stream.write(text)) await Promise.race([once(c.stream, "drain"), c.done]);
  }

  async endRows(): Promise<void> {
    for (const c of this.copies.values()) if (c.text) await this.send(c);
    await this.endCopies();
  }

  /** One connection for the steps after the rows, closed by seal() or abort(). */
  private stepClient: pg.Client | null = null;
  private async client(): Promise<pg.Client> {
    if (!this.stepClient) {
      const client = new pg.Client({ connectionString: this.url });
      await client.connect();
      client.on("error", () => {});
      this.stepClient = client;
    }
    return this.stepClient;
  }

  private readonly table = (name: string) => `"${this.schema}"."${name}"`;

  async buildIndexes(): Promise<void> {
    await applyPgMigrations(await this.client(), this.schema, "snapshot", "after-load");
  }

  async buildDerived(): Promise<void> {
    const client = await this.client();
    for (const statement of childRowsStatements("postgresql", this.table)) await client.query(statement);
    for (const statement of facetStatements("postgresql", this.table)) await client.query(statement);
  }

  async buildRelated(): Promise<void> {
    const client = await this.client();
    for (const statement of relatedStatements("postgresql", this.table)) await client.query(statement);
  }

  async buildCountIndex(): Promise<number> {
    const client = await this.client();
    const built = await storeCountIndex(pgIndexSource(client, this.schema), (statement, params) =>
      client.query(statement, params),
    );
    return built.bytes;
  }

  async buildChanges(): Promise<void> {
    const client = await this.client();
    const from = this.changes;
    const o = (name: string) => `"${from?.previous}"."${name}"`;
    const statements = changeStatements("postgresql", this.table, o);
    await client.query("BEGIN");
    // The first load: no events, but the (empty) table the publish reads, and no gone Domains.
    const all = from
      ? [...statements, ...goneStatements(this.table, o, from.version, from.keepFrom)]
      : [...statements.slice(0, 2), ...goneStatements(this.table, null, 0, 0)];
    for (const statement of all) await client.query(statement);
    await client.query("COMMIT");
  }

  async seal(): Promise<void> {
    const client = await this.client();
    try {
      // A COPY leaves every page "not all-visible", so index-only scans (a page of primary keys
      // sorted by rank) still visit the heap for each row until a VACUUM sets the visibility map.
      // VACUUM cannot run in a migration's transaction: it runs here, on this copy's tables only.
      const { rows } = await client.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename",
        [this.schema],
      );
      const tables = rows.map((r) => this.table(r.tablename));
      if (tables.length) await client.query(`VACUUM ${tables.join(", ")}`);
    } finally {
      this.stepClient = null;
      await client.end();
    }
  }

  private async endCopies(): Promise<void> {
    for (const { client, stream, done } of this.copies.values()) {
      stream.end();
      await done;
      await client.end();
    }
    this.copies.clear();
  }

  async abort(): Promise<void> {
    const step = this.stepClient;
    this.stepClient = null;
    await step?.end().catch(() => {});
    for (const { client, stream } of this.copies.values()) {
      stream.on("error", () => {});
      stream.destroy();
      await client.end().catch(() => {});
    }
    this.copies.clear();
  }
}

/** Characters of COPY text gathered per table before they are sent. */
const COPY_BYTES = 256 * 1024;

/** COPY text format: tab-separated, \N for NULL, backslash escapes. */
function encodeRow(row: Row, table: Table): string {
  let line = "";
  for (let i = 0; i < row.length; i++) {
    if (i > 0) line += "\t";
    line += encodeValue(row[i], table.kinds[i]);
  }
  return line;
}

function encodeValue(v: Value, kind: Table["kinds"][number]): string {
  if (v === null) return "\\N";
  switch (kind) {
    case "time":
      return new Date(v as number).toISOString();
    case "text":
    case "json": // JSON text: its backslash escapes must survive COPY's own
      return escapeCopyText(v as string);
    default:
      return String(v);
  }
}

function escapeCopyText(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]) : s;
}
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
