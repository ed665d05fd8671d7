import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { jointOf, pieceOf } from "../codec/deflate.ts";
import { readContext } from "../context.ts";
import { int8Of } from "../db/copy-binary.ts";
import type { RawRow } from "../db/reader.ts";
import { checkedPiece, keptPiece, RENDERED_TABLE, renderedJoin } from "../db/rendered.ts";
import type { RenderedPage } from "../db/rendered-sink.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import { sqlitePlan } from "../db/sqlite-plan.ts";
import { findStatement } from "../db/where-sql.ts";
import { DOMAIN_RECORD_FIELDS } from "../parquet/records.ts";
import { type DomainRead, withFields } from "../query/domain-read/plan.ts";
import { readDomainsInOrder } from "../query/domain-read/read.ts";
import { DomainSet } from "../query/domain-set.ts";
import { orderedReads } from "../query/keyset.ts";
import { BATCH, batchesOf, batchOf, compiledLookup, type ExportQuery, WIDE_BATCH } from "./export-page.ts";

/*
 * Rendered records (src/db/rendered.ts) on the export thread: the pieces a load renders
 * (renderStream), and the pieces an export reads (renderedPieces), each checked against the
 * Domain it is read for (checkedPiece) and, where lost or another's, written by the export's own
 * writer (export-page.ts) in its place.
 */

/** A page of a load's rendering (src/db/rendered.ts), with how many Domains it holds. */
export interface Pieces extends RenderedPage {
  count: number;
}

/**
 * A page of rendered pieces as an export reads them: each one's body (a view of what was read),
 * CRC-32 and text length; `broken`, the Domains whose piece was lost or another's, written here
 * instead (their text as stored blocks in its place: one DEFLATE stream still).
 */
export interface ReadPieces {
  /** The Domains' keys, in the page's order (what the writer writes them by, where need be). */
  pks: number[];
  bodies: Uint8Array[];
  crcs: Uint32Array;
  lens: Uint32Array;
  broken: number;
}

/**
 * The default fields' text of the Domains `pks`, in that order, written from their rows by the row
 * writer (or the resolver path where it cannot): what answers a Domain whose rendered piece is lost
 * or another's.
 */
export async function writtenOf(served: ServedSnapshot, pks: number[]): Promise<Buffer[]> {
  const c = compiledLookup("");
  const ctx = readContext(served);
  const ordered = await readDomainsInOrder(
    ctx,
    served.sql,
    pks,
    withFields(c.read, ["name", "pk"]),
    "the export's read and its writing",
  );
  const { lines } = await batchOf(ctx, c, ordered, "rows");
  return lines.map((line) => Buffer.from(line, "utf8"));
}

/**
 * The pieces of the Domains `pks`, in that order, for the rendered records of a load
 * (src/render.ts): each Domain's text with the default fields, as the export writes it (the row
 * writer, or the resolver path where it cannot), one piece per Domain. With `records`, each
 * Domain's export record with every field its Parquet row holds (src/parquet/records.ts) is
 * written there too, a line each in the same order, from the same read: the load's files step
 * reads them (src/snapshot-files.ts) as they are ordered, and no step reads the Domains a second time.
 */
export async function* renderStream(
  served: ServedSnapshot,
  pks: Float64Array,
  records?: string,
): AsyncGenerator<Pieces> {
  const c = compiledLookup("");
  const full = records ? compiledLookup(DOMAIN_RECORD_FIELDS) : null;
  const planned = withFields(full ? bothReads(c.read, full.read) : c.read, ["name", "pk"]);
  const out = records ? createWriteStream(records) : null;
  try {
    for (let from = 0; from < pks.length; from += WIDE_BATCH) {
      const ctx = readContext(served);
      const batch = pks.subarray(from, from + WIDE_BATCH);
      const rows = await readDomainsInOrder(
        ctx,
        served.sql,
        batch,
        planned,
        "the render's order and its read",
      );
      // With the records, both texts are written together: the fields they share, once.
      const [lines, written] = full
        ? await batchesOf(ctx, [c, full], rows)
        : [(await batchOf(ctx, c, rows, "rows")).lines];
      if (written && out && !out.write(`${written.join("\n")}\n`)) await once(out, "drain");
      const n = lines.length;
      const keys = new Float64Array(n);
      const crcs = new Uint32Array(n);
      const lens = new Uint32Array(n);
      const ends = new Uint32Array(n);
      const bodies: Buffer[] = [];
      let at = 0;
      for (let i = 0; i < n; i++) {
        const piece = pieceOf(Buffer.from(lines[i], "utf8"));
        const kept = keptPiece(rows[i].pk, piece);
        keys[i] = rows[i].pk;
        crcs[i] = piece.crc;
        lens[i] = piece.len;
        at += kept.length;
        ends[i] = at;
        bodies.push(kept);
      }
      yield { count: n, bytes: Buffer.concat(bodies, at), pks: keys, crcs, lens, ends };
    }
    if (out) {
      out.end();
      await once(out, "finish");
    }
  } finally {
    out?.destroy();
  }
}

/** A read of what either read reads. */
function bothReads(a: DomainRead, b: DomainRead): DomainRead {
  return {
    fields: a.fields === null || b.fields === null ? null : [...new Set([...a.fields, ...b.fields])].sort(),
    children: [...new Set([...a.children, ...b.children])],
  };
}

/**
 * The rendered pieces of every Domain of `query`'s set, in its order (the same
 * statement as domainStream's, reading each Domain's piece instead of its columns), a batch of
 * BATCH at a time.
 */
export async function* renderedPieces(
  served: ServedSnapshot,
  query: ExportQuery,
  skip = 0,
): AsyncGenerator<ReadPieces> {
  const { sql } = served;
  const { where } = DomainSet.fromWire(sql, query.set);
  // PostgreSQL: the cursor reads the Domains' keys in order, and each batch's pieces come by a
  // binary COPY (src/db/copy-binary.ts): a FETCH answered the pieces as hex text, the server
  // writing it and the driver decoding it (src/db/reader.ts, `copy`).
  const pg = sql.kind === "postgresql";
  // Each Domain's key comes with its piece (an outer join: a lost piece is a null, not a Domain
  // left out), for checkedPiece.
  const copy = pg
    ? (keys: RawRow[]) =>
        `SELECT k."pk", x."crc", x."len", x."body" FROM unnest('{${keys.map((k) => Number(k[0])).join(",")}}'::bigint[]) WITH ORDINALITY k("pk", "i") LEFT JOIN ${sql.table(RENDERED_TABLE)} x ON x."domain_pk" = k."pk" ORDER BY k."i"`
    : undefined;
  for (const find of orderedReads(query.keys, where)) {
    const { text, params } = pg
      ? findStatement(sql, "domain", find, 'r."pk"', await sqlitePlan(sql, "domain", find))
      : findStatement(
          sql,
          "domain",
          find,
          'r."pk", x."crc", x."len", x."body"',
          await sqlitePlan(sql, "domain", find),
          renderedJoin(sql, "r."),
        );
    // Domains passed over (a resumed job): on PostgreSQL, before their pieces are asked for.
    const pass = (rows: RawRow[]) => {
      const passed = Math.min(skip, rows.length);
      skip -= passed;
      return passed ? rows.slice(passed) : rows;
    };
    const copyOf = copy && ((keys: RawRow[]) => copy(pass(keys)));
    const number = (v: unknown) => (pg ? int8Of(v as Buffer) : Number(v));
    for await (let raw of sql.stream(text, params, BATCH, copyOf)) {
      raw = pass(raw);
      if (!raw.length) continue;
      const n = raw.length;
      /** Where a Domain's piece was lost or another's: written instead (writtenOf). */
      const broken: number[] = [];
      const crcs = new Uint32Array(n);
      const lens = new Uint32Array(n);
      // Each body as it was read (a view of the COPY's output, or SQLite's own buffer): the page
      // copies it once, into the joined stream (src/db/rendered.ts: joinPieces).
      const bodies: Uint8Array[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const row = raw[i];
        const body =
          row[3] === null
            ? null
            : checkedPiece(row[3] as Buffer, number(row[0]), number(row[1]), number(row[2]));
        if (!body) {
          broken.push(i);
          continue;
        }
        crcs[i] = number(row[1]);
        lens[i] = number(row[2]);
        bodies[i] = body;
      }
      if (broken.length) {
        const written = await writtenOf(
          served,
          broken.map((i) => number(raw[i][0])),
        );
        broken.forEach((at, k) => {
          const joint = jointOf(written[k]);
          bodies[at] = joint.body;
          crcs[at] = joint.crc;
          lens[at] = joint.len;
        });
      }
      yield { pks: raw.map((r) => number(r[0])), bodies, crcs, lens, broken: broken.length };
    }
  }
}
