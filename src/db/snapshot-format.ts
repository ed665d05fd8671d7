import { snapshotMigrations } from "./migrate.ts";

/**
 * A snapshot's format: the version of each of its parts, recorded in the copy itself, against the
 * versions this code reads (docs/decisions.md, "One snapshot format"). A gateway serves a copy
 * only when every part is of this code's version (src/db/snapshots.ts); the code keeps no branch
 * for a part of another version. A copy of an older version is upgraded by
 * `npm run load -- --upgrade` (src/snapshot-upgrade.ts), which rebuilds those parts under the
 * load lock; one of a newer version waits for a gateway of that code.
 *
 * - `tables`: the tables the loader fills and their indexes, as the snapshot migrations
 *   (prisma/migrations/<provider>/snapshot/) make them; a copy records each migration applied in
 *   its `_migration` table, so this part's version is the list of those applied whole.
 * - Every other part is derived from the tables after the load, and recorded in PART_TABLE by its
 *   build, with the version below. Bump a part's version whenever what its build stores changes
 *   shape or meaning: copies built before are then upgraded, never read the old way.
 */
export const PART_VERSIONS = {
  /** Each Domain's child rows in one row (src/db/domain-children.ts). */
  child_rows: 1,
  /** The narrow facet columns and the unfiltered counts (src/db/facet-sql.ts). */
  facets: 1,
  /** The count index (src/db/count-index.ts). */
  count_index: 1,
  /** The Domains gone from the snapshot, as the feed's filters read them (src/db/change-sql.ts). */
  gone: 1,
  /** Each Domain's values that related stores share (src/db/related-sql.ts). */
  related: 1,
  /**
   * The rendered records (src/db/rendered.ts). What renders them is fingerprinted
   * (src/rest/rendered.ts: stampOf), and test/rest/rendered-stamp.test.ts pins that fingerprint
   * to this version: a change of the default answer fails it until this is bumped.
   */
  rendered: 1,
} as const;

export type DerivedPart = keyof typeof PART_VERSIONS;
export type Part = "tables" | DerivedPart;
/** In the order an upgrade builds them: each reads only the tables and the parts before it. */
export const DERIVED_PARTS = Object.keys(PART_VERSIONS) as DerivedPart[];

/** Where a copy records its derived parts' versions: (name, version). */
export const PART_TABLE = "snapshot_part";

/** The statement that creates PART_TABLE where it is not yet (`table`: its quoted name). */
export const partTableStatement = (table: string) =>
  `CREATE TABLE IF NOT EXISTS ${table} ("name" TEXT NOT NULL PRIMARY KEY, "version" INTEGER NOT NULL)`;

/**
 * The statements that record `part` as built at this code's version, on the database that names
 * PART_TABLE `table` (its name and version are the code's own: written as literals).
 */
export const recordPartStatements = (table: string, part: DerivedPart): string[] => [
  partTableStatement(table),
  `INSERT INTO ${table} ("name", "version") VALUES ('${part}', ${PART_VERSIONS[part]}) ON CONFLICT ("name") DO UPDATE SET "version" = excluded."version"`,
];

/** What a copy holds, part by part, against this code. */
export interface FormatCheck {
  /** Parts of an older version than the code's, or missing, in DERIVED order (`tables` first). */
  older: Part[];
  /** Parts of a newer version than the code's (a copy written by newer code). */
  newer: Part[];
}

export const isCurrent = (c: FormatCheck) => c.older.length === 0 && c.newer.length === 0;

/**
 * Whether a load can compute its changes and segments against the copy: every part it reads (all
 * but the rendered records and the related values) of this code's version; else SnapshotFormatError.
 */
export function assertLoadable(version: number, check: FormatCheck): void {
  // A load reads the copy before it for its change events: not its rendered records nor its
  // related values.
  if (check.newer.length || check.older.some((p) => p !== "rendered" && p !== "related"))
    throw new SnapshotFormatError(version, check);
}

/** What checkFormat reads a copy through: a snapshot reader (src/db/reader.ts), or a store's own. */
export interface FormatReader {
  kind: "sqlite" | "postgresql";
  table(name: string): string;
  all(sql: string, params: readonly unknown[]): Promise<unknown[][]>;
}

/**
 * What the copy `sql` reads holds of this code's format: its migrations applied, and its derived
 * parts' recorded versions. Two small reads, made once before a copy is served.
 */
export async function checkFormat(sql: FormatReader): Promise<FormatCheck> {
  // Each migration applied, beside whether the copy records its parts at all.
  const recorded =
    sql.kind === "postgresql"
      ? "to_regclass($1) IS NOT NULL"
      : "EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1)";
  const rows = await sql.all(
    `SELECT m."name", ${recorded} FROM ${sql.table("_migration")} m WHERE m."state" = 'applied'`,
    [sql.kind === "postgresql" ? sql.table(PART_TABLE) : PART_TABLE],
  );
  const applied = new Set(rows.map((r) => String(r[0])));
  const code = snapshotMigrations(sql.kind);
  const older: Part[] = [];
  const newer: Part[] = [];
  if (code.some((m) => !applied.has(m))) older.push("tables");
  else if ([...applied].some((m) => !code.includes(m))) newer.push("tables");
  const versions = new Map<string, number>();
  if (rows.some((r) => Boolean(r[1])))
    for (const [name, version] of await sql.all(
      `SELECT p."name", p."version" FROM ${sql.table(PART_TABLE)} p`,
      [],
    ))
      versions.set(String(name), Number(version));
  for (const part of DERIVED_PARTS) {
    const version = versions.get(part) ?? 0;
    if (version < PART_VERSIONS[part]) older.push(part);
    else if (version > PART_VERSIONS[part]) newer.push(part);
  }
  return { older, newer };
}

/** The command that upgrades a copy of an older format (src/cli/load.ts). */
export const UPGRADE_COMMAND = "npm run load -- --upgrade";

/**
 * The one line that says why the copy of snapshot `version` is not served: what of it is of
 * another version than this code's, and what to do.
 */
export function refusalLine(version: number, check: FormatCheck): string {
  if (check.newer.length)
    return `snapshot ${version} was written by newer code (its ${check.newer.join(", ")}): this gateway does not serve it; run that code`;
  return `snapshot ${version} is of an older format than this code (its ${check.older.join(", ")}): upgrade it with ${UPGRADE_COMMAND}`;
}

/** A copy of another format than the code's, asked to be served or read by a load. */
export class SnapshotFormatError extends Error {
  override name = "SnapshotFormatError";
  constructor(
    readonly version: number,
    readonly check: FormatCheck,
  ) {
    super(refusalLine(version, check));
  }
}
